/*
 * Plans and the n-D multi-level driver.
 *
 * Forward, per level: transform the current approximation along axis 0, 1,
 * ..., ndim-1 (PyWavelets' dwtn order), each pass turning an axis of length n
 * into [cA | cD] of 2 nc. The block whose axes are all 'a' is the next
 * approximation; the others are scattered to their place in the packed
 * layout (pywt.coeffs_to_array). The inverse assembles [cA | cD] blocks from
 * the packed array and the previous approximation and runs the axes in
 * reverse order (PyWavelets' idwtn), producing exactly as many samples as the
 * next level needs, which is PyWavelets' crop of the approximation.
 */
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/extend.h"
#include "core/line.h"
#include "core/plan.h"
#include "core/wavelet.h"

int lwt_max_level(size_t n, int filter_length)
{
    if (filter_length < 2 || n < (size_t)(filter_length - 1))
        return 0;
    int L = 0;
    while (((size_t)(filter_length - 1) << (L + 1)) <= n && L < 62)
        L++;
    return L;
}

lwt_plan_desc lwt_plan_desc_default(void)
{
    lwt_plan_desc d;
    memset(&d, 0, sizeof d);
    d.ndim = 1;
    d.levels = LWT_LEVELS_MAX;
    d.mode = LWT_MODE_SYMMETRIC;
    d.dtype = LWT_F64;
    d.backend = LWT_BACKEND_AUTO;
    d.algorithm = LWT_ALGO_AUTO;
    d.batch = 1;
    return d;
}

static size_t prod(const size_t *s, int nd)
{
    size_t p = 1;
    for (int k = 0; k < nd; k++)
        p *= s[k];
    return p;
}

/* a trailing unit axis (value 1 for shapes, 0 for offsets) moved to the front */
static void unit_axis_first(size_t v[3], size_t unit)
{
    v[2] = v[1];
    v[1] = v[0];
    v[0] = unit;
}

/* p->gaps: the parts of the packed array no band covers (core/boxes.h); non-zero
   when out of memory */
static int plan_gaps(lwt_plan *p)
{
    const size_t per_level = ((size_t)1 << p->ndim) - 1, nb = 1 + per_level * (size_t)p->levels;
    lwt_box *bands = calloc(nb, sizeof *bands);
    if (!bands)
        return 1;
    size_t n = 0, shape[3];
    for (int level = 0; level <= p->levels; level++)
        for (unsigned mask = level ? 1 : 0; mask <= (level ? per_level : 0); mask++) {
            lwt_band b;
            lwt_plan_band(p, level, mask, &b);
            for (int k = 0; k < 3; k++) {
                bands[n].off[k] = k < p->ndim ? b.offset[k] : 0;
                bands[n].ext[k] = k < p->ndim ? b.shape[k] : 1;
            }
            n++;
        }
    for (int k = 0; k < 3; k++)
        shape[k] = k < p->ndim ? p->packed[k] : 1;
    const size_t ng = lwt_box_complement(shape, bands, n, NULL, 0);
    p->gaps = ng == (size_t)-1 ? NULL : calloc(ng ? ng : 1, sizeof *p->gaps);
    if (p->gaps)
        p->ngaps = lwt_box_complement(shape, bands, n, p->gaps, ng);
    free(bands);
    if (!p->gaps || p->ngaps != ng)
        return 1;
    /* unit axes first (a 2-D array as 1 x n0 x n1), so the backends zero runs of
       the last axis, not single elements */
    memcpy(p->gap_shape, shape, sizeof shape);
    for (int r = 0; r < 2 && p->gap_shape[2] == 1; r++) {
        unit_axis_first(p->gap_shape, 1);
        for (size_t i = 0; i < p->ngaps; i++) {
            unit_axis_first(p->gaps[i].off, 0);
            unit_axis_first(p->gaps[i].ext, 1);
        }
    }
    return 0;
}

/* overflow-safe product; 0 on overflow */
static size_t prod_checked(const size_t *s, int nd)
{
    size_t p = 1;
    for (int k = 0; k < nd; k++) {
        if (s[k] && p > (size_t)-1 / s[k])
            return 0;
        p *= s[k];
    }
    return p;
}

lwt_status lwt_plan_create(lwt_context *ctx, const lwt_plan_desc *d, lwt_plan **out)
{
    if (!d || !out || !d->wavelet)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_plan_create: NULL argument");
    *out = NULL;
    if (d->ndim < 1 || d->ndim > LWT_MAX_NDIM)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "ndim must be 1, 2 or 3 (got %d)", d->ndim);
    for (int k = 0; k < d->ndim; k++)
        if (d->shape[k] < 1 || d->shape[k] > ((size_t)1 << 40))
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "axis %d has length %zu (must be 1 .. 2^40)", k,
                            d->shape[k]);
    if ((int)d->mode < 0 || (int)d->mode >= LWT_MODE_COUNT)
        return lwt_fail(ctx, LWT_ERR_UNKNOWN_MODE, "unknown mode %d", (int)d->mode);
    if (d->dtype != LWT_F32 && d->dtype != LWT_F64)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "dtype must be LWT_F32 or LWT_F64");
    if (d->batch < 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "batch must be >= 1");
    if (d->lbb_threads && (d->lbb_threads < 32 || d->lbb_threads > 1024 || d->lbb_threads % 32))
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lbb_threads must be 0 or a multiple of 32 in 32..1024 (got %d)",
                        d->lbb_threads);
    if (d->lbb_cols && (d->lbb_cols < 16 || d->lbb_cols > 1024))
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lbb_cols must be 0 or 16..1024 (got %d)", d->lbb_cols);
    if (d->lifting != LWT_LIFT_AUTO && d->lifting != LWT_LIFT_CLASSIC && d->lifting != LWT_LIFT_IMPROVED)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "unknown lifting variant %d", (int)d->lifting);
    if (d->fuse_levels != 0 && d->fuse_levels != 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "fuse_levels must be 0 or 1 (got %d)", d->fuse_levels);
    if (d->levels < 0 && d->levels != LWT_LEVELS_MAX)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "levels must be >= 0 (got %d)", d->levels);
    if (d->levels > LWT_LEVELS_LIMIT)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "levels must be <= %d (got %d)", LWT_LEVELS_LIMIT,
                        d->levels);
    if (d->backend != LWT_BACKEND_AUTO && d->backend != LWT_BACKEND_CPU && d->backend != LWT_BACKEND_CUDA)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "unknown backend %d", (int)d->backend);
    lwt_backend backend = LWT_BACKEND_CPU;
    if (d->backend != LWT_BACKEND_CPU) {
        int ndev = lwt_context_device_count(ctx);
        if (d->backend == LWT_BACKEND_CUDA && ndev == 0)
            return lwt_fail(ctx, LWT_ERR_BACKEND_UNAVAILABLE,
#ifdef LWT_HAVE_CUDA
                            "no CUDA device found"
#else
                            "this build has no CUDA backend (nvcc was not found at build time)"
#endif
            );
        if (d->backend == LWT_BACKEND_CUDA && (d->device < 0 || d->device >= ndev))
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "CUDA device %d does not exist (%d present)", d->device,
                            ndev);
        if (ndev > 0)
            backend = LWT_BACKEND_CUDA;
    }

    const lwt_wavelet *w = d->wavelet;
    lwt_path path = d->dtype == LWT_F32 ? w->path32 : w->path64;
    int direct;
    switch (d->algorithm) {
    case LWT_ALGO_AUTO: direct = path == LWT_PATH_CONVOLUTION; break;
    case LWT_ALGO_CONVOLUTION: direct = 1; break;
    case LWT_ALGO_LIFTING:
    case LWT_ALGO_LIFTING_RC:
    case LWT_ALGO_LIFTING_LBB:
    case LWT_ALGO_LIFTING_RC_STEPS:
        if (path != LWT_PATH_LIFTING)
            return lwt_fail(ctx, LWT_ERR_ACCURACY,
                            "wavelet %s has no lifting scheme within its accuracy bound for %s "
                            "(measured %.2g); use the convolution algorithm",
                            w->name, d->dtype == LWT_F32 ? "float32" : "float64",
                            d->dtype == LWT_F32 ? w->err32 : w->err64);
        direct = 0;
        break;
    default:
        return lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "algorithm %d is not available", (int)d->algorithm);
    }

    int max_level = 1 << 30;
    for (int k = 0; k < d->ndim; k++) {
        int m = lwt_max_level(d->shape[k], w->length);
        if (m < max_level)
            max_level = m;
    }
    int levels = d->levels == LWT_LEVELS_MAX ? max_level : d->levels;

    lwt_plan *p = calloc(1, sizeof *p);
    if (!p)
        return LWT_ERR_OUT_OF_MEMORY;
    p->sizes = calloc((size_t)levels + 1, sizeof *p->sizes);
    if (!p->sizes) {
        free(p);
        return LWT_ERR_OUT_OF_MEMORY;
    }
    p->ctx = ctx;
    p->desc = *d;
    p->wavelet = *w;
    if (d->dtype == LWT_F32 && p->wavelet.has_scheme)
        lwt_scheme_trim(&p->wavelet.scheme, LWT_F32_NEGLIGIBLE_TAP);
    p->desc.wavelet = &p->wavelet;
    p->fb = lwt_wavelet_bank(&p->wavelet);
    p->ndim = d->ndim;
    p->levels = levels;
    p->max_level = max_level;
    p->direct = direct;
    p->backend = backend;
    p->device = backend == LWT_BACKEND_CUDA && d->device > 0 && d->device < lwt_context_device_count(ctx) ? d->device : 0;
    memcpy(p->shape, d->shape, sizeof p->shape);
    for (int k = d->ndim; k < LWT_MAX_NDIM; k++)
        p->shape[k] = 1;

    /* sizes per level; PyWavelets refuses [anti]reflect on a length-1 axis */
    size_t buf = prod(p->shape, p->ndim);
    for (int k = 0; k < LWT_MAX_NDIM; k++)
        p->sizes[0][k] = p->shape[k];
    for (int j = 1; j <= levels; j++) {
        size_t inter[LWT_MAX_NDIM];
        memcpy(inter, p->sizes[j - 1], sizeof inter);
        for (int k = 0; k < p->ndim; k++) {
            long n = (long)p->sizes[j - 1][k];
            if (n < 2 && (d->mode == LWT_MODE_REFLECT || d->mode == LWT_MODE_ANTIREFLECT)) {
                lwt_plan_destroy(p);
                return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT,
                                "mode %s needs at least 2 samples per axis, but level %d has an axis of "
                                "length %ld",
                                lwt_mode_name(d->mode), j, n);
            }
            long nc = lwt_coeff_len(n, w->length, d->mode);
            p->sizes[j][k] = (size_t)nc;
            inter[k] = 2 * (size_t)nc;
            size_t e = prod_checked(inter, p->ndim);
            if (!e) {
                lwt_plan_destroy(p);
                return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "array too large");
            }
            if (e > buf)
                buf = e;
        }
        for (int k = p->ndim; k < LWT_MAX_NDIM; k++)
            p->sizes[j][k] = 1;
    }
    /* a batch of 1-D signals runs as one array of rows (batch_rows below): buffers for all of them */
    if (p->ndim == 1 && d->batch > 1) {
        if (buf > (size_t)-1 / d->batch) {
            lwt_plan_destroy(p);
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "array too large");
        }
        buf *= d->batch;
    }
    p->buf_elems = buf;
    for (int k = 0; k < LWT_MAX_NDIM; k++) {
        size_t s = p->sizes[levels][k];
        if (k < p->ndim)
            for (int j = 1; j <= levels; j++)
                s += p->sizes[j][k];
        p->packed[k] = s;
    }
    p->input_count = prod_checked(p->shape, p->ndim);
    p->coeff_count = prod_checked(p->packed, p->ndim);
    size_t band_total = prod(p->sizes[levels], p->ndim);
    for (int j = 1; j <= levels; j++)
        band_total += ((size_t)(1u << p->ndim) - 1) * prod(p->sizes[j], p->ndim);
    p->tight = band_total == p->coeff_count;
    if (!p->input_count || !p->coeff_count || buf > ((size_t)-1) / 16 / 2) {
        lwt_plan_destroy(p);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "array too large");
    }
    if (!p->tight && plan_gaps(p)) {
        lwt_plan_destroy(p);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "the packed array's gaps");
    }
#ifdef LWT_HAVE_CUDA
    if (p->backend == LWT_BACKEND_CUDA) {
        lwt_status cs = lwt_cuda_plan_init(p);
        if (cs) {
            lwt_plan_destroy(p);
            return cs;
        }
    }
#endif
    *out = p;
    return LWT_OK;
}

void lwt_plan_destroy(lwt_plan *p)
{
    if (!p)
        return;
#ifdef LWT_HAVE_CUDA
    if (p->cuda)
        lwt_cuda_plan_free(p);
#endif
    free(p->sizes);
    free(p->gaps);
    free(p);
}

lwt_status lwt_plan_get_info(const lwt_plan *p, lwt_plan_info *out)
{
    if (!p || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->ndim = p->ndim;
    for (int k = 0; k < LWT_MAX_NDIM; k++) {
        out->shape[k] = k < p->ndim ? p->shape[k] : 0;
        out->packed_shape[k] = k < p->ndim ? p->packed[k] : 0;
    }
    out->levels = p->levels;
    out->max_level = p->max_level;
    out->input_count = p->input_count;
    out->coeff_count = p->coeff_count;
    out->backend = p->backend;
    out->path = p->direct ? LWT_PATH_CONVOLUTION : LWT_PATH_LIFTING;
    out->workspace_bytes = 2 * p->buf_elems * lwt_plan_elem_size(p);
    return LWT_OK;
}

lwt_status lwt_plan_band(const lwt_plan *p, int level, unsigned mask, lwt_band *out)
{
    if (!p || !out || level < 0 || level > p->levels || mask >= (1u << p->ndim) || (level == 0) != (mask == 0))
        return LWT_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    int j = p->levels - level + 1; /* decomposition level of list entry `level` */
    for (int k = 0; k < p->ndim; k++) {
        if (level == 0) {
            out->shape[k] = p->sizes[p->levels][k];
            continue;
        }
        /* coeffs_to_array: 'd' starts after everything coarser along that axis */
        size_t acc = p->sizes[p->levels][k];
        for (int jj = p->levels; jj > j; jj--)
            acc += p->sizes[jj][k];
        out->offset[k] = (mask >> k) & 1 ? acc : 0;
        out->shape[k] = p->sizes[j][k];
    }
    return LWT_OK;
}

/* ------------------------------------------------------------- driver */

/* one backend and its state for the duration of a call */
typedef struct exec_env {
    const lwt_backend_ops *ops;
    void *bctx;
} exec_env;

static lwt_status run_axis(const lwt_plan *p, const exec_env *env, int axis, int inverse, const size_t *shape_in,
                           long n_axis_out, const void *in, void *out, size_t *shape_out, const lwt_dest_map *map)
{
    lwt_line_prog prog;
    const lwt_scheme *s = &p->wavelet.scheme;
    if (inverse)
        lwt_line_prog_inverse(&prog, s, p->direct, p->fb.length, p->desc.mode, (long)shape_in[axis] / 2,
                              n_axis_out);
    else
        lwt_line_prog_forward(&prog, s, p->direct, p->fb.length, p->desc.mode, (long)shape_in[axis]);
    lwt_pass ps;
    ps.prog = &prog;
    ps.scheme = s;
    ps.fb = &p->fb;
    ps.dtype = p->desc.dtype;
    ps.in = in;
    ps.out = out;
    ps.outer = 1;
    ps.inner = 1;
    for (int k = 0; k < axis; k++)
        ps.outer *= shape_in[k];
    for (int k = axis + 1; k < LWT_MAX_NDIM; k++)
        ps.inner *= shape_in[k];
    ps.threads = p->ctx ? p->ctx->threads : 0;
    ps.map = map;
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
        unit_axis_first(ss, 1);
        unit_axis_first(so, 0);
        unit_axis_first(ds, 1);
        unit_axis_first(dof, 0);
        unit_axis_first(b, 1);
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
 * through this map and the first inverse pass reads through it. */
static void build_band_map(const lwt_plan *p, int j, char *coeffs, char *approx, int approx_packed, lwt_dest_map *m)
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
            m->dst[r][h] = base + o * es;
            m->s0[r][h] = last >= 1 ? st[0] : 0;
            m->s1[r][h] = last >= 2 ? st[1] : 0;
        }
}

static const size_t no_bstride[4] = {0, 0, 0, 0};

/* where band `mask` of level j of a 3-D plan is: its first element, and its
   row and plane strides (elements). The approximation is in `approx` (compact,
   nc shape) unless approx_packed, when it is the packed array's corner. */
static char *band3(const lwt_plan *p, int j, unsigned mask, char *coeffs, char *approx, int approx_packed,
                   size_t *row_stride, size_t *plane_stride)
{
    const size_t es = lwt_plan_elem_size(p);
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
            out[b] = band3(p, j, hz | b << 1, coeffs, approx, approx_packed, &out_stride[b], &out_bstride[b]);
        lwt_status st = env->ops->fused2d(env->bctx, j, 0, in, in_stride, out, out_stride, nc0, in_bstride, out_bstride);
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
            in[b] = band3(p, j, hz | b << 1, (char *)coeffs, (char *)approx, approx_packed, &in_stride[b],
                          &in_bstride[b]);
        void *out[4] = {zbuf + hz * nc0 * m[1] * m[2] * es, NULL, NULL, NULL};
        const size_t out_stride[4] = {m[2], 0, 0, 0}, out_bstride[4] = {m[1] * m[2], 0, 0, 0};
        lwt_status st = env->ops->fused2d(env->bctx, j, 1, in, in_stride, out, out_stride, nc0, in_bstride, out_bstride);
        if (st)
            return st;
    }
    return LWT_OK;
}

/* where a 2-D forward level j writes its bands: the approximation (dst[0]) to
   `approx` (compact) or, at the last level, the packed array's corner; the
   details to their places in the packed array */
static void level_dests(const lwt_plan *p, int j, char *coeffs, char *approx, void *dst[4], size_t stride[4])
{
    const size_t es = lwt_plan_elem_size(p);
    dst[0] = j == p->levels ? (void *)coeffs : (void *)approx;
    stride[0] = j == p->levels ? p->packed[1] : p->sizes[j][1];
    for (unsigned mask = 1; mask < 4; mask++) {
        size_t off[LWT_MAX_NDIM];
        band_offset(p, p->levels - j + 1, mask, off);
        dst[mask] = coeffs + (off[0] * p->packed[1] + off[1]) * es;
        stride[mask] = p->packed[1];
    }
}

static lwt_status forward_one(const lwt_plan *p, const exec_env *env, const char *in, char *coeffs, char *bufs[2])
{
    const size_t es = lwt_plan_elem_size(p);
    const size_t zero[LWT_MAX_NDIM] = {0, 0, 0};
    if (!p->tight) {
        lwt_status zs = env->ops->zero_blocks(env->bctx, es, coeffs, p->gap_shape, p->gaps, p->ngaps);
        if (zs)
            return zs;
    }
    const char *cur = in;
    size_t cur_shape[LWT_MAX_NDIM];
    memcpy(cur_shape, p->shape, sizeof cur_shape);
    int which = 0;
    for (int j = 1; j <= p->levels; j++) {
        if (p->ndim == 2 && !p->direct && env->ops->fused2d_pair && j < p->levels) {
            /* levels j and j + 1 in one pass: level j's approximation is never stored */
            void *dst1[4], *dst2[4];
            size_t stride1[4], stride2[4];
            level_dests(p, j, coeffs, bufs[which], dst1, stride1);
            level_dests(p, j + 1, coeffs, bufs[which], dst2, stride2);
            lwt_status fs = env->ops->fused2d_pair(env->bctx, j, cur, cur_shape[1], dst1, stride1, dst2, stride2);
            if (fs == LWT_OK) {
                if (j + 1 == p->levels)
                    return LWT_OK;
                cur = bufs[which];
                memcpy(cur_shape, p->sizes[j + 1], sizeof cur_shape);
                which ^= 1;
                j++;
                continue;
            }
            if (fs != LWT_ERR_UNSUPPORTED)
                return fs;
        }
        if (p->ndim == 2 && !p->direct && env->ops->fused2d) {
            /* the whole level in one pass, bands straight to their places */
            void *dst[4];
            size_t stride[4];
            const size_t *nc = p->sizes[j];
            level_dests(p, j, coeffs, bufs[which], dst, stride);
            const void *src[4] = {cur, NULL, NULL, NULL};
            const size_t src_stride[4] = {cur_shape[1], 0, 0, 0};
            lwt_status fs = env->ops->fused2d(env->bctx, j, 0, src, src_stride, dst, stride, 1, no_bstride, no_bstride);
            if (fs == LWT_OK) {
                if (j == p->levels)
                    return LWT_OK;
                cur = bufs[which];
                memcpy(cur_shape, nc, sizeof cur_shape);
                which ^= 1;
                continue;
            }
            if (fs != LWT_ERR_UNSUPPORTED)
                return fs;
        }
        const size_t *nc = p->sizes[j];
        int level_index = p->levels - j + 1;
        for (int k = 0; k < p->ndim; k++) {
            size_t next_shape[LWT_MAX_NDIM];
            char *dst = bufs[which];
            /* the level's bands written where they belong: by the last axis's pass through
               the map, or (3-D) by the planes after the pass along axis 0 */
            int bands_done = 0;
            lwt_status st;
            if (k == p->ndim - 1) {
                lwt_dest_map map;
                build_band_map(p, j, coeffs, bufs[which], j == p->levels, &map);
                st = run_axis(p, env, k, 0, cur_shape, 0, cur, dst, next_shape, &map);
                if (st != LWT_OK && st != LWT_ERR_UNSUPPORTED)
                    return st;
                bands_done = st == LWT_OK;
            }
            if (!bands_done) {
                st = run_axis(p, env, k, 0, cur_shape, 0, cur, dst, next_shape, NULL);
                if (st)
                    return st;
                cur = dst;
                memcpy(cur_shape, next_shape, sizeof cur_shape);
                which ^= 1;
                if (k == 0 && p->ndim == 3 && !p->direct && env->ops->fused2d) {
                    /* axes 1 and 2 plane by plane, the approximation to the free buffer */
                    st = planes_forward(p, env, j, cur, coeffs, bufs[which], j == p->levels);
                    if (st != LWT_OK && st != LWT_ERR_UNSUPPORTED)
                        return st;
                    bands_done = st == LWT_OK;
                }
            }
            if (bands_done) { /* the approximation is in bufs[which] */
                if (j == p->levels)
                    return LWT_OK;
                cur = bufs[which];
                memcpy(cur_shape, nc, sizeof cur_shape);
                which ^= 1;
                goto next_level;
            }
        }
        /* scatter the detail bands of this level, keep the approximation */
        for (unsigned mask = 1; mask < (1u << p->ndim); mask++) {
            size_t src_off[LWT_MAX_NDIM] = {0, 0, 0}, dst_off[LWT_MAX_NDIM];
            for (int k = 0; k < p->ndim; k++)
                src_off[k] = (mask >> k) & 1 ? nc[k] : 0;
            band_offset(p, level_index, mask, dst_off);
            COPY(cur, cur_shape, src_off, coeffs, p->packed, dst_off, nc);
        }
        char *approx = bufs[which];
        COPY(cur, cur_shape, zero, approx, nc, zero, nc);
        cur = approx;
        memcpy(cur_shape, nc, sizeof cur_shape);
        which ^= 1;
    next_level:;
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
    /* the approximation cA_J: read in place by fused levels, else copied to buffer 0 */
    int which = 0;
    char *cur = bufs[which];
    const char *approx = coeffs;
    size_t approx_stride = p->packed[1];
    for (int j = p->levels; j >= 1; j--) {
        const size_t *nc = p->sizes[j];
        if (p->ndim == 2 && !p->direct && env->ops->fused2d) {
            const void *src[4] = {approx, NULL, NULL, NULL};
            size_t src_stride[4] = {approx_stride, p->packed[1], p->packed[1], p->packed[1]};
            for (unsigned mask = 1; mask < 4; mask++) {
                size_t off[LWT_MAX_NDIM];
                band_offset(p, p->levels - j + 1, mask, off);
                src[mask] = coeffs + (off[0] * p->packed[1] + off[1]) * es;
            }
            char *dst = j == 1 ? out : bufs[which ^ 1];
            void *outs[4] = {dst, NULL, NULL, NULL};
            const size_t out_stride[4] = {p->sizes[j - 1][1], 0, 0, 0};
            lwt_status fs = env->ops->fused2d(env->bctx, j, 1, src, src_stride, outs, out_stride, 1, no_bstride,
                                              no_bstride);
            if (fs == LWT_OK) {
                approx = cur = dst;
                approx_stride = p->sizes[j - 1][1];
                which ^= 1;
                continue;
            }
            if (fs != LWT_ERR_UNSUPPORTED)
                return fs;
        }
        if (p->ndim == 3 && !p->direct && env->ops->fused2d) {
            /* axes 2 and 1 plane by plane, then the pass along axis 0 */
            char *zbuf = bufs[which ^ 1];
            lwt_status st = planes_inverse(p, env, j, coeffs, approx, approx == coeffs, zbuf);
            if (st == LWT_OK) {
                const size_t zshape[LWT_MAX_NDIM] = {2 * nc[0], p->sizes[j - 1][1], p->sizes[j - 1][2]};
                size_t next_shape[LWT_MAX_NDIM];
                char *dst = j == 1 ? out : bufs[which];
                st = run_axis(p, env, 0, 1, zshape, (long)p->sizes[j - 1][0], zbuf, dst, next_shape, NULL);
                if (st)
                    return st;
                approx = cur = dst;
                continue;
            }
            if (st != LWT_ERR_UNSUPPORTED)
                return st;
        }
        if (approx == coeffs) {
            COPY(coeffs, p->packed, zero, cur, p->sizes[p->levels], zero, p->sizes[p->levels]);
            approx = cur;
        }
        size_t shape[LWT_MAX_NDIM] = {1, 1, 1};
        for (int k = 0; k < p->ndim; k++)
            shape[k] = 2 * nc[k];
        int level_index = p->levels - j + 1;
        const char *src;
        int k0 = p->ndim - 1;
        /* first pass (last axis) straight from the bands' places when the backend can */
        lwt_dest_map map;
        build_band_map(p, j, (char *)coeffs, cur, 0, &map);
        {
            size_t next_shape[LWT_MAX_NDIM];
            char *dst = j == 1 && k0 == 0 ? out : bufs[which ^ 1];
            lwt_status st = run_axis(p, env, k0, 1, shape, (long)p->sizes[j - 1][k0], cur, dst, next_shape, &map);
            if (st != LWT_OK && st != LWT_ERR_UNSUPPORTED)
                return st;
            if (st == LWT_OK) {
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
                    band_offset(p, level_index, mask, src_off);
                    COPY(coeffs, p->packed, src_off, blk, shape, dst_off, nc);
                }
                src = blk;
                which ^= 1;
            }
        }
        for (int k = k0; k >= 0; k--) {
            size_t next_shape[LWT_MAX_NDIM];
            int last = j == 1 && k == 0;
            char *dst = last ? out : bufs[which ^ 1];
            lwt_status st = run_axis(p, env, k, 1, shape, (long)p->sizes[j - 1][k], src, dst, next_shape, NULL);
            if (st)
                return st;
            src = dst;
            memcpy(shape, next_shape, sizeof shape);
            which ^= 1;
        }
        /* the next level's approximation, also for the fused paths: a level they do not
           take may come before one they take */
        approx = cur = (char *)src;
        approx_stride = p->sizes[j - 1][p->ndim - 1];
    }
    return LWT_OK;
}

/* The bands of a batch of 1-D signals at level j: row b's approximation at
 * approx + b * approx_stride, its detail in its own packed array. */
static void rows_map(const lwt_plan *p, int j, char *coeffs, char *approx, size_t approx_stride, lwt_dest_map *m)
{
    size_t off[LWT_MAX_NDIM];
    band_offset(p, p->levels - j + 1, 1, off);
    memset(m, 0, sizeof *m);
    m->nouter = 1;
    m->half[0] = (long)p->desc.batch; /* every row in region 0: no split along the batch */
    m->extent1 = 1;
    m->dst[0][0] = approx;
    m->s0[0][0] = approx_stride;
    m->dst[0][1] = coeffs + off[0] * lwt_plan_elem_size(p);
    m->s0[0][1] = p->coeff_count;
}

/*
 * A batch of 1-D signals as one B x n array transformed along its rows: one
 * pass per level for all of them, each writing its bands straight into its
 * own packed array (item b at b * coeff_count), instead of B transforms of
 * one row each (a kernel launch per row and level on the GPU). The same
 * passes per row, hence the same results. LWT_ERR_UNSUPPORTED when a pass
 * cannot write through a map: the caller then runs the items one by one.
 */
static lwt_status batch_rows(const lwt_plan *p, const exec_env *env, const char *in, char *out, char *bufs[2],
                             int inverse)
{
    const size_t B = p->desc.batch;
    int which = 0;
    lwt_dest_map map;
    if (!inverse) {
        for (size_t b = 0; b < B && !p->tight; b++) {
            const size_t es = lwt_plan_elem_size(p);
            lwt_status zs = env->ops->zero_blocks(env->bctx, es, out + b * p->coeff_count * es, p->gap_shape, p->gaps,
                                                  p->ngaps);
            if (zs)
                return zs;
        }
        const char *cur = in;
        for (int j = 1; j <= p->levels; j++) {
            const int last = j == p->levels;
            char *approx = last ? out : bufs[which];
            rows_map(p, j, out, approx, last ? p->coeff_count : p->sizes[j][0], &map);
            size_t shape[LWT_MAX_NDIM] = {B, p->sizes[j - 1][0], 1}, next[LWT_MAX_NDIM];
            lwt_status st = run_axis(p, env, 1, 0, shape, 0, cur, approx, next, &map);
            if (st)
                return st;
            cur = approx;
            which ^= 1;
        }
        return LWT_OK;
    }
    const char *approx = in; /* cA_J read in place */
    size_t approx_stride = p->coeff_count;
    for (int j = p->levels; j >= 1; j--) {
        char *dst = j == 1 ? out : bufs[which];
        rows_map(p, j, (char *)in, (char *)approx, approx_stride, &map);
        size_t shape[LWT_MAX_NDIM] = {B, 2 * p->sizes[j][0], 1}, next[LWT_MAX_NDIM];
        lwt_status st = run_axis(p, env, 1, 1, shape, (long)p->sizes[j - 1][0], approx, dst, next, &map);
        if (st)
            return st;
        approx = dst;
        approx_stride = p->sizes[j - 1][0];
        which ^= 1;
    }
    return LWT_OK;
}

lwt_status lwt_driver_run(const lwt_plan *p, const lwt_backend_ops *ops, void *bctx, const void *in, void *out,
                          void *workspace, int inverse)
{
    const size_t es = lwt_plan_elem_size(p);
    exec_env env = {ops, bctx};
    char *bufs[2] = {(char *)workspace, (char *)workspace + p->buf_elems * es};
    if (p->ndim == 1 && p->desc.batch > 1 && p->levels > 0) {
        lwt_status bs = batch_rows(p, &env, (const char *)in, (char *)out, bufs, inverse);
        if (bs != LWT_ERR_UNSUPPORTED)
            return bs;
    }
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

static lwt_status execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    if (!p || !in || !out)
        return lwt_fail(p ? p->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "execute: NULL argument");
#ifdef LWT_HAVE_CUDA
    if (p->backend == LWT_BACKEND_CUDA)
        return lwt_cuda_execute_host(p, in, out, inverse);
#endif
    const size_t es = lwt_plan_elem_size(p);
    void *ws = workspace;
    if (!ws) {
        ws = malloc(2 * p->buf_elems * es);
        if (!ws)
            return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot allocate a %zu-byte workspace",
                            2 * p->buf_elems * es);
    }
    lwt_status st = lwt_driver_run(p, &lwt_cpu_ops, (void *)p, in, out, ws, inverse);
    if (!workspace)
        free(ws);
    return st;
}

lwt_status lwt_forward(const lwt_plan *p, const void *input, void *coeffs, void *workspace)
{
    return execute(p, input, coeffs, workspace, 0);
}

lwt_status lwt_inverse(const lwt_plan *p, const void *coeffs, void *output, void *workspace)
{
    return execute(p, coeffs, output, workspace, 1);
}
