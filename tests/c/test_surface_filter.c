/*
 * test_surface_filter.c - the band split (src/surface/bands.h, fill.h, filter.h, synth.h):
 * level/cutoff mapping and its errors, harmonic filling, form + waviness + roughness (+ noise)
 * = input, invalid points NaN in every band, float32 path, determinism of synthetic surfaces.
 */
#include "check.h"
#include "test_log.h"
#include "surface/bands.h"
#include "surface/fill.h"
#include "surface/filter.h"
#include "surface/synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* every context of this test logs here */
static test_log tlog;

/* lwt_bands_resolve with its message in err (300 bytes): one logged line on failure, none else */
static int resolve(lwt_band_request r, size_t nx, size_t ny, double dx, double dy, lwt_band_split *s, char *err)
{
    lwt_context *ctx = test_log_context(&tlog);
    lwt_status st = lwt_bands_resolve(ctx, &r, nx, ny, dx, dy, s);
    snprintf(err, 300, "%.299s", tlog.last);
    CHECK(tlog.errors == (st != LWT_OK), "resolve: status %d with %d messages", (int)st, tlog.errors);
    lwt_context_destroy(ctx);
    return st;
}

static void test_bands(void)
{
    lwt_band_split s;
    char err[300];
    lwt_band_request r = {0};
    CHECK(resolve(r, 512, 512, 1e-6, 1e-6, &s, err) == 0, "default: %s", err);
    CHECK(s.levels == 6 && s.noise_hi == 0 && s.rough_lo == 1 && s.rough_hi == 3 && s.wavy_lo == 4 && s.wavy_hi == 6,
          "default split J%d n%d r%d-%d w%d-%d", s.levels, s.noise_hi, s.rough_lo, s.rough_hi, s.wavy_lo, s.wavy_hi);
    CHECK(close_to(s.lambda_s[0], 2e-6, 1e-12) && close_to(s.lambda_c[0], 16e-6, 1e-12) &&
              close_to(s.lambda_f[1], 128e-6, 1e-12),
          "default cutoffs %g %g %g", s.lambda_s[0], s.lambda_c[0], s.lambda_f[1]);
    /* cutoffs: lambda-s 8 um -> boundary 2^3 (noise 1-2), lambda-c 60 um -> 2^6 = 64 (roughness 3-5) */
    r.lambda_s = 8e-6;
    r.lambda_c = 60e-6;
    CHECK(resolve(r, 1024, 1024, 1e-6, 1e-6, &s, err) == 0, "cutoffs: %s", err);
    CHECK(s.levels == 6 && s.noise_hi == 2 && s.rough_lo == 3 && s.rough_hi == 5 && s.wavy_lo == 6,
          "cutoffs split n%d r%d-%d w%d-%d", s.noise_hi, s.rough_lo, s.rough_hi, s.wavy_lo, s.wavy_hi);
    CHECK(close_to(s.lambda_s[0], 8e-6, 1e-12) && close_to(s.lambda_c[0], 64e-6, 1e-12), "effective %g %g",
          s.lambda_s[0], s.lambda_c[0]);
    /* lambda-c 800 um at 1 um: boundary 2^10, so J grows to 10 */
    r.lambda_s = 0;
    r.lambda_c = 800e-6;
    CHECK(resolve(r, 4096, 4096, 1e-6, 1e-6, &s, err) == 0 && s.levels == 10 && s.rough_hi == 9 && s.wavy_lo == 10,
          "lambda-c 800: J%d r-%d (%s)", s.levels, s.rough_hi, err);
    /* anisotropic spacing: levels from the smaller spacing, cutoffs per axis */
    r.lambda_c = 16e-6;
    CHECK(resolve(r, 512, 512, 0.5e-6, 2e-6, &s, err) == 0 && s.rough_hi == 4 && s.spacing == 0.5e-6 &&
              close_to(s.lambda_c[0], 16e-6, 1e-12) && close_to(s.lambda_c[1], 64e-6, 1e-12),
          "anisotropic: r-%d lc %g %g (%s)", s.rough_hi, s.lambda_c[0], s.lambda_c[1], err);
    /* level numbers */
    lwt_band_request q = {0};
    q.levels = 5;
    q.rough_lo = 2;
    q.rough_hi = 3;
    CHECK(resolve(q, 256, 256, 1e-6, 1e-6, &s, err) == 0 && s.noise_hi == 1 && s.wavy_lo == 4 && s.wavy_hi == 5,
          "levels 5, roughness 2-3 (%s)", err);
    q = (lwt_band_request){0};
    q.wavy_lo = 3;
    q.wavy_hi = 7;
    CHECK(resolve(q, 512, 512, 1e-6, 1e-6, &s, err) == 0 && s.levels == 7 && s.rough_hi == 2,
          "waviness 3-7 gives J 7 and roughness 1-2 (%s)", err);
    /* inconsistent requests fail with a reason */
    q.levels = 6;
    CHECK(resolve(q, 512, 512, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "must end at the last level"),
          "waviness beyond J: '%s'", err);
    q = (lwt_band_request){0};
    q.rough_lo = 1;
    q.rough_hi = 3;
    q.wavy_lo = 5;
    q.wavy_hi = 6;
    CHECK(resolve(q, 512, 512, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "right after"), "gap: '%s'", err);
    q.wavy_lo = 4;
    q.lambda_c = 16e-6;
    CHECK(resolve(q, 512, 512, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "not both"), "levels and cutoffs: '%s'",
          err);
    q = (lwt_band_request){0};
    q.lambda_s = 20e-6;
    q.lambda_c = 10e-6;
    CHECK(resolve(q, 512, 512, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "shorter than"), "ls > lc: '%s'", err);
    q.lambda_s = 10e-6;
    q.lambda_c = 11e-6;
    CHECK(resolve(q, 512, 512, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "same level boundary"), "ls ~ lc: '%s'",
          err);
    /* too small: 6 levels need 128 points along each axis */
    q = (lwt_band_request){0};
    CHECK(resolve(q, 500, 100, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "too small for 6 levels") &&
              strstr(err, "--levels 5"),
          "too small: '%s'", err);
    CHECK(resolve(q, 4, 4, 1e-6, 1e-6, &s, err) != 0 && strstr(err, "too small"), "4x4: '%s'", err);
    q.levels = 1;
    CHECK(resolve(q, 4, 4, 1e-6, 1e-6, &s, err) == 0 && s.rough_hi == 1 && s.wavy_lo == 2 && s.wavy_hi == 1,
          "4x4 with one level: roughness 1, empty waviness (%s)", err);
}

static void test_fill(void)
{
    /* a tilted plane with holes (one touching the border) is filled back to the plane */
    const size_t nx = 200, ny = 150;
    double *z = malloc(nx * ny * sizeof *z), *ref = malloc(nx * ny * sizeof *z);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            ref[j * nx + i] = 1e-6 * (0.3 * (double)i - 0.2 * (double)j + 5);
            double r1 = hypot((double)i - 60, (double)j - 70), r2 = hypot((double)i - 190, (double)j - 20);
            z[j * nx + i] = (r1 < 25 || r2 < 15 || (i % 7 == 3 && j % 5 == 1)) ? NAN : ref[j * nx + i];
        }
    size_t nbad = 0, filled = 0;
    for (size_t i = 0; i < nx * ny; i++)
        nbad += !isfinite(z[i]);
    CHECK(lwt_fill_invalid(z, nx, ny, &filled) == 0 && filled == nbad, "fill: %zu of %zu", filled, nbad);
    /* a plane is harmonic: inner holes get it back; at the field border the fill has zero
       slope across the border, so a hole there flattens towards it (bounded by slope x size) */
    double err_in = 0, err_border = 0;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            double e = fabs(z[j * nx + i] - ref[j * nx + i]);
            if (i > 160)
                err_border = fmax(err_border, e);
            else
                err_in = fmax(err_in, e);
        }
    CHECK(err_in < 1e-9, "filled plane deviates by %g m in inner holes", err_in);
    CHECK(err_border < 0.36e-6 * 15, "filled plane deviates by %g m in a border hole", err_border);
    /* all invalid: refused, untouched */
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = NAN;
    CHECK(lwt_fill_invalid(z, nx, ny, &filled) == -2 && isnan(z[0]), "all invalid");
    /* one valid point: everything becomes its value */
    z[777] = 3e-6;
    CHECK(lwt_fill_invalid(z, nx, ny, &filled) == 0 && z[0] == 3e-6 && z[nx * ny - 1] == 3e-6, "one valid point");
    free(z);
    free(ref);
}

/* form + waviness + roughness (+ noise) == input on valid points; NaN where invalid */
static void check_split(lwt_context *ctx, const double *z, size_t nx, size_t ny, lwt_band_request req, lwt_dtype dt,
                        double tol, const char *what)
{
    lwt_band_split s;
    char err[300];
    if (resolve(req, nx, ny, 1e-6, 1e-6, &s, err)) {
        CHECK(0, "%s: resolve: %s", what, err);
        return;
    }
    lwt_filter_spec spec = lwt_filter_spec_default();
    spec.split = s;
    spec.dtype = dt;
    lwt_filter_result r;
    test_log_reset(&tlog);
    lwt_status st = lwt_filter_run(ctx, &spec, z, nx, ny, 1e-6, 1e-6, &r);
    CHECK(st == LWT_OK, "%s: filter: %s", what, tlog.last);
    if (st != LWT_OK)
        return;
    CHECK((r.band[LWT_BAND_NOISE] != NULL) == (s.noise_hi > 0), "%s: noise band presence", what);
    double worst = 0, scale = 0;
    int nan_ok = 1;
    for (size_t i = 0; i < nx * ny; i++) {
        double sum = 0;
        for (int b = 0; b < LWT_BAND_COUNT; b++)
            if (r.band[b])
                sum += r.band[b][i];
        if (!isfinite(z[i])) {
            nan_ok &= isnan(sum);
            continue;
        }
        worst = fmax(worst, fabs(sum - z[i]));
        scale = fmax(scale, fabs(z[i]));
    }
    CHECK(nan_ok, "%s: invalid points are not NaN in every band", what);
    CHECK(worst <= tol * scale, "%s: |form + waviness + roughness - input| = %g (scale %g)", what, worst, scale);
    lwt_filter_result_free(&r);
}

static void test_filter(lwt_context *ctx)
{
    lwt_synth_desc d;
    lwt_synth_preset("milled", 300, 260, 1e-6, 1e-6, 7, &d);
    d.invalid_fraction = 0.03;
    double *z = malloc(300 * 260 * sizeof *z);
    CHECK(lwt_synth_generate(&d, z, NULL, NULL, NULL) == 0, "synth");
    lwt_band_request req = {0};
    check_split(ctx, z, 300, 260, req, LWT_F64, 1e-12, "default f64");
    req.lambda_s = 4e-6;
    check_split(ctx, z, 300, 260, req, LWT_F64, 1e-12, "with noise band");
    req.lambda_s = 0;
    req.levels = 5;
    req.rough_lo = 1;
    req.rough_hi = 5; /* empty waviness */
    check_split(ctx, z, 300, 260, req, LWT_F64, 1e-12, "empty waviness");
    req = (lwt_band_request){0};
    check_split(ctx, z, 300, 260, req, LWT_F32, 3e-6, "default f32");
    /* bad requests */
    lwt_filter_spec spec = lwt_filter_spec_default();
    lwt_filter_result r;
    const char *err = tlog.last; /* each failure's one message */
    test_log_reset(&tlog);
    CHECK(lwt_filter_run(ctx, &spec, z, 300, 260, 1e-6, 1e-6, &r) == LWT_ERR_INVALID_ARGUMENT && tlog.errors == 1,
          "unresolved split accepted (%d messages)", tlog.errors);
    lwt_bands_resolve(ctx, &req, 300, 260, 1e-6, 1e-6, &spec.split);
    spec.wavelet = "nosuch";
    test_log_reset(&tlog);
    CHECK(lwt_filter_run(ctx, &spec, z, 300, 260, 1e-6, 1e-6, &r) == LWT_ERR_UNKNOWN_WAVELET &&
              strstr(err, "nosuch") && !r.band[0] && tlog.errors == 1,
          "unknown wavelet: '%s' (%d messages)", err, tlog.errors);
    spec.wavelet = NULL;
    /* no context: the same results, the messages dropped */
    lwt_filter_result rn;
    CHECK(lwt_filter_run(NULL, &spec, z, 300, 260, 1e-6, 1e-6, &rn) == LWT_OK && rn.band[LWT_BAND_ROUGHNESS],
          "filter without a context failed");
    lwt_filter_result_free(&rn);
    spec.wavelet = "nosuch";
    CHECK(lwt_filter_run(NULL, &spec, z, 300, 260, 1e-6, 1e-6, &rn) == LWT_ERR_UNKNOWN_WAVELET && !rn.band[0],
          "unknown wavelet without a context");
    spec.wavelet = NULL;
    /* a spec from an unknown (future or garbage) version of the struct is refused */
    lwt_filter_spec bad = spec;
    bad.size = sizeof bad + 8;
    test_log_reset(&tlog);
    CHECK(lwt_filter_run(ctx, &bad, z, 300, 260, 1e-6, 1e-6, &r) == LWT_ERR_INVALID_ARGUMENT &&
              strstr(err, "lwt_filter_spec.size") && tlog.errors == 1,
          "spec size %zu: '%s'", bad.size, err);
    bad.size = 0;
    CHECK(lwt_filter_run(ctx, &bad, z, 300, 260, 1e-6, 1e-6, &r) == LWT_ERR_INVALID_ARGUMENT, "spec size 0 accepted");
    for (size_t i = 0; i < 300 * 260; i++)
        z[i] = NAN;
    test_log_reset(&tlog);
    CHECK(lwt_filter_run(ctx, &spec, z, 300, 260, 1e-6, 1e-6, &r) != LWT_OK && strstr(err, "all points are invalid") &&
              tlog.errors == 1,
          "all invalid: '%s' (%d messages)", err, tlog.errors);
    free(z);
}

static void test_synth(void)
{
    lwt_synth_desc d;
    CHECK(lwt_synth_preset("nosuch", 8, 8, 1e-6, 1e-6, 1, &d) == -1, "unknown preset");
    CHECK(lwt_synth_preset("ground", 200, 120, 1e-6, 2e-6, 3, &d) == 0, "ground preset");
    d.invalid_fraction = 0.05;
    size_t n = 200 * 120;
    double *a[4], *b[4];
    for (int k = 0; k < 4; k++) {
        a[k] = malloc(n * sizeof(double));
        b[k] = malloc(n * sizeof(double));
    }
    d.threads = 1;
    CHECK(lwt_synth_generate(&d, a[0], a[1], a[2], a[3]) == 0, "generate");
    d.threads = 3;
    CHECK(lwt_synth_generate(&d, b[0], b[1], b[2], b[3]) == 0, "generate");
    int same = 1, sum_ok = 1;
    size_t nbad = 0;
    for (int k = 0; k < 4; k++)
        same &= !memcmp(a[k], b[k], n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[0][i])) {
            nbad++;
            sum_ok &= isnan(a[1][i]) && isnan(a[2][i]) && isnan(a[3][i]);
        } else {
            sum_ok &= a[0][i] == a[1][i] + a[2][i] + a[3][i];
        }
    }
    CHECK(same, "synthetic surface depends on the thread count");
    CHECK(sum_ok, "total is not form + waviness + roughness, or NaN not shared");
    CHECK(nbad > n * 0.04 && nbad < n * 0.06, "invalid fraction %zu of %zu", nbad, n);
    d.seed = 4;
    CHECK(lwt_synth_generate(&d, b[0], NULL, NULL, NULL) == 0 && memcmp(a[0], b[0], n * sizeof(double)),
          "another seed gives the same surface");
    d.dx = 0;
    CHECK(lwt_synth_generate(&d, b[0], NULL, NULL, NULL) == -1, "bad spacing accepted");
    for (int k = 0; k < 4; k++) {
        free(a[k]);
        free(b[k]);
    }
}

int main(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    test_bands();
    test_fill();
    test_filter(ctx);
    test_synth();
    lwt_context_destroy(ctx);
    return finish("test_surface_filter");
}
