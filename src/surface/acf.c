/* acf.c - the areal autocorrelation function and the amplitude spectrum by FFT (acf.h). */
#include "surface/acf.h"
#include "core/fail.h"
#include "surface/fftw_planner.h"

#include <math.h>
#include <stdlib.h>

#ifndef LWT_HAVE_FFTW

lwt_status lwt__acf(lwt_context *ctx, const double *z, size_t nx, size_t ny, double **out)
{
    (void)z, (void)nx, (void)ny;
    *out = NULL;
    return lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "the spatial parameters need FFTW: this build has none "
                                              "(install libfftw3-dev, scripts/install-deps.sh, and rebuild)");
}

lwt_status lwt__amplitude(lwt_context *ctx, const double *z, size_t nx, size_t ny, double **out)
{
    return lwt__acf(ctx, z, nx, ny, out);
}

#else
#include <fftw3.h>

/* Plans are made and destroyed under FFTW's planner lock (fftw_planner.h); execution needs none.
 * FFTW_ESTIMATE plans are chosen without timing, so the same sizes always take the same
 * algorithm: the same bits on every run. */

/* |F(x)|^2 back to space: the circular autocorrelation of the padded array x (P x Q), times P Q */
static void power_back(fftw_plan fwd, fftw_plan inv, fftw_complex *f, size_t nf)
{
    fftw_execute(fwd);
    for (size_t k = 0; k < nf; k++) {
        f[k][0] = f[k][0] * f[k][0] + f[k][1] * f[k][1];
        f[k][1] = 0;
    }
    fftw_execute(inv);
}

/* mean and count of the valid points */
static double valid_mean(const double *z, size_t m, size_t *n)
{
    double sum = 0;
    *n = 0;
    for (size_t i = 0; i < m; i++)
        if (isfinite(z[i])) {
            sum += z[i];
            ++*n;
        }
    return *n ? sum / (double)*n : NAN;
}

lwt_status lwt__amplitude(lwt_context *ctx, const double *z, size_t nx, size_t ny, double **out)
{
    *out = NULL;
    size_t n;
    const double mean = valid_mean(z, nx * ny, &n);
    if (n == 0)
        return lwt_fail(ctx, LWT_ERR_NO_DATA, "amplitude spectrum: no valid point");
    const size_t Qc = nx / 2 + 1;
    double *x = fftw_malloc(nx * ny * sizeof *x), *amp = malloc(ny * Qc * sizeof *amp);
    fftw_complex *f = fftw_malloc(ny * Qc * sizeof *f);
    if (!x || !f || !amp) {
        fftw_free(x), fftw_free(f), free(amp);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the spectrum of %zu x %zu points", nx, ny);
    }
    lwt__fftw_planner_lock();
    fftw_plan fwd = fftw_plan_dft_r2c_2d((int)ny, (int)nx, x, f, FFTW_ESTIMATE);
    lwt__fftw_planner_unlock();
    for (size_t i = 0; i < nx * ny; i++)
        x[i] = isfinite(z[i]) ? z[i] - mean : 0.0;
    fftw_execute(fwd);
    for (size_t k = 0; k < ny * Qc; k++)
        amp[k] = hypot(f[k][0], f[k][1]);
    lwt__fftw_planner_lock();
    fftw_destroy_plan(fwd);
    lwt__fftw_planner_unlock();
    fftw_free(x), fftw_free(f);
    *out = amp;
    return LWT_OK;
}

lwt_status lwt__acf(lwt_context *ctx, const double *z, size_t nx, size_t ny, double **out)
{
    *out = NULL;
    size_t n;
    const double mean = valid_mean(z, nx * ny, &n);
    if (n == 0)
        return lwt_fail(ctx, LWT_ERR_NO_DATA, "autocorrelation: no valid point");
    /* zero-padded to 2 ny x 2 nx, so the circular correlation holds every linear lag unwrapped */
    const size_t P = 2 * ny, Q = 2 * nx, Qc = Q / 2 + 1, ox = 2 * nx - 1, oy = 2 * ny - 1;
    double *x = fftw_malloc(P * Q * sizeof *x), *w = n < nx * ny ? fftw_malloc(P * Q * sizeof *w) : NULL;
    fftw_complex *f = fftw_malloc(P * Qc * sizeof *f);
    double *acf = malloc(oy * ox * sizeof *acf);
    if (!x || !f || !acf || (n < nx * ny && !w)) {
        fftw_free(x), fftw_free(w), fftw_free(f), free(acf);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the autocorrelation of %zu x %zu points", nx,
                        ny);
    }
    lwt__fftw_planner_lock();
    fftw_plan fwd = fftw_plan_dft_r2c_2d((int)P, (int)Q, x, f, FFTW_ESTIMATE);
    fftw_plan inv = fftw_plan_dft_c2r_2d((int)P, (int)Q, f, x, FFTW_ESTIMATE);
    fftw_plan wfwd = w ? fftw_plan_dft_r2c_2d((int)P, (int)Q, w, f, FFTW_ESTIMATE) : NULL;
    fftw_plan winv = w ? fftw_plan_dft_c2r_2d((int)P, (int)Q, f, w, FFTW_ESTIMATE) : NULL;
    lwt__fftw_planner_unlock();
    for (size_t j = 0; j < P; j++)
        for (size_t i = 0; i < Q; i++) {
            double v = j < ny && i < nx ? z[j * nx + i] : NAN;
            x[j * Q + i] = isfinite(v) ? v - mean : 0.0;
            if (w)
                w[j * Q + i] = isfinite(v) ? 1.0 : 0.0;
        }
    power_back(fwd, inv, f, P * Qc);
    if (w)
        power_back(wfwd, winv, f, P * Qc);
    const double scale = 1.0 / ((double)P * (double)Q);
    for (size_t a = 0; a < oy; a++)
        for (size_t b = 0; b < ox; b++) {
            long long ly = (long long)a - (long long)(ny - 1), lx = (long long)b - (long long)(nx - 1);
            size_t r = (size_t)((ly + (long long)P) % (long long)P) * Q + (size_t)((lx + (long long)Q) % (long long)Q);
            /* the number of overlapping valid pairs: exact without invalid points, else the mask's
               correlation rounded to the integer it is */
            double pairs = w ? nearbyint(w[r] * scale)
                             : (double)(ny - (size_t)llabs(ly)) * (double)(nx - (size_t)llabs(lx));
            acf[a * ox + b] = pairs >= 1 ? x[r] * scale / pairs : NAN;
        }
    lwt__fftw_planner_lock();
    fftw_destroy_plan(fwd), fftw_destroy_plan(inv);
    if (w)
        fftw_destroy_plan(wfwd), fftw_destroy_plan(winv);
    lwt__fftw_planner_unlock();
    fftw_free(x), fftw_free(w), fftw_free(f);
    *out = acf;
    return LWT_OK;
}
#endif
