/* filter.c - form / waviness / roughness / noise by band-limited inverse transforms (filter.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */

#include "surface/filter.h"
#include "surface/fill.h"
#include "surface/filter_cuda.h"
#include "surface/threads.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const char *const BAND_NAMES[LWT_BAND_COUNT] = {"form", "waviness", "roughness", "noise"};

const char *lwt_filter_band_name(int band)
{
    return band >= 0 && band < LWT_BAND_COUNT ? BAND_NAMES[band] : NULL;
}

lwt_filter_spec lwt_filter_spec_default(void)
{
    lwt_filter_spec s;
    memset(&s, 0, sizeof s);
    s.wavelet = "cdf97";
    s.mode = LWT_MODE_SYMMETRIC;
    s.dtype = LWT_F64;
    s.backend = LWT_BACKEND_AUTO;
    s.algorithm = LWT_ALGO_AUTO;
    return s;
}

double lwt_filter_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

lwt_status lwt_filter_fail(char *err, size_t errlen, lwt_status st, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* Arrays of a big surface: 2 MiB aligned and marked for transparent huge
 * pages, so the first write into them (the float32 -> double conversion of
 * each band, the fill copy) is not paced by one page fault per 4 KiB: on the
 * H200 host that write ran at 10.8 GB/s with small pages and 39 GB/s with
 * huge ones (tests/gpu/test_gpu_filter.c). Freed with free(). */
static void *big_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < 4 * huge)
        return malloc(bytes);
    void *p = NULL;
    if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge))
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
#endif
    return p;
}

void lwt_filter_result_free(lwt_filter_result *r)
{
    if (!r)
        return;
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(r->band[b]);
        r->band[b] = NULL;
    }
}

/* dst = src (n values) in parallel; returns the number of non-finite values. The first touch of a
 * fresh copy of a large surface (page faults) and the scan for invalid points are the fill step's
 * cost when there is nothing to fill: both spread over the threads, in one pass. */
static size_t copy_count_invalid(double *dst, const double *src, size_t n, int threads)
{
    const int nt = lwt__surf_threads(threads);
    size_t bad = 0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : bad)
    for (long long i = 0; i < (long long)n; i++) {
        dst[i] = src[i];
        bad += !isfinite(src[i]);
    }
    return bad;
}

/* band a packed coefficient band (plan level index lev, mask) from src into dst */
static void copy_band(const lwt_plan *p, size_t row_len, size_t esz, int lev, unsigned mask, const void *src,
                      void *dst)
{
    lwt_band b;
    if (lwt_plan_band(p, lev, mask, &b) != LWT_OK)
        return;
    for (size_t r = 0; r < b.shape[0]; r++) {
        size_t at = ((b.offset[0] + r) * row_len + b.offset[1]) * esz;
        memcpy((char *)dst + at, (const char *)src + at, b.shape[1] * esz);
    }
}

/* does detail level j (1 = finest) belong to band? */
static int level_in_band(const lwt_band_split *s, int band, int j)
{
    char c = lwt_band_of_level(s, j);
    return (band == LWT_BAND_NOISE && c == 'n') || (band == LWT_BAND_ROUGHNESS && c == 'r') ||
           (band == LWT_BAND_WAVINESS && c == 'w');
}

typedef struct work {
    lwt_wavelet *w;
    lwt_plan *plan;
    void *x, *c, *t, *y, *ws; /* signal, coefficients, band coefficients, band signal, workspace */
    double *filled;
} work;

static void work_free(work *k)
{
    free(k->x);
    free(k->c);
    free(k->t);
    free(k->y);
    free(k->ws);
    free(k->filled);
    lwt_plan_destroy(k->plan);
    lwt_wavelet_destroy(k->w);
}

static void progress(const lwt_filter_spec *s, int step, int steps, const char *what)
{
    if (s->progress)
        s->progress(s->progress_user, step, steps, what);
}

lwt_status lwt_filter_run(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx, size_t ny,
                          double dx, double dy, lwt_filter_result *out, char *err, size_t errlen)
{
    if (!out)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "no result");
    memset(out, 0, sizeof *out);
    if (!ctx || !spec || !z || nx == 0 || ny == 0 || !(dx > 0) || !(dy > 0))
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the filter");
    const lwt_band_split *sp = &spec->split;
    if (sp->levels < 1 || sp->rough_lo != sp->noise_hi + 1 || sp->rough_hi < sp->rough_lo ||
        sp->wavy_lo != sp->rough_hi + 1 || sp->wavy_hi != sp->levels)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "band split not resolved (use lwt_bands_resolve)");
    if (spec->dtype != LWT_F32 && spec->dtype != LWT_F64)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "dtype must be float32 or float64");
    const double t_start = lwt_filter_now_ms();
    const size_t n = nx * ny;
    const int nbands = sp->noise_hi > 0 ? 4 : 3, steps = 2 + nbands;
    const int f32 = spec->dtype == LWT_F32;
    const size_t esz = f32 ? sizeof(float) : sizeof(double);
    lwt_status st;
    work k;
    memset(&k, 0, sizeof k);

    /* 1-2: level and fill a copy */
    progress(spec, 0, steps, "filling invalid points");
    k.filled = big_alloc(n * sizeof *k.filled);
    if (!k.filled) {
        st = lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu x %zu points", nx, ny);
        goto done;
    }
    const size_t n_bad = copy_count_invalid(k.filled, z, n, spec->threads);
    if (spec->plane) {
        int r = lwt_plane_fit(z, nx, ny, dx, dy, spec->threads, &out->plane);
        if (r) {
            st = lwt_filter_fail(err, errlen, r == -1 ? LWT_ERR_INVALID_ARGUMENT : LWT_ERR_OUT_OF_MEMORY,
                      r == -1 ? "all points are invalid" : "out of memory");
            goto done;
        }
        lwt_plane_subtract(k.filled, nx, ny, dx, dy, &out->plane, spec->threads);
    }
    /* nothing to fill (and no plane that could have changed that): skip the fill's own scan */
    int fr = n_bad || spec->plane ? lwt_fill_invalid(k.filled, nx, ny, &out->n_filled) : 0;
    if (fr) {
        st = lwt_filter_fail(err, errlen, fr == -2 ? LWT_ERR_INVALID_ARGUMENT : LWT_ERR_OUT_OF_MEMORY,
                  fr == -2 ? "all points are invalid" : "out of memory filling invalid points");
        goto done;
    }
    out->ms_fill = lwt_filter_now_ms() - t_start;
    progress(spec, 1, steps, "forward transform");

    /* 3: plan and forward transform */
    if ((st = lwt_wavelet_create(ctx, spec->wavelet ? spec->wavelet : "cdf97", &k.w)) != LWT_OK) {
        lwt_filter_fail(err, errlen, st, "wavelet '%s': %s", spec->wavelet ? spec->wavelet : "cdf97", lwt_status_string(st));
        goto done;
    }
    lwt_wavelet_info wi;
    lwt_wavelet_get_info(k.w, &wi);
    snprintf(out->wavelet, sizeof out->wavelet, "%s", wi.name);
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = k.w;
    d.ndim = 2;
    d.shape[0] = ny;
    d.shape[1] = nx;
    d.levels = sp->levels;
    d.mode = spec->mode;
    d.dtype = spec->dtype;
    d.backend = spec->backend;
    d.algorithm = spec->algorithm;
    if ((st = lwt_plan_create(ctx, &d, &k.plan)) != LWT_OK) {
        lwt_filter_fail(err, errlen, st, "cannot plan the transform: %s", lwt_status_string(st));
        goto done;
    }
    lwt_plan_info info;
    lwt_plan_get_info(k.plan, &info);
    out->backend = info.backend;
    out->path = info.path;
    out->max_level = info.max_level;
#ifdef LWT_HAVE_CUDA
    if (info.backend == LWT_BACKEND_CUDA) {
        /* 3-5 on the GPU with the same plan: one upload, bands built on the device (filter_cuda.h) */
        lwt_filter_cuda_job job;
        memset(&job, 0, sizeof job);
        job.plan = k.plan;
        job.device = d.device;
        job.dtype = spec->dtype;
        job.spec = spec;
        job.nbands = nbands;
        job.steps = steps;
        for (int b = 0; b < nbands; b++) {
            if (b == LWT_BAND_FORM)
                job.keep[b] = 1; /* the approximation, packed level 0 */
            for (int j = 1; j <= sp->levels; j++)
                if (level_in_band(sp, b, j))
                    job.keep[b] |= (uint64_t)1 << (sp->levels - j + 1);
        }
        job.filled = k.filled;
        job.z = z;
        job.n = n;
        job.n_invalid = n_bad; /* non-finite points of z: NaN in every band */
        job.band[LWT_BAND_FORM] = k.filled; /* the form overwrites the filled copy, as below */
        for (int b = 1; b < nbands; b++)
            if (!(job.band[b] = out->band[b] = big_alloc(n * sizeof(double)))) {
                st = lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory for the %s band", BAND_NAMES[b]);
                goto done;
            }
        if ((st = lwt_filter_cuda_bands(&job, &out->ms_forward, out->ms_inverse, err, errlen)) != LWT_OK)
            goto done;
        out->band[LWT_BAND_FORM] = k.filled;
        k.filled = NULL;
        goto finished;
    }
#endif
    k.c = malloc(info.coeff_count * esz);
    k.t = malloc(info.coeff_count * esz);
    k.ws = info.workspace_bytes ? malloc(info.workspace_bytes) : NULL;
    if (f32) {
        k.x = malloc(n * sizeof(float));
        k.y = malloc(n * sizeof(float));
    }
    if (!k.c || !k.t || (info.workspace_bytes && !k.ws) || (f32 && (!k.x || !k.y))) {
        st = lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory for the coefficients (%zu values)",
                  info.coeff_count);
        goto done;
    }
    for (int b = 1; b < nbands; b++) /* the form reuses the filled copy after the forward */
        if (!(out->band[b] = big_alloc(n * sizeof(double)))) {
            st = lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory for the %s band", BAND_NAMES[b]);
            goto done;
        }
    if (f32)
        for (size_t i = 0; i < n; i++)
            ((float *)k.x)[i] = (float)k.filled[i];
    double t0 = lwt_filter_now_ms();
    if ((st = lwt_forward(k.plan, f32 ? k.x : (void *)k.filled, k.c, k.ws)) != LWT_OK) {
        lwt_filter_fail(err, errlen, st, "forward transform failed: %s", lwt_status_string(st));
        goto done;
    }
    out->ms_forward = lwt_filter_now_ms() - t0;
    out->band[LWT_BAND_FORM] = k.filled;
    k.filled = NULL;

    /* 4-5: one inverse per band from its own coefficients */
    const size_t row_len = info.packed_shape[1];
    static const char *const stage[LWT_BAND_COUNT] = {"inverse: form", "inverse: waviness", "inverse: roughness",
                                                       "inverse: noise"};
    for (int b = 0; b < nbands; b++) {
        progress(spec, 2 + b, steps, stage[b]);
        t0 = lwt_filter_now_ms();
        double *o = out->band[b];
        int any = b == LWT_BAND_FORM;
        memset(k.t, 0, info.coeff_count * esz);
        if (b == LWT_BAND_FORM)
            copy_band(k.plan, row_len, esz, 0, 0, k.c, k.t);
        for (int j = 1; j <= sp->levels; j++)
            if (level_in_band(sp, b, j)) {
                any = 1;
                for (unsigned m = 1; m <= 3; m++)
                    copy_band(k.plan, row_len, esz, sp->levels - j + 1, m, k.c, k.t);
            }
        if (!any) {
            memset(o, 0, n * sizeof *o); /* empty band: exactly zero */
        } else if ((st = lwt_inverse(k.plan, k.t, f32 ? k.y : (void *)o, k.ws)) != LWT_OK) {
            lwt_filter_fail(err, errlen, st, "inverse transform (%s) failed: %s", BAND_NAMES[b], lwt_status_string(st));
            goto done;
        }
        if (f32 && any)
            for (size_t i = 0; i < n; i++)
                o[i] = (double)((const float *)k.y)[i];
        for (size_t i = 0; i < n; i++)
            if (!isfinite(z[i]))
                o[i] = NAN;
        out->ms_inverse[b] = lwt_filter_now_ms() - t0;
    }
#ifdef LWT_HAVE_CUDA
finished:
#endif
    out->nx = nx;
    out->ny = ny;
    out->ms_total = lwt_filter_now_ms() - t_start;
    st = LWT_OK;
done:
    if (st != LWT_OK)
        lwt_filter_result_free(out);
    work_free(&k);
    return st;
}
