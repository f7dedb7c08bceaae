/*
 * test_surface_mr.c - the material ratio curve and parameters (lwt_material_curve_*,
 * lwt_mr_params_compute) against closed forms:
 *  - heights uniformly spread (a ramp, shuffled over the grid among invalid points): the curve is
 *    a straight line of height range H, so Smc(mr) = H (1/2 - mr), Smr(c) = 1/2 - c / H,
 *    Vm(p) = H p^2 / 2, Vv(p) = H (1 - p)^2 / 2, Sxp = 0.475 H, Sdc(2, 98) = 0.96 H, and the
 *    Sk line is the curve itself: Sk = H, Smr1 = 0, Smr2 = 100 %, Spk = Svk = 0;
 *  - a curve with a linear core and linear peak and dale zones (Sk, Spk, Svk, Smr1, Smr2 by hand);
 *  - a sinusoid: Smc(mr) = A cos(pi mr), Smr(c) = 1/2 - asin(c / A) / pi,
 *    Vm(p) = A (sin(pi p) / pi - p cos(pi p)), Vv(p) = A (cos(pi p) (1 - p) + sin(pi p) / pi)
 *    (ratios as fractions);
 *  - the same bits whatever the order of the points and the thread count;
 *  - the sort against qsort's order (random doubles of both signs over many scales, repeated
 *    values, -0.0 and +0.0; a range beyond the doubles; one far outlier, so that one value
 *    bucket holds nearly every point and takes the large-bucket path).
 */
#ifdef _OPENMP
#include <omp.h>
#endif
#include "check.h"
#include "lwt_surface.h"
#include "surface/mr_curve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.141592653589793

static lwt_material_curve *curve(const double *z, size_t nx, size_t ny)
{
    lwt_material_curve *c = NULL;
    CHECK(lwt_material_curve_create(NULL, z, nx, ny, 0, &c) == LWT_OK && c, "curve");
    return c;
}

static lwt_mr_params params(const lwt_material_curve *c)
{
    lwt_mr_params p;
    CHECK(lwt_mr_params_compute(NULL, c, NULL, &p) == LWT_OK, "parameters");
    return p;
}

static unsigned long long rnd(unsigned long long *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

static void test_uniform(void)
{
    const size_t n = 2001, nx = 50, ny = 50; /* 2001 ramp points among 2500, the rest invalid */
    const double H = 3e-6;
    double *z = malloc(nx * ny * sizeof *z);
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = i < n ? 5e-6 + H * (double)i / (double)(n - 1) : NAN;
    unsigned long long s = 99;
    for (size_t i = nx * ny - 1; i > 0; i--) { /* shuffle */
        size_t k = (size_t)(rnd(&s) % (i + 1));
        double t = z[i];
        z[i] = z[k];
        z[k] = t;
    }
    lwt_material_curve *c = curve(z, nx, ny);
    CHECK(lwt_material_curve_count(c) == n, "uniform: %zu points", lwt_material_curve_count(c));
    CHECK(close_to(lwt_material_curve_mean(c), 5e-6 + H / 2, 1e-14), "uniform mean");
    for (double mr = 0; mr <= 100; mr += 12.5) {
        double u = mr / 100, want = H * (0.5 - u);
        CHECK(fabs(lwt_material_curve_smc(c, mr) - want) < 1e-12 * H, "uniform Smc(%g) %.15g, want %.15g", mr,
              lwt_material_curve_smc(c, mr), want);
        CHECK(fabs(lwt_material_curve_smr(c, want) - mr) < 1e-9, "uniform Smr(%g) %.15g, want %g", want,
              lwt_material_curve_smr(c, want), mr);
        CHECK(close_to(lwt_material_curve_vm(c, mr), H * u * u / 2, 1e-9) &&
                  close_to(lwt_material_curve_vv(c, mr), H * (1 - u) * (1 - u) / 2, 1e-9),
              "uniform Vm(%g) %.15g Vv %.15g", mr, lwt_material_curve_vm(c, mr), lwt_material_curve_vv(c, mr));
    }
    CHECK(lwt_material_curve_smr(c, H) == 0 && lwt_material_curve_smr(c, -H) == 100, "uniform Smr outside");
    lwt_mr_params p = params(c);
    CHECK(close_to(p.Smr, 50, 1e-9) && close_to(p.Smc, 0.4 * H, 1e-9), "uniform Smr(0) %g Smc(10) %g", p.Smr, p.Smc);
    CHECK(close_to(p.Sxp, 0.475 * H, 1e-9) && close_to(p.Sdc, 0.96 * H, 1e-9), "uniform Sxp %g Sdc %g", p.Sxp, p.Sdc);
    CHECK(close_to(p.Vmp, H * 0.01 / 2, 1e-9) && close_to(p.Vmc, H * (0.64 - 0.01) / 2, 1e-9) &&
              close_to(p.Vvv, H * 0.04 / 2, 1e-9) && close_to(p.Vvc, H * (0.81 - 0.04) / 2, 1e-9),
          "uniform Vmp %g Vmc %g Vvv %g Vvc %g", p.Vmp, p.Vmc, p.Vvv, p.Vvc);
    CHECK(close_to(p.Sk, H, 1e-9) && fabs(p.Smr1) < 1e-6 && fabs(p.Smr2 - 100) < 1e-6 && p.Spk < 1e-9 * H &&
              p.Svk < 1e-9 * H,
          "uniform Sk %g Smr1 %g Smr2 %g Spk %g Svk %g", p.Sk, p.Smr1, p.Smr2, p.Spk, p.Svk);
    /* reversed order and another grid shape: the same bits */
    double *r = malloc(nx * ny * sizeof *r);
    for (size_t i = 0; i < nx * ny; i++)
        r[i] = z[nx * ny - 1 - i];
    lwt_material_curve *c2 = curve(r, 25, 100);
    lwt_mr_params q = params(c2);
    CHECK(!memcmp(&p, &q, sizeof p), "the parameters depend on the order of the points");
    lwt_material_curve_destroy(c2);
    lwt_material_curve_destroy(c);
    free(r);
    free(z);
}

/* h(u) = core line 0.5 - u (H = 1 um) on [0.1, 0.9], a peak zone rising linearly to 0.9 at u = 0
 * and a dale zone falling to -0.9 at u = 1 (1001 points, so 0.1 and 0.9 are points). The central
 * region lies in the core, the line is 0.5 - u: Sk = 1; the peak zone crosses the line's 0 %
 * height 0.5 at u = 0.1 - 0.1 * 0.1 / 0.5 = 0.08: Smr1 = 8 %, Smr2 = 92 %, and the peak area is
 * a triangle, so Spk = max - 0.5 = 0.4 um = Svk. */
static void test_sk_zones(void)
{
    const size_t n = 1001;
    double *z = malloc(n * sizeof *z);
    for (size_t k = 0; k < n; k++) {
        double u = (double)k / (double)(n - 1), h = 0.5 - u;
        if (k < 100)
            h = 0.4 + 0.5 * (0.1 - u) / 0.1;
        else if (k > 900)
            h = -0.4 - 0.5 * (u - 0.9) / 0.1;
        z[(k * 389) % n] = h * 1e-6 + 2e-6; /* 389 is prime to 1001: a permutation */
    }
    lwt_material_curve *c = curve(z, n, 1);
    lwt_mr_params p = params(c);
    CHECK(close_to(p.Sk, 1e-6, 1e-9), "zones Sk %.15g, want 1 um", p.Sk);
    CHECK(close_to(p.Smr1, 8, 1e-9) && close_to(p.Smr2, 92, 1e-9), "zones Smr1 %.15g Smr2 %.15g, want 8, 92", p.Smr1,
          p.Smr2);
    CHECK(close_to(p.Spk, 0.4e-6, 1e-9) && close_to(p.Svk, 0.4e-6, 1e-9), "zones Spk %.15g Svk %.15g, want 0.4 um",
          p.Spk, p.Svk);
    lwt_material_curve_destroy(c);
    free(z);
}

/* A = 1 um, N points at phases (i + 1/2) / N of one period: the sampled curve is within about
 * pi A / N of the continuous one. */
static void test_sinusoid(void)
{
    const size_t N = 20000;
    const double A = 1e-6, tol = 4 * PI * A / (double)N;
    double *z = malloc(N * sizeof *z);
    for (size_t i = 0; i < N; i++)
        z[i] = A * sin(2 * PI * ((double)i + 0.5) / (double)N);
    lwt_material_curve *c = curve(z, 100, N / 100);
    for (double mr = 5; mr < 100; mr += 15) {
        double u = mr / 100, h = A * cos(PI * u);
        CHECK(fabs(lwt_material_curve_smc(c, mr) - h) < tol, "sinusoid Smc(%g) %.9g, want %.9g", mr,
              lwt_material_curve_smc(c, mr), h);
        double c_ = 0.3 * A * (u - 0.5) * 2, want = 100 * (0.5 - asin(c_ / A) / PI);
        CHECK(fabs(lwt_material_curve_smr(c, c_) - want) < 100 * tol / A, "sinusoid Smr(%g) %.9g, want %.9g", c_,
              lwt_material_curve_smr(c, c_), want);
        double vm = A * (sin(PI * u) / PI - u * cos(PI * u));
        CHECK(fabs(lwt_material_curve_vm(c, mr) - vm) < tol, "sinusoid Vm(%g) %.9g, want %.9g", mr,
              lwt_material_curve_vm(c, mr), vm);
        /* Vv(p) = h(p) (1 - p) - integral over p..1 of A cos(pi u) = h(p) (1 - p) + A sin(pi p) / pi */
        double vv = h * (1 - u) + A * sin(PI * u) / PI;
        CHECK(fabs(lwt_material_curve_vv(c, mr) - vv) < tol, "sinusoid Vv(%g) %.9g, want %.9g", mr,
              lwt_material_curve_vv(c, mr), vv);
    }
    lwt_material_curve_destroy(c);
    free(z);
}

/* 300,000 points (several 64 Ki blocks of the sort) with negative, positive, zero, -0 and invalid
 * heights: the curve and the parameters are the same bits for 1, 2 and 3 threads, and the curve
 * is sorted. */
static void test_threads(void)
{
    const size_t nx = 600, ny = 500;
    double *z = malloc(nx * ny * sizeof *z);
    unsigned long long s = 4242;
    for (size_t i = 0; i < nx * ny; i++) {
        unsigned long long r = rnd(&s);
        z[i] = r % 101 == 0 ? NAN : r % 103 == 0 ? -0.0 : r % 107 == 0 ? 0.0 : ((double)(r % 2000003) - 1e6) * 1e-12;
    }
    lwt_mr_params p[3];
    double h[3][41];
    for (int t = 0; t < 3; t++) {
        lwt_material_curve *c = NULL;
        CHECK(lwt_material_curve_create(NULL, z, nx, ny, t + 1, &c) == LWT_OK, "threads %d", t + 1);
#ifdef _OPENMP
        omp_set_num_threads(t + 1); /* the parameters' searches and integrals run on the default threads */
#endif
        p[t] = params(c);
        for (int k = 0; k <= 40; k++)
            h[t][k] = lwt_material_curve_smc(c, 2.5 * k);
        lwt_material_curve_destroy(c);
    }
    CHECK(!memcmp(&p[0], &p[1], sizeof p[0]) && !memcmp(&p[0], &p[2], sizeof p[0]) &&
              !memcmp(h[0], h[1], sizeof h[0]) && !memcmp(h[0], h[2], sizeof h[0]),
          "the material ratio curve depends on the thread count");
    int sorted = 1;
    for (int k = 0; k < 40; k++)
        sorted &= h[0][k] >= h[0][k + 1];
    CHECK(sorted, "curve not sorted");
    free(z);
}

/* value order, then -0 before +0: the order of the sort's keys */
static int cmp_total(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    if (a != b)
        return a < b ? -1 : 1;
    return signbit(b) - signbit(a);
}

/* the curve's heights are qsort's order of the valid heights, about the mean, to the bit, for 1
 * and 2 threads; case 0: mixed signs and scales, repeats, zeros; 1: +-1e300 (the range overflows);
 * 2: one outlier 1e6 times the rest (a bucket of nearly all points); 3: pairs v, -v of small
 * multiples of 2^-20 and as many -0 as +0, so the mean is exactly 0 and the curve keeps the zeros'
 * signs: -0 must come before +0 */
static void test_sort_order(void)
{
    const size_t nx = 1100, ny = 1000, n = nx * ny;
    double *z = malloc(n * sizeof *z), *q = malloc(n * sizeof *q);
    unsigned long long s = 2718;
    printf("test_sort_order: seed 2718\n");
    for (int cs = 0; cs < 4; cs++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            const unsigned long long r = rnd(&s);
            double v = ldexp((double)(r % 1000003) - 500001.0, (int)(r >> 20) % 40 - 60);
            if (cs == 0)
                v = r % 97 == 0 ? NAN : r % 89 == 0 ? -0.0 : r % 83 == 0 ? 0.0 : r % 79 == 0 ? 1.5e-7 : v;
            else if (cs == 1)
                v = i == 7 ? 1e300 : i == 11 ? -1e300 : v;
            else if (cs == 2)
                v = i == 5 ? 1e6 : ldexp((double)(r % 1000003), -40);
            else
                v = i % 2 ? -z[i - 1] : r % 10 == 0 ? -0.0 : ldexp((double)(r % 2001) - 1000.0, -20);
            z[i] = v;
            if (!isnan(v))
                q[m++] = v;
        }
        qsort(q, m, sizeof *q, cmp_total);
        for (int t = 1; t <= 2; t++) {
            lwt_material_curve *c = NULL;
            CHECK(lwt_material_curve_create(NULL, z, nx, ny, t, &c) == LWT_OK && c->n == m, "case %d: curve", cs);
            size_t bad = 0;
            for (size_t i = 0; c && i < m; i++) {
                const double w = q[i] - c->mean;
                bad += memcmp(&w, &c->a[i], sizeof w) != 0;
            }
            CHECK(bad == 0 && (cs < 3 || (c && c->mean == 0)), "case %d, %d threads: %zu heights off qsort's order",
                  cs, t, bad);
            lwt_material_curve_destroy(c);
        }
    }
    free(z);
    free(q);
}

static void test_edges(void)
{
    double z[4] = {NAN, NAN, NAN, NAN};
    lwt_material_curve *c = (lwt_material_curve *)1;
    CHECK(lwt_material_curve_create(NULL, z, 2, 2, 0, &c) == LWT_ERR_NO_DATA && c == NULL, "no valid point");
    z[2] = 1e-6;
    c = curve(z, 2, 2);
    lwt_mr_params p = params(c);
    CHECK(p.n_valid == 1 && p.Sxp == 0 && p.Vmp == 0 && isnan(p.Sk), "one point: Sxp %g Vmp %g Sk %g", p.Sxp, p.Vmp,
          p.Sk);
    lwt_material_curve_destroy(c);
    z[0] = z[1] = z[3] = 1e-6; /* flat: Smr(0) = 100 %, no Sk line */
    c = curve(z, 2, 2);
    p = params(c);
    CHECK(p.Smr == 100 && p.Sdc == 0 && isnan(p.Sk) && isnan(p.Smr1) && isnan(p.Spk), "flat: Smr %g Sk %g", p.Smr,
          p.Sk);
    lwt_material_curve_destroy(c);
    lwt_material_curve_destroy(NULL);
    CHECK(lwt_mr_param_unit(0) == '%' && lwt_mr_param_unit(4) == 'h' && lwt_mr_param_unit(9) == 'v' &&
              !strcmp(lwt_mr_param_name(12), "Vvc") && lwt_mr_param_name(13) == NULL,
          "names and units");
}

int main(void)
{
    test_uniform();
    test_sk_zones();
    test_sinusoid();
    test_threads();
    test_sort_order();
    test_edges();
    return finish("test_surface_mr");
}
