/*
 * Streamed execution on GPU workers (label gpu, run on the device machine):
 * bit-identical to the CPU backend's in-memory transform, for GPU-only,
 * GPU + CPU (heterogeneous), every GPU when there are several, each of
 * seed 000's optimizations switched off, pinned and pageable host memory,
 * a failing GPU worker whose chunks the others take over, and a slowed one;
 * a streamer's workers reused over several calls.
 * Exits 77 (skipped) without a CUDA device.
 *
 * Usage: test_gpu_stream [--quick]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "../c/stream_setup.h"
#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static unsigned long long rng = 0x243f6a8885a308d3ull;
static double rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

static int failures, cases;
static long fwd_fused, fwd_passes; /* the last forward's 2-D chunk levels: one kernel each, two passes */
static lwt_context *ctx;
static int ndev;

typedef enum { SETUP_GPU, SETUP_GPU_CPU, SETUP_ALL_GPUS, SETUP_NO_OVERLAP, SETUP_NO_POOL, SETUP_NAIVE,
               SETUP_FAIL, SETUP_SLOW, SETUP_ONE_LEVEL, SETUP_DEEP, SETUP_COUNT } setup;
static const char *setup_name[] = {"1 GPU", "GPU+CPU", "all GPUs", "no overlap", "no pinned pool",
                                   "naive blocks", "GPU fails", "GPU slowed", "one level per pass", "6 streams"};

static stream_setup make_desc(setup s, size_t chunk_rows)
{
    stream_setup su;
    su.t = lwt_stream_tuning_default();
    lwt_stream_desc d = lwt_stream_desc_default();
    d.chunk_rows = chunk_rows;
    d.nworkers = 1;
    d.workers[0].kind = LWT_WORKER_CUDA;
    d.workers[0].device = 0;
    switch (s) {
    case SETUP_GPU_CPU:
    case SETUP_FAIL:
    case SETUP_SLOW:
        d.nworkers = 2;
        d.workers[1].kind = LWT_WORKER_CPU;
        d.workers[1].threads = 4;
        if (s == SETUP_FAIL)
            su.t.fail_after[0] = 3;
        if (s == SETUP_SLOW)
            su.t.slowdown[0] = 4.0;
        d.balance = s == SETUP_SLOW ? LWT_BALANCE_POLICY_FNN : LWT_BALANCE_POLICY_QUEUE;
        break;
    case SETUP_ALL_GPUS:
        d.nworkers = ndev < LWT_STREAM_MAX_WORKERS ? ndev : LWT_STREAM_MAX_WORKERS;
        for (int k = 0; k < d.nworkers; k++) {
            d.workers[k].kind = LWT_WORKER_CUDA;
            d.workers[k].device = k;
        }
        d.balance = LWT_BALANCE_POLICY_STATIC;
        break;
    case SETUP_NO_OVERLAP: su.t.overlap = 0; break;
    case SETUP_NO_POOL: su.t.pinned_pool = 0; break;
    case SETUP_NAIVE: su.t.tuned_blocks = 0; break;
    case SETUP_ONE_LEVEL: su.t.fuse_levels = 1; break;
    case SETUP_DEEP: su.t.streams = 6; break;
    default: break;
    }
    su.d = d;
    return su;
}

static void *host_alloc(size_t bytes, int pinned)
{
#ifdef LWT_HAVE_CUDA
    if (pinned) {
        void *p = NULL;
        return cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess ? p : NULL;
    }
#endif
    (void)pinned;
    return malloc(bytes);
}

static void host_free(void *p, int pinned)
{
#ifdef LWT_HAVE_CUDA
    if (pinned) {
        cudaFreeHost(p);
        return;
    }
#endif
    free(p);
}

/* the CPU plan the streamed runs are compared with; NULL when the wavelet is unknown (a failure)
 * or the plan is refused (some cases ask for more than a mode allows: the caller decides) */
static lwt_plan *cpu_plan(const char *wname, lwt_mode mode, int ndim, const size_t *shape, int levels, lwt_dtype dt,
                          lwt_wavelet **w)
{
    if (lwt_wavelet_create(ctx, wname, w)) {
        failures++;
        return NULL;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = *w;
    d.ndim = ndim;
    for (int k = 0; k < ndim; k++)
        d.shape[k] = shape[k];
    d.levels = levels;
    d.mode = mode;
    d.dtype = dt;
    d.backend = LWT_BACKEND_CPU;
    lwt_plan *p;
    if (lwt_plan_create(ctx, &d, &p)) {
        lwt_wavelet_destroy(*w);
        return NULL;
    }
    return p;
}

/* a random finite 16-bit value of dt: bfloat16 as a float32's high half, float16 from a sign,
   an exponent in [5, 25] and 10 random significand bits (values from about 2^-10 to 2^10) */
static uint16_t rnd16(lwt_dtype dt)
{
    if (dt == LWT_BF16) {
        const float f = (float)rnd();
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return (uint16_t)(u >> 16);
    }
    const unsigned r = (unsigned)(1e6 * (rnd() + 1.0));
    return (uint16_t)((r & 1u) << 15 | (5u + (r >> 1) % 21u) << 10 | (r >> 6 & 0x3ffu));
}

/* check_up: the forward's windows are big enough for the GPU worker's row cache, which keeps the
 * rows consecutive windows share on the device: at least half of the bytes the windows read
 * beyond the input must not have crossed the bus (without the cache all of them do) */
static void run_case_up(const char *wname, lwt_mode mode, int ndim, const size_t *shape, int levels, lwt_dtype dt,
                        setup s, size_t chunk_rows, int pinned, int check_up)
{
    lwt_wavelet *w;
    lwt_plan *p = cpu_plan(wname, mode, ndim, shape, levels, dt, &w);
    if (!p)
        return;
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    const size_t es = elem_size(dt);
    char *x = host_alloc(info.input_count * es, pinned), *c1 = malloc(info.coeff_count * es);
    char *c2 = host_alloc(info.coeff_count * es, pinned), *y1 = malloc(info.input_count * es);
    char *y2 = host_alloc(info.input_count * es, pinned);
    for (size_t i = 0; i < info.input_count; i++) {
        if (dt == LWT_F32)
            ((float *)x)[i] = (float)rnd();
        else if (dt == LWT_F64)
            ((double *)x)[i] = rnd();
        else
            ((uint16_t *)x)[i] = rnd16(dt);
    }
    stream_setup sd = make_desc(s, chunk_rows);
    lwt_stream_report rep;
    if (getenv("LWT_TEST_VERBOSE")) {
        fprintf(stderr, "case %d: %s %s %dD L%d %s chunk %zu\n", cases, setup_name[s], wname, ndim, levels,
                lwt_mode_name(mode), chunk_rows);
        fflush(stderr);
    }
    int ok = lwt_forward(p, x, c1, NULL) == LWT_OK && lwt_inverse(p, c1, y1, NULL) == LWT_OK;
    lwt_status st1 = stream_tuned_call(p, &sd, x, c2, &rep, 0);
    const int gpu_chunks = (int)rep.chunks[0];
    fwd_fused = st1 == LWT_OK ? rep.levels_fused : -1;
    fwd_passes = st1 == LWT_OK ? rep.levels_passes : -1;
    const double in_bytes = (double)(info.input_count * es), up = (double)rep.bytes_h2d / in_bytes;
    const double up_max = 1.0 + 0.5 * ((double)rep.bytes_windows / in_bytes - 1.0);
    lwt_status st2 = stream_tuned_call(p, &sd, c1, y2, &rep, 1);
    int same_f = st1 == LWT_OK && !memcmp(c1, c2, info.coeff_count * es);
    int same_i = st2 == LWT_OK && !memcmp(y1, y2, info.input_count * es);
    cases++;
    /* the GPU must take part, except where a CPU worker competes for the chunks: on a small array
       it may take every one while the GPU worker starts (seen on freshly started machines) */
    const int gpu_needed = s != SETUP_FAIL && s != SETUP_GPU_CPU && s != SETUP_SLOW;
    if (!ok || !same_f || !same_i || (gpu_needed && gpu_chunks == 0) || (check_up && up > up_max)) {
        failures++;
        size_t diff = 0;
        for (size_t i = 0; i < info.coeff_count * es && st1 == LWT_OK; i += es)
            if (memcmp(c1 + i, c2 + i, es) && diff++ < 8 && getenv("LWT_TEST_DIFF") && es > 2) { /* where, for a diagnosis */
                const size_t e = i / es, n2 = ndim > 2 ? info.packed_shape[2] : 1;
                const size_t n1 = ndim > 1 ? info.packed_shape[1] : 1;
                fprintf(stderr, "  packed [%zu,%zu,%zu] of %zux%zux%zu: cpu %.17g gpu %.17g\n", e / (n1 * n2),
                        e / n2 % n1, e % n2, info.packed_shape[0], n1, n2,
                        dt == LWT_F32 ? ((float *)c1)[e] : ((double *)c1)[e],
                        dt == LWT_F32 ? ((float *)c2)[e] : ((double *)c2)[e]);
            }
        fprintf(stderr, "FAIL %s %s %dD %zux%zux%zu L%d %s chunk %zu %s%s: forward %s (%zu of %zu differ), inverse %s, "
                        "GPU chunks %d, %.3f x the input went up (at most %.3f)\n",
                setup_name[s], wname, ndim, shape[0], ndim > 1 ? shape[1] : 1, ndim > 2 ? shape[2] : 1, levels,
                lwt_mode_name(mode), chunk_rows, dtype_name(dt), pinned ? " pinned" : "",
                same_f ? "same" : lwt_status_string(st1), diff, info.coeff_count, same_i ? "same" : lwt_status_string(st2),
                gpu_chunks, up, up_max);
    }
    host_free(x, pinned);
    host_free(c2, pinned);
    host_free(y2, pinned);
    free(c1);
    free(y1);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static void run_case(const char *wname, lwt_mode mode, int ndim, const size_t *shape, int levels, lwt_dtype dt,
                     setup s, size_t chunk_rows, int pinned)
{
    run_case_up(wname, mode, ndim, shape, levels, dt, s, chunk_rows, pinned, 0);
}

/* One streamer for several calls (its device buffers, row cache and pinned staging kept): four
 * different inputs forward and back, two pinned then two pageable, each equal to the CPU's in
 * memory. The row cache must not hand a call the rows of the call before. */
static void streamer_reuse(setup st)
{
    const size_t shape[2] = {2500, 2049};
    lwt_wavelet *w;
    lwt_plan *p = cpu_plan("cdf97", LWT_MODE_PERIODIZATION, 2, shape, 4, LWT_F32, &w);
    if (!p) {
        failures++;
        return;
    }
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    const size_t ni = info.input_count, nc = info.coeff_count;
    stream_setup sd = make_desc(st, 256);
    lwt_streamer *s = NULL;
    int bad = lwt_streamer_create_tuned(p, &sd.d, &sd.t, &s) != LWT_OK;
    for (int k = 0; k < 4 && !bad; k++) {
        const int pinned = k < 2;
        float *x = host_alloc(ni * 4, pinned), *c1 = malloc(nc * 4), *c2 = host_alloc(nc * 4, pinned);
        float *y1 = malloc(ni * 4), *y2 = host_alloc(ni * 4, pinned);
        for (size_t i = 0; i < ni; i++)
            x[i] = (float)rnd();
        bad |= lwt_forward(p, x, c1, NULL) || lwt_inverse(p, c1, y1, NULL);
        bad |= lwt_streamer_forward(s, x, c2, NULL, NULL) || memcmp(c1, c2, nc * 4);
        bad |= lwt_streamer_inverse(s, c1, y2, NULL, NULL) || memcmp(y1, y2, ni * 4);
        host_free(x, pinned);
        host_free(c2, pinned);
        host_free(y2, pinned);
        free(c1);
        free(y1);
        if (bad)
            fprintf(stderr, "FAIL streamer (%s): call pair %d (%s) differs from the CPU\n", setup_name[st], k + 1,
                    pinned ? "pinned" : "pageable");
    }
    cases++;
    failures += bad;
    lwt_streamer_destroy(s);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static void quiet(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    if (level >= LWT_LOG_ERROR && !strstr(msg, "injected"))
        fprintf(stderr, "lwt: %s\n", msg);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    lwt_context_create(&ctx);
    lwt_context_set_log(ctx, quiet, NULL);
    ndev = lwt_context_device_count(ctx);
    if (ndev == 0) {
        printf("test_gpu_stream: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    const char *ws[] = {"cdf97", "haar", "db4", "sym6", "coif2", "bior3.5", "db10", "rbio6.8", "db38", "dmey"};
    const int nws = quick ? 4 : (int)(sizeof ws / sizeof *ws);
    for (int a = 0; a < nws; a++)
        for (int m = 0; m < LWT_MODE_COUNT; m++) {
            const int v = a * LWT_MODE_COUNT + m;
            const size_t s2[2] = {97 + (size_t)(v % 13), 61 + (size_t)(v % 7)};
            const size_t s1[1] = {1003 + (size_t)v};
            const size_t s3[3] = {21 + (size_t)(v % 3), 18, 17};
            const lwt_dtype dt = v % 2 ? LWT_F32 : LWT_F64;
            run_case(ws[a], (lwt_mode)m, 2, s2, 1 + v % 4, dt, (setup)(v % SETUP_COUNT), 8 + (size_t)(v % 5),
                     v % 3 == 0);
            run_case(ws[a], (lwt_mode)m, 1, s1, 3, dt, SETUP_GPU, 64 + (size_t)v, 0);
            if (!quick && v % 3 == 0)
                run_case(ws[a], (lwt_mode)m, 3, s3, 2, dt, SETUP_GPU_CPU, 5, 0);
        }
    /* every setup on one mid-size case, both dtypes */
    for (int s = 0; s < SETUP_COUNT; s++) {
        const size_t sh[2] = {1031, 517};
        run_case("cdf97", LWT_MODE_SYMMETRIC, 2, sh, 4, LWT_F32, (setup)s, 96, s % 2);
        run_case("db4", LWT_MODE_PERIODIZATION, 2, sh, 3, LWT_F64, (setup)s, 64, 1 - s % 2);
    }
    /* 16-bit plans: their float32 plan streamed, the caller's arrays in 16 bits (the GPU worker
       converts them on the host, through its rings): equal to the CPU's in-memory 16-bit plan */
    for (int v = 0; v < (quick ? 8 : 24); v++) {
        const char *hw[] = {"cdf97", "haar", "db4", "db10"};
        const lwt_dtype dt = v % 2 ? LWT_F16 : LWT_BF16;
        const lwt_mode m = (lwt_mode)((v * 5) % LWT_MODE_COUNT);
        const size_t s2[2] = {211 + (size_t)(v % 9), 157 + (size_t)(v % 5)}, s1[1] = {4001 + (size_t)v};
        const size_t s3[3] = {19 + (size_t)(v % 4), 17, 23};
        run_case(hw[v % 4], m, 2, s2, 1 + v % 4, dt, (setup)(v % SETUP_COUNT), 7 + (size_t)(v % 11), v % 3 == 0);
        if (v % 4 == 0)
            run_case(hw[v / 4 % 4], m, 1, s1, 4, dt, SETUP_GPU, 300 + (size_t)v, v % 8 == 0);
        if (v % 4 == 1)
            run_case(hw[v / 4 % 4], m, 3, s3, 2, dt, SETUP_GPU, 5, 0);
    }
    /* the fused 2-D level (one sliding-window kernel per chunk level) for every wavelet shape
       it has, every mode, both dtypes, odd sizes, chunk rows that leave short remainders; it
       must give the CPU's bits and run every level where it applies (not the forward of smooth
       and antireflect, whose levels stay separable passes) */
    {
        const char *fw[] = {"haar", "db2", "bior2.2", "cdf97", "db4", "db10"};
        for (int a = 0; a < 6; a++)
            for (int m = 0; m < LWT_MODE_COUNT; m++)
                for (int f = 0; f < 2; f++) {
                    const int v = (a * LWT_MODE_COUNT + m) * 2 + f;
                    if (quick && v % 3)
                        continue;
                    const size_t sh[2] = {233 + (size_t)(v % 17), 301 + (size_t)(v % 11)};
                    const int levels = 1 + v % 4;
                    run_case(fw[a], (lwt_mode)m, 2, sh, levels, f ? LWT_F64 : LWT_F32, SETUP_GPU,
                             9 + (size_t)(v % 23), v % 2);
                    const int fusable = m != LWT_MODE_SMOOTH && m != LWT_MODE_ANTIREFLECT;
                    if (fwd_fused < 0 || (fusable ? fwd_fused == 0 || fwd_passes != 0 : fwd_fused != 0)) {
                        failures++;
                        fprintf(stderr, "FAIL %s %s %s L%d: %ld chunk levels fused, %ld as passes (expected %s)\n",
                                fw[a], lwt_mode_name((lwt_mode)m), f ? "f64" : "f32", levels, fwd_fused, fwd_passes,
                                fusable ? "all fused" : "none fused");
                    }
                }
    }
    /* windows of more than 1 MiB, which go through the GPU worker's row cache: the next
       chunk's rows fetched ahead, evictions, a worker failing with a chunk fetched, a CPU worker
       taking chunks in between (the cache restarts), deeper pipelines */
    {
        const size_t big2[2] = {2500, 2049}, big2d[2] = {1800, 1500}, big1[1] = {3000000}, big3[3] = {48, 256, 257};
        const setup ring_setups[] = {SETUP_GPU, SETUP_NO_OVERLAP, SETUP_DEEP, SETUP_GPU_CPU, SETUP_FAIL};
        for (int k = 0; k < 5; k++) {
            const setup rs = ring_setups[k];
            /* the cache check with only GPU workers and pinned memory (pageable input is packed
               into staging on the host and goes up whole) */
            const int c = rs == SETUP_GPU || rs == SETUP_DEEP || rs == SETUP_NO_OVERLAP;
            run_case_up("cdf97", LWT_MODE_SYMMETRIC, 2, big2, 4, LWT_F32, rs, 256, 1, c);
            run_case_up("db10", LWT_MODE_PERIODIZATION, 2, big2d, 3, LWT_F64, rs, 200, k % 2, c && k % 2);
            if (quick && k > 1)
                continue;
            run_case_up("haar", LWT_MODE_ZERO, 1, big1, 6, LWT_F32, rs, 300000, 1, c);
            run_case_up("bior2.2", LWT_MODE_PERIODIC, 3, big3, 2, LWT_F32, rs, 8, 1, c);
        }
    }
    /* small 3-D volumes, a last axis of a few samples, every mode: test_mpi on three ranks found
       rbio3.5 smooth float64 11 x 24 x 4 differing from the CPU in 2 band rows (2026-11-27) */
    {
        const char *tw[] = {"rbio3.5", "db2", "sym4", "coif1"};
        const size_t shapes[4][3] = {{11, 24, 4}, {7, 5, 3}, {9, 6, 1}, {13, 9, 6}};
        for (int a = 0; a < 4; a++)
            for (int m = 0; m < LWT_MODE_COUNT; m++)
                for (int k = 0; k < 4; k++)
                    for (int f = 0; f < 2; f++)
                        run_case(tw[a], (lwt_mode)m, 3, shapes[k], 1 + (k & 1), f ? LWT_F64 : LWT_F32, SETUP_GPU,
                                 k % 2 ? 37 : 4, 0);
    }
    streamer_reuse(SETUP_GPU);
    streamer_reuse(SETUP_GPU_CPU);
    printf("test_gpu_stream: %d cases (%d GPU%s), %d failures; streamed GPU results %s the CPU's bit for bit\n",
           cases, ndev, ndev == 1 ? "" : "s", failures, failures ? "do NOT match" : "match");
    lwt_context_destroy(ctx);
    return failures ? 1 : 0;
}
