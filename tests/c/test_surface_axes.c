/*
 * test_surface_axes.c - levels per axis for anisotropic spacing (lwt_bands_resolve_axes,
 * src/surface/bands_axes.c, src/stream/split_steps.c), on the CPU:
 *
 *   [resolve]   per-axis levels and effective cutoffs for spacings 1 x 2, 1 x 4, 2 x 1 and
 *               1 x 2.46 um: each cutoff within sqrt(2) of the request along both axes (the
 *               wavelength itself, not a level number copied from the code); equal spacings give
 *               lwt_bands_resolve's split and the same levels on both axes; the size rule per axis;
 *   [bands]     sinusoids along x and along y at known wavelengths land in the band their
 *               wavelength along their own axis names (>= 90 % of their energy away from the
 *               border), and the same surface split with the levels of the smaller spacing on both
 *               axes (the former behaviour) puts the y sinusoids elsewhere;
 *   [sum]       the bands add up to the input (1e-12 of its range in float64, 1e-5 in float32);
 *   [exact]     bit-identical bands for 1 and 3 threads, and (float32) for one chunk and chunks of
 *               64 and 96 rows (y finer and x finer);
 *   [isotropic] axes from lwt_bands_resolve_axes with dx = dy give the 2-D plan's bands bit for bit;
 *   [errors]    inconsistent axes and a too-small coarse axis: a status and one clear message.
 */
#include "check.h"
#include "rough_surface.h"
#include "test_log.h"
#include "surface/bands.h"
#include "surface/split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static lwt_context *ctx;
static test_log tlog;

static lwt_band_request request(double lambda_s, double lambda_c, int levels)
{
    const lwt_band_request q = {.levels = levels, .lambda_s = lambda_s, .lambda_c = lambda_c};
    return q;
}

/* within a factor sqrt(2) (plus rounding) of the asked wavelength */
static int near_octave(double eff, double asked)
{
    return eff <= asked * sqrt(2.0) * (1 + 1e-12) && eff >= asked / sqrt(2.0) * (1 - 1e-12);
}

static void test_resolve(void)
{
    static const double spacings[][2] = {{1, 2}, {1, 4}, {2, 1}, {0.128, 0.315}, {1, 2.46}};
    for (size_t i = 0; i < sizeof spacings / sizeof *spacings; i++) {
        const double dx = spacings[i][0] * 1e-6, dy = spacings[i][1] * 1e-6;
        const double ls = 25e-6, lc = 800e-6;
        lwt_band_request q = request(ls, lc, 0);
        lwt_band_split s;
        lwt_band_axes a;
        test_log_reset(&tlog);
        CHECK(lwt_bands_resolve_axes(ctx, &q, 65536, 65536, dx, dy, &s, &a) == LWT_OK, "resolve %g x %g: %s",
              dx * 1e6, dy * 1e6, tlog.last);
        for (int k = 0; k < 2; k++) {
            CHECK(near_octave(s.lambda_s[k], ls), "%g x %g um: lambda-s along %c is %g um for 25 um", dx * 1e6,
                  dy * 1e6, "xy"[k], s.lambda_s[k] * 1e6);
            CHECK(near_octave(s.lambda_c[k], lc), "%g x %g um: lambda-c along %c is %g um for 800 um", dx * 1e6,
                  dy * 1e6, "xy"[k], s.lambda_c[k] * 1e6);
            /* the cutoffs are the axis's level boundaries: 2^A dk, 2^(B+1) dk */
            const double d = k ? dy : dx;
            CHECK(s.lambda_s[k] == ldexp(d, a.rough_lo[k]) && s.lambda_c[k] == ldexp(d, a.rough_hi[k] + 1) &&
                      s.lambda_f[k] == ldexp(d, a.levels[k] + 1),
                  "%g x %g um: cutoffs along %c are not the axis's level boundaries", dx * 1e6, dy * 1e6, "xy"[k]);
        }
        /* lambda-f: the finer axis's 2^(J+1) d, within sqrt(2) along the other */
        const int fine = dx <= dy ? 0 : 1;
        CHECK(near_octave(s.lambda_f[1 - fine], s.lambda_f[fine]), "%g x %g um: lambda-f %g / %g um", dx * 1e6,
              dy * 1e6, s.lambda_f[0] * 1e6, s.lambda_f[1] * 1e6);
    }
    /* equal spacings: lwt_bands_resolve's split, its levels on both axes */
    lwt_band_request q = request(8e-6, 100e-6, 7);
    lwt_band_split iso, s;
    lwt_band_axes a;
    CHECK(lwt_bands_resolve(ctx, &q, 512, 300, 1e-6, 1e-6, &iso) == LWT_OK, "isotropic resolve");
    CHECK(lwt_bands_resolve_axes(ctx, &q, 512, 300, 1e-6, 1e-6, &s, &a) == LWT_OK, "isotropic resolve_axes");
    CHECK(!memcmp(&iso, &s, sizeof s), "equal spacings: the split differs from lwt_bands_resolve's");
    CHECK(a.levels[0] == iso.levels && a.levels[1] == iso.levels && a.rough_lo[0] == iso.rough_lo &&
              a.rough_lo[1] == iso.rough_lo && a.rough_hi[0] == iso.rough_hi && a.rough_hi[1] == iso.rough_hi,
          "equal spacings: axes differ from the split's levels");
    /* the size rule per axis: 8 levels of 1 um reach 512 um, 6 levels of 4 um along y, which need
       2^7 = 128 rows (the x levels need 512 columns); 64 rows hold 5 y levels: --levels 7 */
    q = request(0, 0, 8);
    test_log_reset(&tlog);
    CHECK(lwt_bands_resolve_axes(ctx, &q, 512, 128, 1e-6, 4e-6, &s, &a) == LWT_OK, "512 x 128 at 1 x 4 um: %s",
          tlog.last);
    CHECK(a.levels[0] == 8 && a.levels[1] == 6, "512 x 128 at 1 x 4 um: %d / %d levels", a.levels[0], a.levels[1]);
    CHECK(lwt_bands_resolve(ctx, &q, 512, 128, 1e-6, 4e-6, &s) == LWT_ERR_INVALID_ARGUMENT,
          "the isotropic rule should refuse 8 levels on 128 rows");
    test_log_reset(&tlog);
    CHECK(lwt_bands_resolve_axes(ctx, &q, 512, 64, 1e-6, 4e-6, &s, &a) == LWT_ERR_INVALID_ARGUMENT &&
              tlog.errors == 1 && strstr(tlog.last, "64 points along y") && strstr(tlog.last, "--levels 7"),
          "512 x 64 at 1 x 4 um: %s", tlog.last);
}

/* ------------------------------------------------------------ splits */

/* split z (double) with spec into bands (nx x ny doubles each); 0 on success */
static int split(const lwt_filter_spec *spec, const double *z, size_t nx, size_t ny, double *band[LWT_BAND_COUNT],
                 int *nbands)
{
    lwt_splitter *s = NULL;
    test_log_reset(&tlog);
    if (lwt_splitter_create(ctx, spec, nx, ny, &s) != LWT_OK) {
        fprintf(stderr, "splitter: %s\n", tlog.last);
        return -1;
    }
    lwt_splitter_info info;
    lwt_splitter_get_info(s, &info);
    *nbands = info.nbands;
    const size_t n = nx * ny, es = spec->dtype == LWT_F32 ? sizeof(float) : sizeof(double);
    void *in = malloc(n * es), *out[LWT_BAND_COUNT] = {NULL, NULL, NULL, NULL};
    for (size_t i = 0; i < n; i++)
        if (spec->dtype == LWT_F32)
            ((float *)in)[i] = (float)z[i];
        else
            ((double *)in)[i] = z[i];
    for (int b = 0; b < info.nbands; b++)
        out[b] = malloc(n * es);
    int rc = lwt_splitter_run(s, in, out, NULL) == LWT_OK ? 0 : -1;
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        if (!band[b])
            continue;
        for (size_t i = 0; i < n; i++)
            band[b][i] = b >= info.nbands ? 0 : spec->dtype == LWT_F32 ? ((float *)out[b])[i] : ((double *)out[b])[i];
    }
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        free(out[b]);
    free(in);
    lwt_splitter_destroy(s);
    return rc;
}

static lwt_filter_spec spec_for(const lwt_band_request *q, size_t nx, size_t ny, double dx, double dy, int per_axis)
{
    lwt_filter_spec spec = lwt_filter_spec_default();
    spec.backend = LWT_BACKEND_CPU;
    spec.chunk_rows = LWT_SPLIT_ONE_CHUNK;
    test_log_reset(&tlog);
    int r = per_axis ? lwt_bands_resolve_axes(ctx, q, nx, ny, dx, dy, &spec.split, &spec.axes)
                     : lwt_bands_resolve(ctx, q, nx, ny, dx, dy, &spec.split);
    CHECK(r == LWT_OK, "resolve %g x %g: %s", dx * 1e6, dy * 1e6, tlog.last);
    return spec;
}

/* One sinusoid along x (axis 1) or y (axis 0), wavelength lambda (metres): the fraction of the
 * bands' energy in `expect`, away from the border (margins of half a wavelength, at most a quarter of the field). */
static double band_share(const lwt_filter_spec *spec, size_t nx, size_t ny, double dx, double dy, int along_y,
                         double lambda, int expect)
{
    const size_t n = nx * ny;
    double *z = malloc(n * sizeof *z), *band[LWT_BAND_COUNT];
    for (size_t r = 0; r < ny; r++)
        for (size_t c = 0; c < nx; c++)
            z[r * nx + c] = sin(2 * 3.14159265358979323846 * (along_y ? (double)r * dy : (double)c * dx) / lambda + 0.3);
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        band[b] = calloc(n, sizeof(double));
    int nb = 0;
    double share = -1;
    if (split(spec, z, nx, ny, band, &nb) == 0) {
        size_t mx = along_y ? 0 : (size_t)(lambda / dx / 2), my = along_y ? (size_t)(lambda / dy / 2) : 0;
        mx = mx < nx / 4 ? mx : nx / 4;
        my = my < ny / 4 ? my : ny / 4;
        double e[LWT_BAND_COUNT] = {0, 0, 0, 0}, all = 0;
        for (size_t r = my; r + my < ny; r++)
            for (size_t c = mx; c + mx < nx; c++)
                for (int b = 0; b < nb; b++)
                    e[b] += band[b][r * nx + c] * band[b][r * nx + c];
        for (int b = 0; b < nb; b++)
            all += e[b];
        share = e[expect] / all;
    }
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        free(band[b]);
    free(z);
    return share;
}

static void test_bands(void)
{
    /* 1 x 4 um, lambda-s 8 um, lambda-c 128 um, 8 levels (lambda-f 512 um): along x roughness
       levels 3-6, along y 1-4 (8 um is the y Nyquist wavelength: no noise along y) */
    const size_t nx = 512, ny = 512;
    const double dx = 1e-6, dy = 4e-6;
    lwt_band_request q = request(8e-6, 128e-6, 8);
    lwt_filter_spec per = spec_for(&q, nx, ny, dx, dy, 1), iso = spec_for(&q, nx, ny, dx, dy, 0);
    static const struct {
        int along_y;
        double lambda_um;
        int band, band_iso; /* where it belongs; where levels of the smaller spacing on both axes put it */
    } cases[] = {
        {0, 3.2, LWT_BAND_NOISE, LWT_BAND_NOISE},        {0, 32, LWT_BAND_ROUGHNESS, LWT_BAND_ROUGHNESS},
        {0, 256, LWT_BAND_WAVINESS, LWT_BAND_WAVINESS},  {1, 24, LWT_BAND_ROUGHNESS, LWT_BAND_NOISE},
        {1, 256, LWT_BAND_WAVINESS, LWT_BAND_ROUGHNESS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const double lam = cases[i].lambda_um * 1e-6;
        const double share = band_share(&per, nx, ny, dx, dy, cases[i].along_y, lam, cases[i].band);
        CHECK(share >= 0.9, "1 x 4 um: a %g um sinusoid along %c has %.3f of its energy in the %s band", cases[i].lambda_um,
              "xy"[cases[i].along_y], share, lwt_filter_band_name(cases[i].band));
        const double old = band_share(&iso, nx, ny, dx, dy, cases[i].along_y, lam, cases[i].band_iso);
        CHECK(old >= 0.5, "1 x 4 um, levels of the smaller spacing: a %g um sinusoid along %c has %.3f in the %s band",
              cases[i].lambda_um, "xy"[cases[i].along_y], old, lwt_filter_band_name(cases[i].band_iso));
    }
    /* 2 x 1 um (y finer): the same wavelengths swap roles */
    lwt_filter_spec yf = spec_for(&q, 256, 1024, 2e-6, 1e-6, 1);
    CHECK(band_share(&yf, 256, 1024, 2e-6, 1e-6, 1, 32e-6, LWT_BAND_ROUGHNESS) >= 0.9, "2 x 1 um: 32 um along y");
    CHECK(band_share(&yf, 256, 1024, 2e-6, 1e-6, 0, 48e-6, LWT_BAND_ROUGHNESS) >= 0.9, "2 x 1 um: 48 um along x");
    CHECK(band_share(&yf, 256, 1024, 2e-6, 1e-6, 0, 256e-6, LWT_BAND_WAVINESS) >= 0.9, "2 x 1 um: 256 um along x");
}

static int same_bits(double *const a[LWT_BAND_COUNT], double *const b[LWT_BAND_COUNT], size_t n)
{
    for (int k = 0; k < LWT_BAND_COUNT; k++)
        if (memcmp(a[k], b[k], n * sizeof(double)))
            return 0;
    return 1;
}

static void test_sum_exact(void)
{
    static const double spacings[][2] = {{1, 2}, {1, 4}, {2, 1}, {1, 2.46}};
    const size_t nx = 96, ny = 1024;
    const size_t n = nx * ny;
    double *z = malloc(n * sizeof *z), *ref[LWT_BAND_COUNT], *got[LWT_BAND_COUNT];
    rough_surface(z, nx, ny);
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        ref[b] = calloc(n, sizeof(double));
        got[b] = calloc(n, sizeof(double));
    }
    for (size_t i = 0; i < sizeof spacings / sizeof *spacings; i++)
        for (int dt = 0; dt < 2; dt++) {
            const double dx = spacings[i][0] * 1e-6, dy = spacings[i][1] * 1e-6;
            lwt_band_request q = request(6e-6, 40e-6, 5);
            lwt_filter_spec spec = spec_for(&q, nx, ny, dx, dy, 1);
            spec.dtype = dt ? LWT_F64 : LWT_F32;
            spec.threads = 1;
            int nb = 0;
            if (split(&spec, z, nx, ny, ref, &nb)) {
                CHECK(0, "%g x %g: split failed", spacings[i][0], spacings[i][1]);
                continue;
            }
            CHECK(nb == 4, "%g x %g: %d bands, expected a noise band", spacings[i][0], spacings[i][1], nb);
            double worst = 0, range = 0;
            for (size_t k = 0; k < n; k++) {
                const double sum = ref[0][k] + ref[1][k] + ref[2][k] + ref[3][k];
                worst = fmax(worst, fabs(sum - z[k]));
                range = fmax(range, fabs(z[k]));
            }
            CHECK(worst <= (dt ? 1e-12 : 1e-5) * range, "%g x %g %s: bands add up to the input within %.3g of %.3g",
                  spacings[i][0], spacings[i][1], dt ? "f64" : "f32", worst, range);
            /* threads and chunks: the same bits */
            spec.threads = 3;
            CHECK(split(&spec, z, nx, ny, got, &nb) == 0 && same_bits(ref, got, n), "%g x %g %s: 3 threads differ",
                  spacings[i][0], spacings[i][1], dt ? "f64" : "f32");
            /* chunks in float32 (float64 runs the filter bank for CDF 9/7, whose halos at 5 levels
               of 1 um span these 1024 rows: one chunk) */
            const size_t rows[] = {64, 96};
            for (int c = 0; c < 2 && !dt; c++) {
                spec.chunk_rows = rows[c];
                lwt_splitter *s = NULL;
                lwt_splitter_info info = {0};
                if (lwt_splitter_create(ctx, &spec, nx, ny, &s) == LWT_OK)
                    lwt_splitter_get_info(s, &info);
                lwt_splitter_destroy(s);
                CHECK(info.chunks > 1, "%g x %g: chunks of %zu rows gave %d chunks", spacings[i][0], spacings[i][1],
                      rows[c], info.chunks);
                CHECK(split(&spec, z, nx, ny, got, &nb) == 0 && same_bits(ref, got, n),
                      "%g x %g %s: chunks of %zu rows differ from one chunk", spacings[i][0], spacings[i][1],
                      dt ? "f64" : "f32", rows[c]);
            }
        }
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(ref[b]);
        free(got[b]);
    }
    free(z);
}

static void test_isotropic(void)
{
    const size_t nx = 200, ny = 150, n = nx * ny;
    double *z = malloc(n * sizeof *z), *ref[LWT_BAND_COUNT], *got[LWT_BAND_COUNT];
    rough_surface(z, nx, ny);
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        ref[b] = calloc(n, sizeof(double));
        got[b] = calloc(n, sizeof(double));
    }
    lwt_band_request q = request(4e-6, 30e-6, 5);
    for (int dt = 0; dt < 2; dt++) {
        lwt_filter_spec plain = spec_for(&q, nx, ny, 1e-6, 1e-6, 0), axes = spec_for(&q, nx, ny, 1e-6, 1e-6, 1);
        plain.dtype = axes.dtype = dt ? LWT_F64 : LWT_F32;
        CHECK(axes.axes.levels[0] == 5 && axes.axes.levels[1] == 5, "isotropic axes: %d / %d levels",
              axes.axes.levels[0], axes.axes.levels[1]);
        int nb = 0;
        CHECK(split(&plain, z, nx, ny, ref, &nb) == 0 && split(&axes, z, nx, ny, got, &nb) == 0 &&
                  same_bits(ref, got, n),
              "isotropic %s: axes from lwt_bands_resolve_axes change the bands", dt ? "f64" : "f32");
    }
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(ref[b]);
        free(got[b]);
    }
    free(z);
}

static void test_errors(void)
{
    lwt_band_request q = request(0, 0, 4);
    lwt_filter_spec spec = spec_for(&q, 64, 64, 1e-6, 2e-6, 1);
    spec.axes.rough_hi[1] = spec.axes.levels[1] + 1;
    lwt_splitter *s = NULL;
    test_log_reset(&tlog);
    CHECK(lwt_splitter_create(ctx, &spec, 64, 64, &s) == LWT_ERR_INVALID_ARGUMENT && !s && tlog.errors == 1 &&
              strstr(tlog.last, "along y"),
          "inconsistent axes: %s", tlog.last);
    lwt_band_split sp;
    CHECK(lwt_bands_resolve_axes(ctx, &q, 64, 64, 1e-6, 2e-6, &sp, NULL) == LWT_ERR_INVALID_ARGUMENT,
          "no axes to fill");
}

int main(void)
{
    ctx = test_log_context(&tlog);
    test_resolve();
    test_bands();
    test_sum_exact();
    test_isotropic();
    test_errors();
    lwt_context_destroy(ctx);
    return finish("test_surface_axes");
}
