// bus_contention.cu - how fast a streamed forward's D2H can be, measured without the library.
//
// The streamed 16384^2 CDF 9/7 forward (4 levels, 512-row chunks) copies each chunk's coefficients
// to the packed host layout as pitched 2-D copies: 13 (3 bands per level, plus the coarsest
// approximation), or 8 when the bands adjacent on both sides are merged (a level's (da) and (dd)
// bands, which at level 1 are one run of whole packed rows; the coarsest approximation and its
// (ad) neighbour). This program moves the same 32 chunks' copies into a pinned 1 GiB host array:
//   - alone, next to a 1 GiB H2D (the other bus direction), next to copy kernels saturating the
//     device memory, lighter ones (one block per SM), or device-to-device 2-D copies;
//   - over two D2H streams, the H2D in 32 pieces, each chunk's D2H after an event wait;
//   - pipelined as the stream worker runs it: chunk c goes up, then work on the device (a copy
//     kernel moving 192 MB, a 40 MB device-to-device copy, or an empty kernel; per chunk or per
//     pair of chunks), then chunk c's D2H;
//   - by the SMs (stores into mapped pinned memory) instead of a copy engine;
//   - with the (ad) bands pitched on the device side too (as in a chunk's output);
// and one contiguous 1 GiB D2H, alone and next to the H2D, for reference.
// docs/PERFORMANCE.md has the numbers and what they say: the pipeline's transfers alone come
// within 10% of the bus floor, and any device work between a chunk's upload and its D2H (a
// kernel, or only a device-to-device copy) costs the D2H about 10% of its rate.
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
// a 2-D copy by the SMs: 16-byte loads from the device, stores straight into pinned host memory
// (mapped: with unified addressing the host pointer is valid on the device), instead of a copy engine
__global__ void copy2d_kernel(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width, size_t rows)
{
    const size_t per_row = width / 16, n = per_row * rows;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / per_row, k = i - r * per_row;
        *(float4 *)(dst + r * dpitch + 16 * k) = *(const float4 *)(src + r * spitch + 16 * k);
    }
}
static bool by_sms;
static int sm_blocks = 64;
static void copy2d(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width, size_t rows,
                   cudaStream_t st)
{
    if (!by_sms) {
        CK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToHost, st));
        return;
    }
    copy2d_kernel<<<sm_blocks, 512, 0, st>>>(dst, dpitch, src, spitch, width, rows);
    CK(cudaGetLastError());
}

// device_pitched: the (ad) bands of levels 1-3 read from rows twice their width, as they sit in a
// chunk's [2 rows, 2 nc1] output next to the approximation
static bool device_pitched;
static void chunk_copies(char *host, const char *dev, int c, bool merged, cudaStream_t st, cudaStream_t st2 = 0)
{
    int n = 0;
    size_t off = 0;
    for (int j = 1; j <= 4; j++) {
        const size_t rows = 256 >> (j - 1), w = (N >> j) * 4, h = N >> j, r0 = (size_t)c * rows;
        // level j: (ad) rows r0.. at column h, (da) rows h + r0 at column 0, (dd) rows h + r0 at column h
        if (merged) {
            // (da)+(dd): one run of width 2w; (ad), with the approximation before it at the last level
            copy2d(host + (h + r0) * N * 4, N * 4, dev + off, 2 * w, 2 * w, rows, st2 && n++ % 2 ? st2 : st);
            off += 2 * rows * w;
            const size_t ww = j == 4 ? 2 * w : w, col = j == 4 ? 0 : h;
            const size_t sp = device_pitched && j < 4 ? 2 * ww : ww;
            copy2d(host + (r0 * N + col) * 4, N * 4, dev + off, sp, ww, rows, st2 && n++ % 2 ? st2 : st);
            off += rows * sp;
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
    cudaStream_t sd, su, sk, sd2;
    cudaEvent_t a, b, b2;
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
    CK(cudaStreamCreateWithFlags(&sd2, cudaStreamNonBlocking));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventCreate(&b2));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    enum {
        H2D = 1, HEAVY = 2, LIGHT = 4, D2D = 8, TWO = 16, CHUNKED = 32, EVENTS = 64, PITCHED = 128,
        PIPE = 256, TINY = 512, NODEP = 1024, SMS = 2048, PAIRS = 4096
    };
    cudaEvent_t evs[2][32];
    for (int c = 0; c < 32; c++) {
        CK(cudaEventCreate(&evs[0][c]));
        CK(cudaEventCreate(&evs[1][c]));
    }
    const struct { int f; const char *what; } vs[] = {
        {0, "alone"},
        {H2D, "with a 1 GiB H2D at once"},
        {HEAVY, "with memory-bound kernels at once"},
        {H2D | HEAVY, "with the H2D and the kernels at once"},
        {LIGHT, "with one-block-per-SM copy kernels at once"},
        {H2D | LIGHT, "with the H2D and one-block-per-SM kernels"},
        {D2D, "with device-to-device 2-D copies at once"},
        {H2D | D2D, "with the H2D and device-to-device copies"},
        {H2D | TWO, "with the H2D, copies over two D2H streams"},
        {H2D | CHUNKED, "with the H2D in 32 copies"},
        {H2D | CHUNKED | TWO, "with the H2D in 32 copies, two D2H streams"},
        {H2D | CHUNKED | EVENTS, "with the H2D in 32 copies, each chunk's D2H waiting on its H2D"},
        {H2D | EVENTS, "with the H2D, each chunk's D2H after an event wait"},
        {H2D | CHUNKED | EVENTS | PIPE, "pipelined: chunk up, a 192 MB copy kernel, then its D2H"},
        {H2D | CHUNKED | EVENTS | PIPE | D2D, "pipelined: chunk up, a 40 MB device copy, then its D2H"},
        {H2D | CHUNKED | EVENTS | PIPE | TINY, "pipelined: chunk up, an empty kernel, then its D2H"},
        {H2D | CHUNKED | EVENTS | PIPE | NODEP, "pipelined kernels, the D2H waiting on the upload only"},
        {H2D | CHUNKED | EVENTS | PIPE | PAIRS, "pipelined: two chunks up, one 384 MB copy kernel, their D2H"},
        {H2D | CHUNKED | EVENTS | PIPE | PAIRS | D2D, "pipelined: two chunks up, one 80 MB device copy, their D2H"},
        {SMS, "by SM stores into mapped host memory, alone"},
        {H2D | SMS, "by SM stores, with the H2D"},
        {H2D | CHUNKED | EVENTS | PIPE | SMS, "by SM stores, pipelined with 192 MB copy kernels"},
        {H2D | CHUNKED | EVENTS | PIPE | D2D | SMS, "by SM stores, pipelined with 40 MB device copies"},
        {PITCHED, "alone, (ad) bands pitched on the device too"},
        {H2D | PITCHED, "with the H2D, (ad) bands pitched on the device too"},
    };
    for (int merged = 0; merged < 2; merged++)
        for (const auto &v : vs) {
            std::vector<float> t;
            device_pitched = v.f & PITCHED;
            by_sms = v.f & SMS;
            for (int r = 0; r < 6; r++) {
                CK(cudaDeviceSynchronize());
                CK(cudaEventRecord(a, sd));
                CK(cudaStreamWaitEvent(sd2, a, 0));
                if ((v.f & H2D) && !(v.f & CHUNKED))
                    CK(cudaMemcpyAsync(ddst, hin, TOTAL, cudaMemcpyHostToDevice, su));
                if ((v.f & H2D) && (v.f & CHUNKED))
                    for (int c = 0; c < 32; c++) {
                        CK(cudaMemcpyAsync(ddst + (size_t)c * (TOTAL / 32), hin + (size_t)c * (TOTAL / 32), TOTAL / 32,
                                           cudaMemcpyHostToDevice, su));
                        if (v.f & EVENTS)
                            CK(cudaEventRecord(evs[0][c], su)); // chunk c is up
                        if ((v.f & PIPE) && (v.f & PAIRS) && c % 2 == 0)
                            continue; // its work goes with the next chunk's
                        if (v.f & PIPE) {
                            const size_t scale = v.f & PAIRS ? 2 : 1;
                            CK(cudaStreamWaitEvent(sk, evs[0][c], 0));
                            if (v.f & TINY)
                                copy_kernel<<<1, 32, 0, sk>>>((float4 *)ky, (const float4 *)kx, 32);
                            else if (v.f & D2D)
                                CK(cudaMemcpyAsync(ky, kx, scale * (40u << 20), cudaMemcpyDeviceToDevice, sk));
                            else
                                copy_kernel<<<2 * sms, 256, 0, sk>>>((float4 *)ky, (const float4 *)kx,
                                                                     scale * (96u << 20) / 16);
                            if (!(v.f & NODEP))
                                CK(cudaEventRecord(evs[0][c], sk)); // chunk c is computed
                            if (!(v.f & NODEP) && (v.f & PAIRS))
                                CK(cudaEventRecord(evs[0][c - 1], sk));
                        }
                    }
                if (v.f & HEAVY)
                    for (int k = 0; k < 200; k++)
                        copy_kernel<<<1056, 256, 0, sk>>>((float4 *)ky, (const float4 *)kx, LOAD / 16);
                if (v.f & LIGHT)
                    for (int k = 0; k < 200; k++)
                        copy_kernel<<<sms, 256, 0, sk>>>((float4 *)ky, (const float4 *)kx, LOAD / 16 / 8);
                if ((v.f & D2D) && !(v.f & PIPE))
                    for (int k = 0; k < 64; k++)
                        CK(cudaMemcpy2DAsync(ky, 32768, kx, 65536, 32768, 2048, cudaMemcpyDeviceToDevice, sk));
                CK(cudaGetLastError());
                if ((v.f & EVENTS) && !(v.f & CHUNKED))
                    for (int c = 0; c < 32; c++)
                        CK(cudaEventRecord(evs[0][c], sk));
                for (int c = 0; c < 32; c++) {
                    if (v.f & EVENTS) {
                        // as the pipeline: the chunk's D2H waits for an event of another stream, and
                        // a timing event follows it
                        CK(cudaStreamWaitEvent(sd, evs[0][c], 0));
                    }
                    chunk_copies(hout, dsrc, c, merged, sd, (v.f & TWO) ? sd2 : 0);
                    if (v.f & EVENTS)
                        CK(cudaEventRecord(evs[1][c], sd));
                }
                CK(cudaEventRecord(b2, sd2));
                CK(cudaStreamWaitEvent(sd, b2, 0));
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
