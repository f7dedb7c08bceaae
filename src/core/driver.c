/*
 * The n-D multi-level driver: walks a plan's steps (core/steps.h) on a
 * backend.
 *
 * Forward, per level: transform the current approximation along axis 0, 1,
 * ..., ndim-1 (PyWavelets' dwtn order), each pass turning an axis of length n
 * into [cA | cD] of 2 nc. The block whose axes are all 'a' is the next
 * approximation; the others are scattered to their place in the packed
 * layout (pywt.coeffs_to_array). The inverse assembles [cA | cD] blocks from
 * the packed array and the previous approximation and runs the axes in
 * reverse order (PyWavelets' idwtn), producing exactly as many samples as the
 * next level needs, which is PyWavelets' crop of the approximation. Fused
 * steps (a 2-D level, two levels, a 3-D level in one pass or by planes) do the same work in
 * fewer passes; which one a level takes was decided when the plan was made.
 */
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/line.h"
#include "core/plan.h"
#include "core/steps.h"

/* ------------------------------------------------------------- driver */

/* one backend and its state for the duration of a call */
typedef struct exec_env {
    const lwt_backend_ops *ops;
    void *bctx;
    const lwt_steps *steps;
    /* A float16/bfloat16 plan's fused levels (lwt_driver_run_half): the packed coefficients
       (and the signal) are 16-bit, the approximations between levels float32 in the buffers,
       the coarsest one converted at the packed corner by the backend's half_corner (2-D), or
       written and read in 16 bits by the passes (1-D, lwt_pass.sixteen) and the planes (3-D,
       fused2d's sixteen). */
    int half;
} exec_env;

/* A 2-D level's 16-bit sides (fused2d's sixteen): the detail bands, and the signal at level 1;
   the approximations stay float32 (the corners are converted apart) */
static unsigned level16(const exec_env *env, int j)
{
    return env->half ? 0xEu | (j == 1 ? 0x10u : 0u) : 0u;
}

/* A 3-D level's planes (planes_forward, planes_inverse): plane half hz along axis 0 (1: every
   band a detail), the approximation band 16-bit where it is the packed array's corner */
static unsigned planes16(const exec_env *env, unsigned hz, int approx_packed)
{
    return env->half ? 0xEu | (hz || approx_packed ? 1u : 0u) : 0u;
}

void lwt_plan_pass(const lwt_plan *p, int axis, int inverse, const size_t *shape_in, long n_axis_out,
                   lwt_line_prog *prog, lwt_pass *ps)
{
    const lwt_scheme *s = &p->wavelet.scheme;
    if (inverse)
        lwt_line_prog_inverse(prog, s, p->direct, p->fb.length, p->desc.mode, (long)shape_in[axis] / 2, n_axis_out);
    else
        lwt_line_prog_forward(prog, s, p->direct, p->fb.length, p->desc.mode, (long)shape_in[axis]);
    memset(ps, 0, sizeof *ps);
    ps->prog = prog;
    ps->scheme = s;
    ps->fb = &p->fb;
    ps->dtype = p->desc.dtype;
    ps->outer = 1;
    ps->inner = 1;
    for (int k = 0; k < axis; k++)
        ps->outer *= shape_in[k];
    for (int k = axis + 1; k < LWT_MAX_NDIM; k++)
        ps->inner *= shape_in[k];
    ps->threads = p->ctx ? p->ctx->threads : 0;
    ps->simd = p->simd;
}

/* sixteen: a 16-bit plan's sides stored in 16 bits (lwt_pass, LWT_PASS16_*), 0 otherwise */
static lwt_status run_axis(const lwt_plan *p, const exec_env *env, int axis, int inverse, const size_t *shape_in,
                           long n_axis_out, const void *in, void *out, size_t *shape_out, const lwt_dest_map *map,
                           unsigned sixteen)
{
    lwt_line_prog prog;
    lwt_pass ps;
    lwt_plan_pass(p, axis, inverse, shape_in, n_axis_out, &prog, &ps);
    ps.in = in;
    ps.out = out;
    ps.map = map;
    ps.sixteen = sixteen;
    memcpy(shape_out, shape_in, LWT_MAX_NDIM * sizeof *shape_out);
    shape_out[axis] = inverse ? (size_t)n_axis_out : 2 * (size_t)prog.nc;
    return env->ops->run_pass(env->bctx, &ps);
}

static void band_offset(const lwt_plan *p, int level_index, unsigned mask, size_t *off)
{
    lwt_band b;
    lwt_plan_band(p, level_index, mask, &b);
    for (int k = 0; k < LWT_MAX_NDIM; k++)
        off[k] = b.offset[k];
}

/* Shapes are padded with trailing 1s (a 2-D array is n0 x n1 x 1); the
 * backends copy contiguous runs along the last axis, so move the unit axes to
 * the front first, or a 2-D copy would run element by element. */
static lwt_status copy_normalized(const exec_env *env, size_t es, const void *src, const size_t *ss0,
                                  const size_t *so0, void *dst, const size_t *ds0, const size_t *do0, const size_t *b0)
{
    size_t ss[3], so[3], ds[3], dof[3], b[3];
    memcpy(ss, ss0, sizeof ss);
    memcpy(so, so0, sizeof so);
    memcpy(ds, ds0, sizeof ds);
    memcpy(dof, do0, sizeof dof);
    memcpy(b, b0, sizeof b);
    for (int r = 0; r < 2 && b[2] == 1 && ss[2] == 1 && ds[2] == 1; r++) {
        lwt_unit_axis_first(ss, 1);
        lwt_unit_axis_first(so, 0);
        lwt_unit_axis_first(ds, 1);
        lwt_unit_axis_first(dof, 0);
        lwt_unit_axis_first(b, 1);
    }
    return env->ops->copy_block(env->bctx, es, src, ss, so, dst, ds, dof, b);
}

#define COPY(src, sshape, soff, dst, dshape, doff, block)                                         \
    do {                                                                                         \
        lwt_status cs = copy_normalized(env, es, src, sshape, soff, dst, dshape, doff, block);   \
        if (cs)                                                                                  \
            return cs;                                                                           \
    } while (0)

/* The bands of level j where they live: details in the packed array, the
 * approximation in `approx` (compact, nc shape) unless approx_packed, when it
 * is the packed array's corner. The last forward pass of a level writes
 * through this map and the first inverse pass reads through it. ces: the
 * packed array's element size (2: a 16-bit plan's; the buffers are the plan's). */
static void build_band_map(const lwt_plan *p, int j, char *coeffs, char *approx, int approx_packed, size_t ces,
                           lwt_dest_map *m)
{
    const size_t es = lwt_plan_elem_size(p);
    const size_t *nc = p->sizes[j];
    const int nd = p->ndim, last = nd - 1;
    const int level_index = p->levels - j + 1;
    memset(m, 0, sizeof *m);
    m->nouter = last;
    for (int q = 0; q < last; q++)
        m->half[q] = (long)nc[q];
    m->extent1 = last == 2 ? 2 * (long)nc[1] : 1;
    for (int r = 0; r < (1 << last); r++)
        for (int h = 0; h < 2; h++) {
            unsigned mask = (unsigned)r | ((unsigned)h << last);
            size_t off[LWT_MAX_NDIM] = {0, 0, 0}, shape[LWT_MAX_NDIM] = {1, 1, 1};
            char *base;
            if (mask == 0 && !approx_packed) {
                base = approx;
                for (int q = 0; q < nd; q++)
                    shape[q] = nc[q];
            } else {
                base = coeffs;
                if (mask)
                    band_offset(p, level_index, mask, off);
                for (int q = 0; q < nd; q++)
                    shape[q] = p->packed[q];
            }
            /* C-order strides of `shape`, in elements */
            size_t st[LWT_MAX_NDIM];
            st[nd - 1] = 1;
            for (int q = nd - 2; q >= 0; q--)
                st[q] = st[q + 1] * shape[q + 1];
            size_t o = 0;
            for (int q = 0; q < nd; q++)
                o += off[q] * st[q];
            m->dst[r][h] = base + o * (base == coeffs ? ces : es);
            m->s0[r][h] = last >= 1 ? st[0] : 0;
            m->s1[r][h] = last >= 2 ? st[1] : 0;
        }
}

static const size_t no_bstride[4] = {0, 0, 0, 0};

/* where band `mask` of level j of a 3-D plan is: its first element, and its
   row and plane strides (elements). The approximation is in `approx` (compact,
   nc shape) unless approx_packed, when it is the packed array's corner. */
static char *band3(const lwt_plan *p, const exec_env *env, int j, unsigned mask, char *coeffs, char *approx,
                   int approx_packed, size_t *row_stride, size_t *plane_stride)
{
    const size_t es = env->half ? 2 : lwt_plan_elem_size(p); /* the packed array's */
    if (mask == 0 && !approx_packed) {
        *row_stride = p->sizes[j][2];
        *plane_stride = p->sizes[j][1] * p->sizes[j][2];
        return approx;
    }
    size_t off[LWT_MAX_NDIM] = {0, 0, 0};
    if (mask)
        band_offset(p, p->levels - j + 1, mask, off);
    *row_stride = p->packed[2];
    *plane_stride = p->packed[1] * p->packed[2];
    return coeffs + ((off[0] * p->packed[1] + off[1]) * p->packed[2] + off[2]) * es;
}

/*
 * A 3-D level by planes, on backends whose 2-D level takes a batch of planes:
 * the pass along axis 0 (PyWavelets' first) through global memory, and one
 * 2-D level on every plane of its output for axes 1 and 2, bands straight to
 * their places: two reads and two writes of the level instead of three of
 * each plus the bands' copies. Plane hz of the pass's output (hz = 0: the
 * approximation half along axis 0) holds bands hz | b << 1 of the level.
 * Forward: zbuf is the pass's output, (2 nc0, n1, n2).
 */
static lwt_status planes_forward(const lwt_plan *p, const exec_env *env, int j, const char *zbuf, char *coeffs,
                                 char *approx, int approx_packed)
{
    const size_t es = lwt_plan_elem_size(p);
    const size_t *n = p->sizes[j - 1], nc0 = p->sizes[j][0];
    for (unsigned hz = 0; hz < 2; hz++) {
        const void *in[4] = {zbuf + hz * nc0 * n[1] * n[2] * es, NULL, NULL, NULL};
        const size_t in_stride[4] = {n[2], 0, 0, 0}, in_bstride[4] = {n[1] * n[2], 0, 0, 0};
        void *out[4];
        size_t out_stride[4], out_bstride[4];
        for (unsigned b = 0; b < 4; b++)
            out[b] = band3(p, env, j, hz | b << 1, coeffs, approx, approx_packed, &out_stride[b], &out_bstride[b]);
        lwt_status st = env->ops->fused2d(env->bctx, j, 0, in, in_stride, out, out_stride, nc0, in_bstride, out_bstride,
                                          planes16(env, hz, approx_packed));
        if (st)
            return st;
    }
    return LWT_OK;
}

/* Inverse: the planes' 2-D inverse levels into zbuf, (2 nc0, m1, m2) with m
   the level's output shape, ready for the inverse pass along axis 0. */
static lwt_status planes_inverse(const lwt_plan *p, const exec_env *env, int j, const char *coeffs, const char *approx,
                                 int approx_packed, char *zbuf)
{
    const size_t es = lwt_plan_elem_size(p);
    const size_t *m = p->sizes[j - 1], nc0 = p->sizes[j][0];
    for (unsigned hz = 0; hz < 2; hz++) {
        const void *in[4];
        size_t in_stride[4], in_bstride[4];
        for (unsigned b = 0; b < 4; b++)
            in[b] = band3(p, env, j, hz | b << 1, (char *)coeffs, (char *)approx, approx_packed, &in_stride[b],
                          &in_bstride[b]);
        void *out[4] = {zbuf + hz * nc0 * m[1] * m[2] * es, NULL, NULL, NULL};
        const size_t out_stride[4] = {m[2], 0, 0, 0}, out_bstride[4] = {m[1] * m[2], 0, 0, 0};
        lwt_status st = env->ops->fused2d(env->bctx, j, 1, in, in_stride, out, out_stride, nc0, in_bstride, out_bstride,
                                          planes16(env, hz, approx_packed));
        if (st)
            return st;
    }
    return LWT_OK;
}

/* where a 2-D forward level j writes its bands: the approximation (dst[0]) to
   `approx` (compact) or, at the last level, the packed array's corner; the
   details to their places in the packed array */
static void level_dests(const lwt_plan *p, const exec_env *env, int j, char *coeffs, char *approx, void *dst[4],
                        size_t stride[4])
{
    const size_t es = env->half ? 2 : lwt_plan_elem_size(p);
    const int corner = j == p->levels && !env->half; /* 16-bit: the corner is converted after */
    dst[0] = corner ? (void *)coeffs : (void *)approx;
    stride[0] = corner ? p->packed[1] : p->sizes[j][1];
    for (unsigned mask = 1; mask < 4; mask++) {
        size_t off[LWT_MAX_NDIM];
        band_offset(p, p->levels - j + 1, mask, off);
        dst[mask] = coeffs + (off[0] * p->packed[1] + off[1]) * es;
        stride[mask] = p->packed[1];
    }
}

/* after a step that wrote the level's bands to their places and its approximation to
   bufs[*which] (or, at the plan's last level, to the packed array's corner) */
static void approx_in_buffer(const lwt_plan *p, int j, char *bufs[2], const char **cur, size_t *cur_shape, int *which)
{
    *cur = bufs[*which];
    memcpy(cur_shape, p->sizes[j], LWT_MAX_NDIM * sizeof *cur_shape);
    *which ^= 1;
}

/* A 16-bit plan's coarsest approximations: nb compact float32 arrays in buf, to (narrow) or from
   the packed corners of its 16-bit coefficients, in one call (4096 calls, one an array, took 14 ms
   on the GPU for a batch of 256^2 arrays whose transform takes 2.4) */
static lwt_status half_corners(const lwt_plan *p, const exec_env *env, int narrow, char *buf, char *coeffs, size_t nb)
{
    const size_t *nc = p->sizes[p->levels], fb = nc[0] * nc[1], hb = p->coeff_count;
    return narrow ? env->ops->half_corner(env->bctx, 1, buf, nc[1], fb, coeffs, p->packed[1], hb, nc[0], nc[1], nb)
                  : env->ops->half_corner(env->bctx, 0, coeffs, p->packed[1], hb, buf, nc[1], fb, nc[0], nc[1], nb);
}

/* the end of a forward whose last level left its approximation in buf: a 16-bit 2-D plan's to
   the packed array's corner (the others, 16-bit 1-D and 3-D plans too, write it there themselves) */
static lwt_status forward_end(const lwt_plan *p, const exec_env *env, char *buf, char *coeffs)
{
    return env->half && p->ndim == 2 ? half_corners(p, env, 1, buf, coeffs, 1) : LWT_OK;
}

static lwt_status forward_one(const lwt_plan *p, const exec_env *env, const char *in, char *coeffs, char *bufs[2])
{
    const size_t es = lwt_plan_elem_size(p);
    const size_t zero[LWT_MAX_NDIM] = {0, 0, 0};
    if (!p->tight) {
        lwt_status zs = env->ops->zero_blocks(env->bctx, env->half ? 2 : es, coeffs, p->gap_shape, p->gaps, p->ngaps);
        if (zs)
            return zs;
    }
    const char *cur = in;
    size_t cur_shape[LWT_MAX_NDIM];
    memcpy(cur_shape, p->shape, sizeof cur_shape);
    int which = 0;
    for (int i = 0; i < env->steps->n[0]; i++) {
        const lwt_level_step *step = &env->steps->v[0][i];
        const int j = step->level;
        lwt_status st = LWT_OK;
        if (env->half && step->op != LWT_LEVEL_PAIR2D && step->op != LWT_LEVEL_FUSED2D &&
            step->op != LWT_LEVEL_PLANES && !(p->ndim == 1 && step->op == LWT_LEVEL_PASSES_MAP))
            return lwt_fail(p->ctx, LWT_ERR_INTERNAL, "forward step %d has no 16-bit kernel", i);
        switch (step->op) {
        case LWT_LEVEL_PAIR2D: {
            /* levels j and j + 1 in one pass: level j's approximation is never stored */
            void *dst1[4], *dst2[4];
            size_t stride1[4], stride2[4];
            level_dests(p, env, j, coeffs, bufs[which], dst1, stride1);
            level_dests(p, env, j + 1, coeffs, bufs[which], dst2, stride2);
            if ((st = env->ops->fused2d_pair(env->bctx, j, cur, cur_shape[1], dst1, stride1, dst2, stride2, 1, 0,
                                             no_bstride, no_bstride)))
                return st;
            if (j + 1 == p->levels)
                return forward_end(p, env, bufs[which], coeffs);
            approx_in_buffer(p, j + 1, bufs, &cur, cur_shape, &which);
            continue;
        }
        case LWT_LEVEL_FUSED2D: {
            /* the whole level in one pass, bands straight to their places */
            void *dst[4];
            size_t stride[4];
            level_dests(p, env, j, coeffs, bufs[which], dst, stride);
            const void *src[4] = {cur, NULL, NULL, NULL};
            const size_t src_stride[4] = {cur_shape[1], 0, 0, 0};
            if ((st = env->ops->fused2d(env->bctx, j, 0, src, src_stride, dst, stride, 1, no_bstride, no_bstride,
                                        level16(env, j))))
                return st;
            break;
        }
        case LWT_LEVEL_VOLUME: {
            /* the whole level in one pass, bands straight to their places */
            void *dst[8];
            size_t row[8], plane[8];
            for (unsigned b = 0; b < 8; b++)
                dst[b] = band3(p, env, j, b, coeffs, bufs[which], j == p->levels, &row[b], &plane[b]);
            if ((st = env->ops->fused3d(env->bctx, j, cur, cur_shape[2], cur_shape[1] * cur_shape[2], dst, row,
                                        plane)))
                return st;
            break;
        }
        case LWT_LEVEL_PLANES: {
            /* the pass along axis 0, then axes 1 and 2 plane by plane, the approximation to
               the free buffer */
            size_t next_shape[LWT_MAX_NDIM];
            if ((st = run_axis(p, env, 0, 0, cur_shape, 0, cur, bufs[which], next_shape, NULL,
                               env->half && j == 1 ? LWT_PASS16_IN : 0u)))
                return st;
            cur = bufs[which];
            which ^= 1;
            if ((st = planes_forward(p, env, j, cur, coeffs, bufs[which], j == p->levels)))
                return st;
            break;
        }
        case LWT_LEVEL_PASSES:
        case LWT_LEVEL_PASSES_MAP: {
            const int map_last = step->op == LWT_LEVEL_PASSES_MAP;
            for (int k = 0; k < p->ndim; k++) {
                size_t next_shape[LWT_MAX_NDIM];
                lwt_dest_map map;
                /* with the map, the last pass writes the level's bands where they belong */
                if (map_last && k == p->ndim - 1)
                    build_band_map(p, j, coeffs, bufs[which], j == p->levels, env->half ? 2 : es, &map);
                const int through_map = map_last && k == p->ndim - 1;
                /* a 16-bit 1-D plan (the only half one here): the signal, the detail and the last
                   approximation in 16 bits, rounded in the pass */
                const unsigned s16 = env->half ? (j == 1 ? LWT_PASS16_IN : 0u) | LWT_PASS16_OUT2 |
                                                     (j == p->levels ? LWT_PASS16_OUT : 0u)
                                               : 0u;
                if ((st = run_axis(p, env, k, 0, cur_shape, 0, cur, bufs[which], next_shape,
                                   through_map ? &map : NULL, s16)))
                    return st;
                if (through_map)
                    break;
                cur = bufs[which];
                memcpy(cur_shape, next_shape, sizeof cur_shape);
                which ^= 1;
            }
            if (map_last && j == p->levels)
                return LWT_OK; /* the approximation went to the packed array's corner */
            if (map_last)
                break;
            /* scatter the detail bands of this level, keep the approximation */
            const size_t *nc = p->sizes[j];
            for (unsigned mask = 1; mask < (1u << p->ndim); mask++) {
                size_t src_off[LWT_MAX_NDIM] = {0, 0, 0}, dst_off[LWT_MAX_NDIM];
                for (int k = 0; k < p->ndim; k++)
                    src_off[k] = (mask >> k) & 1 ? nc[k] : 0;
                band_offset(p, p->levels - j + 1, mask, dst_off);
                COPY(cur, cur_shape, src_off, coeffs, p->packed, dst_off, nc);
            }
            char *approx = bufs[which];
            COPY(cur, cur_shape, zero, approx, nc, zero, nc);
            cur = approx;
            memcpy(cur_shape, nc, sizeof cur_shape);
            which ^= 1;
            continue;
        }
        default:
            return lwt_fail(p->ctx, LWT_ERR_INTERNAL, "forward step %d has no way to run", i);
        }
        /* the bands are in place and the approximation in bufs[which] */
        if (j == p->levels)
            return forward_end(p, env, bufs[which], coeffs);
        approx_in_buffer(p, j, bufs, &cur, cur_shape, &which);
    }
    COPY(cur, cur_shape, zero, coeffs, p->packed, zero, cur_shape);
    return LWT_OK;
}

static lwt_status inverse_one(const lwt_plan *p, const exec_env *env, const char *coeffs, char *out, char *bufs[2])
{
    const size_t es = lwt_plan_elem_size(p);
    const size_t zero[LWT_MAX_NDIM] = {0, 0, 0};
    if (p->levels == 0) {
        const size_t all[LWT_MAX_NDIM] = {p->input_count, 1, 1};
        COPY(coeffs, all, zero, out, all, zero, all);
        return LWT_OK;
    }
    /* the approximation cA_J: read in place by fused levels, else copied to buffer 0; a 16-bit
       plan's converted to float32 in buffer 0 */
    int which = 0;
    char *cur = bufs[which];
    const char *approx = coeffs;
    size_t approx_stride = p->packed[1];
    if (env->half && p->ndim == 2) { /* a 1-D plan's is read through the first level's map */
        const size_t *nj = p->sizes[p->levels];
        lwt_status hs = half_corners(p, env, 0, cur, (char *)coeffs, 1);
        if (hs)
            return hs;
        approx = cur;
        approx_stride = nj[1];
    }
    for (int i = 0; i < env->steps->n[1]; i++) {
        const lwt_level_step *step = &env->steps->v[1][i];
        const int j = step->level;
        const size_t *nc = p->sizes[j];
        lwt_status st;
        if (env->half && step->op != LWT_LEVEL_FUSED2D && step->op != LWT_LEVEL_PLANES &&
            !(p->ndim == 1 && step->op == LWT_LEVEL_PASSES_MAP))
            return lwt_fail(p->ctx, LWT_ERR_INTERNAL, "inverse step %d has no 16-bit kernel", i);
        if (step->op == LWT_LEVEL_FUSED2D) {
            const void *src[4] = {approx, NULL, NULL, NULL};
            size_t src_stride[4] = {approx_stride, p->packed[1], p->packed[1], p->packed[1]};
            for (unsigned mask = 1; mask < 4; mask++) {
                size_t off[LWT_MAX_NDIM];
                band_offset(p, p->levels - j + 1, mask, off);
                src[mask] = coeffs + (off[0] * p->packed[1] + off[1]) * (env->half ? 2 : es);
            }
            char *dst = j == 1 ? out : bufs[which ^ 1];
            void *outs[4] = {dst, NULL, NULL, NULL};
            const size_t out_stride[4] = {p->sizes[j - 1][1], 0, 0, 0};
            if ((st = env->ops->fused2d(env->bctx, j, 1, src, src_stride, outs, out_stride, 1, no_bstride,
                                        no_bstride, level16(env, j))))
                return st;
            approx = cur = dst;
            approx_stride = p->sizes[j - 1][1];
            which ^= 1;
            continue;
        }
        if (step->op == LWT_LEVEL_PLANES) {
            /* axes 2 and 1 plane by plane, then the pass along axis 0 */
            char *zbuf = bufs[which ^ 1];
            if ((st = planes_inverse(p, env, j, coeffs, approx, approx == coeffs, zbuf)))
                return st;
            const size_t zshape[LWT_MAX_NDIM] = {2 * nc[0], p->sizes[j - 1][1], p->sizes[j - 1][2]};
            size_t next_shape[LWT_MAX_NDIM];
            char *dst = j == 1 ? out : bufs[which];
            if ((st = run_axis(p, env, 0, 1, zshape, (long)p->sizes[j - 1][0], zbuf, dst, next_shape, NULL,
                               env->half && j == 1 ? LWT_PASS16_OUT : 0u)))
                return st;
            approx = cur = dst;
            continue;
        }
        if (step->op != LWT_LEVEL_PASSES && step->op != LWT_LEVEL_PASSES_MAP)
            return lwt_fail(p->ctx, LWT_ERR_INTERNAL, "inverse step %d has no way to run", i);
        if (approx == coeffs && !env->half) {
            COPY(coeffs, p->packed, zero, cur, p->sizes[p->levels], zero, p->sizes[p->levels]);
            approx = cur;
        }
        size_t shape[LWT_MAX_NDIM] = {1, 1, 1};
        for (int k = 0; k < p->ndim; k++)
            shape[k] = 2 * nc[k];
        const char *src;
        int k0 = p->ndim - 1;
        if (step->op == LWT_LEVEL_PASSES_MAP) {
            /* the first pass (last axis) reads the bands from their places */
            lwt_dest_map map;
            build_band_map(p, j, (char *)coeffs, cur, approx == coeffs, env->half ? 2 : es, &map);
            size_t next_shape[LWT_MAX_NDIM];
            char *dst = j == 1 && k0 == 0 ? out : bufs[which ^ 1];
            /* a 16-bit 1-D plan: the detail, the coarsest approximation and the signal in 16 bits */
            const unsigned s16 = env->half ? LWT_PASS16_IN2 | (approx == coeffs ? LWT_PASS16_IN : 0u) |
                                                 (j == 1 ? LWT_PASS16_OUT : 0u)
                                           : 0u;
            if ((st = run_axis(p, env, k0, 1, shape, (long)p->sizes[j - 1][k0], cur, dst, next_shape, &map, s16)))
                return st;
            src = dst;
            memcpy(shape, next_shape, sizeof shape);
            which ^= 1;
            k0--;
        } else {
            /* assemble [cA | cD] blocks of this level, then pass plainly */
            char *blk = bufs[which ^ 1];
            COPY(cur, nc, zero, blk, shape, zero, nc);
            for (unsigned mask = 1; mask < (1u << p->ndim); mask++) {
                size_t dst_off[LWT_MAX_NDIM] = {0, 0, 0}, src_off[LWT_MAX_NDIM];
                for (int k = 0; k < p->ndim; k++)
                    dst_off[k] = (mask >> k) & 1 ? nc[k] : 0;
                band_offset(p, p->levels - j + 1, mask, src_off);
                COPY(coeffs, p->packed, src_off, blk, shape, dst_off, nc);
            }
            src = blk;
            which ^= 1;
        }
        for (int k = k0; k >= 0; k--) {
            size_t next_shape[LWT_MAX_NDIM];
            char *dst = j == 1 && k == 0 ? out : bufs[which ^ 1];
            if ((st = run_axis(p, env, k, 1, shape, (long)p->sizes[j - 1][k], src, dst, next_shape, NULL, 0)))
                return st;
            src = dst;
            memcpy(shape, next_shape, sizeof shape);
            which ^= 1;
        }
        /* the next level's approximation, also for the fused steps: a level of one kind
           may come after one of the other */
        approx = cur = (char *)src;
        approx_stride = p->sizes[j - 1][p->ndim - 1];
    }
    return LWT_OK;
}

/* The bands of a batch of 1-D signals at level j: row b's approximation at
 * approx + b * approx_stride, its detail in its own packed array. */
static void rows_map(const lwt_plan *p, int j, char *coeffs, char *approx, size_t approx_stride, size_t ces,
                     lwt_dest_map *m)
{
    size_t off[LWT_MAX_NDIM];
    band_offset(p, p->levels - j + 1, 1, off);
    memset(m, 0, sizeof *m);
    m->nouter = 1;
    m->half[0] = (long)p->desc.batch; /* every row in region 0: no split along the batch */
    m->extent1 = 1;
    m->dst[0][0] = approx;
    m->s0[0][0] = approx_stride;
    m->dst[0][1] = coeffs + off[0] * ces;
    m->s0[0][1] = p->coeff_count;
}

/*
 * A batch of 1-D signals as one B x n array transformed along its rows: one
 * pass per level for all of them, each writing its bands straight into its
 * own packed array (item b at b * coeff_count), instead of B transforms of
 * one row each (a kernel launch per row and level on the GPU). The same
 * passes per row, hence the same results. The planner takes this way only
 * where every level's pass reads and writes through a map.
 */
static lwt_status batch_rows(const lwt_plan *p, const exec_env *env, const char *in, char *out, char *bufs[2],
                             int inverse)
{
    const size_t B = p->desc.batch;
    const size_t ces = env->half ? 2 : lwt_plan_elem_size(p); /* the signals' and the packed arrays' */
    const lwt_level_step *v = env->steps->v[inverse];
    int which = 0;
    lwt_dest_map map;
    if (!inverse) {
        for (size_t b = 0; b < B && !p->tight; b++) {
            lwt_status zs = env->ops->zero_blocks(env->bctx, ces, out + b * p->coeff_count * ces, p->gap_shape,
                                                  p->gaps, p->ngaps);
            if (zs)
                return zs;
        }
        const char *cur = in;
        for (int i = 0; i < env->steps->n[0]; i++) {
            const int j = v[i].level, last = j == p->levels;
            char *approx = last ? out : bufs[which];
            rows_map(p, j, out, approx, last ? p->coeff_count : p->sizes[j][0], ces, &map);
            size_t shape[LWT_MAX_NDIM] = {B, p->sizes[j - 1][0], 1}, next[LWT_MAX_NDIM];
            /* 16-bit: the signals, the details and the last approximations (forward_one's) */
            const unsigned s16 = env->half ? (j == 1 ? LWT_PASS16_IN : 0u) | LWT_PASS16_OUT2 |
                                                 (last ? LWT_PASS16_OUT : 0u)
                                           : 0u;
            lwt_status st = run_axis(p, env, 1, 0, shape, 0, cur, approx, next, &map, s16);
            if (st)
                return st;
            cur = approx;
            which ^= 1;
        }
        return LWT_OK;
    }
    const char *approx = in; /* cA_J read in place */
    size_t approx_stride = p->coeff_count;
    for (int i = 0; i < env->steps->n[1]; i++) {
        const int j = v[i].level;
        char *dst = j == 1 ? out : bufs[which];
        rows_map(p, j, (char *)in, (char *)approx, approx_stride, ces, &map);
        size_t shape[LWT_MAX_NDIM] = {B, 2 * p->sizes[j][0], 1}, next[LWT_MAX_NDIM];
        const unsigned s16 = env->half ? LWT_PASS16_IN2 | (approx == in ? LWT_PASS16_IN : 0u) |
                                             (j == 1 ? LWT_PASS16_OUT : 0u)
                                       : 0u;
        lwt_status st = run_axis(p, env, 1, 1, shape, (long)p->sizes[j - 1][0], approx, dst, next, &map, s16);
        if (st)
            return st;
        approx = dst;
        approx_stride = p->sizes[j - 1][0];
        which ^= 1;
    }
    return LWT_OK;
}

/*
 * A batch of 2-D arrays level by level (steps->batch_levels): each FUSED2D or PAIR2D step on
 * every array at once, array b's slices b strides apart. Array b's packed coefficients start b coeff_count
 * on, its input (output) b input_count on; the approximations between levels sit compact in
 * the buffers, b of them one after another. The bits are those of the arrays one at a time:
 * the same kernel runs each array's level the same way.
 */
static lwt_status forward_batch(const lwt_plan *p, const exec_env *env, const char *in, char *coeffs, char *bufs[2])
{
    const size_t es = lwt_plan_elem_size(p), B = p->desc.batch;
    if (!p->tight) {
        lwt_status zs = env->ops->zero_blocks(env->bctx, env->half ? 2 : es, coeffs, p->bgap_shape, p->bgaps, p->ngaps);
        if (zs)
            return zs;
    }
    const char *cur = in;
    size_t cur_cols = p->shape[1], cur_bstride = p->input_count;
    int which = 0;
    for (int i = 0; i < env->steps->n[0]; i++) {
        const lwt_level_step *step = &env->steps->v[0][i];
        const int j = step->level, jl = step->op == LWT_LEVEL_PAIR2D ? j + 1 : j; /* its last level */
        void *dst[4];
        size_t stride[4], out_bstride[4];
        level_dests(p, env, jl, coeffs, bufs[which], dst, stride);
        for (unsigned b = 0; b < 4; b++) /* a 16-bit batch keeps even its last approximations compact */
            out_bstride[b] = b == 0 && (jl < p->levels || env->half) ? p->sizes[jl][0] * p->sizes[jl][1]
                                                                     : p->coeff_count;
        lwt_status st;
        if (step->op == LWT_LEVEL_PAIR2D) { /* level j's details, then level j + 1's bands (dst) */
            void *dst1[4];
            size_t stride1[4];
            const size_t bstride1[4] = {0, p->coeff_count, p->coeff_count, p->coeff_count};
            level_dests(p, env, j, coeffs, NULL, dst1, stride1);
            dst1[0] = NULL; /* level j's approximation is never stored */
            st = env->ops->fused2d_pair(env->bctx, j, cur, cur_cols, dst1, stride1, dst, stride, B, cur_bstride,
                                        bstride1, out_bstride);
        } else {
            const void *src[4] = {cur, NULL, NULL, NULL};
            const size_t src_stride[4] = {cur_cols, 0, 0, 0}, src_bstride[4] = {cur_bstride, 0, 0, 0};
            st = env->ops->fused2d(env->bctx, j, 0, src, src_stride, dst, stride, B, src_bstride, out_bstride,
                                   level16(env, j));
        }
        if (st)
            return st;
        cur = bufs[which];
        cur_cols = p->sizes[jl][1];
        cur_bstride = out_bstride[0];
        which ^= 1;
    }
    return env->half ? half_corners(p, env, 1, (char *)cur, coeffs, B) : LWT_OK;
}

static lwt_status inverse_batch(const lwt_plan *p, const exec_env *env, const char *coeffs, char *out, char *bufs[2])
{
    const size_t es = env->half ? 2 : lwt_plan_elem_size(p), B = p->desc.batch;
    const char *approx = coeffs;
    size_t approx_cols = p->packed[1], approx_bstride = p->coeff_count;
    int which = 0;
    if (env->half) { /* the corners widened into buffer 0, the first level's output to buffer 1 */
        const size_t *nc = p->sizes[p->levels];
        lwt_status hs = half_corners(p, env, 0, bufs[0], (char *)coeffs, B);
        if (hs)
            return hs;
        approx = bufs[0];
        approx_cols = nc[1];
        approx_bstride = nc[0] * nc[1];
        which = 1;
    }
    for (int i = 0; i < env->steps->n[1]; i++) {
        const int j = env->steps->v[1][i].level;
        const void *src[4] = {approx, NULL, NULL, NULL};
        const size_t src_stride[4] = {approx_cols, p->packed[1], p->packed[1], p->packed[1]};
        const size_t src_bstride[4] = {approx_bstride, p->coeff_count, p->coeff_count, p->coeff_count};
        for (unsigned mask = 1; mask < 4; mask++) {
            size_t off[LWT_MAX_NDIM];
            band_offset(p, p->levels - j + 1, mask, off);
            src[mask] = coeffs + (off[0] * p->packed[1] + off[1]) * es;
        }
        char *dst = j == 1 ? out : bufs[which];
        void *outs[4] = {dst, NULL, NULL, NULL};
        const size_t out_stride[4] = {p->sizes[j - 1][1], 0, 0, 0};
        const size_t out_bstride[4] = {j == 1 ? p->input_count : p->sizes[j - 1][0] * p->sizes[j - 1][1], 0, 0, 0};
        lwt_status st = env->ops->fused2d(env->bctx, j, 1, src, src_stride, outs, out_stride, B, src_bstride,
                                          out_bstride, level16(env, j));
        if (st)
            return st;
        approx = dst;
        approx_cols = out_stride[0];
        approx_bstride = out_bstride[0];
        which ^= 1;
    }
    return LWT_OK;
}

lwt_status lwt_driver_run(const lwt_plan *p, const lwt_steps *steps, const lwt_backend_ops *ops, void *bctx,
                          const void *in, void *out, void *workspace, int inverse)
{
    const size_t es = lwt_plan_elem_size(p);
    exec_env env = {ops, bctx, steps, 0};
    char *bufs[2] = {(char *)workspace, (char *)workspace + p->buf_elems * es};
    if (steps->n[inverse] > 0 && steps->v[inverse][0].op == LWT_LEVEL_ROWS)
        return batch_rows(p, &env, (const char *)in, (char *)out, bufs, inverse);
    if (steps->batch_levels)
        return inverse ? inverse_batch(p, &env, (const char *)in, (char *)out, bufs)
                       : forward_batch(p, &env, (const char *)in, (char *)out, bufs);
    const size_t in_stride = (inverse ? p->coeff_count : p->input_count) * es;
    const size_t out_stride = (inverse ? p->input_count : p->coeff_count) * es;
    lwt_status st = LWT_OK;
    for (size_t b = 0; b < p->desc.batch && st == LWT_OK; b++) {
        const char *src = (const char *)in + b * in_stride;
        char *dst = (char *)out + b * out_stride;
        st = inverse ? inverse_one(p, &env, src, dst, bufs) : forward_one(p, &env, src, dst, bufs);
    }
    return st;
}

lwt_status lwt_driver_run_half(const lwt_plan *q, const lwt_backend_ops *ops, void *bctx, const void *in, void *out,
                               float *bufs[2], int inverse)
{
    if (!ops->half_corner)
        return lwt_fail(q->ctx, LWT_ERR_INTERNAL, "16-bit levels: not a converting backend");
    exec_env env = {ops, bctx, &q->steps, 1};
    char *b[2] = {(char *)bufs[0], (char *)bufs[1]};
    if (q->steps.n[inverse] > 0 && q->steps.v[inverse][0].op == LWT_LEVEL_ROWS)
        return batch_rows(q, &env, (const char *)in, (char *)out, b, inverse);
    if (q->steps.batch_levels)
        return inverse ? inverse_batch(q, &env, (const char *)in, (char *)out, b)
                       : forward_batch(q, &env, (const char *)in, (char *)out, b);
    /* the arrays one after the other, 16-bit values apart */
    const size_t in_stride = (inverse ? q->coeff_count : q->input_count) * 2;
    const size_t out_stride = (inverse ? q->input_count : q->coeff_count) * 2;
    lwt_status st = LWT_OK;
    for (size_t i = 0; i < q->desc.batch && st == LWT_OK; i++)
        st = inverse ? inverse_one(q, &env, (const char *)in + i * in_stride, (char *)out + i * out_stride, b)
                     : forward_one(q, &env, (const char *)in + i * in_stride, (char *)out + i * out_stride, b);
    return st;
}

static lwt_status execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    if (!p || !in || !out)
        return lwt_fail(p ? p->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "execute: NULL argument");
    if (p->f32)
        return lwt_half_execute(p, in, out, workspace, inverse);
    return p->ops->execute(p, in, out, workspace, inverse);
}

lwt_status lwt_forward(const lwt_plan *p, const void *input, void *coeffs, void *workspace)
{
    return execute(p, input, coeffs, workspace, 0);
}

lwt_status lwt_inverse(const lwt_plan *p, const void *coeffs, void *output, void *workspace)
{
    return execute(p, coeffs, output, workspace, 1);
}
