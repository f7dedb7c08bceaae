/*
 * GPU band split by levels per axis (label gpu, run on the device machine; exits 77 without a
 * CUDA device). The split of anisotropic spacing (lwt_bands_resolve_axes, src/stream/
 * split_steps.c) runs one-level steps as line passes in the stream engine's GPU worker. Checks,
 * on surfaces with structure at every scale, spacings 1 x 2.46, 2 x 1 and 1 x 4, odd and even
 * sizes, float32 and float64:
 *
 *   [chunks]  the CUDA splitter's bands for automatic chunks and chunks of 128 rows equal its
 *             one-chunk bands bit for bit;
 *   [cpu]     they equal the CPU splitter's within 1e-5 (float32) / 1e-12 (float64) of the
 *             surface's largest |height|, and add up to the input as closely;
 *   [filter]  lwt_filter_run on the GPU with invalid points: NaN exactly there, the other values
 *             within the same bounds of the CPU's;
 *   [time]    (informational) a 4096^2 float32 split on the GPU, 1 x 2.46 um against 1 x 1 um.
 *
 * Usage: test_gpu_axes [--no-time]. Exit 0 = pass.
 */
#define _DEFAULT_SOURCE /* clock_gettime */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lwt.h"
#include "lwt_surface.h"
#include "check.h"
#include "rough_surface.h"

static int cases;

static void log_fn(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    if (level >= LWT_LOG_WARNING)
        fprintf(stderr, "lwt: %s\n", msg);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* split z with spec on backend into bands[b] (double, n each); info out; 0 on success */
static int split(lwt_context *ctx, lwt_filter_spec spec, lwt_backend backend, size_t chunk_rows, const double *z,
                 size_t nx, size_t ny, double *bands[LWT_BAND_COUNT], lwt_splitter_info *info, double *ms)
{
    spec.backend = backend;
    spec.chunk_rows = chunk_rows;
    lwt_splitter *s = NULL;
    if (lwt_splitter_create(ctx, &spec, nx, ny, &s) != LWT_OK)
        return -1;
    lwt_splitter_get_info(s, info);
    const size_t n = nx * ny, es = spec.dtype == LWT_F32 ? 4 : 8;
    char *in = malloc(n * es), *out[LWT_BAND_COUNT] = {NULL, NULL, NULL, NULL};
    for (size_t i = 0; i < n; i++)
        if (es == 4)
            ((float *)in)[i] = (float)z[i];
        else
            ((double *)in)[i] = z[i];
    for (int b = 0; b < info->nbands; b++)
        out[b] = malloc(n * es);
    lwt_status st = lwt_splitter_run(s, in, (void *const *)out, NULL); /* warm: plans' first-call buffers */
    const double t0 = now_ms();
    if (st == LWT_OK && ms)
        st = lwt_splitter_run(s, in, (void *const *)out, NULL);
    if (ms)
        *ms = now_ms() - t0;
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        for (size_t i = 0; bands[b] && i < n; i++)
            bands[b][i] = b >= info->nbands ? 0 : es == 4 ? ((float *)out[b])[i] : ((double *)out[b])[i];
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        free(out[b]);
    free(in);
    lwt_splitter_destroy(s);
    return st == LWT_OK ? 0 : -1;
}

static double worst_diff(double *const a[LWT_BAND_COUNT], double *const b[LWT_BAND_COUNT], size_t n)
{
    double w = 0;
    for (int k = 0; k < LWT_BAND_COUNT; k++)
        for (size_t i = 0; i < n; i++) {
            const double d = fabs(a[k][i] - b[k][i]);
            w = isnan(a[k][i]) != isnan(b[k][i]) ? INFINITY : d > w ? d : w;
        }
    return w;
}

static void one_case(lwt_context *ctx, double dx_um, double dy_um, size_t nx, size_t ny, lwt_dtype dt)
{
    const size_t n = nx * ny;
    double *z = malloc(n * sizeof *z), *cpu[LWT_BAND_COUNT], *one[LWT_BAND_COUNT], *got[LWT_BAND_COUNT];
    rough_surface(z, nx, ny);
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(z[i]));
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        cpu[b] = calloc(n, sizeof(double));
        one[b] = calloc(n, sizeof(double));
        got[b] = calloc(n, sizeof(double));
    }
    const lwt_band_request q = {.lambda_s = 6e-6, .lambda_c = 60e-6, .levels = 6};
    lwt_filter_spec spec = lwt_filter_spec_default();
    spec.dtype = dt;
    const double tol = dt == LWT_F32 ? 1e-5 : 1e-12;
    char name[96];
    snprintf(name, sizeof name, "%g x %g um, %zu x %zu, %s", dx_um, dy_um, nx, ny, dt == LWT_F32 ? "f32" : "f64");
    lwt_splitter_info info;
    if (lwt_bands_resolve_axes(ctx, &q, nx, ny, dx_um * 1e-6, dy_um * 1e-6, &spec.split, &spec.axes) != LWT_OK ||
        split(ctx, spec, LWT_BACKEND_CPU, LWT_SPLIT_ONE_CHUNK, z, nx, ny, cpu, &info, NULL) ||
        split(ctx, spec, LWT_BACKEND_CUDA, LWT_SPLIT_ONE_CHUNK, z, nx, ny, one, &info, NULL)) {
        CHECK(0, "%s: resolve or split failed", name);
        goto done;
    }
    cases++;
    const double dcpu = worst_diff(one, cpu, n);
    double dsum = 0;
    for (size_t i = 0; i < n; i++)
        dsum = fmax(dsum, fabs(one[0][i] + one[1][i] + one[2][i] + one[3][i] - z[i]));
    CHECK(dcpu <= tol * scale && dsum <= tol * scale, "%s: GPU vs CPU %.3g, sum %.3g of %.3g", name, dcpu, dsum,
          scale);
    printf("%s: levels x %d (%d-%d), y %d (%d-%d); GPU - CPU %.3g, sum - input %.3g (of %.3g)", name,
           spec.axes.levels[0], spec.axes.rough_lo[0], spec.axes.rough_hi[0], spec.axes.levels[1],
           spec.axes.rough_lo[1], spec.axes.rough_hi[1], dcpu, dsum, scale);
    const size_t rows[2] = {0, 128};
    for (int r = 0; r < 2; r++) {
        if (split(ctx, spec, LWT_BACKEND_CUDA, rows[r], z, nx, ny, got, &info, NULL)) {
            CHECK(0, "%s: chunks %zu failed", name, rows[r]);
            continue;
        }
        cases++;
        int same = 1;
        for (int b = 0; b < LWT_BAND_COUNT; b++)
            same &= !memcmp(one[b], got[b], n * sizeof(double));
        printf("; chunks %s: %d %s", rows[r] ? "128" : "auto", info.chunks, same ? "same bits" : "DIFFER");
        CHECK(same, "%s: %d chunks (%zu rows) differ from one chunk", name, info.chunks, rows[r]);
    }
    putchar('\n');
done:
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(cpu[b]);
        free(one[b]);
        free(got[b]);
    }
    free(z);
}

/* lwt_filter_run on both backends, with invalid points */
static void filter_case(lwt_context *ctx)
{
    const size_t nx = 700, ny = 513, n = nx * ny;
    double *z = malloc(n * sizeof *z);
    rough_surface(z, nx, ny);
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(z[i]));
    for (size_t i = 0; i < n; i += 97)
        z[i] = NAN;
    const lwt_band_request q = {.lambda_s = 4e-6, .lambda_c = 40e-6};
    lwt_filter_spec spec = lwt_filter_spec_default();
    lwt_filter_result r[2];
    memset(r, 0, sizeof r);
    int ok = lwt_bands_resolve_axes(ctx, &q, nx, ny, 2e-6, 1e-6, &spec.split, &spec.axes) == LWT_OK;
    for (int k = 0; k < 2 && ok; k++) {
        spec.backend = k ? LWT_BACKEND_CUDA : LWT_BACKEND_CPU;
        ok = lwt_filter_run(ctx, &spec, z, nx, ny, 2e-6, 1e-6, &r[k]) == LWT_OK;
    }
    CHECK(ok, "lwt_filter_run with invalid points failed");
    if (ok) {
        cases++;
        const double d = worst_diff(r[1].band, r[0].band, n);
        CHECK(d <= 1e-12 * scale && r[1].backend == LWT_BACKEND_CUDA, "lwt_filter_run: GPU - CPU %.3g", d);
        printf("lwt_filter_run 2 x 1 um, 700 x 513, NaN every 97th point: GPU - CPU %.3g (NaN where the CPU's)\n", d);
    }
    lwt_filter_result_free(&r[0]);
    lwt_filter_result_free(&r[1]);
    free(z);
}

static void timing(lwt_context *ctx)
{
    const size_t nx = 4096, ny = 4096, n = nx * ny;
    double *z = malloc(n * sizeof *z);
    rough_surface(z, nx, ny);
    const lwt_band_request q = {.lambda_s = 8e-6, .lambda_c = 250e-6, .levels = 8};
    const double dy[2] = {1.0, 2.46};
    for (int k = 0; k < 2; k++) {
        lwt_filter_spec spec = lwt_filter_spec_default();
        spec.dtype = LWT_F32;
        lwt_splitter_info info;
        double ms = 0;
        double *none[LWT_BAND_COUNT] = {NULL, NULL, NULL, NULL};
        if (lwt_bands_resolve_axes(ctx, &q, nx, ny, 1e-6, dy[k] * 1e-6, &spec.split, &spec.axes) == LWT_OK &&
            split(ctx, spec, LWT_BACKEND_CUDA, 0, z, nx, ny, none, &info, &ms) == 0)
            printf("time: 4096^2 float32, 1 x %g um, %d chunks: %.1f ms per split (host buffers, pageable)\n", dy[k],
                   info.chunks, ms);
    }
    free(z);
}

int main(int argc, char **argv)
{
    lwt_context *ctx;
    lwt_context_create(&ctx);
    lwt_context_set_log(ctx, log_fn, NULL);
    if (lwt_context_device_count(ctx) < 1) {
        printf("test_gpu_axes: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    const double sp[3][2] = {{1, 2.46}, {2, 1}, {1, 4}};
    for (int s = 0; s < 3; s++)
        for (int dt = 0; dt < 2; dt++)
            one_case(ctx, sp[s][0], sp[s][1], s == 1 ? 511 : 1000, s == 1 ? 1201 : 777, dt ? LWT_F64 : LWT_F32);
    filter_case(ctx);
    if (!(argc > 1 && !strcmp(argv[1], "--no-time")))
        timing(ctx);
    lwt_context_destroy(ctx);
    printf("test_gpu_axes: %d cases\n", cases);
    return finish("test_gpu_axes");
}
