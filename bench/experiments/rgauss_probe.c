/*
 * rgauss_probe.c - the measurements behind the robust Gaussian regression filter's stopping rule
 * and its cost (docs/SURFACE.md, "Robust Gaussian regression filter"):
 *
 *   converge SURFACE N LC: for k = 1..60 reweightings (no early stop), the last change
 *     (max |m_k - m_k-1| / median |r|) and the largest distance of m_k from m_60 over the valid
 *     points, in median |r| and in um; then, for tolerances 1e-2 .. 1e-5, where the stopping rule
 *     stops and how far that is from m_60. SURFACE: plateau (the plateau-honed surface of
 *     tests/c/test_surface_rgauss.c), milled or ground (lwt synth's presets, seed 11, with their
 *     pits, scratches and invalid discs: where the zero-order robust filter cycled).
 *   time N LC THREADS [ITERS]: one robust low-pass (default stopping rule) and one linear Gaussian
 *     low-pass of the milled preset, wall time and reweightings (ITERS: at most that many
     reweightings instead of the default rule).
 *
 *   cc -O2 -fopenmp -Iinclude -Isrc bench/experiments/rgauss_probe.c build/liblwt.a -lfftw3 -lm -o rprobe
 *   ./rprobe converge milled 256 20      ./rprobe time 1024 16 2
 */
#include "lwt_surface.h"
#include "surface/gauss.h"
#include "surface/synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void plateau(double *z, size_t nx, size_t ny)
{
    const double pi = acos(-1.0), s = sin(pi / 6), c = cos(pi / 6);
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++) {
            double h = 0.1e-6 * sin(2 * pi * ix / 6.0) * cos(2 * pi * iy / 6.0);
            for (int f = -1; f <= 1; f += 2) {
                const double t = fmod(c * ix + f * s * iy + 1000.0, 24.0);
                if (t < 3)
                    h = fmin(h, -4e-6 * sin(pi * (t + 0.5) / 3.5));
            }
            z[iy * nx + ix] = h;
        }
}

static double *surface(const char *kind, size_t n)
{
    double *z = malloc(n * n * sizeof *z);
    if (!strcmp(kind, "plateau")) {
        plateau(z, n, n);
        return z;
    }
    lwt_synth_desc d;
    if (lwt_synth_preset(kind, n, n, 1e-6, 1e-6, 11, &d) || lwt_synth_generate(&d, z, NULL, NULL, NULL)) {
        fprintf(stderr, "no surface %s\n", kind);
        exit(2);
    }
    return z;
}

/* max |a - b| over the valid points of z */
static double maxdiff(const double *z, const double *a, const double *b, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(z[i]))
            e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "converge")) {
        const size_t n = (size_t)atol(argv[3]), nn = n * n;
        const double lc = atof(argv[4]) * 1e-6;
        double *z = surface(argv[2], n), *ref = malloc(nn * sizeof *ref), *m = malloc(nn * sizeof *m);
        lwt__rgauss_info info;
        lwt__rgauss_smooth(z, n, n, 1e-6, 1e-6, lc, 0, 60, 0, &info, ref);
        const double scale = info.scale;
        printf("%s %zu^2, lc %g spacings: median |r| %.4g um at 60\n", argv[2], n, lc / 1e-6, scale * 1e6);
        for (int k = 1; k <= 60; k += k < 10 ? 1 : k < 30 ? 5 : 10) {
            lwt__rgauss_smooth(z, n, n, 1e-6, 1e-6, lc, 0, k, 0, &info, m);
            const double d = maxdiff(z, m, ref, nn);
            printf("  k %2d  change %.3g  |m_k - m_60| %.3g median|r| (%.3g um)\n", info.iterations, info.change,
                   d / scale, d * 1e6);
        }
        for (double tol = 1e-2; tol > 5e-6; tol /= 10) {
            lwt__rgauss_smooth(z, n, n, 1e-6, 1e-6, lc, 0, 60, tol, &info, m);
            const double d = maxdiff(z, m, ref, nn);
            printf("  tol %.0e: stops after %d, |m - m_60| %.3g median|r| (%.3g um)\n", tol, info.iterations,
                   d / scale, d * 1e6);
        }
        return 0;
    }
    if (argc >= 5 && !strcmp(argv[1], "time")) {
        const size_t n = (size_t)atol(argv[2]), nn = n * n;
        const double lc = atof(argv[3]) * 1e-6;
        const int threads = atoi(argv[4]), iters = argc > 5 ? atoi(argv[5]) : -1;
        double *z = surface("milled", n), *m = malloc(nn * sizeof *m);
        lwt__rgauss_info info;
        double t0 = now_s();
        lwt__rgauss_smooth(z, n, n, 1e-6, 1e-6, lc, threads, iters, -1, &info, m);
        double t1 = now_s();
        lwt__gauss_smooth(z, n, n, 1e-6, 1e-6, lc, 1, threads, LWT_GAUSS_AUTO, m);
        double t2 = now_s();
        printf("%zu^2 lc %g spacings, %d threads: robust %.2f s (%d reweightings, %.2f s each), linear %.3f s\n", n,
               lc / 1e-6, threads, t1 - t0, info.iterations, (t1 - t0) / (info.iterations + 1), t2 - t1);
        return 0;
    }
    fprintf(stderr, "usage: rprobe converge plateau|milled|ground N LC | time N LC THREADS [ITERS]\n");
    return 2;
}
