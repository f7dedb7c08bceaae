/*
 * The device-resident spread over several GPUs (lwt_cuda.h, lwt_spread_*): the
 * part of the job that drives the devices (shares and placement: spread_job.h,
 * spread_layout.c).
 *
 * Device k launches the tile rows of its share of each level
 * (lwt_cuda_slide2d_regs_tiles; forward levels in pairs where the plan pairs
 * them, lwt_cuda_slide_pair_tiles) on its own stream, its blocks going round
 * regions of its rows (SPREAD_REGIONS). Rows of the arrays live
 * where they are written (forward: the share's coefficient rows at each level,
 * and the samples they come from); what a device reads from its neighbours is
 * its tiles' halo, over NVLink. Between levels each device's stream waits for
 * the others' events (level j + 1 reads rows of level j that another device
 * wrote), so the host issues every level at once and waits only at the end.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "core/context.h"
#include "core/plan.h"
#include "stream/spread_job.h"
}
#include "core/fail.h"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_plan_levels.cuh"
#include "cuda/cuda_slide_pair.cuh"
#include "cuda/cuda_slide_regs.cuh"
#include "cuda/cuda_spread_mem.cuh"
#include "lwt_cuda.h"

#define SPREAD_MAX_ALLOCS 64

struct lwt_spread {
    const lwt_plan *plan;
    int ndev;
    int dev[SPREAD_MAX_DEV];
    int plan_k; /* the plan's device's index in dev */
    cudaStream_t stream[SPREAD_MAX_DEV];
    cudaEvent_t done[SPREAD_MAX_DEV];
    int split[2];
    spread_layout lay; /* lay.lv: [levels + 1], index j */
    lwt_vmm vmm;
    lwt_spread_mem *approx; /* [levels + 1]: a_j, 1 <= j < levels (the split path's) */
    struct {
        lwt_spread_mem m;
        int used;
    } arr[SPREAD_MAX_ALLOCS];
    void *ws; /* the plan device's workspace (the whole-plan path) */
    /* lwt_spread_timeline: per device, the idle point then each pass's begin and end
       (tl[k * tl_cap + 0], then 1 + 2 i and 2 + 2 i), tl_n passes recorded in the last call */
    cudaEvent_t *tl;
    int tl_cap, tl_n;
};

/* ------------------------------------------------------------ placement */

typedef struct owner_user {
    const lwt_spread *s;
    int kind;  /* 0: level array, 1: packed coefficients */
    int level; /* kind 0: j (0: the samples) */
    size_t row_bytes;
} owner_user;

static int owner_of_byte(const void *user, size_t byte)
{
    const owner_user *u = (const owner_user *)user;
    const size_t r = byte / u->row_bytes;
    const int k = u->kind ? spread_packed_row_owner(&u->s->lay, r) : spread_array_row_owner(&u->s->lay, u->level, r);
    return u->s->dev[k];
}

/* ------------------------------------------------------------ lifetime */

static lwt_status spread_alloc_mem(lwt_spread *s, size_t bytes, owner_user *u, lwt_spread_mem *m)
{
    const lwt_context *ctx = s->plan->ctx;
    char err[160];
    const int r = lwt_spread_mem_alloc(&s->vmm, s->dev, s->ndev, bytes, owner_of_byte, u, m, err, sizeof err);
    if (r)
        return lwt_fail(ctx, r == (int)CUDA_ERROR_OUT_OF_MEMORY ? LWT_ERR_OUT_OF_MEMORY : LWT_ERR_DEVICE,
                        "spread array of %zu bytes: %s", bytes, err);
    return LWT_OK;
}

static lwt_status check_devices(const lwt_plan *p, int ndev, const int *devs, int *plan_k)
{
    const lwt_context *ctx = p->ctx;
    int count = 0;
    LWT_CUDA_CHECK(ctx, cudaGetDeviceCount(&count));
    *plan_k = -1;
    for (int k = 0; k < ndev; k++) {
        if (devs[k] < 0 || devs[k] >= count)
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "spread: device %d does not exist (%d devices)", devs[k],
                            count);
        if (devs[k] == p->device && *plan_k < 0)
            *plan_k = k;
        for (int q = 0; q < k; q++) {
            int can = 1;
            if (devs[q] != devs[k])
                LWT_CUDA_CHECK(ctx, cudaDeviceCanAccessPeer(&can, devs[k], devs[q]));
            if (!can)
                return lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "spread: devices %d and %d have no peer access", devs[k],
                                devs[q]);
        }
    }
    if (*plan_k < 0)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "spread: the plan's device %d is not in the device list",
                        p->device);
    return LWT_OK;
}

/* the levels' kernels, then the devices' shares of them */
static lwt_status plan_levels(lwt_spread *s)
{
    const lwt_plan *p = s->plan;
    const bool shape_ok = p->ndim == 2 && p->desc.batch == 1 && !p->direct && p->levels >= 1;
    s->split[0] = s->split[1] = shape_ok;
    for (int j = 1; j <= p->levels; j++)
        for (int inv = 0; inv < 2; inv++) {
            spread_level *L = &s->lay.lv[j];
            L->g[inv] = shape_ok ? lwt_cuda_plan_level(p, j, inv, &L->shape[inv], &L->improved[inv]) : NULL;
            if (!L->g[inv])
                s->split[inv] = 0;
        }
    /* forward levels in pairs where the plan pairs them (the same bits as one level at a time):
       the level-j approximation is neither written nor read back, as on one GPU in memory.
       Measured on 2 x H100, 32768^2 CDF 9/7 4 levels, one level at a time: one device through
       the spread 4.78 ms against 4.20 in memory; in pairs 4.24 against 4.17 */
    for (int j = 1; j < p->levels && s->split[0]; j++)
        if ((s->lay.lv[j].pair = lwt_cuda_plan_pair(p, j, &s->lay.lv[j].pair_shape)))
            j++;
    return spread_layout_shares(&s->lay);
}

extern "C" lwt_status lwt_spread_create(const lwt_plan *p, int ndev, const int *devs, lwt_spread **out)
{
    if (!out)
        return LWT_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!p || !devs || ndev < 1 || ndev > SPREAD_MAX_DEV)
        return p ? lwt_fail(p->ctx, LWT_ERR_INVALID_ARGUMENT, "spread: 1 to %d devices", SPREAD_MAX_DEV)
                 : LWT_ERR_INVALID_ARGUMENT;
    const lwt_context *ctx = p->ctx;
    if (p->f32)
        return lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "spread: float16 and bfloat16 plans are not spread yet");
    if (p->backend != LWT_BACKEND_CUDA || !p->bstate)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "spread: the plan must use the CUDA backend");
    int plan_k = -1;
    lwt_status st = check_devices(p, ndev, devs, &plan_k);
    if (st)
        return st;
    lwt_spread *s = (lwt_spread *)calloc(1, sizeof *s);
    if (!s)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "spread: out of memory");
    s->plan = p;
    s->ndev = ndev;
    s->lay.plan = p;
    s->lay.ndev = ndev;
    s->plan_k = plan_k;
    memcpy(s->dev, devs, sizeof(int) * (size_t)ndev);
    s->lay.lv = (spread_level *)calloc((size_t)p->levels + 1, sizeof *s->lay.lv);
    s->approx = (lwt_spread_mem *)calloc((size_t)p->levels + 1, sizeof *s->approx);
    if (!s->lay.lv || !s->approx) {
        lwt_spread_destroy(s);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "spread: out of memory");
    }
    st = lwt_vmm_load(ctx, &s->vmm);
    if (st) {
        lwt_spread_destroy(s);
        return st;
    }
    int cur = 0;
    cudaGetDevice(&cur);
    for (int k = 0; k < ndev && !st; k++) {
        cudaError_t e = cudaSetDevice(devs[k]);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithFlags(&s->stream[k], cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&s->done[k], cudaEventDisableTiming);
        if (e != cudaSuccess)
            st = lwt_cuda_fail(ctx, e, "spread: making a stream and an event");
    }
    cudaSetDevice(cur);
    if (!st) {
        st = plan_levels(s);
        /* the split path's approximations a_1 .. a_{J-1}, rows where they are written */
        for (int j = 1; j < p->levels && !st && (s->split[0] || s->split[1]); j++) {
            owner_user u = {s, 0, j, p->sizes[j][1] * lwt_plan_elem_size(p)};
            st = spread_alloc_mem(s, p->sizes[j][0] * u.row_bytes, &u, &s->approx[j]);
        }
    }
    if (!st && !(s->split[0] && s->split[1])) {
        size_t wb = 0;
        st = lwt_plan_device_workspace_size(p, &wb);
        cudaSetDevice(p->device);
        if (!st && cudaMalloc(&s->ws, wb ? wb : 1) != cudaSuccess) {
            cudaGetLastError();
            st = lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "spread: %zu bytes of workspace on device %d", wb, p->device);
        }
        cudaSetDevice(cur);
    }
    if (st) {
        lwt_spread_destroy(s);
        return st;
    }
    lwt_log(ctx, LWT_LOG_DEBUG, "spread over %d devices: forward %s, inverse %s", ndev,
            s->split[0] ? "split by tile rows" : "on the plan's device",
            s->split[1] ? "split by tile rows" : "on the plan's device");
    *out = s;
    return LWT_OK;
}

extern "C" void lwt_spread_destroy(lwt_spread *s)
{
    if (!s)
        return;
    int cur = 0;
    cudaGetDevice(&cur);
    for (int k = 0; k < s->ndev; k++) {
        cudaSetDevice(s->dev[k]);
        if (s->stream[k])
            cudaStreamSynchronize(s->stream[k]);
    }
    for (int i = 0; i < SPREAD_MAX_ALLOCS; i++)
        if (s->arr[i].used)
            lwt_spread_mem_free(&s->vmm, &s->arr[i].m);
    for (int j = 0; s->approx && j <= s->plan->levels; j++)
        if (s->approx[j].base)
            lwt_spread_mem_free(&s->vmm, &s->approx[j]);
    for (int k = 0; k < s->ndev; k++) {
        cudaSetDevice(s->dev[k]);
        if (s->stream[k])
            cudaStreamDestroy(s->stream[k]);
        if (s->done[k])
            cudaEventDestroy(s->done[k]);
    }
    if (s->ws) {
        cudaSetDevice(s->plan->device);
        cudaFree(s->ws);
    }
    for (int k = 0; s->tl && k < s->ndev; k++) {
        cudaSetDevice(s->dev[k]);
        for (int i = 0; i < s->tl_cap; i++)
            if (s->tl[k * s->tl_cap + i])
                cudaEventDestroy(s->tl[k * s->tl_cap + i]);
    }
    free(s->tl);
    cudaSetDevice(cur);
    free(s->lay.lv);
    free(s->approx);
    free(s);
}

extern "C" lwt_status lwt_spread_alloc(lwt_spread *s, lwt_spread_array what, void **ptr)
{
    if (!s || !ptr || (what != LWT_SPREAD_SAMPLES && what != LWT_SPREAD_COEFFS))
        return LWT_ERR_INVALID_ARGUMENT;
    *ptr = NULL;
    const lwt_plan *p = s->plan;
    int i = 0;
    while (i < SPREAD_MAX_ALLOCS && s->arr[i].used)
        i++;
    if (i == SPREAD_MAX_ALLOCS)
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "spread: more than %d arrays", SPREAD_MAX_ALLOCS);
    const size_t es = lwt_plan_elem_size(p);
    owner_user u = {s, what == LWT_SPREAD_COEFFS, 0, 0};
    size_t rows;
    if (what == LWT_SPREAD_COEFFS) {
        rows = p->ndim >= 1 ? p->packed[0] : 1;
        u.row_bytes = p->coeff_count * es / (rows ? rows : 1);
    } else {
        rows = p->shape[0];
        u.row_bytes = p->input_count * es / (rows ? rows : 1);
    }
    const size_t bytes = (what == LWT_SPREAD_COEFFS ? p->coeff_count : p->input_count) * es * p->desc.batch;
    if (!u.row_bytes)
        u.row_bytes = 1;
    lwt_status st = spread_alloc_mem(s, bytes, &u, &s->arr[i].m);
    if (st)
        return st;
    s->arr[i].used = 1;
    *ptr = s->arr[i].m.base;
    return LWT_OK;
}

static int find_array(const lwt_spread *s, const void *ptr)
{
    for (int i = 0; i < SPREAD_MAX_ALLOCS; i++)
        if (s->arr[i].used && s->arr[i].m.base == ptr)
            return i;
    return -1;
}

extern "C" lwt_status lwt_spread_free(lwt_spread *s, void *ptr)
{
    if (!s)
        return LWT_ERR_INVALID_ARGUMENT;
    if (!ptr)
        return LWT_OK;
    const int i = find_array(s, ptr);
    if (i < 0)
        return lwt_fail(s->plan->ctx, LWT_ERR_INVALID_ARGUMENT, "spread: %p is not one of this spread's arrays", ptr);
    lwt_spread_mem_free(&s->vmm, &s->arr[i].m);
    s->arr[i].used = 0;
    return LWT_OK;
}

extern "C" lwt_status lwt_spread_device_of(const lwt_spread *s, const void *ptr, size_t byte, int *device)
{
    if (!s || !device)
        return LWT_ERR_INVALID_ARGUMENT;
    const int i = find_array(s, ptr);
    if (i < 0 || byte >= s->arr[i].m.bytes)
        return LWT_ERR_INVALID_ARGUMENT;
    *device = lwt_spread_mem_device(&s->arr[i].m, byte);
    return LWT_OK;
}

extern "C" int lwt_spread_split(const lwt_spread *s, int inverse)
{
    return s ? s->split[inverse ? 1 : 0] : 0;
}

/* ------------------------------------------------------------ execution */

/* every device's stream waits for the other devices' last step (events not
   recorded in this call completed before it: wait_all ended the call before) */
static lwt_status barrier(lwt_spread *s)
{
    const lwt_context *ctx = s->plan->ctx;
    for (int k = 0; k < s->ndev; k++) {
        LWT_CUDA_CHECK(ctx, cudaSetDevice(s->dev[k]));
        for (int q = 0; q < s->ndev; q++)
            if (q != k)
                LWT_CUDA_CHECK(ctx, cudaStreamWaitEvent(s->stream[k], s->done[q], 0));
    }
    return LWT_OK;
}

/* The blocks of a device's share go round this many regions of its tile rows
 * (lwt_slide_runs_plan) instead of down them in order. The rows a device writes to another
 * device's memory (the forward's level-j detail rows beside coarser bands placed elsewhere,
 * spread_layout.c) lie in one or two stretches of its share; in order, the blocks writing them
 * ran together, at what NVLink takes, and the others after them. Measured on 2 x H100 (NVLink
 * NV18), 32768^2 CDF 9/7 4 levels, forward / inverse, ms (one GPU 4.17 / 4.98): one level a
 * pass, in order 2.609 / 2.824; whole rows of runs taken from the regions in turn (a first
 * version: about one wave of blocks a row, so still one region at a time) 2 regions 2.987 /
 * 2.762, 4 regions 2.472 / 2.749, 8 regions 2.508 / 2.747; the blocks themselves going round
 * the regions (this version), forward levels in pairs: in order 2.454 / 2.799, 4 regions
 * 2.315 / 2.823, 8 regions 2.302 / 2.761 (docs/PERFORMANCE.md, "Two GPUs: the blocks' order
 * and the pairs of levels"). */
#define SPREAD_REGIONS 8

/* ------------------------------------------------------------ timeline */

extern "C" lwt_status lwt_spread_timeline_on(lwt_spread *s)
{
    if (!s)
        return LWT_ERR_INVALID_ARGUMENT;
    if (s->tl)
        return LWT_OK;
    const lwt_context *ctx = s->plan->ctx;
    const int cap = 1 + 2 * s->plan->levels;
    s->tl = (cudaEvent_t *)calloc((size_t)(s->ndev * cap), sizeof *s->tl);
    if (!s->tl)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "spread: out of memory");
    s->tl_cap = cap;
    s->tl_n = 0;
    int cur = 0;
    cudaGetDevice(&cur);
    lwt_status st = LWT_OK;
    for (int k = 0; k < s->ndev && !st; k++) {
        cudaError_t e = cudaSetDevice(s->dev[k]);
        for (int i = 0; i < cap && e == cudaSuccess; i++)
            e = cudaEventCreate(&s->tl[k * cap + i]);
        if (e != cudaSuccess)
            st = lwt_cuda_fail(ctx, e, "spread: making the timeline's events");
    }
    for (int k = 0; st && k < s->ndev; k++) { /* none half made: the calls would record on them */
        cudaSetDevice(s->dev[k]);
        for (int i = 0; i < cap; i++)
            if (s->tl[k * cap + i])
                cudaEventDestroy(s->tl[k * cap + i]);
    }
    if (st) {
        free(s->tl);
        s->tl = NULL;
    }
    cudaSetDevice(cur);
    return st;
}

extern "C" int lwt_spread_timeline(const lwt_spread *s, int k, int i, float *begin_ms, float *end_ms)
{
    if (!s || !s->tl || k < 0 || k >= s->ndev || i < 0 || i >= s->tl_n || !begin_ms || !end_ms)
        return 0;
    const cudaEvent_t *e = s->tl + k * s->tl_cap;
    int cur = 0;
    cudaGetDevice(&cur);
    cudaSetDevice(s->dev[k]);
    const int ok = cudaEventElapsedTime(begin_ms, e[0], e[1 + 2 * i]) == cudaSuccess &&
                   cudaEventElapsedTime(end_ms, e[0], e[2 + 2 * i]) == cudaSuccess;
    cudaSetDevice(cur);
    return ok;
}

/* the timeline's event `which` (0: idle point, 1: a pass begins, 2: it ends) on device k
   (the current device), for pass tl_n; nothing when the timeline is off */
static cudaError_t mark(lwt_spread *s, int k, int which)
{
    if (!s->tl || s->tl_n >= (s->tl_cap - 1) / 2)
        return cudaSuccess;
    return cudaEventRecord(s->tl[k * s->tl_cap + (which ? 2 * s->tl_n + which : 0)], s->stream[k]);
}

/* one pass on every device, after the others' last step: launch(k) runs device k's share on
   its stream (the current device), then the device's event; the timeline's marks around it */
template <typename LAUNCH> static lwt_status run_pass(lwt_spread *s, LAUNCH launch)
{
    const lwt_context *ctx = s->plan->ctx;
    lwt_status st = barrier(s);
    if (st)
        return st;
    for (int k = 0; k < s->ndev; k++) {
        LWT_CUDA_CHECK(ctx, cudaSetDevice(s->dev[k]));
        LWT_CUDA_CHECK(ctx, mark(s, k, 1));
        LWT_CUDA_CHECK(ctx, launch(k));
        LWT_CUDA_CHECK(ctx, mark(s, k, 2));
        LWT_CUDA_CHECK(ctx, cudaEventRecord(s->done[k], s->stream[k]));
    }
    s->tl_n++;
    return LWT_OK;
}

/* one level: each device its share of the tile rows */
static lwt_status run_level(lwt_spread *s, int j, int inv, const void *const in[4], const size_t in_stride[4],
                            void *const out[4], const size_t out_stride[4])
{
    const lwt_plan *p = s->plan;
    const spread_level *L = &s->lay.lv[j];
    const int regions = s->ndev > 1 ? SPREAD_REGIONS : 1;
    return run_pass(s, [&](int k) {
        return lwt_cuda_slide2d_regs_tiles(L->shape[inv], L->improved[inv], L->g[inv], &p->wavelet.scheme,
                                           p->desc.dtype, in, in_stride, out, out_stride, L->tile[inv][k],
                                           L->tile[inv][k + 1], regions, s->stream[k]);
    });
}

/* the pair of forward levels j and j + 1: each device its share of level j + 1's tile rows */
static lwt_status run_pair(lwt_spread *s, int j, const void *in, size_t in_stride, void *const out1[4],
                           const size_t out1_stride[4], void *const out2[4], const size_t out2_stride[4])
{
    const lwt_plan *p = s->plan;
    const spread_level *L = &s->lay.lv[j], *L2 = &s->lay.lv[j + 1];
    const int regions = s->ndev > 1 ? SPREAD_REGIONS : 1;
    return run_pass(s, [&](int k) {
        return lwt_cuda_slide_pair_tiles(L->pair_shape, L->pair, &p->wavelet.scheme, in, in_stride, out1, out1_stride,
                                         out2, out2_stride, L2->tile[0][k], L2->tile[0][k + 1], regions,
                                         s->stream[k]);
    });
}

static lwt_status wait_all(lwt_spread *s)
{
    const lwt_context *ctx = s->plan->ctx;
    for (int k = 0; k < s->ndev; k++) {
        LWT_CUDA_CHECK(ctx, cudaSetDevice(s->dev[k]));
        LWT_CUDA_CHECK(ctx, cudaStreamSynchronize(s->stream[k]));
    }
    return LWT_OK;
}

/* work issued before the call on the set's devices completes first */
static lwt_status start(lwt_spread *s)
{
    const lwt_context *ctx = s->plan->ctx;
    for (int k = 0; k < s->ndev; k++) {
        bool seen = false;
        for (int q = 0; q < k; q++)
            seen |= s->dev[q] == s->dev[k];
        if (seen)
            continue;
        LWT_CUDA_CHECK(ctx, cudaSetDevice(s->dev[k]));
        LWT_CUDA_CHECK(ctx, cudaDeviceSynchronize());
    }
    s->tl_n = 0;
    for (int k = 0; k < s->ndev; k++) {
        LWT_CUDA_CHECK(ctx, cudaSetDevice(s->dev[k]));
        LWT_CUDA_CHECK(ctx, mark(s, k, 0));
    }
    return LWT_OK;
}

static void *band_at(const lwt_plan *p, const void *coeffs, int j, unsigned mask)
{
    lwt_band b;
    lwt_plan_band(p, p->levels - j + 1, mask, &b);
    return (char *)coeffs + (b.offset[0] * p->packed[1] + b.offset[1]) * lwt_plan_elem_size(p);
}

static lwt_status forward_split(lwt_spread *s, const void *in, void *coeffs)
{
    const lwt_plan *p = s->plan;
    const lwt_context *ctx = p->ctx;
    if (!p->tight) { /* PyWavelets pads the gaps with zeros; level 1's barrier waits for them */
        LWT_CUDA_CHECK(ctx, cudaSetDevice(s->dev[0]));
        LWT_CUDA_CHECK(ctx, lwt_cuda_zero_blocks(lwt_plan_elem_size(p), coeffs, p->gap_shape, p->gaps, p->ngaps, s->stream[0]));
        LWT_CUDA_CHECK(ctx, cudaEventRecord(s->done[0], s->stream[0]));
    }
    const void *cur = in;
    size_t cur_stride = p->shape[1];
    for (int j = 1; j <= p->levels; j++) {
        const int jl = s->lay.lv[j].pair ? j + 1 : j; /* the last level of this pass */
        void *dst[4], *dst1[4] = {NULL, NULL, NULL, NULL};
        size_t stride[4], stride1[4] = {0, 0, 0, 0};
        dst[0] = jl == p->levels ? coeffs : (void *)s->approx[jl].base;
        stride[0] = jl == p->levels ? p->packed[1] : p->sizes[jl][1];
        for (unsigned mask = 1; mask < 4; mask++) {
            dst[mask] = band_at(p, coeffs, jl, mask);
            dst1[mask] = band_at(p, coeffs, j, mask);
            stride[mask] = stride1[mask] = p->packed[1];
        }
        const void *src[4] = {cur, NULL, NULL, NULL};
        const size_t src_stride[4] = {cur_stride, 0, 0, 0};
        lwt_status st = jl > j ? run_pair(s, j, cur, cur_stride, dst1, stride1, dst, stride)
                               : run_level(s, j, 0, src, src_stride, dst, stride);
        if (st)
            return st;
        cur = dst[0];
        cur_stride = stride[0];
        j = jl;
    }
    return LWT_OK;
}

static lwt_status inverse_split(lwt_spread *s, const void *coeffs, void *out)
{
    const lwt_plan *p = s->plan;
    const void *approx = coeffs;
    size_t astride = p->packed[1];
    for (int j = p->levels; j >= 1; j--) {
        const void *src[4] = {approx, NULL, NULL, NULL};
        const size_t src_stride[4] = {astride, p->packed[1], p->packed[1], p->packed[1]};
        for (unsigned mask = 1; mask < 4; mask++)
            src[mask] = band_at(p, coeffs, j, mask);
        void *dst = j == 1 ? out : (void *)s->approx[j - 1].base;
        void *outs[4] = {dst, NULL, NULL, NULL};
        const size_t out_stride[4] = {p->sizes[j - 1][1], 0, 0, 0};
        lwt_status st = run_level(s, j, 1, src, src_stride, outs, out_stride);
        if (st)
            return st;
        approx = dst;
        astride = p->sizes[j - 1][1];
    }
    return LWT_OK;
}

static lwt_status run(lwt_spread *s, const void *in, void *out, int inv)
{
    if (!s || !in || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    const lwt_plan *p = s->plan;
    int cur = 0;
    cudaGetDevice(&cur);
    lwt_status st = start(s);
    if (!st && s->split[inv])
        st = inv ? inverse_split(s, in, out) : forward_split(s, in, out);
    else if (!st)
        st = inv ? lwt_inverse_device(p, in, out, s->ws, s->stream[s->plan_k])
                 : lwt_forward_device(p, in, out, s->ws, s->stream[s->plan_k]);
    /* wait even after a failure: nothing may still be writing when the call returns */
    lwt_status ws = wait_all(s);
    cudaSetDevice(cur);
    return st ? st : ws;
}

extern "C" lwt_status lwt_spread_forward(lwt_spread *s, const void *in, void *coeffs)
{
    return run(s, in, coeffs, 0);
}

extern "C" lwt_status lwt_spread_inverse(lwt_spread *s, const void *coeffs, void *out)
{
    return run(s, coeffs, out, 1);
}
