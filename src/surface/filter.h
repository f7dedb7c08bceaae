/*
 * filter.h - wavelet band split of a height map into form, waviness, roughness (and noise),
 * seed 000 section 6.3, eq. 25.
 *
 *   1. optional form removal over the valid points (the plane of lwt_plane_fit or a model of
 *      lwt_form_fit: form.h);
 *   2. invalid points filled by harmonic inpainting (fill.h);
 *   3. one forward J-level 2-D transform (liblwt, PyWavelets' wavedecn layout);
 *   4. one inverse transform per band, each from a copy of the coefficients in which every
 *      other band is zero: form = approximation only, waviness = detail levels B+1..J,
 *      roughness = levels A..B, noise = levels 1..A-1 (bands.h);
 *      steps 3-4 are a splitter (split.h), which on the CUDA backend keeps the data on the
 *      device (one upload, the band copies built on the GPU, downloads overlapped with the next
 *      transforms) with the plans and kernels of lwt_forward / lwt_inverse, hence the same bits;
 *   5. the invalid points are set back to NaN in every band.
 * The transform is linear and perfectly reconstructing, so form + waviness + roughness (+ noise)
 * equals the (levelled, filled) input to rounding.
 *
 * Default mode: symmetric (half-sample mirror). Zero and periodic extension put a step at the
 * border (the form's height against zero or against the opposite edge) that spreads into every
 * detail level; the mirror keeps heights continuous there, is the natural extension of a
 * symmetric biorthogonal wavelet such as CDF 9/7, and is PyWavelets' default, so every band
 * can be reproduced with pywt.wavedecn / waverecn.
 *
 * Pure computation on arrays: no printing, no files, no global state.
 */
#ifndef LWT_SURFACE_FILTER_H
#define LWT_SURFACE_FILTER_H

/* The spec, the result, lwt_filter_run and the band names are public (lwt_surface.h). */
#include "lwt_surface.h"
#include "surface/bands.h"
#include "surface/plane.h"

/* The caller's spec as this version's (lwt_plan_desc's rule, src/core/plan.c): a program built
   against an older header passes a shorter struct, whose missing fields get their defaults; a
   size this library does not know is LWT_ERR_INVALID_ARGUMENT, logged. */
lwt_status lwt__filter_spec_read(const lwt_context *ctx, const lwt_filter_spec *in, lwt_filter_spec *out);

/* The number of non-finite values of z (n of them), on the threads. */
size_t lwt__count_invalid(const double *z, size_t n, int threads);

#endif /* LWT_SURFACE_FILTER_H */
