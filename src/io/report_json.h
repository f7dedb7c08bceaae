/*
 * report_json.h - report.json of one filtered surface (lwt filter).
 *
 * Top-level keys: "lwt_version", "input", "input_format", "points" [nx, ny], "spacing_um"
 * [dx, dy], "valid_points", "invalid_points", "fill", "filter" ("wavelet" or "gaussian"),
 * "wavelet" (as asked), "wavelet_pywt" (PyWavelets name), "mode", "levels", "max_level_pywt",
 * "dtype", "backend", "algorithm", "plane_removed", "plane", "form" (null, or {"model": "poly",
 * "degree", "basis", "centre_um" [xc, yc], "half_width_um" [hx, hy], "coefficients_um", ...} or
 * {"model": "sphere" | "cylinder-x" | "cylinder-y", "centre_um" [cx, cy, cz] (null for the
 * coordinate along a cylinder's axis), "radius_um", "convex", "iterations", ...}, both with
 * "rms_residual_um" and "valid_points"), "bands" (per band: "filter", what
 * made it, "levels" [first, last] or "approximation", and "wavelength_um" {"x": [lo, hi], "y":
 * [lo, hi]}, hi null for form), "cutoffs_um" ("lambda_s", "lambda_c", "lambda_f": {"requested",
 * "effective": [x, y]}), "parameters" ({"input", "form", "waviness", "roughness"[, "noise"]}:
 * {"Sa", "Sq", "Ssk", "Sku", "Sp", "Sv", "Sz", "Sdq", "Sdr", and the material ratio family
 * "Smr", "Smc", "Sxp", "Sdc", "Sk", "Spk", "Svk", "Smr1", "Smr2", "Vmp", "Vmc", "Vvv", "Vvc",
 * with --spatial "Sal", "Str", "Std", and with --features "Spd", "Spc", "S10z", "S5p", "S5v", "Sda",
 * "Sha", "Sdv", "Shv"}), "material_ratio" (its settings), "features" (its settings, with
 * --features), "units", "timing_ms", "outputs", "notes", "levels_per_axis" ({"x": {"levels": J,
 * "noise": [first, last], "roughness": [...], "waviness": [...]}, "y": {...}}, [] for a band empty
 * along that axis; the bands' "levels" count the axis of the smaller spacing; for the Gaussian the
 * same keys, null). The Gaussian's report has the same keys: the wavelet's own
 * ("wavelet", "wavelet_pywt", "mode", "levels", "max_level_pywt", the bands' "levels") are null,
 * its wavelengths and effective cutoffs are the nesting indices used, the same along x and y.
 * Heights and lengths in micrometres, Sdr, Smr, Smr1, Smr2 in percent, volumes in ml/m^2
 * (= um), Sdq/Ssk/Sku dimensionless, times in ms.
 */
#ifndef LWT_IO_REPORT_JSON_H
#define LWT_IO_REPORT_JSON_H

#include <stddef.h>

#include "surface/filter.h"
#include "surface/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LWT_REPORT_MAX_ITEMS 16

typedef struct lwt_report {
    const char *input;              /* path as given */
    const char *input_format;       /* "x3p", ... */
    size_t nx, ny;
    double dx, dy;                  /* metres */
    size_t n_valid;
    const char *wavelet;            /* as asked, e.g. "cdf97" */
    const char *mode;               /* "symmetric" */
    const char *dtype;              /* "float64" */
    const char *algorithm;          /* "auto", "lifting", "convolution" */
    const lwt_band_split *split;
    const lwt_gauss_nesting *gauss; /* the Gaussian's nesting indices; NULL: the wavelet split made the bands */
    int robust;                     /* with gauss: L- and F-filter by the robust regression (ISO 16610-71) */
    double lambda_s_req, lambda_c_req; /* metres, 0 = not given */
    const lwt_filter_result *result;   /* wavelet_pywt, backend, plane, n_filled, timings */
    int plane_removed;
    const lwt_form *form;              /* the form removed first (NULL or kind NONE: none) */
    const lwt_iso_params *params[1 + LWT_BAND_COUNT]; /* input, form, waviness, roughness, noise (NULL = absent) */
    const lwt_mr_params *mr[1 + LWT_BAND_COUNT];      /* their material ratio parameters (NULL = absent) */
    const lwt_spatial_params *spatial[1 + LWT_BAND_COUNT]; /* Sal, Str, Std (NULL = not asked) */
    double ms_read, ms_params, ms_write, ms_total;
    const char *outputs[LWT_REPORT_MAX_ITEMS];
    int noutputs;
    const char *notes[LWT_REPORT_MAX_ITEMS];
    int nnotes;
    const lwt_band_axes *axes;         /* the wavelet split's levels per axis (NULL: split's on both) */
    const lwt_feature_params *feature[1 + LWT_BAND_COUNT]; /* Spd ... Shv (NULL = not asked) */
} lwt_report;

/** Feature parameter k (lwt_feature_param_name) in the report's unit, ISO 25178-2's: Spd 1/mm^2,
 *  Spc 1/mm, S10z S5p S5v um, Sda Sha mm^2, Sdv Shv mm^3 (the table prints the same). */
double lwt_report_feature_value(const lwt_feature_params *f, int k);

/** Write the report to path atomically. A failure is logged through ctx ("path: reason") and
 *  returned; nothing is left behind. */
lwt_status lwt_report_write_json(lwt_context *ctx, const char *path, const lwt_report *r);

#ifdef __cplusplus
}
#endif
#endif /* LWT_IO_REPORT_JSON_H */
