/*
 * The material ratio curve's sort on the GPU (surface/mr_curve.h, lwt_material_curve_create_on):
 * the finite heights of a host array as order keys (mr_curve.c's key_of: the bits of a double
 * made an unsigned integer in the order of the values, -0 before +0), sorted with CUB's radix
 * sort. The keys are unique up to equal bits, so the sorted keys are the CPU sort's, bit for bit.
 * Measured at 12288^2 on an H200 host: the CPU sort of the four surfaces of lwt filter took 12.3 s
 * of its 13.0 s of parameters (docs/PERFORMANCE.md, "lwt filter end to end on a GPU").
 */
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <stdint.h>

extern "C" {
#include "surface/mr_curve.h"
}

namespace {

struct finite_key {
    __device__ bool operator()(const uint64_t &k) const
    {
        return k != UINT64_MAX; /* the mark of a non-finite height (to_keys) */
    }
};

/* k[i] = the order key of z[i], or UINT64_MAX (no finite double has that key) for NaN and inf */
__global__ void to_keys(const double *z, uint64_t *k, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const double v = z[i];
        const uint64_t u = (uint64_t)__double_as_longlong(v);
        k[i] = !isfinite(v) ? UINT64_MAX : u >> 63 ? ~u : u | (1ull << 63);
    }
}

} // namespace

extern "C" int lwt__cuda_sorted_keys(const double *z, size_t n, uint64_t *keys, size_t *n_valid)
{
    double *d_z = nullptr;
    uint64_t *d_a = nullptr, *d_b = nullptr;
    size_t *d_count = nullptr;
    void *d_tmp = nullptr;
    size_t tmp_select = 0, tmp_sort = 0, count = 0;
    cudaError_t e = cudaMalloc(&d_z, n * sizeof *d_z);
    if (e == cudaSuccess) e = cudaMalloc(&d_a, n * sizeof *d_a);
    if (e == cudaSuccess) e = cudaMalloc(&d_b, n * sizeof *d_b);
    if (e == cudaSuccess) e = cudaMalloc(&d_count, sizeof *d_count);
    if (e == cudaSuccess) e = cudaMemcpy(d_z, z, n * sizeof *d_z, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        to_keys<<<(unsigned)((n + 255) / 256 < 65536 * 8 ? (n + 255) / 256 : 65536 * 8), 256>>>(d_z, d_a, n);
        e = cudaGetLastError();
    }
    cudaFree(d_z); /* its memory is the sort's scratch from here on */
    d_z = nullptr;
    /* the finite keys compacted into d_b, then sorted (d_b, d_a as the double buffer) */
    if (e == cudaSuccess)
        e = cub::DeviceSelect::If(nullptr, tmp_select, d_a, d_b, d_count, (int64_t)n, finite_key());
    if (e == cudaSuccess)
        e = cub::DeviceRadixSort::SortKeys(nullptr, tmp_sort, d_b, d_a, (int64_t)n);
    if (e == cudaSuccess)
        e = cudaMalloc(&d_tmp, tmp_select > tmp_sort ? tmp_select : tmp_sort);
    if (e == cudaSuccess)
        e = cub::DeviceSelect::If(d_tmp, tmp_select, d_a, d_b, d_count, (int64_t)n, finite_key());
    if (e == cudaSuccess)
        e = cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost);
    cub::DoubleBuffer<uint64_t> db(d_b, d_a);
    if (e == cudaSuccess && count > 1)
        e = cub::DeviceRadixSort::SortKeys(d_tmp, tmp_sort, db, (int64_t)count);
    if (e == cudaSuccess)
        e = cudaMemcpy(keys, db.Current(), count * sizeof *keys, cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_count);
    cudaFree(d_tmp);
    *n_valid = count;
    return e == cudaSuccess ? 0 : e == cudaErrorMemoryAllocation ? -2 : -1;
}
