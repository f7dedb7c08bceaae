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
#include "core/backend.h"

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

/* One low-pass of the cascade: the linear Gaussian, or for the L- and F-filters of
   LWT_FILTER_ROBUST_GAUSSIAN the robust regression filter (whose iterations go to the log). */
static lwt_status lowpass(lwt_context *ctx, const lwt_filter_spec *spec, const char *which, const double *in,
                          int masked, size_t nx, size_t ny, double dx, double dy, double lambda, double *out)
{
    if (spec->filter != LWT_FILTER_ROBUST_GAUSSIAN || !strcmp(which, "S"))
        return lwt__gauss_smooth(in, nx, ny, dx, dy, lambda, masked, spec->threads, LWT_GAUSS_AUTO, out);
    lwt__rgauss_info info;
    const lwt_status st = lwt__rgauss_smooth(in, nx, ny, dx, dy, lambda, spec->threads, -1, -1, &info, out);
    if (st == LWT_OK) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "robust Gaussian %s-filter (lambda %g um): %d reweightings, %s (last change %.3g median |r|, "
                 "median |r| %.4g um)",
                 which, lambda * 1e6, info.iterations, info.converged ? "converged" : "NOT converged", info.change,
                 info.scale * 1e6);
        lwt_context_log(ctx, info.converged ? LWT_LOG_INFO : LWT_LOG_WARNING, msg);
    }
    return st;
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
        if ((st = lowpass(ctx, spec, "S", lev, masked, nx, ny, dx, dy, g->lambda_s, r)) == LWT_OK)
            subtract(lev, r, n, t);
    }
    if (st == LWT_OK) { /* w = s2 = L(s1); roughness = s1 - s2 */
        progress(spec, 1 + noise, steps, "L-filter (lambda-c)");
        const double *s1 = noise ? r : lev;
        if ((st = lowpass(ctx, spec, "L", s1, masked, nx, ny, dx, dy, g->lambda_c, w)) == LWT_OK) {
            if (!noise)
                memcpy(r, lev, n * sizeof *r);
            subtract(r, w, n, t);
        }
    }
    if (st == LWT_OK) { /* f = s3 = F(s2); waviness = s2 - s3 */
        progress(spec, 2 + noise, steps, "form filter (lambda-f)");
        if ((st = lowpass(ctx, spec, "F", w, masked, nx, ny, dx, dy, g->lambda_f, f)) == LWT_OK)
            subtract(w, f, n, t);
    }
    if (st != LWT_OK) {
        free(r);
        free(w);
        free(f);
        free(lev);
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

size_t lwt__cuda_gauss_work_bytes(size_t nx, size_t ny, int masked)
{
    return (masked ? 4 : 3) * nx * ny * sizeof(double); /* cuda_gauss.cu's carve() */
}

/* The cascade on the GPU from the levelled heights (lev is freed): the bands of out allocated
   here and computed by cuda_gauss.cu, the CPU's direct convolution bit for bit. */
static lwt_status cascade_cuda(lwt_context *ctx, const lwt_filter_spec *spec, double *lev, int masked, size_t nx,
                               size_t ny, double dx, double dy, lwt_filter_result *out)
{
    const lwt_gauss_nesting *g = &spec->gauss;
    const double lambda[3] = {g->lambda_s, g->lambda_c, g->lambda_f};
    const int noise = g->lambda_s > 0, nb = noise ? 4 : 3;
    lwt__gauss_kernel k[3][2];
    memset(k, 0, sizeof k);
    lwt_status st = LWT_OK;
    for (int s = noise ? 0 : 1; s < 3 && st == LWT_OK; s++)
        if (lwt__gauss_kernel_make(&k[s][0], lambda[s], dx, nx) || lwt__gauss_kernel_make(&k[s][1], lambda[s], dy, ny))
            st = lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the Gaussian kernels");
    double *band[4] = {NULL, NULL, NULL, NULL};
    for (int b = 0; b < nb && st == LWT_OK; b++)
        if (!(band[b] = malloc(nx * ny * sizeof(double))))
            st = lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu x %zu points", nx, ny);
    progress(spec, 1, 3 + noise, "Gaussian filters on the GPU");
    if (st == LWT_OK && (st = lwt__cuda_gauss_cascade_host(k, noise, nx, ny, masked, lev, band)) != LWT_OK)
        st = lwt_fail(ctx, st, "the Gaussian filter failed on the GPU (%s)", lwt_status_string(st));
    for (int s = 0; s < 3; s++)
        for (int a = 0; a < 2; a++)
            lwt__gauss_kernel_free(&k[s][a]);
    free(lev);
    for (int b = 0; b < 4; b++)
        if (st == LWT_OK)
            out->band[b] = band[b];
        else
            free(band[b]);
    return st;
}

/* Where the cascade runs: the GPU for --backend cuda, and for auto when there is one and every
   kernel fits its convolution (half widths up to lwt__cuda_gauss_max_half). */
static lwt_status pick_backend(lwt_context *ctx, const lwt_filter_spec *spec, size_t nx, size_t ny, double dx,
                               double dy, lwt_backend *out)
{
    const lwt_gauss_nesting *g = &spec->gauss;
    *out = LWT_BACKEND_CPU;
    LWT_RETURN_IF(spec->filter == LWT_FILTER_ROBUST_GAUSSIAN && spec->backend == LWT_BACKEND_CUDA, ctx,
                  LWT_ERR_UNSUPPORTED, "the robust Gaussian filter runs on the CPU only (use --backend cpu)");
    if (spec->backend == LWT_BACKEND_CPU || spec->filter == LWT_FILTER_ROBUST_GAUSSIAN ||
        (spec->backend == LWT_BACKEND_AUTO && lwt_cuda_device_count() == 0))
        return LWT_OK;
    LWT_RETURN_IF(lwt_cuda_device_count() == 0, ctx, LWT_ERR_BACKEND_UNAVAILABLE,
                  "--backend cuda: no CUDA device (or a build without CUDA)");
    const int hmax = lwt__cuda_gauss_max_half();
    const int hx = lwt__gauss_half_width(g->lambda_f, dx, nx), hy = lwt__gauss_half_width(g->lambda_f, dy, ny);
    const int h = hx > hy ? hx : hy; /* lambda-f's kernels are the longest */
    if (h > hmax) {
        LWT_RETURN_IF(spec->backend == LWT_BACKEND_CUDA, ctx, LWT_ERR_UNSUPPORTED,
                      "the Gaussian kernel of lambda-f %g um is %d points each side; the GPU's holds at most %d "
                      "(use --backend cpu)",
                      g->lambda_f * 1e6, h, hmax);
        return LWT_OK;
    }
    *out = LWT_BACKEND_CUDA;
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
    lwt_backend backend;
    LWT_FORWARD(pick_backend(ctx, spec, nx, ny, dx, dy, &backend));
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
    if (backend == LWT_BACKEND_CUDA)
        LWT_FORWARD(cascade_cuda(ctx, spec, lev, n_bad > 0, nx, ny, dx, dy, out));
    else
        LWT_FORWARD(cascade(ctx, spec, lev, n_bad > 0, nx, ny, dx, dy, out));
    out->ms_transform = lwt_filter_now_ms() - t1;
    out->nx = nx;
    out->ny = ny;
    out->backend = backend;
    snprintf(out->wavelet, sizeof out->wavelet, spec->filter == LWT_FILTER_ROBUST_GAUSSIAN ? "robust-gaussian" : "gaussian");
    out->ms_total = lwt_filter_now_ms() - t0;
    return LWT_OK;
}
