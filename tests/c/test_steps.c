/*
 * Plans resolved at creation (core/steps.c, core/driver.c, lwt_plan_explain).
 *
 * 1. What the planner decides, on the CPU backend: a 2-D LWT_ALGO_LIFTING_LBB lifting plan
 *    runs every level of both directions as one sliding-window step; the same plan with
 *    the convolution algorithm (or a wavelet without a lifting scheme) runs separable
 *    passes, the last forward pass and the first inverse pass through a band map; a 1-D
 *    plan runs one pass per level; a batch of 1-D signals runs as rows; a level too small
 *    for the sliding window's ring falls back at plan time, not at run time. The explain
 *    text says the same, one line per pass or kernel.
 * 2. A plan that was created never answers LWT_ERR_UNSUPPORTED when executed: every
 *    catalog wavelet over modes, dimensions, dtypes, algorithms and batches, forward and
 *    inverse, returns LWT_OK.
 * 3. lwt_plan_explain's buffer contract (needed, truncation, NUL) and the desc's size
 *    field (0 or larger than this library's struct is refused).
 * Mutations that break them: the planner taking the map where the CPU cannot (inner > 1),
 * cpu_level_kernel saying yes for levels without a geometry, or the driver falling back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/plan.h"
#include "core/steps.h"
#include "lwt.h"
#include "lwt_experimental.h"

static int cases;

static lwt_plan *plan(lwt_context *ctx, const lwt_wavelet *w, int ndim, const size_t *shape, int levels,
                      lwt_mode mode, lwt_dtype dt, lwt_algorithm algo, size_t batch)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = ndim;
    for (int k = 0; k < ndim; k++)
        d.shape[k] = shape[k];
    d.levels = levels;
    d.mode = mode;
    d.dtype = dt;
    d.backend = LWT_BACKEND_CPU;
    d.algorithm = algo;
    d.batch = batch;
    lwt_plan *p = NULL;
    return lwt_plan_create(ctx, &d, &p) == LWT_OK ? p : NULL;
}

static char *explain(const lwt_plan *p)
{
    size_t need = 0;
    if (lwt_plan_explain(p, NULL, 0, &need) != LWT_OK || need < 2)
        return NULL;
    char *t = malloc(need);
    if (t && lwt_plan_explain(p, t, need, NULL) != LWT_OK) {
        free(t);
        return NULL;
    }
    return t;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *s = text; (s = strstr(s, what)); s += strlen(what))
        n++;
    return n;
}

/* every step of both directions has op `op` and levels 1..J in order */
static int all_ops(const lwt_plan *p, lwt_level_op op)
{
    if (p->steps.n[0] != p->levels || p->steps.n[1] != p->levels)
        return 0;
    for (int i = 0; i < p->levels; i++)
        if (p->steps.v[0][i].op != op || p->steps.v[0][i].level != i + 1 || p->steps.v[1][i].op != op ||
            p->steps.v[1][i].level != p->levels - i)
            return 0;
    return 1;
}

/* every step of plan p has op `op`, and its explain text has n1 times `what1` and n2 times
   `what2`; the plan is destroyed */
static void expect(lwt_plan *p, const char *label, lwt_level_op op, const char *what1, int n1, const char *what2,
                   int n2)
{
    char *t = p ? explain(p) : NULL;
    cases++;
    CHECK(p && all_ops(p, op), "%s: not every step is op %d", label, (int)op);
    CHECK(t && count(t, what1) == n1 && count(t, what2) == n2, "%s: %d x '%s' (want %d), %d x '%s' (want %d):\n%s",
          label, t ? count(t, what1) : -1, what1, n1, t ? count(t, what2) : -1, what2, n2, t ? t : "(none)");
    free(t);
    lwt_plan_destroy(p);
}

static void decisions(lwt_context *ctx)
{
    lwt_wavelet *cdf97, *dmey, *db2;
    lwt_wavelet_create(ctx, "cdf97", &cdf97);
    lwt_wavelet_create(ctx, "dmey", &dmey);
    lwt_wavelet_create(ctx, "db2", &db2);
    const size_t s2[2] = {256, 192}, s1[1] = {1000}, s3[3] = {20, 24, 28};

    /* 2-D LBB: a sliding-window step per level, both directions; the last forward level
       leaves its approximation in the packed array */
    expect(plan(ctx, cdf97, 2, s2, 4, LWT_MODE_PERIODIZATION, LWT_F64, LWT_ALGO_LIFTING_LBB, 1), "2-D LBB",
           LWT_LEVEL_FUSED2D, "axes 0,1: sliding-window level (cpu)", 4, "forward level 4 axes 0,1: sliding-window "
           "level (cpu) -> bands to the packed array, cA to the packed array\n", 1);
    /* the same shape with the default algorithm: the CPU's fused level (one sweep a level) */
    expect(plan(ctx, cdf97, 2, s2, 4, LWT_MODE_PERIODIZATION, LWT_F64, LWT_ALGO_AUTO, 1), "2-D AUTO",
           LWT_LEVEL_FUSED2D, "axes 0,1: fused level, lifting (cpu)", 4, "axes 1,0: fused level, lifting (cpu)", 4);
    /* asking for the row-column passes: separable lifting passes, maps on the last axis */
    expect(plan(ctx, cdf97, 2, s2, 4, LWT_MODE_PERIODIZATION, LWT_F64, LWT_ALGO_LIFTING_RC, 1), "2-D RC",
           LWT_LEVEL_PASSES_MAP, "lifting pass (cpu)", 16, "through a map", 8);
    /* no lifting (dmey has no scheme; cdf97 with the convolution algorithm): the fused level on
       the filter bank */
    expect(plan(ctx, dmey, 2, s2, 1, LWT_MODE_SYMMETRIC, LWT_F64, LWT_ALGO_CONVOLUTION, 1), "dmey 2-D",
           LWT_LEVEL_FUSED2D, "fused level, filter bank (cpu)", 2, "sliding", 0);
    expect(plan(ctx, cdf97, 2, s2, 2, LWT_MODE_SYMMETRIC, LWT_F64, LWT_ALGO_CONVOLUTION, 1), "cdf97 convolution",
           LWT_LEVEL_FUSED2D, "fused level, filter bank (cpu)", 4, "sliding", 0);
    /* 3-D with the default algorithm: the pass along axis 0, then the fused level on the planes */
    expect(plan(ctx, cdf97, 3, s3, 2, LWT_MODE_REFLECT, LWT_F64, LWT_ALGO_AUTO, 1), "3-D AUTO", LWT_LEVEL_PLANES,
           "fused level, lifting on the planes (cpu)", 4, "lifting pass (cpu)", 4);
    /* 1-D, even when LBB is asked for: one pass per level, bands through the map */
    expect(plan(ctx, db2, 1, s1, 5, LWT_MODE_SMOOTH, LWT_F32, LWT_ALGO_LIFTING_LBB, 1), "1-D", LWT_LEVEL_PASSES_MAP,
           "axis 0: lifting pass (cpu)", 10, " level ", 10);
    /* a batch of 1-D signals: rows */
    expect(plan(ctx, db2, 1, s1, 3, LWT_MODE_PERIODIC, LWT_F64, LWT_ALGO_AUTO, 4), "1-D batch", LWT_LEVEL_ROWS,
           "over the 4 signals as rows", 6, " level ", 6);
    /* 3-D on the CPU asking for the sliding window: it has no planes; passes, the last through a map */
    expect(plan(ctx, cdf97, 3, s3, 2, LWT_MODE_REFLECT, LWT_F64, LWT_ALGO_LIFTING_LBB, 1), "3-D",
           LWT_LEVEL_PASSES_MAP, "lifting pass (cpu)", 12, "through a map", 4);

    /* the sliding window per level as its geometry allows: a level that does not fit runs
       separably, decided here (the plan's geometries are its own: cpu_slide.c) */
    const size_t tall[2] = {4096, 6};
    lwt_plan *p = plan(ctx, cdf97, 2, tall, 3, LWT_MODE_SYMMETRIC, LWT_F64, LWT_ALGO_LIFTING_LBB, 1);
    cases++;
    CHECK(p != NULL, "tall 2-D LBB plan");
    for (int i = 0; p && i < p->steps.n[0]; i++) {
        const lwt_level_step *st = &p->steps.v[0][i];
        CHECK(st->op == LWT_LEVEL_FUSED2D || st->op == LWT_LEVEL_PASSES_MAP, "tall: forward step %d op %d", i,
              (int)st->op);
        CHECK(st->kernel[0] != NULL, "tall: forward step %d has no kernel", i);
    }
    lwt_plan_destroy(p);

    lwt_wavelet_destroy(cdf97);
    lwt_wavelet_destroy(dmey);
    lwt_wavelet_destroy(db2);
}

/* every created plan runs: no LWT_ERR_UNSUPPORTED (nor any other error) from execution */
static void never_unsupported(lwt_context *ctx)
{
    const lwt_algorithm algos[] = {LWT_ALGO_AUTO, LWT_ALGO_CONVOLUTION, LWT_ALGO_LIFTING_RC, LWT_ALGO_LIFTING_LBB,
                                   LWT_ALGO_LIFTING_RC_STEPS};
    const size_t shapes[3][3] = {{37, 1, 1}, {22, 17, 1}, {9, 8, 11}};
    int created = 0, ran = 0;
    for (int i = 0; i < lwt_wavelet_catalog_count(); i += 3) {
        lwt_wavelet *w;
        if (lwt_wavelet_create(ctx, lwt_wavelet_catalog_name(i), &w) != LWT_OK)
            continue;
        for (int nd = 1; nd <= 3; nd++)
            for (int a = 0; a < 5; a++) {
                const lwt_mode mode = (lwt_mode)((i + nd + a) % LWT_MODE_COUNT);
                const lwt_dtype dt = (i + a) % 2 ? LWT_F32 : LWT_F64;
                const size_t batch = nd == 1 && a % 2 ? 3 : 1;
                const int levels = 1 + (i + a) % 3;
                lwt_plan *p = plan(ctx, w, nd, shapes[nd - 1], levels, mode, dt, algos[a], batch);
                if (!p)
                    continue; /* refused at creation (no lifting scheme, reflect on length 1): fine */
                created++;
                const size_t es = dt == LWT_F32 ? 4 : 8, ni = p->input_count * batch, nc = p->coeff_count * batch;
                char *x = calloc(ni, es), *c = malloc(nc * es), *y = malloc(ni * es);
                for (size_t k = 0; k < ni; k++) {
                    if (dt == LWT_F32)
                        ((float *)x)[k] = (float)((k * 7919) % 101) / 101.0f;
                    else
                        ((double *)x)[k] = (double)((k * 7919) % 101) / 101.0;
                }
                const lwt_status sf = lwt_forward(p, x, c, NULL), si = lwt_inverse(p, c, y, NULL);
                ran += sf == LWT_OK && si == LWT_OK;
                CHECK(sf == LWT_OK && si == LWT_OK, "%s %d-D %s algorithm %d batch %zu: forward %s, inverse %s",
                      lwt_wavelet_catalog_name(i), nd, lwt_mode_name(mode), (int)algos[a], batch,
                      lwt_status_string(sf), lwt_status_string(si));
                free(x);
                free(c);
                free(y);
                lwt_plan_destroy(p);
            }
        lwt_wavelet_destroy(w);
    }
    cases++;
    CHECK(created > 100 && ran == created, "%d plans created, %d ran", created, ran);
    printf("test_steps: %d plans created and executed\n", created);
}

static void contracts(lwt_context *ctx)
{
    lwt_wavelet *w;
    lwt_wavelet_create(ctx, "haar", &w);
    const size_t s[2] = {16, 16};
    lwt_plan *p = plan(ctx, w, 2, s, 2, LWT_MODE_PERIODIZATION, LWT_F64, LWT_ALGO_AUTO, 1);
    char *full = p ? explain(p) : NULL;
    size_t need = 0;
    char small[16];
    memset(small, 'x', sizeof small);
    cases++;
    CHECK(full && lwt_plan_explain(p, small, sizeof small, &need) == LWT_OK && need == strlen(full) + 1 &&
              small[15] == '\0' && !strncmp(small, full, 15),
          "explain truncation: need %zu", need);
    CHECK(lwt_plan_explain(NULL, small, sizeof small, NULL) == LWT_ERR_INVALID_ARGUMENT &&
              lwt_plan_explain(p, NULL, 4, NULL) == LWT_ERR_INVALID_ARGUMENT,
          "explain: bad arguments accepted");
    free(full);
    lwt_plan_destroy(p);

    /* the desc's size: from lwt_plan_desc_default; 0 (a desc filled from zeros) and a newer,
       larger struct than this library knows are refused */
    lwt_plan_desc d = lwt_plan_desc_default();
    CHECK(d.size == sizeof d, "lwt_plan_desc_default: size %zu", d.size);
    d.wavelet = w;
    d.shape[0] = 16;
    lwt_plan *q = NULL;
    d.size = 0;
    CHECK(lwt_plan_create(ctx, &d, &q) == LWT_ERR_INVALID_ARGUMENT && !q, "desc size 0 accepted");
    d.size = sizeof d + 8;
    CHECK(lwt_plan_create(ctx, &d, &q) == LWT_ERR_INVALID_ARGUMENT && !q, "desc size too large accepted");
    d.size = sizeof d;
    CHECK(lwt_plan_create(ctx, &d, &q) == LWT_OK, "desc from lwt_plan_desc_default refused");
    lwt_plan_tuning t;
    CHECK(q && lwt_plan_get_tuning(q, &t) == LWT_OK && t.lbb_threads == 0 && t.fuse_levels == 0,
          "a plan's tuning is not the default");
    lwt_plan_destroy(q);
    lwt_wavelet_destroy(w);
}

int main(void)
{
    lwt_context *ctx;
    lwt_context_create(&ctx);
    decisions(ctx);
    never_unsupported(ctx);
    contracts(ctx);
    lwt_context_destroy(ctx);
    printf("test_steps: %d cases\n", cases);
    return finish("test_steps");
}
