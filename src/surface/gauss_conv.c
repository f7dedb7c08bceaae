/* gauss_conv.c - one ISO 16610-61 Gaussian low-pass: separable, truncated, normalized (gauss.h). */
#define _POSIX_C_SOURCE 200809L

#include "surface/gauss.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns per strip of the y pass: 16 doubles = two cache lines per row, and a padded strip of
   4096 + 2 * 4096 rows (the longest kernel along a 4096-point axis) is 1.5 MiB, inside the 2 MiB
   L2 per core of the development VM. */
#define STRIP 16
/* Outputs per accumulation block: 4 KiB of sums stay in L1 while the taps stream past. */
#define BLOCK 512

int lwt__gauss_half_width(double lambda, double d, size_t n)
{
    double h = floor(LWT_GAUSS_TRUNCATION * lambda / d);
    double cap = n > 0 ? (double)(n - 1) : 0;
    return (int)(h < cap ? h : cap);
}

/* w[k] = exp(-pi (k d / (alpha lambda))^2), k = 0..h, scaled to sum 1 over -h..h. */
static double *kernel(double lambda, double d, int h)
{
    double *w = malloc(((size_t)h + 1) * sizeof *w);
    if (!w)
        return NULL;
    const double alpha = sqrt(log(2.0) / acos(-1.0)), pi = acos(-1.0);
    double sum = 0;
    for (int k = h; k >= 0; k--) { /* smallest first */
        double u = k * d / (alpha * lambda);
        w[k] = exp(-pi * u * u);
        sum += k ? 2 * w[k] : w[k];
    }
    for (int k = 0; k <= h; k++)
        w[k] /= sum;
    return w;
}

/* out[j] = w[0] a[j] + sum_{k=1..h} w[k] (a[j - k s] + a[j + k s]) for j in [0, n), k ascending;
   a has h * s readable values (the zero padding) before a[0] and after a[n - 1]. Cloned per
   instruction set; the file is compiled with -ffp-contract=off and none of the clones has FMA
   unless asked, so every clone rounds the same way (tests/c/test_surface_gauss.c compares
   thread counts, which reach the clones through different alignments). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void conv_sym(const double *restrict a, double *restrict out, size_t n, size_t s, const double *restrict w,
                     int h)
{
    for (size_t j0 = 0; j0 < n; j0 += BLOCK) {
        const size_t m = n - j0 < BLOCK ? n - j0 : BLOCK;
        double *restrict o = out + j0;
        const double *restrict c = a + j0;
        for (size_t j = 0; j < m; j++)
            o[j] = w[0] * c[j];
        for (int k = 1; k <= h; k++) {
            const double wk = w[k];
            const double *restrict lo = c - (size_t)k * s, *restrict hi = c + (size_t)k * s;
            for (size_t j = 0; j < m; j++)
                o[j] += wk * (lo[j] + hi[j]);
        }
    }
}

/* sum of the weights of taps -h..h that fall on points 0..n-1, seen from point i */
static double edge_sum(const double *w, int h, size_t n, size_t i)
{
    double s = w[0];
    for (int k = 1; k <= h; k++)
        s += w[k] * ((i >= (size_t)k) + (i + (size_t)k < n));
    return s;
}

typedef struct pass {
    size_t nx, ny;
    const double *wx, *wy;
    int hx, hy;
    int threads;
} pass;

/* tmp = the x pass of `in` (values = 0, 1: the valid-point indicator instead of the heights) */
static int pass_x(const pass *p, const double *in, int ones, double *tmp)
{
    const size_t nx = p->nx, hx = (size_t)p->hx;
    int bad = 0;
#pragma omp parallel num_threads(lwt__surf_threads(p->threads)) reduction(| : bad)
    {
        double *row = calloc(nx + 2 * hx, sizeof *row);
        bad |= !row;
#pragma omp for schedule(static)
        for (long long iy = 0; iy < (long long)p->ny; iy++) {
            if (!row)
                continue;
            const double *z = in + (size_t)iy * nx;
            for (size_t i = 0; i < nx; i++)
                row[hx + i] = isfinite(z[i]) ? (ones ? 1.0 : z[i]) : 0.0;
            conv_sym(row + hx, tmp + (size_t)iy * nx, nx, 1, p->wx, p->hx);
        }
        free(row);
    }
    return bad;
}

/* out = the y pass of tmp, divided by the weight sum: den (nx x ny) when given, else wsx[ix] *
   wsy[iy]; NaN where `in` is not finite or the weight sum is 0. in NULL: the y pass alone. */
static int pass_y(const pass *p, const double *tmp, const double *den, const double *wsx, const double *wsy,
                  const double *in, double *out)
{
    const size_t nx = p->nx, ny = p->ny, hy = (size_t)p->hy;
    const long long strips = (long long)((nx + STRIP - 1) / STRIP);
    int bad = 0;
#pragma omp parallel num_threads(lwt__surf_threads(p->threads)) reduction(| : bad)
    {
        double *col = calloc((ny + 2 * hy) * STRIP, sizeof *col);
        double *res = malloc(ny * STRIP * sizeof *res);
        bad |= !col || !res;
#pragma omp for schedule(static)
        for (long long st = 0; st < strips; st++) {
            if (!col || !res)
                continue;
            const size_t x0 = (size_t)st * STRIP, bw = nx - x0 < STRIP ? nx - x0 : STRIP;
            for (size_t iy = 0; iy < ny; iy++)
                memcpy(col + (hy + iy) * STRIP, tmp + iy * nx + x0, bw * sizeof *col);
            conv_sym(col + hy * STRIP, res, ny * STRIP, STRIP, p->wy, p->hy);
            for (size_t iy = 0; iy < ny; iy++)
                for (size_t l = 0; l < bw; l++) {
                    const size_t i = iy * nx + x0 + l;
                    if (!in) {
                        out[i] = res[iy * STRIP + l];
                        continue;
                    }
                    const double d = den ? den[i] : wsx[x0 + l] * wsy[iy];
                    out[i] = isfinite(in[i]) && d > 0 ? res[iy * STRIP + l] / d : NAN;
                }
        }
        free(col);
        free(res);
    }
    return bad;
}

lwt_status lwt__gauss_smooth(const double *in, size_t nx, size_t ny, double dx, double dy, double lambda,
                             int masked, int threads, double *out)
{
    pass p = {nx, ny, NULL, NULL, lwt__gauss_half_width(lambda, dx, nx), lwt__gauss_half_width(lambda, dy, ny),
              threads};
    double *wx = kernel(lambda, dx, p.hx), *wy = kernel(lambda, dy, p.hy);
    double *wsx = malloc(nx * sizeof *wsx), *wsy = malloc(ny * sizeof *wsy);
    double *tmp = malloc(nx * ny * sizeof *tmp), *den = masked ? malloc(nx * ny * sizeof *den) : NULL;
    int bad = !wx || !wy || !wsx || !wsy || !tmp || (masked && !den);
    if (!bad) {
        p.wx = wx;
        p.wy = wy;
        for (size_t i = 0; i < nx; i++)
            wsx[i] = edge_sum(wx, p.hx, nx, i);
        for (size_t i = 0; i < ny; i++)
            wsy[i] = edge_sum(wy, p.hy, ny, i);
        /* the weight sum of the valid points under each kernel position: the same two passes
           over the valid-point indicator (x pass into tmp, y pass into den) */
        if (masked)
            bad = pass_x(&p, in, 1, tmp) || pass_y(&p, tmp, NULL, NULL, NULL, NULL, den);
        bad = bad || pass_x(&p, in, 0, tmp) || pass_y(&p, tmp, den, wsx, wsy, in, out);
    }
    free(wx);
    free(wy);
    free(wsx);
    free(wsy);
    free(tmp);
    free(den);
    return bad ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}
