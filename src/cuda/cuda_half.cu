/*
 * float16 and bfloat16 plans on device pointers (lwt_cuda.h; docs/API.md, "16-bit storage"),
 * two ways, chosen when the plan is made (lwt_cuda_half_fused):
 *
 *   - fused levels, for 2-D arrays whose every level the register kernel runs: each level's
 *     kernel reads and writes 16 bits where a value is input or final (the input, the detail
 *     bands, the output) and float32 where the next level computes on it (the approximation
 *     between levels), so that the bytes moved are about half the float32 plan's;
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
#include "cuda/cuda_slide_pair.cuh"
#include "cuda/cuda_slide_regs.cuh"
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

/* rows x cols values between float32 and 16 bits (narrow: float32 in), row strides in values:
   the coarsest approximation, between its float32 buffer and the packed array's corner */
static __global__ void half_corner(int bf16, int narrow, const void *in, size_t is, void *out, size_t os, size_t rows,
                                   size_t cols)
{
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y)
        for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < cols; c += (size_t)gridDim.x * blockDim.x)
            if (narrow) {
                const float v = ((const float *)in)[r * is + c];
                ((uint16_t *)out)[r * os + c] = bf16 ? lwt_f32_to_bf16(v) : lwt_f32_to_f16(v);
            } else {
                const uint16_t h = ((const uint16_t *)in)[r * is + c];
                ((float *)out)[r * os + c] = bf16 ? lwt_bf16_to_f32(h) : lwt_f16_to_f32(h);
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
    if (q->backend != LWT_BACKEND_CUDA || q->ndim != 2 || q->desc.batch != 1 || q->levels < 1 ||
        q->steps.batch_levels)
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

/* where level j's detail band `mask` (1..3) starts in 16-bit packed coefficients c */
static uint16_t *detail_band(const lwt_plan *q, int j, unsigned mask, const void *c)
{
    lwt_band b;
    lwt_plan_band(q, q->levels - j + 1, mask, &b);
    return (uint16_t *)c + b.offset[0] * q->packed[1] + b.offset[1];
}

/* the coarsest approximation between float32 buffer a (compact) and the packed corner of c:
   a block row per array row (no division per value) */
static cudaError_t corner(const lwt_plan *q, int bf16, int narrow, float *a, void *c, cudaStream_t stream)
{
    const size_t *nc = q->sizes[q->levels];
    const dim3 grid((unsigned)((nc[1] + 255) / 256 < 16 ? (nc[1] + 255) / 256 : 16),
                    (unsigned)(nc[0] < 65535 ? nc[0] : 65535));
    if (narrow)
        half_corner<<<grid, 256, 0, stream>>>(bf16, 1, a, nc[1], c, q->packed[1], nc[0], nc[1]);
    else
        half_corner<<<grid, 256, 0, stream>>>(bf16, 0, c, q->packed[1], a, nc[1], nc[0], nc[1]);
    return cudaGetLastError();
}

/* level j's bands as its kernels write them: the approximation to float32 buffer a (compact),
   the details to their places in the 16-bit packed array c */
static void level_dests(const lwt_plan *q, int j, float *a, void *c, void *dst[4], size_t stride[4])
{
    dst[0] = a;
    stride[0] = q->sizes[j][1];
    for (unsigned mask = 1; mask < 4; mask++) {
        dst[mask] = detail_band(q, j, mask, c);
        stride[mask] = q->packed[1];
    }
}

/* The fused levels (lwt_cuda_half_fused): the float32 plan q's steps, each level or pair of
   levels on its register kernel with 16-bit storage where a value is final, the approximations
   in the float32 buffers ab (alternately); the order and the arrays of the driver's FUSED2D
   and PAIR2D steps (core/driver.c). */
static cudaError_t fused_forward(const lwt_plan *q, int bf16, const void *in, void *c, float *ab[2],
                                 cudaStream_t stream)
{
    cudaError_t e = q->tight ? cudaSuccess : lwt_cuda_zero_blocks(2, c, q->gap_shape, q->gaps, q->ngaps, stream);
    const void *cur = in;
    size_t cur_stride = q->shape[1];
    int which = 0;
    for (int i = 0; e == cudaSuccess && i < q->steps.n[0]; i++, which ^= 1) {
        const lwt_level_step *st = &q->steps.v[0][i];
        const int j = st->level;
        int shape = -1, improved = 0;
        void *dst[4], *dst2[4];
        size_t stride[4], stride2[4];
        level_dests(q, j, ab[which], c, dst, stride);
        if (st->op == LWT_LEVEL_PAIR2D) {
            const lwt_slide_pair *pp = lwt_cuda_plan_pair(q, j, &shape);
            level_dests(q, j + 1, ab[which], c, dst2, stride2);
            e = lwt_cuda_slide_pair_half(shape, pp, &q->wavelet.scheme, bf16, j == 1, cur, cur_stride, dst, stride,
                                         dst2, stride2, stream);
            cur_stride = stride2[0];
        } else {
            const lwt_slide_geom *g = lwt_cuda_plan_level(q, j, 0, &shape, &improved);
            const void *src[4] = {cur, NULL, NULL, NULL};
            const size_t src_stride[4] = {cur_stride, 0, 0, 0};
            e = lwt_cuda_slide2d_regs_half(shape, g, &q->wavelet.scheme, bf16, j == 1, src, src_stride, dst, stride,
                                           stream);
            cur_stride = stride[0];
        }
        cur = ab[which];
    }
    return e ? e : corner(q, bf16, 1, (float *)cur, c, stream);
}

static cudaError_t fused_inverse(const lwt_plan *q, int bf16, const void *c, void *out, float *ab[2],
                                 cudaStream_t stream)
{
    cudaError_t e = corner(q, bf16, 0, ab[0], (void *)c, stream);
    const float *approx = ab[0];
    size_t approx_stride = q->sizes[q->levels][1];
    for (int j = q->levels, which = 1; e == cudaSuccess && j >= 1; j--, which ^= 1) {
        int shape = -1, improved = 0;
        const lwt_slide_geom *g = lwt_cuda_plan_level(q, j, 1, &shape, &improved);
        const void *src[4] = {approx, detail_band(q, j, 1, c), detail_band(q, j, 2, c), detail_band(q, j, 3, c)};
        const size_t src_stride[4] = {approx_stride, q->packed[1], q->packed[1], q->packed[1]};
        void *dst[4] = {j == 1 ? out : (void *)ab[which], NULL, NULL, NULL};
        const size_t dst_stride[4] = {q->sizes[j - 1][1], 0, 0, 0};
        e = lwt_cuda_slide2d_regs_half(shape, g, &q->wavelet.scheme, bf16, j == 1, src, src_stride, dst, dst_stride,
                                       stream);
        approx = ab[which];
        approx_stride = dst_stride[0];
    }
    return e;
}

cudaError_t lwt_cuda_half_fused_run(const lwt_plan *p, const void *d_in, void *d_out, float *ab[2], cudaStream_t stream,
                                    int inverse)
{
    const int bf16 = p->desc.dtype == LWT_BF16;
    return inverse ? fused_inverse(p->f32, bf16, d_in, d_out, ab, stream)
                   : fused_forward(p->f32, bf16, d_in, d_out, ab, stream);
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
        const cudaError_t fe = lwt_cuda_half_fused_run(p, d_in, d_out, ab, stream, inverse);
        cudaSetDevice(cur);
        return fe == cudaSuccess ? LWT_OK : lwt_cuda_fail(p->ctx, fe, "a 16-bit level on the device");
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
