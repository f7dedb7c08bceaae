/*
 * test_stream_alloc: an allocation that fails anywhere in a streamed run ends in a clean error
 * (issue 29 item 6). The test binary defines malloc, calloc, realloc and free itself (the
 * executable's definitions take the place of libc's for every caller in the process, liblwt's
 * included) and, while armed, makes the n-th allocation fail, for n = 1, 2, ... until a run
 * needs fewer: streamer creation, forward and inverse calls of a CPU worker on 1-D, 2-D (fused
 * levels) and 3-D plans. Every run must return (no crash) either LWT_ERR_OUT_OF_MEMORY or, where
 * the engine recovers (a chunk that cannot get its buffers is split and run again), success with
 * the bits of an unarmed run; and free everything it allocated while armed once the streamer is
 * destroyed (no leak). One OpenMP thread and a warm-up call first,
 * so that the OpenMP runtime's own allocations (it aborts when they fail) are made unarmed.
 * Under AddressSanitizer, which owns malloc, it skips.
 */
#ifdef TRACE_REFUSED
#include <execinfo.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "stream_setup.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifndef UNDER_ASAN
/* glibc's own allocator under its internal names */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static long countdown;   /* armed when > 0: the allocation that brings it to 0 fails */
static long fired;       /* how many allocations were refused */
#define LIVE_MAX 65536
static void *live[LIVE_MAX]; /* what was allocated while armed and is not yet freed */
static long nlive, live_overflow;
static long recovered; /* refusals the engine recovered from (same bits) */

static int armed(void)
{
    return countdown > 0;
}

/* 1: this allocation fails */
static int refuse(void)
{
    if (!armed())
        return 0;
    if (--countdown == 0) {
        fired++;
#ifdef TRACE_REFUSED
        void *bt[16];
        backtrace_symbols_fd(bt, backtrace(bt, 16), 2);
#endif
        return 1;
    }
    return 0;
}

static void track(void *p)
{
    if (!p || !armed())
        return;
    if (nlive < LIVE_MAX)
        live[nlive++] = p;
    else
        live_overflow++;
}

static void untrack(void *p)
{
    for (long i = nlive - 1; p && i >= 0; i--)
        if (live[i] == p) {
            live[i] = live[--nlive];
            return;
        }
}

void *malloc(size_t n)
{
    if (refuse())
        return NULL;
    void *p = __libc_malloc(n);
    track(p);
    return p;
}

void *calloc(size_t n, size_t m)
{
    if (refuse())
        return NULL;
    void *p = __libc_calloc(n, m);
    track(p);
    return p;
}

void *realloc(void *old, size_t n)
{
    if (refuse())
        return NULL;
    void *p = __libc_realloc(old, n);
    if (p) {
        untrack(old);
        track(p);
    }
    return p;
}

void free(void *p)
{
    untrack(p);
    __libc_free(p);
}

static int failures;

/* one streamed run of plan p with the n-th allocation failing (n = 0: none); returns its
   status, checks the outcome: out of memory, or (where the engine recovers: a chunk that could
   not get its buffers is split and run again) the bits of ref (out_bytes; NULL: not checked) */
static lwt_status run(const lwt_plan *p, const stream_setup *su, const void *in, void *out, int inverse, long n,
                      const char *what, const void *ref, size_t out_bytes)
{
    if (ref)
        memset(out, 0x7f, out_bytes);
    nlive = live_overflow = 0;
    fired = 0;
    countdown = n;
    const lwt_status st = stream_tuned_call(p, su, in, out, NULL, inverse);
    const long hit = fired;
    countdown = 0;
    if (hit && st != LWT_ERR_OUT_OF_MEMORY && st != LWT_OK) {
        failures++;
        fprintf(stderr, "FAIL %s: allocation %ld refused, the call returned %s\n", what, n, lwt_status_string(st));
    }
    if (hit && st == LWT_OK && ref && memcmp(out, ref, out_bytes)) {
        failures++;
        fprintf(stderr, "FAIL %s: allocation %ld refused, the call succeeded with other bits\n", what, n);
    }
    recovered += hit && st == LWT_OK;
    if (!hit && st != LWT_OK) {
        failures++;
        fprintf(stderr, "FAIL %s: no allocation refused, the call returned %s\n", what, lwt_status_string(st));
    }
    if (nlive || live_overflow) {
        failures++;
        fprintf(stderr, "FAIL %s: allocation %ld refused: %ld allocations left unfreed\n", what, n,
                nlive + live_overflow);
    }
    return hit ? st : LWT_OK;
}

/* every allocation of one case refused in turn; returns how many the case makes */
static long sweep(lwt_context *ctx, const char *wname, int ndim, const size_t *shape, int levels, size_t chunk_rows,
                  int workers, const char *what)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    lwt_plan_desc d = lwt_plan_desc_default();
    if (lwt_wavelet_create(ctx, wname, &w)) {
        failures++;
        return 0;
    }
    d.wavelet = w;
    d.ndim = ndim;
    for (int k = 0; k < ndim; k++)
        d.shape[k] = shape[k];
    d.levels = levels;
    d.mode = LWT_MODE_SYMMETRIC;
    d.backend = LWT_BACKEND_CPU;
    lwt_plan_info info;
    if (lwt_plan_create(ctx, &d, &p) || lwt_plan_get_info(p, &info)) {
        failures++;
        lwt_wavelet_destroy(w);
        return 0;
    }
    stream_setup su;
    su.d = lwt_stream_desc_default();
    su.t = lwt_stream_tuning_default();
    su.d.chunk_rows = chunk_rows;
    su.d.nworkers = workers;
    for (int k = 0; k < workers; k++)
        su.d.workers[k].threads = 1;
    double *x = __libc_calloc(info.input_count, sizeof *x), *c = __libc_calloc(info.coeff_count, sizeof *c);
    for (size_t i = 0; i < info.input_count; i++)
        x[i] = (double)((i * 2654435761u) % 1009) / 1009.0;
    /* the references, unarmed (a warm-up too: the OpenMP runtime's allocations) */
    const size_t nx = info.input_count * sizeof *x, nc = info.coeff_count * sizeof *c;
    double *c_ref = __libc_malloc(nc), *y_ref = __libc_malloc(nx), *y = __libc_malloc(nx);
    run(p, &su, x, c_ref, 0, 0, what, NULL, 0);
    run(p, &su, c_ref, y_ref, 1, 0, what, NULL, 0);
    long n = 1, made = 0;
    for (int inverse = 0; inverse < 2; inverse++) {
        for (n = 1; n < 100000; n++) {
            char label[160];
            snprintf(label, sizeof label, "%s %s", what, inverse ? "inverse" : "forward");
            if (run(p, &su, inverse ? c_ref : x, inverse ? (void *)y : c, inverse, n, label, inverse ? y_ref : c_ref,
                    inverse ? nx : nc) == LWT_OK && !fired)
                break; /* the run made fewer than n allocations */
        }
        made += n - 1;
    }
    __libc_free(c_ref);
    __libc_free(y_ref);
    __libc_free(y);
    __libc_free(x);
    __libc_free(c);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    return made;
}

static void quiet(void *user, lwt_log_level level, const char *message)
{
    (void)user;
    (void)level;
    if (getenv("LWT_TEST_VERBOSE"))
        fprintf(stderr, "  log: %s\n", message);
}

int main(void)
{
    lwt_context *ctx = NULL;
    lwt_context_create(&ctx);
    lwt_context_set_log(ctx, quiet, NULL);
    lwt_context_set_threads(ctx, 1);
    const size_t s1[1] = {4099}, s2[2] = {67, 53}, s3[3] = {13, 11, 9};
    long total = 0;
    total += sweep(ctx, "db4", 1, s1, 4, 700, 1, "1-D db4");
    total += sweep(ctx, "cdf97", 2, s2, 3, 9, 1, "2-D cdf97");
    total += sweep(ctx, "sym3", 3, s3, 2, 4, 1, "3-D sym3");
    /* not two workers: they run in threads the engine starts per level, and the OpenMP runtime
       aborts the process when its own per-thread allocation there fails */
    lwt_context_destroy(ctx);
    printf("test_stream_alloc: %ld allocations refused one at a time (%ld recovered with the same bits), %d "
           "failures\n", total, recovered, failures);
    return failures ? 1 : 0;
}

#else
int main(void)
{
    printf("test_stream_alloc: skipped under AddressSanitizer (it owns malloc)\n");
    return 77;
}
#endif
