/*
 * tuned_runs.h - what the CPU tests that compare two ways of running one plan share
 * (test_simd.c: instruction sets; test_cpu_level.c: the fused level against the passes): a
 * shape case, a random input, a plan desc of a case, and a forward + inverse of a tuned plan.
 * Header-only; each test keeps its own seed (TUNED_RUNS_SEED).
 */
#ifndef LWT_TEST_TUNED_RUNS_H
#define LWT_TEST_TUNED_RUNS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "lwt_experimental.h"

typedef struct shape_case {
    int ndim;
    size_t shape[3];
    int levels;
    int big; /* test_cpu_level: enough samples for three threads, every 35th wavelet only; 0 in test_simd */
} shape_case;

static uint64_t rng = TUNED_RUNS_SEED;

static double next_uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* a CPU plan of case sc; conv: the filter bank forced */
static lwt_plan_desc case_desc(const lwt_wavelet *w, const shape_case *sc, int mode, int f64, int conv)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = sc->ndim;
    memcpy(d.shape, sc->shape, sizeof sc->shape);
    d.levels = sc->levels;
    d.mode = (lwt_mode)mode;
    d.dtype = f64 ? LWT_F64 : LWT_F32;
    d.backend = LWT_BACKEND_CPU;
    d.algorithm = conv ? LWT_ALGO_CONVOLUTION : LWT_ALGO_AUTO;
    return d;
}

/* n random samples in [-1, 1) (malloc'ed) */
static void *random_input(size_t n, int f64)
{
    void *x = malloc(n * (f64 ? 8 : 4));
    for (size_t i = 0; x && i < n; i++) {
        const double v = next_uniform();
        if (f64)
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
    }
    return x;
}

/* forward then inverse of x with plan d tuned by t on `threads` threads: coeffs and recon
   (calloc'ed) hold the results, ncoeffs their count; explain (may be NULL) the plan's steps */
static lwt_status tuned_run(lwt_context *ctx, const lwt_plan_desc *d, const lwt_plan_tuning *t, int threads,
                            const void *x, void **coeffs, void **recon, size_t *ncoeffs, char *explain,
                            size_t explain_len)
{
    lwt_plan *p = NULL;
    lwt_status st = lwt_plan_create_tuned(ctx, d, t, &p);
    if (st)
        return st;
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    if (ncoeffs)
        *ncoeffs = info.coeff_count;
    const size_t es = d->dtype == LWT_F32 ? 4 : 8;
    *coeffs = calloc(info.coeff_count, es);
    *recon = calloc(info.input_count, es);
    lwt_context_set_threads(ctx, threads);
    if (!*coeffs || !*recon)
        st = LWT_ERR_OUT_OF_MEMORY;
    if (!st)
        st = lwt_forward(p, x, *coeffs, NULL);
    if (!st)
        st = lwt_inverse(p, *coeffs, *recon, NULL);
    if (!st && explain)
        st = lwt_plan_explain(p, explain, explain_len, NULL);
    lwt_context_set_threads(ctx, 0);
    lwt_plan_destroy(p);
    return st;
}

#endif
