/*
 * test_surface_params.c - ISO 25178-2 parameters (src/surface/params.h) on analytic cases:
 * a sinusoid over whole periods (Sa = 2A/pi, Sq = A/sqrt 2, Ssk = 0, Sku = 1.5, Sp = Sv = A),
 * 45-degree planes (Sdq = 1, Sdr = 41.42 %), sinusoids at several periods against the closed
 * form of the forward difference and of the triangle area, white noise against its expectation,
 * small grids with hand-computed values, invalid points, degenerate surfaces, independence of
 * the thread count, and the per-row partials of params_rows.h over slabs (an MPI rank's view).
 */
#include "check.h"
#include "surface/params.h"
#include "surface/params_rows.h"
#include "surface/plane.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.141592653589793

static lwt_iso_params calc(const double *z, size_t nx, size_t ny, double dx, double dy)
{
    lwt_iso_params p;
    CHECK(lwt_iso_params_compute(NULL, z, nx, ny, dx, dy, 0, &p) == 0, "compute");
    return p;
}

static void test_sinusoid(void)
{
    /* z = A sin(2 pi x / L), L = 1000 samples, 4 whole periods, constant along y */
    const size_t nx = 4000, ny = 8, L = 1000;
    const double A = 2.5e-6, dx = 0.5e-6;
    double *z = malloc(nx * ny * sizeof *z);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            z[j * nx + i] = A * sin(2 * PI * (double)i / (double)L);
    lwt_iso_params p = calc(z, nx, ny, dx, dx);
    /* the discrete mean of |sin| over N samples a period is (2/pi)(1 - pi^2/(3N^2) + ...) */
    CHECK(close_to(p.Sa, 2 * A / PI, 1e-5), "sinusoid Sa %.12g, want %.12g", p.Sa, 2 * A / PI);
    CHECK(close_to(p.Sq, A / sqrt(2), 1e-12), "sinusoid Sq %.15g, want %.15g", p.Sq, A / sqrt(2));
    CHECK(fabs(p.Ssk) < 1e-9, "sinusoid Ssk %.3g, want 0", p.Ssk);
    CHECK(close_to(p.Sku, 1.5, 1e-12), "sinusoid Sku %.15g, want 1.5", p.Sku);
    CHECK(close_to(p.Sp, A, 1e-12) && close_to(p.Sv, A, 1e-12) && close_to(p.Sz, 2 * A, 1e-12),
          "sinusoid Sp %g Sv %g Sz %g, want A, A, 2A", p.Sp, p.Sv, p.Sz);
    CHECK(p.n_valid == nx * ny && p.n_cells == (nx - 1) * (ny - 1), "sinusoid counts %zu %zu", p.n_valid,
          p.n_cells);
    /* rms slope A 2 pi / (L dx) / sqrt 2 over differences spanning whole periods (one more
       point); the forward difference is low by sinc(pi / L), about 1.6e-6 */
    double *w = malloc((nx + 1) * 2 * sizeof *w);
    for (size_t j = 0; j < 2; j++)
        for (size_t i = 0; i <= nx; i++)
            w[j * (nx + 1) + i] = A * sin(2 * PI * (double)i / (double)L);
    lwt_iso_params g = calc(w, nx + 1, 2, dx, dx);
    double sdq = A * 2 * PI / ((double)L * dx) / sqrt(2);
    CHECK(close_to(g.Sdq, sdq, 1e-5), "sinusoid Sdq %.10g, want %.10g", g.Sdq, sdq);
    free(w);
    /* the same sinusoid along y, shifted by a constant: heights are about the mean */
    double *t = malloc(nx * ny * sizeof *t);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            t[i * ny + j] = z[j * nx + i] + 7e-6;
    lwt_iso_params q = calc(t, ny, nx, dx, dx);
    CHECK(close_to(q.Sa, p.Sa, 1e-12) && close_to(q.Sq, p.Sq, 1e-12) && close_to(q.Sku, 1.5, 1e-11) &&
              close_to(q.Sdq, p.Sdq, 1e-12),
          "transposed and shifted sinusoid: Sa %g Sq %g Sku %g Sdq %g", q.Sa, q.Sq, q.Sku, q.Sdq);
    free(t);
    free(z);
}

/* z = A sin(2 pi k / L) along x (or y), k = 0 .. m L: the forward difference is
 * z[k+1] - z[k] = 2 A sin(pi / L) cos(2 pi (k + 1/2) / L), whose square averages to
 * 2 A^2 sin^2(pi / L) over whole periods (L >= 3), so Sdq = sqrt(2) A sin(pi / L) / d exactly.
 * Every cell's four corner triangles have the same slope (g of its x edges, 0 across), so
 * Sdr = 100 mean over k of (sqrt(1 + g_k^2) - 1), g_k = 2 A sin(pi / L) cos(2 pi (k + 1/2) / L) / d:
 * the closed form of the difference summed over one period. */
static void test_sinusoid_periods(void)
{
    const size_t periods[] = {3, 4, 7, 16, 100};
    const double d = 1e-6;
    for (size_t t = 0; t < sizeof periods / sizeof *periods; t++) {
        const size_t L = periods[t], m = 3, n = m * L + 1, rows = 5;
        const double A = 0.7e-6 * (double)L / 4; /* slopes of order 1 at every period */
        double *z = malloc(n * rows * sizeof *z);
        for (int axis = 0; axis < 2; axis++) {
            for (size_t j = 0; j < rows; j++)
                for (size_t k = 0; k < n; k++) {
                    double v = A * sin(2 * PI * (double)k / (double)L);
                    if (axis == 0)
                        z[j * n + k] = v;
                    else
                        z[k * rows + j] = v;
                }
            lwt_iso_params p = axis == 0 ? calc(z, n, rows, d, d) : calc(z, rows, n, d, d);
            const double sdq = sqrt(2) * A * sin(PI / (double)L) / d;
            double sdr = 0;
            for (size_t k = 0; k < L; k++) {
                double g = 2 * A * sin(PI / (double)L) * cos(2 * PI * ((double)k + 0.5) / (double)L) / d;
                sdr += sqrt(1 + g * g) - 1;
            }
            sdr *= 100.0 / (double)L;
            CHECK(close_to(p.Sdq, sdq, 1e-12), "sinusoid L %zu axis %d: Sdq %.15g, want %.15g", L, axis, p.Sdq, sdq);
            CHECK(close_to(p.Sdr, sdr, 1e-12), "sinusoid L %zu axis %d: Sdr %.15g, want %.15g", L, axis, p.Sdr, sdr);
        }
        free(z);
    }
}

/* White noise, uniform in [-h, h] (variance s2 = h^2 / 3), spacing d: a difference of two
 * independent heights has mean square 2 s2, so Sdq -> sqrt(2 s2 / d^2 + 2 s2 / d^2) = 2 s / d
 * (the former cell-centre gradient gave sqrt(2) s / d); with h << d every corner triangle's
 * excess is g / 2 to 1e-4, and g (one x and one y difference) has mean 4 s2 / d^2, so
 * Sdr -> 200 s2 / d^2 % (the cell-centre form gave half). 512 x 512 points: the sampling error
 * of a mean of 2.6e5 squared differences is about 0.3 %; the bound is 2 %. */
static void test_white_noise(void)
{
    const size_t n = 512;
    const double d = 1e-6, h = 0.01e-6, s2 = h * h / 3;
    unsigned long long seed = 20261127;
    printf("white noise seed %llu\n", seed);
    double *z = malloc(n * n * sizeof *z);
    for (size_t i = 0; i < n * n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        z[i] = h * (2.0 * (double)(seed >> 11) / 9007199254740992.0 - 1.0);
    }
    lwt_iso_params p = calc(z, n, n, d, d);
    const double sdq = 2 * sqrt(s2) / d, sdr = 200 * s2 / (d * d);
    CHECK(close_to(p.Sdq, sdq, 0.02), "white noise Sdq %.6g, want %.6g", p.Sdq, sdq);
    CHECK(close_to(p.Sdr, sdr, 0.02), "white noise Sdr %.6g %%, want %.6g", p.Sdr, sdr);
    free(z);
}

/* params_rows.h as an MPI rank uses it: slabs of rows with the next row as halo, the partials
 * gathered in row order and finished once; bit-identical to lwt_iso_params_compute. */
static void test_row_slabs(void)
{
    const size_t nx = 97, ny = 61;
    double *z = malloc(nx * ny * sizeof *z), *rows = malloc(ny * LWT_PARAMS_ROW_FIELDS * sizeof *rows);
    unsigned long long s = 777;
    for (size_t i = 0; i < nx * ny; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        z[i] = (double)(s >> 11) / 9007199254740992.0 * 1e-6 + 3e-6 * (double)(i % nx) / (double)nx;
        if (s % 89 == 0)
            z[i] = NAN;
    }
    lwt_iso_params whole = calc(z, nx, ny, 1e-6, 2e-6), parts;
    const size_t cut[] = {0, 1, 17, 18, 40, ny};
    for (int pass = 0; pass < 2; pass++) {
        double mean = pass ? lwt__params_rows_mean(rows, ny) : 0;
        for (size_t k = 0; k + 1 < sizeof cut / sizeof *cut; k++) {
            /* a rank holds its rows only: copy them out, with the halo row apart */
            size_t j0 = cut[k], j1 = cut[k + 1];
            double *slab = malloc((j1 - j0) * nx * sizeof *slab);
            memcpy(slab, z + j0 * nx, (j1 - j0) * nx * sizeof *slab);
            const double *halo = j1 < ny ? z + j1 * nx : NULL;
            if (pass == 0)
                lwt__params_rows_first(slab, nx, 0, j1 - j0, halo, 1e-6, 2e-6, 2, rows + j0 * LWT_PARAMS_ROW_FIELDS);
            else
                lwt__params_rows_second(slab, nx, 0, j1 - j0, mean, 2, rows + j0 * LWT_PARAMS_ROW_FIELDS);
            free(slab);
        }
    }
    lwt__params_rows_finish(rows, ny, &parts);
    CHECK(!memcmp(&whole, &parts, sizeof whole), "slabs of rows: parameters differ from the whole surface's");
    free(rows);
    free(z);
}

static void test_planes(void)
{
    const size_t n = 64;
    double *z = malloc(n * n * sizeof *z);
    const double want_sdr = 100 * (sqrt(2) - 1); /* 41.42 % */
    /* 45 degrees along x, then along the diagonal, then with anisotropic spacing */
    const double d = 1e-6;
    for (int kind = 0; kind < 3; kind++) {
        double dx = d, dy = kind == 2 ? 3 * d : d;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++)
                z[j * n + i] = kind == 1 ? (i * dx + j * dy) / sqrt(2) : (double)i * dx;
        lwt_iso_params p = calc(z, n, n, dx, dy);
        CHECK(close_to(p.Sdq, 1, 1e-12), "45-degree plane %d: Sdq %.15g, want 1", kind, p.Sdq);
        CHECK(close_to(p.Sdr, want_sdr, 1e-12), "45-degree plane %d: Sdr %.15g %%, want %.15g", kind, p.Sdr,
              want_sdr);
    }
    /* a gentle slope 1e-4: Sdr = 100 (sqrt(1 + 1e-8) - 1) = 5e-7 %, computed without cancellation */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            z[j * n + i] = 1e-4 * (double)j * d;
    lwt_iso_params p = calc(z, n, n, d, d);
    double sdr = 100 * 1e-8 / (1 + sqrt(1 + 1e-8));
    CHECK(close_to(p.Sdr, sdr, 1e-12), "gentle slope Sdr %.15g, want %.15g", p.Sdr, sdr);
    CHECK(close_to(p.Sdq, 1e-4, 1e-12), "gentle slope Sdq %.15g", p.Sdq);
    /* plane fit and removal leaves zero */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            z[j * n + i] = 3e-6 + 0.02 * (double)i * d - 0.05 * (double)j * 2 * d;
    z[5] = NAN;
    lwt_plane pl;
    CHECK(lwt_plane_fit(NULL, z, n, n, d, 2 * d, 0, &pl) == 0, "plane fit");
    CHECK(close_to(pl.sx, 0.02, 1e-10) && close_to(pl.sy, -0.05, 1e-10) && close_to(pl.z0, 3e-6, 1e-9),
          "plane fit: z0 %g sx %g sy %g", pl.z0, pl.sx, pl.sy);
    lwt_plane_subtract(z, n, n, d, 2 * d, &pl, 0);
    double mx = 0;
    for (size_t i = 0; i < n * n; i++)
        if (isfinite(z[i]) && fabs(z[i]) > mx)
            mx = fabs(z[i]);
    CHECK(mx < 1e-18 && isnan(z[5]), "levelled plane: max |z| %g", mx);
    free(z);
}

static void test_small_grids(void)
{
    /* 3 x 3 ramp 1..9 (um): mean 5, deviations -4..4 */
    double z[9];
    for (int i = 0; i < 9; i++)
        z[i] = (i + 1) * 1e-6;
    lwt_iso_params p = calc(z, 3, 3, 1e-6, 1e-6);
    CHECK(close_to(p.Sa, 20.0 / 9 * 1e-6, 1e-12), "ramp Sa %g", p.Sa);
    CHECK(close_to(p.Sq, sqrt(60.0 / 9) * 1e-6, 1e-12), "ramp Sq %g", p.Sq);
    CHECK(close_to(p.Sp, 4e-6, 1e-12) && close_to(p.Sv, 4e-6, 1e-12) && close_to(p.Sz, 8e-6, 1e-12),
          "ramp Sp %g Sv %g Sz %g", p.Sp, p.Sv, p.Sz);
    CHECK(fabs(p.Ssk) < 1e-12, "ramp Ssk %g", p.Ssk);
    /* gx = 1, gy = 3 on every cell: Sdq = sqrt(10), Sdr = 100 (sqrt(11) - 1) */
    CHECK(close_to(p.Sdq, sqrt(10), 1e-12) && close_to(p.Sdr, 100 * (sqrt(11) - 1), 1e-12), "ramp Sdq %g Sdr %g",
          p.Sdq, p.Sdr);
    /* one peak: 0 0 0 0 10 -> mean 2, d = -2 -2 -2 -2 8: Sq 4, Ssk 1.5, Sku 3.25, Sp 8, Sv 2 */
    double q[5] = {0, 0, 0, 0, 10e-6};
    p = calc(q, 5, 1, 1e-6, 1e-6);
    CHECK(close_to(p.Sq, 4e-6, 1e-12) && close_to(p.Ssk, 1.5, 1e-12) && close_to(p.Sku, 3.25, 1e-12),
          "peak Sq %g Ssk %g Sku %g", p.Sq, p.Ssk, p.Sku);
    CHECK(close_to(p.Sp, 8e-6, 1e-12) && close_to(p.Sv, 2e-6, 1e-12) && close_to(p.Sz, 10e-6, 1e-12) &&
              close_to(p.Sa, 3.2e-6, 1e-12),
          "peak Sp %g Sv %g Sz %g Sa %g", p.Sp, p.Sv, p.Sz, p.Sa);
    CHECK(isnan(p.Sdq) && isnan(p.Sdr) && p.n_cells == 0, "a single profile has no cells");
    /* the same values among invalid points give the same height parameters; a pit: Ssk < 0 */
    double r[12] = {NAN, 0, 0, NAN, 0, NAN, 0, -10e-6, NAN, NAN, INFINITY, NAN};
    lwt_iso_params s = calc(r, 4, 3, 1e-6, 1e-6);
    CHECK(s.n_valid == 5 && close_to(s.Sq, 4e-6, 1e-12) && close_to(s.Ssk, -1.5, 1e-12) &&
              close_to(s.Sp, 2e-6, 1e-12) && close_to(s.Sv, 8e-6, 1e-12),
          "invalid points: n %zu Sq %g Ssk %g Sp %g Sv %g", s.n_valid, s.Sq, s.Ssk, s.Sp, s.Sv);
}

static void test_invalid_cells(void)
{
    const size_t n = 4;
    double z[16];
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            z[j * n + i] = (double)i * 1e-6;
    z[0] = NAN; /* removes the one cell at the corner */
    lwt_iso_params p = calc(z, n, n, 1e-6, 1e-6);
    CHECK(p.n_cells == 8 && close_to(p.Sdq, 1, 1e-12), "corner invalid: %zu cells, Sdq %g", p.n_cells, p.Sdq);
    z[0] = 0;
    z[5] = NAN; /* an inner point: four cells */
    p = calc(z, n, n, 1e-6, 1e-6);
    CHECK(p.n_cells == 5 && p.n_valid == 15, "inner invalid: %zu cells, %zu points", p.n_cells, p.n_valid);
    for (int i = 0; i < 16; i++)
        z[i] = NAN;
    p = calc(z, n, n, 1e-6, 1e-6);
    CHECK(p.n_valid == 0 && isnan(p.Sa) && isnan(p.Sq) && isnan(p.Sz) && isnan(p.Sdq), "all invalid: NaN");
    for (int i = 0; i < 16; i++)
        z[i] = 4e-6;
    p = calc(z, n, n, 1e-6, 1e-6);
    CHECK(p.Sa == 0 && p.Sq == 0 && isnan(p.Ssk) && isnan(p.Sku) && p.Sz == 0 && p.Sdq == 0 && p.Sdr == 0,
          "constant: Sq 0, Ssk and Sku undefined");
}

static void test_threads(void)
{
    const size_t nx = 301, ny = 257;
    double *z = malloc(nx * ny * sizeof *z);
    unsigned long long s = 12345;
    for (size_t i = 0; i < nx * ny; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        z[i] = (double)(s >> 11) / 9007199254740992.0 * 1e-6;
        if (s % 97 == 0)
            z[i] = NAN;
    }
    lwt_iso_params a, b;
    lwt_iso_params_compute(NULL, z, nx, ny, 1e-6, 1e-6, 1, &a);
    lwt_iso_params_compute(NULL, z, nx, ny, 1e-6, 1e-6, 3, &b);
    CHECK(!memcmp(&a, &b, sizeof a), "parameters depend on the thread count");
    free(z);
}

int main(void)
{
    test_sinusoid();
    test_sinusoid_periods();
    test_white_noise();
    test_row_slabs();
    test_planes();
    test_small_grids();
    test_invalid_cells();
    test_threads();
    return finish("test_surface_params");
}
