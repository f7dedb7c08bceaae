/*
 * feature_probe.c - the measurement behind the feature family's cost (src/surface/watershed.c,
 * change_tree.c, params_feature.c; docs/SURFACE.md, "Feature family"; docs/PERFORMANCE.md): the
 * four surfaces of the demo (the synthetic "milled" surface and its form, waviness and roughness
 * parts), N x N, lwt_feature_params_compute timed with clock_gettime (wall, and the process's CPU
 * time: on the shared VM it moves less with the load; best of RUNS) on the given threads, beside the material ratio family (lwt_material_curve_create and
 * lwt_mr_params_compute) of the same surface for scale.
 *
 *   cc -O2 -fopenmp -Iinclude -Isrc bench/experiments/feature_probe.c build/liblwt.a -lfftw3 -lm -o featprobe
 *   ./featprobe 4096 1 [3]   # N, threads, runs (best of)
 */
#include "lwt_surface.h"
#include "demo_surfaces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: featprobe N THREADS [RUNS]\n"), 2;
    const size_t n = (size_t)atol(argv[1]);
    const int threads = atoi(argv[2]), runs = argc > 3 ? atoi(argv[3]) : 3;
    double *s[4];
    if (demo_surfaces(n, s))
        return fprintf(stderr, "synth failed\n"), 1;
    lwt_context *ctx;
    lwt_context_create(&ctx);
    const char *const *name = DEMO_SURFACE_NAMES;
    double total_f = 0, total_m = 0;
    for (int k = 0; k < 4; k++) {
        double tf = 1e300, cf = 1e300, tm = 1e300;
        lwt_feature_params f;
        for (int r = 0; r < runs; r++) {
            double t0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
            if (lwt_feature_params_compute(ctx, s[k], n, n, 1e-6, 1e-6, 0, threads, &f) != LWT_OK)
                return fprintf(stderr, "features failed\n"), 1;
            double t1 = ms(CLOCK_MONOTONIC), c1 = ms(CLOCK_PROCESS_CPUTIME_ID);
            lwt_material_curve *c;
            lwt_mr_params p;
            if (lwt_material_curve_create(ctx, s[k], n, n, threads, &c) != LWT_OK)
                return fprintf(stderr, "curve failed\n"), 1;
            lwt_mr_params_compute(ctx, c, NULL, &p);
            lwt_material_curve_destroy(c);
            double t2 = ms(CLOCK_MONOTONIC);
            tf = fmin(tf, t1 - t0);
            cf = fmin(cf, c1 - c0);
            tm = fmin(tm, t2 - t1);
        }
        printf("%zu^2 %-9s, %d threads: features %6.0f ms (CPU %6.0f ms; %zu peaks, %zu pits), material ratio %6.0f "
               "ms\n", n, name[k], threads, tf, cf, f.n_peaks, f.n_pits, tm);
        total_f += tf;
        total_m += tm;
    }
    printf("%zu^2, 4 surfaces, %d threads: features %.0f ms, material ratio %.0f ms\n", n, threads, total_f, total_m);
    lwt_context_destroy(ctx);
    for (int k = 0; k < 4; k++)
        free(s[k]);
    return 0;
}
