/* split.c - the band split as a planned object: chunk layout, plans, CPU runs (split.h). */
#include "surface/split_impl.h"
#include "surface/threads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t lwt_split_halo(int levels, int filter_length)
{
    const size_t L = filter_length > 0 ? (size_t)filter_length : 2;
    size_t e = 0;
    for (int j = 1; j <= levels; j++)
        e = (e + L + 1) / 2; /* ceil((e + L) / 2) */
    size_t c = e;
    for (int j = levels; j >= 1; j--)
        c = 2 * c + L;
    const size_t step = (size_t)1 << levels;
    return (c + step - 1) / step * step;
}

int lwt_split_layout(size_t ny, int levels, int filter_length, lwt_mode mode, size_t chunk_rows,
                     lwt_split_chunk out[LWT_SPLIT_MAX_CHUNKS])
{
    const lwt_split_chunk whole = {0, ny, 0, ny};
    out[0] = whole;
    if (!chunk_rows || chunk_rows == LWT_SPLIT_ONE_CHUNK || levels < 1 || levels > 30 ||
        mode == LWT_MODE_PERIODIC || mode == LWT_MODE_PERIODIZATION)
        return 1;
    const size_t step = (size_t)1 << levels, halo = lwt_split_halo(levels, filter_length);
    const size_t fewest = (ny + LWT_SPLIT_MAX_CHUNKS - 1) / LWT_SPLIT_MAX_CHUNKS;
    size_t rows = chunk_rows < fewest ? fewest : chunk_rows;
    rows = (rows + step - 1) / step * step;
    if (rows >= ny)
        return 1;
    int k = 0;
    for (size_t own0 = 0; own0 < ny; own0 += rows, k++) {
        lwt_split_chunk c;
        c.own0 = own0;
        c.own1 = ny - own0 < rows ? ny : own0 + rows;
        c.win0 = own0 > halo ? own0 - halo : 0;
        c.win1 = ny - c.own1 < halo ? ny : c.own1 + halo;
        if (c.win0 == 0 && c.win1 == ny) { /* a window as big as the surface: no gain in cutting */
            out[0] = whole;
            return 1;
        }
        out[k] = c;
    }
    return k;
}

static int level_in_band(const lwt_band_split *s, int band, int j)
{
    char c = lwt_band_of_level(s, j);
    return (band == LWT_BAND_NOISE && c == 'n') || (band == LWT_BAND_ROUGHNESS && c == 'r') ||
           (band == LWT_BAND_WAVINESS && c == 'w');
}

uint64_t lwt_split_keep(const lwt_band_split *split, int band)
{
    uint64_t keep = band == LWT_BAND_FORM ? 1 : 0; /* the approximation, packed level 0 */
    for (int j = 1; j <= split->levels; j++)
        if (level_in_band(split, band, j))
            keep |= (uint64_t)1 << (split->levels - j + 1);
    return keep;
}

void lwt__split_progress(const lwt_splitter *s, int k, int b)
{
    static const char *const stage[LWT_BAND_COUNT] = {"inverse: form", "inverse: waviness", "inverse: roughness",
                                                       "inverse: noise"};
    if (!s->progress)
        return;
    const int steps = 2 + s->nbands;
    if (s->nchunks == 1)
        s->progress(s->progress_user, b < 0 ? 1 : 2 + b, steps, b < 0 ? "forward transform" : stage[b]);
    else if (b < 0)
        s->progress(s->progress_user, 1 + k * (s->nbands + 1) / s->nchunks, steps, "transforms by row chunks");
}

/* ---- host copies between the I/O's kind and the transform's dtype ---- */

void lwt__split_load(const lwt_splitter *s, const lwt_split_io *io, size_t i0, size_t count, void *dst)
{
    const int nt = lwt__surf_threads(s->threads);
    if (!io->host_f64 || s->dtype == LWT_F64) {
        memcpy(dst, (const char *)io->in + i0 * s->esz, count * s->esz);
        return;
    }
    const double *src = (const double *)io->in + i0;
    float *d = (float *)dst;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long i = 0; i < (long long)count; i++)
        d[i] = (float)src[i];
}

void lwt__split_store(const lwt_splitter *s, const lwt_split_io *io, int b, size_t i0, size_t count, const void *src)
{
    const int nt = lwt__surf_threads(s->threads);
    const double *z = io->z ? io->z + i0 : NULL;
    if (!io->host_f64 || s->dtype == LWT_F64) {
        char *o = (char *)io->band[b] + i0 * s->esz;
        if (o != (const char *)src)
            memcpy(o, src, count * s->esz);
        if (z && s->dtype == LWT_F64) {
            double *d = (double *)o;
#pragma omp parallel for num_threads(nt) schedule(static)
            for (long long i = 0; i < (long long)count; i++)
                if (!isfinite(z[i]))
                    d[i] = NAN;
        } else if (z) {
            float *d = (float *)o;
#pragma omp parallel for num_threads(nt) schedule(static)
            for (long long i = 0; i < (long long)count; i++)
                if (!isfinite(z[i]))
                    d[i] = NAN;
        }
        return;
    }
    const float *f = (const float *)src;
    double *o = (double *)io->band[b] + i0;
    if (z) {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long long i = 0; i < (long long)count; i++)
            o[i] = isfinite(z[i]) ? (double)f[i] : NAN;
    } else {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long long i = 0; i < (long long)count; i++)
            o[i] = (double)f[i];
    }
}

void lwt__split_zero(const lwt_splitter *s, const lwt_split_io *io, int b, size_t i0, size_t count)
{
    const int nt = lwt__surf_threads(s->threads);
    const double *z = io->z ? io->z + i0 : NULL;
    if (io->host_f64 || s->dtype == LWT_F64) {
        double *o = (double *)io->band[b] + i0;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long long i = 0; i < (long long)count; i++)
            o[i] = z && !isfinite(z[i]) ? NAN : 0.0;
    } else {
        float *o = (float *)io->band[b] + i0;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long long i = 0; i < (long long)count; i++)
            o[i] = z && !isfinite(z[i]) ? NAN : 0.0f;
    }
}

/* ---- create / destroy ---- */

void lwt_splitter_destroy(lwt_splitter *s)
{
    if (!s)
        return;
#ifdef LWT_HAVE_CUDA
    lwt__split_gpu_destroy(s->gpu);
#endif
    for (int p = 0; p < s->nplans; p++)
        lwt_plan_destroy(s->plan[p]);
    lwt_wavelet_destroy(s->w);
    free(s->x);
    free(s->c);
    free(s->t);
    free(s->y);
    free(s->ws);
    free(s);
}

/* the plan of a window of `rows` rows: one per distinct height */
static lwt_status window_plan(lwt_splitter *s, const lwt_plan_desc *base, size_t rows, int *index)
{
    for (int p = 0; p < s->nplans; p++)
        if (s->plan_rows[p] == rows) {
            *index = p;
            return LWT_OK;
        }
    if (s->nplans == LWT_SPLIT_MAX_PLANS)
        return LWT_ERR_INTERNAL;
    lwt_plan_desc d = *base;
    d.shape[0] = rows;
    lwt_status st = lwt_plan_create(s->ctx, &d, &s->plan[s->nplans]);
    if (st != LWT_OK)
        return st;
    lwt_plan_info pi;
    lwt_plan_get_info(s->plan[s->nplans], &pi);
    if (pi.coeff_count > s->max_coeffs)
        s->max_coeffs = pi.coeff_count;
    if (pi.workspace_bytes > s->max_ws)
        s->max_ws = pi.workspace_bytes;
    s->plan_rows[s->nplans] = rows;
    *index = s->nplans++;
    return LWT_OK;
}

lwt_status lwt_splitter_create(lwt_context *ctx, const lwt_filter_spec *spec, size_t nx, size_t ny,
                               lwt_splitter **out, char *err, size_t errlen)
{
    if (!out)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "no splitter to create");
    *out = NULL;
    if (!ctx || !spec || nx == 0 || ny == 0)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the splitter");
    const lwt_band_split *sp = &spec->split;
    if (sp->levels < 1 || sp->levels > LWT_BANDS_MAX_LEVELS || sp->rough_lo != sp->noise_hi + 1 ||
        sp->rough_hi < sp->rough_lo || sp->wavy_lo != sp->rough_hi + 1 || sp->wavy_hi != sp->levels)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "band split not resolved (use lwt_bands_resolve)");
    if (spec->dtype != LWT_F32 && spec->dtype != LWT_F64)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "dtype must be float32 or float64");
    lwt_splitter *s = (lwt_splitter *)calloc(1, sizeof *s);
    if (!s)
        return lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory");
    s->ctx = ctx;
    s->nx = nx;
    s->ny = ny;
    s->dtype = spec->dtype;
    s->esz = spec->dtype == LWT_F32 ? sizeof(float) : sizeof(double);
    s->threads = spec->threads;
    s->progress = spec->progress;
    s->progress_user = spec->progress_user;
    s->nbands = sp->noise_hi > 0 ? 4 : 3;
    for (int b = 0; b < s->nbands; b++)
        s->keep[b] = lwt_split_keep(sp, b);
    const char *wname = spec->wavelet ? spec->wavelet : "cdf97";
    lwt_status st = lwt_wavelet_create(ctx, wname, &s->w);
    if (st != LWT_OK) {
        lwt_filter_fail(err, errlen, st, "wavelet '%s': %s", wname, lwt_status_string(st));
        goto fail;
    }
    lwt_wavelet_info wi;
    lwt_wavelet_get_info(s->w, &wi);
    snprintf(s->info.wavelet, sizeof s->info.wavelet, "%s", wi.name);

    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = s->w;
    d.ndim = 2;
    d.shape[0] = ny;
    d.shape[1] = nx;
    d.levels = sp->levels;
    d.mode = spec->mode;
    d.dtype = spec->dtype;
    d.backend = spec->backend;
    d.algorithm = spec->algorithm;
    /* the whole surface's plan first: it resolves the backend and gives max_level */
    int whole = 0;
    if ((st = window_plan(s, &d, ny, &whole)) != LWT_OK) {
        lwt_filter_fail(err, errlen, st, "cannot plan the transform: %s", lwt_status_string(st));
        goto fail;
    }
    lwt_plan_info pi;
    lwt_plan_get_info(s->plan[whole], &pi);
    s->info.backend = pi.backend;
    s->info.path = pi.path;
    s->info.max_level = pi.max_level;
    s->info.nbands = s->nbands;
    d.backend = pi.backend; /* every window on the same backend */
    const size_t halo = lwt_split_halo(sp->levels, wi.filter_length);
    size_t rows = spec->chunk_rows;
    if (rows == 0 && pi.backend == LWT_BACKEND_CUDA) /* automatic: ~8 chunks, each at least a halo tall */
        rows = ny / 8 > halo ? ny / 8 : halo;
    s->nchunks = lwt_split_layout(ny, sp->levels, wi.filter_length, spec->mode, rows, s->chunk);
    s->halo = s->nchunks > 1 ? halo : 0;
    s->info.chunks = s->nchunks;
    s->info.halo = s->halo;
    for (int k = 0; k < s->nchunks; k++) {
        const size_t win_rows = s->chunk[k].win1 - s->chunk[k].win0;
        if (win_rows > s->max_win_rows)
            s->max_win_rows = win_rows;
        if ((st = window_plan(s, &d, win_rows, &s->chunk_plan[k])) != LWT_OK) {
            lwt_filter_fail(err, errlen, st, "cannot plan a chunk of %zu rows: %s", win_rows, lwt_status_string(st));
            goto fail;
        }
    }
    if (pi.backend == LWT_BACKEND_CUDA) {
#ifdef LWT_HAVE_CUDA
        s->device = d.device;
        if ((st = lwt__split_gpu_create(s, err, errlen)) != LWT_OK)
            goto fail;
        *out = s;
        return LWT_OK;
#else
        st = lwt_filter_fail(err, errlen, LWT_ERR_UNSUPPORTED, "a CUDA plan in a build without CUDA");
        goto fail;
#endif
    }
    const size_t win = s->max_win_rows * nx;
    s->x = malloc(win * s->esz);
    s->y = malloc(win * s->esz);
    s->c = malloc(s->max_coeffs * s->esz);
    s->t = malloc(s->max_coeffs * s->esz);
    s->ws = s->max_ws ? malloc(s->max_ws) : NULL;
    if (!s->x || !s->y || !s->c || !s->t || (s->max_ws && !s->ws)) {
        st = lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory for the transform (%zu coefficients)",
                             s->max_coeffs);
        goto fail;
    }
    *out = s;
    return LWT_OK;
fail:
    lwt_splitter_destroy(s);
    return st;
}

lwt_status lwt_splitter_get_info(const lwt_splitter *s, lwt_splitter_info *info)
{
    if (!s || !info)
        return LWT_ERR_INVALID_ARGUMENT;
    *info = s->info;
    return LWT_OK;
}

/* ---- runs ---- */

int lwt__split_blocks(const lwt_plan *p, uint64_t keep, lwt_band out[LWT_SPLIT_MAX_BLOCKS])
{
    lwt_plan_info pi;
    lwt_plan_get_info(p, &pi);
    int n = 0;
    for (int lev = 0; lev <= pi.levels && lev <= LWT_BANDS_MAX_LEVELS; lev++) {
        if (!((keep >> lev) & 1))
            continue;
        for (unsigned m = lev ? 1 : 0; m <= (lev ? 3u : 0u); m++) {
            if (lwt_plan_band(p, lev, m, &out[n]) != LWT_OK)
                return -1;
            if (out[n].shape[0] && out[n].shape[1])
                n++;
        }
    }
    return n;
}

/* t = the blocks of c that belong to packed levels `keep`, zero elsewhere */
static lwt_status band_coeffs(const lwt_plan *p, size_t esz, uint64_t keep, const void *c, void *t)
{
    lwt_plan_info pi;
    lwt_plan_get_info(p, &pi);
    lwt_band bd[LWT_SPLIT_MAX_BLOCKS];
    const int nb = lwt__split_blocks(p, keep, bd);
    if (nb < 0)
        return LWT_ERR_INTERNAL;
    memset(t, 0, pi.coeff_count * esz);
    for (int i = 0; i < nb; i++)
        for (size_t r = 0; r < bd[i].shape[0]; r++) {
            const size_t at = ((bd[i].offset[0] + r) * pi.packed_shape[1] + bd[i].offset[1]) * esz;
            memcpy((char *)t + at, (const char *)c + at, bd[i].shape[1] * esz);
        }
    return LWT_OK;
}

static lwt_status cpu_run(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *tm, char *err, size_t errlen)
{
    static const char *const names[LWT_BAND_COUNT] = {"form", "waviness", "roughness", "noise"};
    const size_t nx = s->nx;
    /* the transform reads and writes host memory in place where the I/O is in its dtype */
    const int direct = !io->host_f64 || s->dtype == LWT_F64;
    lwt_status st;
    for (int k = 0; k < s->nchunks; k++) {
        const lwt_split_chunk *c = &s->chunk[k];
        const lwt_plan *p = s->plan[s->chunk_plan[k]];
        const size_t skip = (c->own0 - c->win0) * nx, own = (c->own1 - c->own0) * nx;
        lwt__split_progress(s, k, -1);
        double t0 = lwt_filter_now_ms();
        const void *x = (const char *)io->in + c->win0 * nx * s->esz;
        if (!direct) {
            lwt__split_load(s, io, c->win0 * nx, (c->win1 - c->win0) * nx, s->x);
            x = s->x;
        }
        if ((st = lwt_forward(p, x, s->c, s->ws)) != LWT_OK)
            return lwt_filter_fail(err, errlen, st, "forward transform failed: %s", lwt_status_string(st));
        if (s->nchunks == 1)
            tm->forward = lwt_filter_now_ms() - t0;
        for (int b = 0; b < s->nbands; b++) {
            lwt__split_progress(s, k, b);
            t0 = lwt_filter_now_ms();
            if (!s->keep[b]) {
                lwt__split_zero(s, io, b, c->own0 * nx, own); /* an empty band: exactly zero */
            } else {
                /* one chunk: the band is written in place (then stored over itself: NaN only) */
                void *y = s->nchunks == 1 && direct ? io->band[b] : s->y;
                if ((st = band_coeffs(p, s->esz, s->keep[b], s->c, s->t)) != LWT_OK)
                    return lwt_filter_fail(err, errlen, st, "no packed blocks for the %s band", names[b]);
                if ((st = lwt_inverse(p, s->t, y, s->ws)) != LWT_OK)
                    return lwt_filter_fail(err, errlen, st, "inverse transform (%s) failed: %s", names[b],
                                           lwt_status_string(st));
                lwt__split_store(s, io, b, c->own0 * nx, own, (const char *)y + skip * s->esz);
            }
            if (s->nchunks == 1)
                tm->inverse[b] = lwt_filter_now_ms() - t0;
        }
    }
    return LWT_OK;
}

lwt_status lwt__splitter_run_io(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *times, char *err,
                                size_t errlen)
{
    lwt_split_times tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !io || !io->in)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the split");
    for (int b = 0; b < s->nbands; b++)
        if (!io->band[b])
            return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "no output for the %s band",
                                   lwt_filter_band_name(b));
    const double t0 = lwt_filter_now_ms();
    lwt_status st;
#ifdef LWT_HAVE_CUDA
    if (s->gpu)
        st = lwt__split_gpu_run(s, io, &tm, err, errlen);
    else
#endif
        st = cpu_run(s, io, &tm, err, errlen);
    tm.total = lwt_filter_now_ms() - t0;
    if (times)
        *times = tm;
    return st;
}

lwt_status lwt_splitter_run(lwt_splitter *s, const void *in, void *const band[LWT_BAND_COUNT],
                            lwt_split_times *times, char *err, size_t errlen)
{
    if (!s || !in || !band)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the split");
    lwt_split_io io;
    memset(&io, 0, sizeof io);
    io.in = in;
    for (int b = 0; b < s->nbands; b++) {
        io.band[b] = band[b];
        if (band[b] == in)
            return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "the %s band overlaps the input",
                                   lwt_filter_band_name(b));
    }
    return lwt__splitter_run_io(s, &io, times, err, errlen);
}
