/* acf.h - the areal autocorrelation function of a height map (the linear, unbiased estimator)
 * and its amplitude spectrum, by FFT (FFTW). Internal to the spatial parameters
 * (params_spatial.c). */
#ifndef LWT_SURFACE_ACF_H
#define LWT_SURFACE_ACF_H

#include <stddef.h>

#include "lwt_surface.h"

/* f over the lags -(ny-1)..ny-1 (rows) and -(nx-1)..nx-1 (columns): *out is malloc'ed,
 * (2 ny - 1) x (2 nx - 1), lag (ly, lx) at [(ly + ny - 1) (2 nx - 1) + lx + nx - 1]; NaN where no
 * pair of valid points overlaps. Heights are taken about the mean of the valid points.
 * LWT_ERR_UNSUPPORTED without FFTW, LWT_ERR_NO_DATA without a valid point, LWT_ERR_OUT_OF_MEMORY. */
lwt_status lwt__acf(lwt_context *ctx, const double *z, size_t nx, size_t ny, double **out);

/* |F| of the heights about their mean (invalid points 0), unpadded: *out is malloc'ed,
 * ny x (nx / 2 + 1), the non-negative x frequencies of the 2-D DFT (the rest is their mirror:
 * |F(-ky, -kx)| = |F(ky, kx)|). Same failures as lwt__acf. */
lwt_status lwt__amplitude(lwt_context *ctx, const double *z, size_t nx, size_t ny, double **out);

#endif
