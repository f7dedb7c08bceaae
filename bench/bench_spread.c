/*
 * lwt-bench --resident (and the end of --stream with several GPUs): device-
 * resident data spread over the GPUs (lwt_spread_*), CDF 9/7, 4 levels,
 * float32, periodization, against one GPU running the same plan in memory
 * (lwt_forward_device) and a device-to-device copy of the input, measured in
 * the same run. Wall clock around each synchronous call, median of reps after
 * one warm-up; every spread result is compared bit for bit with the one-GPU
 * result.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "harness.h"

#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>

#include "lwt_cuda.h"
#include "stream/spread_job.h"


/* what one timed call runs */
typedef enum { RUN_COPY, RUN_FWD_ONE, RUN_INV_ONE, RUN_FWD_SPREAD, RUN_INV_SPREAD } run_kind;

typedef struct bench_bufs {
    lwt_plan *plan;
    void *in, *co, *back, *ws; /* one GPU, in memory */
    lwt_spread *s;
    void *s_in, *s_co, *s_back;
    size_t in_bytes, co_bytes;
    cudaStream_t stream;
} bench_bufs;

static int run_once(bench_bufs *b, run_kind k)
{
    switch (k) {
    case RUN_COPY:
        if (cudaMemcpyAsync(b->back, b->in, b->in_bytes, cudaMemcpyDeviceToDevice, b->stream) != cudaSuccess)
            return -1;
        return cudaStreamSynchronize(b->stream) == cudaSuccess ? 0 : -1;
    case RUN_FWD_ONE:
        if (lwt_forward_device(b->plan, b->in, b->co, b->ws, b->stream))
            return -1;
        return cudaStreamSynchronize(b->stream) == cudaSuccess ? 0 : -1;
    case RUN_INV_ONE:
        if (lwt_inverse_device(b->plan, b->co, b->back, b->ws, b->stream))
            return -1;
        return cudaStreamSynchronize(b->stream) == cudaSuccess ? 0 : -1;
    case RUN_FWD_SPREAD: return lwt_spread_forward(b->s, b->s_in, b->s_co) ? -1 : 0;
    case RUN_INV_SPREAD: return lwt_spread_inverse(b->s, b->s_co, b->s_back) ? -1 : 0;
    }
    return -1;
}

typedef struct run_arg {
    bench_bufs *b;
    run_kind k;
} run_arg;

static int run_op(void *arg, void *stream)
{
    const run_arg *r = arg;
    (void)stream; /* each run synchronizes itself */
    return run_once(r->b, r->k);
}

/* median seconds of reps calls after one warm-up, or a negative value on failure */
static double time_runs(bench_bufs *b, run_kind k, int reps)
{
    run_arg a = {b, k};
    double sec;
    return bench_wall_s(run_op, &a, 1, reps < 1 ? 1 : reps > 64 ? 64 : reps, &sec) ? -1 : sec;
}

/* 1: device array a equals device array b (bytes), 0: not, -1: failure */
static int same_bytes(const void *a, const void *b, size_t bytes)
{
    char *ha = malloc(bytes), *hb = malloc(bytes);
    int r = -1;
    if (ha && hb && cudaMemcpy(ha, a, bytes, cudaMemcpyDefault) == cudaSuccess &&
        cudaMemcpy(hb, b, bytes, cudaMemcpyDefault) == cudaSuccess)
        r = !memcmp(ha, hb, bytes);
    free(ha);
    free(hb);
    return r;
}

/* where the passes of one call ran on each device (lwt_spread_timeline): three calls each way */
static int print_timeline(bench_bufs *b, int ndev)
{
    if (lwt_spread_timeline_on(b->s))
        return -1;
    for (int inv = 0; inv < 2; inv++)
        for (int call = 0; call < 3; call++) {
            if (run_once(b, inv ? RUN_INV_SPREAD : RUN_FWD_SPREAD))
                return -1;
            for (int k = 0; k < ndev; k++) {
                printf("  %s call %d, device %d, passes (ms from idle):", inv ? "inverse" : "forward", call + 1, k);
                float t0, t1;
                for (int i = 0; lwt_spread_timeline(b->s, k, i, &t0, &t1); i++)
                    printf(" %.3f-%.3f", t0, t1);
                printf("\n");
            }
        }
    fflush(stdout);
    return 0;
}

static int spread_rows(bench_bufs *b, const int *devs, int ndev, const char *label, int reps, double t_fwd1,
                       double t_inv1, int timeline)
{
    if (lwt_spread_create(b->plan, ndev, devs, &b->s) || lwt_spread_alloc(b->s, LWT_SPREAD_SAMPLES, &b->s_in) ||
        lwt_spread_alloc(b->s, LWT_SPREAD_COEFFS, &b->s_co) || lwt_spread_alloc(b->s, LWT_SPREAD_SAMPLES, &b->s_back) ||
        cudaMemcpy(b->s_in, b->in, b->in_bytes, cudaMemcpyDefault) != cudaSuccess) {
        fprintf(stderr, "lwt-bench: cannot make the spread over %s\n", label);
        lwt_spread_destroy(b->s);
        b->s = NULL;
        return -1;
    }
    const double tf = time_runs(b, RUN_FWD_SPREAD, reps);
    const int fsame = tf > 0 ? same_bytes(b->s_co, b->co, b->co_bytes) : -1;
    const double ti = time_runs(b, RUN_INV_SPREAD, reps);
    const int isame = ti > 0 ? same_bytes(b->s_back, b->back, b->in_bytes) : -1;
    printf("%-22s forward %7.3f ms (%5.2fx one GPU)  inverse %7.3f ms (%5.2fx)  %s\n", label, 1e3 * tf, t_fwd1 / tf,
           1e3 * ti, t_inv1 / ti,
           fsame == 1 && isame == 1 ? "bits = one GPU" : "RESULT DIFFERS FROM ONE GPU");
    fflush(stdout);
    if (timeline && ndev > 1 && print_timeline(b, ndev))
        fprintf(stderr, "lwt-bench: no timeline of the spread over %s\n", label);
    lwt_spread_destroy(b->s); /* frees its arrays */
    b->s = NULL;
    return tf > 0 && ti > 0 && fsame == 1 && isame == 1 ? 0 : -1;
}

/* levels: 4 prints the full table (1, 2, 4 ... GPUs and four parts on GPU 0); fewer levels
   print one line a device count, for the per-level breakdown (bench_spread) */
static int spread_size(lwt_context *ctx, int ndev, size_t n, int reps, int levels, int timeline)
{
    lwt_wavelet *w = NULL;
    bench_bufs b;
    memset(&b, 0, sizeof b);
    int rc = -1;
    if (lwt_wavelet_create(ctx, "cdf97", &w))
        return -1;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = d.shape[1] = n;
    d.levels = levels;
    d.mode = LWT_MODE_PERIODIZATION;
    d.dtype = LWT_F32;
    d.backend = LWT_BACKEND_CUDA;
    d.device = 0;
    size_t wsb = 0;
    lwt_plan_info info;
    if (lwt_plan_create(ctx, &d, &b.plan) || lwt_plan_get_info(b.plan, &info) ||
        lwt_plan_device_workspace_size(b.plan, &wsb))
        goto out;
    b.in_bytes = info.input_count * 4;
    b.co_bytes = info.coeff_count * 4;
    cudaSetDevice(0);
    if (cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking) || cudaMalloc(&b.in, b.in_bytes) ||
        cudaMalloc(&b.co, b.co_bytes) || cudaMalloc(&b.back, b.in_bytes) || cudaMalloc(&b.ws, wsb ? wsb : 1))
        goto out;
    {
        float *h = malloc(b.in_bytes);
        if (!h)
            goto out;
        unsigned s = 777;
        for (size_t i = 0; i < info.input_count; i++) {
            s = s * 1664525u + 1013904223u;
            h[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
        }
        const int e = cudaMemcpy(b.in, h, b.in_bytes, cudaMemcpyHostToDevice) != cudaSuccess;
        free(h);
        if (e)
            goto out;
    }
    printf("\n== device-resident %zu^2 CDF 9/7, %d level%s, float32, periodization: spread over GPUs "
           "(lwt_spread_*), median of %d\n",
           n, levels, levels > 1 ? "s" : "", reps);
    const double tc = time_runs(&b, RUN_COPY, reps);
    const double tf1 = time_runs(&b, RUN_FWD_ONE, reps);
    const double ti1 = time_runs(&b, RUN_INV_ONE, reps); /* leaves back = the one-GPU inverse */
    if (tc <= 0 || tf1 <= 0 || ti1 <= 0)
        goto out;
    printf("device copy of the input   %7.3f ms (%.0f GB/s read + write)\n", 1e3 * tc, 2e-9 * b.in_bytes / tc);
    printf("one GPU, in memory         forward %7.3f ms (%.2fx copy)  inverse %7.3f ms (%.2fx copy)\n", 1e3 * tf1,
           tf1 / tc, 1e3 * ti1, ti1 / tc);
    int devs[16];
    char label[64];
    /* 1, 2, 4, ... GPUs below the machine's count, then all of them */
    int gs[8], ng = 0;
    for (int g = 1; g < ndev && ng < 7; g *= 2)
        gs[ng++] = g;
    gs[ng++] = ndev < 16 ? ndev : 16;
    for (int i = 0; i < ng; i++) {
        for (int k = 0; k < gs[i]; k++)
            devs[k] = k;
        snprintf(label, sizeof label, "spread over %d GPU%s", gs[i], gs[i] > 1 ? "s" : "");
        if (spread_rows(&b, devs, gs[i], label, reps, tf1, ti1, timeline))
            goto out;
    }
    /* the same two GPUs the other way round: whether a slower share follows its place in the
       rows or its GPU */
    if (timeline && ndev == 2) {
        devs[0] = 1;
        devs[1] = 0;
        if (spread_rows(&b, devs, 2, "spread over GPUs 1, 0", reps, tf1, ti1, 1))
            goto out;
    }
    /* the split's own cost: four parts on one GPU */
    for (int k = 0; k < 4; k++)
        devs[k] = 0;
    if (levels == 4 && spread_rows(&b, devs, 4, "4 parts on GPU 0", reps, tf1, ti1, 0))
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "lwt-bench: the device-resident %zu^2 run failed\n", n);
    cudaSetDevice(0);
    cudaFree(b.in);
    cudaFree(b.co);
    cudaFree(b.back);
    cudaFree(b.ws);
    if (b.stream)
        cudaStreamDestroy(b.stream);
    lwt_plan_destroy(b.plan);
    lwt_wavelet_destroy(w);
    return rc;
}

int bench_spread(lwt_context *ctx, int reps, size_t n16, int levels_breakdown)
{
    const int ndev = lwt_context_device_count(ctx);
    if (spread_size(ctx, ndev, n16, reps, 4, 0) || spread_size(ctx, ndev, 2 * n16, reps, 4, levels_breakdown))
        return BENCH_EXIT_RUNTIME;
    /* where the time of several GPUs goes, level by level (issue 28 item 4): the same
       2n16^2 array with 1, 2 and 3 levels; a level's cost is the difference of two tables;
       and (above) each pass of the 4 levels on each device */
    for (int levels = 1; levels_breakdown && ndev > 1 && levels < 4; levels++)
        if (spread_size(ctx, ndev, 2 * n16, reps, levels, 0))
            return BENCH_EXIT_RUNTIME;
    return BENCH_EXIT_OK;
}
#endif
