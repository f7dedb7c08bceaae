/*
 * lwt-bench --filter N: the GPU surface filter (lwt_filter_run, as lwt filter runs it) and the
 * band splitter alone (lwt_splitter_run) on a synthetic N x N milled surface, CDF 9/7, 6 levels,
 * mode symmetric, host data in and out, against the bus floor for the same bytes measured in
 * the same run (issue 5's speed measurement; seed 000's Table 4 for 12288^2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "harness.h"

#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>

#include "surface/filter.h"
#include "surface/split.h"
#include "surface/synth.h"

/* ms of `bytes` up (H2D) and 3 x `bytes` down (D2H) between pinned host and device buffers:
 * one after the other (seq) and issued at once on two streams (both). Median of 5. */
static int bus_floor(const void *h_in, void *const h_out[3], size_t bytes, double *seq, double *both)
{
    void *d_in = NULL, *d_out = NULL;
    cudaStream_t s1 = NULL, s2 = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;
    double ts[5], tb[5];
    int ok = 0;
    if (cudaMalloc(&d_in, bytes) || cudaMalloc(&d_out, bytes) || cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) ||
        cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) || cudaEventCreate(&e0) || cudaEventCreate(&e1) ||
        cudaEventCreate(&e2) || cudaMemset(d_out, 0, bytes))
        goto out;
    for (int r = -1; r < 5; r++) {
        if (cudaDeviceSynchronize())
            goto out;
        /* sequential: s1 only */
        if (cudaEventRecord(e0, s1) || cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s1))
            goto out;
        for (int b = 0; b < 3; b++)
            if (cudaMemcpyAsync(h_out[b], d_out, bytes, cudaMemcpyDeviceToHost, s1))
                goto out;
        if (cudaEventRecord(e1, s1) || cudaEventSynchronize(e1))
            goto out;
        float t = 0;
        if (cudaEventElapsedTime(&t, e0, e1))
            goto out;
        if (r >= 0)
            ts[r] = t;
        /* at once: the upload on s1, the downloads on s2 */
        if (cudaEventRecord(e0, s1) || cudaStreamWaitEvent(s2, e0, 0) ||
            cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s1))
            goto out;
        for (int b = 0; b < 3; b++)
            if (cudaMemcpyAsync(h_out[b], d_out, bytes, cudaMemcpyDeviceToHost, s2))
                goto out;
        if (cudaEventRecord(e2, s2) || cudaStreamWaitEvent(s1, e2, 0) || cudaEventRecord(e1, s1) ||
            cudaEventSynchronize(e1) || cudaEventElapsedTime(&t, e0, e1))
            goto out;
        if (r >= 0)
            tb[r] = t;
    }
    *seq = bench_median(ts, 5);
    *both = bench_median(tb, 5);
    ok = 1;
out:
    cudaFree(d_in);
    cudaFree(d_out);
    if (s1) cudaStreamDestroy(s1);
    if (s2) cudaStreamDestroy(s2);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (e2) cudaEventDestroy(e2);
    (void)cudaGetLastError();
    return ok ? 0 : -1;
}

/* median ms (of 5 after a warm-up) of lwt_splitter_run; chunk_rows as in lwt_filter_spec */
static int time_split(lwt_context *ctx, const lwt_filter_spec *base, size_t chunk_rows, size_t n, const void *in,
                      void *const band[LWT_BAND_COUNT], double *ms, int *chunks)
{
    lwt_filter_spec spec = *base;
    spec.chunk_rows = chunk_rows;
    lwt_splitter *s = NULL;
    /* failures: the context's log sink has printed the reason (bench_context) */
    lwt_status st = lwt_splitter_create(ctx, &spec, n, n, &s);
    if (st != LWT_OK) {
        fprintf(stderr, "lwt-bench: splitter: %s\n", lwt_status_string(st));
        return -1;
    }
    lwt_splitter_info info;
    lwt_splitter_get_info(s, &info);
    *chunks = info.chunks;
    double t[5];
    for (int r = -1; r < 5; r++) {
        lwt_split_times tm;
        if ((st = lwt_splitter_run(s, in, band, &tm)) != LWT_OK) {
            fprintf(stderr, "lwt-bench: split: %s\n", lwt_status_string(st));
            lwt_splitter_destroy(s);
            return -1;
        }
        if (r >= 0)
            t[r] = tm.total;
    }
    lwt_splitter_destroy(s);
    *ms = bench_median(t, 5);
    return 0;
}

/*
 * The split alone on data kept in float32 end to end, as the seed's case study does (FP32):
 * the filled surface in pinned host memory, forward + three inverse reconstructions with the
 * uploads and downloads (lwt_splitter_run), pipelined row chunks and one chunk, against the
 * bus floor for the same bytes measured in the same run.
 */
static int bench_split(lwt_context *ctx, const lwt_filter_spec *base, const double *z, size_t n)
{
    lwt_filter_spec spec = *base;
    spec.dtype = LWT_F32;
    const size_t bytes = n * n * sizeof(float);
    float *in = NULL;
    void *band[LWT_BAND_COUNT] = {0}, *one[LWT_BAND_COUNT] = {0};
    int rc = BENCH_EXIT_RUNTIME, ok = cudaHostAlloc((void **)&in, bytes, cudaHostAllocDefault) == cudaSuccess;
    for (int b = 0; b < 3; b++)
        ok = ok && cudaHostAlloc(&band[b], bytes, cudaHostAllocDefault) == cudaSuccess &&
             cudaHostAlloc(&one[b], bytes, cudaHostAllocDefault) == cudaSuccess;
    if (!ok) {
        fprintf(stderr, "lwt-bench: cannot allocate %.1f GB of pinned host memory\n", 7.0 * bytes / 1e9);
        goto out;
    }
    for (size_t i = 0; i < n * n; i++)
        in[i] = (float)z[i];
    /* chunk rows: automatic (0), then two fixed sizes for comparison */
    const size_t rows[3] = {0, n / 16, n / 4};
    double t_pipe[3] = {0}, t_one = 0, seq = 0, both = 0;
    int k_pipe[3] = {0}, k_one = 0, same = 1;
    if (time_split(ctx, &spec, LWT_SPLIT_ONE_CHUNK, n, in, one, &t_one, &k_one))
        goto out;
    for (int r = 0; r < 3; r++) {
        if (time_split(ctx, &spec, rows[r], n, in, band, &t_pipe[r], &k_pipe[r]))
            goto out;
        for (int b = 0; b < 3; b++)
            same = same && !memcmp(band[b], one[b], bytes);
    }
    if (bus_floor(in, band, bytes, &seq, &both)) /* (overwrites band) */
        goto out;
    printf("split %zux%zu float32 cdf97 6 levels symmetric, cuda, pinned host float32 in and out (forward + 3 inverse,"
           " transfers included; median of 5):\n"
           "  pipelined: %d row chunks (automatic) %.1f ms, %d chunks %.1f ms, %d chunks %.1f ms; one chunk %.1f ms;"
           " same bits as one chunk: %s\n"
           "  bus floor for 1 x %.2f GB up and 3 x %.2f GB down: %.1f ms at once, %.1f ms one after the other;"
           " automatic pipeline / floor at once = %.2f\n"
           "  seed 000 Table 4, 12288^2 FP32 on several GPUs: 786-832 ms, 1/20 = 39.3-41.6 ms\n",
           n, n, k_pipe[0], t_pipe[0], k_pipe[1], t_pipe[1], k_pipe[2], t_pipe[2], t_one, same ? "yes" : "NO",
           bytes / 1e9, bytes / 1e9, both, seq, t_pipe[0] / both);
    rc = same ? BENCH_EXIT_OK : BENCH_EXIT_RUNTIME;
out:
    cudaFreeHost(in);
    for (int b = 0; b < 3; b++) {
        cudaFreeHost(band[b]);
        cudaFreeHost(one[b]);
    }
    return rc;
}

/*
 * --filter N: issue 5's speed measurement. A synthetic N x N milled surface
 * filtered with CDF 9/7, 6 levels, mode symmetric, on the GPU: fill +
 * forward + the three inverse reconstructions, host data in and out
 * (transfers included), as lwt filter does it. Median of 3 runs after a
 * warm-up; the seed's multi-GPU time for 12288^2 is 748-832 ms (Table 4).
 */
int bench_filter(lwt_context *ctx, size_t n, int f64)
{
    lwt_synth_desc sd;
    double *z = malloc(n * n * sizeof *z);
    if (!z || lwt_synth_preset("milled", n, n, 1e-6, 1e-6, 1, &sd) || lwt_synth_generate(&sd, z, NULL, NULL, NULL)) {
        fprintf(stderr, "lwt-bench: cannot make the %zux%zu surface\n", n, n);
        free(z);
        return BENCH_EXIT_RUNTIME;
    }
    lwt_filter_spec spec = lwt_filter_spec_default();
    spec.backend = LWT_BACKEND_CUDA;
    spec.dtype = f64 ? LWT_F64 : LWT_F32;
    lwt_band_request req = {0};
    req.levels = 6;
    req.rough_lo = 1;
    req.rough_hi = 3;
    req.wavy_lo = 4;
    req.wavy_hi = 6;
    /* failures: the context's log sink has printed the reason (bench_context) */
    if (lwt_bands_resolve(ctx, &req, n, n, 1e-6, 1e-6, &spec.split) != LWT_OK) {
        free(z);
        return BENCH_EXIT_RUNTIME;
    }
    double tr[4], tot[4], all[4];
    for (int r = 0; r < 4; r++) {
        lwt_filter_result res;
        lwt_status st = lwt_filter_run(ctx, &spec, z, n, n, 1e-6, 1e-6, &res);
        if (st != LWT_OK) {
            fprintf(stderr, "lwt-bench: filter failed: %s\n", lwt_status_string(st));
            free(z);
            return BENCH_EXIT_RUNTIME;
        }
        tr[r] = res.ms_transform;
        tot[r] = res.ms_fill + res.ms_transform;
        all[r] = res.ms_total; /* + plan, device and pinned buffers */
        lwt_filter_result_free(&res);
    }
    /* median of runs 1..3 (run 0 warms up) */
    printf("filter %zux%zu %s cdf97 6 levels symmetric, cuda, host data: forward + 3 inverse %.1f ms, "
           "fill+forward+3 inverse %.1f ms (seed: 748-832 ms; 1/20 = 37-42 ms); whole call with plan and "
           "allocation %.1f ms\n",
           n, n, f64 ? "float64" : "float32", bench_median(tr + 1, 3), bench_median(tot + 1, 3),
           bench_median(all + 1, 3));
    int rc = bench_split(ctx, &spec, z, n);
    free(z);
    return rc;
}
#endif
