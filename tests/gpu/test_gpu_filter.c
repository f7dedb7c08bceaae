/*
 * GPU surface filtration (label gpu, run on the device machine; exits 77 without a CUDA device).
 *
 * lwt_filter_run on a CUDA plan keeps the data on the device (src/surface/filter_cuda.c). Checks,
 * on synthetic surfaces (lwt_synth) of odd and even sizes, with invalid points, with and without
 * a noise band, an empty waviness band and plane removal, in float32 and float64:
 *
 *   [same bits]  every band equals, bit for bit, what the former host-pointer path gives
 *                (lwt_forward + 3-4 x lwt_inverse on the same CUDA plan, bands masked on the
 *                host; re-implemented below as old_cuda_path);
 *   [cpu]        every band equals the CPU backend's within 1e-5 (float32) / 1e-12 (float64) of
 *                the surface's largest |height| (the scale float32 rounds at: the input is
 *                stored in float32, so a small band such as the roughness under a large form
 *                differs from float64 by ~1e-5 of its own size; that ratio is printed too, for
 *                information), an empty band exactly 0 in both, NaN exactly at the invalid points;
 *   [time]       a 4096^2 surface (--time N for another size): the new path, the old one, the
 *                CPU, and the floor set by the host bus (measured here) for the bytes moved.
 *
 * Usage: test_gpu_filter [--time N] [--no-time]
 * Output: one line per case, then "test_gpu_filter: K cases, F failures, worst ...". Exit 0 = pass.
 */
#define _DEFAULT_SOURCE /* clock_gettime, posix_memalign, madvise */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lwt.h"
#include "surface/bands.h"
#include "surface/fill.h"
#include "surface/filter.h"
#include "surface/plane.h"
#include "surface/split.h"
#include "surface/synth.h"
#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>
#include "lwt_cuda.h"
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif

static int failures, cases;
static double worst[2];      /* worst error / tolerance vs the CPU, per dtype (0 f32, 1 f64) */
static double worst_band[2]; /* worst error / max |CPU band| (information only) */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void log_fn(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    if (level >= LWT_LOG_WARNING)
        fprintf(stderr, "  liblwt: %s\n", msg);
}

/* ------------------------------------------------------------------------------------------ */
/* The former CUDA path of filter.c (before filter_cuda.c), kept here as the bit-exact reference:
 * same plan, host-pointer lwt_forward, coefficients masked on the host, one lwt_inverse per band. */

static int old_cuda_path(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx, size_t ny,
                         double dx, double dy, double *band[LWT_BAND_COUNT])
{
    const lwt_band_split *sp = &spec->split;
    const int nbands = sp->noise_hi > 0 ? 4 : 3, f32 = spec->dtype == LWT_F32;
    const size_t n = nx * ny, esz = f32 ? 4 : 8;
    double *filled = malloc(n * sizeof *filled);
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    void *x = NULL, *c = NULL, *t = NULL, *y = NULL;
    int ok = 0;
    size_t nf = 0;
    if (!filled)
        goto out;
    memcpy(filled, z, n * sizeof *z);
    if (spec->plane) {
        lwt_plane pl;
        if (lwt_plane_fit(ctx, z, nx, ny, dx, dy, spec->threads, &pl))
            goto out;
        lwt_plane_subtract(filled, nx, ny, dx, dy, &pl, spec->threads);
    }
    if (lwt_fill_invalid(filled, nx, ny, &nf) || lwt_wavelet_create(ctx, spec->wavelet, &w))
        goto out;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = ny;
    d.shape[1] = nx;
    d.levels = sp->levels;
    d.mode = spec->mode;
    d.dtype = spec->dtype;
    d.backend = LWT_BACKEND_CUDA;
    d.algorithm = spec->algorithm;
    if (lwt_plan_create(ctx, &d, &p))
        goto out;
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    x = malloc(n * esz);
    y = malloc(n * esz);
    c = malloc(info.coeff_count * esz);
    t = malloc(info.coeff_count * esz);
    if (!x || !y || !c || !t)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (f32)
            ((float *)x)[i] = (float)filled[i];
        else
            ((double *)x)[i] = filled[i];
    if (lwt_forward(p, x, c, NULL))
        goto out;
    for (int b = 0; b < nbands; b++) {
        int any = b == LWT_BAND_FORM;
        memset(t, 0, info.coeff_count * esz);
        for (int lev = 0; lev <= sp->levels; lev++) {
            int j = sp->levels - lev + 1; /* detail level number, 1 = finest */
            char bc = lev ? lwt_band_of_level(sp, j) : 'f';
            int keep = lev == 0 ? b == LWT_BAND_FORM
                                : (b == LWT_BAND_NOISE && bc == 'n') || (b == LWT_BAND_ROUGHNESS && bc == 'r') ||
                                      (b == LWT_BAND_WAVINESS && bc == 'w');
            if (!keep)
                continue;
            any = 1;
            for (unsigned m = lev ? 1 : 0; m <= (lev ? 3u : 0u); m++) {
                lwt_band bd;
                if (lwt_plan_band(p, lev, m, &bd))
                    goto out;
                for (size_t r = 0; r < bd.shape[0]; r++) {
                    size_t at = ((bd.offset[0] + r) * info.packed_shape[1] + bd.offset[1]) * esz;
                    memcpy((char *)t + at, (char *)c + at, bd.shape[1] * esz);
                }
            }
        }
        double *o = band[b];
        if (!any)
            memset(o, 0, n * sizeof *o);
        else if (lwt_inverse(p, t, f32 ? y : (void *)o, NULL))
            goto out;
        if (f32 && any)
            for (size_t i = 0; i < n; i++)
                o[i] = ((float *)y)[i];
        for (size_t i = 0; i < n; i++)
            if (!isfinite(z[i]))
                o[i] = NAN;
    }
    ok = 1;
out:
    free(filled);
    free(x);
    free(y);
    free(c);
    free(t);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------------------------------------ */

typedef struct surf_case {
    size_t nx, ny;
    const char *preset;
    double invalid;          /* fraction of invalid points */
    int levels, rough_lo, rough_hi;
    int plane;
} surf_case;

static double *make_surface(const surf_case *sc, uint64_t seed)
{
    lwt_synth_desc sd;
    double *z = malloc(sc->nx * sc->ny * sizeof *z);
    if (!z || lwt_synth_preset(sc->preset, sc->nx, sc->ny, 1e-6, 1e-6, seed, &sd)) {
        free(z);
        return NULL;
    }
    sd.invalid_fraction = sc->invalid;
    if (lwt_synth_generate(&sd, z, NULL, NULL, NULL)) {
        free(z);
        return NULL;
    }
    return z;
}

static int make_spec(const surf_case *sc, lwt_dtype dt, lwt_backend be, lwt_filter_spec *spec)
{
    *spec = lwt_filter_spec_default();
    spec->dtype = dt;
    spec->backend = be;
    spec->plane = sc->plane;
    lwt_band_request req = {0};
    req.levels = sc->levels;
    req.rough_lo = sc->rough_lo;
    req.rough_hi = sc->rough_hi;
    if (lwt_bands_resolve(NULL, &req, sc->nx, sc->ny, 1e-6, 1e-6, &spec->split)) {
        fprintf(stderr, "FAIL bands: the request does not resolve\n");
        return -1;
    }
    return 0;
}

static void run_case(lwt_context *ctx, const surf_case *sc, lwt_dtype dt)
{
    const size_t n = sc->nx * sc->ny;
    const char *dname = dt == LWT_F32 ? "float32" : "float64";
    const double tol = dt == LWT_F32 ? 1e-5 : 1e-12;
    char label[160];
    snprintf(label, sizeof label, "%zux%zu %s %s, %.0f%% invalid, %d levels, roughness %d-%d%s", sc->nx, sc->ny,
             sc->preset, dname, sc->invalid * 100, sc->levels, sc->rough_lo, sc->rough_hi, sc->plane ? ", plane" : "");
    cases++;
    double *z = make_surface(sc, 7 + sc->nx);
    lwt_filter_spec sg, sc_cpu;
    if (!z || make_spec(sc, dt, LWT_BACKEND_CUDA, &sg) || make_spec(sc, dt, LWT_BACKEND_CPU, &sc_cpu)) {
        fprintf(stderr, "FAIL %s: cannot make the surface\n", label);
        failures++;
        free(z);
        return;
    }
    const int nbands = sg.split.noise_hi > 0 ? 4 : 3;
    size_t n_invalid = 0;
    double zmax = 0; /* the height scale: largest |z| over the valid points */
    for (size_t i = 0; i < n; i++) {
        n_invalid += !isfinite(z[i]);
        if (isfinite(z[i]) && fabs(z[i]) > zmax)
            zmax = fabs(z[i]);
    }
    lwt_filter_result rg, rc;
    memset(&rg, 0, sizeof rg);
    memset(&rc, 0, sizeof rc);
    double *old[LWT_BAND_COUNT] = {0};
    int bad = 0;
    if (lwt_filter_run(ctx, &sg, z, sc->nx, sc->ny, 1e-6, 1e-6, &rg) != LWT_OK) {
        fprintf(stderr, "FAIL %s: cuda filter (liblwt's line above says why)\n", label);
        bad = 1;
        goto out;
    }
    if (rg.backend != LWT_BACKEND_CUDA) {
        fprintf(stderr, "FAIL %s: the CUDA filter ran on backend %d\n", label, (int)rg.backend);
        bad = 1;
        goto out;
    }
    if (lwt_filter_run(ctx, &sc_cpu, z, sc->nx, sc->ny, 1e-6, 1e-6, &rc) != LWT_OK) {
        fprintf(stderr, "FAIL %s: cpu filter (liblwt's line above says why)\n", label);
        bad = 1;
        goto out;
    }
    for (int b = 0; b < nbands; b++)
        if (!(old[b] = malloc(n * sizeof(double)))) {
            bad = 1;
            goto out;
        }
    if (old_cuda_path(ctx, &sg, z, sc->nx, sc->ny, 1e-6, 1e-6, old)) {
        fprintf(stderr, "FAIL %s: the reference (host-pointer) CUDA path failed\n", label);
        bad = 1;
        goto out;
    }
    printf("  %-62s", label);
    for (int b = 0; b < nbands; b++) {
        /* same bits as the host-pointer CUDA path */
        if (memcmp(rg.band[b], old[b], n * sizeof(double))) {
            size_t i = 0;
            while (!memcmp(&rg.band[b][i], &old[b][i], sizeof(double)))
                i++;
            fprintf(stderr, "\nFAIL %s %s: differs from the host-pointer CUDA path at point %zu: %.17g vs %.17g\n",
                    label, lwt_filter_band_name(b), i, rg.band[b][i], old[b][i]);
            bad = 1;
        }
        /* CPU backend within tolerance; NaN exactly at the invalid points */
        double e = 0, m = 0;
        size_t nan_bad = 0;
        for (size_t i = 0; i < n; i++) {
            const double g = rg.band[b][i], c = rc.band[b][i];
            if (!isfinite(z[i])) {
                nan_bad += !isnan(g) || !isnan(c);
                continue;
            }
            if (!(fabs(g - c) <= e))
                e = fabs(g - c); /* a NaN here makes e NaN: a failure */
            if (fabs(c) > m)
                m = fabs(c);
        }
        double rel = zmax > 0 ? e / zmax : e, rel_band = m > 0 ? e / m : e;
        int ok = nan_bad == 0 && (m > 0 ? rel <= tol : e == 0); /* an empty band: exactly 0 */
        double r = m > 0 ? rel / tol : (e == 0 ? 0 : INFINITY);
        if (!(r <= worst[dt == LWT_F64]))
            worst[dt == LWT_F64] = r;
        if (!(rel_band <= worst_band[dt == LWT_F64]))
            worst_band[dt == LWT_F64] = rel_band;
        printf(" %s %.1e", lwt_filter_band_name(b), rel);
        if (!ok) {
            fprintf(stderr,
                    "\nFAIL %s %s: max |cuda - cpu| = %.3e = %.3e of max |z| %.3e (tolerance %.0e; %.3e of the band's"
                    " max %.3e), %zu NaN mismatches\n",
                    label, lwt_filter_band_name(b), e, rel, zmax, tol, rel_band, m, nan_bad);
            bad = 1;
        }
    }
    /* the same call cut into row chunks (double I/O through the staging slots, NaN restored per
       piece): the same bits, where the surface is tall enough to be cut */
    {
        lwt_filter_spec sk = sg;
        sk.chunk_rows = 256;
        lwt_filter_result rk;
        if (lwt_filter_run(ctx, &sk, z, sc->nx, sc->ny, 1e-6, 1e-6, &rk) != LWT_OK) {
            fprintf(stderr, "\nFAIL %s: cuda filter in chunks (liblwt's line above says why)\n", label);
            bad = 1;
        } else {
            for (int b = 0; b < nbands; b++)
                if (memcmp(rk.band[b], rg.band[b], n * sizeof(double))) {
                    fprintf(stderr, "\nFAIL %s %s: 256-row chunks differ from one chunk\n", label,
                            lwt_filter_band_name(b));
                    bad = 1;
                }
            lwt_filter_result_free(&rk);
        }
    }
    if (rg.n_filled != n_invalid || rc.n_filled != n_invalid) {
        fprintf(stderr, "\nFAIL %s: filled %zu (cuda) / %zu (cpu) points, %zu invalid\n", label, rg.n_filled,
                rc.n_filled, n_invalid);
        bad = 1;
    }
    printf("  %s\n", bad ? "FAIL" : "ok (same bits as host path)");
out:
    failures += bad;
    lwt_filter_result_free(&rg);
    lwt_filter_result_free(&rc);
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        free(old[b]);
    free(z);
}

/* ------------------------------------------------------------------------------------------ */
/* The splitter on the GPU (split.h): host data in the transform's dtype, row chunks pipelined.
 *   [chunks]  every chunk size gives the one-chunk GPU bands bit for bit;
 *   [pinned]  pinned and pageable host buffers give the same bits;
 *   [cpu]     the GPU bands equal the CPU splitter's within the tolerance of run_case. */

/* pinned host memory where CUDA is built in (plain memory otherwise: the test then skips) */
static void *pinned_alloc(size_t bytes)
{
#ifdef LWT_HAVE_CUDA
    void *p = NULL;
    return cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess ? p : NULL;
#else
    return malloc(bytes);
#endif
}

static void pinned_free(void *p)
{
#ifdef LWT_HAVE_CUDA
    if (p)
        cudaFreeHost(p);
#else
    free(p);
#endif
}

static int split_run(lwt_context *ctx, const lwt_filter_spec *base, lwt_backend be, size_t chunk_rows, size_t nx,
                     size_t ny, const void *in, void *const band[LWT_BAND_COUNT], int *chunks)
{
    lwt_filter_spec spec = *base;
    spec.backend = be;
    spec.chunk_rows = chunk_rows;
    lwt_splitter *s = NULL;
    lwt_splitter_info info;
    if (lwt_splitter_create(ctx, &spec, nx, ny, &s) != LWT_OK ||
        lwt_splitter_get_info(s, &info) != LWT_OK || info.backend != be ||
        lwt_splitter_run(s, in, band, NULL) != LWT_OK) {
        fprintf(stderr, "FAIL split %zux%zu backend %d chunk %zu (liblwt's line above says why)\n", nx, ny, (int)be,
                chunk_rows);
        lwt_splitter_destroy(s);
        return -1;
    }
    *chunks = info.chunks;
    lwt_splitter_destroy(s);
    return 0;
}

static void split_case(lwt_context *ctx, const surf_case *sc, lwt_dtype dt, lwt_mode mode, const size_t *rows,
                       int nrows)
{
    const size_t n = sc->nx * sc->ny, esz = dt == LWT_F32 ? 4 : 8;
    const double tol = dt == LWT_F32 ? 1e-5 : 1e-12;
    char label[160];
    snprintf(label, sizeof label, "split %zux%zu %s %s mode %d, %d levels", sc->nx, sc->ny, sc->preset,
             dt == LWT_F32 ? "float32" : "float64", (int)mode, sc->levels);
    cases++;
    lwt_filter_spec spec;
    double *z = make_surface(sc, 11 + sc->ny);
    void *in = malloc(n * esz), *ref[LWT_BAND_COUNT] = {0}, *got[LWT_BAND_COUNT] = {0}, *cpu[LWT_BAND_COUNT] = {0};
    void *pin_in = NULL, *pin[LWT_BAND_COUNT] = {0};
    int bad = 0, k = 0;
    if (!z || !in || make_spec(sc, dt, LWT_BACKEND_CUDA, &spec)) {
        bad = 1;
        goto out;
    }
    spec.mode = mode;
    const int nbands = spec.split.noise_hi > 0 ? 4 : 3;
    double zmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (dt == LWT_F32)
            ((float *)in)[i] = (float)z[i];
        else
            ((double *)in)[i] = z[i];
        if (fabs(z[i]) > zmax)
            zmax = fabs(z[i]);
    }
    for (int b = 0; b < nbands; b++)
        if (!(ref[b] = malloc(n * esz)) || !(got[b] = malloc(n * esz)) || !(cpu[b] = malloc(n * esz)) ||
            !(pin[b] = pinned_alloc(n * esz))) {
            bad = 1;
            goto out;
        }
    if (!(pin_in = pinned_alloc(n * esz))) {
        bad = 1;
        goto out;
    }
    memcpy(pin_in, in, n * esz);
    if (split_run(ctx, &spec, LWT_BACKEND_CUDA, LWT_SPLIT_ONE_CHUNK, sc->nx, sc->ny, in, ref, &k) ||
        split_run(ctx, &spec, LWT_BACKEND_CPU, LWT_SPLIT_ONE_CHUNK, sc->nx, sc->ny, in, cpu, &k)) {
        bad = 1;
        goto out;
    }
    printf("  %-62s", label);
    for (int r = 0; r < nrows && !bad; r++) {
        const int pinned = r % 2; /* every other chunk size on pinned buffers */
        void *const *dst = pinned ? pin : got;
        if (split_run(ctx, &spec, LWT_BACKEND_CUDA, rows[r], sc->nx, sc->ny, pinned ? pin_in : in, dst, &k)) {
            bad = 1;
            break;
        }
        printf(" %zu rows: %d chunks%s", rows[r], k, pinned ? " (pinned)" : "");
        if (k < 2 && mode != LWT_MODE_PERIODIZATION) {
            fprintf(stderr, "\nFAIL %s: chunk rows %zu gave %d chunk(s), nothing pipelined\n", label, rows[r], k);
            bad = 1;
        }
        for (int b = 0; b < nbands; b++)
            if (memcmp(dst[b], ref[b], n * esz)) {
                size_t i = 0;
                while (!memcmp((char *)dst[b] + i * esz, (char *)ref[b] + i * esz, esz))
                    i++;
                fprintf(stderr, "\nFAIL %s %s: %zu chunk rows differ from one chunk at row %zu col %zu\n", label,
                        lwt_filter_band_name(b), rows[r], i / sc->nx, i % sc->nx);
                bad = 1;
            }
    }
    for (int b = 0; b < nbands; b++) {
        double e = 0;
        for (size_t i = 0; i < n; i++) {
            const double g = dt == LWT_F32 ? ((float *)ref[b])[i] : ((double *)ref[b])[i];
            const double c = dt == LWT_F32 ? ((float *)cpu[b])[i] : ((double *)cpu[b])[i];
            if (!(fabs(g - c) <= e))
                e = fabs(g - c);
        }
        if (!(e <= tol * zmax)) {
            fprintf(stderr, "\nFAIL %s %s: max |gpu - cpu| %.3e > %.0e x max |z| %.3e\n", label,
                    lwt_filter_band_name(b), e, tol, zmax);
            bad = 1;
        }
        if (!(e / (tol * zmax) <= worst[dt == LWT_F64]))
            worst[dt == LWT_F64] = e / (tol * zmax);
    }
    printf("  %s\n", bad ? "FAIL" : "ok (chunks = one chunk, bits; cpu within tolerance)");
out:
    failures += bad;
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(ref[b]);
        free(got[b]);
        free(cpu[b]);
        pinned_free(pin[b]);
    }
    pinned_free(pin_in);
    free(in);
    free(z);
}

/* ------------------------------------------------------------------------------------------ */
/* timing */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#ifdef LWT_HAVE_CUDA
/* host bus GB/s with pinned memory: H2D alone, D2H alone, both at once (sum); 0 on error */
static void measure_bus(double *h2d, double *d2h, double *both)
{
    const size_t bytes = (size_t)256 << 20;
    void *h1 = NULL, *h2 = NULL, *d1 = NULL, *d2 = NULL;
    cudaStream_t s1 = NULL, s2 = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;
    *h2d = *d2h = *both = 0;
    if (cudaHostAlloc(&h1, bytes, cudaHostAllocDefault) || cudaHostAlloc(&h2, bytes, cudaHostAllocDefault) ||
        cudaMalloc(&d1, bytes) || cudaMalloc(&d2, bytes) || cudaStreamCreate(&s1) || cudaStreamCreate(&s2) ||
        cudaEventCreate(&e0) || cudaEventCreate(&e1) || cudaEventCreate(&e2))
        goto out;
    memset(h1, 1, bytes);
    memset(h2, 2, bytes);
    for (int rep = 0; rep < 2; rep++) { /* the first round warms up */
        float t1 = 0, t2 = 0, t3 = 0;
        if (cudaEventRecord(e0, s1) || cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1) ||
            cudaEventRecord(e1, s1) || cudaEventSynchronize(e1) || cudaEventElapsedTime(&t1, e0, e1))
            goto out;
        if (cudaEventRecord(e0, s1) || cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s1) ||
            cudaEventRecord(e1, s1) || cudaEventSynchronize(e1) || cudaEventElapsedTime(&t2, e0, e1))
            goto out;
        if (cudaDeviceSynchronize())
            goto out;
        double w0 = now_ms();
        if (cudaMemcpyAsync(d1, h1, bytes, cudaMemcpyHostToDevice, s1) ||
            cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2) || cudaEventRecord(e1, s1) ||
            cudaEventRecord(e2, s2) || cudaEventSynchronize(e1) || cudaEventSynchronize(e2))
            goto out;
        t3 = (float)(now_ms() - w0);
        *h2d = bytes / (t1 * 1e6);
        *d2h = bytes / (t2 * 1e6);
        *both = 2.0 * bytes / (t3 * 1e6);
    }
out:
    cudaFreeHost(h1);
    cudaFreeHost(h2);
    cudaFree(d1);
    cudaFree(d2);
    if (s1) cudaStreamDestroy(s1);
    if (s2) cudaStreamDestroy(s2);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (e2) cudaEventDestroy(e2);
    (void)cudaGetLastError();
}

/* host float32 -> float64 conversion into freshly allocated memory (as a band is): GB/s written.
   huge: the block asked for transparent huge pages (madvise), which the filter does not do (yet) */
static double measure_convert(size_t n, int huge)
{
    float *s = malloc(n * sizeof *s);
    double *o = NULL, r = 0;
    if (!huge)
        o = malloc(n * sizeof *o);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    else if (!posix_memalign((void **)&o, (size_t)2 << 20, n * sizeof *o))
        madvise(o, n * sizeof *o, MADV_HUGEPAGE);
#endif
    if (s && o) {
        for (size_t i = 0; i < n; i++)
            s[i] = (float)i;
        double t0 = now_ms();
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++)
            o[i] = s[i];
        double t = now_ms() - t0;
        volatile double keep = o[n / 2]; /* the copy is used */
        (void)keep;
        r = n * sizeof *o / (t * 1e6);
    }
    free(s);
    free(o);
    return r;
}

/* the kernel's transparent huge page mode ("always", "madvise", "never"; "?" when unknown): page
   faults of the freshly allocated bands cost ~5x less with huge pages */
static const char *thp_mode(void)
{
    static char mode[32] = "?";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128];
    if (f && fgets(line, sizeof line, f)) {
        char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b && b - a - 1 < (long)sizeof mode) {
            memcpy(mode, a + 1, (size_t)(b - a - 1));
            mode[b - a - 1] = 0;
        }
    }
    if (f)
        fclose(f);
    return mode;
}

#endif /* LWT_HAVE_CUDA */

static void time_filter(lwt_context *ctx, size_t N, lwt_dtype dt)
{
    const surf_case sc = {N, N, "milled", 0, 6, 1, 3, 0};
    const char *dname = dt == LWT_F32 ? "float32" : "float64";
    const size_t n = N * N;
    lwt_filter_spec sg, sc_cpu;
    double *z = make_surface(&sc, 1);
    if (!z || make_spec(&sc, dt, LWT_BACKEND_CUDA, &sg) || make_spec(&sc, dt, LWT_BACKEND_CPU, &sc_cpu)) {
        fprintf(stderr, "FAIL timing: cannot make the %zux%zu surface\n", N, N);
        failures++;
        free(z);
        return;
    }
    enum { RUNS = 5 };
    double fill[RUNS], split[RUNS], tr[RUNS], tot[RUNS];
    for (int r = 0; r < RUNS; r++) {
        lwt_filter_result res;
        if (lwt_filter_run(ctx, &sg, z, N, N, 1e-6, 1e-6, &res) != LWT_OK) {
            fprintf(stderr, "FAIL timing %zux%zu %s (liblwt's line above says why)\n", N, N, dname);
            failures++;
            free(z);
            return;
        }
        fill[r] = res.ms_fill;
        split[r] = res.ms_transform;
        tr[r] = res.ms_fill + res.ms_transform;
        tot[r] = res.ms_total;
        lwt_filter_result_free(&res);
    }
    /* the run with the median fill+forward+3 inverse, of runs 1.. (run 0 warms up) */
    double sorted[RUNS - 1];
    memcpy(sorted, tr + 1, sizeof sorted);
    qsort(sorted, RUNS - 1, sizeof *sorted, cmp_double);
    int m = 1;
    for (int r = 1; r < RUNS; r++)
        if (tr[r] == sorted[(RUNS - 1) / 2])
            m = r;
    /* the former host-pointer path and the CPU backend, once each */
    double *old[LWT_BAND_COUNT] = {0};
    double t_old = -1, t_cpu = -1;
    int ok_old = 1;
    for (int b = 0; b < 3; b++)
        ok_old &= (old[b] = malloc(n * sizeof(double))) != NULL;
    double t0 = now_ms();
    if (ok_old && !old_cuda_path(ctx, &sg, z, N, N, 1e-6, 1e-6, old))
        t_old = now_ms() - t0;
    for (int b = 0; b < 3; b++)
        free(old[b]);
    lwt_filter_result res;
    if (lwt_filter_run(ctx, &sc_cpu, z, N, N, 1e-6, 1e-6, &res) == LWT_OK) {
        t_cpu = res.ms_fill + res.ms_transform;
        lwt_filter_result_free(&res);
    }
    printf("  %zux%zu %s, cdf97 6 levels symmetric, 3 bands (median of %d runs after a warm-up):\n", N, N, dname,
           RUNS - 1);
    printf("    cuda: fill %.1f + forward and 3 inverse (uploads, downloads) %.1f = %.1f ms; whole call with plan"
           " and allocation %.1f ms\n",
           fill[m], split[m], tr[m], tot[m]);
    printf("    former host-pointer cuda path %.1f ms (whole), cpu backend %.1f ms (fill+forward+3 inverse)\n", t_old,
           t_cpu);
#ifdef LWT_HAVE_CUDA
    double h2d, d2h, both;
    measure_bus(&h2d, &d2h, &both);
    double conv = measure_convert(n, 0), conv_huge = measure_convert(n, 1);
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#endif
    if (h2d > 0 && d2h > 0) {
        const size_t esz = dt == LWT_F32 ? 4 : 8; /* bytes moved per point and band */
        double up = n * esz / (h2d * 1e6), down = 3.0 * n * esz / (d2h * 1e6);
        printf("    host bus (pinned): H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f GB/s in all; host float->double"
               " into fresh memory %.1f GB/s written, %.1f GB/s with MADV_HUGEPAGE (%d threads, transparent huge"
               " pages: %s)\n",
               h2d, d2h, both, conv, conv_huge, nthreads, thp_mode());
        printf("    floor of this path: upload and 3 downloads at once max(%.1f, %.1f) ms, one after the other %.1f ms;"
               " transforms+transfers here took %.1f ms\n",
               up, down, up + down, split[m]);
    }
#endif
    free(z);
}

int main(int argc, char **argv)
{
    size_t tn = 4096;
    int timing = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--time") && i + 1 < argc)
            tn = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--no-time"))
            timing = 0;
        else {
            fprintf(stderr, "usage: test_gpu_filter [--time N] [--no-time]\n");
            return 2;
        }
    }
    lwt_context *ctx;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    lwt_context_set_log(ctx, log_fn, NULL);
    if (lwt_context_device_count(ctx) == 0) {
        printf("test_gpu_filter: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    printf("test_gpu_filter: lwt_filter_run on CUDA == former host-pointer CUDA path (bits) and == CPU backend\n"
           "  (error per band: max |cuda - cpu| over the valid points / max |height|; tolerance 1e-5 float32,"
           " 1e-12 float64)\n");
    const surf_case cs[] = {
        {257, 300, "milled", 0.02, 6, 1, 3, 0},  /* odd sizes, invalid points, the default split */
        {1024, 768, "ground", 0.05, 6, 2, 4, 0}, /* noise band (level 1): four bands */
        {300, 261, "milled", 0.0, 5, 1, 5, 1},   /* waviness empty (roughness 1-J), plane removal */
        {1031, 2053, "ground", 0.01, 7, 1, 4, 0},/* past one kernel tile in both axes, 7 levels */
        {200, 3000, "milled", 0.02, 3, 1, 2, 0}, /* tall, 3 levels: 256-row chunks cut it in 12 */
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        run_case(ctx, &cs[i], LWT_F32);
        run_case(ctx, &cs[i], LWT_F64);
    }
    /* the splitter: halo 320 rows at 4 levels, 1280 at 6 (split.h); 0 = automatic chunks */
    const surf_case s4 = {301, 2053, "milled", 0, 4, 1, 2, 0}, s6 = {900, 4100, "ground", 0, 6, 2, 3, 0};
    const size_t rows4[] = {0, 256, 200}, rows6[] = {0, 512};
    for (int dt = 0; dt < 2; dt++) {
        split_case(ctx, &s4, dt ? LWT_F64 : LWT_F32, LWT_MODE_SYMMETRIC, rows4, 3);
        split_case(ctx, &s4, dt ? LWT_F64 : LWT_F32, LWT_MODE_ZERO, rows4, 3);
        split_case(ctx, &s6, dt ? LWT_F64 : LWT_F32, LWT_MODE_SYMMETRIC, rows6, 2);
    }
    if (timing && tn >= 256) {
        printf("timing:\n");
        time_filter(ctx, tn, LWT_F32);
        time_filter(ctx, tn, LWT_F64);
    }
    lwt_context_destroy(ctx);
    printf("test_gpu_filter: %d cases, %d failures, worst error/tolerance vs cpu: float32 %.3g, float64 %.3g"
           " (relative to the band's own max, for information: float32 %.2e, float64 %.2e)\n",
           cases, failures, worst[0], worst[1], worst_band[0], worst_band[1]);
    return failures ? 1 : 0;
}
