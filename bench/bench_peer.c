/*
 * lwt-bench --peer: what moving rows between two GPUs costs, for the device-resident spread
 * (issue 28 item 4; docs/PERFORMANCE.md). Over two GPUs a 4-level CDF 9/7 forward of 32768^2
 * float32 writes about 256 MiB of each device's level-1 detail rows into packed rows placed on
 * the other (stream/spread_layout.c); written by the kernels' own stores they do not overlap the
 * level's local work. What the copy engines would give instead:
 *
 *   - 256 MiB from device 0 to device 1 in one block (cudaMemcpyPeerAsync), one way and both
 *     ways at once;
 *   - the same bytes as 4096 rows of 64 KiB at a 128 KiB pitch (cudaMemcpy2DAsync), the shape of
 *     the spread's half rows;
 *   - each device's 4-level CDF 9/7 forward of a 16384^2 float32 array (lwt_forward_device), the
 *     two devices at once, without and then with the block copies both ways beside it: the
 *     transform's time and the copies' time, each from the same start event on its device;
 *   - the rows into the spread's own packed array of a 32768^2 plan (lwt_spread_alloc: one
 *     virtual range whose 2 MiB granules live on either device), into right halves of rows
 *     that live on device 1, issued on device 0 (push) and on device 1 (pull), and whole rows
 *     (one contiguous block) pushed.
 *
 * Median of --reps, CUDA events. Needs two devices that reach each other (peer access).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bench.h"
#include "harness.h"
#include "lwt_cuda.h"

#define ROW_BYTES ((size_t)64 << 10) /* a half row of a 32768-wide float32 packed array */
#define ROWS 4096                    /* 256 MiB of them */
#define PITCH (2 * ROW_BYTES)

typedef struct peer_dev {
    char *src, *dst;          /* 2 ROWS x ROW_BYTES each: the copies' two sides */
    void *x, *c, *ws;         /* the transform's input, coefficients and workspace */
    lwt_plan *plan;
    cudaStream_t copy, work;
    cudaEvent_t start, copied, worked;
} peer_dev;

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        fprintf(stderr, "lwt-bench --peer: %s: %s\n", what, cudaGetErrorString(e));
    return e != cudaSuccess;
}

/* the block or the rows from device d to the other, on d's copy stream */
static cudaError_t issue_copy(peer_dev *dv, int d, int rows2d)
{
    peer_dev *o = &dv[1 - d];
    if (rows2d)
        return cudaMemcpy2DAsync(o->dst, PITCH, dv[d].src, PITCH, ROW_BYTES, ROWS, cudaMemcpyDefault, dv[d].copy);
    return cudaMemcpyPeerAsync(o->dst, 1 - d, dv[d].src, d, ROW_BYTES * ROWS, dv[d].copy);
}

/* One configuration on both devices: copies from `from` devices (bit d: device d copies to the
 * other), the transform on `work` devices; ms[d][0] the copy's time and ms[d][1] the
 * transform's, from device d's start event. 0, or 1 on a CUDA error. */
static int run_once(peer_dev *dv, unsigned from, unsigned work, int rows2d, float ms[2][2])
{
    for (int d = 0; d < 2; d++) {
        if (check(cudaSetDevice(d), "cudaSetDevice") || check(cudaEventRecord(dv[d].start, dv[d].work), "event") ||
            check(cudaStreamWaitEvent(dv[d].copy, dv[d].start, 0), "wait"))
            return 1;
    }
    for (int d = 0; d < 2; d++) {
        cudaSetDevice(d);
        if ((from >> d & 1) && check(issue_copy(dv, d, rows2d), "peer copy"))
            return 1;
        if ((work >> d & 1) && lwt_forward_device(dv[d].plan, dv[d].x, dv[d].c, dv[d].ws, dv[d].work) != LWT_OK) {
            fprintf(stderr, "lwt-bench --peer: the transform failed on device %d\n", d);
            return 1;
        }
        if (check(cudaEventRecord(dv[d].copied, dv[d].copy), "event") ||
            check(cudaEventRecord(dv[d].worked, dv[d].work), "event"))
            return 1;
    }
    for (int d = 0; d < 2; d++) {
        cudaSetDevice(d);
        if (check(cudaEventSynchronize(dv[d].copied), "sync") || check(cudaEventSynchronize(dv[d].worked), "sync") ||
            check(cudaEventElapsedTime(&ms[d][0], dv[d].start, dv[d].copied), "elapsed") ||
            check(cudaEventElapsedTime(&ms[d][1], dv[d].start, dv[d].worked), "elapsed"))
            return 1;
    }
    return 0;
}

/* medians over reps runs (after one warm-up) of ms[d][k] */
static int run_median(peer_dev *dv, unsigned from, unsigned work, int rows2d, int reps, double med[2][2])
{
    double *v = malloc(4 * (size_t)reps * sizeof *v);
    float ms[2][2];
    int rc = !v || run_once(dv, from, work, rows2d, ms);
    for (int r = 0; r < reps && !rc; r++) {
        rc = run_once(dv, from, work, rows2d, ms);
        for (int k = 0; k < 4; k++)
            v[k * reps + r] = ms[k / 2][k % 2];
    }
    for (int k = 0; k < 4 && !rc; k++)
        med[k / 2][k % 2] = bench_median(v + k * reps, reps);
    free(v);
    return rc;
}

/* a CUDA plan of the 4-level CDF 9/7 forward of an n x n float32 array on device d; 0 or 1 */
static int cdf97_plan(lwt_context *ctx, size_t n, int d, lwt_plan **p)
{
    lwt_wavelet *w;
    *p = NULL;
    if (lwt_wavelet_create(ctx, "bior4.4", &w) != LWT_OK)
        return 1;
    lwt_plan_desc desc = lwt_plan_desc_default();
    desc.wavelet = w;
    desc.ndim = 2;
    desc.shape[0] = desc.shape[1] = n;
    desc.levels = 4;
    desc.mode = LWT_MODE_PERIODIZATION;
    desc.dtype = LWT_F32;
    desc.backend = LWT_BACKEND_CUDA;
    desc.device = d;
    const int bad = lwt_plan_create(ctx, &desc, p) != LWT_OK;
    lwt_wavelet_destroy(w); /* the plan keeps its own copy */
    return bad;
}

static int setup(lwt_context *ctx, peer_dev *dv, int d)
{
    const size_t n = 16384, bytes = n * n * sizeof(float);
    if (check(cudaSetDevice(d), "cudaSetDevice") || check(cudaDeviceEnablePeerAccess(1 - d, 0), "peer access") ||
        check(cudaMalloc((void **)&dv->src, ROWS * PITCH), "cudaMalloc") ||
        check(cudaMalloc((void **)&dv->dst, ROWS * PITCH), "cudaMalloc") ||
        check(cudaMemset(dv->src, 1, ROWS * PITCH), "cudaMemset") || check(cudaMalloc(&dv->x, bytes), "cudaMalloc") ||
        check(cudaMalloc(&dv->c, bytes), "cudaMalloc") || check(cudaMemset(dv->x, 0, bytes), "cudaMemset") ||
        check(cudaStreamCreateWithFlags(&dv->copy, cudaStreamNonBlocking), "stream") ||
        check(cudaStreamCreateWithFlags(&dv->work, cudaStreamNonBlocking), "stream") ||
        check(cudaEventCreate(&dv->start), "event") || check(cudaEventCreate(&dv->copied), "event") ||
        check(cudaEventCreate(&dv->worked), "event"))
        return 1;
    size_t ws = 0;
    return cdf97_plan(ctx, n, d, &dv->plan) || lwt_plan_device_workspace_size(dv->plan, &ws) != LWT_OK ||
           (ws && check(cudaMalloc(&dv->ws, ws), "cudaMalloc"));
}

static void teardown(peer_dev *dv, int d)
{
    cudaSetDevice(d);
    cudaFree(dv->src);
    cudaFree(dv->dst);
    cudaFree(dv->x);
    cudaFree(dv->c);
    cudaFree(dv->ws);
    if (dv->copy)
        cudaStreamDestroy(dv->copy);
    if (dv->work)
        cudaStreamDestroy(dv->work);
    if (dv->start)
        cudaEventDestroy(dv->start);
    if (dv->copied)
        cudaEventDestroy(dv->copied);
    if (dv->worked)
        cudaEventDestroy(dv->worked);
    lwt_plan_destroy(dv->plan);
}

/* ms of one copy of n rows from device 0's src into the VMM rows at dst (row pitch PITCH),
   issued on device `on`'s copy stream: right halves (2-D) or whole rows (one block) */
static int vmm_copy(peer_dev *dv, int on, char *dst, size_t n, int whole, float *ms)
{
    cudaSetDevice(on);
    cudaStream_t st = dv[on].copy;
    cudaError_t e = cudaEventRecord(dv[on].start, st);
    if (!e)
        e = whole ? cudaMemcpyAsync(dst, dv[0].src, n * PITCH, cudaMemcpyDefault, st)
                  : cudaMemcpy2DAsync(dst + ROW_BYTES, PITCH, dv[0].src, PITCH, ROW_BYTES, n, cudaMemcpyDefault, st);
    if (!e)
        e = cudaEventRecord(dv[on].copied, st);
    if (!e)
        e = cudaEventSynchronize(dv[on].copied);
    if (!e)
        e = cudaEventElapsedTime(ms, dv[on].start, dv[on].copied);
    return check(e, "copy into the spread's array");
}

/* the longest run of whole rows of the packed array c (rows of PITCH bytes) on device 1 */
static size_t rows_on_1(const lwt_spread *s, const char *c, size_t nrows, size_t *first)
{
    size_t best = 0, run = 0;
    *first = 0;
    for (size_t r = 0; r < nrows; r++) {
        int d0 = -1, d1 = -1;
        lwt_spread_device_of(s, c, r * PITCH, &d0);
        lwt_spread_device_of(s, c, r * PITCH + PITCH - 1, &d1);
        run = d0 == 1 && d1 == 1 ? run + 1 : 0;
        if (run > best) {
            best = run;
            *first = r + 1 - run;
        }
    }
    return best;
}

static int vmm_rows(lwt_context *ctx, peer_dev *dv, int reps, double gb_rows)
{
    const size_t n = 32768; /* a row of PITCH bytes */
    lwt_plan *p = NULL;
    lwt_spread *s = NULL;
    void *c = NULL;
    const int devs[2] = {0, 1};
    int rc = cdf97_plan(ctx, n, 0, &p) || lwt_spread_create(p, 2, devs, &s) != LWT_OK ||
             lwt_spread_alloc(s, LWT_SPREAD_COEFFS, &c) != LWT_OK;
    size_t first = 0, run = rc ? 0 : rows_on_1(s, c, n, &first);
    if (!rc && run < 64) {
        fprintf(stderr, "lwt-bench --peer: no run of rows on device 1 in the spread's array\n");
        rc = 1;
    }
    run = run < ROWS ? run : ROWS;
    const double gb_half = gb_rows * (double)run / ROWS, gb_whole = 2 * gb_half;
    struct {
        const char *what;
        int on, whole;
        double gb;
    } runs[] = {{"spread array, half rows, pushed by device 0", 0, 0, gb_half},
                {"spread array, half rows, pulled by device 1", 1, 0, gb_half},
                {"spread array, whole rows, pushed by device 0", 0, 1, gb_whole},
                {"spread array, whole rows, pulled by device 1", 1, 1, gb_whole}};
    if (!rc)
        printf("rows %zu-%zu of the spread's packed 32768^2 array (all on device 1), from device 0's buffer:\n", first,
               first + run - 1);
    double *v = malloc((size_t)reps * sizeof *v);
    rc = rc || !v;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0] && !rc; i++) {
        float ms = 0;
        for (int r = -1; r < reps && !rc; r++) {
            rc = vmm_copy(dv, runs[i].on, (char *)c + first * PITCH, run, runs[i].whole, &ms);
            if (r >= 0)
                v[r] = ms;
        }
        if (!rc) {
            const double med = bench_median(v, reps);
            printf("%-46s %6.3f ms (%3.0f GB/s)\n", runs[i].what, med, runs[i].gb / (med * 1e-3));
        }
    }
    free(v);
    lwt_spread_destroy(s);
    lwt_plan_destroy(p);
    return rc;
}

int bench_peer(lwt_context *ctx, const bench_opts *o)
{
    int n = 0, a = 0, b = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2 || cudaDeviceCanAccessPeer(&a, 0, 1) != cudaSuccess ||
        cudaDeviceCanAccessPeer(&b, 1, 0) != cudaSuccess || !a || !b) {
        fprintf(stderr, "lwt-bench --peer: needs two CUDA devices with peer access (%d devices)\n", n);
        return 1;
    }
    peer_dev dv[2];
    memset(dv, 0, sizeof dv);
    int rc = setup(ctx, &dv[0], 0) || setup(ctx, &dv[1], 1);
    const double gb = (double)(ROW_BYTES * ROWS) / 1e9;
    struct {
        const char *what;
        unsigned from, work;
        int rows2d;
    } runs[] = {{"block, device 0 -> 1", 1, 0, 0},
                {"block, both ways at once", 3, 0, 0},
                {"rows (64 KiB, pitch 128 KiB), device 0 -> 1", 1, 0, 1},
                {"rows, both ways at once", 3, 0, 1},
                {"transform on both devices, no copies", 0, 3, 0},
                {"transform on both + blocks both ways", 3, 3, 0},
                {"transform on both + rows both ways", 3, 3, 1}};
    if (!rc)
        printf("lwt-bench --peer: %.0f MiB a copy; transform: CDF 9/7 4 levels 16384^2 float32 on each device; "
               "median of %d\n%-46s %19s %19s %12s %12s\n",
               (double)(ROW_BYTES * ROWS) / (1 << 20), o->reps, "run", "copy from 0, ms", "copy from 1, ms",
               "xform0 ms", "xform1 ms");
    for (size_t i = 0; i < sizeof runs / sizeof runs[0] && !rc; i++) {
        double med[2][2];
        if ((rc = run_median(dv, runs[i].from, runs[i].work, runs[i].rows2d, o->reps, med)))
            break;
        printf("%-46s", runs[i].what);
        for (int k = 0; k < 2; k++)
            if (runs[i].from >> k & 1)
                printf(" %6.3f (%3.0f GB/s)", med[k][0], gb / (med[k][0] * 1e-3));
            else
                printf(" %19s", "-");
        for (int k = 0; k < 2; k++)
            if (runs[i].work >> k & 1)
                printf(" %12.3f", med[k][1]);
            else
                printf(" %12s", "-");
        printf("\n");
    }
    if (!rc)
        rc = vmm_rows(ctx, dv, o->reps, gb);
    teardown(&dv[0], 0);
    teardown(&dv[1], 1);
    return rc;
}
