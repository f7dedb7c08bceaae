/* params_spatial.c - the ISO 25178-2 spatial parameters: Sal and Str from the autocorrelation
 * function, Std from the angular amplitude spectrum (lwt_surface.h; the FFTs are acf.c's). */
#include "surface/acf.h"
#include "core/fail.h"

#include <math.h>
#include <stdlib.h>

/* samples along each ray from the centre to an edge pixel (surfalize takes 1000 too) */
#define RAY_SAMPLES 1000

/* f at a fractional position (row y, column x) by bilinear interpolation of the four pixels */
static double bilinear(const double *f, size_t ox, double y, double x)
{
    size_t j = (size_t)y, i = (size_t)x;
    double ty = y - (double)j, tx = x - (double)i;
    const double *r = f + j * ox + i;
    double a = r[0], b = tx > 0 ? r[1] : a;
    double c = ty > 0 ? r[ox] : a, d = ty > 0 ? (tx > 0 ? r[ox + 1] : c) : b;
    return (1 - ty) * ((1 - tx) * a + tx * b) + ty * ((1 - tx) * c + tx * d);
}

/* Marks in `in` the 4-connected region around the centre where f > thr (an explicit stack);
 * returns 1 when it reaches the array's border. */
static int region(const double *f, size_t ox, size_t oy, double thr, unsigned char *in, size_t *stack)
{
    const size_t c = (oy / 2) * ox + ox / 2;
    size_t top = 0;
    int border = 0;
    in[c] = 1;
    stack[top++] = c;
    while (top) {
        size_t k = stack[--top], j = k / ox, i = k % ox;
        border |= j == 0 || i == 0 || j == oy - 1 || i == ox - 1;
        size_t nb[4];
        int m = 0;
        if (i > 0) nb[m++] = k - 1;
        if (i + 1 < ox) nb[m++] = k + 1;
        if (j > 0) nb[m++] = k - ox;
        if (j + 1 < oy) nb[m++] = k + ox;
        for (int q = 0; q < m; q++)
            if (!in[nb[q]] && f[nb[q]] > thr) { /* NaN (no overlap) is not above */
                in[nb[q]] = 1;
                stack[top++] = nb[q];
            }
    }
    return border;
}

/* Frequency of DFT index k of n samples at spacing d (NumPy's fftfreq: k >= ceil(n / 2) is
   negative, the Nyquist index of an even n too). */
static double freq(size_t k, size_t n, double d)
{
    return (k < (n + 1) / 2 ? (double)k : (double)k - (double)n) / ((double)n * d);
}

/* Std: the angle (degrees, [0, 180), counter-clockwise from +x with y up, the map's row 0 at the
 * top) of the largest bin of the angular amplitude density, the sum of |F| over the frequencies
 * whose direction falls in each STD_STEP-degree bin (ISO 25178-2 4.3.4's fAAD). The full
 * spectrum in NumPy's order, its right half read from the mirror |F(-k)| = |F(k)|. */
#define STD_STEP 0.5
#define STD_BINS 360

static lwt_status texture_direction(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                    double *std)
{
    double *amp, bins[STD_BINS] = {0};
    LWT_FORWARD(lwt__amplitude(ctx, z, nx, ny, &amp));
    const size_t Qc = nx / 2 + 1;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            double a = i < Qc ? amp[j * Qc + i] : amp[((ny - j) % ny) * Qc + (nx - i)];
            double th = atan2(-freq(j, ny, dy), freq(i, nx, dx)) * (180.0 / 3.141592653589793);
            th = fmod(th, 180.0);
            if (th < 0)
                th += 180.0;
            size_t b = (size_t)(th / STD_STEP);
            bins[b < STD_BINS ? b : STD_BINS - 1] += a;
        }
    free(amp);
    size_t best = 0;
    for (size_t b = 1; b < STD_BINS; b++)
        if (bins[b] > bins[best])
            best = b;
    *std = bins[best] > 0 ? (double)best * STD_STEP : NAN;
    return LWT_OK;
}

lwt_status lwt_spatial_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx,
                                      double dy, double s, int threads, lwt_spatial_params *out)
{
    (void)threads;
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_spatial_params_compute: NULL argument");
    out->Sal = out->Str = out->Std = NAN;
    if (s == 0)
        s = 0.2;
    LWT_RETURN_IF(!(s > 0 && s < 1), ctx, LWT_ERR_INVALID_ARGUMENT, "spatial parameters: threshold %g outside (0, 1)",
                  s);
    LWT_RETURN_IF(!(dx > 0 && dy > 0), ctx, LWT_ERR_INVALID_ARGUMENT, "spatial parameters: spacing %g, %g", dx, dy);
    double *f;
    LWT_FORWARD(lwt__acf(ctx, z, nx, ny, &f));
    const size_t ox = 2 * nx - 1, oy = 2 * ny - 1, cy = ny - 1, cx = nx - 1;
    const double thr = s * f[cy * ox + cx];
    unsigned char *in = calloc(ox * oy, 1);
    size_t *stack = malloc(ox * oy * sizeof *stack);
    if (!in || !stack) {
        free(f), free(in), free(stack);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the autocorrelation's region");
    }
    const int border = !(f[cy * ox + cx] > 0) || region(f, ox, oy, thr, in, stack);
    /* Each edge pixel (outside the region, next to it) gives a direction; along the ray from the
       centre to it the decay length is where f comes nearest the threshold (the edge pixel is
       below it, so the crossing lies on the ray). */
    double shortest = INFINITY, longest = 0;
    for (size_t j = 0; j < oy; j++)
        for (size_t i = 0; i < ox; i++) {
            size_t k = j * ox + i;
            if (in[k] || !((i > 0 && in[k - 1]) || (i + 1 < ox && in[k + 1]) || (j > 0 && in[k - ox]) ||
                           (j + 1 < oy && in[k + ox])))
                continue;
            const double vy = (double)j - (double)cy, vx = (double)i - (double)cx;
            const double dist = hypot(vy * dy, vx * dx);
            double best = INFINITY, at = 0;
            for (int q = 0; q < RAY_SAMPLES; q++) {
                double t = (double)q / (RAY_SAMPLES - 1), v = bilinear(f, ox, (double)cy + t * vy, (double)cx + t * vx);
                double e = fabs(v - thr);
                if (e < best) {
                    best = e;
                    at = t;
                }
            }
            double len = dist * at;
            shortest = len < shortest ? len : shortest;
            longest = len > longest ? len : longest;
        }
    free(f), free(in), free(stack);
    if (isfinite(shortest)) {
        out->Sal = shortest;
        if (!border && longest > 0)
            out->Str = shortest / longest;
    }
    return texture_direction(ctx, z, nx, ny, dx, dy, &out->Std);
}
