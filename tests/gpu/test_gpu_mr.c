/*
 * The material ratio curve's sort on the GPU (src/cuda/cuda_sort.cu; label gpu, exits 77 without
 * a device): lwt_material_curve_create_on with LWT_BACKEND_CUDA equals LWT_BACKEND_CPU bit for bit
 * (count, mean, every sorted height), on surfaces with invalid points (NaN, +-inf), both zeros,
 * repeated values, one valid point, none. --time: CPU against GPU at 1024^2, 4096^2 and 12288^2
 * (where AUTO's threshold, 2^22 points, comes from).
 *
 * Usage: test_gpu_mr [--time]
 */
#define _DEFAULT_SOURCE

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lwt.h"
#include "lwt_surface.h"
#include "surface/mr_curve.h"

static int failures, cases;

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* kind 0: rough heights; 1: few distinct values with both zeros; 2: invalid points of every kind */
static double *surface(size_t n, int kind)
{
    double *z = malloc(n * sizeof *z);
    for (size_t i = 0; i < n; i++) {
        const double u = urand();
        z[i] = kind == 1 ? (double)((int)(u * 7) - 3) * (i % 5 == 0 ? -0.0 : 1.0) * 1e-6 : (u - 0.4) * 1e-5;
        if (kind == 1 && z[i] == 0 && i % 2)
            z[i] = -0.0;
        if (kind == 2 && u < 0.1)
            z[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
    }
    return z;
}

static void same(lwt_context *ctx, const double *z, size_t nx, size_t ny, const char *what)
{
    cases++;
    lwt_material_curve *a = NULL, *b = NULL;
    const lwt_status sa = lwt_material_curve_create_on(ctx, z, nx, ny, 0, LWT_BACKEND_CPU, &a);
    const lwt_status sb = lwt_material_curve_create_on(ctx, z, nx, ny, 0, LWT_BACKEND_CUDA, &b);
    int ok = sa == sb;
    if (ok && sa == LWT_OK)
        ok = a->n == b->n && !memcmp(&a->mean, &b->mean, sizeof a->mean) && !memcmp(a->a, b->a, a->n * sizeof *a->a);
    printf("%-40s %zux%zu: %s (%s, %zu valid)\n", what, nx, ny, ok ? "same" : "DIFFERENT", lwt_status_string(sa),
           a ? a->n : 0);
    failures += !ok;
    lwt_material_curve_destroy(a);
    lwt_material_curve_destroy(b);
}

/* the curve's sort on each backend, then the family's parameters from it (on the CPU) */
static void timing(lwt_context *ctx, size_t N)
{
    double *z = surface(N * N, 0);
    for (int be = 0; be < 2; be++) {
        double best = 1e9, params = 1e9;
        for (int r = 0; r < 3; r++) {
            lwt_material_curve *c = NULL;
            lwt_mr_params p;
            const double t0 = now_s();
            lwt_material_curve_create_on(ctx, z, N, N, 0, be ? LWT_BACKEND_CUDA : LWT_BACKEND_CPU, &c);
            const double t1 = now_s();
            lwt_mr_params_compute(ctx, c, NULL, &p);
            const double t2 = now_s();
            best = t1 - t0 < best ? t1 - t0 : best;
            params = t2 - t1 < params ? t2 - t1 : params;
            lwt_material_curve_destroy(c);
        }
        printf("time %zu^2: curve on %s %.1f ms, parameters %.1f ms (best of 3)\n", N, be ? "cuda" : "cpu ",
               1e3 * best, 1e3 * params);
    }
    free(z);
}

int main(int argc, char **argv)
{
    lwt_context *ctx;
    if (lwt_context_create(&ctx) != LWT_OK || lwt_context_device_count(ctx) == 0) {
        printf("test_gpu_mr: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    const size_t shapes[][2] = {{1, 1}, {7, 3}, {300, 211}, {1024, 1000}, {2048, 2049}};
    for (int s = 0; s < 5; s++)
        for (int kind = 0; kind < 3; kind++) {
            double *z = surface(shapes[s][0] * shapes[s][1], kind);
            same(ctx, z, shapes[s][0], shapes[s][1],
                 kind == 0 ? "rough heights" : kind == 1 ? "repeated values, both zeros" : "NaN and infinities");
            free(z);
        }
    double none[6] = {NAN, NAN, INFINITY, NAN, -INFINITY, NAN}, one[6] = {NAN, NAN, 2e-6, NAN, NAN, NAN};
    same(ctx, none, 3, 2, "no valid point");
    same(ctx, one, 3, 2, "one valid point");
    if (argc > 1 && !strcmp(argv[1], "--time"))
        for (int i = 0; i < 3; i++)
            timing(ctx, i == 0 ? 1024 : i == 1 ? 4096 : 12288);
    lwt_context_destroy(ctx);
    printf("test_gpu_mr: %d cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
