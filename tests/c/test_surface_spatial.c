/*
 * test_surface_spatial.c - Sal and Str (lwt_spatial_params_compute) on surfaces whose
 * autocorrelation function is known: z = cos(2 pi x / Lx) cos(2 pi y / Ly) has
 * f(tx, ty) / f(0, 0) = cos(2 pi tx / Lx) cos(2 pi ty / Ly), so the decay to s = 0.2 is
 * Lx acos(0.2) / 2 pi along x (the shortest for Lx < Ly: Sal), and the longest is the farthest
 * point of the contour cos(u) cos(v) = 0.2 (found here by sampling the closed form); a cosine
 * along x alone never decays along y (Str undefined). With invalid points (the mask's own
 * correlation counts the pairs) the values stay. Std of cosines of known direction.
 * Exit 77 (skipped) in a build without FFTW.
 */
#include "check.h"
#include "lwt_surface.h"

#include <math.h>
#include <stdlib.h>

#define PI 3.141592653589793

/* the longest distance from the centre to the contour cos(u) cos(v) = s, u = 2 pi tx / Lx,
   v = 2 pi ty / Ly, in the quadrant around the centre (the region's border) */
static double longest_decay(double Lx, double Ly, double s)
{
    double best = 0;
    const double umax = acos(s);
    for (int k = 0; k <= 200000; k++) {
        double u = umax * k / 200000.0, v = acos(fmin(1.0, s / cos(u)));
        double d = hypot(u * Lx / (2 * PI), v * Ly / (2 * PI));
        best = d > best ? d : best;
    }
    return best;
}

int main(void)
{
    const size_t nx = 384, ny = 320;
    const double Lx = 24, Ly = 40, d = 1e-6; /* periods in spacings; nx, ny whole periods */
    double *z = malloc(nx * ny * sizeof *z);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            z[j * nx + i] = 1e-6 * cos(2 * PI * (double)i / Lx) * cos(2 * PI * (double)j / Ly);
    lwt_spatial_params p;
    lwt_status st = lwt_spatial_params_compute(NULL, z, nx, ny, d, d, 0, 0, &p);
    if (st == LWT_ERR_UNSUPPORTED) {
        printf("test_surface_spatial: skipped (this build has no FFTW)\n");
        free(z);
        return 77;
    }
    CHECK(st == LWT_OK, "compute: status %d", (int)st);
    /* bilinear interpolation between integer lags and the unbiased estimator's partial periods:
       within 2 % (0.1 spacing of a 5-spacing decay) */
    const double sal = Lx * acos(0.2) / (2 * PI) * d, str = sal / (longest_decay(Lx, Ly, 0.2) * d);
    CHECK(close_to(p.Sal, sal, 0.02), "cosine product: Sal %.6g, want %.6g", p.Sal, sal);
    CHECK(close_to(p.Str, str, 0.02), "cosine product: Str %.6g, want %.6g", p.Str, str);
    /* anisotropic spacing: the same surface with dy = 2 dx doubles the y lengths */
    lwt_spatial_params q;
    CHECK(lwt_spatial_params_compute(NULL, z, nx, ny, d, 2 * d, 0.2, 0, &q) == LWT_OK, "anisotropic");
    const double str2 = sal / (longest_decay(Lx, 2 * Ly, 0.2) * d);
    CHECK(close_to(q.Sal, sal, 0.02) && close_to(q.Str, str2, 0.02), "dy = 2 dx: Sal %.6g Str %.6g, want %.6g %.6g",
          q.Sal, q.Str, sal, str2);
    /* holes: every 7th point of every 5th row invalid */
    for (size_t j = 0; j < ny; j += 5)
        for (size_t i = j % 7; i < nx; i += 7)
            z[j * nx + i] = NAN;
    CHECK(lwt_spatial_params_compute(NULL, z, nx, ny, d, d, 0.2, 0, &q) == LWT_OK, "holes");
    CHECK(close_to(q.Sal, sal, 0.02) && close_to(q.Str, str, 0.02), "holes: Sal %.6g Str %.6g, want %.6g %.6g", q.Sal,
          q.Str, sal, str);
    /* a cosine along x only: constant along y, the region reaches the border: Str undefined */
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            z[j * nx + i] = 1e-6 * cos(2 * PI * (double)i / Lx);
    CHECK(lwt_spatial_params_compute(NULL, z, nx, ny, d, d, 0.2, 0, &q) == LWT_OK, "cosine");
    CHECK(close_to(q.Sal, sal, 0.02) && isnan(q.Str), "cosine along x: Sal %.6g (want %.6g), Str %g (want NaN)", q.Sal,
          sal, q.Str);
    CHECK(lwt_spatial_params_compute(NULL, z, nx, ny, d, d, 1.5, 0, &q) == LWT_ERR_INVALID_ARGUMENT, "threshold 1.5");
    CHECK(lwt_spatial_params_compute(NULL, z, nx, ny, d, d, 0.2, 0, &q) == LWT_OK && q.Std == 0,
          "cosine along x: Std %g, want 0", q.Std);
    /* Std: z = cos(2 pi (3 i + 4 j) / 128) has its only frequency at (kx, ky) = (3, 4) cycles over
       the field, a direction of atan2(-4, 3) = -53.13 degrees with y up (row 0 at the top), i.e.
       126.87 folded into [0, 180): the bin [126.5, 127); and 53.13 for 3 i - 4 j. */
    const size_t m = 128;
    for (int sg = -1; sg <= 1; sg += 2) {
        for (size_t j = 0; j < m; j++)
            for (size_t i = 0; i < m; i++)
                z[j * m + i] = 1e-6 * cos(2 * PI * (3.0 * (double)i + sg * 4.0 * (double)j) / (double)m);
        CHECK(lwt_spatial_params_compute(NULL, z, m, m, d, d, 0.2, 0, &q) == LWT_OK, "oriented cosine");
        double want = sg > 0 ? 126.5 : 53.0;
        CHECK(q.Std == want, "cosine of frequency (3, %d): Std %g, want %g", 4 * sg, q.Std, want);
    }
    free(z);
    return finish("test_surface_spatial");
}
