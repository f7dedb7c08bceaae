/*
 * float16 and bfloat16 plans on device pointers (lwt_cuda.h; docs/API.md, "16-bit storage"),
 * two ways, chosen when the plan is made (lwt_cuda_half_fused):
 *
 *   - fused levels, for 2-D arrays (batches too) whose every level the register kernel runs: each level's
 *     kernel reads and writes 16 bits where a value is input or final (the input, the detail
 *     bands, the output) and float32 where the next level computes on it (the approximation
 *     between levels), so that the bytes moved are about half the float32 plan's. The driver
 *     walks the float32 plan's steps (lwt_driver_run_half); the backend's fused levels take
 *     the 16-bit type from the call, and the corner conversion below ends the forward and
 *     starts the inverse;
 *   - elsewhere, the two conversions of core/half_plan.c as kernels around the float32 plan's
 *     device run.
 *
 * Both compute in float32 exactly as the float32 plan does and round each result once with
 * core/half.h's conversions, the host's, so every path gives the host's bits. Device
 * workspace: the float32 input and output (lwt_half_buf_bytes each; the fused levels use them
 * for the approximations), then the float32 plan's device workspace.
 */
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "core/context.h"
#include "core/half.h"
#include "core/plan.h"
}
#include "core/fail.h"
#include "cuda/cuda_half.cuh"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_plan_levels.cuh"
#include "lwt_cuda.h"

/* The conversions of the unfused path, one value a thread a step. Eight values a thread with
   16-byte accesses measured no faster: the float16 CDF 9/7 4-level 16384^2 plan with improved
   lifting (not fused) took 2.517 ms against 2.532 ms (H100, docs/PERFORMANCE.md): the two
   kernels move their 3 GiB at ~2.4 TB/s either way. */
static __global__ void half_widen(int bf16, const uint16_t *in, float *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = bf16 ? lwt_bf16_to_f32(in[i]) : lwt_f16_to_f32(in[i]);
}

static __global__ void half_narrow(int bf16, const float *in, uint16_t *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = bf16 ? lwt_f32_to_bf16(in[i]) : lwt_f32_to_f16(in[i]);
}

/* nbatch arrays of rows x cols values between float32 and 16 bits (narrow: float32 in), row and
   array strides in values: the coarsest approximations, between their float32 buffer and the
   packed arrays' corners; a block row per array row (no division per value) */
static __global__ void half_corner(int bf16, int narrow, const void *in, size_t is, size_t ibs, void *out, size_t os,
                                   size_t obs, size_t rows, size_t cols, size_t nrows)
{
    for (size_t zr = blockIdx.y; zr < nrows; zr += gridDim.y) {
        const size_t z = zr / rows, r = zr - z * rows, i0 = z * ibs + r * is, o0 = z * obs + r * os;
        for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < cols; c += (size_t)gridDim.x * blockDim.x)
            if (narrow) {
                const float v = ((const float *)in)[i0 + c];
                ((uint16_t *)out)[o0 + c] = bf16 ? lwt_f32_to_bf16(v) : lwt_f32_to_f16(v);
            } else {
                const uint16_t h = ((const uint16_t *)in)[i0 + c];
                ((float *)out)[o0 + c] = bf16 ? lwt_bf16_to_f32(h) : lwt_f16_to_f32(h);
            }
    }
}

/* a grid-stride launch: enough blocks to fill the device, never more than the values need */
static unsigned blocks_for(size_t n)
{
    const size_t b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

lwt_status lwt_cuda_half_workspace(const lwt_plan *p, size_t *bytes)
{
    size_t inner = 0;
    lwt_status st = lwt_plan_device_workspace_size(p->f32, &inner);
    *bytes = 2 * lwt_half_buf_bytes(p) + inner;
    return st;
}

extern "C" int lwt_cuda_half_fused(const lwt_plan *q)
{
    /* a batch in one launch a level at most (gridDim.y), which the fused levels' kernels take */
    if (q->backend != LWT_BACKEND_CUDA || q->ndim != 2 || q->desc.batch > 65535 || q->levels < 1)
        return 0;
    for (int inv = 0; inv < 2; inv++)
        for (int i = 0; i < q->steps.n[inv]; i++) {
            const lwt_level_step *st = &q->steps.v[inv][i];
            int shape = -1, improved = 0;
            if (st->op == LWT_LEVEL_PAIR2D && lwt_cuda_plan_pair(q, st->level, &shape))
                continue;
            if (st->op != LWT_LEVEL_FUSED2D || !lwt_cuda_plan_level(q, st->level, inv, &shape, &improved) ||
                improved)
                return 0;
        }
    return 1;
}

cudaError_t lwt_cuda_half_corner(int bf16, int narrow, const void *in, size_t in_stride, size_t in_bstride, void *out,
                                 size_t out_stride, size_t out_bstride, size_t rows, size_t cols, size_t nbatch,
                                 cudaStream_t stream)
{
    const size_t nrows = rows * nbatch;
    if (nrows == 0 || cols == 0)
        return cudaSuccess;
    const dim3 grid((unsigned)((cols + 255) / 256 < 16 ? (cols + 255) / 256 : 16),
                    (unsigned)(nrows < 65535 ? nrows : 65535));
    half_corner<<<grid, 256, 0, stream>>>(bf16, narrow, in, in_stride, in_bstride, out, out_stride, out_bstride, rows,
                                          cols, nrows);
    return cudaGetLastError();
}

lwt_status lwt_cuda_half_run(const lwt_plan *p, const void *d_in, void *d_out, void *d_ws, cudaStream_t stream,
                             int inverse)
{
    const lwt_plan *q = p->f32;
    if (q->backend != LWT_BACKEND_CUDA || !d_in || !d_out || !d_ws)
        return lwt_fail(p->ctx, LWT_ERR_INVALID_ARGUMENT, "device execution needs a CUDA plan and device buffers");
    const int bf16 = p->desc.dtype == LWT_BF16;
    const size_t B = q->desc.batch, buf = lwt_half_buf_bytes(p);
    const size_t nin = (inverse ? q->coeff_count : q->input_count) * B;
    const size_t nout = (inverse ? q->input_count : q->coeff_count) * B;
    float *x = (float *)d_ws, *y = (float *)((char *)d_ws + buf);
    void *inner_ws = (char *)d_ws + 2 * buf;
    int cur = 0;
    LWT_CUDA_CHECK(p->ctx, cudaGetDevice(&cur));
    LWT_CUDA_CHECK(p->ctx, cudaSetDevice(q->device));
    if (p->half_fused) {
        float *ab[2] = {x, y};
        const lwt_status fs = lwt_cuda_half_fused_run(p, d_in, d_out, ab, stream, inverse);
        cudaSetDevice(cur);
        return fs;
    }
    half_widen<<<blocks_for(nin), 256, 0, stream>>>(bf16, (const uint16_t *)d_in, x, nin);
    cudaError_t e = cudaGetLastError();
    lwt_status st = e != cudaSuccess ? lwt_cuda_fail(p->ctx, e, "widening the 16-bit input")
                    : inverse        ? lwt_inverse_device(q, x, y, inner_ws, stream)
                                     : lwt_forward_device(q, x, y, inner_ws, stream);
    if (st == LWT_OK) {
        half_narrow<<<blocks_for(nout), 256, 0, stream>>>(bf16, y, (uint16_t *)d_out, nout);
        if ((e = cudaGetLastError()) != cudaSuccess)
            st = lwt_cuda_fail(p->ctx, e, "rounding the result to 16 bits");
    }
    cudaSetDevice(cur);
    return st;
}
