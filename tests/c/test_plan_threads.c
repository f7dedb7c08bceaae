/*
 * test_plan_threads.c - plans are immutable after creation and safe to execute concurrently with
 * separate workspaces (DESIGN.md section 2; include/lwt.h, lwt_forward). Here ONE plan per case
 * is executed from THREADS pthreads at once, each with its own workspace (lwt_plan_info's
 * workspace_bytes, malloc'ed by the thread) and its own output, forward and inverse ROUNDS times;
 * every result must be bit-identical to the same plan run once on the main thread before the
 * threads start. The context's threads are 0 (all), so the calls large enough to split run
 * their own OpenMP teams, nested under the pthreads, all at once. Then the same from separate plans made
 * concurrently, one per thread, from one context and one wavelet (plan creation reads the
 * shared wavelet and context). Cases: lifting, filter bank, LBB, 1-3 dimensions, f32 and f64,
 * a batch. Also built with ThreadSanitizer (make test-tsan), where the races it would find
 * fail the run.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lwt.h"

#define THREADS 6
#define ROUNDS 3

typedef struct pcase {
    const char *wavelet;
    int ndim;
    size_t shape[3];
    int levels;
    lwt_mode mode;
    lwt_dtype dtype;
    lwt_algorithm algo;
    size_t batch;
} pcase;

static const pcase cases[] = {
    {"cdf97", 2, {96, 80, 1}, 3, LWT_MODE_SYMMETRIC, LWT_F64, LWT_ALGO_AUTO, 1},
    {"db4", 2, {64, 72, 1}, 2, LWT_MODE_PERIODIZATION, LWT_F32, LWT_ALGO_LIFTING_LBB, 1},
    {"sym5", 3, {20, 18, 16}, 2, LWT_MODE_REFLECT, LWT_F64, LWT_ALGO_CONVOLUTION, 1},
    {"coif3", 1, {1000, 1, 1}, LWT_LEVELS_MAX, LWT_MODE_SMOOTH, LWT_F64, LWT_ALGO_AUTO, 3},
    {"bior3.5", 2, {50, 70, 1}, 3, LWT_MODE_ZERO, LWT_F32, LWT_ALGO_LIFTING_RC, 2},
    /* 80 Ki samples: its first level's passes split over OpenMP threads (at least 32 Ki samples
       each, cpu_pass_entry.h), the LBB case above over its column strips */
    {"db2", 2, {320, 256, 1}, 2, LWT_MODE_SYMMETRIC, LWT_F64, LWT_ALGO_LIFTING_RC, 1},
};

typedef struct ref {
    const lwt_plan *plan;
    lwt_plan_info info;
    size_t es, nin, nout; /* bytes per value, values of signal and coefficients (whole batch) */
    unsigned char *x, *c, *y; /* input, its coefficients, their inverse: the main thread's run */
} ref;

/* deterministic input: a linear congruential generator, same numbers in f32 and f64 */
static void fill(unsigned char *x, size_t n, lwt_dtype dt, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        if (dt == LWT_F32) {
            float f = (float)v;
            memcpy(x + 4 * i, &f, 4);
        } else {
            memcpy(x + 8 * i, &v, 8);
        }
    }
}

static lwt_status make(lwt_context *ctx, const lwt_wavelet *w, const pcase *k, lwt_plan **out)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = k->ndim;
    memcpy(d.shape, k->shape, sizeof k->shape);
    d.levels = k->levels;
    d.mode = k->mode;
    d.dtype = k->dtype;
    d.backend = LWT_BACKEND_CPU;
    d.algorithm = k->algo;
    d.batch = k->batch;
    return lwt_plan_create(ctx, &d, out);
}

/* forward and inverse of r->x with plan p and a workspace of the caller's: 0 when both are
   bit-identical to r->c and r->y */
static int run_once(const lwt_plan *p, const ref *r, unsigned char *c, unsigned char *y, void *ws)
{
    if (lwt_forward(p, r->x, c, ws) != LWT_OK || lwt_inverse(p, c, y, ws) != LWT_OK)
        return 1;
    return memcmp(c, r->c, r->nout * r->es) != 0 || memcmp(y, r->y, r->nin * r->es) != 0;
}

typedef struct job {
    const ref *r;
    lwt_context *ctx;         /* own plans only */
    const lwt_wavelet *w;
    const pcase *k;
    int own_plan;
    int bad;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    const ref *r = j->r;
    lwt_plan *mine = NULL;
    const lwt_plan *p = r->plan;
    if (j->own_plan) {
        if (make(j->ctx, j->w, j->k, &mine) != LWT_OK) {
            j->bad = 1;
            return NULL;
        }
        p = mine;
    }
    unsigned char *c = malloc(r->nout * r->es), *y = malloc(r->nin * r->es);
    void *ws = malloc(r->info.workspace_bytes ? r->info.workspace_bytes : 1);
    for (int i = 0; i < ROUNDS && c && y && ws; i++)
        j->bad |= run_once(p, r, c, y, ws);
    j->bad |= !c || !y || !ws;
    free(c);
    free(y);
    free(ws);
    lwt_plan_destroy(mine);
    return NULL;
}

static void one_case(lwt_context *ctx, const pcase *k)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    CHECK(lwt_wavelet_create(ctx, k->wavelet, &w) == LWT_OK, "%s: wavelet", k->wavelet);
    CHECK(w && make(ctx, w, k, &p) == LWT_OK, "%s: plan", k->wavelet);
    if (!p) {
        lwt_wavelet_destroy(w);
        return;
    }
    ref r = {p, {0}, k->dtype == LWT_F32 ? 4 : 8, 0, 0, NULL, NULL, NULL};
    lwt_plan_get_info(p, &r.info);
    r.nin = r.info.input_count * k->batch;
    r.nout = r.info.coeff_count * k->batch;
    r.x = malloc(r.nin * r.es);
    r.c = malloc(r.nout * r.es);
    r.y = malloc(r.nin * r.es);
    void *ws = malloc(r.info.workspace_bytes ? r.info.workspace_bytes : 1);
    fill(r.x, r.nin, k->dtype, 29);
    CHECK(lwt_forward(p, r.x, r.c, ws) == LWT_OK && lwt_inverse(p, r.c, r.y, ws) == LWT_OK, "%s: main thread run",
          k->wavelet);
    free(ws);
    for (int own = 0; own < 2; own++) {
        job jobs[THREADS];
        pthread_t th[THREADS];
        int started = 0;
        for (int t = 0; t < THREADS; t++) {
            jobs[t] = (job){&r, ctx, w, k, own, 0};
            if (pthread_create(&th[t], NULL, worker, &jobs[t]) != 0)
                break;
            started++;
        }
        CHECK(started == THREADS, "%s: pthread_create", k->wavelet);
        for (int t = 0; t < started; t++) {
            pthread_join(th[t], NULL);
            CHECK(!jobs[t].bad, "%s %dD %s %s: thread %d differs from the single-thread run", k->wavelet, k->ndim,
                  k->dtype == LWT_F32 ? "f32" : "f64", own ? "(own plan)" : "(shared plan)", t);
        }
    }
    free(r.x);
    free(r.c);
    free(r.y);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

int main(void)
{
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        one_case(ctx, &cases[i]);
    lwt_context_destroy(ctx);
    return finish("test_plan_threads");
}
