/* Plan internals, shared by the driver (plan.c) and the backends. */
#ifndef LWT_CORE_PLAN_H
#define LWT_CORE_PLAN_H

#include <stdint.h>

#include "core/backend.h"
#include "core/boxes.h"
#include "core/steps.h"
#include "core/ws_cache.h"
#include "core/wavelet.h"
#include "lwt.h"
#include "lwt_experimental.h"

#define LWT_LEVELS_LIMIT 256

struct lwt_plan {
    const lwt_context *ctx;
    lwt_plan_desc desc;
    lwt_plan_tuning tune;           /* lwt_experimental.h */
    lwt_wavelet wavelet;            /* private copy: the plan outlives nothing */
    lwt_filter_bank fb;
    int ndim, levels, max_level, direct;
    int path_forced;                /* direct (or not) because desc.algorithm asked for it */
    lwt_path_reason path_why;       /* else why LWT_ALGO_AUTO chose it */
    lwt_cpu_simd simd;              /* the CPU passes' instruction set (tune.cpu_simd resolved) */
    lwt_backend backend;
    size_t shape[LWT_MAX_NDIM];
    /* sizes[j][k]: axis k length of the approximation after j levels (sizes[0] = shape) */
    size_t (*sizes)[LWT_MAX_NDIM];
    size_t packed[LWT_MAX_NDIM];
    size_t input_count, coeff_count;
    size_t buf_elems;               /* per ping-pong buffer */
    size_t buf_one;                 /* the same for one array; buf_elems holds the whole batch's
                                       approximations when steps.batch_levels */
    int tight;                      /* bands tile the packed array: no gaps to zero */
    lwt_box *gaps;                  /* else the parts no band covers, as blocks of the packed */
    size_t ngaps;                   /* array seen as gap_shape: 3-D, unit axes first, so the */
    size_t gap_shape[3];            /* last axis is a contiguous run */
    lwt_box *bgaps;                 /* a 2-D batch's gaps: gaps[i] across all the batch's */
    size_t bgap_shape[3];           /* arrays (bgap_shape = batch x the 2-D gap_shape) */
    int device;                     /* CUDA device of a CUDA plan */
    const lwt_backend_ops *ops;     /* the backend that runs it */
    void *bstate;                   /* that backend's per-plan state (plan_init) */
    lwt_steps steps;                /* what runs, level by level (core/steps.h) */
    lwt_ws_cache ws;                /* the host workspace of calls that pass none (the one
                                       mutable part of a plan, behind its lock: ws_cache.h) */
    struct lwt_plan *f32;           /* a float16/bfloat16 plan: the float32 plan it runs between
                                       its two conversions, and then only ctx, desc (its 16-bit
                                       dtype), ws, this and half_fused are set (core/half_plan.c);
                                       else NULL */
    int half_fused;                 /* a 16-bit plan whose device runs have the kernels read and
                                       write 16 bits (backend_ops.half_fused) */
};

static inline size_t lwt_plan_elem_size(const lwt_plan *p)
{
    return p->desc.dtype == LWT_F64 ? sizeof(double) : p->desc.dtype == LWT_F32 ? sizeof(float) : sizeof(uint16_t);
}

/* the plan that computes: a 16-bit plan's float32 plan, else the plan itself */
static inline const lwt_plan *lwt_plan_compute(const lwt_plan *p)
{
    return p->f32 ? p->f32 : p;
}

/* core/half_plan.c: a float16/bfloat16 plan (desc->dtype), made of the float32 plan of the same
   description; its host workspace; lwt_forward/lwt_inverse on host pointers */
lwt_status lwt_half_plan_create(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_plan_tuning *tuning,
                                lwt_plan **out);
size_t lwt_half_workspace_size(const lwt_plan *p);
lwt_status lwt_half_execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse);
/* the part of a 16-bit plan's workspace (host or device) before the float32 plan's: the float32
   input and output of a call, each of lwt_half_buf_bytes */
size_t lwt_half_buf_bytes(const lwt_plan *p);
/* n values of 16-bit type dt (LWT_F16 or LWT_BF16) widened to float32, or float32 values rounded
   once to dt, on the calling thread (the vectorized loops of lwt_half_execute; the streamed
   engine's converting copies, stream/recipe.c, use them too, so that both give the same bits) */
void lwt_half_widen(lwt_dtype dt, const uint16_t *in, float *out, size_t n);
void lwt_half_narrow(lwt_dtype dt, const float *in, uint16_t *out, size_t n);
/* a 0-level transform of n 16-bit values: widened and rounded back, as lwt_forward does (the
   same bits but for signalling NaNs, which the rounding quiets); in and out may be the same */
void lwt_half_identity(lwt_dtype dt, const uint16_t *in, uint16_t *out, size_t n);

/* a trailing unit axis (value 1 for shapes, 0 for offsets) moved to the front: a 2-D
   array as 1 x n0 x n1, so that the backends copy and zero runs of the last axis */
static inline void lwt_unit_axis_first(size_t v[3], size_t unit)
{
    v[2] = v[1];
    v[1] = v[0];
    v[0] = unit;
}


/* Runs the whole batch through a backend along `steps` (the plan's own, or
 * another backend's made by lwt_steps_plan): in/out/workspace live in the
 * backend's memory; workspace holds 2 * buf_elems elements. */
lwt_status lwt_driver_run(const lwt_plan *p, const lwt_steps *steps, const lwt_backend_ops *ops, void *bctx,
                          const void *in, void *out, void *workspace, int inverse);

/* A float16/bfloat16 plan's fused levels (lwt_backend_ops.half_fused) on its float32 plan q's
 * steps: 2-D arrays (a batch level by level or one after the other, as q's steps say), 1-D
 * signals (passes through maps) and 3-D volumes (the pass along axis 0 and the planes). In and
 * out in 16 bits (the packed coefficients, the signal), the approximations between levels in
 * the float32 buffers bufs[0] and bufs[1] (q->buf_elems floats each); the backend's call
 * context bctx tells its kernels the 16-bit type; each call says which sides are 16-bit
 * (fused2d's sixteen, lwt_pass.sixteen); half_corner converts a 2-D plan's coarsest
 * approximation (1-D and 3-D levels write and read theirs in 16 bits in place). */
lwt_status lwt_driver_run_half(const lwt_plan *q, const lwt_backend_ops *ops, void *bctx, const void *in, void *out,
                               float *bufs[2], int inverse);

/* The pass along `axis` of an array of shape_in (padded with 1s) as the driver runs it,
 * buffers unset (ps->prog = prog); n_axis_out: the inverse's output length. */
void lwt_plan_pass(const lwt_plan *p, int axis, int inverse, const size_t *shape_in, long n_axis_out,
                   lwt_line_prog *prog, lwt_pass *ps);

/* (Re)resolve p->steps on p->ops: at creation, and after a backend changes its per-plan
 * state (lwt_cuda_plan_exact_f32). */
lwt_status lwt_plan_resolve(lwt_plan *p);

#endif
