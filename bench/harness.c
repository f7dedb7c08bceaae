/* The benchmark's harness (harness.h): clocks, medians, the copy floor, buffers, tables. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static void log_stderr(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    if (level >= LWT_LOG_WARNING)
        fprintf(stderr, "lwt-bench: %s%s\n", level == LWT_LOG_WARNING ? "warning: " : "", msg);
}

lwt_context *bench_context(void)
{
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK) {
        fprintf(stderr, "lwt-bench: out of memory\n");
        return NULL;
    }
    lwt_context_set_log(ctx, log_stderr, NULL);
    return ctx;
}

void bench_device_name(char *buf, size_t size)
{
    snprintf(buf, size, "CPU");
#ifdef LWT_HAVE_CUDA
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(buf, size, "%s", prop.name);
#endif
}

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* the times of one timed run: CUDA events around the queued work, or the clock around the call */
typedef struct bench_clock {
#ifdef LWT_HAVE_CUDA
    cudaEvent_t e0, e1;
#endif
    double t0;
    int events; /* 1: time with the events on the stream */
} bench_clock;

static int clock_init(bench_clock *c, int events)
{
    memset(c, 0, sizeof *c);
#ifdef LWT_HAVE_CUDA
    c->events = events;
    if (events && (cudaEventCreate(&c->e0) != cudaSuccess || cudaEventCreate(&c->e1) != cudaSuccess))
        return -1;
#else
    (void)events;
#endif
    return 0;
}

static void clock_free(bench_clock *c)
{
#ifdef LWT_HAVE_CUDA
    if (c->e0)
        cudaEventDestroy(c->e0);
    if (c->e1)
        cudaEventDestroy(c->e1);
#else
    (void)c;
#endif
}

static int clock_start(bench_clock *c, void *stream)
{
#ifdef LWT_HAVE_CUDA
    if (c->events)
        return cudaEventRecord(c->e0, (cudaStream_t)stream) == cudaSuccess ? 0 : -1;
#endif
    (void)stream;
    c->t0 = bench_now_s();
    return 0;
}

/* milliseconds since clock_start, the queued work finished */
static int clock_stop(bench_clock *c, void *stream, double *ms)
{
#ifdef LWT_HAVE_CUDA
    if (c->events) {
        float t = 0;
        if (cudaEventRecord(c->e1, (cudaStream_t)stream) != cudaSuccess || cudaEventSynchronize(c->e1) != cudaSuccess ||
            cudaEventElapsedTime(&t, c->e0, c->e1) != cudaSuccess)
            return -1;
        *ms = t;
        return 0;
    }
#endif
    (void)stream;
    *ms = 1e3 * (bench_now_s() - c->t0);
    return 0;
}

static int time_with(bench_op op, void *arg, void *stream, int events, int warmup, int reps, double *ms)
{
    double *t = calloc((size_t)(reps > 0 ? reps : 1), sizeof *t);
    bench_clock c;
    int ok = t && reps > 0 && clock_init(&c, events) == 0;
    for (int r = -warmup; ok && r < reps; r++) {
        double one = 0;
        ok = clock_start(&c, stream) == 0 && op(arg, stream) == 0 && clock_stop(&c, stream, &one) == 0;
        if (ok && r >= 0)
            t[r] = one;
    }
    if (ok)
        *ms = bench_median(t, reps);
    if (t && reps > 0)
        clock_free(&c);
    free(t);
    return ok ? 0 : -1;
}

int bench_time_ms(bench_op op, void *arg, void *stream, int warmup, int reps, double *ms)
{
    return time_with(op, arg, stream, 1, warmup, reps, ms);
}

int bench_wall_s(bench_op op, void *arg, int warmup, int reps, double *sec)
{
    double ms = 0;
    if (time_with(op, arg, NULL, 0, warmup, reps, &ms))
        return -1;
    *sec = 1e-3 * ms;
    return 0;
}

typedef struct copy_arg {
    void *dst;
    const void *src;
    size_t bytes;
} copy_arg;

static int copy_op(void *arg, void *stream)
{
    const copy_arg *a = arg;
#ifdef LWT_HAVE_CUDA
    return cudaMemcpyAsync(a->dst, a->src, a->bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream) == cudaSuccess
               ? 0
               : -1;
#else
    (void)stream;
    memcpy(a->dst, a->src, a->bytes);
    return 0;
#endif
}

int bench_copy_ms(void *dst, const void *src, size_t bytes, void *stream, int warmup, int reps, double *ms)
{
    copy_arg a = {dst, src, bytes};
    return bench_time_ms(copy_op, &a, stream, warmup, reps, ms);
}

void *bench_alloc(size_t bytes, int byte)
{
    void *p = NULL;
    if (!bytes)
        bytes = 1;
#ifdef LWT_HAVE_CUDA
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        return NULL;
    if (cudaMemset(p, byte, bytes) != cudaSuccess) {
        cudaFree(p);
        return NULL;
    }
#else
    p = malloc(bytes);
    if (p)
        memset(p, byte, bytes);
#endif
    return p;
}

void bench_free(void *p)
{
#ifdef LWT_HAVE_CUDA
    cudaFree(p);
#else
    free(p);
#endif
}

int bench_stream_create(void **stream)
{
    *stream = NULL;
#ifdef LWT_HAVE_CUDA
    cudaStream_t s = NULL;
    if (cudaStreamCreate(&s) != cudaSuccess)
        return -1;
    *stream = s;
#endif
    return 0;
}

void bench_stream_destroy(void *stream)
{
#ifdef LWT_HAVE_CUDA
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
#else
    (void)stream;
#endif
}

void bench_table_header(const bench_col *cols, int n)
{
    for (int i = 0; i < n; i++)
        printf("%s%*s", i ? " " : "", cols[i].width, cols[i].name);
    printf("\n");
}

void bench_table_row(const bench_col *cols, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const int w = cols[i].width;
        if (i)
            printf(" ");
        switch (cols[i].kind) {
        case 's': printf("%*s", w, va_arg(ap, const char *)); break;
        case 'd': printf("%*d", w, va_arg(ap, int)); break;
        case 'z': printf("%*zu", w, va_arg(ap, size_t)); break;
        default: printf("%*.*f", w, cols[i].prec, va_arg(ap, double)); break;
        }
    }
    va_end(ap);
    printf("\n");
    fflush(stdout);
}
