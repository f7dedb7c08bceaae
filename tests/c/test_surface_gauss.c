/*
 * test_surface_gauss.c - the ISO 16610-61 Gaussian filter (src/surface/gauss*.c): transmission of
 * sinusoids against the standard's closed form, a plane through the L-filter, constants and
 * invalid points against a brute-force weighted mean written here from the definition, thread
 * counts (bits), the FFT path (FFTW) against the direct one and its transform lengths, and the Gaussian band split of
 * lwt_filter_run (bands add up, NaN kept, errors). Without FFTW the FFT path is the direct one (checked too).
 */
#include "check.h"
#include "test_log.h"
#include "lwt_surface.h"
#include "surface/gauss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static test_log tlog;

static const double PI = 3.14159265358979323846;

/* ISO 16610-61's low-pass transmission of wavelength w for nesting index lc */
static double transmission(double lc, double w)
{
    const double alpha = sqrt(log(2.0) / PI);
    return exp(-PI * (alpha * lc / w) * (alpha * lc / w));
}

/* largest |out - T in| over the points at least mx, my samples from the border */
static double interior_error(const double *in, const double *out, size_t nx, size_t ny, size_t mx, size_t my,
                             double T)
{
    double e = 0;
    for (size_t iy = my; iy + my < ny; iy++)
        for (size_t ix = mx; ix + mx < nx; ix++)
            e = fmax(e, fabs(out[iy * nx + ix] - T * in[iy * nx + ix]));
    return e;
}

/* A cosine of wavelength w along x (axis 0) or y (axis 1), lc = 40 spacings along x; dy = 1.5 dx
   so that the y kernel has its own length. Truncation at +-lc: |T - closed form| <= 2e-7
   (docs/SURFACE.md), the sampled kernel's own error is below 1e-12 at these widths. */
static void test_transmission(lwt_context *ctx)
{
    const size_t nx = 480, ny = 360;
    const double dx = 1e-6, dy = 1.5e-6, lc = 40e-6;
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o);
    const double ratios[] = {0.25, 0.5, 1.0, 2.0, 4.0};
    for (int axis = 0; axis < 2; axis++)
        for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
            const double w = ratios[r] * lc;
            for (size_t iy = 0; iy < ny; iy++)
                for (size_t ix = 0; ix < nx; ix++)
                    z[iy * nx + ix] = 1e-6 * cos(2 * PI * (axis ? iy * dy : ix * dx) / w + 0.3);
            CHECK(lwt_gauss_lowpass(ctx, z, nx, ny, dx, dy, lc, 0, o) == LWT_OK, "lowpass: %s", tlog.last);
            const double T = transmission(lc, w);
            const double e = interior_error(z, o, nx, ny, 41, 28, T) / 1e-6;
            CHECK(e <= 3e-7, "axis %d, wavelength %.2f lc: transmission off the closed form %.6g by %.3g", axis,
                  ratios[r], T, e);
        }
    /* the S-filter at the same nesting index keeps 1 - T: 50 % at lc */
    for (size_t i = 0; i < nx * ny; i++)
        z[i] = cos(2 * PI * (i % nx) * dx / lc);
    lwt_gauss_lowpass(ctx, z, nx, ny, dx, dy, lc, 0, o);
    double e = 0;
    for (size_t iy = 28; iy + 28 < ny; iy++)
        for (size_t ix = 41; ix + 41 < nx; ix++)
            e = fmax(e, fabs((z[iy * nx + ix] - o[iy * nx + ix]) - 0.5 * z[iy * nx + ix]));
    CHECK(e <= 3e-7, "S-filter at lc keeps 50 %% within %.3g", e);
    free(z);
    free(o);
}

/* The brute-force weighted mean of the definition at (ix, iy): weights s(x) s(y) of the valid
   points within +-lc along each axis, normalized by their sum. */
static double brute(const double *z, size_t nx, size_t ny, double dx, double dy, double lc, size_t ix, size_t iy)
{
    const double alpha = sqrt(log(2.0) / PI);
    double num = 0, den = 0;
    for (size_t jy = 0; jy < ny; jy++)
        for (size_t jx = 0; jx < nx; jx++) {
            const double u = ((double)jx - (double)ix) * dx, v = ((double)jy - (double)iy) * dy;
            if (fabs(u) > lc * (1 + 1e-12) || fabs(v) > lc * (1 + 1e-12) || !isfinite(z[jy * nx + jx]))
                continue;
            const double wgt = exp(-PI * (u * u + v * v) / (alpha * lc * alpha * lc));
            num += wgt * z[jy * nx + jx];
            den += wgt;
        }
    return num / den;
}

/* Plane: unchanged in the interior. Constant: unchanged everywhere, holes and border included.
   Invalid points: NaN out, and every other point the weighted mean of brute(). */
static void test_plane_nan(lwt_context *ctx)
{
    const size_t nx = 150, ny = 120;
    const double dx = 2e-6, dy = 2.5e-6, lc = 50e-6; /* half widths 25 and 20 samples */
    double *z = malloc(nx * ny * sizeof *z), *o = malloc(nx * ny * sizeof *o);
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++)
            z[iy * nx + ix] = 3e-6 + 0.02 * ix * dx - 0.05 * iy * dy;
    lwt_gauss_lowpass(ctx, z, nx, ny, dx, dy, lc, 0, o);
    CHECK(interior_error(z, o, nx, ny, 25, 20, 1.0) <= 1e-18, "plane changed in the interior by %.3g m",
          interior_error(z, o, nx, ny, 25, 20, 1.0));
    /* near the border the renormalized kernel is one-sided: a tilt is not kept there; at the
       corner the output is the plane at the centroid of the one-sided weights, sum_k k w / sum w
       along each axis (about 0.146 lc, docs/SURFACE.md) */
    double mean_k[2];
    const double sp[2] = {dx, dy};
    for (int a = 0; a < 2; a++) {
        double num = 0, den = 0;
        const double alpha = sqrt(log(2.0) / PI);
        for (int k = 0; k * sp[a] <= lc * (1 + 1e-12); k++) {
            const double wk = exp(-PI * (k * sp[a] / (alpha * lc)) * (k * sp[a] / (alpha * lc)));
            num += wk * k * sp[a];
            den += wk;
        }
        mean_k[a] = num / den;
    }
    const double corner = 0.02 * mean_k[0] - 0.05 * mean_k[1];
    CHECK(fabs((o[0] - z[0]) - corner) <= 1e-9 * fabs(corner) && fabs(mean_k[0] / lc - 0.146) < 0.01,
          "plane at the corner moved by %.6g m, expected %.6g (centroids %.4g, %.4g lc)", o[0] - z[0], corner,
          mean_k[0] / lc, mean_k[1] / lc);
    /* holes: a disc, a row segment and the corner */
    size_t nbad = 0;
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++) {
            const double r2 = ((double)ix - 70) * ((double)ix - 70) + ((double)iy - 60) * ((double)iy - 60);
            if (r2 < 64 || (iy == 30 && ix > 10 && ix < 90) || (ix < 3 && iy < 3)) {
                z[iy * nx + ix] = NAN;
                nbad++;
            } else {
                z[iy * nx + ix] = 1e-6 * sin(0.37 * ix) * cos(0.21 * iy) + 0.01 * ix * dx;
            }
        }
    z[5 * nx + 100] = INFINITY; /* any non-finite height is invalid */
    nbad++;
    CHECK(lwt_gauss_lowpass(ctx, z, nx, ny, dx, dy, lc, 3, o) == LWT_OK, "lowpass with holes: %s", tlog.last);
    size_t nan_out = 0, wrong_nan = 0;
    for (size_t i = 0; i < nx * ny; i++) {
        nan_out += isnan(o[i]);
        wrong_nan += isnan(o[i]) != !isfinite(z[i]);
    }
    CHECK(nan_out == nbad && wrong_nan == 0, "NaN out %zu, invalid in %zu, mismatched %zu", nan_out, nbad, wrong_nan);
    const size_t probe[][2] = {{3, 0}, {0, 3}, {70, 52}, {62, 60}, {149, 119}, {50, 31}, {100, 6}, {75, 100}};
    for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++) {
        const size_t ix = probe[k][0], iy = probe[k][1];
        const double b = brute(z, nx, ny, dx, dy, lc, ix, iy), v = o[iy * nx + ix];
        CHECK(fabs(v - b) <= 1e-12 * 1e-6, "(%zu, %zu): %.15g against the weighted mean %.15g", ix, iy, v, b);
    }
    for (size_t i = 0; i < nx * ny; i++)
        if (isfinite(z[i]))
            z[i] = 7e-6;
    lwt_gauss_lowpass(ctx, z, nx, ny, dx, dy, lc, 0, o);
    double e = 0;
    for (size_t i = 0; i < nx * ny; i++)
        if (isfinite(z[i]))
            e = fmax(e, fabs(o[i] - 7e-6));
    CHECK(e <= 1e-20, "a constant with holes changed by %.3g m", e);
    free(z);
    free(o);
}

/* the same bits for 1, 2 and 3 threads, with and without invalid points */
static void test_threads(lwt_context *ctx)
{
    const size_t nx = 301, ny = 203;
    double *z = malloc(nx * ny * sizeof *z), *o[3];
    unsigned s = 12345;
    for (size_t i = 0; i < nx * ny; i++) {
        s = s * 1103515245u + 12345u;
        z[i] = (double)(s >> 8) / (1 << 24) * 1e-6;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            for (size_t i = 0; i < nx * ny; i += 97)
                z[i] = NAN;
        for (int t = 0; t < 3; t++) {
            o[t] = malloc(nx * ny * sizeof *o[t]);
            lwt_gauss_lowpass(ctx, z, nx, ny, 1e-6, 1e-6, 33e-6, t + 1, o[t]);
        }
        CHECK(!memcmp(o[0], o[1], nx * ny * sizeof *z) && !memcmp(o[0], o[2], nx * ny * sizeof *z),
              "thread counts give different bits (%s invalid points)", pass ? "with" : "without");
        for (int t = 0; t < 3; t++)
            free(o[t]);
    }
    free(z);
}

/* the FFT path (long kernels) against the direct one: the same convolution to rounding (the
   transform length n + h leaves no room for a wrapped tap: h = 70 and h = n - 1 would show it),
   and its own bits independent of the thread count. Without FFTW the FFT request runs directly:
   the same bits as the direct path. */
static void test_fft(void)
{
    if (!lwt__gauss_fft_available())
        printf("test_surface_gauss: this build has no FFTW: the FFT request must be the direct path\n");
    const size_t nx = 257, ny = 191;
    double *z = malloc(nx * ny * sizeof *z), *a = malloc(nx * ny * sizeof *a), *b = malloc(nx * ny * sizeof *b);
    unsigned s = 777;
    for (size_t i = 0; i < nx * ny; i++) {
        s = s * 1103515245u + 12345u;
        z[i] = 1e-3 + (double)(s >> 8) / (1 << 24) * 1e-6 + 1e-9 * (double)(i % nx);
    }
    for (int masked = 0; masked < 2; masked++) {
        if (masked)
            for (size_t i = 5; i < nx * ny; i += 61)
                z[i] = NAN;
        const double lam[] = {7e-6, 70e-6, 400e-6}; /* h 7 and 70 samples, and one beyond the field */
        for (int k = 0; k < 3; k++) {
            CHECK(lwt__gauss_smooth(z, nx, ny, 1e-6, 1.3e-6, lam[k], masked, 2, LWT_GAUSS_DIRECT, a) == LWT_OK &&
                      lwt__gauss_smooth(z, nx, ny, 1e-6, 1.3e-6, lam[k], masked, 1, LWT_GAUSS_FFT, b) == LWT_OK,
                  "smooth failed");
            double e = 0;
            int nan_ok = 1;
            for (size_t i = 0; i < nx * ny; i++) {
                nan_ok &= isnan(a[i]) == isnan(b[i]);
                if (!isnan(a[i]))
                    e = fmax(e, fabs(a[i] - b[i]));
            }
            CHECK(nan_ok && e <= 1e-14 * 1e-3, "lambda %g um%s: FFT off the direct convolution by %.3g m",
                  lam[k] * 1e6, masked ? " with holes" : "", e);
            if (!lwt__gauss_fft_available())
                CHECK(!memcmp(a, b, nx * ny * sizeof *a), "no FFTW: the FFT request is not the direct path");
            lwt__gauss_smooth(z, nx, ny, 1e-6, 1.3e-6, lam[k], masked, 3, LWT_GAUSS_FFT, a);
            CHECK(!memcmp(a, b, nx * ny * sizeof *a), "FFT: 1 and 3 threads give different bits");
        }
    }
    free(z);
    free(a);
    free(b);
}

/* lwt_filter_run with the Gaussian: the bands add up to the (levelled) input, NaN kept, the
   form is the lambda-f low-pass of the lambda-c low-pass; bad nesting and CUDA refused */
static void test_split(lwt_context *ctx)
{
    const size_t nx = 256, ny = 256;
    const double d = 1e-6;
    double *z = malloc(nx * ny * sizeof *z);
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++)
            z[iy * nx + ix] = 2e-6 * cos(2 * PI * ix / 150.0) + 0.3e-6 * sin(2 * PI * iy / 20.0) +
                              0.05e-6 * cos(2 * PI * ix / 4.0) + 1e-3 * ix * d;
    z[40 * nx + 40] = NAN;
    lwt_filter_spec f = lwt_filter_spec_default();
    f.filter = LWT_FILTER_GAUSSIAN;
    f.plane = 1;
    f.gauss.lambda_s = 10e-6;
    f.gauss.lambda_c = 40e-6;
    f.gauss.lambda_f = 100e-6;
    lwt_filter_result r;
    CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &r) == LWT_OK, "Gaussian split: %s", tlog.last);
    CHECK(r.band[LWT_BAND_NOISE] && !strcmp(r.wavelet, "gaussian"), "noise band %p, name '%s'",
          (void *)r.band[LWT_BAND_NOISE], r.wavelet);
    double e = 0;
    int nan_ok = 1;
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++) {
            const size_t i = iy * nx + ix;
            const double lev = z[i] - (r.plane.z0 + r.plane.sx * ix * d + r.plane.sy * iy * d);
            double sum = 0;
            for (int b = 0; b < LWT_BAND_COUNT; b++) {
                sum += r.band[b][i];
                nan_ok &= isnan(r.band[b][i]) == isnan(z[i]);
            }
            if (isfinite(z[i]))
                e = fmax(e, fabs(sum - lev));
        }
    CHECK(e <= 1e-12 * 4e-6, "bands add up to the levelled input within %.3g m", e);
    CHECK(nan_ok, "NaN exactly at the invalid point in every band");
    /* each band of the three cosines from the closed form (nesting indices of 10 spacings and
       more: the sampled kernel's own error is below 1e-7 there, docs/SURFACE.md): S -> L -> F in
       cascade, so a
       component of wavelength w keeps Ts (1 - Tc) in the roughness and Ts Tc (1 - Tf) in the
       waviness (the plane's residue is linear and stays in the form inside the field) */
    const double amp[3] = {2e-6, 0.3e-6, 0.05e-6}, wl[3] = {150e-6, 20e-6, 4e-6};
    double gain[3][2];
    for (int c = 0; c < 3; c++) {
        const double ts = transmission(10e-6, wl[c]), tc = transmission(40e-6, wl[c]);
        gain[c][0] = ts * (1 - tc);                              /* roughness */
        gain[c][1] = ts * tc * (1 - transmission(100e-6, wl[c])); /* waviness */
    }
    double er = 0, ew = 0;
    for (size_t iy = 128; iy < 129; iy++)
        for (size_t ix = 100; ix < 156; ix++) {
            const double part[3] = {cos(2 * PI * ix / 150.0), sin(2 * PI * iy / 20.0), cos(2 * PI * ix / 4.0)};
            double rr = 0, ww = 0;
            for (int c = 0; c < 3; c++) {
                rr += amp[c] * gain[c][0] * part[c];
                ww += amp[c] * gain[c][1] * part[c];
            }
            er = fmax(er, fabs(r.band[LWT_BAND_ROUGHNESS][iy * nx + ix] - rr));
            ew = fmax(ew, fabs(r.band[LWT_BAND_WAVINESS][iy * nx + ix] - ww));
        }
    CHECK(er < 2e-12 && ew < 2e-12, "bands off the closed-form transmissions by %.3g (roughness), %.3g m (waviness)",
          er, ew);
    lwt_filter_result_free(&r);

    test_log_reset(&tlog);
    f.gauss.lambda_f = 20e-6;
    CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &r) == LWT_ERR_INVALID_ARGUMENT && tlog.errors == 1 &&
              strstr(tlog.last, "lambda-c < lambda-f") && !r.band[0],
          "lambda-f below lambda-c: '%s'", tlog.last);
    f.gauss.lambda_f = 100e-6;
    f.backend = LWT_BACKEND_CUDA;
    test_log_reset(&tlog);
    if (lwt_context_device_count(ctx) == 0) /* with a GPU: tests/gpu/test_gpu_gauss.c */
        CHECK(lwt_filter_run(ctx, &f, z, nx, ny, d, d, &r) == LWT_ERR_BACKEND_UNAVAILABLE &&
                  strstr(tlog.last, "no CUDA device"),
              "CUDA without a device: '%s'", tlog.last);

    /* nesting resolved from a request: given cutoffs as given, the others from the split the
       request describes, with no size rule (a 2048 um form on a field of any size) */
    lwt_band_request q = {0};
    lwt_gauss_nesting g;
    q.lambda_c = 50e-6;
    CHECK(lwt_gauss_nesting_resolve(ctx, &q, d, d, &g) == LWT_OK, "resolve: %s", tlog.last);
    CHECK(g.lambda_s == 0 && g.lambda_c == 50e-6 && close_to(g.lambda_f, 128e-6, 1e-12),
          "nesting from lambda-c 50 um: %g %g %g", g.lambda_s, g.lambda_c, g.lambda_f);
    q.lambda_c = 800e-6;
    CHECK(lwt_gauss_nesting_resolve(ctx, &q, d, d, &g) == LWT_OK && close_to(g.lambda_f, 2048e-6, 1e-12),
          "nesting from lambda-c 800 um: %g %g %g (%s)", g.lambda_s, g.lambda_c, g.lambda_f, tlog.last);
    q = (lwt_band_request){0};
    q.rough_lo = 2;
    q.rough_hi = 3;
    CHECK(lwt_gauss_nesting_resolve(ctx, &q, d, 2 * d, &g) == LWT_OK && close_to(g.lambda_s, 4e-6, 1e-12) &&
              close_to(g.lambda_c, 16e-6, 1e-12) && close_to(g.lambda_f, 128e-6, 1e-12),
          "nesting from levels 2-3: %g %g %g", g.lambda_s, g.lambda_c, g.lambda_f);
    q.levels = 3;
    test_log_reset(&tlog);
    CHECK(lwt_gauss_nesting_resolve(ctx, &q, d, d, &g) == LWT_ERR_INVALID_ARGUMENT && tlog.errors == 1 &&
              strstr(tlog.last, "lambda-c 16 um < lambda-f 16 um"),
          "levels 3 with roughness 2-3: '%s'", tlog.last);
    free(z);
}

/* a 7-smooth even length, at least n + h, the smallest such */
static int smooth7(size_t N)
{
    for (size_t f = 2; f <= 7; f++)
        while (N % f == 0)
            N /= f;
    return N == 1;
}

static void test_fft_length(void)
{
    if (!lwt__gauss_fft_available())
        return;
    const size_t n[] = {1, 2, 191, 257, 4096, 4097, 10007};
    const int h[] = {0, 1, 7, 70, 256, 2048, 10006};
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            const size_t N = lwt__gauss_fft_length(n[i], h[j]), lo = n[i] + (size_t)h[j];
            int least = 1;
            for (size_t m = lo; m < N; m++)
                least &= !(m % 2 == 0 && smooth7(m));
            CHECK(N >= lo && N % 2 == 0 && smooth7(N) && least, "FFT length %zu for n %zu, h %d", N, n[i], h[j]);
        }
}

int main(void)
{
    lwt_context *ctx = test_log_context(&tlog);
    test_transmission(ctx);
    test_plane_nan(ctx);
    test_threads(ctx);
    test_fft();
    test_fft_length();
    test_split(ctx);
    lwt_context_destroy(ctx);
    return finish("test_surface_gauss");
}
