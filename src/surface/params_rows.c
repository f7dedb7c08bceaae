/* params_rows.c - per-row partial sums of the height and hybrid parameters (see params_rows.h;
 * the discretization is that of params.h). */
#include "surface/params_rows.h"
#include "surface/threads.h"

#include <float.h>
#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* One row's partials. Pass 1: everything that does not need the mean (count, sum, extremes, the
 * x differences of the row, the y differences and the cells between it and the next row, whose
 * square roots and divisions are most of the work); pass 2: the moments about the mean. The
 * extremes are those of z, less the mean at the end: rounding is monotonic, so
 * max(z - mean) = max(z) - mean exactly. */
enum { P_N, P_Z, P_MAX, P_MIN, P_NX, P_GX2, P_NY, P_GY2, P_CELLS, P_AREA, P_ABS, P_D2, P_D3, P_D4, P_COUNT };
_Static_assert(P_COUNT == LWT_PARAMS_ROW_FIELDS, "params_rows.h's field count");

/* The row loops keep LANES independent sums and select instead of branching, so the compiler
 * turns them into vector instructions (a branch on isfinite and one running sum kept them
 * scalar: 4 surfaces of 4096 x 4096 took 0.28 s on the 2-core development VM before,
 * docs/PERFORMANCE.md). */
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
            mx[l] = (ok & (v > mx[l])) ? v : mx[l];
            mn[l] = (ok & (v < mn[l])) ? v : mn[l];
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

/* Forward differences b[i] - a[i] (times inv) over the pairs whose two points are valid: their
 * count and sum of squares. The x differences of a row are a = row, b = row + 1, n = nx - 1;
 * the y differences between two rows a = row, b = next, n = nx. */
static void diffs(const double *a, const double *b, size_t n, double inv, double *count, double *sum2)
{
    double c[LANES] = {0}, s[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++) {
            double u = a[i + (size_t)l], v = b[i + (size_t)l];
            int ok = isfinite(u) && isfinite(v);
            double g = ok ? (v - u) * inv : 0.0;
            c[l] += ok ? 1.0 : 0.0;
            s[l] += g * g;
        }
    for (; i < n; i++) {
        double u = a[i], v = b[i];
        int ok = isfinite(u) && isfinite(v);
        double g = ok ? (v - u) * inv : 0.0;
        c[0] += ok ? 1.0 : 0.0;
        s[0] += g * g;
    }
    *count = lanes_sum(c);
    *sum2 = lanes_sum(s);
}

/* sqrt(1 + g) - 1 without cancellation (the tiny Sdr of a smooth form keeps its digits) */
static inline double excess(double g)
{
    return g / (1.0 + sqrt(1.0 + g));
}

/* Area excess of cell i between row and nxt over its projection dx dy, 0 with an invalid corner:
 * the mean of the two triangulations (ABC + ACD and ABD + BCD) is half the sum of the four corner
 * triangles, each spanned by one x edge and one y edge; over dx dy each is
 * sqrt(1 + gx^2 + gy^2) / 2 with that corner's edge gradients. */
static inline void cell(const double *row, const double *nxt, size_t i, double ix, double iy, double *c, double *area)
{
    double z00 = row[i], z10 = row[i + 1], z01 = nxt[i], z11 = nxt[i + 1];
    int ok = isfinite(z00) && isfinite(z10) && isfinite(z01) && isfinite(z11);
    double xb = (z10 - z00) * ix, xt = (z11 - z01) * ix, yl = (z01 - z00) * iy, yr = (z11 - z10) * iy;
    xb *= xb, xt *= xt, yl *= yl, yr *= yr;
    double e = 0.25 * ((excess(xb + yl) + excess(xb + yr)) + (excess(xt + yr) + excess(xt + yl)));
    *c += ok ? 1.0 : 0.0;
    *area += ok ? e : 0.0;
}

#ifdef __SSE2__
static inline __m128d excess_sse2(__m128d g)
{
    const __m128d one = _mm_set1_pd(1.0);
    return _mm_div_pd(g, _mm_add_pd(one, _mm_sqrt_pd(_mm_add_pd(one, g))));
}

static inline __m128d finite_sse2(__m128d v)
{
    const __m128d big = _mm_set1_pd(DBL_MAX);
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    return _mm_cmple_pd(_mm_and_pd(v, abs_mask), big);
}

/* Cells 0 .. 2k-1 of the row pair two at a time (SSE2, every x86-64): the four square roots and
 * divisions per cell are most of the parameters' time, and the compiler keeps them scalar
 * (libm's sqrt may set errno). Adds into acc[0] (cells) and acc[1] (area), two lanes each;
 * returns 2k. The lanes hold the same operations as cell() in the same order. */
static size_t cells_sse2(const double *row, const double *nxt, size_t nx, double ix, double iy, __m128d acc[2])
{
    const __m128d one = _mm_set1_pd(1.0), quarter = _mm_set1_pd(0.25);
    const __m128d ixv = _mm_set1_pd(ix), iyv = _mm_set1_pd(iy);
    __m128d c = acc[0], area = acc[1];
    size_t i = 0;
    for (; i + 3 <= nx; i += 2) {
        __m128d z00 = _mm_loadu_pd(row + i), z10 = _mm_loadu_pd(row + i + 1);
        __m128d z01 = _mm_loadu_pd(nxt + i), z11 = _mm_loadu_pd(nxt + i + 1);
        __m128d ok = _mm_and_pd(_mm_and_pd(finite_sse2(z00), finite_sse2(z10)),
                                _mm_and_pd(finite_sse2(z01), finite_sse2(z11)));
        __m128d xb = _mm_mul_pd(_mm_sub_pd(z10, z00), ixv), xt = _mm_mul_pd(_mm_sub_pd(z11, z01), ixv);
        __m128d yl = _mm_mul_pd(_mm_sub_pd(z01, z00), iyv), yr = _mm_mul_pd(_mm_sub_pd(z11, z10), iyv);
        xb = _mm_mul_pd(xb, xb), xt = _mm_mul_pd(xt, xt), yl = _mm_mul_pd(yl, yl), yr = _mm_mul_pd(yr, yr);
        __m128d e = _mm_add_pd(_mm_add_pd(excess_sse2(_mm_add_pd(xb, yl)), excess_sse2(_mm_add_pd(xb, yr))),
                               _mm_add_pd(excess_sse2(_mm_add_pd(xt, yr)), excess_sse2(_mm_add_pd(xt, yl))));
        c = _mm_add_pd(c, _mm_and_pd(ok, one));
        area = _mm_add_pd(area, _mm_and_pd(ok, _mm_mul_pd(quarter, e)));
    }
    acc[0] = c;
    acc[1] = area;
    return i;
}
#endif

/* valid cells and their summed area excess between row and nxt */
static void row_cells(const double *row, const double *nxt, size_t nx, double ix, double iy, double *p)
{
    double c = 0, area = 0;
    size_t i = 0;
#ifdef __SSE2__
    __m128d acc[2] = {_mm_setzero_pd(), _mm_setzero_pd()};
    i = cells_sse2(row, nxt, nx, ix, iy, acc);
    double v[2];
    _mm_storeu_pd(v, acc[0]);
    c = v[0] + v[1];
    _mm_storeu_pd(v, acc[1]);
    area = v[0] + v[1];
#endif
    for (; i + 1 < nx; i++)
        cell(row, nxt, i, ix, iy, &c, &area);
    p[P_CELLS] = c;
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

void lwt__params_rows_first(const double *z, size_t nx, size_t j0, size_t j1, const double *next, double dx,
                            double dy, int threads, double *rows)
{
    const int nt = lwt__surf_threads(threads);
    const double ix = 1.0 / dx, iy = 1.0 / dy;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = (long long)j0; jj < (long long)j1; jj++) {
        const size_t j = (size_t)jj;
        const double *row = z + j * nx, *nxt = j + 1 < j1 ? row + nx : next;
        double *p = rows + (j - j0) * P_COUNT;
        memset(p, 0, P_COUNT * sizeof *p);
        row_heights(row, nx, p);
        if (nx > 1)
            diffs(row, row + 1, nx - 1, ix, &p[P_NX], &p[P_GX2]);
        if (nxt) {
            diffs(row, nxt, nx, iy, &p[P_NY], &p[P_GY2]);
            row_cells(row, nxt, nx, ix, iy, p);
        }
    }
}

double lwt__params_rows_mean(const double *rows, size_t ny)
{
    double n = 0, sz = 0;
    for (size_t j = 0; j < ny; j++) {
        n += rows[j * P_COUNT + P_N];
        sz += rows[j * P_COUNT + P_Z];
    }
    return n > 0 ? sz / n : NAN;
}

void lwt__params_rows_second(const double *z, size_t nx, size_t j0, size_t j1, double mean, int threads,
                             double *rows)
{
    const int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = (long long)j0; jj < (long long)j1; jj++)
        row_moments(z + (size_t)jj * nx, nx, mean, rows + ((size_t)jj - j0) * P_COUNT);
}

void lwt__params_rows_finish(const double *rows, size_t ny, lwt_iso_params *out)
{
    out->Sa = out->Sq = out->Ssk = out->Sku = out->Sp = out->Sv = out->Sz = out->Sdq = out->Sdr = NAN;
    out->n_valid = out->n_cells = 0;
    const double mean = lwt__params_rows_mean(rows, ny);
    double s[P_COUNT] = {0}, mx = -INFINITY, mn = INFINITY;
    for (size_t j = 0; j < ny; j++) {
        const double *p = rows + j * P_COUNT;
        for (int k = 0; k < P_COUNT; k++)
            s[k] += p[k];
        if (p[P_MAX] > mx) mx = p[P_MAX];
        if (p[P_MIN] < mn) mn = p[P_MIN];
    }
    const double n = s[P_N];
    if (n == 0)
        return;
    out->n_valid = (size_t)n;
    out->Sa = s[P_ABS] / n;
    out->Sq = sqrt(s[P_D2] / n);
    if (out->Sq > 0) {
        double s2 = s[P_D2] / n;
        out->Ssk = (s[P_D3] / n) / (s2 * out->Sq);
        out->Sku = (s[P_D4] / n) / (s2 * s2);
    }
    out->Sp = mx - mean;
    out->Sv = -(mn - mean);
    out->Sz = (mx - mean) - (mn - mean);
    /* each direction is averaged over its own differences (surfalize; Gwyddion averages both
       directions together, the same on a square grid) */
    if (s[P_NX] > 0 && s[P_NY] > 0)
        out->Sdq = sqrt(s[P_GX2] / s[P_NX] + s[P_GY2] / s[P_NY]);
    if (s[P_CELLS] > 0) {
        out->n_cells = (size_t)s[P_CELLS];
        out->Sdr = 100.0 * s[P_AREA] / s[P_CELLS];
    }
}
