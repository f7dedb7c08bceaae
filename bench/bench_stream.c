/*
 * lwt-bench --stream: the streamed engine on host-resident data (issue 4).
 *  1. seed 000's Table 1: 4096^2 D4, 4 levels, forward and inverse, one GPU,
 *     non-overlapping vs overlapping, with the summed H2D / kernel / D2H times;
 *     then each of the three optimizations switched off on its own;
 *  2. 16384^2 CDF 9/7, 4 levels, pinned host in and out, one GPU, against the
 *     bus floor measured in the same run (input H2D and output D2H at once);
 *  3. with several GPUs: seed 000's fifth experiment (single GPU, static equal
 *     split, weighted, queue, FNN over 10240..16384), the aggregate bus ceiling
 *     (every GPU copying both ways at once), a slowed GPU against the ideal
 *     makespan, and an optional big dataset (--big GIB);
 *  4. with several GPUs: device-resident data spread over them (bench_spread.c).
 * Times are medians of --stream-reps runs (default 5), wall clock around the
 * lwt_streamer_* call on a streamer made before the runs (the "one-shot" rows:
 * around lwt_stream_*, which makes the workers inside the call), pinned host
 * buffers (cudaHostAlloc) unless stated.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "harness.h"

#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>

#include "lwt_experimental.h" /* lwt_stream_tuning: the seed's switches, depth, faults */
#include "lwt_stream.h"


typedef struct bufset {
    lwt_plan *plan;
    lwt_wavelet *w;
    void *in, *coeffs, *back, *scratch;
    size_t in_bytes, coeff_bytes, scratch_bytes;
    int pinned;
} bufset;

static void *halloc(size_t bytes, int pinned)
{
    void *p = NULL;
    if (pinned)
        return cudaHostAlloc(&p, bytes, cudaHostAllocPortable) == cudaSuccess ? p : NULL;
    return malloc(bytes);
}

static void hfree(void *p, int pinned)
{
    if (pinned)
        cudaFreeHost(p);
    else
        free(p);
}

static void bufs_free(bufset *b)
{
    hfree(b->in, b->pinned);
    hfree(b->coeffs, b->pinned);
    hfree(b->back, b->pinned);
    hfree(b->scratch, b->pinned);
    lwt_plan_destroy(b->plan);
    lwt_wavelet_destroy(b->w);
    memset(b, 0, sizeof *b);
}

static int bufs_make(lwt_context *ctx, const char *wname, size_t n, int levels, lwt_mode mode, int pinned, bufset *b)
{
    memset(b, 0, sizeof *b);
    b->pinned = pinned;
    if (lwt_wavelet_create(ctx, wname, &b->w))
        return -1;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = b->w;
    d.ndim = 2;
    d.shape[0] = d.shape[1] = n;
    d.levels = levels;
    d.mode = mode;
    d.dtype = LWT_F32;
    d.backend = LWT_BACKEND_CPU;
    if (lwt_plan_create(ctx, &d, &b->plan))
        return -1;
    lwt_plan_info info;
    lwt_plan_get_info(b->plan, &info);
    b->in_bytes = info.input_count * 4;
    b->coeff_bytes = info.coeff_count * 4;
    lwt_stream_scratch_size(b->plan, &b->scratch_bytes);
    b->in = halloc(b->in_bytes, pinned);
    b->coeffs = halloc(b->coeff_bytes, pinned);
    b->back = halloc(b->in_bytes, pinned);
    b->scratch = halloc(b->scratch_bytes ? b->scratch_bytes : 1, pinned);
    if (!b->in || !b->coeffs || !b->back || !b->scratch)
        return -1;
    float *x = b->in;
    unsigned s = 12345;
    for (size_t i = 0; i < info.input_count; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    return 0;
}

/* median seconds of reps streamed runs on one streamer (its workers made once, as a plan is;
   one_shot: lwt_stream_* per run, which makes and tears down the workers each time); report of
   the last run */
typedef struct stream_run {
    bufset *b;
    const lwt_stream_desc *d;
    lwt_streamer *s; /* NULL: one-shot calls (default tuning) */
    int inverse;
    lwt_stream_report *rep;
    lwt_status st;
} stream_run;

static int stream_op(void *arg, void *stream)
{
    stream_run *r = arg;
    bufset *b = r->b;
    (void)stream; /* a streamed call returns when its result is on the host */
    if (!r->s)
        r->st = r->inverse ? lwt_stream_inverse(b->plan, r->d, b->coeffs, b->back, b->scratch, r->rep)
                           : lwt_stream_forward(b->plan, r->d, b->in, b->coeffs, b->scratch, r->rep);
    else
        r->st = r->inverse ? lwt_streamer_inverse(r->s, b->coeffs, b->back, b->scratch, r->rep)
                           : lwt_streamer_forward(r->s, b->in, b->coeffs, b->scratch, r->rep);
    return r->st ? -1 : 0;
}

/* tuning: NULL = the defaults (the one-shot calls have no other) */
static int time_stream_how(bufset *b, const lwt_stream_desc *d, const lwt_stream_tuning *tuning, int inverse, int reps,
                           int one_shot, double *sec, lwt_stream_report *rep)
{
    stream_run r = {b, d, NULL, inverse, rep, LWT_OK};
    if (!one_shot)
        r.st = lwt_streamer_create_tuned(b->plan, d, tuning, &r.s);
    const int failed = r.st || bench_wall_s(stream_op, &r, 1, reps > 64 ? 64 : reps, sec); /* one warm-up */
    lwt_streamer_destroy(r.s);
    if (failed) {
        fprintf(stderr, "lwt-bench: streamed %s failed: %s\n", inverse ? "inverse" : "forward",
                lwt_status_string(r.st));
        return -1;
    }
    return 0;
}

static int time_stream(bufset *b, const lwt_stream_desc *d, const lwt_stream_tuning *tuning, int inverse, int reps,
                       double *sec, lwt_stream_report *rep)
{
    return time_stream_how(b, d, tuning, inverse, reps, 0, sec, rep);
}

/* Bus floor: every listed GPU moves its share of in_bytes H2D and out_bytes
 * D2H at once (pinned host memory, one stream per direction per GPU). */
static double bus_floor(const int *devs, int ndev, const char *host_in, char *host_out, size_t in_bytes,
                        size_t out_bytes, int reps)
{
    void *din[16] = {0}, *dout[16] = {0};
    cudaStream_t s[16][2];
    size_t ish = (in_bytes / (size_t)ndev + 255) & ~(size_t)255, osh = (out_bytes / (size_t)ndev + 255) & ~(size_t)255;
    for (int g = 0; g < ndev; g++) {
        cudaSetDevice(devs[g]);
        if (cudaMalloc(&din[g], ish) || cudaMalloc(&dout[g], osh))
            return -1;
        cudaStreamCreateWithFlags(&s[g][0], cudaStreamNonBlocking);
        cudaStreamCreateWithFlags(&s[g][1], cudaStreamNonBlocking);
    }
    double t[32];
    for (int r = -1; r < reps && r < 32; r++) {
        double t0 = bench_now_s();
        for (int g = 0; g < ndev; g++) {
            size_t io = (size_t)g * ish, oo = (size_t)g * osh;
            size_t ib = io < in_bytes ? (in_bytes - io < ish ? in_bytes - io : ish) : 0;
            size_t ob = oo < out_bytes ? (out_bytes - oo < osh ? out_bytes - oo : osh) : 0;
            cudaSetDevice(devs[g]);
            cudaMemcpyAsync(din[g], host_in + io, ib, cudaMemcpyHostToDevice, s[g][0]);
            cudaMemcpyAsync(host_out + oo, dout[g], ob, cudaMemcpyDeviceToHost, s[g][1]);
        }
        for (int g = 0; g < ndev; g++) {
            cudaSetDevice(devs[g]);
            cudaDeviceSynchronize();
        }
        if (r >= 0)
            t[r] = bench_now_s() - t0;
    }
    for (int g = 0; g < ndev; g++) {
        cudaSetDevice(devs[g]);
        cudaFree(din[g]);
        cudaFree(dout[g]);
        cudaStreamDestroy(s[g][0]);
        cudaStreamDestroy(s[g][1]);
    }
    cudaSetDevice(0);
    int n = reps < 32 ? reps : 32;
    return bench_median(t, n);
}

static lwt_stream_desc gpus(int ngpu, size_t chunk_rows, lwt_balance_policy bal)
{
    lwt_stream_desc d = lwt_stream_desc_default();
    d.chunk_rows = chunk_rows;
    d.nworkers = ngpu;
    d.balance = bal;
    for (int k = 0; k < ngpu; k++) {
        d.workers[k].kind = LWT_WORKER_CUDA;
        d.workers[k].device = k;
    }
    return d;
}

static void print_row(const char *what, double t, const lwt_stream_report *r, double floor_s)
{
    printf("%-34s %9.2f ms", what, 1e3 * t);
    if (r)
        printf("  H2D %8.2f  kern %8.2f  D2H %8.2f  GB up/down %5.2f/%5.2f", 1e3 * r->h2d_s, 1e3 * r->kernel_s,
               1e3 * r->d2h_s, r->bytes_h2d / 1e9, r->bytes_d2h / 1e9);
    if (floor_s > 0)
        printf("  %5.2fx floor", t / floor_s);
    if (r && r->nworkers > 1) {
        printf("  chunks");
        for (int w = 0; w < r->nworkers; w++)
            printf(" %ld", r->chunks[w]);
    }
    printf("\n");
    fflush(stdout);
}

static int table1(lwt_context *ctx, int reps)
{
    bufset b;
    if (bufs_make(ctx, "d4", 4096, 4, LWT_MODE_PERIODIZATION, 1, &b)) {
        fprintf(stderr, "lwt-bench: cannot allocate the 4096^2 buffers\n");
        bufs_free(&b);
        return -1;
    }
    printf("\n== seed 000 Table 1: 4096^2 D4, 4 levels, float32, 1 GPU, pinned host in/out, chunk 512 rows\n");
    printf("   (H2D / kern / D2H: summed stage times of all chunks, ms; non-overlapping: total ~ their sum;\n"
           "    GB up/down: bytes the GPU workers moved)\n");
    const double fl = bus_floor((int[]){0}, 1, b.in, b.coeffs, b.in_bytes, b.coeff_bytes, reps);
    for (int inv = 0; inv < 2; inv++) {
        const char *dir = inv ? "inverse" : "forward";
        struct { const char *name; int overlap, pool, tuned, fuse; } v[] = {
            {"non-overlapping", 0, 1, 1, 0}, {"overlapping (3 streams)", 1, 1, 1, 0},
            {"overlapping, no pinned pool", 1, 0, 1, 0}, {"overlapping, naive blocks", 1, 1, 0, 0},
            {"overlapping, one level per pass", 1, 1, 1, 1}};
        for (int k = 0; k < 5; k++) {
            lwt_stream_desc d = gpus(1, 512, LWT_BALANCE_POLICY_QUEUE);
            lwt_stream_tuning tu = lwt_stream_tuning_default();
            tu.overlap = v[k].overlap;
            tu.pinned_pool = v[k].pool;
            tu.tuned_blocks = v[k].tuned;
            tu.fuse_levels = v[k].fuse;
            tu.streams = 3; /* the seed's setup */
            lwt_stream_report rep;
            double t;
            if (time_stream(&b, &d, &tu, inv, reps, &t, &rep))
                return -1;
            char what[64];
            snprintf(what, sizeof what, "%s %s", dir, v[k].name);
            print_row(what, t, &rep, fl);
        }
    }
    /* pageable host memory: staging through the pinned pool */
    bufset pb;
    if (bufs_make(ctx, "d4", 4096, 4, LWT_MODE_PERIODIZATION, 0, &pb) == 0) {
        lwt_stream_desc d = gpus(1, 512, LWT_BALANCE_POLICY_QUEUE);
        lwt_stream_report rep;
        double t;
        if (time_stream(&pb, &d, NULL, 0, reps, &t, &rep) == 0)
            print_row("forward pageable host, staged", t, &rep, fl);
    }
    bufs_free(&pb);
    printf("bus floor (H2D of the input and D2H of the coefficients at once): %.2f ms\n", 1e3 * fl);
    bufs_free(&b);
    return 0;
}

static int floor16k(lwt_context *ctx, int reps, size_t n)
{
    bufset b;
    if (bufs_make(ctx, "cdf97", n, 4, LWT_MODE_PERIODIZATION, 1, &b)) {
        fprintf(stderr, "lwt-bench: cannot allocate the %zu^2 buffers\n", n);
        bufs_free(&b);
        return -1;
    }
    const double fl = bus_floor((int[]){0}, 1, b.in, b.coeffs, b.in_bytes, b.coeff_bytes, reps);
    printf("\n== host-resident %zu^2 CDF 9/7, 4 levels, float32, 1 GPU, pinned host in/out\n", n);
    printf("bus floor (%.0f MB H2D and %.0f MB D2H at once): %.2f ms (%.1f GB/s)\n", b.in_bytes / 1e6,
           b.coeff_bytes / 1e6, 1e3 * fl, (b.in_bytes + b.coeff_bytes) / fl / 1e9);
    const size_t rows[] = {256, 512, 1024, 2048};
    for (int k = 0; k < 4; k++)
        for (int inv = 0; inv < 2; inv++) {
            lwt_stream_desc d = gpus(1, rows[k], LWT_BALANCE_POLICY_QUEUE);
            lwt_stream_report rep;
            double t;
            if (time_stream(&b, &d, NULL, inv, reps, &t, &rep))
                return -1;
            char what[64];
            snprintf(what, sizeof what, "%s chunk %zu rows", inv ? "inverse" : "forward", rows[k]);
            print_row(what, t, &rep, fl);
        }
    /* one call without a streamer: the workers made and torn down inside the timed call */
    for (int inv = 0; inv < 2; inv++) {
        lwt_stream_desc d = gpus(1, 512, LWT_BALANCE_POLICY_QUEUE);
        lwt_stream_report rep;
        double t;
        if (time_stream_how(&b, &d, NULL, inv, reps, 1, &t, &rep))
            return -1;
        print_row(inv ? "inverse chunk 512 rows, one-shot call" : "forward chunk 512 rows, one-shot call", t, &rep,
                  fl);
    }
    /* a CPU worker next to the GPU: queue, and FNN, whose tail guard keeps a slow worker from
       starting a chunk the GPU would finish first once it has measured both (a streamer keeps what
       it learned from one call to the next) */
    for (int k = 0; k < 2; k++) {
        lwt_stream_desc d = gpus(1, 512, k ? LWT_BALANCE_POLICY_FNN : LWT_BALANCE_POLICY_QUEUE);
        d.workers[1].kind = LWT_WORKER_CPU;
        d.nworkers = 2;
        lwt_stream_report rep;
        double t;
        if (time_stream(&b, &d, NULL, 0, reps, &t, &rep))
            return -1;
        print_row(k ? "forward 512 rows, GPU + CPU, fnn" : "forward 512 rows, GPU + CPU, queue", t, &rep, fl);
    }
    /* other pipeline depths: chunks in flight per GPU (streams; the default above is 3) */
    const int depth[] = {6, 8};
    for (int k = 1; k < 3; k++)
        for (int q = 0; q < 2; q++)
            for (int inv = 0; inv < 2; inv++) {
                lwt_stream_desc d = gpus(1, rows[k], LWT_BALANCE_POLICY_QUEUE);
                lwt_stream_tuning tu = lwt_stream_tuning_default();
                tu.streams = depth[q];
                lwt_stream_report rep;
                double t;
                if (time_stream(&b, &d, &tu, inv, reps, &t, &rep))
                    return -1;
                char what[64];
                snprintf(what, sizeof what, "%s chunk %zu rows, %d streams", inv ? "inverse" : "forward", rows[k],
                         depth[q]);
                print_row(what, t, &rep, fl);
            }
    bufs_free(&b);
    return 0;
}

static int multi(lwt_context *ctx, int ngpu, int reps, double big_gib, double slow)
{
    int devs[16];
    for (int k = 0; k < ngpu; k++)
        devs[k] = k;
    const lwt_balance_policy pol[] = {LWT_BALANCE_POLICY_STATIC, LWT_BALANCE_POLICY_WEIGHTED,
                                      LWT_BALANCE_POLICY_QUEUE, LWT_BALANCE_POLICY_FNN};
    const size_t sizes[] = {10240, 12288, 14336, 16384};
    printf("\n== seed 000 experiment 5 with %d GPUs: CDF 9/7, 4 levels, float32, pinned host in/out, chunk 512 rows\n",
           ngpu);
    for (int si = 0; si < 4; si++) {
        bufset b;
        if (bufs_make(ctx, "cdf97", sizes[si], 4, LWT_MODE_PERIODIZATION, 1, &b)) {
            bufs_free(&b);
            return -1;
        }
        const double ceil_s = bus_floor(devs, ngpu, b.in, b.coeffs, b.in_bytes, b.coeff_bytes, reps);
        printf("-- %zu^2: aggregate bus ceiling with %d GPUs: %.2f ms (%.1f GB/s)\n", sizes[si], ngpu, 1e3 * ceil_s,
               (b.in_bytes + b.coeff_bytes) / ceil_s / 1e9);
        for (int inv = 0; inv < 2; inv++) {
            lwt_stream_desc d = gpus(1, 512, LWT_BALANCE_POLICY_QUEUE);
            lwt_stream_report rep;
            double t, t_single, t_best = 1e30;
            char what[64];
            if (time_stream(&b, &d, NULL, inv, reps, &t, &rep))
                return -1;
            t_single = t;
            snprintf(what, sizeof what, "%s single GPU", inv ? "inverse" : "forward");
            print_row(what, t, &rep, ceil_s);
            for (int k = 0; k < 4; k++) {
                d = gpus(ngpu, 512, pol[k]);
                if (time_stream(&b, &d, NULL, inv, reps, &t, &rep))
                    return -1;
                if (t < t_best)
                    t_best = t;
                snprintf(what, sizeof what, "%s %s", inv ? "inverse" : "forward", lwt_balance_policy_name(pol[k]));
                print_row(what, t, &rep, ceil_s);
            }
            if (si == 3 && !inv && slow > 1) {
                /* GPU 0 slowed: ideal makespan = work / total speed, each GPU at the rate it has
                   alone (t_single), GPU 0 at 1 / slow of it; and never less than the best time
                   without the slowdown (on the shared bus a lone GPU's rate is more than its
                   share, so the first bound alone can be below what any run reaches) */
                double ideal = t_single / (ngpu - 1 + 1.0 / slow);
                if (ideal < t_best)
                    ideal = t_best;
                printf("-- GPU 0 slowed %.1fx: ideal makespan %.2f ms\n", slow, 1e3 * ideal);
                for (int k = 0; k < 4; k++) {
                    d = gpus(ngpu, 512, pol[k]);
                    lwt_stream_tuning tu = lwt_stream_tuning_default();
                    tu.slowdown[0] = slow;
                    if (time_stream(&b, &d, &tu, 0, reps, &t, &rep))
                        return -1;
                    snprintf(what, sizeof what, "slowed, %s", lwt_balance_policy_name(pol[k]));
                    printf("%-34s %9.2f ms  %5.2fx ideal  chunks", what, 1e3 * t, t / ideal);
                    for (int w = 0; w < rep.nworkers; w++)
                        printf(" %ld", rep.chunks[w]);
                    printf("\n");
                }
                /* a CPU worker next to the GPUs */
                for (int k = 2; k < 4; k++) {
                    d = gpus(ngpu, 512, pol[k]);
                    d.workers[ngpu].kind = LWT_WORKER_CPU;
                    d.nworkers = ngpu + 1;
                    snprintf(what, sizeof what, "forward GPUs + CPU worker, %s", lwt_balance_policy_name(pol[k]));
                    if (time_stream(&b, &d, NULL, 0, reps, &t, &rep) == 0)
                        print_row(what, t, &rep, ceil_s);
                }
            }
        }
        bufs_free(&b);
    }
    if (big_gib > 0) {
        size_t n = 1024;
        while ((double)(n + 1024) * (n + 1024) * 4 <= big_gib * 1073741824.0)
            n += 1024;
        bufset b;
        printf("\n== big host-resident dataset: %zu^2 float32 (%.1f GiB), CDF 9/7, 4 levels, %d GPUs\n", n,
               (double)n * n * 4 / 1073741824.0, ngpu);
        if (bufs_make(ctx, "cdf97", n, 4, LWT_MODE_PERIODIZATION, 1, &b)) {
            fprintf(stderr, "lwt-bench: cannot allocate the big dataset\n");
            bufs_free(&b);
            return -1;
        }
        const double ceil_s = bus_floor(devs, ngpu, b.in, b.coeffs, b.in_bytes, b.coeff_bytes, 3);
        printf("aggregate bus ceiling: %.1f ms (%.1f GB/s)\n", 1e3 * ceil_s, (b.in_bytes + b.coeff_bytes) / ceil_s / 1e9);
        for (int k = 2; k < 4; k++) {
            lwt_stream_desc d = gpus(ngpu, 1024, pol[k]);
            lwt_stream_report rep;
            double t;
            if (time_stream(&b, &d, NULL, 0, 3, &t, &rep))
                return -1;
            char what[64];
            snprintf(what, sizeof what, "big forward %s", lwt_balance_policy_name(pol[k]));
            print_row(what, t, &rep, ceil_s);
        }
        bufs_free(&b);
    }
    return 0;
}

int bench_stream(lwt_context *ctx, int reps, double big_gib, double slow, size_t n16, int resident_only)
{
    int ndev = lwt_context_device_count(ctx);
    char dev[256];
    bench_device_name(dev, sizeof dev);
    printf("lwt bench --stream on %d x %s; median of %d runs on one streamer, wall clock\n", ndev, dev, reps);
    if (resident_only)
        return bench_spread(ctx, reps, n16, resident_only == 2);
    if (table1(ctx, reps) || floor16k(ctx, reps, n16))
        return BENCH_EXIT_RUNTIME;
    if (ndev > 1 && multi(ctx, ndev, reps, big_gib, slow))
        return BENCH_EXIT_RUNTIME;
    return ndev > 1 ? bench_spread(ctx, reps, n16, 0) : BENCH_EXIT_OK;
}
#endif
