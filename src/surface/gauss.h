/*
 * gauss.h - the areal Gaussian filter of ISO 16610-61 (lwt_gauss_lowpass, public in
 * lwt_surface.h) and the Gaussian band split behind lwt_filter_run (spec.filter =
 * LWT_FILTER_GAUSSIAN).
 *
 * gauss_conv.c: one low-pass, a separable truncated convolution normalized by the weights of
 * the valid points under the kernel (so the field border and invalid points are handled by one
 * rule). The layout a GPU path can follow: pass 1 convolves each row (x) into a temporary, pass 2
 * each strip of columns (y); every output is w0 a[j] + sum_k w[k] (a[j-k] + a[j+k]) with k
 * ascending, so any decomposition that keeps that order gives the same bits.
 * gauss_filter.c: the cascade S -> L -> F and the bands.
 *
 * Pure computation on arrays: no printing, no files, no global state.
 */
#ifndef LWT_SURFACE_GAUSS_H
#define LWT_SURFACE_GAUSS_H

#include <stddef.h>

#include "lwt_surface.h"

/* The low-pass of `in` (nx x ny, NaN = invalid) into out (not overlapping in). masked: in has
   non-finite points (then the weight sum is convolved too; else it is the product of the 1-D
   sums inside the field). Returns LWT_OK or LWT_ERR_OUT_OF_MEMORY; logs nothing. */
lwt_status lwt__gauss_smooth(const double *in, size_t nx, size_t ny, double dx, double dy, double lambda,
                             int masked, int threads, double *out);

/* Half width in samples of the kernel for nesting index lambda at spacing d, along an axis of n
   points: floor(LWT_GAUSS_TRUNCATION * lambda / d), at most n - 1 (taps beyond the field only
   ever meet its zero padding). */
int lwt__gauss_half_width(double lambda, double d, size_t n);

/* The Gaussian band split (lwt_filter_run with spec->filter = LWT_FILTER_GAUSSIAN): spec read and
   checked by the caller; out zeroed. */
lwt_status lwt__gauss_filter_run(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx,
                                 size_t ny, double dx, double dy, lwt_filter_result *out);

#endif /* LWT_SURFACE_GAUSS_H */
