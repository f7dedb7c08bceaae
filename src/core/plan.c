/*
 * Plans: the description checked, the sizes of every level, the packed
 * layout and its gaps, the backend's per-plan state and the steps it will
 * run (core/steps.h), all resolved here once. The driver that executes a
 * plan is core/driver.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/extend.h"
#include "core/line.h"
#include "core/plan.h"
#include "core/sized.h"
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
    d.size = sizeof d;
    d.ndim = 1;
    d.levels = LWT_LEVELS_MAX;
    d.mode = LWT_MODE_SYMMETRIC;
    d.dtype = LWT_F64;
    d.backend = LWT_BACKEND_AUTO;
    d.algorithm = LWT_ALGO_AUTO;
    d.batch = 1;
    return d;
}

lwt_plan_tuning lwt_plan_tuning_default(void)
{
    lwt_plan_tuning t;
    memset(&t, 0, sizeof t);
    return t;
}

static size_t prod(const size_t *s, int nd)
{
    size_t p = 1;
    for (int k = 0; k < nd; k++)
        p *= s[k];
    return p;
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
        lwt_unit_axis_first(p->gap_shape, 1);
        for (size_t i = 0; i < p->ngaps; i++) {
            lwt_unit_axis_first(p->gaps[i].off, 0);
            lwt_unit_axis_first(p->gaps[i].ext, 1);
        }
    }
    /* a batch of 2-D arrays (1 x n0 x n1 each) zeroes its gaps in one call: the same boxes
       across the batch's arrays (driver.c, steps.batch_levels) */
    if (p->ndim == 2 && p->desc.batch > 1 && p->gap_shape[0] == 1) {
        if (!(p->bgaps = calloc(p->ngaps ? p->ngaps : 1, sizeof *p->bgaps)))
            return 1;
        for (size_t i = 0; i < p->ngaps; i++) {
            p->bgaps[i] = p->gaps[i];
            p->bgaps[i].ext[0] = p->desc.batch;
        }
        memcpy(p->bgap_shape, p->gap_shape, sizeof p->bgap_shape);
        p->bgap_shape[0] = p->desc.batch;
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

/* the caller's desc as this version's (core/sized.h); the first version ended at `batch` */
static lwt_status read_desc(lwt_context *ctx, const lwt_plan_desc *in, lwt_plan_desc *d)
{
    *d = lwt_plan_desc_default();
    return lwt_sized_read(ctx, "lwt_plan_desc", in, LWT_SIZED_FIRST(lwt_plan_desc, batch), d, sizeof *d);
}

static lwt_status check_tuning(lwt_context *ctx, const lwt_plan_tuning *t)
{
    if (t->lbb_threads && (t->lbb_threads < 32 || t->lbb_threads > 1024 || t->lbb_threads % 32))
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lbb_threads must be 0 or a multiple of 32 in 32..1024 (got %d)",
                        t->lbb_threads);
    if (t->lbb_cols && (t->lbb_cols < 16 || t->lbb_cols > 1024))
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lbb_cols must be 0 or 16..1024 (got %d)", t->lbb_cols);
    if (t->lifting != LWT_LIFT_AUTO && t->lifting != LWT_LIFT_CLASSIC && t->lifting != LWT_LIFT_IMPROVED)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "unknown lifting variant %d", (int)t->lifting);
    if (t->fuse_levels != 0 && t->fuse_levels != 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "fuse_levels must be 0 or 1 (got %d)", t->fuse_levels);
    if ((int)t->cpu_simd < LWT_SIMD_AUTO || (int)t->cpu_simd > LWT_SIMD_AVX512)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "unknown CPU instruction set %d", (int)t->cpu_simd);
    if (t->cpu_passes != 0 && t->cpu_passes != 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "cpu_passes must be 0 or 1 (got %d)", t->cpu_passes);
    if (t->zero_copy != 0 && t->zero_copy != 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "zero_copy must be 0 or 1 (got %d)", t->zero_copy);
    if (t->batch_items != 0 && t->batch_items != 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "batch_items must be 0 or 1 (got %d)", t->batch_items);
    if (t->volume_pass != 0 && t->volume_pass != 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "volume_pass must be 0 or 1 (got %d)", t->volume_pass);
    return LWT_OK;
}

lwt_status lwt_plan_create(lwt_context *ctx, const lwt_plan_desc *desc, lwt_plan **out)
{
    return lwt_plan_create_tuned(ctx, desc, NULL, out);
}

lwt_status lwt_plan_create_tuned(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_plan_tuning *tuning,
                                 lwt_plan **out)
{
    if (!desc || !out || !desc->wavelet)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_plan_create: NULL argument");
    *out = NULL;
    lwt_plan_desc dd;
    lwt_status ds = read_desc(ctx, desc, &dd);
    if (ds)
        return ds;
    const lwt_plan_desc *d = &dd;
    const lwt_plan_tuning tune = tuning ? *tuning : lwt_plan_tuning_default();
    if ((ds = check_tuning(ctx, &tune)))
        return ds;
    lwt_cpu_simd simd;
    if (lwt_cpu_simd_resolve(tune.cpu_simd, &simd))
        return lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "this CPU or build cannot run the %s passes",
                        lwt_cpu_simd_name(tune.cpu_simd));
    if (d->ndim < 1 || d->ndim > LWT_MAX_NDIM)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "ndim must be 1, 2 or 3 (got %d)", d->ndim);
    for (int k = 0; k < d->ndim; k++)
        if (d->shape[k] < 1 || d->shape[k] > ((size_t)1 << 40))
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "axis %d has length %zu (must be 1 .. 2^40)", k,
                            d->shape[k]);
    if ((int)d->mode < 0 || (int)d->mode >= LWT_MODE_COUNT)
        return lwt_fail(ctx, LWT_ERR_UNKNOWN_MODE, "unknown mode %d", (int)d->mode);
    if (d->dtype != LWT_F32 && d->dtype != LWT_F64 && d->dtype != LWT_F16 && d->dtype != LWT_BF16)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "dtype must be LWT_F32, LWT_F64, LWT_F16 or LWT_BF16 (got %d)",
                        (int)d->dtype);
    if (d->dtype == LWT_F16 || d->dtype == LWT_BF16) /* the float32 plan between two conversions */
        return lwt_half_plan_create(ctx, d, &tune, out);
    if (d->batch < 1)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "batch must be >= 1");
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
            return lwt_fail(ctx, LWT_ERR_BACKEND_UNAVAILABLE, "%s",
                            lwt_cuda_backend() ? "no CUDA device found"
                                               : "this build has no CUDA backend (nvcc was not found at build time)");
        if (d->backend == LWT_BACKEND_CUDA && (d->device < 0 || d->device >= ndev))
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "CUDA device %d does not exist (%d present)", d->device,
                            ndev);
        if (ndev > 0)
            backend = LWT_BACKEND_CUDA;
    }

    const lwt_wavelet *w = d->wavelet;
    lwt_path path = d->dtype == LWT_F32 ? w->path32 : w->path64;
    lwt_path_reason why = LWT_PATH_WHY_LIFTING;
    int direct, forced = 1;
    switch ((int)d->algorithm) { /* int: LWT_ALGO_LIFTING_RC_STEPS is outside the stable enum */
    case LWT_ALGO_AUTO: /* per wavelet, mode and dtype: core/path_table.h */
        direct = lwt_wavelet_auto_path(w, d->mode, d->dtype, &why) == LWT_PATH_CONVOLUTION;
        forced = 0;
        break;
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
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_plan_create: out of memory");
    lwt_ws_cache_init(&p->ws);
    p->sizes = calloc((size_t)levels + 1, sizeof *p->sizes);
    if (!p->sizes) {
        lwt_ws_cache_free(&p->ws);
        free(p);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_plan_create: out of memory");
    }
    p->ctx = ctx;
    p->desc = *d;
    p->tune = tune;
    p->wavelet = *w;
    if (d->dtype == LWT_F32 && p->wavelet.has_scheme)
        lwt_scheme_trim(&p->wavelet.scheme, LWT_F32_NEGLIGIBLE_TAP);
    p->desc.wavelet = &p->wavelet;
    p->fb = lwt_wavelet_bank(&p->wavelet);
    p->ndim = d->ndim;
    p->levels = levels;
    p->max_level = max_level;
    p->direct = direct;
    p->path_forced = forced;
    p->path_why = why;
    p->simd = simd;
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
    p->buf_elems = p->buf_one = buf;
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
    /* the whole batch's bytes, on each side, must be countable */
    const size_t most = p->input_count > p->coeff_count ? p->input_count : p->coeff_count;
    if (most > (size_t)-1 / 8 / d->batch) {
        lwt_plan_destroy(p);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "a batch of %zu arrays of %zu values is too large", d->batch,
                        most);
    }
    if (!p->tight && plan_gaps(p)) {
        lwt_plan_destroy(p);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "the packed array's gaps");
    }
    p->ops = backend == LWT_BACKEND_CUDA ? lwt_cuda_backend() : &lwt_cpu_ops;
    lwt_status bs = p->ops->plan_init ? p->ops->plan_init(p) : LWT_OK;
    if (!bs)
        bs = lwt_plan_resolve(p);
    if (bs) {
        lwt_plan_destroy(p);
        return bs;
    }
    *out = p;
    return LWT_OK;
}

void lwt_plan_destroy(lwt_plan *p)
{
    if (!p)
        return;
    lwt_plan_destroy(p->f32);
    if (p->ops && p->ops->plan_free)
        p->ops->plan_free(p);
    lwt_steps_free(&p->steps);
    lwt_ws_cache_free(&p->ws);
    free(p->sizes);
    free(p->gaps);
    free(p->bgaps);
    free(p);
}

lwt_status lwt_plan_resolve(lwt_plan *p)
{
    lwt_steps_free(&p->steps);
    lwt_status s = lwt_steps_plan(p, p->ops, NULL, &p->steps);
    if (s)
        return lwt_fail(p->ctx, s, "cannot resolve the plan's steps");
    /* levels over the whole batch: each buffer holds every array's approximation of a level,
       each level's input or output in turn (the largest: with long filters and small arrays
       the approximations grow from level to level) */
    p->buf_elems = p->buf_one;
    if (p->steps.batch_levels) {
        size_t one = 0;
        const size_t b = p->desc.batch;
        for (int j = 1; j <= p->levels; j++)
            if (p->sizes[j][0] * p->sizes[j][1] > one)
                one = p->sizes[j][0] * p->sizes[j][1];
        if (one > (size_t)-1 / 16 / b) {
            lwt_steps_free(&p->steps);
            return lwt_fail(p->ctx, LWT_ERR_INVALID_ARGUMENT, "a batch of %zu arrays is too large", b);
        }
        if (one * b > p->buf_elems)
            p->buf_elems = one * b;
    }
    return LWT_OK;
}

lwt_status lwt_plan_get_tuning(const lwt_plan *p, lwt_plan_tuning *out)
{
    if (!p || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    *out = lwt_plan_compute(p)->tune;
    return LWT_OK;
}

lwt_status lwt_plan_get_info(const lwt_plan *p16, lwt_plan_info *out)
{
    if (!p16 || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    const lwt_plan *p = lwt_plan_compute(p16);
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
    out->workspace_bytes = p16->f32 ? lwt_half_workspace_size(p16) : p->ops->workspace_size(p);
    return LWT_OK;
}

lwt_status lwt_plan_band(const lwt_plan *p16, int level, unsigned mask, lwt_band *out)
{
    if (!p16)
        return LWT_ERR_INVALID_ARGUMENT;
    const lwt_plan *p = lwt_plan_compute(p16);
    if ( !out || level < 0 || level > p->levels || mask >= (1u << p->ndim) || (level == 0) != (mask == 0))
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
