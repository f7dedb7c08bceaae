/*
 * The streaming engine: levels one after the other, each cut into chunks of
 * output rows that workers pull through the load-balancing policy
 * (stream/sched.c). Chunks of one level are independent (each reads its
 * halo from the level's input, which no chunk of the level writes), so any
 * assignment of chunks to workers, and any chunk re-run after a worker
 * failure, gives the same bits.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fail.h"
#include "core/plan.h"
#include "core/sized.h"
#include "lwt_experimental.h"
#include "stream/recipe.h"
#include "stream/sched.h"
#include "stream/worker.h"

double stream_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

typedef struct worker_slot {
    lwt_stream_worker cfg;
    double slowdown;     /* test faults (lwt_stream_tuning) */
    int fail_after;
    const worker_ops *ops;
    void *state;
    worker_caps caps;
    int dead;
    long started;        /* chunks begun over the streamer's life (for fail_after) */
    lwt_status status;
} worker_slot;

struct stream_engine {
    const lwt_plan *plan;  /* the plan that computes: a 16-bit plan's float32 plan */
    int io16;              /* LWT_F16 or LWT_BF16: the caller's arrays are 16-bit (level_job.io16) */
    size_t io_es;          /* bytes of an element of the caller's arrays */
    const lwt_stream_desc *desc;
    const lwt_stream_tuning *tuning;
    lwt_sched *sched;
    int nworkers;
    worker_slot w[LWT_STREAM_MAX_WORKERS];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* the level in progress */
    const level_job *job;
    long done, failed_chunks;
    int live;
    /* progress and report */
    double work_total, work_done, level_weight;
    lwt_stream_report rep;
};

const lwt_context *engine_ctx(const stream_engine *e)
{
    return e->plan->ctx;
}

long engine_next(stream_engine *e, int w, int may_block)
{
    pthread_mutex_lock(&e->mu);
    long c;
    for (;;) {
        if (e->w[w].dead || e->done >= e->job->nchunks || e->live == 0) {
            c = -1;
            break;
        }
        c = lwt_sched_next(e->sched, w);
        if (c >= 0)
            break;
        if (!may_block) {
            c = -2;
            break;
        }
        /* nothing for us now; a failure elsewhere may hand chunks back */
        pthread_cond_wait(&e->cv, &e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return c;
}

lwt_status engine_chunk_begin(stream_engine *e, int w, long c)
{
    pthread_mutex_lock(&e->mu);
    long n = ++e->w[w].started;
    pthread_mutex_unlock(&e->mu);
    if (e->w[w].fail_after > 0 && n == e->w[w].fail_after) {
        lwt_log(e->plan->ctx, LWT_LOG_WARNING, "stream worker %d: injected failure on chunk %ld (test option)", w, c);
        return LWT_ERR_DEVICE;
    }
    return LWT_OK;
}

void engine_done(stream_engine *e, int w, long c, double busy_s, double util_compute, double util_mem)
{
    const double slow = e->w[w].slowdown;
    if (slow > 1.0) {
        sleep_s((slow - 1.0) * busy_s);
        busy_s *= slow;
    }
    pthread_mutex_lock(&e->mu);
    lwt_sched_done(e->sched, w, c, busy_s, util_compute, util_mem);
    e->done++;
    e->rep.chunks[w]++;
    e->rep.busy_s[w] += busy_s;
    e->work_done += e->level_weight / (double)e->job->nchunks;
    if (e->desc->progress)
        e->desc->progress(e->desc->progress_user, e->work_total > 0 ? e->work_done / e->work_total : 1.0);
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

void engine_failed(stream_engine *e, int w, long c, lwt_status why)
{
    pthread_mutex_lock(&e->mu);
    if (!e->w[w].dead) {
        e->w[w].dead = 1;
        e->w[w].status = why;
        e->live--;
        e->rep.failed[w] = 1;
        if (e->live)
            lwt_log(e->plan->ctx, LWT_LOG_WARNING, "stream worker %d failed (%s); its chunks go to the others", w,
                    lwt_status_string(why));
        if (c >= 0)
            e->failed_chunks++;
        lwt_sched_failed(e->sched, w, c);
    }
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

void engine_add_gpu_times(stream_engine *e, double h2d, double kernel, double d2h, size_t bh2d, size_t bd2h,
                          size_t bwindows, long fused, long passes)
{
    pthread_mutex_lock(&e->mu);
    e->rep.h2d_s += h2d;
    e->rep.kernel_s += kernel;
    e->rep.d2h_s += d2h;
    e->rep.bytes_h2d += bh2d;
    e->rep.bytes_d2h += bd2h;
    e->rep.bytes_windows += bwindows;
    e->rep.levels_fused += fused;
    e->rep.levels_passes += passes;
    pthread_mutex_unlock(&e->mu);
}

/* ---------------------------------------------------------------- levels */

typedef struct thread_arg {
    stream_engine *e;
    int w;
} thread_arg;

static void *worker_main(void *arg)
{
    thread_arg *a = arg;
    stream_engine *e = a->e;
    worker_slot *s = &e->w[a->w];
    s->ops->level(s->state, e, a->w, e->job);
    return NULL;
}

static lwt_status run_level(stream_engine *e, const level_job *job)
{
    e->job = job;
    e->done = 0;
    if (lwt_sched_begin(e->sched, job->nchunks))
        return lwt_fail(e->plan->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot schedule %ld chunks", job->nchunks);
    pthread_t th[LWT_STREAM_MAX_WORKERS];
    thread_arg args[LWT_STREAM_MAX_WORKERS];
    int started[LWT_STREAM_MAX_WORKERS] = {0};
    for (int w = 0; w < e->nworkers; w++) {
        if (e->w[w].dead)
            continue;
        args[w].e = e;
        args[w].w = w;
        if (e->nworkers == 1) {
            worker_main(&args[w]); /* no thread for a lone worker */
            continue;
        }
        if (pthread_create(&th[w], NULL, worker_main, &args[w]) == 0)
            started[w] = 1;
        else
            engine_failed(e, w, -1, LWT_ERR_OUT_OF_MEMORY);
    }
    for (int w = 0; w < e->nworkers; w++)
        if (started[w])
            pthread_join(th[w], NULL);
    if (e->done < job->nchunks) {
        lwt_status why = LWT_ERR_INTERNAL;
        for (int w = 0; w < e->nworkers; w++)
            if (e->w[w].dead && e->w[w].status)
                why = e->w[w].status;
        return lwt_fail(e->plan->ctx, why,
                        "streamed transform stopped at levels %d-%d: %ld of %ld chunks done, every worker failed",
                        job->j0, job->j1, e->done, job->nchunks);
    }
    return LWT_OK;
}

static size_t prod_nd(const size_t *s, int nd)
{
    size_t p = 1;
    for (int k = 0; k < nd; k++)
        p *= s[k];
    return p;
}

static size_t row_elems(const lwt_plan *p, const size_t *s)
{
    size_t r = 1;
    for (int k = 1; k < p->ndim; k++)
        r *= s[k];
    return r;
}

/* Approximations between groups of levels alternate between two areas (a
 * group reads one and writes the other); below the maximum level they
 * shrink, beyond it they grow, so each area holds the largest. */
static size_t scratch_area(const lwt_plan *p)
{
    size_t area = 0;
    for (int j = 1; j < p->levels; j++) {
        size_t n = prod_nd(p->sizes[j], p->ndim);
        if (n > area)
            area = n;
    }
    return area;
}

/* A 16-bit plan streams its float32 plan: the scratch areas hold float32 approximations (as
   its in-memory workspace does), so they are the float32 plan's */
lwt_status lwt_stream_scratch_size(const lwt_plan *p, size_t *bytes)
{
    if (!p || !bytes)
        return LWT_ERR_INVALID_ARGUMENT;
    const lwt_plan *q = lwt_plan_compute(p);
    *bytes = 2 * scratch_area(q) * lwt_plan_elem_size(q);
    return LWT_OK;
}

lwt_stream_desc lwt_stream_desc_default(void)
{
    lwt_stream_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.balance = LWT_BALANCE_POLICY_QUEUE;
    return d;
}

lwt_stream_tuning lwt_stream_tuning_default(void)
{
    lwt_stream_tuning t;
    memset(&t, 0, sizeof t);
    t.tuned_blocks = 1;
    t.pinned_pool = 1;
    t.overlap = 1;
    return t;
}

/* the caller's desc as this version's: a binary built against an older header passes a
   shorter struct, whose missing fields keep their defaults (as lwt_plan_desc). The first
   version ends at progress_user. */
static lwt_status read_desc(const lwt_context *ctx, const lwt_stream_desc *in, lwt_stream_desc *d)
{
    *d = lwt_stream_desc_default();
    if (!in)
        return LWT_OK;
    LWT_FORWARD(lwt_sized_read(ctx, "lwt_stream_desc", in, LWT_SIZED_FIRST(lwt_stream_desc, progress_user), d,
                               sizeof *d));
    LWT_RETURN_IF((int)d->balance < 0 || (int)d->balance > LWT_BALANCE_POLICY_FNN, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "unknown balance policy %d", (int)d->balance);
    return LWT_OK;
}

static lwt_status check_tuning(const lwt_context *ctx, const lwt_stream_tuning *t)
{
    LWT_RETURN_IF(t->streams < 0 || t->streams > 8, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "lwt_stream_tuning.streams must be 0..8 (got %d)", t->streams);
    LWT_RETURN_IF(t->fuse_levels < 0, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "lwt_stream_tuning.fuse_levels must be >= 0 (got %d)", t->fuse_levels);
    for (int w = 0; w < LWT_STREAM_MAX_WORKERS; w++) {
        LWT_RETURN_IF(t->slowdown[w] != 0 && !(t->slowdown[w] >= 1.0), ctx, LWT_ERR_INVALID_ARGUMENT,
                      "lwt_stream_tuning.slowdown[%d] must be 0 or >= 1 (got %g)", w, t->slowdown[w]);
        LWT_RETURN_IF(t->fail_after[w] < 0, ctx, LWT_ERR_INVALID_ARGUMENT,
                      "lwt_stream_tuning.fail_after[%d] must be >= 0 (got %d)", w, t->fail_after[w]);
    }
    return LWT_OK;
}

const char *lwt_balance_policy_name(lwt_balance_policy b)
{
    return lwt_balance_name((lwt_balance)b);
}

static long chunk_rows_for(const lwt_plan *p, const lwt_stream_desc *d)
{
    if (d->chunk_rows)
        return (long)d->chunk_rows;
    size_t row_bytes = row_elems(p, p->shape) * lwt_plan_elem_size(p);
    size_t rows = ((size_t)64 << 20) / (row_bytes ? row_bytes : 1);
    return rows < 2 ? 2 : (long)rows;
}

/* the group of levels [j0, j1] as a job of chunks (pointers set by the caller) */
static void make_job(const lwt_plan *p, int inverse, int j0, int j1, long chunk_rows, level_job *job)
{
    memset(job, 0, sizeof *job);
    job->plan = p;
    job->inverse = inverse;
    job->j0 = j0;
    job->j1 = j1;
    if (inverse) {
        job->nout = (long)p->sizes[j0 - 1][0];
        job->per_chunk = chunk_rows;
    } else {
        const int L = j1 - j0 + 1;
        job->nout = (long)p->sizes[j1][0];
        job->per_chunk = L < 62 && (chunk_rows >> L) > 0 ? chunk_rows >> L : 1;
    }
    job->nchunks = (job->nout + job->per_chunk - 1) / job->per_chunk;
}

/* How many levels one pass fuses: the most whose halos, grown level by
 * level, keep a middle chunk's reads within max_read of its share of the data
 * (deep levels of short arrays would recompute too much), at most max. */
static int choose_fusion(const lwt_plan *p, int inverse, int jstart, long rows, int max, double max_read, recipe *tmp)
{
    const int avail = inverse ? jstart : p->levels - jstart + 1;
    int best = 1;
    for (int L = 2; L <= avail && (max <= 0 || L <= max); L++) {
        level_job job;
        const int j0 = inverse ? jstart - L + 1 : jstart, j1 = inverse ? jstart : jstart + L - 1;
        make_job(p, inverse, j0, j1, rows, &job);
        job.src = job.coeffs_in = job.coeffs_out = job.dst = (char *)p; /* never dereferenced */
        if (inverse && j1 == p->levels)
            job.src = NULL;
        if (!inverse && j1 == p->levels)
            job.dst = NULL;
        if (recipe_build(&job, job.nchunks / 2, tmp))
            break;
        const double share = (double)prod_nd(p->sizes[j0 - 1], p->ndim) / (double)job.nchunks;
        if ((double)tmp->in_elems > max_read * share)
            break;
        best = L;
    }
    return best;
}

/* How much more than its share a chunk may read when levels are fused. A CPU
 * worker pays the halo in memory traffic and recomputation: 30%. GPU workers
 * keep a forward window's rows on the device (row_cache.h), so the halo
 * costs no bus bytes, only kernel time, which is a small part of a chunk's
 * transfer time there: up to twice the share, which lets small chunks fuse
 * every level (no round trip of the approximation through host memory, no
 * pipeline drain between groups). The inverse reads band blocks that do not
 * go through the cache: 30% as on the CPU. */
static double fusion_read_limit(const stream_engine *e, int inverse)
{
    for (int w = 0; w < e->nworkers; w++)
        if (e->w[w].cfg.kind != LWT_WORKER_CUDA)
            return 1.3;
    return inverse ? 1.3 : 2.0;
}

/* the groups of levels a call runs, in order, as jobs with their host pointers unset; at most
   p->levels */
static int groups_of(const stream_engine *e, int inverse, level_job *jobs)
{
    const lwt_plan *p = e->plan;
    const int J = p->levels;
    const long rows = chunk_rows_for(p, e->desc);
    recipe tmp;
    recipe_init(&tmp);
    int n = 0;
    for (int j = inverse ? J : 1; inverse ? j >= 1 : j <= J; n++) {
        const int L = choose_fusion(p, inverse, j, rows, e->tuning->fuse_levels, fusion_read_limit(e, inverse), &tmp);
        if (inverse) {
            make_job(p, 1, j - L + 1, j, rows, &jobs[n]);
            j = jobs[n].j0 - 1;
        } else {
            make_job(p, 0, j, j + L - 1, rows, &jobs[n]);
            j = jobs[n].j1 + 1;
        }
        jobs[n].io16 = e->io16;
    }
    recipe_free(&tmp);
    return n;
}

static lwt_status run_one(stream_engine *e, int inverse, const char *in, char *out, char *scratch)
{
    const lwt_plan *p = e->plan;
    const size_t es = lwt_plan_elem_size(p);
    const int J = p->levels;
    char *sa[2] = {scratch, scratch ? scratch + scratch_area(p) * es : NULL};
    if (J == 0) {
        if (e->io16) /* as the in-memory 16-bit plan: widened and rounded back */
            lwt_half_identity((lwt_dtype)e->io16, (const uint16_t *)in, (uint16_t *)out, p->input_count);
        else
            memcpy(out, in, p->input_count * es);
        return LWT_OK;
    }
    if (!inverse && !p->tight) /* PyWavelets' zero gaps, in the caller's element size */
        lwt_cpu_ops.zero_blocks(NULL, e->io_es, out, p->gap_shape, p->gaps, p->ngaps);
    level_job jobs[LWT_LEVELS_LIMIT];
    const int ngroups = groups_of(e, inverse, jobs);
    lwt_status st = LWT_OK;
    const char *prev = NULL; /* the approximation the last group wrote */
    for (int g = 0; st == LWT_OK && g < ngroups; g++) {
        level_job *job = &jobs[g];
        char *area = sa[g & 1];
        if (inverse) {
            job->coeffs_in = in;
            job->src = job->j1 == J ? NULL : prev;
            job->dst = job->j0 == 1 ? out : area;
        } else {
            job->src = job->j0 == 1 ? in : prev;
            job->coeffs_out = out;
            job->dst = job->j1 == J ? NULL : area;
        }
        prev = job->dst;
        e->level_weight = 0;
        for (int q = job->j0; q <= job->j1; q++)
            e->level_weight += (double)prod_nd(p->sizes[q - 1], p->ndim);
        lwt_log(p->ctx, LWT_LOG_DEBUG, "stream: levels %d-%d in one pass, %ld chunks of %ld rows", job->j0, job->j1,
                job->nchunks, job->per_chunk);
        st = run_level(e, job);
    }
    return st;
}

static lwt_status make_workers(stream_engine *e)
{
    const lwt_stream_desc *d = e->desc;
    lwt_stream_worker one_cpu;
    memset(&one_cpu, 0, sizeof one_cpu);
    if (d->nworkers > LWT_STREAM_MAX_WORKERS)
        return lwt_fail(e->plan->ctx, LWT_ERR_INVALID_ARGUMENT, "at most %d stream workers (asked for %d)",
                        LWT_STREAM_MAX_WORKERS, d->nworkers);
    e->nworkers = d->nworkers > 0 ? d->nworkers : 1;
    lwt_worker_profile prof[LWT_STREAM_MAX_WORKERS];
    for (int w = 0; w < e->nworkers; w++) {
        worker_slot *s = &e->w[w];
        s->cfg = d->nworkers > 0 ? d->workers[w] : one_cpu;
        s->slowdown = e->tuning->slowdown[w];
        s->fail_after = e->tuning->fail_after[w];
        lwt_status st;
        if (s->cfg.kind == LWT_WORKER_CPU) {
            st = stream_cpu_worker_create(e->plan, &s->cfg, &s->ops, &s->state, &s->caps);
        } else if (s->cfg.kind == LWT_WORKER_CUDA) {
#ifdef LWT_HAVE_CUDA
            st = stream_cuda_worker_create(e->plan, e->tuning, &s->cfg, &s->ops, &s->state, &s->caps);
#else
            st = lwt_fail(e->plan->ctx, LWT_ERR_BACKEND_UNAVAILABLE,
                          "stream worker %d is a CUDA worker, but this build has no CUDA backend", w);
#endif
        } else {
            st = lwt_fail(e->plan->ctx, LWT_ERR_INVALID_ARGUMENT, "stream worker %d has unknown kind %d", w,
                          (int)s->cfg.kind);
        }
        if (st)
            return st;
        prof[w].gflops = s->caps.gflops;
        prof[w].mem_gib = s->caps.mem_gib;
        prof[w].parallel = s->caps.parallel;
        prof[w].mem_gbs = s->caps.mem_gbs;
        prof[w].bus_gbs = s->caps.bus_gbs;
    }
    e->live = e->nworkers;
    const int sc = lwt_sched_create((lwt_balance)d->balance, e->nworkers, prof, &e->sched);
    if (sc == -2)
        return lwt_fail(e->plan->ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the stream scheduler");
    if (sc)
        return lwt_fail(e->plan->ctx, LWT_ERR_INVALID_ARGUMENT, "unknown balance policy %d", (int)d->balance);
    return LWT_OK;
}

/* A streamer is the engine with its workers kept between calls. */
struct lwt_streamer {
    stream_engine e;
    lwt_stream_desc desc;     /* the caller's, copied */
    lwt_stream_tuning tuning; /* the caller's, copied */
};

int stream_groups(const lwt_streamer *s, int inverse, level_job *jobs)
{
    return groups_of(&s->e, inverse, jobs);
}

lwt_status lwt_streamer_create_tuned(const lwt_plan *p, const lwt_stream_desc *d, const lwt_stream_tuning *t,
                                     lwt_streamer **out)
{
    if (!out)
        return LWT_ERR_INVALID_ARGUMENT;
    *out = NULL;
    LWT_RETURN_IF(!p, NULL, LWT_ERR_INVALID_ARGUMENT, "lwt_streamer_create: NULL plan");
    lwt_stream_desc desc;
    LWT_FORWARD(read_desc(p->ctx, d, &desc));
    const lwt_stream_tuning tuning = t ? *t : lwt_stream_tuning_default();
    LWT_FORWARD(check_tuning(p->ctx, &tuning));
    lwt_streamer *s = calloc(1, sizeof *s);
    LWT_RETURN_IF(!s, p->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_streamer_create: out of memory");
    s->desc = desc;
    s->tuning = tuning;
    stream_engine *e = &s->e;
    e->plan = lwt_plan_compute(p); /* the workers and recipes run the float32 plan of a 16-bit one */
    e->io16 = p->f32 ? (int)p->desc.dtype : 0;
    e->io_es = lwt_plan_elem_size(p);
    e->desc = &s->desc;
    e->tuning = &s->tuning;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    lwt_status st = make_workers(e);
    if (st) {
        lwt_streamer_destroy(s);
        return st;
    }
    *out = s;
    return LWT_OK;
}

lwt_status lwt_streamer_create(const lwt_plan *p, const lwt_stream_desc *d, lwt_streamer **out)
{
    return lwt_streamer_create_tuned(p, d, NULL, out);
}

void lwt_streamer_destroy(lwt_streamer *s)
{
    if (!s)
        return;
    stream_engine *e = &s->e;
    for (int w = 0; w < e->nworkers; w++)
        if (e->w[w].ops)
            e->w[w].ops->destroy(e->w[w].state);
    lwt_sched_destroy(e->sched);
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
    free(s);
}

/* A call's counters; workers that failed in an earlier call stay retired. */
static void begin_call(stream_engine *e)
{
    memset(&e->rep, 0, sizeof e->rep);
    e->done = e->failed_chunks = 0;
    e->work_total = e->work_done = 0;
    e->live = 0;
    for (int w = 0; w < e->nworkers; w++) {
        e->live += !e->w[w].dead;
        e->rep.failed[w] = e->w[w].dead;
    }
}

lwt_status stream_prepare_job(lwt_streamer *s, const level_job *job)
{
    stream_engine *e = &s->e;
    for (int w = 0; w < e->nworkers; w++)
        if (!e->w[w].dead && e->w[w].ops->prepare)
            LWT_FORWARD(e->w[w].ops->prepare(e->w[w].state, job));
    return LWT_OK;
}

lwt_status stream_run_job(lwt_streamer *s, const level_job *job)
{
    stream_engine *e = &s->e;
    begin_call(e);
    if (!e->live)
        return lwt_fail(e->plan->ctx, LWT_ERR_DEVICE, "lwt_stream: every worker of this streamer failed earlier");
    e->work_total = e->level_weight = 1.0;
    return run_level(e, job);
}

static lwt_status streamer_run(lwt_streamer *s, const void *in, void *out, void *scratch, lwt_stream_report *report,
                               int inverse)
{
    if (!s)
        return LWT_ERR_INVALID_ARGUMENT;
    stream_engine *e = &s->e;
    const lwt_plan *p = e->plan;
    if (!in || !out)
        return lwt_fail(p->ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_stream: NULL argument");
    begin_call(e);
    const double t0 = stream_now();
    size_t sbytes = 0;
    lwt_stream_scratch_size(p, &sbytes);
    char *own = NULL;
    lwt_status st = LWT_OK;
    if (!e->live)
        st = lwt_fail(p->ctx, LWT_ERR_DEVICE, "lwt_stream: every worker of this streamer failed in an earlier call");
    if (!st && !scratch && sbytes) {
        own = malloc(sbytes);
        if (!own)
            st = lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of stream scratch", sbytes);
        scratch = own;
    }
    if (!st) {
        const size_t es = e->io_es;
        const size_t nin = (inverse ? p->coeff_count : p->input_count) * es;
        const size_t nout = (inverse ? p->input_count : p->coeff_count) * es;
        for (int j = 1; j <= p->levels; j++)
            e->work_total += (double)prod_nd(p->sizes[j - 1], p->ndim) * (double)p->desc.batch;
        for (size_t b = 0; b < p->desc.batch && !st; b++)
            st = run_one(e, inverse, (const char *)in + b * nin, (char *)out + b * nout, scratch);
    }
    if (report) {
        *report = e->rep;
        report->nworkers = e->nworkers;
        if (e->sched) {
            long done[LWT_STREAM_MAX_WORKERS];
            lwt_sched_stats(e->sched, done, report->share);
        }
        for (int w = 0; w < e->nworkers; w++)
            report->total_chunks += report->chunks[w];
        report->seconds = stream_now() - t0;
    }
    free(own);
    return st;
}

lwt_status lwt_streamer_forward(lwt_streamer *s, const void *in, void *out, void *scratch, lwt_stream_report *report)
{
    return streamer_run(s, in, out, scratch, report, 0);
}

lwt_status lwt_streamer_inverse(lwt_streamer *s, const void *in, void *out, void *scratch, lwt_stream_report *report)
{
    return streamer_run(s, in, out, scratch, report, 1);
}

/* one call: a streamer made, run once and destroyed */
static lwt_status stream_call(const lwt_plan *p, const lwt_stream_desc *d, const void *in, void *out, void *scratch,
                              lwt_stream_report *report, int inverse)
{
    if (!p || !in || !out)
        return lwt_fail(p ? p->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "lwt_stream: NULL argument");
    if (report)
        memset(report, 0, sizeof *report); /* what a call whose workers cannot be made reports */
    lwt_streamer *s;
    lwt_status st = lwt_streamer_create(p, d, &s);
    if (st)
        return st;
    st = streamer_run(s, in, out, scratch, report, inverse);
    lwt_streamer_destroy(s);
    return st;
}

lwt_status lwt_stream_forward(const lwt_plan *p, const lwt_stream_desc *d, const void *in, void *out, void *scratch,
                              lwt_stream_report *report)
{
    return stream_call(p, d, in, out, scratch, report, 0);
}

lwt_status lwt_stream_inverse(const lwt_plan *p, const lwt_stream_desc *d, const void *in, void *out, void *scratch,
                              lwt_stream_report *report)
{
    return stream_call(p, d, in, out, scratch, report, 1);
}
