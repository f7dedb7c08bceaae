/* The CPU backend's table: plan state, the planner's questions, and the driver's
   operations (passes, block copies, zeroing, sliding-window levels). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/plan.h"
#include "cpu/cpu_level.h"
#include "cpu/cpu_slide.h"

/* the driver's call context: the plan, and a 16-bit plan's storage type for the fused levels
   of its float32 plan (lwt_driver_run_half; 0 otherwise) */
typedef struct cpu_call {
    const lwt_plan *p;
    lwt_dtype half;
} cpu_call;

static lwt_status cpu_run_pass(void *bctx, const lwt_pass *p)
{
    if (!p->sixteen)
        return lwt_cpu_run_pass(p);
    const cpu_call *call = bctx; /* a 16-bit plan's pass: its type */
    lwt_pass q = *p;
    q.half = call->half;
    return lwt_cpu_run_pass(&q);
}

static lwt_status cpu_copy_block(void *bctx, size_t es, const void *src, const size_t *sshape, const size_t *soff,
                                 void *dst, const size_t *dshape, const size_t *doff, const size_t *b)
{
    (void)bctx;
    const char *s = src;
    char *d = dst;
    for (size_t i0 = 0; i0 < b[0]; i0++)
        for (size_t i1 = 0; i1 < b[1]; i1++) {
            size_t so = (((soff[0] + i0) * sshape[1] + soff[1] + i1) * sshape[2] + soff[2]) * es;
            size_t dof = (((doff[0] + i0) * dshape[1] + doff[1] + i1) * dshape[2] + doff[2]) * es;
            memcpy(d + dof, s + so, b[2] * es);
        }
    return LWT_OK;
}

static lwt_status cpu_zero_blocks(void *bctx, size_t es, void *dst, const size_t *ds, const lwt_box *blocks, size_t n)
{
    (void)bctx;
    char *d = dst;
    for (size_t i = 0; i < n; i++) {
        const size_t *o = blocks[i].off, *b = blocks[i].ext;
        for (size_t i0 = 0; i0 < b[0]; i0++)
            for (size_t i1 = 0; i1 < b[1]; i1++)
                memset(d + (((o[0] + i0) * ds[1] + o[1] + i1) * ds[2] + o[2]) * es, 0, b[2] * es);
    }
    return LWT_OK;
}

/* The fused level (cpu_level.h) where the plan lets the backend choose (LWT_ALGO_AUTO, LIFTING,
   CONVOLUTION): the separable passes read and write a level twice, the fused level once, with
   the same bits. A plan asking for the row-column passes (RC, RC_STEPS, or the tuning's
   cpu_passes) gets them, and one asking for LWT_ALGO_LIFTING_LBB the sliding window
   (cpu_slide.c). */
int lwt_cpu_fuses(const lwt_plan *p)
{
    if (p->tune.cpu_passes)
        return 0;
    switch ((int)p->desc.algorithm) {
    case LWT_ALGO_AUTO:
    case LWT_ALGO_LIFTING:
    case LWT_ALGO_CONVOLUTION: return p->ndim == 2 || p->ndim == 3;
    default: return 0;
    }
}

lwt_status lwt_cpu_fused_level(const lwt_plan *p, const lwt_line_prog prog[2], int threads, const void *const in[4],
                               const size_t in_stride[4], void *const out[4], const size_t out_stride[4], size_t nbatch,
                               const size_t in_bstride[4], const size_t out_bstride[4])
{
    return lwt_cpu_fused_level16(p, prog, threads, in, in_stride, out, out_stride, nbatch, in_bstride, out_bstride, 0, 0);
}

lwt_status lwt_cpu_fused_level16(const lwt_plan *p, const lwt_line_prog prog[2], int threads, const void *const in[4],
                                 const size_t in_stride[4], void *const out[4], const size_t out_stride[4],
                                 size_t nbatch, const size_t in_bstride[4], const size_t out_bstride[4], lwt_dtype half,
                                 unsigned sixteen)
{
    lwt_cpu_level lv;
    memset(&lv, 0, sizeof lv);
    lv.half = half;
    lv.sixteen = sixteen;
    lv.prog[0] = prog[0];
    lv.prog[1] = prog[1];
    lv.scheme = &p->wavelet.scheme;
    lv.fb = &p->fb;
    lv.dtype = p->desc.dtype;
    lv.threads = threads;
    lv.simd = p->simd;
    lv.in = in;
    lv.in_stride = in_stride;
    lv.in_bstride = in_bstride;
    lv.out = out;
    lv.out_stride = out_stride;
    lv.out_bstride = out_bstride;
    lv.nbatch = nbatch;
    return lwt_cpu_run_level(&lv);
}

static lwt_status cpu_fused2d(void *bctx, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                              void *const out[4], const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                              const size_t out_bstride[4], unsigned sixteen)
{
    const cpu_call *call = bctx;
    const lwt_plan *p = call->p;
    if (!lwt_cpu_fuses(p)) /* the sliding window: one plane a call (cpu_level_kernel) */
        return lwt_cpu_slide2d(p, level, inverse, in, in_stride, out, out_stride);
    /* the plane's two axes: the last two of the plan's */
    const size_t *n = p->sizes[level - 1], *nc = p->sizes[level];
    const int a0 = p->ndim - 2, a1 = p->ndim - 1;
    const lwt_scheme *s = &p->wavelet.scheme;
    lwt_line_prog prog[2];
    if (inverse) {
        lwt_line_prog_inverse(&prog[0], s, p->direct, p->fb.length, p->desc.mode, (long)nc[a0], (long)n[a0]);
        lwt_line_prog_inverse(&prog[1], s, p->direct, p->fb.length, p->desc.mode, (long)nc[a1], (long)n[a1]);
    } else {
        lwt_line_prog_forward(&prog[0], s, p->direct, p->fb.length, p->desc.mode, (long)n[a0]);
        lwt_line_prog_forward(&prog[1], s, p->direct, p->fb.length, p->desc.mode, (long)n[a1]);
    }
    lwt_status st = lwt_cpu_fused_level16(p, prog, p->ctx ? p->ctx->threads : 0, in, in_stride, out, out_stride,
                                          nbatch, in_bstride, out_bstride, call->half, call->half ? sixteen : 0u);
    if (st)
        return lwt_fail(p->ctx, st, "cannot allocate the fused level's rows (level %d)", level);
    return LWT_OK;
}

static const char *cpu_level_kernel(const void *q, const lwt_plan *p, int level, int inverse, int planes)
{
    (void)q;
    (void)level;
    (void)inverse;
    if (lwt_cpu_fuses(p))
        return p->direct ? "fused level, filter bank" : "fused level, lifting";
    return !planes && lwt_cpu_slide_has(p, level, inverse) ? "sliding-window level" : NULL;
}

static const char *cpu_pass_kernel(const void *q, const lwt_plan *p, const lwt_pass *ps)
{
    (void)q;
    if (ps->map && ps->inner != 1)
        return NULL; /* maps are for the last (contiguous) axis */
    return p->direct ? "filter-bank pass" : "lifting pass";
}

/* the driver's two ping-pong buffers */
static size_t cpu_workspace_size(const lwt_plan *p)
{
    return 2 * p->buf_elems * lwt_plan_elem_size(p);
}

/* p, or a 16-bit plan with fused levels (cpu_half_fused): then the driver walks its float32
   plan's steps with 16-bit arrays, the approximations between levels in the float32 plan's two
   buffers, which the 16-bit plan's workspace holds after its two conversion buffers (unused) */
static lwt_status cpu_execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    const size_t bytes = p->f32 ? lwt_half_workspace_size(p) : cpu_workspace_size(p);
    int held = 0;
    /* none given: the plan's own (ws_cache.h; the cache is the plan's one mutable part) */
    void *ws = workspace ? workspace : lwt_ws_borrow(&((lwt_plan *)p)->ws, bytes, &held);
    if (!ws)
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot allocate a %zu-byte workspace", bytes);
    lwt_status st;
    if (p->f32) {
        const lwt_plan *q = p->f32;
        const cpu_call call = {q, p->desc.dtype};
        float *bufs[2];
        bufs[0] = (float *)((char *)ws + 2 * lwt_half_buf_bytes(p));
        bufs[1] = bufs[0] + q->buf_elems;
        st = lwt_driver_run_half(q, &lwt_cpu_ops, (void *)&call, in, out, bufs, inverse);
    } else {
        const cpu_call call = {p, 0};
        st = lwt_driver_run(p, &p->steps, &lwt_cpu_ops, (void *)&call, in, out, ws, inverse);
    }
    if (!workspace)
        lwt_ws_return(&((lwt_plan *)p)->ws, ws, held);
    return st;
}

/* A float16/bfloat16 plan made of float32 plan q runs fused levels (lwt_backend_ops.half_fused):
   2-D arrays (a batch too) whose every level, both ways, is the fused level (FUSED2D steps),
   1-D signals (a batch too) whose every level is a pass through a map (PASSES_MAP, ROWS: the
   line kernel reads and writes the 16-bit sides through float rows of its thread,
   cpu_level_tmpl.h), and 3-D volumes whose every level is the pass along axis 0 and the fused
   planes (PLANES: the column kernel's signal rows and the planes' bands likewise).
   Measured on the development VM (docs/PERFORMANCE.md, "16-bit storage on the CPU"): the
   conversions in the level's rows instead of two passes over the arrays around the float32 plan. */
static int cpu_half_fused(const lwt_plan *q)
{
    if (q->levels < 1 || (q->ndim >= 2 && !lwt_cpu_fuses(q)))
        return 0;
    for (int inv = 0; inv < 2; inv++)
        for (int i = 0; i < q->steps.n[inv]; i++) {
            const lwt_level_op op = q->steps.v[inv][i].op;
            if (q->ndim == 3 ? op != LWT_LEVEL_PLANES
                : q->ndim == 2 ? op != LWT_LEVEL_FUSED2D
                               : op != LWT_LEVEL_PASSES_MAP && op != LWT_LEVEL_ROWS)
                return 0;
        }
    return 1;
}

static lwt_status cpu_half_corner(void *bctx, int narrow, const void *in, size_t in_stride, size_t in_bstride,
                                  void *out, size_t out_stride, size_t out_bstride, size_t rows, size_t cols,
                                  size_t nbatch)
{
    const cpu_call *call = bctx;
    for (size_t z = 0; z < nbatch; z++)
        for (size_t r = 0; r < rows; r++) {
            const size_t i = z * in_bstride + r * in_stride, o = z * out_bstride + r * out_stride;
            if (narrow)
                lwt_half_narrow(call->half, (const float *)in + i, (uint16_t *)out + o, cols);
            else
                lwt_half_widen(call->half, (const uint16_t *)in + i, (float *)out + o, cols);
        }
    return LWT_OK;
}

const lwt_backend_ops lwt_cpu_ops = {
    .name = "cpu",
    .plan_init = lwt_cpu_slide_plan,
    .plan_free = lwt_cpu_slide_free,
    .workspace_size = cpu_workspace_size,
    .execute = cpu_execute,
    .level_kernel = cpu_level_kernel,
    .pass_kernel = cpu_pass_kernel,
    .run_pass = cpu_run_pass,
    .copy_block = cpu_copy_block,
    .zero_blocks = cpu_zero_blocks,
    .fused2d = cpu_fused2d,
    .half_fused = cpu_half_fused,
    .half_corner = cpu_half_corner,
};
