/*
 * gauss_recursive_probe.c - the measurement behind the Gaussian filter's choice of algorithm
 * (docs/SURFACE.md, "Gaussian filter: speed"): on an N x N surface, one low-pass by
 *  - a recursive Gaussian (Young and van Vliet 1995, third order, causal then anticausal, along
 *    x then y), with the valid-point weights filtered too (two filters and a division, as the
 *    normalized filter needs); not in liblwt: its transmission is 1-10 % off ISO 16610-61's near
 *    the cut-off and 100x too high at lambda/4 (SURFACE.md);
 *  - liblwt's direct convolution and its FFT convolution (lwt__gauss_smooth, forced each way),
 * the best of 3 runs each, same surface and threads.
 *
 *   cc -O2 -fopenmp -Iinclude -Isrc bench/experiments/gauss_recursive_probe.c build/liblwt.a -lfftw3 -lm -o probe
 *   ./probe 4096 128 2 [3]    # N, lambda in spacings, threads, runs (best of)
 */
#include "lwt_surface.h"
#include "surface/gauss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

typedef struct yvv {
    double B, b1, b2, b3; /* y[i] = B x[i] + b1 y[i-1] + b2 y[i-2] + b3 y[i-3] */
} yvv;

static yvv yvv_make(double sigma)
{
    double q = sigma >= 2.5 ? 0.98711 * sigma - 0.96330 : 3.97156 - 4.14554 * sqrt(1 - 0.26891 * sigma);
    double b0 = 1.57825 + 2.44413 * q + 1.4281 * q * q + 0.422205 * q * q * q;
    yvv c = {0, (2.44413 * q + 2.85619 * q * q + 1.26661 * q * q * q) / b0,
             -(1.4281 * q * q + 1.26661 * q * q * q) / b0, 0.422205 * q * q * q / b0};
    c.B = 1 - (c.b1 + c.b2 + c.b3);
    return c;
}

/* along x: each row forward then backward (zero outside) */
static void rows(const yvv *c, double *a, size_t nx, size_t ny, int threads)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long long iy = 0; iy < (long long)ny; iy++) {
        double *r = a + (size_t)iy * nx, y1 = 0, y2 = 0, y3 = 0;
        for (size_t i = 0; i < nx; i++) {
            double y = c->B * r[i] + c->b1 * y1 + c->b2 * y2 + c->b3 * y3;
            y3 = y2, y2 = y1, y1 = r[i] = y;
        }
        y1 = y2 = y3 = 0;
        for (size_t i = nx; i-- > 0;) {
            double y = c->B * r[i] + c->b1 * y1 + c->b2 * y2 + c->b3 * y3;
            y3 = y2, y2 = y1, y1 = r[i] = y;
        }
    }
}

/* along y: whole rows at a time (vectorizes over x), columns split between threads */
static void cols(const yvv *c, double *a, size_t nx, size_t ny, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num(), nt = omp_get_num_threads();
#endif
        size_t x0 = nx * t / nt, x1 = nx * (t + 1) / nt;
        for (size_t iy = 0; iy < ny; iy++)
            for (size_t x = x0; x < x1; x++) {
                double y1 = iy > 0 ? a[(iy - 1) * nx + x] : 0, y2 = iy > 1 ? a[(iy - 2) * nx + x] : 0,
                       y3 = iy > 2 ? a[(iy - 3) * nx + x] : 0;
                a[iy * nx + x] = c->B * a[iy * nx + x] + c->b1 * y1 + c->b2 * y2 + c->b3 * y3;
            }
        for (size_t iy = ny; iy-- > 0;)
            for (size_t x = x0; x < x1; x++) {
                double y1 = iy + 1 < ny ? a[(iy + 1) * nx + x] : 0, y2 = iy + 2 < ny ? a[(iy + 2) * nx + x] : 0,
                       y3 = iy + 3 < ny ? a[(iy + 3) * nx + x] : 0;
                a[iy * nx + x] = c->B * a[iy * nx + x] + c->b1 * y1 + c->b2 * y2 + c->b3 * y3;
            }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: probe N LAMBDA_IN_SPACINGS THREADS [RUNS]\n"), 2;
    const size_t n = (size_t)atol(argv[1]);
    const double lam = atof(argv[2]);
    const int threads = atoi(argv[3]), reps = argc > 4 ? atoi(argv[4]) : 3;
    double *z = malloc(n * n * sizeof *z), *m = malloc(n * n * sizeof *m), *o = malloc(n * n * sizeof *o);
    for (size_t i = 0; i < n * n; i++)
        z[i] = sin(i * 1e-3) + (double)((i * 2654435761u) % 1000) * 1e-3;
    const double alpha = sqrt(log(2.0) / acos(-1.0));
    const yvv c = yvv_make(alpha * lam / sqrt(2 * acos(-1.0))); /* sigma of the ISO weighting function */
    double t_rec = 1e300, t_dir = 1e300, t_fft = 1e300;
    int ok = 1;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now_ms();
        for (size_t i = 0; i < n * n; i++)
            o[i] = z[i], m[i] = 1;
        rows(&c, o, n, n, threads);
        cols(&c, o, n, n, threads);
        rows(&c, m, n, n, threads);
        cols(&c, m, n, n, threads);
        for (size_t i = 0; i < n * n; i++)
            o[i] /= m[i];
        t_rec = fmin(t_rec, now_ms() - t0);
        t0 = now_ms();
        ok &= lwt__gauss_smooth(z, n, n, 1, 1, lam, 0, threads, LWT_GAUSS_DIRECT, o) == LWT_OK;
        t_dir = fmin(t_dir, now_ms() - t0);
        t0 = now_ms();
        ok &= lwt__gauss_smooth(z, n, n, 1, 1, lam, 0, threads, LWT_GAUSS_FFT, o) == LWT_OK;
        t_fft = fmin(t_fft, now_ms() - t0);
    }
    printf("%zu^2, lambda %g spacings, %d threads: recursive (YvV, weights too) %.0f ms, direct %.0f ms, FFT %.0f ms%s\n",
           n, lam, threads, t_rec, t_dir, t_fft, ok ? "" : " (failed)");
    free(z);
    free(m);
    free(o);
    return 0;
}
