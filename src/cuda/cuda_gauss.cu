/*
 * The ISO 16610-61 Gaussian cascade on the GPU (surface/gauss.h): the CPU's direct separable
 * convolution, normalized by the weights under the kernel, computed bit for bit alike.
 *
 * Every output is w0 a[j] + sum_{k=1..h} w[k] (a[j-k] + a[j+k]) with k ascending and each
 * operation rounded on its own (__dadd_rn / __dmul_rn: nvcc would otherwise fuse the multiply
 * and the add, which gauss_conv.c's -ffp-contract=off forbids on the CPU). One kernel convolves
 * contiguous lines (rows); the y pass runs it on the transpose, so both passes read and write
 * coalesced and share one convolution. The last transpose also divides by the weight sum.
 */
#include <cuda_runtime.h>
#include <math.h>

extern "C" {
#include "surface/gauss.h"
}

namespace {

/* What the row pass reads from the input: the heights with invalid points as 0, the
   valid-point indicator, or the values as they are (the y pass over the x pass's result). */
enum { SRC_HEIGHTS = 0, SRC_VALID = 1, SRC_PLAIN = 2 };

constexpr int THREADS = 128;
/* Outputs per thread, consecutive: the taps slide through registers, so a step of k costs two
   shared-memory loads for R outputs; R odd keeps the threads' 8-byte loads, R doubles apart,
   on distinct banks. */
constexpr int R = 7;
constexpr int TILE = THREADS * R;

__device__ __forceinline__ double source(double v, int src)
{
    if (src == SRC_PLAIN)
        return v;
    const bool ok = isfinite(v);
    return src == SRC_VALID ? (ok ? 1.0 : 0.0) : (ok ? v : 0.0);
}

/* out (lines x n) = the convolution of each line of in (lines x n) with the even kernel
   w[0..h], zeros beyond the line's ends. Block: TILE outputs of one line; shared memory
   holds them and h values each side. */
__global__ void conv_rows(const double *__restrict__ in, double *__restrict__ out, size_t n, size_t lines,
                          const double *__restrict__ w, int h, int src)
{
    extern __shared__ double s[];
    const size_t j0 = (size_t)blockIdx.x * TILE;
    const int span = TILE + 2 * h;
    for (size_t line = blockIdx.y; line < lines; line += gridDim.y) {
        const double *a = in + line * n;
        for (int i = threadIdx.x; i < span; i += THREADS) {
            const long p = (long)j0 - h + i;
            s[i] = p >= 0 && p < (long)n ? source(a[p], src) : 0.0;
        }
        __syncthreads();
        const int base = h + threadIdx.x * R;
        double o[R], lo[R], hi[R];
        const double w0 = w[0];
#pragma unroll
        for (int r = 0; r < R; r++) {
            o[r] = __dmul_rn(w0, s[base + r]);
            lo[r] = h > 0 ? s[base + r - 1] : 0.0; /* k = 1: a[j - 1] and a[j + 1] */
            hi[r] = h > 0 ? s[base + r + 1] : 0.0;
        }
        for (int k = 1; k <= h; k++) {
            const double wk = w[k];
#pragma unroll
            for (int r = 0; r < R; r++)
                o[r] = __dadd_rn(o[r], __dmul_rn(wk, __dadd_rn(lo[r], hi[r])));
            if (k == h)
                break;
            /* step k + 1: lo moves one left, hi one right; one new value at each end */
#pragma unroll
            for (int r = R - 1; r > 0; r--)
                lo[r] = lo[r - 1];
#pragma unroll
            for (int r = 0; r < R - 1; r++)
                hi[r] = hi[r + 1];
            lo[0] = s[base - k - 1];
            hi[R - 1] = s[base + R + k];
        }
        double *b = out + line * n;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const size_t j = j0 + (size_t)threadIdx.x * R + r;
            if (j < n)
                b[j] = o[r];
        }
        __syncthreads(); /* s is refilled for the next line */
    }
}

constexpr int TT = 32; /* transpose tile */

/* out (nx x ny) = the transpose of in (ny x nx) */
__global__ void transpose(const double *__restrict__ in, double *__restrict__ out, size_t nx, size_t ny)
{
    __shared__ double t[TT][TT + 1];
    const size_t x0 = (size_t)blockIdx.x * TT, y0 = (size_t)blockIdx.y * TT;
    for (int r = threadIdx.y; r < TT; r += blockDim.y) {
        const size_t x = x0 + threadIdx.x, y = y0 + r;
        if (x < nx && y < ny)
            t[r][threadIdx.x] = in[y * nx + x];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < TT; r += blockDim.y) {
        const size_t y = y0 + threadIdx.x, x = x0 + r;
        if (x < nx && y < ny)
            out[x * ny + y] = t[threadIdx.x][r];
    }
}

/* out (ny x nx) = resT / the weight sum, transposed back from (nx x ny): the sum is denT
   (transposed like resT) when given, else wsx[x] wsy[y]; NaN where `in` is not finite or the
   sum is 0 (gauss_conv.c's pass_y) */
__global__ void normalize_t(const double *__restrict__ resT, const double *__restrict__ denT,
                            const double *__restrict__ wsx, const double *__restrict__ wsy,
                            const double *__restrict__ in, double *__restrict__ out, size_t nx, size_t ny)
{
    __shared__ double t[TT][TT + 1], d[TT][TT + 1];
    const size_t x0 = (size_t)blockIdx.x * TT, y0 = (size_t)blockIdx.y * TT;
    for (int r = threadIdx.y; r < TT; r += blockDim.y) { /* rows of resT are x */
        const size_t x = x0 + r, y = y0 + threadIdx.x;
        if (x < nx && y < ny) {
            t[r][threadIdx.x] = resT[x * ny + y];
            d[r][threadIdx.x] = denT ? denT[x * ny + y] : __dmul_rn(wsx[x], wsy[y]);
        }
    }
    __syncthreads();
    for (int r = threadIdx.y; r < TT; r += blockDim.y) {
        const size_t y = y0 + r, x = x0 + threadIdx.x;
        if (x < nx && y < ny) {
            const double dd = d[threadIdx.x][r];
            out[y * nx + x] = isfinite(in[y * nx + x]) && dd > 0 ? __ddiv_rn(t[threadIdx.x][r], dd) : NAN;
        }
    }
}

/* out = a - b (out may be a) */
__global__ void subtract(const double *a, const double *b, double *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = __dsub_rn(a[i], b[i]);
}

/* One axis' kernel on the device: w[0..h] and ws[0..n). */
struct dev_kernel {
    double *w = nullptr, *ws = nullptr;
    int h = 0;
};

cudaError_t upload(dev_kernel *d, const lwt__gauss_kernel *k, size_t n)
{
    d->h = k->h;
    cudaError_t e = cudaMalloc(&d->w, ((size_t)k->h + 1) * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMalloc(&d->ws, n * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMemcpy(d->w, k->w, ((size_t)k->h + 1) * sizeof(double), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->ws, k->ws, n * sizeof(double), cudaMemcpyHostToDevice);
    return e;
}

void release(dev_kernel *d)
{
    cudaFree(d->w);
    cudaFree(d->ws);
}

cudaError_t rows(const double *in, double *out, size_t n, size_t lines, const dev_kernel &k, int src)
{
    const size_t shared = (TILE + 2 * (size_t)k.h) * sizeof(double);
    static_assert(TILE > 0, "tile");
    cudaError_t e = cudaFuncSetAttribute(conv_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    if (e != cudaSuccess)
        return e; /* a kernel longer than shared memory holds (h beyond ~13000 taps) */
    const dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)(lines < 65535 ? lines : 65535));
    conv_rows<<<grid, THREADS, shared>>>(in, out, n, lines, k.w, k.h, src);
    return cudaGetLastError();
}

dim3 tiles(size_t nx, size_t ny)
{
    return dim3((unsigned)((nx + TT - 1) / TT), (unsigned)((ny + TT - 1) / TT));
}

/* The work areas of one low-pass: the x pass, its transpose, the y pass (transposed), the
   weight sums (transposed, masked only): lwt__cuda_gauss_work_bytes (gauss_filter.c). */
struct work {
    double *x, *xt, *yt, *dent;
};

work carve(void *d_work, size_t n, int masked)
{
    double *p = (double *)d_work;
    return work{p, p + n, p + 2 * n, masked ? p + 3 * n : nullptr};
}

/* out = the low-pass of in (gauss_conv.c's lwt__gauss_smooth, direct on both axes) */
cudaError_t smooth(const dev_kernel k[2], const double *in, double *out, size_t nx, size_t ny, const work &wk)
{
    const dim3 tb(TT, 8);
    cudaError_t e = cudaSuccess;
    if (wk.dent) { /* the weight sum of the valid points under each kernel position */
        if ((e = rows(in, wk.x, nx, ny, k[0], SRC_VALID)) != cudaSuccess)
            return e;
        transpose<<<tiles(nx, ny), tb>>>(wk.x, wk.xt, nx, ny);
        if ((e = rows(wk.xt, wk.dent, ny, nx, k[1], SRC_PLAIN)) != cudaSuccess)
            return e;
    }
    if ((e = rows(in, wk.x, nx, ny, k[0], SRC_HEIGHTS)) != cudaSuccess)
        return e;
    transpose<<<tiles(nx, ny), tb>>>(wk.x, wk.xt, nx, ny);
    if ((e = rows(wk.xt, wk.yt, ny, nx, k[1], SRC_PLAIN)) != cudaSuccess)
        return e;
    normalize_t<<<tiles(nx, ny), tb>>>(wk.yt, wk.dent, k[0].ws, k[1].ws, in, out, nx, ny);
    return cudaGetLastError();
}

cudaError_t minus(const double *a, const double *b, double *out, size_t n)
{
    subtract<<<(unsigned)((n + 255) / 256 < 65536 * 4 ? (n + 255) / 256 : 65536 * 4), 256>>>(a, b, out, n);
    return cudaGetLastError();
}

lwt_status status_of(cudaError_t e)
{
    return e == cudaSuccess                  ? LWT_OK
           : e == cudaErrorMemoryAllocation ? LWT_ERR_OUT_OF_MEMORY
                                             : LWT_ERR_DEVICE;
}

} // namespace

extern "C" int lwt__cuda_gauss_max_half(void)
{
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return 0;
    return (int)(((size_t)optin / sizeof(double) - TILE) / 2);
}

extern "C" lwt_status lwt__cuda_gauss_cascade(const lwt__gauss_kernel k[3][2], int noise, size_t nx, size_t ny,
                                              int masked, const double *d_lev, double *const d_band[4], void *d_work)
{
    const size_t n = nx * ny, len[2] = {nx, ny};
    dev_kernel dk[3][2];
    cudaError_t e = cudaSuccess;
    for (int s = noise ? 0 : 1; s < 3 && e == cudaSuccess; s++)
        for (int a = 0; a < 2 && e == cudaSuccess; a++)
            e = upload(&dk[s][a], &k[s][a], len[a]);
    const work wk = carve(d_work, n, masked);
    double *rough = d_band[LWT_BAND_ROUGHNESS], *wav = d_band[LWT_BAND_WAVINESS], *form = d_band[LWT_BAND_FORM];
    const double *s1 = d_lev;
    if (e == cudaSuccess && noise) { /* s1 = S(lev) in the roughness band's place; noise = lev - s1 */
        e = smooth(dk[0], d_lev, rough, nx, ny, wk);
        if (e == cudaSuccess)
            e = minus(d_lev, rough, d_band[LWT_BAND_NOISE], n);
        s1 = rough;
    }
    if (e == cudaSuccess) /* s2 = L(s1) as the waviness; roughness = s1 - s2 */
        e = smooth(dk[1], s1, wav, nx, ny, wk);
    if (e == cudaSuccess)
        e = minus(s1, wav, rough, n);
    if (e == cudaSuccess) /* s3 = F(s2) as the form; waviness = s2 - s3 */
        e = smooth(dk[2], wav, form, nx, ny, wk);
    if (e == cudaSuccess)
        e = minus(wav, form, wav, n);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    for (int s = 0; s < 3; s++)
        for (int a = 0; a < 2; a++)
            release(&dk[s][a]);
    return status_of(e);
}

extern "C" lwt_status lwt__cuda_gauss_cascade_host(const lwt__gauss_kernel k[3][2], int noise, size_t nx, size_t ny,
                                                   int masked, const double *lev, double *const band[4])
{
    const size_t bytes = nx * ny * sizeof(double);
    double *d_lev = nullptr, *d_band[4] = {nullptr, nullptr, nullptr, nullptr};
    void *d_work = nullptr;
    const int nb = noise ? 4 : 3;
    cudaError_t e = cudaMalloc(&d_lev, bytes);
    for (int b = 0; b < nb && e == cudaSuccess; b++)
        e = cudaMalloc(&d_band[b], bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(&d_work, lwt__cuda_gauss_work_bytes(nx, ny, masked));
    if (e == cudaSuccess)
        e = cudaMemcpy(d_lev, lev, bytes, cudaMemcpyHostToDevice);
    lwt_status st = status_of(e);
    if (st == LWT_OK)
        st = lwt__cuda_gauss_cascade(k, noise, nx, ny, masked, d_lev, d_band, d_work);
    for (int b = 0; b < nb && st == LWT_OK; b++)
        st = status_of(cudaMemcpy(band[b], d_band[b], bytes, cudaMemcpyDeviceToHost));
    cudaFree(d_lev);
    for (int b = 0; b < nb; b++)
        cudaFree(d_band[b]);
    cudaFree(d_work);
    return st;
}
