/*
 * lwt_scheme_trim (core/scheme_trim.c): float32 plans drop lifting taps of
 * magnitude <= LWT_F32_NEGLIGIBLE_TAP at the ends of each step. Checks the
 * rule on a made-up scheme, what it does to the catalog (CDF 9/7 loses its
 * residue step, db10 the tail of its last one, float64 plans keep all), and
 * that a trimmed float32 plan still matches the float64 plan to float32
 * rounding on random data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/plan.h"
#include "core/scheme.h"
#include "lwt.h"

static void made_up(void)
{
    lwt_scheme s;
    memset(&s, 0, sizeof s);
    s.ka = 1.5;
    s.kd = -0.5;
    s.ach = 1;
    s.sa = -2;
    s.sd = 1;
    const double t0[] = {1e-12, 0.5, -2e-10, 0.25, 3e-13}; /* ends go, the tiny middle tap stays */
    const double t1[] = {1e-14, -1e-13};                     /* all negligible: the step goes */
    const double t2[] = {0.3};
    const double t3[] = {-1e-9, 2e-9};                       /* eps itself goes, just above stays */
    CHECK(lwt_scheme_add_step(&s, 1, 0, 5, t0) == 0, "add");
    CHECK(lwt_scheme_add_step(&s, 0, -2, 2, t1) == 0, "add");
    CHECK(lwt_scheme_add_step(&s, 0, 0, 1, t2) == 0, "add");
    CHECK(lwt_scheme_add_step(&s, 1, 3, 2, t3) == 0, "add");
    lwt_scheme_trim(&s, LWT_F32_NEGLIGIBLE_TAP);
    CHECK(s.nsteps == 3, "steps %d, want 3", s.nsteps);
    CHECK(s.ntaps_total == 5, "taps %d, want 5", s.ntaps_total);
    CHECK(s.steps[0].target == 1 && s.steps[0].off == 1 && s.steps[0].ntaps == 3 && s.steps[0].first == 0,
          "step 0: target %d off %d ntaps %d first %d", s.steps[0].target, s.steps[0].off, s.steps[0].ntaps,
          s.steps[0].first);
    CHECK(s.taps[0] == 0.5 && s.taps[1] == -2e-10 && s.taps[2] == 0.25, "step 0 taps");
    CHECK(s.steps[1].target == 0 && s.steps[1].off == 0 && s.steps[1].ntaps == 1 && s.taps[s.steps[1].first] == 0.3,
          "step 1");
    CHECK(s.steps[2].target == 1 && s.steps[2].off == 4 && s.steps[2].ntaps == 1 && s.taps[s.steps[2].first] == 2e-9,
          "step 2: off %d ntaps %d", s.steps[2].off, s.steps[2].ntaps);
    CHECK(s.ka == 1.5 && s.kd == -0.5 && s.ach == 1 && s.sa == -2 && s.sd == 1, "output mapping kept");
}

static lwt_plan *plan(lwt_context *ctx, const lwt_wavelet *w, lwt_dtype dt, size_t n)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 1;
    d.shape[0] = n;
    d.levels = 3;
    d.mode = LWT_MODE_SYMMETRIC;
    d.dtype = dt;
    d.backend = LWT_BACKEND_CPU;
    d.algorithm = LWT_ALGO_LIFTING;
    lwt_plan *p = NULL;
    return lwt_plan_create(ctx, &d, &p) == LWT_OK ? p : NULL;
}

/* the float32 plan's scheme is the float64 plan's with negligible end taps removed */
static void catalog(lwt_context *ctx, const char *name, int want_steps, int want_last_ntaps)
{
    lwt_wavelet *w = NULL;
    CHECK(lwt_wavelet_create(ctx, name, &w) == LWT_OK, "%s: wavelet", name);
    if (!w)
        return;
    const size_t n = 1000;
    lwt_plan *p32 = plan(ctx, w, LWT_F32, n), *p64 = plan(ctx, w, LWT_F64, n);
    CHECK(p32 && p64, "%s: plans", name);
    if (p32 && p64) {
        const lwt_scheme *s32 = &p32->wavelet.scheme, *s64 = &p64->wavelet.scheme;
        CHECK(s32->nsteps == want_steps, "%s float32: %d steps, want %d", name, s32->nsteps, want_steps);
        CHECK(s32->nsteps > 0 && s32->steps[s32->nsteps - 1].ntaps == want_last_ntaps,
              "%s float32: last step has %d taps, want %d", name, s32->steps[s32->nsteps - 1].ntaps,
              want_last_ntaps);
        /* the steps kept are the float64 plan's, their taps the same numbers */
        for (int k = 0; k < s32->nsteps && k < s64->nsteps; k++) {
            const lwt_step *a = &s32->steps[k], *b = &s64->steps[k];
            const int skip = a->off - b->off;
            CHECK(a->target == b->target && skip >= 0 && skip + a->ntaps <= b->ntaps, "%s step %d", name, k);
            if (skip >= 0 && skip + a->ntaps <= b->ntaps)
                for (int i = 0; i < a->ntaps; i++)
                    CHECK(s32->taps[a->first + i] == s64->taps[b->first + skip + i], "%s step %d tap %d", name, k, i);
        }
        /* still float32-accurate: forward of random data against the float64 plan */
        lwt_plan_info i32, i64;
        CHECK(lwt_plan_get_info(p32, &i32) == LWT_OK && lwt_plan_get_info(p64, &i64) == LWT_OK, "%s: info", name);
        const size_t m32 = i32.coeff_count, m64 = i64.coeff_count;
        float *x32 = malloc(n * sizeof *x32), *y32 = malloc(m32 * sizeof *y32);
        double *x64 = malloc(n * sizeof *x64), *y64 = malloc(m64 * sizeof *y64);
        unsigned long long r = 12345;
        for (size_t i = 0; i < n; i++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            x32[i] = (float)((double)(r >> 11) / 9007199254740992.0 - 0.5);
            x64[i] = x32[i];
        }
        CHECK(m32 == m64, "%s: output sizes", name);
        CHECK(lwt_forward(p32, x32, y32, NULL) == LWT_OK && lwt_forward(p64, x64, y64, NULL) == LWT_OK,
              "%s: forward", name);
        double e = 0, mx = 0;
        for (size_t i = 0; i < m32 && i < m64; i++) {
            e = fmax(e, fabs(y32[i] - y64[i]));
            mx = fmax(mx, fabs(y64[i]));
        }
        CHECK(e <= 1e-6 * mx, "%s: float32 plan off the float64 plan by %.3g of the largest coefficient", name,
              e / mx);
        free(x32);
        free(y32);
        free(x64);
        free(y64);
    }
    lwt_plan_destroy(p32);
    lwt_plan_destroy(p64);
    lwt_wavelet_destroy(w);
}

int main(void)
{
    made_up();
    lwt_context *ctx = NULL;
    CHECK(lwt_context_create(&ctx) == LWT_OK, "context");
    catalog(ctx, "bior4.4", 4, 2); /* float64: 5 steps, the last of 6 taps of 2e-14 .. 1.8e-12 */
    catalog(ctx, "db10", 11, 1);   /* float64: the last step's taps 2..6 are below 1.4e-12 */
    catalog(ctx, "db2", 3, 1);     /* nothing to drop */
    catalog(ctx, "bior2.2", 2, 2);
    lwt_context_destroy(ctx);
    return finish("test_scheme_trim");
}
