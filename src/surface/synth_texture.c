/*
 * synth_texture.c - the roughness part of a synthetic surface: a grinding lay (Gaussian noise
 * smoothed long along x and short across), random deep scratches and pits, all high-passed at
 * about 16 spacings (minus a Gaussian blur of sigma 3 spacings, half power near 16) so that the
 * truth lies in the roughness band, then scaled to the requested RMS. Periodic convolutions;
 * per-row random streams; ordered sums: the result does not depend on the thread count.
 */
#include "surface/synth_parts.h"
#include "surface/threads.h"

#include <stdlib.h>
#include <string.h>

#define HIGHPASS_SIGMA 1.5

enum { PURPOSE_NOISE = 1, PURPOSE_SCRATCH = 2, PURPOSE_PIT = 3 };

static double *gauss_kernel(double sigma, long *radius)
{
    long r = (long)ceil(3.0 * sigma);
    if (r < 1)
        r = 1;
    double *w = malloc((size_t)(2 * r + 1) * sizeof *w), s = 0;
    if (!w)
        return NULL;
    for (long k = -r; k <= r; k++)
        s += w[k + r] = exp(-0.5 * (double)(k * k) / (sigma * sigma));
    for (long k = 0; k <= 2 * r; k++)
        w[k] /= s;
    *radius = r;
    return w;
}

static size_t wrap(long i, size_t n)
{
    long m = i % (long)n;
    return (size_t)(m < 0 ? m + (long)n : m);
}

/* periodic Gaussian blur along x (rows) */
static int blur_x(const double *src, double *dst, size_t nx, size_t ny, double sigma, int nt)
{
    long r;
    double *w = gauss_kernel(sigma, &r);
    if (!w)
        return -2;
    int oom = 0;
#pragma omp parallel num_threads(nt) reduction(| : oom)
    {
        double *ext = malloc((nx + 2 * (size_t)r) * sizeof *ext);
        if (!ext)
            oom = 1;
#pragma omp for schedule(static)
        for (long long j = 0; j < (long long)ny; j++) {
            if (!ext)
                continue;
            const double *row = src + (size_t)j * nx;
            for (long i = -r; i < (long)nx + r; i++)
                ext[i + r] = row[wrap(i, nx)];
            double *o = dst + (size_t)j * nx;
            for (size_t i = 0; i < nx; i++) {
                double s = 0;
                for (long k = 0; k <= 2 * r; k++)
                    s += w[k] * ext[i + (size_t)k];
                o[i] = s;
            }
        }
        free(ext);
    }
    free(w);
    return oom ? -2 : 0;
}

/* periodic Gaussian blur along y (columns), row by row */
static int blur_y(const double *src, double *dst, size_t nx, size_t ny, double sigma, int nt)
{
    long r;
    double *w = gauss_kernel(sigma, &r);
    if (!w)
        return -2;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long j = 0; j < (long long)ny; j++) {
        double *o = dst + (size_t)j * nx;
        memset(o, 0, nx * sizeof *o);
        for (long k = -r; k <= r; k++) {
            const double *row = src + wrap((long)j + k, ny) * nx;
            double wk = w[k + r];
            for (size_t i = 0; i < nx; i++)
                o[i] += wk * row[i];
        }
    }
    free(w);
    return 0;
}

static double rms(const double *z, size_t nx, size_t ny, int nt)
{
    double *rs = malloc(ny * sizeof *rs), s = 0;
    if (!rs)
        return 0;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long j = 0; j < (long long)ny; j++) {
        double a = 0;
        for (size_t i = 0; i < nx; i++)
            a += z[(size_t)j * nx + i] * z[(size_t)j * nx + i];
        rs[j] = a;
    }
    for (size_t j = 0; j < ny; j++)
        s += rs[j];
    free(rs);
    return sqrt(s / (double)(nx * ny));
}

/* a straight scratch of Gaussian cross-section (sigma, depth), tapered over 10% at each end */
static void stamp_scratch(double *z, size_t nx, size_t ny, double x0, double y0, double x1, double y1, double sigma,
                          double depth)
{
    double vx = x1 - x0, vy = y1 - y0, len = hypot(vx, vy);
    if (len < 1)
        return;
    double ux = vx / len, uy = vy / len, R = 3.5 * sigma;
    double xlo = fmin(x0, x1) - R, xhi = fmax(x0, x1) + R;
    long ya = (long)floor(fmin(y0, y1) - R), yb = (long)ceil(fmax(y0, y1) + R);
    if (ya < 0) ya = 0;
    if (yb > (long)ny - 1) yb = (long)ny - 1;
    for (long y = ya; y <= yb; y++) {
        double xa = xlo, xb = xhi;
        if (fabs(uy) > 1e-9) { /* the strip |across| <= R cut by this row */
            double c = (y - y0) * ux, e1 = x0 + (c - R) / uy, e2 = x0 + (c + R) / uy;
            xa = fmax(xa, fmin(e1, e2));
            xb = fmin(xb, fmax(e1, e2));
        }
        long ia = (long)ceil(fmax(xa, 0)), ib = (long)floor(fmin(xb, (double)nx - 1));
        for (long x = ia; x <= ib; x++) {
            double px = x - x0, py = y - y0, t = px * ux + py * uy, c = px * uy - py * ux;
            double e = fmin(t, len - t) / (0.1 * len);
            if (e <= 0)
                continue;
            if (e > 1)
                e = 1;
            double taper = e * e * (3 - 2 * e);
            z[(size_t)y * nx + (size_t)x] -= depth * taper * exp(-0.5 * c * c / (sigma * sigma));
        }
    }
}

static void stamp_pit(double *z, size_t nx, size_t ny, double xc, double yc, double sigma, double depth)
{
    double R = 3.5 * sigma;
    long ia = (long)ceil(fmax(xc - R, 0)), ib = (long)floor(fmin(xc + R, (double)nx - 1));
    long ja = (long)ceil(fmax(yc - R, 0)), jb = (long)floor(fmin(yc + R, (double)ny - 1));
    for (long y = ja; y <= jb; y++)
        for (long x = ia; x <= ib; x++) {
            double r2 = (x - xc) * (x - xc) + (y - yc) * (y - yc);
            z[(size_t)y * nx + (size_t)x] -= depth * exp(-0.5 * r2 / (sigma * sigma));
        }
}

int lwt__synth_roughness(const lwt_synth_desc *d, double *out)
{
    const size_t nx = d->nx, ny = d->ny, n = nx * ny;
    const int nt = lwt__surf_threads(d->threads);
    if (d->rough_rms <= 0) {
        memset(out, 0, n * sizeof *out);
        return 0;
    }
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    int rc = -2;
    if (!a || !b)
        goto done;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long j = 0; j < (long long)ny; j++) {
        lwt__rng r = lwt__rng_stream(d->seed, PURPOSE_NOISE, (uint64_t)j);
        for (size_t i = 0; i < nx; i++)
            a[(size_t)j * nx + i] = lwt__rng_normal(&r);
    }
    /* the lay: long along x, short across */
    if (blur_x(a, b, nx, ny, d->lay_along, nt) || blur_y(b, out, nx, ny, d->lay_across, nt))
        goto done;
    double unit = rms(out, nx, ny, nt);
    if (!(unit > 0))
        unit = 1;
    lwt__rng r = lwt__rng_stream(d->seed, PURPOSE_SCRATCH, 0);
    long nscr = lround(d->scratch_density * (double)n / 1e6);
    double side = (double)(nx < ny ? nx : ny);
    for (long k = 0; k < nscr; k++) {
        double xc = lwt__rng_uniform(&r) * nx, yc = lwt__rng_uniform(&r) * ny;
        double ang = lwt__rng_uniform(&r) * 3.141592653589793, len = (0.1 + 0.4 * lwt__rng_uniform(&r)) * side;
        double sig = 0.8 + 0.8 * lwt__rng_uniform(&r), dep = (3 + 3 * lwt__rng_uniform(&r)) * unit;
        double hx = 0.5 * len * cos(ang), hy = 0.5 * len * sin(ang);
        stamp_scratch(out, nx, ny, xc - hx, yc - hy, xc + hx, yc + hy, sig, dep);
    }
    r = lwt__rng_stream(d->seed, PURPOSE_PIT, 0);
    long npit = lround(d->pit_density * (double)n / 1e4);
    for (long k = 0; k < npit; k++) {
        double xc = lwt__rng_uniform(&r) * nx, yc = lwt__rng_uniform(&r) * ny;
        double sig = 1.0 + 1.5 * lwt__rng_uniform(&r), dep = (4 + 4 * lwt__rng_uniform(&r)) * unit;
        stamp_pit(out, nx, ny, xc, yc, sig, dep);
    }
    /* high-pass: out -= isotropic blur of out */
    if (blur_x(out, b, nx, ny, HIGHPASS_SIGMA, nt) || blur_y(b, a, nx, ny, HIGHPASS_SIGMA, nt))
        goto done;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long i = 0; i < (long long)n; i++)
        out[i] -= a[i];
    double s = rms(out, nx, ny, nt);
    double scale = s > 0 ? d->rough_rms / s : 0;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long i = 0; i < (long long)n; i++)
        out[i] *= scale;
    rc = 0;
done:
    free(a);
    free(b);
    return rc;
}
