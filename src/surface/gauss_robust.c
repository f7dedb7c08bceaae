/* gauss_robust.c - the robust Gaussian regression filter of ISO 16610-71, areal, second order (gauss.h). */
#define _POSIX_C_SOURCE 200809L

#include "surface/gauss.h"
#include "surface/select.h"
#include "surface/spd_solve.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns per strip of the y pass (as gauss_conv.c's). */
#define STRIP 16
/* Tukey's biweight constant: c = 4.4 median |r| (ISO 16610-31's profile definition, applied to
   the residuals of the whole field). */
#define TUKEY_C 4.4
/* A median residual below this fraction of the heights' rms is rounding: the regression already
   reproduces the surface (a plane, a quadratic) and there is nothing to reweight. */
#define EXACT_FIT 1e-12

/* The moments of the local fit: M[a][b] = sum over the kernel of s(u, v) p u^a v^b (a + b <= 4)
   and R[a][b] the same of p z (a + b <= 2), u, v the offsets in nesting indices. Each is a
   separable correlation of a field that does not depend on the output point (p: validity times
   the robustness weight) with the kernel g_a(u) g_b(v), g_a(u) = s(u) u^a: 8 x passes (p with
   a = 0..4, p z with a = 0..2) and 21 y passes, all exact (no approximation of the weights). */
enum { NX_SRC = 8, NMOM = 21 };
static const int src_a[NX_SRC] = {0, 1, 2, 3, 4, 0, 1, 2};   /* x exponent of each x pass */
static const int src_nb[NX_SRC] = {5, 4, 3, 2, 1, 3, 2, 1}; /* y exponents b = 0..nb-1 after it */

/* the index in the y pass's results of M[a][b] (of_z = 0) or R[a][b] (of_z = 1): the x passes
   in src_a's order, each followed by its y exponents b = 0..src_nb - 1 */
static inline int mom(int of_z, int a, int b)
{
    static const int base[2][5] = {{0, 5, 9, 12, 14}, {15, 18, 20, -1, -1}};
    return base[of_z][a] + b;
}

/* One axis: the kernels g_a[k] = exp(-pi (k d / (gamma lambda))^2) (k d / lambda)^a, k = 0..h. */
typedef struct raxis {
    double *g[5];
    int h;
} raxis;

static void raxis_free(raxis *x)
{
    for (int a = 0; a < 5; a++)
        free(x->g[a]);
}

static int raxis_make(raxis *x, double lambda, double d, size_t n)
{
    memset(x, 0, sizeof *x);
    const double hf = floor(LWT_RGAUSS_TRUNCATION * lambda / d), cap = n > 0 ? (double)(n - 1) : 0;
    x->h = (int)(hf < cap ? hf : cap);
    const double pi = acos(-1.0);
    for (int a = 0; a < 5; a++) {
        if (!(x->g[a] = malloc(((size_t)x->h + 1) * sizeof(double)))) {
            raxis_free(x);
            return -1;
        }
        for (int k = 0; k <= x->h; k++) {
            const double u = k * d / lambda, e = u / LWT_RGAUSS_GAMMA;
            double p = 1;
            for (int i = 0; i < a; i++)
                p *= u;
            x->g[a][k] = exp(-pi * e * e) * p;
        }
    }
    return 0;
}

typedef struct rfit {
    size_t nx, ny;
    raxis x, y;
    int threads;
    double *X[NX_SRC]; /* the x passes, nx * ny each */
} rfit;

/* X[s] = the x passes of p (s < 5) and of p z (s >= 5), zero beyond the field's ends */
static int pass_x(rfit *f, const double *z, const double *p)
{
    const size_t nx = f->nx, hx = (size_t)f->x.h;
    int bad = 0;
#pragma omp parallel num_threads(lwt__surf_threads(f->threads)) reduction(| : bad)
    {
        double *bp = calloc(nx + 2 * hx, sizeof *bp), *bq = calloc(nx + 2 * hx, sizeof *bq);
        bad |= !bp || !bq;
#pragma omp for schedule(static)
        for (long long y = 0; y < (long long)f->ny; y++) {
            if (bad)
                continue;
            const size_t o = (size_t)y * nx;
            for (size_t i = 0; i < nx; i++) {
                bp[hx + i] = p[o + i];
                bq[hx + i] = p[o + i] > 0 ? p[o + i] * z[o + i] : 0.0;
            }
            for (int s = 0; s < NX_SRC; s++)
                lwt__gauss_conv_line((s < 5 ? bp : bq) + hx, f->X[s] + o, nx, 1, f->x.g[src_a[s]], f->x.h,
                                     src_a[s] & 1);
        }
        free(bp);
        free(bq);
    }
    return bad;
}

/* The bases tried at a point, in order, as indices into {1, u, v, u^2, uv, v^2}: the quadratic,
   then the plane, for an areal field; a field of one row (hy = 0: no v moment) or one column
   fits the profile's quadratic (1, u, u^2), then its line. Then the weighted mean. */
typedef struct basis {
    int n, k[6];
} basis;
static const basis bases[3][2] = {
    {{6, {0, 1, 2, 3, 4, 5}}, {3, {0, 1, 2}}}, /* areal */
    {{3, {0, 1, 3}}, {2, {0, 1}}},             /* one row */
    {{3, {0, 2, 5}}, {2, {0, 2}}},             /* one column */
};

/* The local second-order fit at one point from its moments m[NMOM]: the fitted value at the
   point. When the normal equations are singular to rounding (spd_solve.h: too few weighted
   points, or all on a line), the next basis of bases[shape], then the weighted mean. */
static double solve_point(const double *m, int shape)
{
    static const int ea[6] = {0, 1, 0, 2, 1, 0}, eb[6] = {0, 0, 1, 0, 1, 2}; /* 1 u v u^2 uv v^2 */
    double G[36], b[6], c[6];
    for (int t = 0; t < 2; t++) {
        const basis *B = &bases[shape][t];
        const int n = B->n;
        for (int i = 0; i < n; i++) {
            const int ki = B->k[i];
            b[i] = m[mom(1, ea[ki], eb[ki])];
            for (int j = 0; j < n; j++)
                G[i * n + j] = m[mom(0, ea[ki] + ea[B->k[j]], eb[ki] + eb[B->k[j]])];
        }
        if (lwt__spd_solve(G, b, n, c) == 0)
            return c[0];
    }
    return m[mom(1, 0, 0)] / m[mom(0, 0, 0)];
}

/* out = the fitted value at every finite point of z (NaN elsewhere), with point weights p
   (0 at invalid points); prev: the value where no point under the kernel has weight (NULL: NaN). */
static int pass_y_solve(rfit *f, const double *z, const double *prev, double *out)
{
    const size_t nx = f->nx, ny = f->ny, hy = (size_t)f->y.h;
    const int shape = f->y.h == 0 && f->x.h > 0 ? 1 : f->x.h == 0 && f->y.h > 0 ? 2 : 0;
    const long long strips = (long long)((nx + STRIP - 1) / STRIP);
    int bad = 0;
#pragma omp parallel num_threads(lwt__surf_threads(f->threads)) reduction(| : bad)
    {
        double *col = calloc((ny + 2 * hy) * STRIP, sizeof *col);
        double *res = malloc((size_t)NMOM * ny * STRIP * sizeof *res);
        bad |= !col || !res;
#pragma omp for schedule(static)
        for (long long st = 0; st < strips; st++) {
            if (bad)
                continue;
            const size_t x0 = (size_t)st * STRIP, bw = nx - x0 < STRIP ? nx - x0 : STRIP;
            int r = 0;
            for (int s = 0; s < NX_SRC; s++) {
                for (size_t iy = 0; iy < ny; iy++)
                    memcpy(col + (hy + iy) * STRIP, f->X[s] + iy * nx + x0, bw * sizeof *col);
                for (int b = 0; b < src_nb[s]; b++, r++)
                    lwt__gauss_conv_line(col + hy * STRIP, res + (size_t)r * ny * STRIP, ny * STRIP, STRIP,
                                         f->y.g[b], f->y.h, b & 1);
            }
            double m[NMOM];
            for (size_t iy = 0; iy < ny; iy++)
                for (size_t l = 0; l < bw; l++) {
                    const size_t i = iy * nx + x0 + l;
                    if (!isfinite(z[i])) {
                        out[i] = NAN;
                        continue;
                    }
                    for (int k = 0; k < NMOM; k++)
                        m[k] = res[(size_t)k * ny * STRIP + iy * STRIP + l];
                    out[i] = m[mom(0, 0, 0)] > 0 ? solve_point(m, shape) : prev ? prev[i] : NAN;
                }
        }
        free(col);
        free(res);
    }
    return bad;
}

/* one weighted regression: out from z and the point weights p */
static int regress(rfit *f, const double *z, const double *p, const double *prev, double *out)
{
    return pass_x(f, z, p) || pass_y_solve(f, z, prev, out);
}

lwt_status lwt__rgauss_smooth(const double *in, size_t nx, size_t ny, double dx, double dy, double lambda,
                              int threads, int max_iter, double tol, lwt__rgauss_info *info, double *out)
{
    const size_t n = nx * ny;
    rfit f;
    memset(&f, 0, sizeof f);
    f.nx = nx;
    f.ny = ny;
    f.threads = threads;
    lwt__rgauss_info dummy;
    if (max_iter < 0)
        max_iter = LWT_RGAUSS_MAX_ITER;
    if (tol < 0)
        tol = LWT_RGAUSS_TOL;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    int bad = raxis_make(&f.x, lambda, dx, nx) | raxis_make(&f.y, lambda, dy, ny);
    for (int s = 0; s < NX_SRC; s++)
        bad |= !(f.X[s] = malloc(n * sizeof(double)));
    double *p = malloc(n * sizeof *p), *prev = malloc(n * sizeof *prev), *r = malloc(n * sizeof *r);
    bad = bad || !p || !prev || !r;
    /* iteration 0: the (linear) second-order regression filter, every valid point weighted 1 */
    size_t nv = 0;
    double mean = 0, ss = 0;
    if (!bad) {
        for (size_t i = 0; i < n; i++) {
            p[i] = isfinite(in[i]) ? 1.0 : 0.0;
            if (p[i] > 0) {
                nv++;
                mean += in[i];
            }
        }
        mean = nv ? mean / (double)nv : 0;
        for (size_t i = 0; i < n; i++)
            if (p[i] > 0)
                ss += (in[i] - mean) * (in[i] - mean);
        bad = nv == 0 || regress(&f, in, p, NULL, out);
    }
    const double rms = nv ? sqrt(ss / (double)nv) : 0;
    for (int it = 1; !bad && it <= max_iter; it++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(in[i]))
                r[k++] = fabs(in[i] - out[i]);
        const double med = lwt__select_kth(r, k, (k - 1) / 2);
        info->scale = med;
        if (!(med > EXACT_FIT * rms)) { /* reproduced to rounding */
            info->converged = 1;
            break;
        }
        const double c = TUKEY_C * med;
#pragma omp parallel for num_threads(lwt__surf_threads(threads)) schedule(static)
        for (long long i = 0; i < (long long)n; i++) {
            const double u = (in[i] - out[i]) / c;
            p[i] = isfinite(in[i]) && fabs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0.0;
        }
        memcpy(prev, out, n * sizeof *out);
        if ((bad = regress(&f, in, p, prev, out)))
            break;
        double ch = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(in[i]) && fabs(out[i] - prev[i]) > ch)
                ch = fabs(out[i] - prev[i]);
        info->iterations = it;
        info->change = ch / med;
        if (info->change <= tol) {
            info->converged = 1;
            break;
        }
    }
    raxis_free(&f.x);
    raxis_free(&f.y);
    for (int s = 0; s < NX_SRC; s++)
        free(f.X[s]);
    free(p);
    free(prev);
    free(r);
    return bad ? (nv == 0 ? LWT_ERR_INVALID_ARGUMENT : LWT_ERR_OUT_OF_MEMORY) : LWT_OK;
}
