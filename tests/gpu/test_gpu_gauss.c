/*
 * The Gaussian filter on the GPU (src/cuda/cuda_gauss.cu; label gpu, exits 77 without a device).
 *
 *   [bits]   the GPU cascade (S, L, F low-passes and the band differences) equals, bit for bit,
 *            the same cascade on the CPU with the direct convolution (lwt__gauss_smooth with
 *            LWT_GAUSS_DIRECT), on random surfaces of odd and even sizes, with and without
 *            invalid points, with kernels from 0 taps each side to longer than the field;
 *   [filter] lwt_filter_run --filter gaussian on the CUDA backend against the CPU backend: the
 *            same bits where the CPU convolves directly (short kernels), within 1e-12 of the
 *            largest |height| where it takes FFTW for long ones; the result says cuda;
 *   [time]   --time N: the device-resident cascade on an N x N surface (the nesting of a 6-level
 *            split at 1 um: lambda-s 2, lambda-c 16, lambda-f 128 um, as lwt filter's defaults
 *            give), median of 5 after a warm-up, beside a device-to-device copy of the same
 *            array in the same run.
 *
 * Usage: test_gpu_gauss [--time N]
 */
#define _DEFAULT_SOURCE

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "lwt_surface.h"
#include "surface/gauss.h"

#ifndef LWT_HAVE_CUDA
int main(void)
{
    printf("test_gpu_gauss: a build without CUDA, skipped\n");
    return 77;
}
#else
#include <cuda_runtime.h>

static int failures, cases;

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            failures++;                                                                                                \
            printf("  FAIL: ");                                                                                        \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
        }                                                                                                              \
    } while (0)

static uint64_t rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* a rough surface: a slope, two waves, noise; `bad` of the points invalid */
static double *surface(size_t nx, size_t ny, double bad)
{
    double *z = malloc(nx * ny * sizeof *z);
    for (size_t y = 0; y < ny; y++)
        for (size_t x = 0; x < nx; x++)
            z[y * nx + x] = 1e-3 * x + 2 * sin(x / 17.0) * cos(y / 29.0) + (urand() - 0.5);
    for (size_t i = 0; i < nx * ny; i++)
        if (urand() < bad)
            z[i] = NAN;
    return z;
}

static void sub(double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] -= b[i];
}

/* gauss_filter.c's cascade on the CPU with the direct convolution: band[] allocated here */
static void cpu_cascade(const double *lev, size_t nx, size_t ny, double dx, double dy, const double lambda[3],
                        int masked, double *band[4])
{
    const size_t n = nx * ny;
    const int noise = lambda[0] > 0;
    for (int b = 0; b < 4; b++)
        band[b] = b < 3 || noise ? malloc(n * sizeof(double)) : NULL;
    double *r = band[LWT_BAND_ROUGHNESS], *w = band[LWT_BAND_WAVINESS], *f = band[LWT_BAND_FORM];
    const double *s1 = lev;
    if (noise) {
        lwt__gauss_smooth(lev, nx, ny, dx, dy, lambda[0], masked, 1, LWT_GAUSS_DIRECT, r);
        memcpy(band[LWT_BAND_NOISE], lev, n * sizeof(double));
        sub(band[LWT_BAND_NOISE], r, n);
        s1 = r;
    }
    lwt__gauss_smooth(s1, nx, ny, dx, dy, lambda[1], masked, 1, LWT_GAUSS_DIRECT, w);
    if (!noise)
        memcpy(r, lev, n * sizeof(double));
    sub(r, w, n);
    lwt__gauss_smooth(w, nx, ny, dx, dy, lambda[2], masked, 1, LWT_GAUSS_DIRECT, f);
    sub(w, f, n);
}

static int kernels(lwt__gauss_kernel k[3][2], const double lambda[3], double dx, double dy, size_t nx, size_t ny)
{
    memset(k, 0, sizeof(lwt__gauss_kernel) * 6);
    for (int s = 0; s < 3; s++)
        if (lambda[s] > 0 &&
            (lwt__gauss_kernel_make(&k[s][0], lambda[s], dx, nx) || lwt__gauss_kernel_make(&k[s][1], lambda[s], dy, ny)))
            return -1;
    return 0;
}

static void kernels_free(lwt__gauss_kernel k[3][2])
{
    for (int s = 0; s < 3; s++)
        for (int a = 0; a < 2; a++)
            lwt__gauss_kernel_free(&k[s][a]);
}

/* bits equal, NaN where NaN */
static size_t differing(const double *a, const double *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(double)) && !(isnan(a[i]) && isnan(b[i])))
            bad++;
    return bad;
}

static void case_bits(size_t nx, size_t ny, double dx, double dy, double ls, double lc, double lf, double bad)
{
    cases++;
    double *z = surface(nx, ny, bad);
    const size_t n = nx * ny;
    int masked = 0;
    for (size_t i = 0; i < n; i++)
        masked |= !isfinite(z[i]);
    const double lambda[3] = {ls, lc, lf};
    double *want[4], *got[4] = {NULL, NULL, NULL, NULL};
    cpu_cascade(z, nx, ny, dx, dy, lambda, masked, want);
    for (int b = 0; b < 4; b++)
        got[b] = want[b] ? malloc(n * sizeof(double)) : NULL;
    lwt__gauss_kernel k[3][2];
    CHECK(!kernels(k, lambda, dx, dy, nx, ny), "kernels");
    const lwt_status st = lwt__cuda_gauss_cascade_host(k, ls > 0, nx, ny, masked, z, got);
    printf("bits %zux%zu d %g x %g lambda %g/%g/%g (h %d/%d/%d along x) %s invalid: ", nx, ny, dx, dy, ls, lc, lf,
           k[0][0].h, k[1][0].h, k[2][0].h, masked ? "with" : "no");
    CHECK(st == LWT_OK, "cascade: %s", lwt_status_string(st));
    size_t diff = 0;
    for (int b = 0; b < 4 && st == LWT_OK; b++)
        if (want[b])
            diff += differing(want[b], got[b], n);
    printf("%zu values differ\n", diff);
    CHECK(diff == 0, "%zu values differ from the CPU", diff);
    kernels_free(k);
    for (int b = 0; b < 4; b++) {
        free(want[b]);
        free(got[b]);
    }
    free(z);
}

static void case_filter(lwt_context *ctx, size_t nx, size_t ny, double d, double lc, double lf, int exact)
{
    cases++;
    double *z = surface(nx, ny, 0.01);
    lwt_filter_spec f = lwt_filter_spec_default();
    f.filter = LWT_FILTER_GAUSSIAN;
    f.plane = 1;
    f.gauss.lambda_s = 2 * d;
    f.gauss.lambda_c = lc;
    f.gauss.lambda_f = lf;
    lwt_filter_result rc, rg;
    f.backend = LWT_BACKEND_CPU;
    lwt_status a = lwt_filter_run(ctx, &f, z, nx, ny, d, d, &rc);
    f.backend = LWT_BACKEND_CUDA;
    lwt_status b = lwt_filter_run(ctx, &f, z, nx, ny, d, d, &rg);
    CHECK(a == LWT_OK && b == LWT_OK && rg.backend == LWT_BACKEND_CUDA, "filter runs: %d %d backend %d", a, b,
          rg.backend);
    double top = 0, err = 0;
    size_t diff = 0;
    for (size_t i = 0; i < nx * ny; i++)
        if (isfinite(z[i]) && fabs(z[i]) > top)
            top = fabs(z[i]);
    for (int band = 0; band < 4 && a == LWT_OK && b == LWT_OK; band++) {
        diff += differing(rc.band[band], rg.band[band], nx * ny);
        for (size_t i = 0; i < nx * ny; i++)
            if (isfinite(rc.band[band][i]) && fabs(rc.band[band][i] - rg.band[band][i]) > err)
                err = fabs(rc.band[band][i] - rg.band[band][i]);
    }
    printf("filter %zux%zu lambda-c %g: %zu values differ, worst %.3g of max|z|\n", nx, ny, lc, diff, err / top);
    if (exact)
        CHECK(diff == 0, "%zu values differ from the CPU's direct convolution", diff);
    CHECK(err <= 1e-12 * top, "GPU against CPU %.3g of max|z|", err / top);
    if (a == LWT_OK)
        lwt_filter_result_free(&rc);
    if (b == LWT_OK)
        lwt_filter_result_free(&rg);
    free(z);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void timing(size_t N)
{
    const size_t n = N * N, bytes = n * sizeof(double);
    const double d = 1e-6, lambda[3] = {2e-6, 16e-6, 128e-6};
    double *z = surface(N, N, 0);
    lwt__gauss_kernel k[3][2];
    kernels(k, lambda, d, d, N, N);
    double *d_lev, *d_band[4], *d_copy;
    void *d_work;
    int ok = cudaMalloc((void **)&d_lev, bytes) == cudaSuccess && cudaMalloc((void **)&d_copy, bytes) == cudaSuccess &&
             cudaMalloc(&d_work, lwt__cuda_gauss_work_bytes(N, N, 0)) == cudaSuccess;
    for (int b = 0; b < 4; b++)
        ok = ok && cudaMalloc((void **)&d_band[b], bytes) == cudaSuccess;
    ok = ok && cudaMemcpy(d_lev, z, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
    CHECK(ok, "device buffers for %zu^2", N);
    if (!ok)
        return;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    double t_g[6], t_c[6];
    for (int rep = 0; rep < 6; rep++) {
        float ms;
        cudaEventRecord(e0, 0);
        lwt_status st = lwt__cuda_gauss_cascade(k, 1, N, N, 0, d_lev, d_band, d_work);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        t_g[rep] = ms;
        CHECK(st == LWT_OK, "timed cascade: %s", lwt_status_string(st));
        cudaEventRecord(e0, 0);
        cudaMemcpy(d_copy, d_lev, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        t_c[rep] = ms;
    }
    qsort(t_g + 1, 5, sizeof(double), cmp_double);
    qsort(t_c + 1, 5, sizeof(double), cmp_double);
    printf("time %zu^2 float64, lambda 2/16/128 um at 1 um (h %d/%d/%d), 4 bands: cascade %.2f ms, "
           "device copy %.3f ms, ratio %.1f (median of 5)\n",
           N, k[0][0].h, k[1][0].h, k[2][0].h, t_g[3], t_c[3], t_g[3] / t_c[3]);
    kernels_free(k);
    cudaFree(d_lev);
    cudaFree(d_copy);
    cudaFree(d_work);
    for (int b = 0; b < 4; b++)
        cudaFree(d_band[b]);
    free(z);
}

int main(int argc, char **argv)
{
    lwt_context *ctx;
    if (lwt_context_create(&ctx) != LWT_OK || lwt_context_device_count(ctx) == 0) {
        printf("test_gpu_gauss: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    size_t tN = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--time") && i + 1 < argc)
            tN = (size_t)atol(argv[++i]);

    /* kernels: 0 taps (lambda below the spacing), short, around the tile, longer than the field */
    case_bits(1, 1, 1, 1, 0.5, 3, 9, 0);
    case_bits(37, 53, 1, 1, 2, 8, 30, 0);
    case_bits(37, 53, 1, 1, 2, 8, 30, 0.05);
    case_bits(300, 211, 1, 2.5, 0, 40, 400, 0);
    case_bits(300, 211, 1, 2.5, 3, 40, 400, 0.02);
    case_bits(1000, 700, 0.7, 1, 5, 150, 900, 0);
    case_bits(2049, 65, 1, 1, 0, 1000, 3000, 0.001);
    case_bits(64, 3000, 1, 1, 0.5, 10, 50, 0.3);
    case_filter(ctx, 301, 257, 1e-6, 8e-6, 15e-6, 1);    /* half widths under 16: direct on the CPU too */
    case_filter(ctx, 1024, 700, 1e-6, 200e-6, 1600e-6, 0); /* FFTW on the CPU (where built with it) */
    if (tN)
        timing(tN);
    lwt_context_destroy(ctx);
    printf("test_gpu_gauss: %d cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
#endif /* LWT_HAVE_CUDA */
