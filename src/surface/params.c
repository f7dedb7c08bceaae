/* params.c - ISO 25178-2 height and hybrid parameters (see params.h for the discretization). */
#include "surface/params.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const char *const NAMES[LWT_ISO_PARAM_COUNT] = {"Sa", "Sq", "Ssk", "Sku", "Sp", "Sv", "Sz", "Sdq", "Sdr"};

const char *lwt_iso_param_name(int k)
{
    return k >= 0 && k < LWT_ISO_PARAM_COUNT ? NAMES[k] : NULL;
}

double lwt_iso_param_value(const lwt_iso_params *p, int k)
{
    const double v[LWT_ISO_PARAM_COUNT] = {p->Sa, p->Sq, p->Ssk, p->Sku, p->Sp, p->Sv, p->Sz, p->Sdq, p->Sdr};
    return k >= 0 && k < LWT_ISO_PARAM_COUNT ? v[k] : NAN;
}

int lwt_iso_param_is_height(int k)
{
    return k == 0 || k == 1 || (k >= 4 && k <= 6);
}

/* Per-row partial sums, then summed over the rows in order (so the thread count does not matter).
 * Two passes over the surface: the first takes everything that does not need the mean (count,
 * sum, extremes, and the cells' gradient terms, whose sqrt and division are most of the work),
 * the second the moments about the mean. The extremes are those of z, less the mean at the end:
 * rounding is monotonic, so max(z - mean) = max(z) - mean exactly. The row loops keep LANES
 * independent sums and select instead of branching, so the compiler turns them into vector
 * instructions (a branch on isfinite and one running sum kept them scalar): 4 surfaces of
 * 4096 x 4096 took 0.28 s on the 2-core development VM before (docs/PERFORMANCE.md). */
enum { P_N, P_Z, P_MAX, P_MIN, P_CELLS, P_G2, P_AREA, P_ABS, P_D2, P_D3, P_D4, P_COUNT };

#define LANES 4

static double lanes_sum(const double *v)
{
    return (v[0] + v[1]) + (v[2] + v[3]);
}

/* count, sum, max and min of the valid points of a row */
static void row_heights(const double *row, size_t nx, double *p)
{
    double n[LANES] = {0}, s[LANES] = {0}, mx[LANES], mn[LANES];
    for (int l = 0; l < LANES; l++) {
        mx[l] = -INFINITY;
        mn[l] = INFINITY;
    }
    size_t i = 0;
    for (; i + LANES <= nx; i += LANES)
        for (int l = 0; l < LANES; l++) {
            double v = row[i + (size_t)l];
            int ok = isfinite(v) != 0;
            n[l] += ok ? 1.0 : 0.0;
            s[l] += ok ? v : 0.0;
            mx[l] = ok & (v > mx[l]) ? v : mx[l];
            mn[l] = ok & (v < mn[l]) ? v : mn[l];
        }
    for (; i < nx; i++)
        if (isfinite(row[i])) {
            n[0] += 1;
            s[0] += row[i];
            mx[0] = row[i] > mx[0] ? row[i] : mx[0];
            mn[0] = row[i] < mn[0] ? row[i] : mn[0];
        }
    p[P_N] = lanes_sum(n);
    p[P_Z] = lanes_sum(s);
    p[P_MAX] = fmax(fmax(mx[0], mx[1]), fmax(mx[2], mx[3]));
    p[P_MIN] = fmin(fmin(mn[0], mn[1]), fmin(mn[2], mn[3]));
}

/* gradient terms of cell i between row and nxt; 0 when a corner is invalid */
static inline void cell(const double *row, const double *nxt, size_t i, double hx, double hy, double *c, double *g2,
                        double *area)
{
    double z00 = row[i], z10 = row[i + 1], z01 = nxt[i], z11 = nxt[i + 1];
    int ok = isfinite(z00) && isfinite(z10) && isfinite(z01) && isfinite(z11);
    double gx = ((z10 - z00) + (z11 - z01)) * hx, gy = ((z01 - z00) + (z11 - z10)) * hy;
    double g = ok ? gx * gx + gy * gy : 0.0;
    *c += ok ? 1.0 : 0.0;
    *g2 += g;
    *area += g / (1.0 + sqrt(1.0 + g)); /* sqrt(1 + g) - 1 without cancellation */
}

#ifdef __SSE2__
/* Cells 0 .. 2k-1 of the row pair two at a time (SSE2, every x86-64): the square root and the
 * division per cell are most of the parameters' time, and the compiler keeps them scalar (libm's
 * sqrt may set errno). Adds into acc[0..5] (two lanes each of cells, g2, area); returns 2k. */
static size_t cells_sse2(const double *row, const double *nxt, size_t nx, double hx, double hy, __m128d acc[3])
{
    const __m128d one = _mm_set1_pd(1.0), big = _mm_set1_pd(DBL_MAX), hxv = _mm_set1_pd(hx), hyv = _mm_set1_pd(hy);
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    __m128d c = acc[0], g2 = acc[1], area = acc[2];
    size_t i = 0;
    for (; i + 3 <= nx; i += 2) {
        __m128d z00 = _mm_loadu_pd(row + i), z10 = _mm_loadu_pd(row + i + 1);
        __m128d z01 = _mm_loadu_pd(nxt + i), z11 = _mm_loadu_pd(nxt + i + 1);
        __m128d ok = _mm_and_pd(_mm_and_pd(_mm_cmple_pd(_mm_and_pd(z00, abs_mask), big),
                                           _mm_cmple_pd(_mm_and_pd(z10, abs_mask), big)),
                                _mm_and_pd(_mm_cmple_pd(_mm_and_pd(z01, abs_mask), big),
                                           _mm_cmple_pd(_mm_and_pd(z11, abs_mask), big)));
        __m128d gx = _mm_mul_pd(_mm_add_pd(_mm_sub_pd(z10, z00), _mm_sub_pd(z11, z01)), hxv);
        __m128d gy = _mm_mul_pd(_mm_add_pd(_mm_sub_pd(z01, z00), _mm_sub_pd(z11, z10)), hyv);
        __m128d g = _mm_and_pd(ok, _mm_add_pd(_mm_mul_pd(gx, gx), _mm_mul_pd(gy, gy)));
        c = _mm_add_pd(c, _mm_and_pd(ok, one));
        g2 = _mm_add_pd(g2, g);
        area = _mm_add_pd(area, _mm_div_pd(g, _mm_add_pd(one, _mm_sqrt_pd(_mm_add_pd(one, g)))));
    }
    acc[0] = c;
    acc[1] = g2;
    acc[2] = area;
    return i;
}
#endif

/* cells, sum of squared gradients and the area term of the cells between row and nxt */
static void row_cells(const double *row, const double *nxt, size_t nx, double hx, double hy, double *p)
{
    double c = 0, g2 = 0, area = 0;
    size_t i = 0;
#ifdef __SSE2__
    __m128d acc[3] = {_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()};
    i = cells_sse2(row, nxt, nx, hx, hy, acc);
    double v[2];
    _mm_storeu_pd(v, acc[0]);
    c = v[0] + v[1];
    _mm_storeu_pd(v, acc[1]);
    g2 = v[0] + v[1];
    _mm_storeu_pd(v, acc[2]);
    area = v[0] + v[1];
#endif
    for (; i + 1 < nx; i++)
        cell(row, nxt, i, hx, hy, &c, &g2, &area);
    p[P_CELLS] = c;
    p[P_G2] = g2;
    p[P_AREA] = area;
}

/* sums of |d|, d^2, d^3, d^4 of the valid points of a row, d = z - mean */
static void row_moments(const double *row, size_t nx, double mean, double *p)
{
    double a[LANES] = {0}, d2[LANES] = {0}, d3[LANES] = {0}, d4[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= nx; i += LANES)
        for (int l = 0; l < LANES; l++) {
            double v = row[i + (size_t)l];
            double d = isfinite(v) ? v - mean : 0.0, q = d * d;
            a[l] += fabs(d);
            d2[l] += q;
            d3[l] += q * d;
            d4[l] += q * q;
        }
    for (; i < nx; i++) {
        double d = isfinite(row[i]) ? row[i] - mean : 0.0, q = d * d;
        a[0] += fabs(d);
        d2[0] += q;
        d3[0] += q * d;
        d4[0] += q * q;
    }
    p[P_ABS] = lanes_sum(a);
    p[P_D2] = lanes_sum(d2);
    p[P_D3] = lanes_sum(d3);
    p[P_D4] = lanes_sum(d4);
}

lwt_status lwt_iso_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                  int threads, lwt_iso_params *out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_iso_params_compute: NULL argument");
    out->Sa = out->Sq = out->Ssk = out->Sku = out->Sp = out->Sv = out->Sz = out->Sdq = out->Sdr = NAN;
    out->n_valid = out->n_cells = 0;
    double *r = calloc(ny * P_COUNT, sizeof *r);
    if (!r)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the parameters of %zu rows", ny);
    const int nt = lwt__surf_threads(threads);
    const double hx = 0.5 / dx, hy = 0.5 / dy;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        const size_t j = (size_t)jj;
        row_heights(z + j * nx, nx, r + j * P_COUNT);
        if (j + 1 < ny)
            row_cells(z + j * nx, z + (j + 1) * nx, nx, hx, hy, r + j * P_COUNT);
    }
    double n = 0, sz = 0;
    for (size_t j = 0; j < ny; j++) {
        n += r[j * P_COUNT + P_N];
        sz += r[j * P_COUNT + P_Z];
    }
    if (n == 0) {
        free(r);
        return LWT_OK;
    }
    const double mean = sz / n;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++)
        row_moments(z + (size_t)jj * nx, nx, mean, r + (size_t)jj * P_COUNT);
    double a = 0, d2 = 0, d3 = 0, d4 = 0, mx = -INFINITY, mn = INFINITY, cells = 0, g2 = 0, area = 0;
    for (size_t j = 0; j < ny; j++) {
        const double *p = r + j * P_COUNT;
        a += p[P_ABS];
        d2 += p[P_D2];
        d3 += p[P_D3];
        d4 += p[P_D4];
        if (p[P_MAX] > mx) mx = p[P_MAX];
        if (p[P_MIN] < mn) mn = p[P_MIN];
        cells += p[P_CELLS];
        g2 += p[P_G2];
        area += p[P_AREA];
    }
    free(r);
    out->n_valid = (size_t)n;
    out->Sa = a / n;
    out->Sq = sqrt(d2 / n);
    if (out->Sq > 0) {
        double s2 = d2 / n;
        out->Ssk = (d3 / n) / (s2 * out->Sq);
        out->Sku = (d4 / n) / (s2 * s2);
    }
    out->Sp = mx - mean;
    out->Sv = -(mn - mean);
    out->Sz = (mx - mean) - (mn - mean);
    if (cells > 0) {
        out->n_cells = (size_t)cells;
        out->Sdq = sqrt(g2 / cells);
        out->Sdr = 100.0 * area / cells;
    }
    return LWT_OK;
}
