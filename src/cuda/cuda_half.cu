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
