/*
 * filter.h - wavelet band split of a height map into form, waviness, roughness (and noise),
 * seed 000 section 6.3, eq. 25.
 *
 *   1. optional least-squares plane removal (lwt_plane_fit over the valid points);
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

#include <stddef.h>

#include "lwt.h"
#include "surface/bands.h"
#include "surface/plane.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LWT_SPLIT_ONE_CHUNK ((size_t)-1)

enum { LWT_BAND_FORM = 0, LWT_BAND_WAVINESS = 1, LWT_BAND_ROUGHNESS = 2, LWT_BAND_NOISE = 3, LWT_BAND_COUNT = 4 };

/** "form", "waviness", "roughness", "noise". */
const char *lwt_filter_band_name(int band);

/** Progress: called as each step starts with (step index 0.., steps, what starts). */
typedef void (*lwt_filter_progress_fn)(void *user, int step, int steps, const char *what);

typedef struct lwt_filter_spec {
    const char *wavelet;      /* NULL = "cdf97" */
    lwt_mode mode;            /* LWT_MODE_SYMMETRIC by default (see above) */
    lwt_dtype dtype;          /* precision of the transform: LWT_F64 (default) or LWT_F32 */
    lwt_backend backend;      /* auto, cpu, cuda */
    lwt_algorithm algorithm;  /* auto by default */
    int plane;                /* 1: remove the least-squares plane first */
    int threads;              /* CPU threads of the fill/plane loops; 0 = default */
    size_t chunk_rows;        /* row chunks of the transform (split.h): 0 = lwt_filter_run's
                                 default (one chunk) or the splitter's (automatic);
                                 LWT_SPLIT_ONE_CHUNK = one chunk; else owned rows per chunk */
    lwt_band_split split;     /* from lwt_bands_resolve */
    lwt_filter_progress_fn progress;
    void *progress_user;
} lwt_filter_spec;

/** Defaults: cdf97, symmetric, f64, auto backend and algorithm, no plane; split zeroed. */
lwt_filter_spec lwt_filter_spec_default(void);

typedef struct lwt_filter_result {
    size_t nx, ny;
    double *band[LWT_BAND_COUNT]; /* metres, NaN at invalid points; band[NOISE] NULL without noise band */
    lwt_plane plane;              /* removed plane (all 0 when spec.plane is 0) */
    size_t n_filled;              /* invalid points filled before the transform */
    lwt_backend backend;          /* resolved backend */
    lwt_path path;                /* lifting or convolution */
    int max_level;                /* PyWavelets' dwtn_max_level for this shape and wavelet */
    char wavelet[32];             /* canonical name, e.g. "bior4.4" */
    /* Wall times in ms. ms_fill: copy, plane removal and fill. ms_transform: the band split,
       the forward transform and every band's inverse until the bands are complete in host memory
       as double, NaN restored (on CUDA with the uploads, downloads and conversions, which the
       engine overlaps chunk by chunk). ms_total: the whole call, including the plans and (CUDA)
       the device and pinned buffers, which no other field counts. */
    double ms_fill, ms_transform, ms_total;
} lwt_filter_result;

/** Split z (nx per row, ny rows, metres, NaN = invalid) with spacing dx, dy (metres).
 *  On failure every band is NULL and err holds one line. Needs at least one valid point. */
lwt_status lwt_filter_run(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx, size_t ny,
                          double dx, double dy, lwt_filter_result *out, char *err, size_t errlen);
/** Free the bands; NULL is a no-op. */
void lwt_filter_result_free(lwt_filter_result *r);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_FILTER_H */
