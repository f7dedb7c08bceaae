/*
 * The device's float16 and bfloat16 conversions (core/half.h: the hardware's, NaN by hand)
 * against the portable ones on every input: all 2^32 float32 values narrowed to float16 and to
 * bfloat16, all 2^16 float16 values widened, compared bit for bit on the GPU (test_gpu_half
 * calls it).
 */
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "core/half.h"
}

/* bf16: the bfloat16 narrowing, else the float16 one */
static __global__ void narrow_all(unsigned long long *bad, unsigned *first, int bf16)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (1ull << 32); i += stride) {
        const float f = lwt_f32_from_bits((uint32_t)i);
        if (bf16 ? lwt_f32_to_bf16(f) != lwt_f32_to_bf16_soft(f) : lwt_f32_to_f16(f) != lwt_f32_to_f16_soft(f)) {
            atomicAdd(bad, 1ull);
            atomicMin(first, (unsigned)i);
        }
    }
}

static __global__ void widen_all(unsigned long long *bad, unsigned *first)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 65536 && lwt_f32_bits(lwt_f16_to_f32((uint16_t)i)) != lwt_f32_bits(lwt_f16_to_f32_soft((uint16_t)i))) {
        atomicAdd(bad, 1ull);
        atomicMin(first, i);
    }
}

/* mismatches: [0] float16 narrowing, [1] float16 widening, [2] bfloat16 narrowing, first[] the
   first input of each (0xffffffff: none); 0, or -1 when the device failed */
extern "C" int half_cvt_check(unsigned long long mismatches[3], unsigned first[3])
{
    unsigned long long *d = NULL;
    unsigned *f = NULL;
    const unsigned none[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu};
    cudaError_t e = cudaMalloc(&d, 3 * sizeof *d);
    if (e == cudaSuccess) e = cudaMalloc(&f, 3 * sizeof *f);
    if (e == cudaSuccess) e = cudaMemset(d, 0, 3 * sizeof *d);
    if (e == cudaSuccess) e = cudaMemcpy(f, none, sizeof none, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        narrow_all<<<4096, 256>>>(d, f, 0);
        widen_all<<<256, 256>>>(d + 1, f + 1);
        narrow_all<<<4096, 256>>>(d + 2, f + 2, 1);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpy(mismatches, d, 3 * sizeof *d, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(first, f, 3 * sizeof *f, cudaMemcpyDeviceToHost);
    cudaFree(d);
    cudaFree(f);
    return e == cudaSuccess ? 0 : -1;
}
