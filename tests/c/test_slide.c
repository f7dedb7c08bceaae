/*
 * The sliding-window 2-D level (core/slide.h, core/slide_body.h: the code
 * the CUDA kernel runs), executed by the CPU runner (plans with
 * LWT_ALGO_LIFTING_LBB), against the CPU's separable passes: every catalog
 * wavelet that has a lifting scheme, every mode, odd shapes, several levels
 * (beyond the maximum too), float64 and float32, forward and inverse, with
 * shapes large enough for many strips and segments. Also checks that every
 * level really took the sliding path (a silent fallback would make the
 * comparison vacuous) and the schedule's own invariants.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/plan.h"
#include "core/slide.h"
#include "lwt.h"

static unsigned long long rng = 88172645463325252ull;
static double rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

/* max |a - b| over max(|b|, |x|): an inverse of cropped coefficients can
 * reconstruct to values far smaller than what it sums (docs/ACCURACY.md) */
static double rel_err(const void *a, lwt_dtype dta, const double *b, size_t n, const double *x, size_t nx)
{
    double e = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double v = dta == LWT_F32 ? ((const float *)a)[i] : ((const double *)a)[i];
        if (!(fabs(v - b[i]) <= e))
            e = fabs(v - b[i]); /* NaN (an element never written) propagates */
        if (fabs(b[i]) > m)
            m = fabs(b[i]);
    }
    for (size_t i = 0; i < nx; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    return m > 0 ? e / m : e;
}

static int cases, skipped;
static double worst;
static int tune_cols; /* lwt_plan_tuning.lbb_cols of the sliding plans (0: the planner's choice) */

/* every level of plan p plans a sliding window, and its schedule is sane */
static int all_levels_slide(const lwt_plan *p)
{
    lwt_slide_geom g;
    for (int j = 1; j <= p->levels; j++)
        for (int inv = 0; inv < 2; inv++) {
            const size_t *in = p->sizes[j - 1], *nc = p->sizes[j];
            size_t bytes = lwt_slide_plan(&g, &p->wavelet.scheme, p->desc.mode, p->fb.length, inv, (long)in[0],
                                          (long)in[1], (long)nc[0], (long)nc[1], sizeof(double), 0, 64,
                                          p->tune.lbb_cols);
            if (!bytes)
                return 0;
            CHECK((g.C & (g.C - 1)) == 0 && g.S >= 1 && g.S <= g.C && g.iters >= 1, "schedule C %d S %d iters %d",
                  g.C, g.S, g.iters);
            CHECK(g.tiles[0] >= 1 && g.tiles[1] >= 1 && g.RW >= 2 * g.ax[1].T, "tiles %ld x %ld, RW %d", g.tiles[0],
                  g.tiles[1], g.RW);
        }
    return 1;
}

static void run_case(lwt_context *ctx, const char *name, size_t n0, size_t n1, int levels, lwt_mode mode,
                     lwt_dtype dt)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK) {
        CHECK(0, "wavelet %s", name);
        return;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = levels;
    d.mode = mode;
    d.dtype = LWT_F64; /* the reference: separable passes in float64 */
    d.algorithm = LWT_ALGO_LIFTING;
    lwt_plan *ps = NULL, *pl = NULL;
    lwt_status s1 = lwt_plan_create(ctx, &d, &ps);
    d.dtype = dt;
    d.algorithm = LWT_ALGO_LIFTING_LBB;
    lwt_plan_tuning tu = lwt_plan_tuning_default();
    tu.lbb_cols = tune_cols;
    lwt_status s2 = lwt_plan_create_tuned(ctx, &d, &tu, &pl);
    if (s1 != LWT_OK || s2 != LWT_OK) {
        /* no lifting scheme within the bound (the convolution path, not ours) */
        CHECK(s2 != LWT_OK && (s1 != LWT_OK || dt == LWT_F32), "%s %s: plan status separable %d sliding %d", name,
              lwt_mode_name(mode), s1, s2);
        skipped++;
        goto done;
    }
    if (!all_levels_slide(pl)) {
        CHECK(0, "%s %s %zux%zu L%d: a level does not take the sliding window", name, lwt_mode_name(mode), n0, n1,
              levels);
        goto done;
    }
    lwt_plan_info info;
    lwt_plan_get_info(ps, &info);
    const size_t es = dt == LWT_F32 ? 4 : 8, ni = info.input_count, nc = info.coeff_count;
    double *x = malloc(ni * 8), *c1 = malloc(nc * 8), *y1 = malloc(ni * 8), *cin = malloc(nc * 8);
    char *xt = malloc(ni * es), *c2 = malloc(nc * es), *ct = malloc(nc * es), *y2 = malloc(ni * es);
    for (size_t i = 0; i < ni; i++) {
        x[i] = dt == LWT_F32 ? (double)(float)rnd() : rnd();
        if (dt == LWT_F32)
            ((float *)xt)[i] = (float)x[i];
        else
            ((double *)xt)[i] = x[i];
    }
    memset(c2, 0xff, nc * es); /* NaN poison: every coefficient must be written */
    memset(y2, 0xff, ni * es);
    lwt_status f1 = lwt_forward(ps, x, c1, NULL), f2 = lwt_forward(pl, xt, c2, NULL);
    /* the inverse of the reference coefficients, as the plan's type holds them */
    for (size_t i = 0; i < nc; i++) {
        cin[i] = dt == LWT_F32 ? (double)(float)c1[i] : c1[i];
        if (dt == LWT_F32)
            ((float *)ct)[i] = (float)cin[i];
        else
            ((double *)ct)[i] = cin[i];
    }
    lwt_status i1 = lwt_inverse(ps, cin, y1, NULL), i2 = lwt_inverse(pl, ct, y2, NULL);
    /* The project's bounds (docs/ACCURACY.md): float64 1e-12; float32 1e-5, or
       10 x the separable float32 plan's own error where the case is
       ill-conditioned (smooth beyond the maximum level with a float32 scheme) */
    double bound = 1e-12, bound_inv = 1e-12;
    if (dt == LWT_F32) {
        lwt_plan *p32 = NULL;
        d.algorithm = LWT_ALGO_LIFTING;
        char *c3 = malloc(nc * es), *y3 = malloc(ni * es);
        bound = bound_inv = 1e-5;
        if (lwt_plan_create(ctx, &d, &p32) == LWT_OK && !lwt_forward(p32, xt, c3, NULL) &&
            !lwt_inverse(p32, ct, y3, NULL)) {
            bound = fmax(bound, 10 * rel_err(c3, dt, c1, nc, x, ni));
            bound_inv = fmax(bound_inv, 10 * rel_err(y3, dt, y1, ni, cin, nc));
        }
        lwt_plan_destroy(p32);
        free(c3);
        free(y3);
    }
    double ef = rel_err(c2, dt, c1, nc, x, ni), ei = rel_err(y2, dt, y1, ni, cin, nc);
    /* float64 forward: the same operations in the same order as the separable passes */
    if (dt == LWT_F64)
        CHECK(ef == 0, "%s %s %zux%zu L%d f64: forward differs from the separable passes by %.2e", name,
              lwt_mode_name(mode), n0, n1, levels, ef);
    if (ef / bound > worst)
        worst = ef / bound;
    if (ei / bound_inv > worst)
        worst = ei / bound_inv;
    cases++;
    CHECK(!f1 && !f2 && !i1 && !i2 && ef <= bound && ei <= bound_inv,
          "%s %s %zux%zu L%d %s: forward %.2e inverse %.2e (status %d %d %d %d)", name, lwt_mode_name(mode), n0, n1,
          levels, dt == LWT_F32 ? "f32" : "f64", ef, ei, f1, f2, i1, i2);
    free(x);
    free(c1);
    free(y1);
    free(cin);
    free(xt);
    free(c2);
    free(ct);
    free(y2);
done:
    lwt_plan_destroy(ps);
    lwt_plan_destroy(pl);
    lwt_wavelet_destroy(w);
}

/* the lags respect the dependencies they are derived from (slide.h) */
static void check_lags(lwt_context *ctx, const char *name)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK)
        return;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = d.shape[1] = 300;
    d.levels = 1;
    d.algorithm = LWT_ALGO_LIFTING_LBB;
    lwt_plan *p;
    if (lwt_plan_create(ctx, &d, &p) == LWT_OK) {
        const lwt_scheme *s = &p->wavelet.scheme;
        for (int inv = 0; inv < 2; inv++) {
            lwt_slide_geom g;
            CHECK(lwt_slide_plan(&g, s, d.mode, p->fb.length, inv, 300, 300, (long)p->sizes[1][0],
                                 (long)p->sizes[1][1], 8, 0, 1, 0),
                  "%s: no plan", name);
            int wl[2] = {0, 0};
            for (int k = 0; k < g.nsteps; k++) {
                const lwt_step *st = &s->steps[lwt_slide_step_index(&g, k)];
                CHECK(g.lag[k] >= wl[st->target], "%s: step %d passes its target's writer", name, k);
                CHECK(g.lag[k] >= wl[1 - st->target] + st->off + st->ntaps - 1, "%s: step %d reads ahead", name, k);
                for (int j = 0; j < k; j++) {
                    const lwt_step *sj = &s->steps[lwt_slide_step_index(&g, j)];
                    if (sj->target != st->target)
                        CHECK(g.lag[k] >= g.lag[j] - sj->off, "%s: step %d overwrites rows step %d reads", name, k, j);
                }
                wl[st->target] = g.lag[k];
            }
        }
        lwt_plan_destroy(p);
    }
    lwt_wavelet_destroy(w);
}

/* A pass along one axis (lwt_slide_plan_column, the GPU's column kernel) plans that
   axis as the 2-D plans plan their rows at the shortest tiles: the same ranges, tiles,
   first row, output rows and lags, for every length from a handful of samples up */
static void check_column_plan(lwt_context *ctx, const char *name)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK)
        return;
    const long lens[] = {2, 5, 17, 64, 301, 1037};
    for (int mode = 0; mode < LWT_MODE_COUNT; mode++)
        for (int li = 0; li < 6; li++) {
            lwt_plan_desc d = lwt_plan_desc_default();
            d.wavelet = w;
            d.ndim = 2;
            d.shape[0] = (size_t)lens[li];
            d.shape[1] = 300;
            d.levels = 1;
            d.mode = (lwt_mode)mode;
            lwt_plan *p;
            if (lwt_plan_create(ctx, &d, &p) != LWT_OK)
                continue;
            const lwt_scheme *s = &p->wavelet.scheme;
            const long nc0 = (long)p->sizes[1][0];
            for (int inv = 0; inv < 2; inv++) {
                lwt_slide_geom a, b;
                const int ok_rows =
                    lwt_slide_plan_rows(&a, s, d.mode, p->fb.length, inv, lens[li], 300, nc0, (long)p->sizes[1][1],
                                        0, 8, 0, LONG_MAX, 0) != 0;
                const int ok_col = lwt_slide_plan_column(&b, s, d.mode, p->fb.length, inv, lens[li], nc0);
                cases++;
                if (!ok_rows || !ok_col) { /* both or neither: no lifting scheme */
                    CHECK(ok_rows == ok_col, "%s %s n0 %ld: a plan for one of rows (%d) and columns (%d)", name,
                          lwt_mode_name(d.mode), lens[li], ok_rows, ok_col);
                    continue;
                }
                CHECK(!memcmp(&a.ax[0], &b.ax[0], sizeof a.ax[0]) && a.tiles[0] == b.tiles[0] &&
                          a.m_start == b.m_start && !memcmp(a.out_lo, b.out_lo, sizeof a.out_lo) &&
                          !memcmp(a.out_hi, b.out_hi, sizeof a.out_hi) && !memcmp(a.lag, b.lag, sizeof a.lag) &&
                          b.ax[0].T <= 16,
                      "%s %s n0 %ld %s: the column plan differs from the rows of a 2-D plan", name,
                      lwt_mode_name(d.mode), lens[li], inv ? "inverse" : "forward");
                CHECK(b.tiles[1] == 1, "%s: a column plan has one strip", name);
            }
            lwt_plan_destroy(p);
        }
    lwt_wavelet_destroy(w);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    lwt_context *ctx;
    lwt_context_create(&ctx);
    const int nw = lwt_wavelet_catalog_count();
    for (int wi = 0; wi < nw; wi++) {
        const char *name = lwt_wavelet_catalog_name(wi);
        check_lags(ctx, name);
        if (!quick || wi % 5 == 0)
            check_column_plan(ctx, name);
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            if (quick && (wi + mode) % 5)
                continue;
            /* odd shapes, several strips and segments, two levels */
            run_case(ctx, name, 61 + (size_t)(wi % 13), 47 + (size_t)mode * 3, 2, (lwt_mode)mode,
                     (wi + mode) % 2 ? LWT_F32 : LWT_F64);
            /* tiny rows and columns, far beyond the maximum level */
            run_case(ctx, name, 9, 5 + (size_t)mode, 4, (lwt_mode)mode, LWT_F64);
        }
    }
    /* long columns: many segments of every length the planner picks */
    const char *big[] = {"haar", "db2", "cdf53", "cdf97", "db10", "sym8", "coif3", "bior6.8"};
    for (int i = 0; i < 8; i++)
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++)
            run_case(ctx, big[i], 1037, 263 + (size_t)mode, 4, (lwt_mode)mode, mode % 2 ? LWT_F32 : LWT_F64);
    /* other strip widths (lwt_plan_desc.lbb_cols, the block-size sweep's knob): the same results */
    const int widths[] = {16, 32, 256, 1024};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++) {
            if (quick && k % 3)
                continue;
            tune_cols = widths[i];
            run_case(ctx, big[k], 70 + (size_t)k, 301 + (size_t)(13 * i), 3, (lwt_mode)((k + i) % LWT_MODE_COUNT),
                     (k + i) % 2 ? LWT_F32 : LWT_F64);
        }
    tune_cols = 0;
    /* the tuning fields are checked */
    {
        lwt_wavelet *w;
        lwt_plan *p = NULL;
        lwt_wavelet_create(ctx, "cdf97", &w);
        lwt_plan_desc d = lwt_plan_desc_default();
        d.wavelet = w;
        d.ndim = 2;
        d.shape[0] = d.shape[1] = 64;
        const int bad_threads[] = {-32, 16, 48, 2048}, bad_cols[] = {-1, 8, 15, 1025};
        lwt_plan_tuning t = lwt_plan_tuning_default();
        for (int i = 0; i < 4; i++) {
            t.lbb_threads = bad_threads[i];
            CHECK(lwt_plan_create_tuned(ctx, &d, &t, &p) == LWT_ERR_INVALID_ARGUMENT && !p, "lbb_threads %d accepted",
                  bad_threads[i]);
            t.lbb_threads = 0;
            t.lbb_cols = bad_cols[i];
            CHECK(lwt_plan_create_tuned(ctx, &d, &t, &p) == LWT_ERR_INVALID_ARGUMENT && !p, "lbb_cols %d accepted",
                  bad_cols[i]);
            t.lbb_cols = 0;
        }
        const int bad_lifting[] = {-1, 3};
        for (int i = 0; i < 2; i++) {
            t.lifting = (lwt_lifting_variant)bad_lifting[i];
            CHECK(lwt_plan_create_tuned(ctx, &d, &t, &p) == LWT_ERR_INVALID_ARGUMENT && !p,
                  "lifting variant %d accepted", bad_lifting[i]);
        }
        t.lifting = LWT_LIFT_IMPROVED; /* accepted everywhere; only the GPU register kernel uses it */
        t.lbb_threads = 1024;
        t.lbb_cols = 16;
        CHECK(lwt_plan_create_tuned(ctx, &d, &t, &p) == LWT_OK, "lbb_threads 1024, lbb_cols 16 refused");
        lwt_plan_destroy(p);
        lwt_wavelet_destroy(w);
    }
    lwt_context_destroy(ctx);
    printf("test_slide: %d cases (%d without a lifting scheme skipped), worst error/bound %.3g\n", cases, skipped,
           worst);
    return finish("test_slide");
}
