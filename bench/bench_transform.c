/*
 * lwt bench: GPU timing table. For each wavelet x mode x size x levels x
 * direction (x sliding-window threads and strip width, x lifting variant
 * classic / improved of the register kernel, when swept): median of
 * --reps warm runs timed with CUDA events on device buffers, Gpixel/s, and
 * the ratio to a device-to-device copy of the same input array measured in
 * the same run (the floor: one read and one write). --ndim 3 times N^3
 * volumes, --ndim 1 N rows of N samples (a batch of 1-D transforms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "harness.h"

#ifndef LWT_HAVE_CUDA
int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "lwt bench: this build has no CUDA backend\n");
    return LWT_EXIT_RUNTIME;
}
#else
#include <cuda_runtime.h>

#include "lwt_cuda.h"
#include "surface/filter.h"
#include "surface/split.h"
#include "surface/synth.h"

int bench_stream(lwt_context *ctx, int reps, double big_gib, double slow, size_t n16, int resident_only);

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* ms of `bytes` up (H2D) and 3 x `bytes` down (D2H) between pinned host and device buffers:
 * one after the other (seq) and issued at once on two streams (both). Median of 5. */
static int bus_floor(const void *h_in, void *const h_out[3], size_t bytes, float *seq, float *both)
{
    void *d_in = NULL, *d_out = NULL;
    cudaStream_t s1 = NULL, s2 = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;
    float ts[5], tb[5];
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
    qsort(ts, 5, sizeof(float), cmp_float);
    qsort(tb, 5, sizeof(float), cmp_float);
    *seq = ts[2];
    *both = tb[2];
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
                      void *const band[LWT_BAND_COUNT], float *ms, int *chunks)
{
    lwt_filter_spec spec = *base;
    spec.chunk_rows = chunk_rows;
    lwt_splitter *s = NULL;
    char err[256];
    if (lwt_splitter_create(ctx, &spec, n, n, &s, err, sizeof err) != LWT_OK) {
        fprintf(stderr, "lwt bench: splitter: %s\n", err);
        return -1;
    }
    lwt_splitter_info info;
    lwt_splitter_get_info(s, &info);
    *chunks = info.chunks;
    float t[5];
    for (int r = -1; r < 5; r++) {
        lwt_split_times tm;
        if (lwt_splitter_run(s, in, band, &tm, err, sizeof err) != LWT_OK) {
            fprintf(stderr, "lwt bench: split: %s\n", err);
            lwt_splitter_destroy(s);
            return -1;
        }
        if (r >= 0)
            t[r] = (float)tm.total;
    }
    lwt_splitter_destroy(s);
    qsort(t, 5, sizeof(float), cmp_float);
    *ms = t[2];
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
    int rc = LWT_EXIT_RUNTIME, ok = cudaHostAlloc((void **)&in, bytes, cudaHostAllocDefault) == cudaSuccess;
    for (int b = 0; b < 3; b++)
        ok = ok && cudaHostAlloc(&band[b], bytes, cudaHostAllocDefault) == cudaSuccess &&
             cudaHostAlloc(&one[b], bytes, cudaHostAllocDefault) == cudaSuccess;
    if (!ok) {
        fprintf(stderr, "lwt bench: cannot allocate %.1f GB of pinned host memory\n", 7.0 * bytes / 1e9);
        goto out;
    }
    for (size_t i = 0; i < n * n; i++)
        in[i] = (float)z[i];
    /* chunk rows: automatic (0), then two fixed sizes for comparison */
    const size_t rows[3] = {0, n / 16, n / 4};
    float t_pipe[3] = {0}, t_one = 0, seq = 0, both = 0;
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
    rc = same ? LWT_EXIT_OK : LWT_EXIT_RUNTIME;
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
static int bench_filter(lwt_context *ctx, size_t n, int f64)
{
    lwt_synth_desc sd;
    double *z = malloc(n * n * sizeof *z);
    if (!z || lwt_synth_preset("milled", n, n, 1e-6, 1e-6, 1, &sd) || lwt_synth_generate(&sd, z, NULL, NULL, NULL)) {
        fprintf(stderr, "lwt bench: cannot make the %zux%zu surface\n", n, n);
        free(z);
        return LWT_EXIT_RUNTIME;
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
    char err[256];
    if (lwt_bands_resolve(&req, n, n, 1e-6, 1e-6, &spec.split, err, sizeof err)) {
        fprintf(stderr, "lwt bench: %s\n", err);
        free(z);
        return LWT_EXIT_RUNTIME;
    }
    float fwd[4], inv[4], tot[4], all[4];
    for (int r = 0; r < 4; r++) {
        lwt_filter_result res;
        if (lwt_filter_run(ctx, &spec, z, n, n, 1e-6, 1e-6, &res, err, sizeof err) != LWT_OK) {
            fprintf(stderr, "lwt bench: filter failed: %s\n", err);
            free(z);
            return LWT_EXIT_RUNTIME;
        }
        fwd[r] = (float)res.ms_forward;
        inv[r] = (float)(res.ms_inverse[0] + res.ms_inverse[1] + res.ms_inverse[2]);
        tot[r] = (float)(res.ms_fill + res.ms_forward + inv[r]);
        all[r] = (float)res.ms_total; /* + plan, device and pinned buffers */
        lwt_filter_result_free(&res);
    }
    /* median of runs 1..3 (run 0 warms up) */
    qsort(fwd + 1, 3, sizeof(float), cmp_float);
    qsort(inv + 1, 3, sizeof(float), cmp_float);
    qsort(tot + 1, 3, sizeof(float), cmp_float);
    qsort(all + 1, 3, sizeof(float), cmp_float);
    printf("filter %zux%zu %s cdf97 6 levels symmetric, cuda, host data: forward %.1f ms, 3 inverse %.1f ms, "
           "fill+forward+3 inverse %.1f ms (seed: 748-832 ms; 1/20 = 37-42 ms); whole call with plan and "
           "allocation %.1f ms\n",
           n, n, f64 ? "float64" : "float32", fwd[2], inv[2], tot[2], all[2]);
    int rc = bench_split(ctx, &spec, z, n);
    free(z);
    return rc;
}

#define CUDA_OK(call)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "lwt bench: CUDA error %s in %s\n", cudaGetErrorName(e_), #call); \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

/* median milliseconds of reps runs of one operation (0: copy, 1: forward, 2: inverse) */
static int time_op(int op, const lwt_plan *p, void *a, void *b, size_t copy_bytes, void *ws, int reps,
                   cudaStream_t s, float *median)
{
    float *t = calloc((size_t)reps, sizeof *t);
    cudaEvent_t e0 = NULL, e1 = NULL;
    int ok = 0;
    if (!t)
        return -1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    for (int r = -3; r < reps; r++) { /* 3 warm-up runs */
        CUDA_OK(cudaEventRecord(e0, s));
        lwt_status st = LWT_OK;
        if (op == 0)
            CUDA_OK(cudaMemcpyAsync(b, a, copy_bytes, cudaMemcpyDeviceToDevice, s));
        else if (op == 1)
            st = lwt_forward_device(p, a, b, ws, s);
        else
            st = lwt_inverse_device(p, b, a, ws, s);
        if (st != LWT_OK)
            goto fail;
        CUDA_OK(cudaEventRecord(e1, s));
        CUDA_OK(cudaEventSynchronize(e1));
        if (r >= 0)
            CUDA_OK(cudaEventElapsedTime(&t[r], e0, e1));
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_float);
    *median = t[reps / 2];
    ok = 1;
fail:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(t);
    return ok ? 0 : -1;
}

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = tok;
    return n;
}

int cmd_bench(int argc, char **argv)
{
    char wl[512] = "haar,db2,cdf53,cdf97,db10", ml[256] = "periodization,symmetric", sl[256] = "4096,16384";
    char tl[128] = "0", cl[128] = "0", ll[64] = "auto";
    int levels = 4, reps = 20, f64 = 0, seed = 0, ndim = 2, fuse = 0;
    lwt_algorithm algo = LWT_ALGO_AUTO;
    size_t filter_n = 0, stream_n = 16384;
    int stream = 0, stream_reps = 5;
    double big_gib = 0, slow = 2.0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "-w")) snprintf(wl, sizeof wl, "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-m")) snprintf(ml, sizeof ml, "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--sizes")) snprintf(sl, sizeof sl, "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-l")) levels = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps")) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--f64")) f64 = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--ndim")) ndim = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--lbb-threads")) snprintf(tl, sizeof tl, "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--lbb-cols")) snprintf(cl, sizeof cl, "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--lifting")) snprintf(ll, sizeof ll, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--seed-experiments")) seed = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--fuse-levels")) fuse = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--algo")) {
            const char *a = argv[++i];
            if (!strcmp(a, "auto")) algo = LWT_ALGO_AUTO;
            else if (!strcmp(a, "rc")) algo = LWT_ALGO_LIFTING_RC;
            else if (!strcmp(a, "lbb")) algo = LWT_ALGO_LIFTING_LBB;
            else if (!strcmp(a, "rc-steps")) algo = LWT_ALGO_LIFTING_RC_STEPS;
            else {
                fprintf(stderr, "lwt bench: --algo auto|rc|lbb|rc-steps\n");
                return LWT_EXIT_USAGE;
            }
        }
        else if (i + 1 < argc && !strcmp(argv[i], "--filter")) filter_n = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--stream")) stream = 1;
        else if (!strcmp(argv[i], "--resident")) stream = 2;
        else if (i + 1 < argc && !strcmp(argv[i], "--stream-reps")) stream_reps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--stream-size")) stream_n = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--big")) big_gib = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--slow")) slow = atof(argv[++i]);
        else {
            fprintf(stderr, "lwt bench: unknown option '%s'\n"
                            "usage: lwt bench [-w W1,W2] [-m M1,M2] [--sizes N1,N2] [-l LEVELS] [--reps N] [--f64] "
                            "[--ndim 1|2|3] [--algo auto|rc|lbb|rc-steps] [--lbb-threads T1,T2] [--lbb-cols C1,C2]\n"
                            "       [--lifting auto,classic,improved] [--fuse-levels 0|1]\n"
                            "       lwt bench --filter N | --seed-experiments\n"
                            "       lwt bench --stream [--stream-reps N] [--stream-size N] [--big GIB] [--slow F]\n",
                    argv[i]);
            return LWT_EXIT_USAGE;
        }
    }
    if (reps < 20 || levels < 0 || ndim < 1 || ndim > 3) {
        fprintf(stderr, "lwt bench: --reps must be >= 20, -l >= 0 and --ndim 1, 2 or 3\n");
        return LWT_EXIT_USAGE;
    }
    if (seed) {
        /* seed 000's experiments with our kernels: 1) LBB vs RC&LB (our row then column kernels,
           LWT_ALGO_LIFTING_RC) vs RC (a kernel per lifting step) for 4-level CDF 9/7 over
           1024..5120; 2) classic vs improved lifting (eq. 16) in the register LBB kernel, the
           same sizes and 16384; 3) the six wavelets at 4096^2 in the three arrangements; Fig.
           12, threads per block of the generic LBB kernel at 4096^2, and its strip width */
        static const char *const algos[] = {"lbb", "rc", "rc-steps"};
        int r = 0;
        printf("== seed experiment 1: LBB (sliding window) vs RC&LB (row then column kernels) vs RC (a kernel per "
               "lifting step), CDF 9/7, 4 levels\n");
        for (int i = 0; i < 3 && !r; i++) {
            char *args1[] = {"bench", "-w", "cdf97", "-m", "periodization", "--sizes", "1024,2048,3072,4096,5120",
                             "--algo", (char *)algos[i]};
            r = cmd_bench(9, args1);
        }
        char *args5[] = {"bench", "-w", "cdf97", "-m", "periodization", "--sizes", "1024,2048,3072,4096,5120,16384",
                         "--lifting", "classic,improved"};
        printf("== seed experiment 2: classic vs improved lifting (eq. 16), register LBB kernel, CDF 9/7, 4 levels\n");
        if (!r)
            r = cmd_bench(9, args5);
        printf("== seed experiment 3: six wavelets at 4096^2, 4 levels, LBB vs RC&LB vs RC\n");
        for (int i = 0; i < 3 && !r; i++) {
            char *args3[] = {"bench", "-w", "haar,d4,d8,d20,cdf53,cdf97", "-m", "periodization", "--sizes", "4096",
                             "--algo", (char *)algos[i]};
            r = cmd_bench(9, args3);
        }
        char *args4[] = {"bench", "-w", "cdf97", "-m", "periodization", "--sizes", "4096", "--algo", "lbb",
                         "--lbb-threads", "32,64,128,256,512,1024", "--lbb-cols", "64,128,256"};
        printf("== seed Fig. 12: threads per block (and strip width) of the LBB kernel, CDF 9/7, 4 levels, 4096^2\n");
        return r ? r : cmd_bench(13, args4);
    }
    char *wv[32], *mv[16], *sv[16], *tv[16], *cv[16], *lv[4];
    int nw = split(wl, wv, 32), nm = split(ml, mv, 16), ns = split(sl, sv, 16), nth = split(tl, tv, 16),
        ncl = split(cl, cv, 16), nli = split(ll, lv, 4);
    lwt_lifting_variant lifts[4];
    for (int i = 0; i < nli; i++) {
        if (!strcmp(lv[i], "auto")) lifts[i] = LWT_LIFT_AUTO;
        else if (!strcmp(lv[i], "classic")) lifts[i] = LWT_LIFT_CLASSIC;
        else if (!strcmp(lv[i], "improved")) lifts[i] = LWT_LIFT_IMPROVED;
        else {
            fprintf(stderr, "lwt bench: --lifting takes auto, classic, improved (got '%s')\n", lv[i]);
            return LWT_EXIT_USAGE;
        }
    }
    static const char *const lift_names[] = {"auto", "classic", "improved"};
    lwt_context *ctx = cli_context();
    if (!ctx)
        return LWT_EXIT_RUNTIME;
    if (lwt_context_device_count(ctx) == 0) {
        fprintf(stderr, "lwt bench: no CUDA device\n");
        lwt_context_destroy(ctx);
        return LWT_EXIT_RUNTIME;
    }
    if (stream) {
        int src = bench_stream(ctx, stream_reps < 1 ? 1 : stream_reps, big_gib, slow, stream_n, stream == 2);
        lwt_context_destroy(ctx);
        return src;
    }
    if (filter_n) {
        int frc = bench_filter(ctx, filter_n, f64);
        lwt_context_destroy(ctx);
        return frc;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("lwt bench on %s, %s, %d-D%s, algorithm %s%s, median of %d runs (CUDA events), ratio = time / device "
           "copy time; thr/cols: LBB threads per block and ring width (0: the planner's); lift: lifting variant\n",
           prop.name, f64 ? "float64" : "float32", ndim, ndim == 1 ? " (N rows of N)" : "",
           algo == LWT_ALGO_LIFTING_RC         ? "rc"
           : algo == LWT_ALGO_LIFTING_LBB      ? "lbb"
           : algo == LWT_ALGO_LIFTING_RC_STEPS ? "rc-steps"
                                               : "auto",
           fuse == 1 ? ", one level per pass" : "", reps);
    printf("%-8s %-13s %6s %3s %-8s %5s %5s %-8s %10s %10s %9s %7s\n", "wavelet", "mode", "size", "L", "dir", "thr",
           "cols", "lift", "ms", "copy_ms", "Gpix/s", "ratio");
    int rc = LWT_EXIT_OK;
    for (int si = 0; si < ns; si++)
        for (int wi = 0; wi < nw; wi++)
            for (int mi = 0; mi < nm; mi++)
                for (int tci = 0; tci < nth * ncl * nli; tci++) {
                    size_t n = strtoull(sv[si], NULL, 10);
                    const int lbb_threads = atoi(tv[tci / (ncl * nli)]), lbb_cols = atoi(cv[tci / nli % ncl]);
                    const lwt_lifting_variant lift = lifts[tci % nli];
                    lwt_mode mode;
                    lwt_wavelet *w = NULL;
                    lwt_plan *p = NULL;
                    void *a = NULL, *b = NULL, *ws = NULL;
                    cudaStream_t s = NULL;
                    if (lwt_mode_from_name(mv[mi], &mode) || lwt_wavelet_create(ctx, wv[wi], &w)) {
                        rc = LWT_EXIT_USAGE;
                        continue;
                    }
                    lwt_plan_desc d = lwt_plan_desc_default();
                    d.wavelet = w;
                    d.ndim = ndim == 1 ? 1 : ndim;
                    for (int k = 0; k < d.ndim; k++)
                        d.shape[k] = n;
                    d.batch = ndim == 1 ? n : 1;
                    d.lbb_threads = lbb_threads;
                    d.lbb_cols = lbb_cols;
                    d.lifting = lift;
                    d.fuse_levels = fuse;
                    d.levels = levels;
                    d.mode = mode;
                    d.dtype = f64 ? LWT_F64 : LWT_F32;
                    d.backend = LWT_BACKEND_CUDA;
                    d.algorithm = algo;
                    if (lwt_plan_create(ctx, &d, &p)) {
                        rc = LWT_EXIT_RUNTIME;
                        lwt_wavelet_destroy(w);
                        continue;
                    }
                    lwt_plan_info info;
                    lwt_plan_get_info(p, &info);
                    size_t es = f64 ? 8 : 4, wsb = 0;
                    lwt_plan_device_workspace_size(p, &wsb);
                    float tc = 0, tf = 0, ti = 0;
                    CUDA_OK(cudaStreamCreate(&s));
                    const size_t items = d.batch; /* lwt_plan_info counts one batch item */
                    CUDA_OK(cudaMalloc(&a, items * info.input_count * es));
                    CUDA_OK(cudaMalloc(&b, items * info.coeff_count * es));
                    CUDA_OK(cudaMalloc(&ws, wsb));
                    CUDA_OK(cudaMemset(a, 0x3c, items * info.input_count * es)); /* non-zero data */
                    if (time_op(0, p, a, b, items * info.input_count * es, ws, reps, s, &tc) ||
                        time_op(1, p, a, b, 0, ws, reps, s, &tf) || time_op(2, p, a, b, 0, ws, reps, s, &ti))
                        goto fail;
                    for (int dir = 0; dir < 2; dir++) {
                        float t = dir ? ti : tf;
                        const double pix = (double)items * (double)info.input_count;
                        printf("%-8s %-13s %6zu %3d %-8s %5d %5d %-8s %10.3f %10.3f %9.2f %7.2f\n", wv[wi], mv[mi], n,
                               info.levels, dir ? "inverse" : "forward", lbb_threads, lbb_cols, lift_names[lift], t, tc,
                               pix / (t * 1e-3) / 1e9, t / tc);
                    }
                    fflush(stdout);
                    goto next;
                fail:
                    rc = LWT_EXIT_RUNTIME;
                next:
                    cudaFree(a);
                    cudaFree(b);
                    cudaFree(ws);
                    if (s) cudaStreamDestroy(s);
                    lwt_plan_destroy(p);
                    lwt_wavelet_destroy(w);
                }
    lwt_context_destroy(ctx);
    return rc;
}
#endif
