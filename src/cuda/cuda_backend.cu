/*
 * CUDA backend: per-plan device tables, the planner's questions (pure host
 * code on the plan's state), the driver's operations on a stream, host-pointer
 * and device-pointer execution; its table (lwt_cuda_backend) is what the core
 * sees of it.
 *
 * Scheme coefficients and filters travel with the plan (a device table made
 * at plan creation); nothing is a process-wide __constant__ symbol. Every
 * CUDA error becomes LWT_ERR_DEVICE with the error's name in the log.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "core/context.h"
#include "core/plan.h"
}
#include "cuda/cuda_chunk.cuh"
#include "cuda/cuda_half.cuh"
#include "cuda/cuda_kernels.cuh"
#include "core/fail.h"
#include "cuda/cuda_plan_levels.cuh"
#include "cuda/cuda_slide_pair.cuh"
#include "cuda/cuda_slide_regs.cuh"
#include "cuda/cuda_vol.cuh"
#include "lwt_cuda.h"


struct cuda_plan_state {
    lwt_dev_scheme dev;      /* pointers into table */
    void *table;             /* steps, taps and filters in one allocation */
    size_t scratch_elems;    /* doubles of per-pass scratch */
    /* 2-D lifting plans: the sliding-window level of each level j (index
       2 (j - 1) + inverse), made at plan creation; NULL where it does not fit */
    lwt_slide_geom **slide;
    int **slide_tab;         /* their schedules (lwt_slide_table), device memory */
    int *slide_regs;         /* the register kernel's shape for each, or -1: the generic kernel */
    /* forward levels j and j + 1 in one pass (cuda_slide_pair.cu), index j - 1; NULL
       where they run one by one */
    lwt_slide_pair **pair;
    /* 3-D forward levels in one pass (cuda_vol.cu), index j - 1; NULL where a level runs
       by planes */
    lwt_vol_geom **vol;
    /* lwt_forward / lwt_inverse on host pointers: device buffers made by the first such
       call and kept until the plan goes, so later calls allocate nothing; the lock makes
       those calls take turns with them */
    pthread_mutex_t io_lock;
    void *io_in, *io_out, *io_ws;
    cudaStream_t io_stream;
};

struct cuda_call {
    const lwt_plan *plan;
    cudaStream_t stream;
    double *scratch;
    /* a 16-bit plan's fused levels (lwt_driver_run_half): 1 float16, 2 bfloat16; the fused
       levels then store their detail bands, and level 1's signal side, in that type */
    int half;
};

extern "C" int lwt_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* no driver or no device: clear the sticky error */
        return 0;
    }
    return n;
}

extern "C" int lwt_cuda_host_register(void *p, size_t bytes)
{
    /* portable: pinned for every device's context, not only the current one (a rank's worker runs on
       its own GPU, the plan is made on whatever device is current) */
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}

extern "C" void lwt_cuda_host_unregister(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess)
        cudaGetLastError();
}

/* scratch a pass needs, in doubles per line */
static size_t scratch_per_line(const lwt_line_prog *lp)
{
    if (lp->direct)
        return 2 * (size_t)(lp->span.hi - lp->span.lo);
    return (size_t)(lp->ch[0].hi - lp->ch[0].lo) + (size_t)(lp->ch[1].hi - lp->ch[1].lo);
}

/* scratch of one pass: only the line kernel (direct path, very long schemes) uses it */
static size_t pass_scratch(const lwt_plan *p, const lwt_line_prog *lp, size_t outer, size_t inner, bool f32_in_float)
{
    lwt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.prog = lp;
    ps.scheme = &p->wavelet.scheme;
    ps.dtype = p->desc.dtype;
    ps.outer = outer;
    ps.inner = inner;
    /* the per-step arrangement keeps every pass's channels in scratch */
    if (p->desc.algorithm != LWT_ALGO_LIFTING_RC_STEPS && lwt_cuda_tiles_apply(&ps, f32_in_float))
        return 0;
    return scratch_per_line(lp) * outer * inner;
}

/* largest scratch over every pass of the plan, both directions */
static size_t plan_scratch(const lwt_plan *p, bool f32_in_float)
{
    size_t best = 0;
    lwt_line_prog *lp = (lwt_line_prog *)malloc(sizeof *lp);
    if (!lp)
        return 0;
    for (int j = 1; j <= p->levels; j++) {
        size_t shape[LWT_MAX_NDIM];
        memcpy(shape, p->sizes[j - 1], sizeof shape);
        for (int k = 0; k < p->ndim; k++) {
            size_t outer = 1, inner = 1;
            for (int q = 0; q < LWT_MAX_NDIM; q++) {
                if (q < k) outer *= shape[q];
                if (q > k) inner *= shape[q];
            }
            lwt_line_prog_forward(lp, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode,
                                  (long)p->sizes[j - 1][k]);
            size_t f = pass_scratch(p, lp, outer, inner, f32_in_float);
            lwt_line_prog_inverse(lp, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode,
                                  (long)p->sizes[j][k], (long)p->sizes[j - 1][k]);
            /* in the inverse the other axes are at 2 nc or already at their
               output length, which is never more */
            size_t iouter = 1, iinner = 1;
            for (int q = 0; q < p->ndim; q++) {
                if (q < k) iouter *= 2 * p->sizes[j][q];
                if (q > k) iinner *= 2 * p->sizes[j][q];
            }
            size_t i = pass_scratch(p, lp, iouter, iinner, f32_in_float);
            if (f > best) best = f;
            if (i > best) best = i;
            shape[k] = 2 * p->sizes[j][k];
        }
    }
    free(lp);
    return best;
}

/* the register kernel's steps along the rows: improved (eq. 16) or classic lifting;
   AUTO takes classic, measured as fast or faster on the H200 for every compiled-in
   shape (the merged pairs' extra registers spill in the CDF 9/7 forward: 2.1x slower;
   docs/PERFORMANCE.md, seed experiment 2) */
static int regs_improved(const lwt_plan *p)
{
    return p->tune.lifting == LWT_LIFT_IMPROVED;
}

static lwt_status plan_slides(lwt_plan *p, cuda_plan_state *st);

static lwt_status cuda_plan_init(lwt_plan *p)
{
    const lwt_context *ctx = p->ctx;
    cuda_plan_state *st = (cuda_plan_state *)calloc(1, sizeof *st);
    if (!st)
        return LWT_ERR_OUT_OF_MEMORY;
    if (pthread_mutex_init(&st->io_lock, NULL)) {
        free(st);
        return LWT_ERR_OUT_OF_MEMORY;
    }
    p->bstate = st;
    const lwt_scheme *s = &p->wavelet.scheme;
    const int F = p->fb.length;
    size_t bytes = sizeof(lwt_step) * LWT_SCHEME_MAX_STEPS + sizeof(double) * (LWT_SCHEME_MAX_TAPS + 4 * F);
    LWT_CUDA_CHECK(ctx, cudaSetDevice(p->device));
    LWT_CUDA_CHECK(ctx, cudaMalloc(&st->table, bytes));
    char *host = (char *)calloc(1, bytes);
    if (!host)
        return LWT_ERR_OUT_OF_MEMORY;
    memcpy(host, s->steps, sizeof(lwt_step) * LWT_SCHEME_MAX_STEPS);
    double *taps = (double *)(host + sizeof(lwt_step) * LWT_SCHEME_MAX_STEPS);
    memcpy(taps, s->taps, sizeof(double) * LWT_SCHEME_MAX_TAPS);
    double *filt = taps + LWT_SCHEME_MAX_TAPS;
    memcpy(filt, p->fb.dec_lo, sizeof(double) * F);
    memcpy(filt + F, p->fb.dec_hi, sizeof(double) * F);
    memcpy(filt + 2 * F, p->fb.rec_lo, sizeof(double) * F);
    memcpy(filt + 3 * F, p->fb.rec_hi, sizeof(double) * F);
    cudaError_t e = cudaMemcpy(st->table, host, bytes, cudaMemcpyHostToDevice);
    free(host);
    LWT_CUDA_CHECK(ctx, e);
    char *dt = (char *)st->table;
    st->dev.steps = (const lwt_step *)dt;
    st->dev.taps = (const double *)(dt + sizeof(lwt_step) * LWT_SCHEME_MAX_STEPS);
    st->dev.filters = st->dev.taps + LWT_SCHEME_MAX_TAPS;
    st->dev.F = F;
    st->dev.nsteps = s->nsteps;
    st->dev.ka = s->ka;
    st->dev.kd = s->kd;
    st->dev.ach = s->ach;
    st->dev.sa = s->sa;
    st->dev.sd = s->sd;
    /* float arithmetic for float32 plans only where it cannot be amplified:
       smooth and antireflect extrapolate (errors grow with distance), and
       levels beyond the maximum extend far past the data */
    st->dev.f32_in_float = p->wavelet.err32_arith <= LWT_ACCEPT_F32 && p->desc.mode != LWT_MODE_SMOOTH &&
                           p->desc.mode != LWT_MODE_ANTIREFLECT && p->levels <= p->max_level;
    st->scratch_elems = plan_scratch(p, st->dev.f32_in_float);
    return plan_slides(p, st);
}

/* The sliding-window kernel (LBB) runs the 2-D levels of plans that ask for
 * LWT_ALGO_LIFTING_LBB, wherever its ring fits in 100 KiB of shared memory.
 * AUTO keeps the separable passes: measured on the H200 (docs/PERFORMANCE.md,
 * version 9) they are as fast for Haar and faster for longer schemes
 * (CDF 9/7 16384^2, 4 levels: 4.7 vs 6.2 ms). */
static void free_slides(const lwt_plan *p, cuda_plan_state *st)
{
    for (int i = 0; i < 2 * p->levels; i++) {
        if (st->slide)
            free(st->slide[i]);
        if (st->slide_tab)
            cudaFree(st->slide_tab[i]);
        if (st->pair && i < p->levels)
            free(st->pair[i]);
    }
    for (int i = 0; st->vol && i < p->levels; i++)
        free(st->vol[i]);
    free(st->vol);
    st->vol = NULL;
    free(st->pair);
    st->pair = NULL;
    free(st->slide);
    free(st->slide_tab);
    free(st->slide_regs);
    st->slide = NULL;
    st->slide_tab = NULL;
    st->slide_regs = NULL;
}

/* The register kernel's level (cuda_slide_regs.cu), or NULL where it does not
 * apply (lwt_cuda_slide_regs_plan), where tuning was asked for, or where the
 * working type is not the element type. */
static lwt_slide_geom *plan_regs(const lwt_plan *p, const cuda_plan_state *st, int inv, size_t in0, size_t in1,
                                 size_t nc0, size_t nc1)
{
    if (p->tune.lbb_threads || p->tune.lbb_cols)
        return NULL;
    if (p->desc.dtype == LWT_F32 && !st->dev.f32_in_float)
        return NULL;
    return lwt_cuda_slide_regs_plan(&p->wavelet.scheme, p->desc.mode, p->fb.length, inv, (long)in0, (long)in1,
                                    (long)nc0, (long)nc1, 0, lwt_plan_elem_size(p));
}

/* Forward levels j and j + 1 of a 2-D plan in one pass where both run the register
 * kernel with classic lifting and the pair applies (core/slide_pair.h), unless the
 * plan asks for one level per pass. */
static lwt_status plan_pairs(lwt_plan *p, cuda_plan_state *st)
{
    const lwt_context *ctx = p->ctx;
    if (p->ndim != 2 || p->tune.fuse_levels == 1 || regs_improved(p) || !st->slide_regs)
        return LWT_OK;
    st->pair = (lwt_slide_pair **)calloc((size_t)p->levels, sizeof *st->pair);
    if (!st->pair)
        return LWT_ERR_OUT_OF_MEMORY;
    const size_t es = lwt_plan_elem_size(p);
    for (int j = 1; j < p->levels; j++) {
        if (st->slide_regs[2 * (j - 1)] < 0 || st->slide_regs[2 * j] < 0)
            continue;
        const size_t *in = p->sizes[j - 1];
        st->pair[j - 1] = lwt_cuda_slide_pair_plan(&p->wavelet.scheme, p->desc.mode, p->fb.length, (long)in[0],
                                                   (long)in[1], es);
        if (st->pair[j - 1])
            lwt_log(ctx, LWT_LOG_DEBUG, "levels %d and %d forward: one pass (level-2 strips of %d columns)", j, j + 1,
                    st->pair[j - 1]->g2.ax[1].T);
    }
    return LWT_OK;
}

/* The 3-D forward levels that run in one pass (cuda_vol.cu) where the plan asks for it: float32
 * plans computed in float, where the kernel applies. Not the planner's choice: on an H100, 1024^3
 * CDF 9/7 3 levels take 15.6 ms in one pass against 8.8 ms by planes (the same DRAM bytes as a
 * copy, 2.6 times the instructions; docs/PERFORMANCE.md, "3-D levels in one pass"). */
static lwt_status plan_volumes(lwt_plan *p, cuda_plan_state *st, int sms)
{
    if (p->ndim != 3 || p->desc.dtype != LWT_F32 || !st->dev.f32_in_float || p->tune.volume_pass != 1)
        return LWT_OK;
    st->vol = (lwt_vol_geom **)calloc((size_t)p->levels, sizeof *st->vol);
    if (!st->vol)
        return LWT_ERR_OUT_OF_MEMORY;
    for (int j = 1; j <= p->levels; j++) {
        const size_t *in = p->sizes[j - 1];
        st->vol[j - 1] = lwt_cuda_vol_plan(&p->wavelet.scheme, p->desc.mode, p->fb.length, in, in[2], sms);
        if (st->vol[j - 1])
            lwt_log(p->ctx, LWT_LOG_DEBUG, "level %d forward: the volume kernel (tiles of %d x %d, segments of %d rows)", j,
                    st->vol[j - 1]->ax[1].T, st->vol[j - 1]->ax[2].T, st->vol[j - 1]->ax[0].T);
    }
    return LWT_OK;
}

static lwt_status plan_slides(lwt_plan *p, cuda_plan_state *st)
{
    const lwt_context *ctx = p->ctx;
    const lwt_algorithm algo = p->desc.algorithm;
    free_slides(p, st);
    /* LBB: the sliding window for every level; AUTO and LIFTING: where the
       register kernel applies (measured faster than RC there), else RC */
    const bool lbb = algo == LWT_ALGO_LIFTING_LBB;
    if (p->ndim < 2 || p->direct || !(lbb || algo == LWT_ALGO_AUTO || algo == LWT_ALGO_LIFTING))
        return LWT_OK;
    /* 3-D: the register kernel on the planes (axes 1 and 2) of each level, a batch
       of them per launch, around the pass along axis 0 */
    const int a0 = p->ndim - 2;
    int sms = 0;
    LWT_CUDA_CHECK(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, p->device));
    st->slide = (lwt_slide_geom **)calloc((size_t)2 * p->levels, sizeof *st->slide);
    st->slide_tab = (int **)calloc((size_t)2 * p->levels, sizeof *st->slide_tab);
    st->slide_regs = (int *)malloc(sizeof(int) * 2 * (size_t)p->levels);
    if (!st->slide || !st->slide_tab || !st->slide_regs)
        return LWT_ERR_OUT_OF_MEMORY;
    const size_t es = p->desc.dtype == LWT_F32 && st->dev.f32_in_float ? 4 : 8;
    const lwt_scheme *s = &p->wavelet.scheme;
    for (int j = 1; j <= p->levels; j++)
        for (int inv = 0; inv < 2; inv++) {
            const int idx = 2 * (j - 1) + inv;
            const size_t *in = p->sizes[j - 1], *nc = p->sizes[j];
            st->slide_regs[idx] = -1;
            lwt_slide_geom *g = plan_regs(p, st, inv, in[a0], in[a0 + 1], nc[a0], nc[a0 + 1]);
            if (g) {
                st->slide[idx] = g;
                st->slide_regs[idx] = lwt_cuda_slide_regs_shape(s);
                lwt_log(ctx, LWT_LOG_DEBUG, "level %d %s: sliding window, register pipeline (shape %d, %s lifting)",
                        j, inv ? "inverse" : "forward", st->slide_regs[idx], regs_improved(p) ? "improved" : "classic");
                continue;
            }
            if (!lbb || p->ndim != 2)
                continue;
            g = (lwt_slide_geom *)malloc(sizeof *g);
            if (!g)
                return LWT_ERR_OUT_OF_MEMORY;
            const size_t taps_bytes = (size_t)(s->ntaps_total + 2) * es + 4096; /* + the schedule */
            if (!lwt_slide_plan(g, s, p->desc.mode, p->fb.length, inv, (long)in[0], (long)in[1], (long)nc[0],
                                (long)nc[1], es, 100 * 1024 - taps_bytes, 8L * sms, p->tune.lbb_cols)) {
                free(g);
                continue;
            }
            const size_t tab_bytes = sizeof(int) * (size_t)g->iters * LWT_SLIDE_TAB(g);
            int *tab = (int *)malloc(tab_bytes);
            if (!tab) {
                free(g);
                return LWT_ERR_OUT_OF_MEMORY;
            }
            lwt_slide_table(g, s->steps, tab);
            st->slide[idx] = g;
            lwt_log(ctx, LWT_LOG_DEBUG, "level %d %s: sliding window, generic kernel", j, inv ? "inverse" : "forward");
            cudaError_t e = cudaMalloc(&st->slide_tab[idx], tab_bytes);
            if (e == cudaSuccess)
                e = cudaMemcpy(st->slide_tab[idx], tab, tab_bytes, cudaMemcpyHostToDevice);
            free(tab);
            LWT_CUDA_CHECK(ctx, e);
        }
    lwt_status vs = plan_volumes(p, st, sms);
    return vs ? vs : plan_pairs(p, st);
}

extern "C" const lwt_slide_geom *lwt_cuda_plan_level(const lwt_plan *p, int j, int inverse, int *shape,
                                                     int *improved)
{
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    if (!st || !st->slide || j < 1 || j > p->levels)
        return NULL;
    const int idx = 2 * (j - 1) + (inverse ? 1 : 0);
    if (!st->slide[idx] || st->slide_regs[idx] < 0)
        return NULL;
    *shape = st->slide_regs[idx];
    *improved = regs_improved(p);
    return st->slide[idx];
}

extern "C" const lwt_slide_pair *lwt_cuda_plan_pair(const lwt_plan *p, int j, int *shape)
{
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    if (!st || !st->pair || j < 1 || j >= p->levels || !st->pair[j - 1])
        return NULL;
    *shape = st->slide_regs[2 * (j - 1)];
    return st->pair[j - 1];
}

static void cuda_plan_free(lwt_plan *p)
{
    cuda_plan_state *st = (cuda_plan_state *)p->bstate;
    if (!st)
        return;
    int cur = 0;
    cudaGetDevice(&cur);
    cudaSetDevice(p->device);
    cudaFree(st->table);
    free_slides(p, st);
    cudaFree(st->io_in);
    cudaFree(st->io_out);
    cudaFree(st->io_ws);
    if (st->io_stream)
        cudaStreamDestroy(st->io_stream);
    cudaSetDevice(cur);
    pthread_mutex_destroy(&st->io_lock);
    free(st);
    p->bstate = NULL;
}

/* ------------------------------------------------- streamed chunk passes */

/* Stream workers compute float32 data in double, like the CPU backend, so
 * that any mix of CPU and GPU workers gives the same bits. */
extern "C" void lwt_cuda_plan_exact_f32(lwt_plan *p)
{
    cuda_plan_state *st = (cuda_plan_state *)p->bstate;
    st->dev.f32_in_float = 0;
    /* rings of doubles now; where they do not fit (or on failure) the levels run
       separably, and the steps, made again, say so */
    plan_slides(p, st);
    lwt_plan_resolve(p);
}

/* doubles of scratch one pass needs (0 on the tiled path; naive: the line
 * kernel, one thread per line, seed 000's untuned configuration) */
extern "C" size_t lwt_cuda_pass_scratch(const lwt_plan *p, const lwt_pass *ps, int naive)
{
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    if (!naive && lwt_cuda_tiles_apply(ps, st->dev.f32_in_float))
        return 0;
    return scratch_per_line(ps->prog) * ps->outer * ps->inner;
}

extern "C" lwt_status lwt_cuda_run_pass_on(const lwt_plan *p, const lwt_pass *ps, double *scratch, cudaStream_t stream,
                                           int naive)
{
    const lwt_context *ctx = p->ctx;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    if (naive)
        LWT_CUDA_CHECK(ctx, lwt_cuda_launch_lines(ps, &st->dev, scratch, stream));
    else
        LWT_CUDA_CHECK(ctx, lwt_cuda_launch_pass(ps, &st->dev, scratch, stream));
    return LWT_OK;
}

void lwt_cuda_part_cache_free(lwt_cuda_part_cache *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->e[i].g);
    memset(c, 0, sizeof *c);
}

/* the geometry for a level of n0 x n1 samples and `rows` output rows, planned once */
static int part_geom(const lwt_plan *p, lwt_cuda_part_cache *c, long n0, long n1, long rows,
                     const lwt_slide_geom **g)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].n0 == n0 && c->e[i].n1 == n1 && c->e[i].rows == rows) {
            *g = c->e[i].g;
            return c->e[i].shape;
        }
    lwt_slide_geom *ng = lwt_cuda_slide_regs_plan(&p->wavelet.scheme, p->desc.mode, p->fb.length, 0, n0, n1, 0, 0,
                                                  rows, sizeof(double));
    const int i = c->n < LWT_CUDA_PART_GEOMS ? c->n++ : c->next++ % LWT_CUDA_PART_GEOMS;
    free(c->e[i].g);
    c->e[i].n0 = n0;
    c->e[i].n1 = n1;
    c->e[i].rows = rows;
    c->e[i].g = ng;
    c->e[i].shape = ng ? lwt_cuda_slide_regs_shape(&p->wavelet.scheme) : -1;
    *g = ng;
    return c->e[i].shape;
}

extern "C" const lwt_slide_geom *lwt_cuda_level_part_geom(const lwt_plan *p, lwt_cuda_part_cache *c,
                                                          const lwt_line_prog *p0, const lwt_line_prog *p1,
                                                          int *shape)
{
    if (p->ndim != 2 || p->direct || p0->inverse || p1->inverse || !p0->win.nseg)
        return NULL;
    const lwt_slide_geom *g = NULL;
    *shape = part_geom(p, c, p0->n, p1->n, p0->out_hi - p0->out_lo, &g);
    return *shape < 0 ? NULL : g;
}

extern "C" lwt_status lwt_cuda_run_level_part(const lwt_plan *p, const lwt_slide_geom *g, int shape,
                                              const lwt_line_prog *p0, const lwt_line_prog *p1, const void *in,
                                              void *out, cudaStream_t stream)
{
    const lwt_context *ctx = p->ctx;
    const long rows = p0->out_hi - p0->out_lo;
    /* p1's output: [2 rows, 2 nc1], axis-0 details in the lower half, axis-1 details on the right */
    const size_t es = lwt_plan_elem_size(p), nc1 = (size_t)p1->nc, stride = 2 * nc1;
    char *o = (char *)out;
    void *const bands[4] = {o, o + (size_t)rows * stride * es, o + nc1 * es, o + ((size_t)rows * stride + nc1) * es};
    LWT_CUDA_CHECK(ctx, lwt_cuda_slide2d_regs_part(shape, g, &p->wavelet.scheme, p->desc.dtype, &p0->win, p0->out_lo, p0->out_hi, in,
                                  (size_t)p1->n, bands, stride, stream));
    return LWT_OK;
}

/* ----------------------------------------------------------- driver ops */

static lwt_status cuda_run_pass(void *bctx, const lwt_pass *ps)
{
    cuda_call *call = (cuda_call *)bctx;
    const lwt_context *ctx = call->plan->ctx;
    const cuda_plan_state *st = (const cuda_plan_state *)call->plan->bstate;
    if (call->plan->desc.algorithm == LWT_ALGO_LIFTING_RC_STEPS) { /* seed 000's plain RC: a kernel per step */
        LWT_CUDA_CHECK(ctx, lwt_cuda_launch_steps(ps, &st->dev, call->scratch, call->stream));
        return LWT_OK;
    }
    /* a map only where cuda_pass_kernel said the tiled kernel takes it */
    cudaError_t e = cudaSuccess;
    if (lwt_cuda_launch_columns(ps, &st->dev, call->stream, &e)) {
        LWT_CUDA_CHECK(ctx, e);
        return LWT_OK;
    }
    LWT_CUDA_CHECK(ctx, lwt_cuda_launch_pass(ps, &st->dev, call->scratch, call->stream));
    return LWT_OK;
}

static lwt_status cuda_copy_block(void *bctx, size_t es, const void *src, const size_t *sshape, const size_t *soff,
                                  void *dst, const size_t *dshape, const size_t *doff, const size_t *b)
{
    cuda_call *call = (cuda_call *)bctx;
    const lwt_context *ctx = call->plan->ctx;
    LWT_CUDA_CHECK(ctx, lwt_cuda_launch_copy_block(es, src, sshape, soff, dst, dshape, doff, b, call->stream));
    return LWT_OK;
}

static lwt_status cuda_zero_blocks(void *bctx, size_t es, void *dst, const size_t *dshape, const lwt_box *blocks,
                                   size_t n)
{
    cuda_call *call = (cuda_call *)bctx;
    const lwt_context *ctx = call->plan->ctx;
    LWT_CUDA_CHECK(ctx, lwt_cuda_zero_blocks(es, dst, dshape, blocks, n, call->stream));
    return LWT_OK;
}

/* sixteen: the GPU's 16-bit levels are 2-D only (lwt_cuda_half_fused); its kernels store the
   detail bands in 16 bits and the signal side where the mask says (bit 4), never the
   approximation band */
static lwt_status cuda_fused2d(void *bctx, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                               void *const out[4], const size_t out_stride[4], size_t nbatch,
                               const size_t in_bstride[4], const size_t out_bstride[4], unsigned sixteen)
{
    cuda_call *call = (cuda_call *)bctx;
    const lwt_plan *p = call->plan;
    const lwt_context *ctx = p->ctx;
    if (call->half && (sixteen & 0xFu) != 0xEu)
        return lwt_fail(ctx, LWT_ERR_INTERNAL, "16-bit level %d: bands mask 0x%x, the kernels store 0xe", level,
                        sixteen & 0xFu);
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    /* only the levels cuda_level_kernel named: the register kernel takes batches of planes,
       the generic one single 2-D levels */
    const lwt_slide_geom *g = st->slide[2 * (level - 1) + inverse];
    const int shape = st->slide_regs[2 * (level - 1) + inverse];
    if (call->half) { /* lwt_cuda_half_fused said every level runs the register kernel */
        LWT_CUDA_CHECK(ctx, lwt_cuda_slide2d_regs_half(shape, g, &p->wavelet.scheme, call->half == 2,
                                                       (sixteen & 0x10u) != 0, in,
                                                       in_stride, out, out_stride, nbatch, in_bstride, out_bstride,
                                                       call->stream));
        return LWT_OK;
    }
    if (shape >= 0) {
        LWT_CUDA_CHECK(ctx, lwt_cuda_slide2d_regs_batch(shape, regs_improved(p), g, &p->wavelet.scheme, p->desc.dtype, in, in_stride,
                                       out, out_stride, nbatch, in_bstride, out_bstride, call->stream));
        return LWT_OK;
    }
    (void)nbatch;
    LWT_CUDA_CHECK(ctx, lwt_cuda_slide2d(g, st->slide_tab[2 * (level - 1) + inverse], &st->dev, p->wavelet.scheme.ntaps_total,
                        p->tune.lbb_threads, p->desc.dtype, in, in_stride, out, out_stride,
                        call->stream));
    return LWT_OK;
}

static lwt_status cuda_fused2d_pair(void *bctx, int level, const void *in, size_t in_stride, void *const out1[4],
                                    const size_t out1_stride[4], void *const out2[4], const size_t out2_stride[4],
                                    size_t nbatch, size_t in_bstride, const size_t out1_bstride[4],
                                    const size_t out2_bstride[4])
{
    cuda_call *call = (cuda_call *)bctx;
    const lwt_plan *p = call->plan;
    const lwt_context *ctx = p->ctx;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    const lwt_slide_pair *pp = st->pair[level - 1]; /* cuda_pair_kernel said it is there */
    if (call->half) {
        LWT_CUDA_CHECK(ctx, lwt_cuda_slide_pair_half(st->slide_regs[2 * (level - 1)], pp, &p->wavelet.scheme,
                                                     call->half == 2, level == 1, in, in_stride, out1, out1_stride,
                                                     out2, out2_stride, nbatch, in_bstride, out1_bstride, out2_bstride,
                                                     call->stream));
        return LWT_OK;
    }
    LWT_CUDA_CHECK(ctx, lwt_cuda_slide_pair(st->slide_regs[2 * (level - 1)], pp, &p->wavelet.scheme, p->desc.dtype, in, in_stride,
                           out1, out1_stride, out2, out2_stride, nbatch, in_bstride, out1_bstride, out2_bstride,
                           call->stream));
    return LWT_OK;
}

static lwt_status cuda_half_corner(void *bctx, int narrow, const void *in, size_t in_stride, size_t in_bstride,
                                   void *out, size_t out_stride, size_t out_bstride, size_t rows, size_t cols,
                                   size_t nbatch)
{
    cuda_call *call = (cuda_call *)bctx;
    LWT_CUDA_CHECK(call->plan->ctx, lwt_cuda_half_corner(call->half == 2, narrow, in, in_stride, in_bstride, out,
                                                         out_stride, out_bstride, rows, cols, nbatch, call->stream));
    return LWT_OK;
}

lwt_status lwt_cuda_half_fused_run(const lwt_plan *p, const void *d_in, void *d_out, float *ab[2], cudaStream_t stream,
                                   int inverse)
{
    cuda_call call = {p->f32, stream, NULL, p->desc.dtype == LWT_BF16 ? 2 : 1};
    return lwt_driver_run_half(p->f32, lwt_cuda_backend(), &call, d_in, d_out, ab, inverse);
}

static lwt_status cuda_fused3d(void *bctx, int level, const void *in, size_t in_row, size_t in_plane,
                               void *const out[8], const size_t out_row[8], const size_t out_plane[8])
{
    cuda_call *call = (cuda_call *)bctx;
    const lwt_plan *p = call->plan;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    LWT_CUDA_CHECK(p->ctx, lwt_cuda_vol_forward(st->vol[level - 1], &p->wavelet.scheme, (const float *)in, in_row,
                                                in_plane, (float *const *)out, out_row, out_plane, call->stream));
    return LWT_OK;
}

/* ----------------------------------------------------------- execution */

static size_t device_workspace(const lwt_plan *p)
{
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    size_t ws = 2 * p->buf_elems * lwt_plan_elem_size(p);
    ws = (ws + 255) / 256 * 256;
    return ws + st->scratch_elems * sizeof(double);
}

extern "C" lwt_status lwt_plan_device_workspace_size(const lwt_plan *p, size_t *bytes)
{
    if (p && bytes && p->f32) /* float16/bfloat16: cuda_half.cu */
        return lwt_cuda_half_workspace(p, bytes);
    if (!p || !bytes || p->backend != LWT_BACKEND_CUDA)
        return LWT_ERR_INVALID_ARGUMENT;
    *bytes = device_workspace(p);
    return LWT_OK;
}

static lwt_status run_device(const lwt_plan *p, const void *d_in, void *d_out, void *d_ws, cudaStream_t stream,
                             int inverse)
{
    if (p && p->f32) /* float16/bfloat16: cuda_half.cu */
        return lwt_cuda_half_run(p, d_in, d_out, d_ws, stream, inverse);
    const lwt_context *ctx = p ? p->ctx : NULL;
    if (!p || p->backend != LWT_BACKEND_CUDA || !d_in || !d_out || !d_ws)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "device execution needs a CUDA plan and device buffers");
    int cur = 0;
    LWT_CUDA_CHECK(ctx, cudaGetDevice(&cur));
    LWT_CUDA_CHECK(ctx, cudaSetDevice(p->device));
    cuda_call call;
    call.plan = p;
    call.stream = stream;
    call.half = 0;
    size_t ws = 2 * p->buf_elems * lwt_plan_elem_size(p);
    call.scratch = (double *)((char *)d_ws + (ws + 255) / 256 * 256);
    lwt_status s = lwt_driver_run(p, &p->steps, lwt_cuda_backend(), &call, d_in, d_out, d_ws, inverse);
    cudaSetDevice(cur);
    return s;
}

extern "C" lwt_status lwt_forward_device(const lwt_plan *p, const void *d_in, void *d_out, void *d_ws,
                                         cudaStream_t stream)
{
    return run_device(p, d_in, d_out, d_ws, stream, 0);
}

extern "C" lwt_status lwt_inverse_device(const lwt_plan *p, const void *d_in, void *d_out, void *d_ws,
                                         cudaStream_t stream)
{
    return run_device(p, d_in, d_out, d_ws, stream, 1);
}

/* the plan's device buffers for host-pointer calls, made by the first one (io_lock held) */
static cudaError_t host_io_buffers(const lwt_plan *p, cuda_plan_state *st, int arrays)
{
    if (st->io_ws && (!arrays || st->io_in))
        return cudaSuccess;
    const size_t es = lwt_plan_elem_size(p);
    const size_t n = (p->input_count > p->coeff_count ? p->input_count : p->coeff_count) * p->desc.batch * es;
    cudaError_t e = cudaSuccess;
    if (!st->io_ws) { /* the stream and the workspace: every host call needs them */
        e = cudaStreamCreateWithFlags(&st->io_stream, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaMalloc(&st->io_ws, device_workspace(p));
    }
    /* the arrays' device copies: not for zero-copy calls (their arrays stay in host memory) */
    if (e == cudaSuccess && arrays && !st->io_in) {
        e = cudaMalloc(&st->io_in, n);
        if (e == cudaSuccess) e = cudaMalloc(&st->io_out, n);
        if (e != cudaSuccess) {
            cudaFree(st->io_in);
            st->io_in = NULL;
            return e;
        }
    }
    if (e != cudaSuccess) { /* none kept: the next call tries again */
        cudaFree(st->io_ws);
        if (st->io_stream)
            cudaStreamDestroy(st->io_stream);
        st->io_ws = NULL;
        st->io_stream = NULL;
    }
    return e;
}

/* host calls need no host workspace: they copy through the plan's device buffers */
static size_t cuda_host_workspace(const lwt_plan *p)
{
    (void)p;
    return 0;
}

/* The device address of host array [p, p + bytes) when all of it is page-locked and mapped
   (seed 003's zero-copy memory: kernels read and write it over the bus), else NULL. Its first
   and last bytes are asked: a registration covers one range, so both in one means all. */
static void *mapped_host(const void *p, size_t bytes)
{
    cudaPointerAttributes a, b;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess || a.type != cudaMemoryTypeHost || !a.devicePointer ||
        cudaPointerGetAttributes(&b, (const char *)p + bytes - 1) != cudaSuccess || b.type != cudaMemoryTypeHost ||
        (const char *)b.devicePointer != (const char *)a.devicePointer + bytes - 1) {
        cudaGetLastError(); /* an unregistered pointer leaves no sticky error, but clear it */
        return NULL;
    }
    return a.devicePointer;
}

/* The device run of a host call of p on the device buffers of q (its own plan, or the float32
   plan of 16-bit plan p with fused levels: then the 16-bit arrays sit in q's float32-sized
   buffers and the approximations between levels in q's two driver buffers of its workspace) */
static lwt_status io_run(const lwt_plan *p, const lwt_plan *q, const cuda_plan_state *st, const void *d_in,
                         void *d_out, int inverse)
{
    if (p == q)
        return run_device(p, d_in, d_out, st->io_ws, st->io_stream, inverse);
    float *ab[2] = {(float *)st->io_ws, (float *)st->io_ws + q->buf_elems};
    return lwt_cuda_half_fused_run(p, d_in, d_out, ab, st->io_stream, inverse);
}

/* lwt_forward / lwt_inverse of a CUDA plan: in and out are host memory, copied through
   the plan's device buffers (or, with tune.zero_copy and page-locked arrays, read and written
   in place by the kernels); the host workspace is not needed. p may also be a 16-bit plan
   with fused levels (backend_ops.half_fused): its arrays go over the bus in 16 bits. */
static lwt_status cuda_execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    (void)workspace;
    const lwt_context *ctx = p->ctx;
    const lwt_plan *q = lwt_plan_compute(p);
    cuda_plan_state *st = (cuda_plan_state *)q->bstate;
    const size_t es = lwt_plan_elem_size(p);
    const size_t nin = (inverse ? q->coeff_count : q->input_count) * q->desc.batch * es;
    const size_t nout = (inverse ? q->input_count : q->coeff_count) * q->desc.batch * es;
    if (pthread_mutex_lock(&st->io_lock))
        return lwt_fail(ctx, LWT_ERR_INTERNAL, "cannot take the plan's lock");
    int cur = 0;
    lwt_status s = LWT_OK;
    cudaError_t e = cudaGetDevice(&cur);
    if (e == cudaSuccess) e = cudaSetDevice(q->device);
    void *zin = p == q && p->tune.zero_copy ? mapped_host(in, nin) : NULL, *zout = zin ? mapped_host(out, nout) : NULL;
    if (e == cudaSuccess) e = host_io_buffers(q, st, !zout);
    if (e == cudaSuccess && zout) {
        s = run_device(p, zin, zout, st->io_ws, st->io_stream, inverse);
        if (s == LWT_OK)
            e = cudaStreamSynchronize(st->io_stream);
    } else if (e == cudaSuccess && (e = cudaMemcpyAsync(st->io_in, in, nin, cudaMemcpyHostToDevice,
                                                        st->io_stream)) == cudaSuccess) {
        s = io_run(p, q, st, st->io_in, st->io_out, inverse);
        if (s == LWT_OK)
            e = cudaMemcpyAsync(out, st->io_out, nout, cudaMemcpyDeviceToHost, st->io_stream);
        if (s == LWT_OK && e == cudaSuccess)
            e = cudaStreamSynchronize(st->io_stream);
    }
    if (e != cudaSuccess && s == LWT_OK) {
        char what[64];
        snprintf(what, sizeof what, "a %zu-byte transform of host arrays", nin);
        s = lwt_cuda_fail(ctx, e, what);
    }
    cudaSetDevice(cur);
    pthread_mutex_unlock(&st->io_lock);
    return s;
}

/* ------------------------------------------------------ the planner's questions */

static const char *cuda_level_kernel(const void *q, const lwt_plan *p, int level, int inverse, int planes)
{
    (void)q;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    const int idx = 2 * (level - 1) + (inverse ? 1 : 0);
    if (p->direct || !st->slide || !st->slide[idx])
        return NULL;
    if (st->slide_regs[idx] >= 0)
        return regs_improved(p) ? "sliding window, register kernel, improved lifting"
                                : "sliding window, register kernel";
    return planes ? NULL : "sliding window, generic kernel"; /* one 2-D level per launch */
}

static const char *cuda_pair_kernel(const void *q, const lwt_plan *p, int level)
{
    (void)q;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    return st->pair && st->pair[level - 1] ? "two levels in one pass, register kernel" : NULL;
}

static const char *cuda_volume_kernel(const void *q, const lwt_plan *p, int level)
{
    (void)q;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    return st->vol && st->vol[level - 1] ? "one pass, volume kernel" : NULL;
}

/* what cuda_run_pass launches for this pass (and lwt_cuda_launch_pass after it) */
static const char *cuda_pass_kernel(const void *q, const lwt_plan *p, const lwt_pass *ps)
{
    (void)q;
    const cuda_plan_state *st = (const cuda_plan_state *)p->bstate;
    const bool tiles = lwt_cuda_tiles_apply(ps, st->dev.f32_in_float);
    if (p->desc.algorithm == LWT_ALGO_LIFTING_RC_STEPS)
        return ps->map ? NULL : "a kernel per lifting step";
    if (ps->map) /* band destinations: only the tiled kernel writes through a map */
        return ps->inner == 1 && tiles ? "tiled pass" : NULL;
    if (lwt_cuda_columns_apply(ps))
        return "column pass, register kernel";
    return tiles ? "tiled pass" : "line kernel";
}

static const lwt_backend_ops cuda_ops = {
    "cuda",
    cuda_plan_init,
    cuda_plan_free,
    cuda_host_workspace,
    cuda_execute,
    cuda_level_kernel,
    cuda_pair_kernel,
    cuda_pass_kernel,
    cuda_run_pass,
    cuda_copy_block,
    cuda_zero_blocks,
    cuda_fused2d,
    cuda_fused2d_pair,
    lwt_cuda_half_fused,
    cuda_half_corner,
    cuda_volume_kernel,
    cuda_fused3d,
};

extern "C" const lwt_backend_ops *lwt_cuda_backend(void)
{
    return &cuda_ops;
}
