/*
 * mr_sort_probe.c - the measurement behind the material ratio curve's sort (src/surface/mr_curve.c,
 * docs/SURFACE.md, "Material ratio"): the four surfaces of the demo (the synthetic "milled"
 * surface and its form, waviness and roughness parts), N x N, lwt_material_curve_create and
 * lwt_mr_params_compute timed apart with clock_gettime (wall, and the process's CPU time for the
 * curve: on the shared VM it moves less with the load), best of RUNS, and the sorted heights
 * checked against qsort's order (one surface, CHECK=1).
 *
 *   cc -O2 -fopenmp -Iinclude -Isrc bench/experiments/mr_sort_probe.c build/liblwt.a -lfftw3 -lm -o mrprobe
 *   ./mrprobe 4096 2 [3] [1]   # N, threads, runs (best of), check against qsort
 */
#include "lwt_surface.h"
#include "surface/mr_curve.h"
#include "demo_surfaces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: mrprobe N THREADS [RUNS] [CHECK]\n"), 2;
    const size_t n = (size_t)atol(argv[1]);
    const int threads = atoi(argv[2]), runs = argc > 3 ? atoi(argv[3]) : 3, check = argc > 4 && atoi(argv[4]);
    double *s[4];
    if (demo_surfaces(n, s))
        return fprintf(stderr, "synth failed\n"), 1;
    lwt_context *ctx;
    lwt_context_create(&ctx);
    const char *const *name = DEMO_SURFACE_NAMES;
    double total = 0;
    for (int k = 0; k < 4; k++) {
        double tc = 1e300, tp = 1e300, cc = 1e300;
        for (int r = 0; r < runs; r++) {
            lwt_material_curve *c;
            lwt_mr_params p;
            double t0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
            if (lwt_material_curve_create(ctx, s[k], n, n, threads, &c) != LWT_OK)
                return fprintf(stderr, "curve failed\n"), 1;
            double t1 = ms(CLOCK_MONOTONIC), c1 = ms(CLOCK_PROCESS_CPUTIME_ID);
            lwt_mr_params_compute(ctx, c, NULL, &p);
            double t2 = ms(CLOCK_MONOTONIC);
            tc = fmin(tc, t1 - t0);
            cc = fmin(cc, c1 - c0);
            tp = fmin(tp, t2 - t1);
            if (check && k == 0 && r == 0) {
                double *q = malloc(n * n * sizeof *q);
                memcpy(q, s[k], n * n * sizeof *q);
                qsort(q, n * n, sizeof *q, cmp);
                int same = 1;
                for (size_t i = 0; i < n * n; i++)
                    same &= q[i] - c->mean == c->a[i];
                printf("sorted heights %s qsort's\n", same ? "equal" : "DIFFER FROM");
                free(q);
            }
            lwt_material_curve_destroy(c);
        }
        printf("%zu^2 %-9s, %d threads: curve (sort) %6.0f ms (CPU %6.0f ms), parameters %5.0f ms\n", n, name[k],
               threads, tc, cc, tp);
        total += tc + tp;
    }
    printf("%zu^2, 4 surfaces, %d threads: %.0f ms\n", n, threads, total);
    lwt_context_destroy(ctx);
    for (int k = 0; k < 4; k++)
        free(s[k]);
    return 0;
}
