// bus_contention.cu - how fast a streamed forward's D2H can be, measured without the library.
//
// The streamed 16384^2 CDF 9/7 forward (4 levels, 512-row chunks) copies each chunk's coefficients
// to the packed host layout as 13 pitched 2-D copies (3 bands per level, plus the coarsest
// approximation). This program moves the same 32 chunks' copies into a pinned 1 GiB host array:
//   1. alone;
//   2. with a 1 GiB H2D running at once (the other bus direction, as the pipeline does);
//   3. with copy kernels saturating the device memory at once (as the chunk transforms do);
//   4. with both;
//   5. with lighter kernels (one block per SM: a latency-bound transform's memory rate);
//   6. with device-to-device 2-D copies at once (the chunk windows' assembly);
// each with the 13 copies and with fewer (bands adjacent on both sides merged, 8: the (da) and (dd)
// bands of a level are one run of full packed rows at level 1, and the coarsest approximation
// sits next to its level's (ad) band), and one contiguous 1 GiB D2H for reference.
// docs/PERFORMANCE.md has the numbers and why they matter (case 3 slows the D2H from about 50
// to 30 GB/s on an H200).
//
// Build and run on the GPU machine:
//   nvcc -O2 -arch=sm_90 scripts/bus_contention.cu -o bus_contention && ./bus_contention
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const size_t N = 16384, TOTAL = N * N * 4, LOAD = 256u << 20;

__global__ void copy_kernel(float4 *d, const float4 *s, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        d[i] = s[i];
}

// one chunk's band copies (chunk c of 32: 256 level-1 band rows), from a dense device buffer;
// merged: adjacent bands in one copy (8 copies instead of 13)
static void chunk_copies(char *host, const char *dev, int c, bool merged, cudaStream_t st)
{
    size_t off = 0;
    for (int j = 1; j <= 4; j++) {
        const size_t rows = 256 >> (j - 1), w = (N >> j) * 4, h = N >> j, r0 = (size_t)c * rows;
        // level j: (ad) rows r0.. at column h, (da) rows h + r0 at column 0, (dd) rows h + r0 at column h
        if (merged) {
            // (da)+(dd): one run of width 2w; (ad), with the approximation before it at the last level
            CK(cudaMemcpy2DAsync(host + (h + r0) * N * 4, N * 4, dev + off, 2 * w, 2 * w, rows,
                                 cudaMemcpyDeviceToHost, st));
            off += 2 * rows * w;
            const size_t ww = j == 4 ? 2 * w : w, col = j == 4 ? 0 : h;
            CK(cudaMemcpy2DAsync(host + (r0 * N + col) * 4, N * 4, dev + off, ww, ww, rows, cudaMemcpyDeviceToHost,
                                 st));
            off += rows * ww;
            continue;
        }
        const size_t dst[3] = {(r0 * N + h) * 4, ((h + r0) * N) * 4, ((h + r0) * N + h) * 4};
        for (int k = 0; k < 3; k++, off += rows * w)
            CK(cudaMemcpy2DAsync(host + dst[k], N * 4, dev + off, w, w, rows, cudaMemcpyDeviceToHost, st));
        if (j == 4) { // the approximation
            CK(cudaMemcpy2DAsync(host + r0 * N * 4, N * 4, dev + off, w, w, rows, cudaMemcpyDeviceToHost, st));
            off += rows * w;
        }
    }
}

int main()
{
    char *hout, *hin, *dsrc, *ddst, *kx, *ky;
    cudaStream_t sd, su, sk;
    cudaEvent_t a, b;
    CK(cudaHostAlloc((void **)&hout, TOTAL, 0));
    CK(cudaHostAlloc((void **)&hin, TOTAL, 0));
    memset(hout, 1, TOTAL);
    memset(hin, 2, TOTAL);
    CK(cudaMalloc(&dsrc, 64u << 20));
    CK(cudaMalloc(&ddst, TOTAL));
    CK(cudaMalloc(&kx, LOAD));
    CK(cudaMalloc(&ky, LOAD));
    CK(cudaStreamCreateWithFlags(&sd, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&su, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    enum { H2D = 1, HEAVY = 2, LIGHT = 4, D2D = 8 };
    const struct { int f; const char *what; } vs[] = {
        {0, "alone"},
        {H2D, "with a 1 GiB H2D at once"},
        {HEAVY, "with memory-bound kernels at once"},
        {H2D | HEAVY, "with the H2D and the kernels at once"},
        {LIGHT, "with one-block-per-SM copy kernels at once"},
        {H2D | LIGHT, "with the H2D and one-block-per-SM kernels"},
        {D2D, "with device-to-device 2-D copies at once"},
        {H2D | D2D, "with the H2D and device-to-device copies"},
    };
    for (int merged = 0; merged < 2; merged++)
        for (const auto &v : vs) {
            std::vector<float> t;
            for (int r = 0; r < 6; r++) {
                CK(cudaDeviceSynchronize());
                CK(cudaEventRecord(a, sd));
                if (v.f & H2D)
                    CK(cudaMemcpyAsync(ddst, hin, TOTAL, cudaMemcpyHostToDevice, su));
                if (v.f & HEAVY)
                    for (int k = 0; k < 200; k++)
                        copy_kernel<<<1056, 256, 0, sk>>>((float4 *)ky, (const float4 *)kx, LOAD / 16);
                if (v.f & LIGHT)
                    for (int k = 0; k < 200; k++)
                        copy_kernel<<<sms, 256, 0, sk>>>((float4 *)ky, (const float4 *)kx, LOAD / 16 / 8);
                if (v.f & D2D)
                    for (int k = 0; k < 64; k++)
                        CK(cudaMemcpy2DAsync(ky, 32768, kx, 65536, 32768, 2048, cudaMemcpyDeviceToDevice, sk));
                CK(cudaGetLastError());
                for (int c = 0; c < 32; c++)
                    chunk_copies(hout, dsrc, c, merged, sd);
                CK(cudaEventRecord(b, sd));
                CK(cudaDeviceSynchronize());
                float ms;
                CK(cudaEventElapsedTime(&ms, a, b));
                if (r > 0)
                    t.push_back(ms);
            }
            std::sort(t.begin(), t.end());
            const float m = t[t.size() / 2];
            printf("%2d band copies per chunk x 32 chunks, D2H %-45s %6.2f ms (%.1f GB/s)\n", merged ? 8 : 13, v.what,
                   m, TOTAL / m / 1e6);
        }
    CK(cudaEventRecord(a, sd));
    CK(cudaMemcpyAsync(hout, ddst, TOTAL, cudaMemcpyDeviceToHost, sd));
    CK(cudaEventRecord(b, sd));
    CK(cudaDeviceSynchronize());
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("one contiguous 1 GiB D2H, alone: %.2f ms (%.1f GB/s)\n", ms, TOTAL / ms / 1e6);
    CK(cudaEventRecord(a, sd));
    CK(cudaMemcpyAsync(ddst, hin, TOTAL, cudaMemcpyHostToDevice, su));
    CK(cudaMemcpyAsync(hout, ddst + 0, TOTAL, cudaMemcpyDeviceToHost, sd));
    CK(cudaEventRecord(b, sd));
    CK(cudaDeviceSynchronize());
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("one contiguous 1 GiB D2H with a 1 GiB H2D at once: %.2f ms (%.1f GB/s)\n", ms, TOTAL / ms / 1e6);
    return 0;
}
