/*
 * test_surface_form.c - form models (lwt_form_fit, lwt_form_subtract, the filter's form step):
 * surfaces that ARE a polynomial, a sphere cap or a cylinder, written here from their own
 * formulas (monomials in metres, sqrt(R^2 - r^2)), are found again and removed; invalid points
 * are ignored; the results are the same bits for 1, 2 and 3 threads; bad requests fail with
 * one message.
 */
#include "check.h"
#include "test_log.h"
#include "lwt_surface.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static test_log tlog;

/* a grid: nx x ny points, spacing dx, dy, heights of fn at x = i dx, y = j dy; every 7th point
   (and one whole row) invalid when holes */
typedef double (*height_fn)(double x, double y);

static double *grid(size_t nx, size_t ny, double dx, double dy, height_fn fn, int holes)
{
    double *z = malloc(nx * ny * sizeof *z);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            const size_t k = j * nx + i;
            z[k] = fn((double)i * dx, (double)j * dy);
            if (holes && (k % 7 == 3 || j == ny / 3))
                z[k] = k % 2 ? NAN : INFINITY;
        }
    return z;
}

/* 12 monomials up to degree 3 in metres, with an offset of 2 mm: not in the fit's basis */
static double cubic(double x, double y)
{
    x -= 0.3e-3;
    y += 0.1e-3;
    return 2e-3 + 0.01 * x - 0.02 * y + 3 * x * x - 5 * x * y + 2 * y * y + 400 * x * x * x - 700 * x * x * y +
           300 * x * y * y + 900 * y * y * y;
}

static double sextic(double x, double y)
{
    const double u = x / 1e-3 - 0.4, v = y / 1e-3 - 0.3; /* millimetres about a point */
    return 1e-6 * (1 + u - 2 * v + u * v * v + pow(u, 4) - 3 * pow(u * v, 2) + pow(v, 5) + 2 * pow(u, 6) -
                   pow(u, 3) * pow(v, 3) + pow(v, 6));
}

/* the largest |z - model| over the finite points, after lwt_form_subtract (NaN/Inf stay) */
static double max_residual(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_form *f, int *kept)
{
    double *c = malloc(nx * ny * sizeof *c), m = 0;
    memcpy(c, z, nx * ny * sizeof *c);
    lwt_form_subtract(c, nx, ny, dx, dy, f, 2);
    *kept = 1;
    for (size_t k = 0; k < nx * ny; k++) {
        if (isfinite(z[k]))
            m = fmax(m, fabs(c[k]));
        else if (!(isnan(z[k]) ? isnan(c[k]) : c[k] == z[k]))
            *kept = 0;
    }
    free(c);
    return m;
}

static void test_poly(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    const size_t nx = 180, ny = 130;
    const double dx = 5e-6, dy = 7e-6;
    for (int holes = 0; holes < 2; holes++) {
        double *z = grid(nx, ny, dx, dy, cubic, holes);
        lwt_form f;
        CHECK(lwt_form_fit(ctx, z, nx, ny, dx, dy, LWT_FORM_POLY, 3, 0, &f) == LWT_OK, "cubic: %s", tlog.last);
        int kept;
        const double r = max_residual(z, nx, ny, dx, dy, &f, &kept);
        /* 1e-12 of the heights' size (2 mm offset): the fit is exact to rounding */
        CHECK(r < 1e-12 * 2e-3, "cubic (holes %d): residual %g m", holes, r);
        CHECK(f.rms < 1e-12 * 2e-3, "cubic: rms %g", f.rms);
        CHECK(kept, "cubic: invalid points changed by the subtraction");
        const double x = 0.7e-3, y = 0.2e-3;
        CHECK(close_to(lwt_form_eval(&f, x, y), cubic(x, y), 1e-12), "cubic eval %.17g vs %.17g",
              lwt_form_eval(&f, x, y), cubic(x, y));
        size_t valid = 0;
        for (size_t k = 0; k < nx * ny; k++)
            valid += isfinite(z[k]) != 0;
        CHECK(f.n_valid == valid && (holes ? valid < nx * ny - nx : valid == nx * ny), "n_valid %zu of %zu",
              f.n_valid, valid);
        /* a lower degree does not fit it: the residual is the cubic part */
        lwt_form f2;
        CHECK(lwt_form_fit(ctx, z, nx, ny, dx, dy, LWT_FORM_POLY, 2, 0, &f2) == LWT_OK && f2.rms > 1e-9,
              "degree 2 of a cubic: rms %g", f2.rms);
        free(z);
    }
    /* degree 6: the scaled Legendre basis keeps it exact (monomials in metres would not) */
    double *z = grid(nx, ny, dx, dy, sextic, 1);
    lwt_form f;
    CHECK(lwt_form_fit(ctx, z, nx, ny, dx, dy, LWT_FORM_POLY, 6, 0, &f) == LWT_OK, "sextic: %s", tlog.last);
    int kept;
    const double r = max_residual(z, nx, ny, dx, dy, &f, &kept);
    CHECK(r < 1e-10 * 1e-6 * 10 && f.ncoef == 28, "sextic: residual %g m (heights ~1e-5 m), %d coefficients", r,
          f.ncoef);
    free(z);
    lwt_context_destroy(ctx);
}

/* sphere cap: radius 5 mm, centre off the field's centre, z = cz +- sqrt(R^2 - r^2) */
static const double SR = 5e-3, SCX = 0.31e-3, SCY = 0.27e-3, SCZ = -4.99e-3;
static double cap(double x, double y)
{
    return SCZ + sqrt(SR * SR - (x - SCX) * (x - SCX) - (y - SCY) * (y - SCY));
}
static double bowl(double x, double y)
{
    return SCZ + 10e-3 - sqrt(SR * SR - (x - SCX) * (x - SCX) - (y - SCY) * (y - SCY));
}
/* cylinder, axis along x (heights depend on y) and along y; radius 2 mm */
static const double CR = 2e-3;
static double cyl_x(double x, double y)
{
    (void)x;
    return 1e-6 - CR + sqrt(CR * CR - (y - 0.2e-3) * (y - 0.2e-3));
}
static double cyl_y(double x, double y)
{
    (void)y;
    return -(1e-6 - CR + sqrt(CR * CR - (x - 0.35e-3) * (x - 0.35e-3)));
}

static void test_round(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    const size_t nx = 160, ny = 120;
    const double dx = 4e-6, dy = 5e-6;
    for (int holes = 0; holes < 2; holes++) {
        const height_fn fns[] = {cap, bowl, cyl_x, cyl_y};
        const lwt_form_kind kinds[] = {LWT_FORM_SPHERE, LWT_FORM_SPHERE, LWT_FORM_CYLINDER_X, LWT_FORM_CYLINDER_Y};
        const double R[] = {SR, SR, CR, CR};
        const int convex[] = {1, 0, 1, 0};
        for (int t = 0; t < 4; t++) {
            double *z = grid(nx, ny, dx, dy, fns[t], holes);
            lwt_form f;
            test_log_reset(&tlog);
            lwt_status st = lwt_form_fit(ctx, z, nx, ny, dx, dy, kinds[t], 0, 0, &f);
            CHECK(st == LWT_OK, "shape %d: %s", t, tlog.last);
            CHECK(close_to(f.radius, R[t], 1e-9), "shape %d (holes %d): radius %.15g, want %.15g", t, holes,
                  f.radius, R[t]);
            CHECK(f.convex == convex[t] && f.iterations >= 1 && f.iterations < LWT_FORM_MAX_ITERATIONS,
                  "shape %d: convex %d, %d iterations", t, f.convex, f.iterations);
            int kept;
            const double r = max_residual(z, nx, ny, dx, dy, &f, &kept);
            /* heights span ~10 um; the residual is rounding of the millimetre-sized terms */
            CHECK(r < 1e-13 && f.rms < 1e-13 && kept, "shape %d (holes %d): residual %g m, rms %g m", t, holes, r,
                  f.rms);
            if (kinds[t] == LWT_FORM_SPHERE)
                CHECK(close_to(f.cx, SCX, 1e-9) && close_to(f.cy, SCY, 1e-9), "sphere centre %g %g", f.cx, f.cy);
            free(z);
        }
    }
    lwt_context_destroy(ctx);
}

/* a deterministic rough surface: a cap plus pseudo-random heights (fixed LCG, seed 12345) */
static unsigned long long lcg = 12345;
static double rough_cap(double x, double y)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return cap(x, y) + 0.3e-6 * ((double)(lcg >> 11) / 9007199254740992.0 - 0.5);
}

static void test_threads(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    const size_t nx = 150, ny = 97;
    const double dx = 4e-6, dy = 5e-6;
    printf("thread test: LCG seed %llu\n", lcg);
    double *z = grid(nx, ny, dx, dy, rough_cap, 1);
    const lwt_form_kind kinds[] = {LWT_FORM_POLY, LWT_FORM_SPHERE, LWT_FORM_CYLINDER_Y};
    for (int t = 0; t < 3; t++) {
        lwt_form f[3];
        double *c[3];
        for (int th = 0; th < 3; th++) {
            memset(&f[th], 0, sizeof f[th]);
            CHECK(lwt_form_fit(ctx, z, nx, ny, dx, dy, kinds[t], 4, th + 1, &f[th]) == LWT_OK, "%s", tlog.last);
            c[th] = malloc(nx * ny * sizeof *c[th]);
            memcpy(c[th], z, nx * ny * sizeof *c[th]);
            lwt_form_subtract(c[th], nx, ny, dx, dy, &f[th], th + 1);
        }
        for (int th = 1; th < 3; th++) {
            CHECK(!memcmp(&f[0], &f[th], sizeof f[0]), "%s: the model differs with %d threads",
                  lwt_form_kind_name(kinds[t]), th + 1);
            CHECK(!memcmp(c[0], c[th], nx * ny * sizeof *c[0]), "%s: the residual differs with %d threads",
                  lwt_form_kind_name(kinds[t]), th + 1);
        }
        for (int th = 0; th < 3; th++)
            free(c[th]);
    }
    free(z);
    lwt_context_destroy(ctx);
}

static double flat(double x, double y)
{
    return 1e-6 + 0 * x * y;
}

/* the fit fails with status and one message */
static void fails(const double *z, size_t nx, size_t ny, lwt_form_kind kind, int degree, const char *words)
{
    lwt_context *ctx = test_log_context(&tlog);
    lwt_form f;
    lwt_status st = lwt_form_fit(ctx, z, nx, ny, 1e-6, 1e-6, kind, degree, 1, &f);
    CHECK(st == LWT_ERR_INVALID_ARGUMENT && tlog.errors == 1 && strstr(tlog.last, words),
          "%s degree %d: status %d, %d messages, '%s' (want '%s')", lwt_form_kind_name(kind), degree, (int)st,
          tlog.errors, tlog.last, words);
    lwt_context_destroy(ctx);
}

static void test_errors(void)
{
    const size_t nx = 40, ny = 30;
    double *z = grid(nx, ny, 1e-6, 1e-6, flat, 0), *bad = malloc(nx * ny * sizeof *bad);
    for (size_t k = 0; k < nx * ny; k++)
        bad[k] = NAN;
    fails(bad, nx, ny, LWT_FORM_POLY, 2, "invalid");
    fails(bad, nx, ny, LWT_FORM_SPHERE, 0, "valid points");
    fails(z, nx, ny, LWT_FORM_POLY, 0, "degree 0");
    fails(z, nx, ny, LWT_FORM_POLY, LWT_FORM_MAX_DEGREE + 1, "degree 7");
    fails(z, nx, ny, (lwt_form_kind)9, 1, "unknown form");
    fails(z, nx, ny, LWT_FORM_SPHERE, 0, "do not determine"); /* a flat surface has no sphere */
    for (size_t i = 0; i < nx; i++)                          /* one valid row: no degree 2 in y */
        bad[5 * nx + i] = 1e-6 * (double)i;
    fails(bad, nx, ny, LWT_FORM_POLY, 2, "do not determine");
    free(z);
    free(bad);
}

/* lwt_filter_run with a form: the bands add up to the input less the model, the model comes out
   in spec.form_out, plane and form do not mix, --plane's model is lwt_plane_fit's plane */
static void test_filter(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    const size_t nx = 128, ny = 128;
    const double dx = 4e-6, dy = 4e-6;
    lcg = 777;
    double *z = grid(nx, ny, dx, dy, rough_cap, 1);
    for (int gauss = 0; gauss < 2; gauss++) {
        lwt_filter_spec spec = lwt_filter_spec_default();
        lwt_band_request req = {0};
        req.levels = 4;
        CHECK(lwt_bands_resolve(ctx, &req, nx, ny, dx, dy, &spec.split) == LWT_OK, "%s", tlog.last);
        CHECK(lwt_gauss_nesting_resolve(ctx, &req, dx, dy, &spec.gauss) == LWT_OK, "%s", tlog.last);
        spec.filter = gauss ? LWT_FILTER_GAUSSIAN : LWT_FILTER_WAVELET;
        spec.backend = LWT_BACKEND_CPU;
        lwt_form got, want;
        spec.form = LWT_FORM_SPHERE;
        spec.form_out = &got;
        lwt_filter_result r;
        CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, dx, dy, &r) == LWT_OK, "filter with a sphere: %s", tlog.last);
        CHECK(lwt_form_fit(ctx, z, nx, ny, dx, dy, LWT_FORM_SPHERE, 0, 0, &want) == LWT_OK, "%s", tlog.last);
        CHECK(!memcmp(&got, &want, sizeof got), "filter %d: form_out is not lwt_form_fit's model", gauss);
        double *lev = malloc(nx * ny * sizeof *lev), e = 0;
        memcpy(lev, z, nx * ny * sizeof *lev);
        lwt_form_subtract(lev, nx, ny, dx, dy, &want, 1);
        for (size_t k = 0; k < nx * ny; k++) {
            double s = 0;
            for (int b = 0; b < LWT_BAND_COUNT; b++)
                if (r.band[b])
                    s += r.band[b][k];
            if (isfinite(z[k]))
                e = fmax(e, fabs(s - lev[k]));
            else
                CHECK(isnan(s), "filter %d: invalid point %zu is not NaN in the bands", gauss, k);
        }
        CHECK(e < 1e-15, "filter %d: bands add up to input - sphere within %g m", gauss, e);
        lwt_filter_result_free(&r);
        free(lev);
        spec.plane = 1; /* with a sphere: refused */
        test_log_reset(&tlog);
        CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, dx, dy, &r) == LWT_ERR_INVALID_ARGUMENT && tlog.errors == 1 &&
                  strstr(tlog.last, "give one") && got.kind == LWT_FORM_NONE,
              "plane + sphere: '%s'", tlog.last);
        spec.form = LWT_FORM_NONE; /* the plane alone: the form is lwt_plane_fit's plane */
        CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, dx, dy, &r) == LWT_OK, "%s", tlog.last);
        lwt_plane p;
        CHECK(lwt_plane_fit(ctx, z, nx, ny, dx, dy, 1, &p) == LWT_OK, "%s", tlog.last);
        CHECK(!memcmp(&p, &r.plane, sizeof p) && got.kind == LWT_FORM_POLY && got.degree == 1 &&
                  close_to(lwt_form_eval(&got, 0.1e-3, 0.3e-3), p.z0 + p.sx * 0.1e-3 + p.sy * 0.3e-3, 1e-12),
              "plane: result %g %g %g vs fit %g %g %g", r.plane.z0, r.plane.sx, r.plane.sy, p.z0, p.sx, p.sy);
        lwt_filter_result_free(&r);
    }
    free(z);
    lwt_context_destroy(ctx);
}

/* a program built before the form fields (its spec ends at gauss) gets no form, whatever lies
   beyond its size */
static void test_old_spec(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    const size_t nx = 64, ny = 64;
    double *z = grid(nx, ny, 1e-6, 1e-6, cap, 0);
    lwt_filter_spec spec = lwt_filter_spec_default();
    lwt_band_request req = {0};
    req.levels = 3;
    CHECK(lwt_bands_resolve(ctx, &req, nx, ny, 1e-6, 1e-6, &spec.split) == LWT_OK, "%s", tlog.last);
    spec.backend = LWT_BACKEND_CPU;
    lwt_filter_result a, b;
    CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, 1e-6, 1e-6, &a) == LWT_OK, "%s", tlog.last);
    spec.size = offsetof(lwt_filter_spec, form);
    spec.form = LWT_FORM_SPHERE;
    spec.form_out = (lwt_form *)&spec; /* never written through: beyond the old size */
    CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, 1e-6, 1e-6, &b) == LWT_OK, "old spec: %s", tlog.last);
    int same = 1;
    for (int k = 0; k < LWT_BAND_COUNT; k++)
        same &= (a.band[k] == NULL) == (b.band[k] == NULL) &&
                (!a.band[k] || !memcmp(a.band[k], b.band[k], nx * ny * sizeof(double)));
    CHECK(same && spec.size == offsetof(lwt_filter_spec, form), "old spec: a form was removed");
    lwt_filter_result_free(&a);
    lwt_filter_result_free(&b);
    free(z);
    lwt_context_destroy(ctx);
}

int main(void)
{
    test_poly();
    test_round();
    test_threads();
    test_errors();
    test_filter();
    test_old_spec();
    return finish("test_surface_form");
}
