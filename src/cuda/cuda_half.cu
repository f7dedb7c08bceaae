/*
 * float16 and bfloat16 plans on device pointers (lwt_cuda.h; docs/API.md, "16-bit storage"):
 * the two conversions of core/half_plan.c as kernels, around the float32 plan's device run.
 * The conversions are core/half.h's, the same functions as on the host, so the GPU gives the
 * host's bits. Device workspace: the float32 input and output (lwt_half_buf_bytes each), then
 * the float32 plan's device workspace.
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
#include "lwt_cuda.h"

/* Eight values a thread a step where both arrays allow 16-byte accesses (every cudaMalloc'd
   buffer does), one at a time elsewhere and for the tail: with 2-byte loads a warp moved 64
   bytes a step and the two conversions of a 16384^2 CDF 9/7 float16 forward took 1.54 ms of
   its 2.66 on an H100, 2 TB/s against the 3 TB/s of a device copy (docs/PERFORMANCE.md). */
static __device__ bool both_aligned(const void *a, const void *b)
{
    return (((uintptr_t)a | (uintptr_t)b) & 15) == 0;
}

static __global__ void half_widen(int bf16, const uint16_t *in, float *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t done = 0;
    if (both_aligned(in, out)) {
        const size_t n8 = n / 8;
        for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n8; v += stride) {
            const uint4 h = reinterpret_cast<const uint4 *>(in)[v];
            const uint32_t w[4] = {h.x, h.y, h.z, h.w};
            float f[8];
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const uint16_t b = (uint16_t)(w[k / 2] >> (16 * (k % 2)));
                f[k] = bf16 ? lwt_bf16_to_f32(b) : lwt_f16_to_f32(b);
            }
            reinterpret_cast<float4 *>(out)[2 * v] = make_float4(f[0], f[1], f[2], f[3]);
            reinterpret_cast<float4 *>(out)[2 * v + 1] = make_float4(f[4], f[5], f[6], f[7]);
        }
        done = n8 * 8;
    }
    for (size_t i = done + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = bf16 ? lwt_bf16_to_f32(in[i]) : lwt_f16_to_f32(in[i]);
}

static __global__ void half_narrow(int bf16, const float *in, uint16_t *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t done = 0;
    if (both_aligned(in, out)) {
        const size_t n8 = n / 8;
        for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n8; v += stride) {
            const float4 a = reinterpret_cast<const float4 *>(in)[2 * v], b = reinterpret_cast<const float4 *>(in)[2 * v + 1];
            const float f[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
            uint32_t w[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const uint32_t lo = bf16 ? lwt_f32_to_bf16(f[2 * k]) : lwt_f32_to_f16(f[2 * k]);
                const uint32_t hi = bf16 ? lwt_f32_to_bf16(f[2 * k + 1]) : lwt_f32_to_f16(f[2 * k + 1]);
                w[k] = lo | hi << 16;
            }
            reinterpret_cast<uint4 *>(out)[v] = make_uint4(w[0], w[1], w[2], w[3]);
        }
        done = n8 * 8;
    }
    for (size_t i = done + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = bf16 ? lwt_f32_to_bf16(in[i]) : lwt_f32_to_f16(in[i]);
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
