/*
 * filter_batch.c - lwt filter over its inputs, in order. Each input is a job of three stages
 * (filter_job.h): read, compute (split and parameters), write.
 *
 * Sequential (--no-pipeline, or a single input): all three stages of an input before the next.
 * Pipelined (the default for two inputs or more): one thread per stage, each taking the inputs
 * in order, so that input k + 1 is read while k is split and measured and k - 1 is written. At
 * most PIPELINE_JOBS jobs are alive at once. Everything a job prints (its warnings, its failure
 * line, its table) comes from the write stage, which the main thread runs in input order, so
 * stdout and stderr are the sequential run's; the outputs are the same bits (the same calls on
 * the same data; the tests compare every byte). Each thread has its own context and log sink,
 * so a failed read of k + 1 is reported with its own message and leaves job k alone.
 *
 * Memory: a job holds up to JOB_SURFACES copies of its heights at its peak. While other jobs are
 * alive, the read of the next one runs under what they leave of --max-memory, divided by
 * JOB_SURFACES; a file refused under that share waits until every job before it is written and
 * is read again under the whole limit, as the sequential run reads it (so the same file fails
 * with the same message either way).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter_job.h"

/* jobs alive at once: one being read, one being computed, one being written */
#define PIPELINE_JOBS 3
/* a job's peak in copies of its heights: lwt filter on one 2048^2 X3P (32 MiB of heights) peaks
   at 348 MiB resident (10.9 copies: the input, its filled and levelled copies, the coefficients,
   the bands, the parameters' sorts), 412 MiB (12.9) with a noise band (/usr/bin/time, maxrss);
   once computed, a job holds the input and its bands (4-5 copies). Every job alive counts its
   peak: the pipeline runs within the limit, with room to spare. */
#define JOB_SURFACES 12

enum { STAGE_WRITE, STAGE_COMPUTE, STAGE_READ, STAGES }; /* the main thread writes */

typedef struct slot {
    filter_job *job;
    int stages_done; /* 0; 1 read; 2 computed (a failed job passes through with failed set) */
    int failed;
    char err[1024];
    size_t bytes; /* held from its read until it is written: JOB_SURFACES x its heights */
} slot;

typedef struct batch {
    const filter_opts *o;
    int n;
    char *const *inputs;
    char (*names)[256];
    slot *slots;
    cli_progress pg;
    lwt_context *ctx[STAGES];
    filter_log *log[STAGES];
    filter_log own_log[STAGES];
    size_t limit;    /* --max-memory (0: none) */
    /* shared by the stage threads, under mu */
    pthread_mutex_t mu;
    pthread_cond_t moved; /* a stage finished a job */
    int written;          /* jobs done with (written or failed, and freed) */
    size_t held;          /* bytes of the jobs read and not yet written */
} batch;

/* the folder name of input k, or its failure when it cannot have one of its own */
static void name_job(batch *b, int k)
{
    slot *s = &b->slots[k];
    const char *in = b->inputs[k];
    filter_stem(in, b->names[k], sizeof b->names[k]);
    for (int q = 0; q < k; q++)
        if (!strcmp(b->names[q], b->names[k])) {
            snprintf(s->err, sizeof s->err, "%s: output name '%s' is already used by %s in this batch", in,
                     b->names[k], b->inputs[q]);
            s->failed = 1;
            return;
        }
    if (!b->names[k][0] || !strcmp(b->names[k], ".") || !strcmp(b->names[k], "..")) {
        snprintf(s->err, sizeof s->err, "%s: cannot name an output folder after this file", in);
        s->failed = 1;
    } else if (!(s->job = filter_job_new(in, b->names[k]))) {
        snprintf(s->err, sizeof s->err, "%s: out of memory", in);
        s->failed = 1;
    }
}

static int read_job(batch *b, int k)
{
    slot *s = &b->slots[k];
    return filter_job_read(s->job, b->ctx[STAGE_READ], b->log[STAGE_READ], b->o, s->err, sizeof s->err);
}

/* the compute stage of job k on the thread of stage `on` (its context and log sink) */
static int compute_job(batch *b, int k, int on)
{
    slot *s = &b->slots[k];
    return filter_job_compute(s->job, b->ctx[on], b->log[on], b->o, &b->pg, s->err, sizeof s->err);
}

/* the write stage of job k (or its failure line), then the job freed */
static void finish_job(batch *b, int k)
{
    slot *s = &b->slots[k];
    if (!s->failed && filter_job_write(s->job, b->ctx[STAGE_WRITE], b->log[STAGE_WRITE], b->o, &b->pg, stdout,
                                       s->err, sizeof s->err))
        s->failed = 1;
    if (s->failed) {
        progress_clear(&b->pg);
        fprintf(stderr, "lwt filter: %s\n", s->err);
    }
    filter_job_free(s->job);
    s->job = NULL;
}

static void run_sequential(batch *b)
{
    for (int k = 0; k < b->n; k++) {
        slot *s = &b->slots[k];
        progress_file(&b->pg, k, b->names[k]);
        if (!s->failed && read_job(b, k))
            s->failed = 1;
        if (!s->failed && compute_job(b, k, STAGE_WRITE))
            s->failed = 1;
        finish_job(b, k);
    }
}

/* job k has passed its next stage (failed or not): tell the other threads */
static void pass(batch *b, int k, int failed)
{
    pthread_mutex_lock(&b->mu);
    b->slots[k].failed |= failed;
    b->slots[k].stages_done++;
    pthread_cond_broadcast(&b->moved);
    pthread_mutex_unlock(&b->mu);
}

static void wait_stages(batch *b, int k, int stages)
{
    pthread_mutex_lock(&b->mu);
    while (b->slots[k].stages_done < stages)
        pthread_cond_wait(&b->moved, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

/* The read of job k under the memory the jobs before it leave (see the top of the file). */
static int read_in_turn(batch *b, int k)
{
    pthread_mutex_lock(&b->mu);
    while (k - b->written >= PIPELINE_JOBS || (b->limit && k > b->written && b->held >= b->limit))
        pthread_cond_wait(&b->moved, &b->mu);
    const int alone = k == b->written;
    size_t share = b->limit;
    if (b->limit && !alone) {
        share = (b->limit - b->held) / JOB_SURFACES;
        share += !share; /* 0 would be "no limit" */
    }
    pthread_mutex_unlock(&b->mu);
    lwt_context_set_memory_limit(b->ctx[STAGE_READ], share);
    int rc = read_job(b, k);
    if (rc == FILTER_JOB_NO_MEMORY && !alone) { /* again, as the only job, under the whole limit */
        pthread_mutex_lock(&b->mu);
        while (b->written < k)
            pthread_cond_wait(&b->moved, &b->mu);
        pthread_mutex_unlock(&b->mu);
        lwt_context_set_memory_limit(b->ctx[STAGE_READ], b->limit);
        rc = read_job(b, k);
    }
    return rc;
}

static void *reader(void *arg)
{
    batch *b = arg;
    for (int k = 0; k < b->n; k++) {
        slot *s = &b->slots[k];
        int failed = s->failed || read_in_turn(b, k) != 0;
        if (!failed) {
            pthread_mutex_lock(&b->mu);
            s->bytes = JOB_SURFACES * sizeof(double) * filter_job_points(s->job);
            b->held += s->bytes;
            pthread_mutex_unlock(&b->mu);
        }
        pass(b, k, failed);
    }
    return NULL;
}

static void *computer(void *arg)
{
    batch *b = arg;
    for (int k = 0; k < b->n; k++) {
        slot *s = &b->slots[k];
        wait_stages(b, k, 1);
        int failed = s->failed;
        if (!failed) {
            progress_file(&b->pg, k, b->names[k]);
            failed = compute_job(b, k, STAGE_COMPUTE) != 0;
        }
        pass(b, k, failed);
    }
    return NULL;
}

/* the main thread's part of the pipeline: job k's write stage (and its compute stage too when
   there is no compute thread), then its memory given back */
static void write_in_turn(batch *b, int k, int compute_here)
{
    slot *s = &b->slots[k];
    wait_stages(b, k, compute_here ? 1 : 2);
    if (compute_here && !s->failed && compute_job(b, k, STAGE_WRITE))
        s->failed = 1;
    finish_job(b, k);
    pthread_mutex_lock(&b->mu);
    b->written++;
    b->held -= s->bytes;
    pthread_cond_broadcast(&b->moved);
    pthread_mutex_unlock(&b->mu);
}

/* 0 when done, -1 when no thread could be started (nothing done yet) */
static int run_pipelined(batch *b)
{
    pthread_t rd, cp;
    if (pthread_create(&rd, NULL, reader, b))
        return -1;
    const int computing = pthread_create(&cp, NULL, computer, b) == 0; /* else the main thread computes */
    for (int k = 0; k < b->n; k++)
        write_in_turn(b, k, !computing);
    pthread_join(rd, NULL);
    if (computing)
        pthread_join(cp, NULL);
    return 0;
}

/* a context for a stage thread with the main one's settings; NULL if none can be made */
static lwt_context *stage_context(lwt_context *main_ctx, filter_log *log, const filter_opts *o)
{
    lwt_context *c = NULL;
    if (lwt_context_create(&c) != LWT_OK)
        return NULL;
    lwt_context_set_log(c, filter_log_fn, log);
    lwt_context_set_threads(c, o->spec.threads);
    lwt_context_set_memory_limit(c, lwt_context_memory_limit(main_ctx));
    return c;
}

int filter_batch_run(lwt_context *ctx, filter_log *log, const filter_opts *o, int ninputs, char *const *inputs)
{
    batch b;
    memset(&b, 0, sizeof b);
    b.o = o;
    b.n = ninputs;
    b.inputs = inputs;
    b.limit = lwt_context_memory_limit(ctx);
    b.names = calloc((size_t)ninputs, sizeof *b.names);
    b.slots = calloc((size_t)ninputs, sizeof *b.slots);
    if (!b.names || !b.slots) {
        free(b.names);
        free(b.slots);
        fputs("lwt filter: out of memory\n", stderr);
        return LWT_EXIT_RUNTIME;
    }
    progress_init(&b.pg, ninputs);
    for (int k = 0; k < ninputs; k++)
        name_job(&b, k);
    for (int t = 0; t < STAGES; t++) {
        b.ctx[t] = ctx;
        b.log[t] = log;
    }
    int pipelined = !o->no_pipeline && ninputs > 1;
    for (int t = STAGE_WRITE + 1; pipelined && t < STAGES; t++) {
        b.log[t] = &b.own_log[t];
        pipelined = (b.ctx[t] = stage_context(ctx, b.log[t], o)) != NULL;
    }
    if (pipelined && pthread_mutex_init(&b.mu, NULL) == 0) {
        if (pthread_cond_init(&b.moved, NULL) == 0) {
            pipelined = run_pipelined(&b) == 0;
            pthread_cond_destroy(&b.moved);
        } else {
            pipelined = 0;
        }
        pthread_mutex_destroy(&b.mu);
    } else {
        pipelined = 0;
    }
    for (int t = STAGE_WRITE + 1; t < STAGES; t++) {
        if (b.ctx[t] != ctx)
            lwt_context_destroy(b.ctx[t]); /* NULL: a no-op */
        b.ctx[t] = ctx;
        b.log[t] = log;
    }
    if (!pipelined) /* asked for, or no thread to be had: the same work one job after the other */
        run_sequential(&b);
    progress_clear(&b.pg);
    int nfailed = 0;
    for (int k = 0; k < ninputs; k++)
        nfailed += b.slots[k].failed;
    if (nfailed) {
        fprintf(stderr, "lwt filter: %d of %d input%s failed:", nfailed, ninputs, ninputs == 1 ? "" : "s");
        for (int k = 0; k < ninputs; k++)
            if (b.slots[k].failed)
                fprintf(stderr, " %s", inputs[k]);
        fputc('\n', stderr);
    }
    free(b.names);
    free(b.slots);
    return nfailed ? LWT_EXIT_RUNTIME : LWT_EXIT_OK;
}
