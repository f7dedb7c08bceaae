/* demo_surfaces.h - what the surface probes (mr_sort_probe.c, feature_probe.c) share: make demo's
 * four surfaces (the synthetic "milled" N x N surface, seed 1, 1 um spacing, and its form,
 * waviness and roughness parts) and a clock in ms. */
#ifndef LWT_BENCH_DEMO_SURFACES_H
#define LWT_BENCH_DEMO_SURFACES_H

#include "surface/synth.h"

#include <stdlib.h>
#include <time.h>

static const char *const DEMO_SURFACE_NAMES[4] = {"input", "form", "waviness", "roughness"};

/* s[0..3] malloc'ed and filled; 0 on success */
static int demo_surfaces(size_t n, double *s[4])
{
    lwt_synth_desc d;
    for (int k = 0; k < 4; k++)
        if (!(s[k] = malloc(n * n * sizeof *s[k])))
            return -1;
    return lwt_synth_preset("milled", n, n, 1e-6, 1e-6, 1, &d) || lwt_synth_generate(&d, s[0], s[1], s[2], s[3]);
}

static double ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#endif
