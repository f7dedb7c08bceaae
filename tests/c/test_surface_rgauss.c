/*
 * test_surface_rgauss.c - the robust Gaussian regression filter (src/surface/gauss_robust.c):
 * the linear second-order regression (no reweighting) against a brute-force weighted least
 * squares fit written here from the definition (interior, corner, next to holes); a quadratic
 * surface (and a plane) reproduced everywhere, border and holes included, where the linear
 * Gaussian is not; a plateau with deep narrow valleys whose robust mean surface stays on the
 * plateau while the linear Gaussian's sinks; a surface without outliers where the robust result
 * stays near the plain regression; convergence; thread counts (bits); the cascade of
 * lwt_filter_run with LWT_FILTER_ROBUST_GAUSSIAN.
 */
#include "check.h"
#include "test_log.h"
#include "lwt_surface.h"
#include "surface/gauss.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static test_log tlog;

static const double PI = 3.14159265358979323846;

/* The fitted value at (ix, iy) of the weighted quadratic fit, brute force: every valid point of
   the window |k| <= floor(1.5 lc / dx), |l| <= floor(1.5 lc / dy) weighted by
   exp(-pi ((k dx)^2 + (l dy)^2) / (0.7309134 lc)^2); normal equations in (u, v) = offsets / lc,
   solved by Gaussian elimination with partial pivoting. */
static double brute_fit(const double *z, size_t nx, size_t ny, double dx, double dy, double lc, size_t ix,
                        size_t iy)
{
    const long hx = (long)floor(1.5 * lc / dx), hy = (long)floor(1.5 * lc / dy);
    const double g = 0.7309134 * lc;
    double A[6][7];
    memset(A, 0, sizeof A);
    for (long l = -hy; l <= hy; l++)
        for (long k = -hx; k <= hx; k++) {
            const long x = (long)ix + k, y = (long)iy + l;
            if (x < 0 || y < 0 || x >= (long)nx || y >= (long)ny || !isfinite(z[y * (long)nx + x]))
                continue;
            const double u = k * dx / lc, v = l * dy / lc;
            const double w = exp(-PI * ((k * dx) * (k * dx) + (l * dy) * (l * dy)) / (g * g));
            const double f[6] = {1, u, v, u * u, u * v, v * v};
            for (int i = 0; i < 6; i++) {
                for (int j = 0; j < 6; j++)
                    A[i][j] += w * f[i] * f[j];
                A[i][6] += w * f[i] * z[y * (long)nx + x];
            }
        }
    for (int c = 0; c < 6; c++) {
        int p = c;
        for (int r = c + 1; r < 6; r++)
            if (fabs(A[r][c]) > fabs(A[p][c]))
                p = r;
        for (int j = 0; j < 7; j++) {
            const double t = A[c][j];
            A[c][j] = A[p][j];
            A[p][j] = t;
        }
        for (int r = 0; r < 6; r++)
            if (r != c) {
                const double q = A[r][c] / A[c][c];
                for (int j = c; j < 7; j++)
                    A[r][j] -= q * A[c][j];
            }
    }
    return A[0][6] / A[0][0];
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void) /* [0, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* no reweighting: the second-order regression against the brute-force fit, at interior,
   border, corner points and next to holes, dx != dy */
static void test_regression(lwt_context *ctx)
{
    const size_t nx = 90, ny = 70;
    const double dx = 1e-6, dy = 1.3e-6, lc = 12e-6;
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o);
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = 1e-6 * (uniform() - 0.5) + 0.3e-6 * sin(0.2 * (double)(i % nx)) * cos(0.15 * (double)(i / nx));
    for (size_t iy = 30; iy < 36; iy++) /* a hole */
        for (size_t ix = 40; ix < 47; ix++)
            z[iy * nx + ix] = NAN;
    z[5] = INFINITY;
    CHECK(lwt__rgauss_smooth(z, nx, ny, dx, dy, lc, 2, 0, -1, NULL, o) == LWT_OK, "second-order regression runs");
    const size_t pts[][2] = {{45, 35}, {0, 0}, {89, 69}, {3, 40}, {39, 33}, {47, 36}, {60, 10}, {6, 0}, {88, 2}};
    double e = 0;
    for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
        const size_t i = pts[p][1] * nx + pts[p][0];
        if (isfinite(z[i]))
            e = fmax(e, fabs(o[i] - brute_fit(z, nx, ny, dx, dy, lc, pts[p][0], pts[p][1])));
    }
    CHECK(e < 1e-18, "second-order regression = brute-force weighted fit within %.3g m (heights 1e-6)", e);
    int nan_ok = 1;
    for (size_t i = 0; i < nx * ny; i++)
        nan_ok &= isfinite(z[i]) ? isfinite(o[i]) : isnan(o[i]);
    CHECK(nan_ok, "NaN exactly at the invalid points");
    free(z);
    free(o);
}

/* Where the quadratic is not determined, the plane, then the mean: lc of 1 spacing (1 point each
   side) leaves 4 points at a corner, enough for a plane only, and a plane comes out exact there;
   a field whose only valid row is one line determines no plane either, and each output is the
   weighted mean of its row neighbours (exact for a linear row inside it, pulled in at its ends).
   A field of one row or one column is a profile: its quadratic (1, u, u^2) is fitted. */
static void test_fallback(lwt_context *ctx)
{
    (void)ctx;
    const size_t nx = 12, ny = 9;
    const double d = 1e-6;
    double z[12 * 9], o[12 * 9];
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = 1e-6 + 0.01 * (double)(i % nx) * d - 0.02 * (double)(i / nx) * d;
    CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, 1e-6, 1, 0, -1, NULL, o) == LWT_OK, "lc of one spacing");
    double e = 0;
    for (size_t i = 0; i < nx * ny; i++)
        e = fmax(e, fabs(o[i] - z[i]));
    CHECK(e < 1e-20, "plane fallback: a plane through lc = 1 spacing within %.3g m", e);
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = i / nx == 4 ? 1e-6 * (double)(i % nx) : NAN;
    CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, 3e-6, 1, 0, -1, NULL, o) == LWT_OK, "one valid row");
    double ei = 0;
    for (size_t ix = 4; ix + 4 < nx; ix++)
        ei = fmax(ei, fabs(o[4 * nx + ix] - z[4 * nx + ix]));
    CHECK(ei < 1e-20 && o[4 * nx] > 0.1e-6 && o[4 * nx + nx - 1] < (nx - 1.1) * 1e-6 && isnan(o[0]),
          "mean fallback on one row: interior within %.3g m, ends %.3g and %.3g um", ei, o[4 * nx] * 1e6,
          o[4 * nx + nx - 1] * 1e6);
    /* a profile (one row) and one column: the profile's quadratic, reproduced to its ends */
    double q[40], oq[40];
    for (int axis = 0; axis < 2; axis++) {
        for (int k = 0; k < 40; k++)
            q[k] = 1e-6 + 0.01 * k * d - 300 * (k * d) * (k * d);
        CHECK(lwt__rgauss_smooth(q, axis ? 1 : 40, axis ? 40 : 1, d, d, 8e-6, 1, -1, -1, NULL, oq) == LWT_OK,
              "profile");
        double eq = 0;
        for (int k = 0; k < 40; k++)
            eq = fmax(eq, fabs(oq[k] - q[k]));
        CHECK(eq < 1e-12 * 1e-6, "a quadratic %s reproduced within %.3g m", axis ? "column" : "profile", eq);
    }

}

/* The second-order regression's transmission of a cosine of wavelength w along x and along y
   (dy = 1.5 dx, lc = 40 spacings along x), in the interior: the continuous definition's values,
   computed with NumPy by a dense quadrature of the weighted quadratic fit (gamma = 0.7309134,
   cut at +-1.5 lc): 0.009371 at lc / 2, 0.500026 at lc (50 % is the nesting index's definition;
   the cut adds 2.6e-5), 0.933145 at 2 lc. ISO 16610-61's Gaussian gives 0.0625, 0.5, 0.841. */
static void test_transmission(lwt_context *ctx)
{
    (void)ctx;
    const size_t nx = 260, ny = 200;
    const double dx = 1e-6, dy = 1.5e-6, lc = 40e-6;
    const double wl[3] = {0.5, 1, 2}, T[3] = {0.009371, 0.500026, 0.933145};
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o);
    for (int axis = 0; axis < 2; axis++)
        for (int k = 0; k < 3; k++) {
            const double w = wl[k] * lc;
            for (size_t iy = 0; iy < ny; iy++)
                for (size_t ix = 0; ix < nx; ix++)
                    z[iy * nx + ix] = 1e-6 * cos(2 * PI * (axis ? iy * dy : ix * dx) / w);
            CHECK(lwt__rgauss_smooth(z, nx, ny, dx, dy, lc, 0, 0, -1, NULL, o) == LWT_OK, "runs");
            double e = 0;
            for (size_t iy = 41; iy + 41 < ny; iy++)
                for (size_t ix = 61; ix + 61 < nx; ix++)
                    e = fmax(e, fabs(o[iy * nx + ix] - T[k] * z[iy * nx + ix]));
            CHECK(e < 1e-4 * 1e-6, "transmission along %c at %g lc off by %.3g of the amplitude", axis ? 'y' : 'x',
                  wl[k], e / 1e-6);
        }
    free(z);
    free(o);
}

/* A quadratic passes unchanged everywhere (border, corners, next to holes) through the robust
   filter; the linear Gaussian moves it (the mean of a curvature inside the field, a one-sided
   mean of a slope at the border). A plane alone too (the linear Gaussian bends it at the border). */
static void test_quadratic(lwt_context *ctx)
{
    const size_t nx = 80, ny = 64;
    const double d = 1e-6, lc = 20e-6;
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o), *g = malloc(nx * ny * sizeof *g);
    for (int quad = 0; quad < 2; quad++) {
        double range = 0;
        for (size_t iy = 0; iy < ny; iy++)
            for (size_t ix = 0; ix < nx; ix++) {
                const double x = ix * d, y = iy * d;
                z[iy * nx + ix] = 1e-6 + 0.02 * x - 0.01 * y + quad * (300 * x * x + 200 * x * y - 500 * y * y);
                range = fmax(range, fabs(z[iy * nx + ix]));
            }
        for (size_t iy = 20; iy < 26; iy++)
            for (size_t ix = 0; ix < 5; ix++)
                z[iy * nx + ix] = NAN;
        lwt__rgauss_info info;
        CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, lc, 0, -1, -1, &info, o) == LWT_OK, "robust filter runs");
        CHECK(lwt_gauss_lowpass(ctx, z, nx, ny, d, d, lc, 0, g) == LWT_OK, "linear Gaussian runs");
        double er = 0, eg = 0;
        for (size_t i = 0; i < nx * ny; i++)
            if (isfinite(z[i])) {
                er = fmax(er, fabs(o[i] - z[i]));
                eg = fmax(eg, fabs(g[i] - z[i]));
            }
        CHECK(er < 1e-12 * range, "%s reproduced by the robust filter within %.3g m (range %.3g m, %d reweightings)",
              quad ? "quadratic" : "plane", er, range, info.iterations);
        CHECK(eg > 1e-3 * range, "%s moved by the linear Gaussian: %.3g m", quad ? "quadratic" : "plane", eg);
    }
    free(z);
    free(o);
    free(g);
}

/* A plateau-honed surface: a fine plateau texture (0.1 um, period 6 spacings) cut by two
   families of deep narrow valleys (4 um deep, 3 spacings wide, every 24 spacings, at +-30
   degrees: honing's cross-hatch). The robust mean surface stays on the plateau (whose mean is 0)
   everywhere, border included; the linear Gaussian's is pulled down by the valleys. */
static void plateau(double *z, size_t nx, size_t ny)
{
    const double s = sin(PI / 6), c = cos(PI / 6);
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++) {
            double h = 0.1e-6 * sin(2 * PI * ix / 6.0) * cos(2 * PI * iy / 6.0);
            for (int f = -1; f <= 1; f += 2) {
                const double t = fmod(c * ix + f * s * iy + 1000.0, 24.0); /* across the valley */
                if (t < 3)
                    h = fmin(h, -4e-6 * sin(PI * (t + 0.5) / 3.5));
            }
            z[iy * nx + ix] = h;
        }
}

static void test_plateau(lwt_context *ctx)
{
    const size_t nx = 128, ny = 128;
    const double d = 1e-6, lc = 32e-6;
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o), *g = malloc(nx * ny * sizeof *g);
    plateau(z, nx, ny);
    lwt__rgauss_info info;
    CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, lc, 0, -1, -1, &info, o) == LWT_OK, "robust filter runs");
    CHECK(lwt_gauss_lowpass(ctx, z, nx, ny, d, d, lc, 0, g) == LWT_OK, "linear Gaussian runs");
    double ro = 0, go = 0, gmean = 0;
    for (size_t i = 0; i < nx * ny; i++) {
        ro = fmax(ro, fabs(o[i]));
        go = fmax(go, fabs(g[i]));
        gmean += g[i] / (double)(nx * ny);
    }
    printf("plateau: robust mean surface within %.3g um of the plateau (%d reweightings, converged %d, change %.2g); "
           "linear Gaussian's: mean %.3g um, worst %.3g um\n",
           ro * 1e6, info.iterations, info.converged, info.change, gmean * 1e6, go * 1e6);
    CHECK(ro < 0.03e-6, "robust mean surface within %.3g um of the plateau (limit 0.03)", ro * 1e6);
    CHECK(gmean < -0.5e-6, "linear Gaussian's mean surface pulled down by %.3g um (more than 0.5)", -gmean * 1e6);
    CHECK(info.converged && info.iterations >= 2 && info.iterations < LWT_RGAUSS_MAX_ITER,
          "converged after %d reweightings (last change %.3g median |r|)", info.iterations, info.change);

    /* the same with 1, 2 and 3 threads: the same bits */
    for (int t = 1; t <= 3; t++) {
        CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, lc, t, -1, -1, NULL, g) == LWT_OK, "threads %d", t);
        CHECK(!memcmp(g, o, nx * ny * sizeof *o), "%d threads give the default's bits", t);
    }
    /* invalid points: a band of 6 rows missing and a hole in a valley; still on the plateau */
    for (size_t ix = 0; ix < nx; ix++)
        for (size_t iy = 60; iy < 66; iy++)
            z[iy * nx + ix] = NAN;
    for (size_t i = 0; i < 200; i++)
        z[(size_t)(uniform() * nx * ny)] = NAN;
    CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, lc, 0, -1, -1, &info, o) == LWT_OK, "with holes");
    double rh = 0;
    int nan_ok = 1;
    for (size_t i = 0; i < nx * ny; i++) {
        nan_ok &= isfinite(z[i]) ? isfinite(o[i]) : isnan(o[i]);
        if (isfinite(o[i]))
            rh = fmax(rh, fabs(o[i]));
    }
    CHECK(nan_ok && rh < 0.03e-6 && info.converged, "with holes: NaN kept %d, within %.3g um, converged %d (%d)",
          nan_ok, rh * 1e6, info.converged, info.iterations);
    free(z);
    free(o);
    free(g);
}

/* Without outliers (a smooth surface plus uniform noise, no tails: c = 4.4 median |r| is beyond
   every residual, so no point loses its weight, each keeps 0.6-1 of it), the robust mean surface
   stays near the plain second-order regression's: within 0.04 of the noise's rms in rms and 0.2
   at the worst point (measured 0.02 and 0.11, the worst at the border where fewer points
   average). */
static void test_no_outliers(lwt_context *ctx)
{
    (void)ctx;
    const size_t nx = 96, ny = 96;
    const double d = 1e-6, lc = 16e-6;
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o), *g = malloc(nx * ny * sizeof *g);
    const double amp = 0.2e-6, rms = amp / sqrt(3.0);
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++)
            z[iy * nx + ix] = 2e-6 * sin(2 * PI * ix / 150.0) * cos(2 * PI * iy / 120.0) + amp * (2 * uniform() - 1);
    lwt__rgauss_info info;
    CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, lc, 0, -1, -1, &info, o) == LWT_OK, "robust");
    CHECK(lwt__rgauss_smooth(z, nx, ny, d, d, lc, 0, 0, -1, NULL, g) == LWT_OK, "plain regression");
    double e = 0, q = 0;
    for (size_t i = 0; i < nx * ny; i++) {
        e = fmax(e, fabs(o[i] - g[i]));
        q += (o[i] - g[i]) * (o[i] - g[i]) / (double)(nx * ny);
    }
    printf("no outliers: robust - plain regression: rms %.3g, max %.3g of the noise rms (%d reweightings)\n",
           sqrt(q) / rms, e / rms, info.iterations);
    CHECK(sqrt(q) < 0.04 * rms && e < 0.2 * rms && info.converged,
          "without outliers robust = plain regression within rms %.3g, max %.3g of the noise rms", sqrt(q) / rms,
          e / rms);
    free(z);
    free(o);
    free(g);
}

/* lwt_filter_run: the bands add up; the S-filter is the linear Gaussian's (the noise band is the
   same bits as --filter gaussian's); the GPU refused; no valid point refused */
static void test_split(lwt_context *ctx)
{
    const size_t nx = 96, ny = 80;
    const double d = 1e-6;
    double *z = malloc(nx * ny * sizeof *z);
    plateau(z, nx, ny);
    for (size_t i = 0; i < nx * ny; i++)
        z[i] += 0.02e-6 * cos(2.9 * (double)i) + 1e-3 * (double)(i % nx) * d;
    z[7 * nx + 50] = NAN;
    lwt_filter_spec f = lwt_filter_spec_default();
    f.filter = LWT_FILTER_ROBUST_GAUSSIAN;
    f.gauss.lambda_s = 2.5e-6;
    f.gauss.lambda_c = 25e-6;
    f.gauss.lambda_f = 80e-6;
    lwt_filter_result r, lin;
    CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &r) == LWT_OK, "robust split: %s", tlog.last);
    CHECK(!strcmp(r.wavelet, "robust-gaussian"), "named '%s'", r.wavelet);
    f.filter = LWT_FILTER_GAUSSIAN;
    CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &lin) == LWT_OK, "linear split");
    double e = 0;
    int nan_ok = 1;
    for (size_t i = 0; i < nx * ny; i++) {
        double sum = 0;
        for (int b = 0; b < LWT_BAND_COUNT; b++) {
            sum += r.band[b][i];
            nan_ok &= isnan(r.band[b][i]) == isnan(z[i]);
        }
        if (isfinite(z[i]))
            e = fmax(e, fabs(sum - z[i]));
    }
    CHECK(e < 1e-12 * 5e-6 && nan_ok, "bands add up within %.3g m, NaN kept %d", e, nan_ok);
    CHECK(!memcmp(r.band[LWT_BAND_NOISE], lin.band[LWT_BAND_NOISE], nx * ny * sizeof(double)),
          "the S-filter is the linear Gaussian's (noise band, bits)");
    lwt_filter_result_free(&r);
    lwt_filter_result_free(&lin);
    f.filter = LWT_FILTER_ROBUST_GAUSSIAN;
    f.backend = LWT_BACKEND_CUDA;
    CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &r) == LWT_ERR_UNSUPPORTED, "--backend cuda refused");
    f.backend = LWT_BACKEND_CPU;
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = NAN;
    CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &r) == LWT_ERR_INVALID_ARGUMENT, "no valid point refused");
    free(z);
}

int main(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    test_regression(ctx);
    test_transmission(ctx);
    test_fallback(ctx);
    test_quadratic(ctx);
    test_plateau(ctx);
    test_no_outliers(ctx);
    test_split(ctx);
    lwt_context_destroy(ctx);
    return finish("test_surface_rgauss");
}
