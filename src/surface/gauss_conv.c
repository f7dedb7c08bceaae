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
static double *weights(double lambda, double d, int h)
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

/* out[j] = w[0] a[j] + sum_{k=1..h} w[k] (a[j - k s] + a[j + k s]) for j in [0, n), k ascending
   (odd: w[k] (a[j + k s] - a[j - k s]), the taps of an odd kernel w[-k] = -w[k], w[0] = 0: the
   moments of the regression filter, gauss_robust.c); a has h * s readable values (the zero
   padding) before a[0] and after a[n - 1]. Cloned per
   instruction set; the file is compiled with -ffp-contract=off, so no clone fuses a multiply
   and an add and every clone rounds each output the same way, vector lanes or scalar tail
   (tests/c/test_surface_gauss.c compares thread counts, whose buffers differ in alignment). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void conv_taps(const double *restrict a, double *restrict out, size_t n, size_t s, const double *restrict w,
                      int h, int odd)
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
            if (odd)
                for (size_t j = 0; j < m; j++)
                    o[j] += wk * (hi[j] - lo[j]);
            else
                for (size_t j = 0; j < m; j++)
                    o[j] += wk * (lo[j] + hi[j]);
        }
    }
}

void lwt__gauss_conv_line(const double *a, double *out, size_t n, size_t s, const double *w, int h, int odd)
{
    conv_taps(a, out, n, s, w, h, odd);
}

/* sum of the weights of taps -h..h that fall on points 0..n-1, seen from point i */
static double edge_sum(const double *w, int h, size_t n, size_t i)
{
    double s = w[0];
    for (int k = 1; k <= h; k++)
        s += w[k] * ((i >= (size_t)k) + (i + (size_t)k < n));
    return s;
}

int lwt__gauss_kernel_make(lwt__gauss_kernel *k, double lambda, double d, size_t n)
{
    k->h = lwt__gauss_half_width(lambda, d, n);
    k->w = weights(lambda, d, k->h);
    k->ws = malloc((n ? n : 1) * sizeof *k->ws);
    if (!k->w || !k->ws) {
        lwt__gauss_kernel_free(k);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        k->ws[i] = edge_sum(k->w, k->h, n, i);
    return 0;
}

void lwt__gauss_kernel_free(lwt__gauss_kernel *k)
{
    free(k->w);
    free(k->ws);
    k->w = k->ws = NULL;
}

/* One axis of the separable filter: the kernel and, for a long one, its FFT plan. */
typedef struct axis {
    const double *w;
    int h;
    const double *ws;    /* the in-field weight sums (lwt__gauss_kernel_make, as the GPU takes them) */
    lwt__gauss_fft *fft; /* NULL: direct */
} axis;

typedef struct pass {
    size_t nx, ny;
    axis x, y;
    int threads;
} pass;

/* tmp = the x pass of `in` (ones: the valid-point indicator instead of the heights), one row at
   a time: directly in a zero-padded buffer, or by FFT. */
static int pass_x(const pass *p, const double *in, int ones, double *tmp)
{
    const size_t nx = p->nx, ny = p->ny, hx = p->x.fft ? 0 : (size_t)p->x.h;
    int bad = 0;
#pragma omp parallel num_threads(lwt__surf_threads(p->threads)) reduction(| : bad)
    {
        double *row = calloc(nx + 2 * hx, sizeof *row);
        lwt__gauss_fft_work *scr = p->x.fft ? lwt__gauss_fft_work_new(p->x.fft) : NULL;
        bad |= !row || (p->x.fft && !scr);
#pragma omp for schedule(static)
        for (long long y = 0; y < (long long)ny; y++) {
            if (bad)
                continue;
            const double *z = in + (size_t)y * nx;
            double *b = row + hx;
            for (size_t i = 0; i < nx; i++)
                b[i] = isfinite(z[i]) ? (ones ? 1.0 : z[i]) : 0.0;
            if (p->x.fft)
                lwt__gauss_fft_line(p->x.fft, b, 1, tmp + (size_t)y * nx, 1, scr);
            else
                conv_taps(b, tmp + (size_t)y * nx, nx, 1, p->x.w, p->x.h, 0);
        }
        free(row);
        lwt__gauss_fft_work_free(scr);
    }
    return bad;
}

/* res (ny x STRIP) = the y pass of a gathered strip col (STRIP lanes, hy zero rows before and
   after): direct over all lanes at once, or one FFT per lane */
static void strip_y(const axis *a, const double *col, size_t ny, size_t hy, size_t lanes, double *res,
                    lwt__gauss_fft_work *scr)
{
    if (!a->fft) {
        conv_taps(col + hy * STRIP, res, ny * STRIP, STRIP, a->w, a->h, 0);
        return;
    }
    for (size_t l = 0; l < lanes; l++)
        lwt__gauss_fft_line(a->fft, col + hy * STRIP + l, STRIP, res + l, STRIP, scr);
}

/* out = the y pass of tmp, divided by the weight sum: den (nx x ny) when given, else wsx[ix] *
   wsy[iy]; NaN where `in` is not finite or the weight sum is 0. in NULL: the y pass alone. */
static int pass_y(const pass *p, const double *tmp, const double *den, const double *wsx, const double *wsy,
                  const double *in, double *out)
{
    const size_t nx = p->nx, ny = p->ny, hy = p->y.fft ? 0 : (size_t)p->y.h;
    const long long strips = (long long)((nx + STRIP - 1) / STRIP);
    int bad = 0;
#pragma omp parallel num_threads(lwt__surf_threads(p->threads)) reduction(| : bad)
    {
        double *col = calloc((ny + 2 * hy) * STRIP, sizeof *col);
        double *res = malloc(ny * STRIP * sizeof *res);
        lwt__gauss_fft_work *scr = p->y.fft ? lwt__gauss_fft_work_new(p->y.fft) : NULL;
        bad |= !col || !res || (p->y.fft && !scr);
#pragma omp for schedule(static)
        for (long long st = 0; st < strips; st++) {
            if (bad)
                continue;
            const size_t x0 = (size_t)st * STRIP, bw = nx - x0 < STRIP ? nx - x0 : STRIP;
            for (size_t iy = 0; iy < ny; iy++)
                memcpy(col + (hy + iy) * STRIP, tmp + iy * nx + x0, bw * sizeof *col);
            strip_y(&p->y, col, ny, hy, bw, res, scr);
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
        lwt__gauss_fft_work_free(scr);
    }
    return bad;
}

/* FFT or direct for lines of n points and half width h. The direct pass costs about h * n
   multiply-adds per line; the FFT about N log2 N (one real forward and one real inverse
   transform of length N = lwt__gauss_fft_length(n, h) per line). COST_FFT is measured: one
   low-pass of 4096^2, 2 threads, best of 3, on the 2-core development VM at a load of 2-4
   (bench/experiments/gauss_recursive_probe.c; docs/SURFACE.md, "Algorithm, by measurement"):
   direct 0.24 s at h = 16, 0.34 s at 32, 0.47 s at 48, 0.71 s at 64, 1.47 s at 256; FFTW
   0.35-0.69 s from h = 16 to 1024. They meet near h = 48, where h n = 3.9 N log2 N (N = 4200):
   with 4.0, FFT from h = 50 at 4096 points.
   Without FFTW every axis is direct. */
#define COST_FFT 4.0
static int use_fft(lwt_gauss_algo algo, int h, size_t n)
{
    if (!lwt__gauss_fft_available())
        return 0;
    if (algo != LWT_GAUSS_AUTO || h < 16)
        return algo == LWT_GAUSS_FFT;
    const double N = (double)lwt__gauss_fft_length(n, h);
    return (double)h * (double)n > COST_FFT * N * log2(N);
}

static int axis_make(axis *a, double lambda, double d, size_t n, lwt_gauss_algo algo)
{
    lwt__gauss_kernel k;
    a->fft = NULL;
    if (lwt__gauss_kernel_make(&k, lambda, d, n)) {
        a->w = a->ws = NULL;
        return -1;
    }
    a->w = k.w;
    a->h = k.h;
    a->ws = k.ws;
    if (use_fft(algo, a->h, n) && !(a->fft = lwt__gauss_fft_make(a->w, a->h, n)))
        return -1;
    return 0;
}

static void axis_free(axis *a)
{
    free((double *)a->w);
    free((double *)a->ws);
    lwt__gauss_fft_free(a->fft);
}

lwt_status lwt__gauss_smooth(const double *in, size_t nx, size_t ny, double dx, double dy, double lambda,
                             int masked, int threads, lwt_gauss_algo algo, double *out)
{
    pass p;
    memset(&p, 0, sizeof p);
    p.nx = nx;
    p.ny = ny;
    p.threads = threads;
    int bad = axis_make(&p.x, lambda, dx, nx, algo) | axis_make(&p.y, lambda, dy, ny, algo);
    double *tmp = malloc(nx * ny * sizeof *tmp), *den = masked ? malloc(nx * ny * sizeof *den) : NULL;
    bad = bad || !tmp || (masked && !den);
    if (!bad) {
        /* the weight sum of the valid points under each kernel position: the same two passes
           over the valid-point indicator (x pass into tmp, y pass into den) */
        if (masked)
            bad = pass_x(&p, in, 1, tmp) || pass_y(&p, tmp, NULL, NULL, NULL, NULL, den);
        bad = bad || pass_x(&p, in, 0, tmp) || pass_y(&p, tmp, den, p.x.ws, p.y.ws, in, out);
    }
    axis_free(&p.x);
    axis_free(&p.y);
    free(tmp);
    free(den);
    return bad ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}
