/*
 * test_surface_feature.c - the ISO 25178-2 feature family (lwt_feature_params_compute) on
 * surfaces whose motifs are known in closed form:
 *  - the egg-box z = A (cos(2 pi x / P) + cos(2 pi y / P)) over 8 x 8 whole periods, the field
 *    starting on a pit line: a peak and a pit per P^2 (Spd = 1/P^2), peaks 2A above the mean
 *    (S5p = S5v = 2A, S10z = 4A); each hill is the square of side P around its peak (the lines
 *    x = P/2 mod P carry no flow across), its saddles at height 0, so its volume above them is
 *    A (P / 2 pi)^2 times the integral of cos u + cos v over |u| + |v| < pi: 16. The outer ring
 *    of hills touches the border (open: in Spd, not in Sha); the border also cuts dales whose
 *    pits lie outside the field, whose lowest points on the border are pits all the same (81
 *    dales: 64 and 17 cut ones). With dy = 2 dx the same points give cells of P dx by P dy and
 *    a quarter of the curvature along y.
 *  - paraboloid caps z = -(u^2 + v^2) / 2R on a lattice of cells: the central differences are
 *    exact on a quadratic, so Spc = 1/R to rounding.
 *  - one Gaussian bump: one peak, Spd = 1 / area, S5p its height above the mean, Spc the
 *    central differences of the Gaussian.
 *  - Wolf pruning: bumps of 100 %, 8 % and 3 % of Sz on a flat field: 5 % keeps the first two,
 *    2 % all three, 9 % the first.
 *  - invalid points: a hole at an inner peak opens that hill and the 4 dales meeting there;
 *    Spd's area is the valid points'.
 *  - one and two threads give the same bits; bad arguments are refused.
 */
#include "check.h"
#include "lwt_surface.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.141592653589793

static void egg_box(double *z, size_t n, double P, double A)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            z[j * n + i] = A * (cos(2 * PI * ((double)i - P / 2) / P) + cos(2 * PI * ((double)j - P / 2) / P));
}

static void test_egg_box(void)
{
    const size_t n = 128;
    const double P = 16, A = 1e-6, d = 1e-6;
    double *z = malloc(n * n * sizeof *z);
    egg_box(z, n, P, A);
    lwt_feature_params f;
    CHECK(lwt_feature_params_compute(NULL, z, n, n, d, d, 0, 1, &f) == LWT_OK, "egg-box: status");
    CHECK(f.n_peaks == 64, "egg-box: %zu peaks, want 64", f.n_peaks);
    CHECK(f.n_pits == 81, "egg-box: %zu pits, want 64 + 17 cut by the border", f.n_pits);
    CHECK(f.n_closed_hills == 36, "egg-box: %zu closed hills, want 6 x 6", f.n_closed_hills);
    CHECK(f.n_closed_dales == 49, "egg-box: %zu closed dales, want 7 x 7", f.n_closed_dales);
    CHECK(close_to(f.Spd, 1 / (P * P * d * d), 1e-12), "egg-box: Spd %.8g, want %.8g", f.Spd, 1 / (P * P * d * d));
    CHECK(close_to(f.S5p, 2 * A, 1e-9) && close_to(f.S5v, 2 * A, 1e-9) && close_to(f.S10z, 4 * A, 1e-9),
          "egg-box: S5p %.8g S5v %.8g S10z %.8g, want 2A 2A 4A", f.S5p, f.S5v, f.S10z);
    /* the central differences of the cosines at a peak */
    const double spc = 2 * A * (1 - cos(2 * PI / P)) / (d * d);
    CHECK(close_to(f.Spc, spc, 1e-9), "egg-box: Spc %.10g, want %.10g", f.Spc, spc);
    CHECK(close_to(f.Sha, P * P * d * d, 1e-12) && close_to(f.Sda, P * P * d * d, 1e-12),
          "egg-box: Sha %.8g Sda %.8g, want P^2 = %.8g", f.Sha, f.Sda, P * P * d * d);
    /* the volume integral by the grid's points: within 1 % of the closed form */
    const double vol = 16 * A * pow(P * d / (2 * PI), 2);
    CHECK(close_to(f.Shv, vol, 0.01) && close_to(f.Sdv, vol, 0.01), "egg-box: Shv %.8g Sdv %.8g, want %.8g", f.Shv,
          f.Sdv, vol);
    CHECK(close_to(f.threshold, 0.05 * 4 * A, 1e-9), "egg-box: pruning height %.6g, want 5 %% of Sz = 4A",
          f.threshold);

    /* dy = 2 dx: the same points, cells P dx by P dy, curvature along y a quarter */
    CHECK(lwt_feature_params_compute(NULL, z, n, n, d, 2 * d, 0, 0, &f) == LWT_OK, "anisotropic: status");
    const double spc2 = A * (1 - cos(2 * PI / P)) * (1 / (d * d) + 1 / (4 * d * d));
    CHECK(f.n_peaks == 64 && close_to(f.Spd, 1 / (P * P * 2 * d * d), 1e-12) &&
              close_to(f.Sha, P * P * 2 * d * d, 1e-12) && close_to(f.Spc, spc2, 1e-9),
          "dy = 2 dx: %zu peaks, Spd %.8g, Sha %.8g, Spc %.10g (want %.10g)", f.n_peaks, f.Spd, f.Sha, f.Spc, spc2);

    /* the two threads' bits: this egg-box with a little noise (pruned) */
    srand(7);
    for (size_t k = 0; k < n * n; k++)
        z[k] += 0.02 * A * ((double)rand() / RAND_MAX - 0.5);
    lwt_feature_params one, two;
    CHECK(lwt_feature_params_compute(NULL, z, n, n, d, d, 0, 1, &one) == LWT_OK &&
              lwt_feature_params_compute(NULL, z, n, n, d, d, 0, 2, &two) == LWT_OK,
          "noisy egg-box: status");
    CHECK(!memcmp(&one, &two, sizeof one), "noisy egg-box: 1 and 2 threads differ");
    CHECK(one.n_peaks == 64 && one.n_closed_hills == 36, "noisy egg-box: %zu peaks, %zu closed hills", one.n_peaks,
          one.n_closed_hills);

    /* a hole of 3 x 3 points at the inner peak (40, 40): that hill and the 4 dales around the
       peak touch an invalid point (open); every peak stays, Spd over the valid area */
    egg_box(z, n, P, A);
    for (size_t j = 39; j <= 41; j++)
        for (size_t i = 39; i <= 41; i++)
            z[j * n + i] = NAN;
    CHECK(lwt_feature_params_compute(NULL, z, n, n, d, d, 0, 0, &f) == LWT_OK, "hole: status");
    CHECK(f.n_peaks == 64 && f.n_closed_hills == 35 && f.n_closed_dales == 45,
          "hole: %zu peaks, %zu closed hills, %zu closed dales; want 64, 35, 45", f.n_peaks, f.n_closed_hills,
          f.n_closed_dales);
    CHECK(close_to(f.Spd, 64 / ((double)(n * n - 9) * d * d), 1e-12), "hole: Spd %.8g", f.Spd);
    CHECK(close_to(f.Spc, spc, 1e-9), "hole: Spc %.10g, want %.10g (the cut peak left out)", f.Spc, spc);
    CHECK(close_to(f.Sha, P * P * d * d, 1e-12), "hole: Sha %.8g", f.Sha);
    free(z);
}

static void test_caps(void)
{
    const size_t P = 15, cells = 5, n = P * cells;
    const double d = 2e-6, R = 1e-4;
    double *z = malloc(n * n * sizeof *z);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            const double u = ((double)(i % P) - 7) * d, v = ((double)(j % P) - 7) * d;
            z[j * n + i] = -(u * u + v * v) / (2 * R);
        }
    lwt_feature_params f;
    CHECK(lwt_feature_params_compute(NULL, z, n, n, d, d, 0, 0, &f) == LWT_OK, "caps: status");
    CHECK(f.n_peaks == cells * cells && f.n_closed_hills == 9, "caps: %zu peaks, %zu closed", f.n_peaks,
          f.n_closed_hills);
    CHECK(close_to(f.Spc, 1 / R, 1e-9), "caps: Spc %.10g, want 1/R = %.10g", f.Spc, 1 / R);
    CHECK(close_to(f.Spd, 1 / ((double)(P * P) * d * d), 1e-12), "caps: Spd %.8g", f.Spd);
    CHECK(close_to(f.Sha, (double)(P * P) * d * d, 1e-12), "caps: Sha %.8g", f.Sha);
    free(z);
}

/* A Gaussian bump of height a and width s (points) at (ci, cj) added to z. */
static void bump(double *z, size_t n, double ci, double cj, double a, double s)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            const double r2 = ((double)i - ci) * ((double)i - ci) + ((double)j - cj) * ((double)j - cj);
            z[j * n + i] += a * exp(-r2 / (2 * s * s));
        }
}

static void test_bumps(void)
{
    const size_t n = 96;
    const double d = 1e-6, a = 1e-6, s = 2.5;
    double *z = calloc(n * n, sizeof *z);
    bump(z, n, 48, 48, a, s);
    lwt_feature_params f;
    CHECK(lwt_feature_params_compute(NULL, z, n, n, d, d, 0, 0, &f) == LWT_OK, "bump: status");
    double mean = 0;
    for (size_t k = 0; k < n * n; k++)
        mean += z[k];
    mean /= (double)(n * n);
    const double zxx = a * (2 * exp(-1 / (2 * s * s)) - 2) / (d * d);
    CHECK(f.n_peaks == 1 && f.n_closed_hills == 0, "bump: %zu peaks, %zu closed", f.n_peaks, f.n_closed_hills);
    CHECK(close_to(f.Spd, 1 / ((double)(n * n) * d * d), 1e-12), "bump: Spd %.8g", f.Spd);
    CHECK(close_to(f.S5p, a - mean, 1e-12), "bump: S5p %.10g, want %.10g", f.S5p, a - mean);
    CHECK(close_to(f.Spc, -zxx, 1e-9), "bump: Spc %.10g, want %.10g", f.Spc, -zxx);
    CHECK(isnan(f.Sha) && isnan(f.Shv), "bump: no closed hill, Sha %g Shv %g", f.Sha, f.Shv);

    /* Wolf pruning: two more bumps of 8 % and 3 % of Sz (= a) far from the first */
    bump(z, n, 20, 20, 0.08 * a, s);
    bump(z, n, 76, 20, 0.03 * a, s);
    const double pct[3] = {5, 2, 9};
    const size_t want[3] = {2, 3, 1};
    for (int k = 0; k < 3; k++) {
        CHECK(lwt_feature_params_compute(NULL, z, n, n, d, d, pct[k], 0, &f) == LWT_OK, "pruning: status");
        CHECK(f.n_peaks == want[k], "pruning at %g %%: %zu peaks, want %zu", pct[k], f.n_peaks, want[k]);
    }
    free(z);
}

static void test_errors(void)
{
    double z[16] = {0};
    lwt_feature_params f;
    CHECK(lwt_feature_params_compute(NULL, z, 4, 4, 1e-6, 1e-6, 100, 0, &f) == LWT_ERR_INVALID_ARGUMENT, "100 %%");
    CHECK(lwt_feature_params_compute(NULL, z, 4, 4, 1e-6, 1e-6, -1, 0, &f) == LWT_ERR_INVALID_ARGUMENT, "-1 %%");
    CHECK(lwt_feature_params_compute(NULL, z, 4, 4, 0, 1e-6, 0, 0, &f) == LWT_ERR_INVALID_ARGUMENT, "dx 0");
    CHECK(lwt_feature_params_compute(NULL, NULL, 4, 4, 1e-6, 1e-6, 0, 0, &f) == LWT_ERR_INVALID_ARGUMENT, "NULL");
    for (int k = 0; k < 16; k++)
        z[k] = NAN;
    CHECK(lwt_feature_params_compute(NULL, z, 4, 4, 1e-6, 1e-6, 0, 0, &f) == LWT_ERR_NO_DATA, "all invalid");
    /* a flat field: one motif each way (a plateau is never split), both open */
    for (int k = 0; k < 16; k++)
        z[k] = 1e-6;
    CHECK(lwt_feature_params_compute(NULL, z, 4, 4, 1e-6, 1e-6, 0, 0, &f) == LWT_OK && f.n_peaks == 1 &&
              f.n_pits == 1 && isnan(f.Sha),
          "flat: %zu peaks %zu pits", f.n_peaks, f.n_pits);
    CHECK(!strcmp(lwt_feature_param_name(0), "Spd") && !strcmp(lwt_feature_param_name(8), "Shv") &&
              !lwt_feature_param_name(9) && lwt_feature_param_unit(1) == 'c',
          "names and units");
}

int main(void)
{
    test_egg_box();
    test_caps();
    test_bumps();
    test_errors();
    return finish("test_surface_feature");
}
