/*
 * bands.h - which wavelet detail levels make up noise, roughness and waviness (seed 000 eq. 25).
 *
 * A J-level 2-D transform splits a height map into the level-J approximation and the detail
 * levels 1..J (level 1 = finest). Level j details hold wavelengths of about 2^j..2^(j+1) sample
 * spacings, so the boundary between levels j-1 and j sits at 2^j spacings. The bands tile the
 * levels without gaps, so that the band surfaces add up to the input:
 *
 *   noise      levels 1 .. A-1      wavelengths below lambda-s   (absent when A = 1)
 *   roughness  levels A .. B        lambda-s .. lambda-c
 *   waviness   levels B+1 .. J      lambda-c .. lambda-f          (empty when B = J)
 *   form       the level-J approximation, wavelengths above lambda-f = 2^(J+1) spacings
 *
 * A cutoff wavelength lambda maps to the nearest level boundary on a log scale:
 * A = round(log2(lambda_s / d)), B + 1 = round(log2(lambda_c / d)), where d is the smaller of
 * the two spacings (so that neither axis is filtered coarser than asked). The effective cutoffs
 * per axis are then 2^A * (dx, dy), 2^(B+1) * (dx, dy) and 2^(J+1) * (dx, dy).
 *
 * Pure computation: no printing, no files, no global state. Failures are logged through the
 * context (lwt_fail, core/fail.h).
 */
#ifndef LWT_SURFACE_BANDS_H
#define LWT_SURFACE_BANDS_H

/* lwt_band_request, lwt_band_split, lwt_bands_resolve, lwt_band_boundary and lwt_band_of_level
   are public (lwt_surface.h). */
#include "lwt_surface.h"
#include "stream/split_job.h"

/* the nearest level boundary to a wavelength for spacing d, round(log2(lambda / d)), held to
   0 .. LWT_BANDS_MAX_LEVELS + 2 */
int lwt__band_boundary_of(double lambda, double d);
/* lwt_bands_resolve without its size rule (the per-axis resolution has its own) */
lwt_status lwt__bands_levels(lwt_context *ctx, const lwt_band_request *req, size_t nx, size_t ny, double dx,
                             double dy, lwt_band_split *out);
/* the size rule: J levels need 2^(J+1) points along an axis of n points (axis 0: x, 1: y); the
   message suggests --levels (which counts the finer axis's levels) off more than that axis allows */
lwt_status lwt__bands_check_size(lwt_context *ctx, int J, size_t n, int axis, int off, size_t nx, size_t ny);

/* 1 when axes (a spec's) ask for the isotropic transform: all zero, or the split's levels on
   both axes (bands_axes.c) */
int lwt__band_axes_uniform(const lwt_band_axes *a, const lwt_band_split *s);
/* the one-level steps of a split by levels per axis (at most 2 LWT_BANDS_MAX_LEVELS), each
   step's details to the band of its level; LWT_ERR_INVALID_ARGUMENT for inconsistent axes */
lwt_status lwt__band_axes_steps(lwt_context *ctx, const lwt_band_axes *a, split_step *steps, int *nsteps);

#endif /* LWT_SURFACE_BANDS_H */
