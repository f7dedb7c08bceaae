/* gauss_filter.c - the Gaussian band split: S-filter, L-filter, form, as cascaded low-passes (gauss.h). */
#define _POSIX_C_SOURCE 200809L

#include "surface/gauss.h"
#include "surface/bands.h"
#include "surface/filter.h"
#include "surface/split_impl.h"
#include "surface/form.h"
#include "surface/plane.h"
#include "surface/threads.h"
#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lwt_status lwt_gauss_nesting_resolve(lwt_context *ctx, const lwt_band_request *req, double dx, double dy,
                                     lwt_gauss_nesting *out)
{
    LWT_RETURN_IF(!req || !out, ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_gauss_nesting_resolve: no request or result");
    /* the split the request describes, for a field large enough for any level count: the
       wavelet's rules without its size rule, which the Gaussian does not have */
    const size_t any = (size_t)1 << 40;
    lwt_band_split split;
    LWT_FORWARD(lwt_bands_resolve(ctx, req, any, any, dx, dy, &split));
    const double d = split.spacing;
    out->lambda_s = req->lambda_s > 0 ? req->lambda_s
                    : split.noise_hi > 0 ? lwt_band_boundary(split.rough_lo, d)
                                         : 0;
    out->lambda_c = req->lambda_c > 0 ? req->lambda_c : lwt_band_boundary(split.rough_hi + 1, d);
    out->lambda_f = lwt_band_boundary(split.levels + 1, d);
    LWT_RETURN_IF(!(out->lambda_s < out->lambda_c && out->lambda_c < out->lambda_f), ctx, LWT_ERR_INVALID_ARGUMENT,
                  "Gaussian nesting indices must grow: lambda-s %g um < lambda-c %g um < lambda-f %g um (the form's, "
                  "2^(levels+1) spacings: raise --levels)",
                  out->lambda_s * 1e6, out->lambda_c * 1e6, out->lambda_f * 1e6);
    return LWT_OK;
}

lwt_status lwt_gauss_lowpass(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                             double lambda, int threads, double *out)
{
    LWT_RETURN_IF(!z || !out || nx == 0 || ny == 0 || !(dx > 0) || !(dy > 0) || !(lambda > 0) || !isfinite(lambda),
                  ctx, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the Gaussian filter");
    LWT_RETURN_IF(z == out, ctx, LWT_ERR_INVALID_ARGUMENT, "the Gaussian filter cannot work in place");
    const int masked = lwt__count_invalid(z, nx * ny, threads) > 0;
    LWT_RETURN_IF(lwt__gauss_smooth(z, nx, ny, dx, dy, lambda, masked, threads, LWT_GAUSS_AUTO, out) != LWT_OK, ctx,
                  LWT_ERR_OUT_OF_MEMORY, "out of memory for the Gaussian filter of %zu x %zu points", nx, ny);
    return LWT_OK;
}

/* a -= b, element by element (NaN stays NaN) */
static void subtract(double *a, const double *b, size_t n, int threads)
{
#pragma omp parallel for num_threads(lwt__surf_threads(threads)) schedule(static)
    for (long long i = 0; i < (long long)n; i++)
        a[i] -= b[i];
}

static void progress(const lwt_filter_spec *s, int step, int steps, const char *what)
{
    if (s->progress)
        s->progress(s->progress_user, step, steps, what);
}

/* The cascade on the levelled heights `lev` (NaN = invalid), into out's bands (allocated here):
   lev itself becomes the noise band (with lambda_s) or is freed. */
static lwt_status cascade(lwt_context *ctx, const lwt_filter_spec *spec, double *lev, int masked, size_t nx,
                          size_t ny, double dx, double dy, lwt_filter_result *out)
{
    const lwt_gauss_nesting *g = &spec->gauss;
    const size_t n = nx * ny;
    const int t = spec->threads, noise = g->lambda_s > 0, steps = 3 + noise;
    double *r = malloc(n * sizeof *r), *w = malloc(n * sizeof *w), *f = malloc(n * sizeof *f);
    lwt_status st = r && w && f ? LWT_OK : LWT_ERR_OUT_OF_MEMORY;
    if (st == LWT_OK && noise) { /* r = s1 = S(lev); noise = lev - s1 in lev's place */
        progress(spec, 1, steps, "S-filter (lambda-s)");
        if ((st = lwt__gauss_smooth(lev, nx, ny, dx, dy, g->lambda_s, masked, t, LWT_GAUSS_AUTO, r)) == LWT_OK)
            subtract(lev, r, n, t);
    }
    if (st == LWT_OK) { /* w = s2 = L(s1); roughness = s1 - s2 */
        progress(spec, 1 + noise, steps, "L-filter (lambda-c)");
        const double *s1 = noise ? r : lev;
        if ((st = lwt__gauss_smooth(s1, nx, ny, dx, dy, g->lambda_c, masked, t, LWT_GAUSS_AUTO, w)) == LWT_OK) {
            if (!noise)
                memcpy(r, lev, n * sizeof *r);
            subtract(r, w, n, t);
        }
    }
    if (st == LWT_OK) { /* f = s3 = F(s2); waviness = s2 - s3 */
        progress(spec, 2 + noise, steps, "form filter (lambda-f)");
        if ((st = lwt__gauss_smooth(w, nx, ny, dx, dy, g->lambda_f, masked, t, LWT_GAUSS_AUTO, f)) == LWT_OK)
            subtract(w, f, n, t);
    }
    if (st != LWT_OK) {
        free(r);
        free(w);
        free(f);
        return lwt_fail(ctx, st, "out of memory for the Gaussian filter of %zu x %zu points", nx, ny);
    }
    out->band[LWT_BAND_FORM] = f;
    out->band[LWT_BAND_WAVINESS] = w;
    out->band[LWT_BAND_ROUGHNESS] = r;
    if (noise)
        out->band[LWT_BAND_NOISE] = lev;
    else
        free(lev);
    return LWT_OK;
}

lwt_status lwt__gauss_filter_run(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx,
                                 size_t ny, double dx, double dy, lwt_filter_result *out)
{
    const lwt_gauss_nesting *g = &spec->gauss;
    LWT_RETURN_IF(!(g->lambda_c > 0) || !(g->lambda_s >= 0) || !(g->lambda_s < g->lambda_c) ||
                      !(g->lambda_c < g->lambda_f) || !isfinite(g->lambda_f),
                  ctx, LWT_ERR_INVALID_ARGUMENT,
                  "Gaussian nesting indices must satisfy 0 <= lambda-s < lambda-c < lambda-f (have %g, %g, %g um)",
                  g->lambda_s * 1e6, g->lambda_c * 1e6, g->lambda_f * 1e6);
    LWT_RETURN_IF(spec->backend == LWT_BACKEND_CUDA, ctx, LWT_ERR_UNSUPPORTED,
                  "the Gaussian filter runs on the CPU only (use --backend cpu or auto)");
    const double t0 = lwt_filter_now_ms();
    const size_t n = nx * ny;
    progress(spec, 0, 3 + (g->lambda_s > 0), "levelling");
    double *lev = malloc(n * sizeof *lev);
    LWT_RETURN_IF(!lev, ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu x %zu points", nx, ny);
    memcpy(lev, z, n * sizeof *lev);
    const size_t n_bad = lwt__count_invalid(z, n, spec->threads);
    if (n_bad == n) {
        free(lev);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "all points are invalid");
    }
    lwt_status st = lwt__filter_form(ctx, spec, z, nx, ny, dx, dy, lev, &out->plane);
    if (st != LWT_OK) {
        free(lev);
        return st;
    }
    out->ms_fill = lwt_filter_now_ms() - t0;
    const double t1 = lwt_filter_now_ms();
    LWT_FORWARD(cascade(ctx, spec, lev, n_bad > 0, nx, ny, dx, dy, out));
    out->ms_transform = lwt_filter_now_ms() - t1;
    out->nx = nx;
    out->ny = ny;
    out->backend = LWT_BACKEND_CPU;
    snprintf(out->wavelet, sizeof out->wavelet, "gaussian");
    out->ms_total = lwt_filter_now_ms() - t0;
    return LWT_OK;
}
