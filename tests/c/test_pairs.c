/*
 * Two forward 2-D levels in one pass (core/slide_pair.h, cuda_slide_pair.cu), what the CPU
 * can check of it. CI has no GPU; test_gpu runs the kernel itself against the CPU and, bit
 * for bit, against one level per pass.
 *
 * 1. The driver (core/driver.c, planned by core/steps.c): a test backend whose level pair is
 *    the CPU's sliding-window level run twice (the first level's approximation into a buffer
 *    of its own) and which refuses chosen pairs when the planner asks, so that pairs, single
 *    fused levels and the plan's last level mix;
 *    every forward must match the CPU backend, float64, within 1e-12 of the largest
 *    coefficient, and the pairs must have run.
 * 2. What the kernel relies on: in periodization with even sizes, the level-1 coefficients
 *    of the input rolled by two samples along both axes are the coefficients rolled by one,
 *    bit for bit, so the level-1 approximation a strip computes past the array's edge from
 *    the wrapped input is the periodic extension level 2 reads there.
 *    A batch of 2-D arrays (steps.batch_levels): every forward step, pairs included, and every
 *    inverse step on the whole batch in one call, each array equal to the CPU backend's.
 * 3. The planner: refusals (other modes, sizes not multiples of 4), and for the compiled-in
 *    shapes the strips' invariants: the level-1 strip holds the level-1 columns the block
 *    writes and the approximation columns its level-2 strip reads, within the threads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_backend.h"
#include "core/backend.h"
#include "core/plan.h"
#include "core/slide_pair.h"
#include "cpu/cpu_slide.h"
#include "lwt.h"

typedef struct pair_backend {
    const lwt_plan *p;
    lwt_context *ctx;
    unsigned refuse; /* bit j set: the pair of levels j and j + 1 is refused */
    int pairs;       /* pairs run */
    int batch;       /* 1: whole levels both ways on batches (level_kernel's planes question) */
    int batched;     /* calls on more than one array */
} pair_backend;

/* one level j of the plan, forward or inverse, by the CPU's sliding window (a one-level plan
   of its shape); in and out as lwt_backend_ops.fused2d's for one array */
static lwt_status level_at(const pair_backend *t, int j, int inverse, const void *const in[4],
                           const size_t in_stride[4], void *const out[4], const size_t out_stride[4])
{
    lwt_plan *q;
    lwt_status st = cpu_level_plan(t->ctx, t->p, t->p->sizes[j - 1][0], t->p->sizes[j - 1][1], &q);
    if (st)
        return st;
    st = lwt_cpu_slide2d(q, 1, inverse, in, in_stride, out, out_stride);
    lwt_plan_destroy(q);
    return st;
}

static lwt_status one_level(const pair_backend *t, int j, const void *in, size_t in_stride, void *const out[4],
                            const size_t out_stride[4])
{
    const void *ins[4] = {in, NULL, NULL, NULL};
    const size_t is[4] = {in_stride, 0, 0, 0};
    return level_at(t, j, 0, ins, is, out, out_stride);
}

/* the forward 2-D levels, one by one (the planner asks); with batch, every level both ways
   on batches of arrays */
static const char *tb_level_kernel(const void *q, const lwt_plan *p, int level, int inverse, int planes)
{
    const pair_backend *t = q;
    (void)level;
    if (p->ndim != 2)
        return NULL;
    return t->batch ? (planes ? "test batch level" : NULL) : !inverse && !planes ? "test level" : NULL;
}

/* array z's pointer: element z bstride of p (float64 arrays), NULL stays NULL */
static void *nth(const void *p, size_t z, size_t bstride)
{
    return p ? (char *)p + z * bstride * sizeof(double) : NULL;
}

/* the pairs but the refused ones */
static const char *tb_pair_kernel(const void *q, const lwt_plan *p, int level)
{
    const pair_backend *t = q;
    (void)p;
    return t->refuse >> level & 1 ? NULL : "test pair";
}

static lwt_status tb_fused2d(void *b, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                             void *const out[4], const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                             const size_t out_bstride[4], unsigned sixteen)
{
    (void)sixteen; /* a float32 plan's: 0 */
    pair_backend *t = b;
    t->batched += nbatch > 1;
    lwt_status st = LWT_OK;
    for (size_t z = 0; z < nbatch && !st; z++) {
        const void *iz[4];
        void *oz[4];
        for (int k = 0; k < 4; k++) {
            iz[k] = nth(in[k], z, in_bstride[k]);
            oz[k] = nth(out[k], z, out_bstride[k]);
        }
        st = level_at(t, level, inverse, iz, in_stride, oz, out_stride);
    }
    return st;
}

static lwt_status tb_pair(void *b, int level, const void *in, size_t in_stride, void *const out1[4],
                          const size_t out1_stride[4], void *const out2[4], const size_t out2_stride[4],
                          size_t nbatch, size_t in_bstride, const size_t out1_bstride[4],
                          const size_t out2_bstride[4])
{
    pair_backend *t = b;
    const size_t *nc = t->p->sizes[level];
    double *ll = malloc(nc[0] * nc[1] * sizeof(double));
    lwt_status st = ll ? LWT_OK : LWT_ERR_OUT_OF_MEMORY;
    t->batched += nbatch > 1;
    for (size_t z = 0; z < nbatch && !st; z++) {
        void *o1[4] = {ll, nth(out1[1], z, out1_bstride[1]), nth(out1[2], z, out1_bstride[2]),
                       nth(out1[3], z, out1_bstride[3])};
        void *o2[4];
        for (int k = 0; k < 4; k++)
            o2[k] = nth(out2[k], z, out2_bstride[k]);
        size_t s1[4] = {nc[1], out1_stride[1], out1_stride[2], out1_stride[3]};
        st = one_level(t, level, nth(in, z, in_bstride), in_stride, o1, s1);
        if (st == LWT_OK)
            st = one_level(t, level + 1, ll, nc[1], o2, out2_stride);
    }
    free(ll);
    t->pairs += st == LWT_OK;
    return st;
}

static const lwt_backend_ops pair_ops = {.name = "test",
                                         .level_kernel = tb_level_kernel,
                                         .pair_kernel = tb_pair_kernel,
                                         .pass_kernel = cpu_pass_kernel,
                                         .run_pass = cpu_run_pass,
                                         .copy_block = cpu_copy_block,
                                         .zero_blocks = cpu_zero_blocks,
                                         .fused2d = tb_fused2d,
                                         .fused2d_pair = tb_pair};

static unsigned long long rng = 0x2545f4914f6cdd1dull;

static lwt_plan *make_batch_plan(lwt_context *ctx, lwt_wavelet *w, size_t n0, size_t n1, int levels, lwt_mode mode,
                                 size_t batch)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = levels;
    d.mode = mode;
    d.dtype = LWT_F64;
    d.backend = LWT_BACKEND_CPU;
    d.batch = batch;
    lwt_plan *p = NULL;
    return lwt_plan_create(ctx, &d, &p) == LWT_OK ? p : NULL;
}

static lwt_plan *make_plan(lwt_context *ctx, lwt_wavelet *w, size_t n0, size_t n1, int levels, lwt_mode mode)
{
    return make_batch_plan(ctx, w, n0, n1, levels, mode, 1);
}

/* the largest |got - want| over n values (NaN counts as infinite), *m the largest |want| */
static double max_diff(const double *got, const double *want, size_t n, double *m)
{
    double e = 0;
    *m = 0;
    for (size_t i = 0; i < n; i++) {
        *m = fmax(*m, fabs(want[i]));
        if (!(fabs(got[i] - want[i]) <= e))
            e = isnan(got[i] - want[i]) ? INFINITY : fabs(got[i] - want[i]);
    }
    return e;
}

static int cases;

/* the pairs the driver runs: it offers levels 1 and 2, then 3 and 4, ...; a refused pair runs
   as one level and the next pair starts at the level after it */
static int pairs_wanted(int levels, unsigned refuse)
{
    int want = 0;
    for (int j = 1; j < levels; j++)
        if (!(refuse >> j & 1)) {
            want++;
            j++;
        }
    return want;
}

static void driver_case(lwt_context *ctx, const char *name, size_t n0, size_t n1, int levels, lwt_mode mode,
                        unsigned refuse)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK) {
        CHECK(0, "no wavelet %s", name);
        return;
    }
    lwt_plan *p = make_plan(ctx, w, n0, n1, levels, mode);
    if (!p) {
        CHECK(0, "%s %s: no plan", name, lwt_mode_name(mode));
        lwt_wavelet_destroy(w);
        return;
    }
    const size_t ni = p->input_count, nc = p->coeff_count;
    double *x = malloc(ni * 8), *cref = malloc(nc * 8), *c = malloc(nc * 8), *ws = malloc(2 * p->buf_elems * 8);
    for (size_t i = 0; i < ni; i++)
        x[i] = xs_rnd(&rng);
    memset(c, 0xff, nc * 8); /* poison: every coefficient must be written */
    pair_backend t = {p, ctx, refuse, 0, 0, 0};
    const lwt_status s1 = lwt_forward(p, x, cref, NULL), s2 = run_on(p, &pair_ops, &t, x, c, ws, 0);
    double m;
    const double e = max_diff(c, cref, nc, &m);
    cases++;
    CHECK(!s1 && !s2 && e <= 1e-12 * m, "%s %s %zux%zu L%d refuse %#x: forward %.2e of %.2e (status %d %d)", name,
          lwt_mode_name(mode), n0, n1, levels, refuse, e, m, s1, s2);
    const int want = pairs_wanted(levels, refuse);
    CHECK(t.pairs == want, "%s %s L%d refuse %#x: %d pairs run, not %d", name, lwt_mode_name(mode), levels, refuse,
          t.pairs, want);
    free(x);
    free(cref);
    free(c);
    free(ws);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

/* A batch of B arrays on a backend that runs whole levels on batches (steps.batch_levels):
   forward (pairs but the refused ones, each on the whole batch) and inverse, every array equal
   to the CPU backend's within 1e-12 of the largest value, and the calls made on the batch */
static void batch_case(lwt_context *ctx, const char *name, size_t n0, size_t n1, int levels, size_t B,
                       unsigned refuse)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK) {
        CHECK(0, "no wavelet %s", name);
        return;
    }
    lwt_plan *p = make_batch_plan(ctx, w, n0, n1, levels, LWT_MODE_PERIODIZATION, B);
    if (!p) {
        CHECK(0, "%s batch %zu: no plan", name, B);
        lwt_wavelet_destroy(w);
        return;
    }
    const size_t ni = p->input_count * B, nc = p->coeff_count * B;
    size_t one = p->buf_elems; /* the batch's approximations, every array's, per buffer */
    for (int j = 1; j <= levels; j++)
        one = one > B * p->sizes[j][0] * p->sizes[j][1] ? one : B * p->sizes[j][0] * p->sizes[j][1];
    double *x = malloc(ni * 8), *cref = malloc(nc * 8), *c = malloc(nc * 8), *y = malloc(ni * 8),
           *yref = malloc(ni * 8), *ws = malloc(2 * one * 8);
    for (size_t i = 0; i < ni; i++)
        x[i] = xs_rnd(&rng);
    memset(c, 0xff, nc * 8);
    memset(y, 0xff, ni * 8);
    pair_backend t = {p, ctx, refuse, 0, 1, 0};
    const lwt_status s1 = lwt_forward(p, x, cref, NULL), s2 = run_on(p, &pair_ops, &t, x, c, ws, 0);
    const lwt_status s3 = lwt_inverse(p, cref, yref, NULL), s4 = run_on(p, &pair_ops, &t, cref, y, ws, 1);
    double m, mi;
    const double e = max_diff(c, cref, nc, &m), ei = max_diff(y, yref, ni, &mi);
    const int want = pairs_wanted(levels, refuse);
    cases++;
    CHECK(!s1 && !s2 && !s3 && !s4 && e <= 1e-12 * m && ei <= 1e-12 * mi,
          "%s batch %zu of %zux%zu L%d refuse %#x: forward %.2e of %.2e, inverse %.2e of %.2e (status %d %d %d %d)",
          name, B, n0, n1, levels, refuse, e, m, ei, mi, s1, s2, s3, s4);
    CHECK(t.pairs == want && t.batched == want + (levels - 2 * want) + levels,
          "%s batch %zu L%d refuse %#x: %d pairs run (not %d), %d calls on the batch (not %d)", name, B, levels,
          refuse, t.pairs, want, t.batched, want + (levels - 2 * want) + levels);
    free(x);
    free(cref);
    free(c);
    free(y);
    free(yref);
    free(ws);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

/* level-1 coefficients of x rolled by (2, 2) are those of x rolled by (1, 1), bit for bit */
static void shift_case(lwt_context *ctx, const char *name, size_t n0, size_t n1)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK) {
        CHECK(0, "no wavelet %s", name);
        return;
    }
    lwt_plan *p = make_plan(ctx, w, n0, n1, 1, LWT_MODE_PERIODIZATION);
    CHECK(p != NULL, "%s: no plan", name);
    if (!p) {
        lwt_wavelet_destroy(w);
        return;
    }
    const size_t m0 = n0 / 2, m1 = n1 / 2;
    double *x = malloc(n0 * n1 * 8), *xr = malloc(n0 * n1 * 8), *c = malloc(4 * m0 * m1 * 8),
           *cr = malloc(4 * m0 * m1 * 8);
    for (size_t i = 0; i < n0 * n1; i++)
        x[i] = xs_rnd(&rng);
    for (size_t r = 0; r < n0; r++)
        for (size_t k = 0; k < n1; k++)
            xr[((r + 2) % n0) * n1 + (k + 2) % n1] = x[r * n1 + k];
    const lwt_status s1 = lwt_forward(p, x, c, NULL), s2 = lwt_forward(p, xr, cr, NULL);
    long bad = 0;
    for (int band = 0; band < 4; band++) /* the packed array: 2 m0 x 2 m1, band (b0, b1) at (b0 m0, b1 m1) */
        for (size_t r = 0; r < m0; r++)
            for (size_t k = 0; k < m1; k++) {
                const size_t r0 = (band >> 1) * m0, k0 = (band & 1) * m1;
                const double a = c[(r0 + r) * 2 * m1 + k0 + k];
                const double b = cr[(r0 + (r + 1) % m0) * 2 * m1 + k0 + (k + 1) % m1];
                bad += memcmp(&a, &b, sizeof a) != 0;
            }
    cases++;
    CHECK(!s1 && !s2 && bad == 0, "%s %zux%zu: %ld coefficients differ after a roll by 2 (status %d %d)", name, n0, n1,
          bad, s1, s2);
    free(x);
    free(xr);
    free(c);
    free(cr);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

/* the planner's refusals, and its strips' invariants for the register kernels' widths */
static void planner_case(lwt_context *ctx, const char *name, long n0, long n1, lwt_mode mode, int expect)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, name, &w) != LWT_OK) {
        CHECK(0, "no wavelet %s", name);
        return;
    }
    lwt_plan *p = make_plan(ctx, w, (size_t)n0, (size_t)n1, 2, mode);
    if (!p) {
        CHECK(0, "%s: no plan", name);
        lwt_wavelet_destroy(w);
        return;
    }
    lwt_slide_pair pp;
    const int threads = 256, slots1 = 4, slots2 = 2;
    const int ok = lwt_slide_pair_plan(&pp, &p->wavelet.scheme, mode, p->fb.length, n0, n1, 8, threads, slots1, slots2);
    cases++;
    CHECK(ok == expect, "%s %s %ldx%ld: pair planned %d, expected %d", name, lwt_mode_name(mode), n0, n1, ok, expect);
    if (ok && expect) {
        const long T1 = pp.g1.ax[1].T, T2 = pp.g2.ax[1].T;
        long xlo2, xlo1;
        const int nx2 = lwt_slide_strip(&pp.g2, 0, &xlo2), nx1 = lwt_slide_strip(&pp.g1, pp.c_lo, &xlo1);
        CHECK(pp.g2.tiles[1] * T2 >= n1 / 4 && pp.g2.ax[1].nc == n1 / 4 && pp.g1.ax[1].nc == n1 / 2,
              "%s %ldx%ld: %ld level-2 strips of %ld for %ld columns", name, n0, n1, pp.g2.tiles[1], T2, n1 / 4);
        /* strip 0: the level-1 strip holds columns [c_lo, c_lo + T1); it writes [0, 2 T2) and
           level 2 reads the approximation columns xlo2 + delta2 + [0, nx2) */
        CHECK(pp.c_lo <= 0 && 2 * T2 <= pp.c_lo + T1, "%s: level-1 strip [%ld, %ld) misses the written [0, %ld)", name,
              pp.c_lo, pp.c_lo + T1, 2 * T2);
        CHECK(xlo2 + pp.g2.ax[1].delta == pp.c_lo + pp.u0 && pp.u0 >= 0 && pp.u0 + nx2 <= T1,
              "%s: level-2 reads [%ld, %ld), the level-1 strip holds [%ld, %ld)", name, xlo2 + pp.g2.ax[1].delta,
              xlo2 + pp.g2.ax[1].delta + nx2, pp.c_lo, pp.c_lo + T1);
        CHECK(nx1 <= threads && lwt_slide_pair_fits(&pp.g1, threads, slots1) &&
                  lwt_slide_pair_fits(&pp.g2, threads, slots2),
              "%s: strips of %d and %d samples do not fit", name, nx1, nx2);
    }
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

int main(void)
{
    lwt_context *ctx;
    lwt_context_create(&ctx);
    const char *names[] = {"haar", "db2", "bior2.2", "bior4.4", "db4", "db10"};
    /* refusal patterns: none; the first pair; the second; all */
    const unsigned refuse[] = {0, 1u << 1, 1u << 2, ~0u};
    for (int i = 0; i < 6; i++)
        for (int r = 0; r < 4; r++) {
            driver_case(ctx, names[i], 64 + 4 * (size_t)i, 96, 2 + r, LWT_MODE_PERIODIZATION, refuse[r]);
            driver_case(ctx, names[i], 37, 50 + (size_t)r, 3, LWT_MODE_SYMMETRIC, refuse[(r + 1) % 4]);
        }
    for (int i = 0; i < 6; i++)
        batch_case(ctx, names[i], 32 + 4 * (size_t)i, 48, 2 + i % 3, 3 + (size_t)i % 2, refuse[i % 4]);
    for (int i = 0; i < 6; i++) {
        shift_case(ctx, names[i], 24, 40);
        shift_case(ctx, names[i], 64, 12);
    }
    for (int i = 0; i < 6; i++) {
        planner_case(ctx, names[i], 1024, 1028, LWT_MODE_PERIODIZATION, 1);
        planner_case(ctx, names[i], 1024, 1028, LWT_MODE_SYMMETRIC, 0);
        planner_case(ctx, names[i], 1026, 1028, LWT_MODE_PERIODIZATION, 0);
        planner_case(ctx, names[i], 1024, 1030, LWT_MODE_PERIODIZATION, 0);
    }
    CHECK(cases == 6 * 8 + 6 + 12 + 24, "ran %d cases", cases);
    lwt_context_destroy(ctx);
    printf("test_pairs: %d cases\n", cases);
    return finish("test_pairs");
}
