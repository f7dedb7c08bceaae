/* report_json.c - report.json of one filtered surface (see report_json.h). */
#include "io/report_json.h"
#include "io/atomic_file.h"
#include "io/json_writer.h"
#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define UM 1e6

static void pair(json_writer *w, const char *key, double a, double b)
{
    json_key(w, key);
    json_begin_array(w);
    json_number(w, a);
    json_number(w, b);
    json_end_array(w);
}

/* {"filter": made_by, "levels": [lo, hi] | "approximation" | null (lo < 0), "wavelength_um":
   {"x": [lo, hi], "y": [lo, hi]}} */
static void band(json_writer *w, const char *name, const char *made_by, int lo, int hi, const double *wl_lo,
                 const double *wl_hi)
{
    json_key(w, name);
    json_begin_object(w);
    json_key(w, "filter");
    json_string(w, made_by);
    json_key(w, "levels");
    if (lo < 0) {
        json_null(w);
    } else if (lo == 0) {
        json_string(w, "approximation");
    } else {
        json_begin_array(w);
        if (lo <= hi) {
            json_int(w, lo);
            json_int(w, hi);
        }
        json_end_array(w);
    }
    json_key(w, "wavelength_um");
    json_begin_object(w);
    pair(w, "x", wl_lo[0] * UM, wl_hi ? wl_hi[0] * UM : NAN);
    pair(w, "y", wl_lo[1] * UM, wl_hi ? wl_hi[1] * UM : NAN);
    json_end_object(w);
    json_end_object(w);
}

static void cutoff(json_writer *w, const char *name, double requested, const double *eff)
{
    json_key(w, name);
    json_begin_object(w);
    json_key(w, "requested");
    if (requested > 0)
        json_number(w, requested * UM);
    else
        json_null(w);
    pair(w, "effective", eff[0] * UM, eff[1] * UM);
    json_end_object(w);
}

/* the split's levels per axis: r->axes, or the split's on both axes */
static lwt_band_axes axes_of(const lwt_report *r)
{
    const lwt_band_split *s = r->split;
    lwt_band_axes a = {{s->levels, s->levels}, {s->rough_lo, s->rough_lo}, {s->rough_hi, s->rough_hi}};
    return r->axes && r->axes->levels[0] + r->axes->levels[1] > 0 ? *r->axes : a;
}

/* "levels 3-6" of one axis's band (per axis, first > last: "no levels") */
static void level_text(char *buf, size_t len, int lo, int hi, int per_axis)
{
    if (per_axis && lo > hi)
        snprintf(buf, len, "no levels");
    else
        snprintf(buf, len, "levels %d-%d", lo, hi);
}

/* "wavelet W, detail levels 3-6", per axis when the axes' levels differ */
static void made_by(char *buf, size_t len, const lwt_report *r, const lwt_band_axes *a, int band)
{
    char t[2][48];
    const int same = a->levels[0] == a->levels[1] && a->rough_lo[0] == a->rough_lo[1] && a->rough_hi[0] == a->rough_hi[1];
    for (int k = 0; k < 2; k++) {
        const int lo = band == LWT_BAND_NOISE ? 1 : band == LWT_BAND_ROUGHNESS ? a->rough_lo[k] : a->rough_hi[k] + 1;
        const int hi = band == LWT_BAND_NOISE ? a->rough_lo[k] - 1 : band == LWT_BAND_ROUGHNESS ? a->rough_hi[k] : a->levels[k];
        if (band == LWT_BAND_FORM)
            snprintf(t[k], sizeof t[k], "approximation at level %d", a->levels[k]);
        else
            level_text(t[k], sizeof t[k], lo, hi, !same);
    }
    if (same)
        snprintf(buf, len, "wavelet %s, %s%s", r->wavelet, band == LWT_BAND_FORM ? "" : "detail ", t[0]);
    else
        snprintf(buf, len, "wavelet %s, %s along x, %s along y", r->wavelet, t[0], t[1]);
}

/* "levels_per_axis": each axis's levels and its bands' [first, last] ([] when empty); the
   Gaussian's has the same keys, null (its report has the wavelet's keys, null) */
static void levels_per_axis(json_writer *w, const lwt_report *r)
{
    json_key(w, "levels_per_axis");
    const lwt_band_axes a = r->gauss ? (lwt_band_axes){{0, 0}, {0, 0}, {0, 0}} : axes_of(r);
    json_begin_object(w);
    for (int k = 0; k < 2; k++) {
        json_key(w, k ? "y" : "x");
        json_begin_object(w);
        json_key(w, "levels");
        if (r->gauss)
            json_null(w);
        else
            json_int(w, a.levels[k]);
        const int lo[3] = {1, a.rough_lo[k], a.rough_hi[k] + 1}, hi[3] = {a.rough_lo[k] - 1, a.rough_hi[k], a.levels[k]};
        static const char *const names[3] = {"noise", "roughness", "waviness"};
        for (int b = 0; b < 3; b++) {
            json_key(w, names[b]);
            if (r->gauss) {
                json_null(w);
                continue;
            }
            json_begin_array(w);
            if (lo[b] <= hi[b]) {
                json_int(w, lo[b]);
                json_int(w, hi[b]);
            }
            json_end_array(w);
        }
        json_end_object(w);
    }
    json_end_object(w);
}

/* the wavelet split's bands: detail levels and their wavelengths per axis */
static void wavelet_bands(json_writer *w, const lwt_report *r)
{
    const lwt_band_split *s = r->split;
    const double nyq[2] = {2 * r->dx, 2 * r->dy};
    const lwt_band_axes a = axes_of(r);
    char by[4][160];
    made_by(by[0], sizeof by[0], r, &a, LWT_BAND_NOISE);
    made_by(by[1], sizeof by[1], r, &a, LWT_BAND_ROUGHNESS);
    made_by(by[2], sizeof by[2], r, &a, LWT_BAND_WAVINESS);
    made_by(by[3], sizeof by[3], r, &a, LWT_BAND_FORM);
    if (s->noise_hi > 0)
        band(w, "noise", by[0], 1, s->noise_hi, nyq, s->lambda_s);
    band(w, "roughness", by[1], s->rough_lo, s->rough_hi, s->lambda_s, s->lambda_c);
    band(w, "waviness", by[2], s->wavy_lo, s->wavy_hi, s->lambda_c, s->lambda_f);
    band(w, "form", by[3], 0, 0, s->lambda_f, NULL);
}

/* the Gaussian's bands: differences of the cascaded low-passes, wavelengths = nesting indices */
static void gauss_bands(json_writer *w, const lwt_report *r)
{
    const lwt_gauss_nesting *g = r->gauss;
    const double nyq[2] = {2 * r->dx, 2 * r->dy}, ls[2] = {g->lambda_s, g->lambda_s},
                 lc[2] = {g->lambda_c, g->lambda_c}, lf[2] = {g->lambda_f, g->lambda_f};
    char by[4][200];
    /* the S-filter is always the linear Gaussian; the L- and form filters the robust regression
       with --filter robust-gaussian */
    const char *lin = "ISO 16610-61 Gaussian", *lf_by = r->robust ? "ISO 16610-71 robust Gaussian regression" : lin;
    snprintf(by[0], sizeof by[0], "%s: input minus S-filter (lambda-s %g um)", lin, g->lambda_s * UM);
    if (g->lambda_s > 0 && r->robust)
        snprintf(by[1], sizeof by[1], "%s S-filter (lambda-s %g um) minus %s L-filter (lambda-c %g um)", lin,
                 g->lambda_s * UM, lf_by, g->lambda_c * UM);
    else if (g->lambda_s > 0)
        snprintf(by[1], sizeof by[1], "%s: S-filter (lambda-s %g um) minus L-filter (lambda-c %g um)", lin,
                 g->lambda_s * UM, g->lambda_c * UM);
    else
        snprintf(by[1], sizeof by[1], "%s: input minus L-filter (lambda-c %g um)", lf_by, g->lambda_c * UM);
    snprintf(by[2], sizeof by[2], "%s: L-filter (lambda-c %g um) minus form filter (lambda-f %g um)", lf_by,
             g->lambda_c * UM, g->lambda_f * UM);
    snprintf(by[3], sizeof by[3], "%s: low-pass at lambda-f %g um", lf_by, g->lambda_f * UM);
    if (g->lambda_s > 0)
        band(w, "noise", by[0], -1, 0, nyq, ls);
    band(w, "roughness", by[1], -1, 0, g->lambda_s > 0 ? ls : nyq, lc);
    band(w, "waviness", by[2], -1, 0, lc, lf);
    band(w, "form", by[3], -1, 0, lf, NULL);
}

double lwt_report_feature_value(const lwt_feature_params *f, int k)
{
    const double v = lwt_feature_param_value(f, k);
    switch (lwt_feature_param_unit(k)) {
    case 'd': return v * 1e-6;
    case 'c': return v * 1e-3;
    case 'h': return v * UM;
    case 'a': return v * 1e6;
    default: return v * 1e9;
    }
}

static void params(json_writer *w, const char *name, const lwt_iso_params *p, const lwt_mr_params *mr,
                   const lwt_spatial_params *sp, const lwt_feature_params *ft)
{
    json_key(w, name);
    json_begin_object(w);
    for (int k = 0; k < LWT_ISO_PARAM_COUNT; k++) {
        double v = lwt_iso_param_value(p, k);
        json_key_number(w, lwt_iso_param_name(k), lwt_iso_param_is_height(k) ? v * UM : v);
    }
    for (int k = 0; mr && k < LWT_MR_PARAM_COUNT; k++) { /* heights and volumes (m = m^3/m^2) in um */
        double v = lwt_mr_param_value(mr, k);
        json_key_number(w, lwt_mr_param_name(k), lwt_mr_param_unit(k) == '%' ? v : v * UM);
    }
    if (sp) {
        json_key_number(w, "Sal", sp->Sal * UM);
        json_key_number(w, "Str", sp->Str);
        json_key_number(w, "Std", sp->Std);
    }
    for (int k = 0; ft && k < LWT_FEATURE_PARAM_COUNT; k++)
        json_key_number(w, lwt_feature_param_name(k), lwt_report_feature_value(ft, k));
    json_end_object(w);
}

/* the settings of the material ratio parameters (lwt_mr_spec_default's, which lwt filter uses) */
static void mr_settings(json_writer *w)
{
    const lwt_mr_spec s = lwt_mr_spec_default();
    json_key(w, "material_ratio");
    json_begin_object(w);
    json_key_number(w, "Smr_c_um", s.smr_c * UM);
    json_key_number(w, "Smc_mr", s.smc_mr);
    json_key_number(w, "p", s.p);
    json_key_number(w, "q", s.q);
    pair(w, "Sxp", s.sxp_p, s.sxp_q);
    pair(w, "Sdc", s.sdc_a, s.sdc_b);
    json_key_number(w, "Sk_region", s.sk_width);
    json_end_object(w);
}

static void units(json_writer *w)
{
    static const char *const U[][2] = {{"heights", "um"}, {"spacing", "um"}, {"wavelengths", "um"},
                                       {"Sa", "um"}, {"Sq", "um"}, {"Ssk", "1"}, {"Sku", "1"}, {"Sp", "um"},
                                       {"Sv", "um"}, {"Sz", "um"}, {"Sdq", "1"}, {"Sdr", "%"},
                                       {"Smr", "%"}, {"Smc", "um"}, {"Sxp", "um"}, {"Sdc", "um"},
                                       {"Sk", "um"}, {"Spk", "um"}, {"Svk", "um"}, {"Smr1", "%"},
                                       {"Smr2", "%"}, {"Vmp", "ml/m2"}, {"Vmc", "ml/m2"}, {"Vvv", "ml/m2"},
                                       {"Vvc", "ml/m2"}, {"material ratio", "%"}, {"Sal", "um"}, {"Str", "1"},
                                       {"Std", "degree"}, {"Spd", "1/mm2"}, {"Spc", "1/mm"},
                                       {"S10z", "um"}, {"S5p", "um"}, {"S5v", "um"}, {"Sda", "mm2"},
                                       {"Sha", "mm2"}, {"Sdv", "mm3"}, {"Shv", "mm3"},
                                       {"plane slopes", "1"}, {"timing", "ms"}};
    json_key(w, "units");
    json_begin_object(w);
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++) {
        json_key(w, U[i][0]);
        json_string(w, U[i][1]);
    }
    json_end_object(w);
}

static void timing(json_writer *w, const lwt_report *r)
{
    const lwt_filter_result *f = r->result;
    json_key(w, "timing_ms");
    json_begin_object(w);
    json_key_number(w, "read", r->ms_read);
    json_key_number(w, "fill", f->ms_fill);
    json_key_number(w, "transform", f->ms_transform); /* the forward and every band's inverse */
    json_key_number(w, "filter", f->ms_total);
    json_key_number(w, "parameters", r->ms_params);
    json_key_number(w, "write", r->ms_write);
    json_key_number(w, "total", r->ms_total);
    json_end_object(w);
}

static void strings(json_writer *w, const char *key, const char *const *s, int n)
{
    json_key(w, key);
    json_begin_array(w);
    for (int i = 0; i < n; i++)
        json_string(w, s[i]);
    json_end_array(w);
}

/* the form model removed before the split (lwt_form, lwt_surface.h) */
static void form(json_writer *w, const lwt_form *f)
{
    json_key(w, "form");
    if (!f || f->kind == LWT_FORM_NONE) {
        json_null(w);
        return;
    }
    json_begin_object(w);
    json_key(w, "model");
    json_string(w, lwt_form_kind_name(f->kind));
    if (f->kind == LWT_FORM_POLY) {
        json_key(w, "degree");
        json_int(w, f->degree);
        json_key(w, "basis");
        json_string(w, "Legendre P_p(u) P_q(v), u = (x - xc) / hx, v = (y - yc) / hy; coefficients in the order "
                       "(p, q) = (0,0), (1,0), (0,1), (2,0), (1,1), (0,2), ...");
        pair(w, "centre_um", f->xc * UM, f->yc * UM);
        pair(w, "half_width_um", f->hx * UM, f->hy * UM);
        json_key(w, "coefficients_um");
        json_begin_array(w);
        for (int k = 0; k < f->ncoef; k++)
            json_number(w, f->coef[k] * UM);
        json_end_array(w);
    } else {
        json_key(w, "centre_um");
        json_begin_array(w);
        if (f->kind == LWT_FORM_CYLINDER_X)
            json_null(w);
        else
            json_number(w, f->cx * UM);
        if (f->kind == LWT_FORM_CYLINDER_Y)
            json_null(w);
        else
            json_number(w, f->cy * UM);
        json_number(w, f->cz * UM);
        json_end_array(w);
        json_key_number(w, "radius_um", f->radius * UM);
        json_key(w, "convex");
        json_bool(w, f->convex);
        json_key(w, "iterations");
        json_int(w, f->iterations);
    }
    json_key_number(w, "rms_residual_um", f->rms * UM);
    json_key(w, "valid_points");
    json_int(w, (long long)f->n_valid);
    json_end_object(w);
}

static void body(json_writer *w, const lwt_report *r)
{
    const lwt_filter_result *f = r->result;
    const lwt_band_split *s = r->split;
    json_key(w, "lwt_version");
    json_string(w, lwt_version_string());
    json_key(w, "input");
    json_string(w, r->input);
    json_key(w, "input_format");
    json_string(w, r->input_format);
    json_key(w, "points");
    json_begin_array(w);
    json_int(w, (long long)r->nx);
    json_int(w, (long long)r->ny);
    json_end_array(w);
    pair(w, "spacing_um", r->dx * UM, r->dy * UM);
    json_key(w, "valid_points");
    json_int(w, (long long)r->n_valid);
    json_key(w, "invalid_points");
    json_int(w, (long long)(r->nx * r->ny - r->n_valid));
    const int gauss = r->gauss != NULL;
    json_key(w, "fill");
    json_string(w, r->robust ? "none: invalid points weighted out (weight 0 in the regressions); NaN in every output"
                   : gauss ? "none: invalid points weighted out by the normalized Gaussian; NaN in every output"
                         : "harmonic (Laplace) inpainting, coarse to fine; invalid again (NaN) in every output");
    json_key(w, "filter");
    json_string(w, !gauss ? "wavelet" : r->robust ? "robust-gaussian" : "gaussian");
    const char *const wavelet_only[] = {"wavelet", "wavelet_pywt", "mode", "levels", "max_level_pywt"};
    for (int k = 0; gauss && k < 5; k++) {
        json_key(w, wavelet_only[k]);
        json_null(w);
    }
    if (!gauss) {
        json_key(w, "wavelet");
        json_string(w, r->wavelet);
        json_key(w, "wavelet_pywt");
        json_string(w, f->wavelet);
        json_key(w, "mode");
        json_string(w, r->mode);
        json_key(w, "levels");
        json_int(w, s->levels);
        json_key(w, "max_level_pywt");
        json_int(w, f->max_level);
    }
    json_key(w, "dtype");
    json_string(w, gauss ? "float64" : r->dtype);
    json_key(w, "backend");
    json_string(w, f->backend == LWT_BACKEND_CUDA ? "cuda" : "cpu");
    json_key(w, "algorithm");
    json_string(w, r->robust ? "L- and form filter: local second-order regression (moments by separable direct "
                               "convolution, kernel truncated at +-1.5 nesting index), reweighted by Tukey's biweight; "
                               "S-filter: separable convolution truncated at +-1 nesting index"
                   : gauss ? "separable direct convolution, kernel truncated at +-1 nesting index"
                   : f->path == LWT_PATH_LIFTING ? "lifting" : "convolution");
    json_key(w, "plane_removed");
    json_bool(w, r->plane_removed);
    json_key(w, "plane");
    if (r->plane_removed) {
        json_begin_object(w);
        json_key_number(w, "z0_um", f->plane.z0 * UM);
        json_key_number(w, "slope_x", f->plane.sx);
        json_key_number(w, "slope_y", f->plane.sy);
        json_end_object(w);
    } else {
        json_null(w);
    }
    form(w, r->form);
    json_key(w, "bands");
    json_begin_object(w);
    if (gauss)
        gauss_bands(w, r);
    else
        wavelet_bands(w, r);
    json_end_object(w);
    json_key(w, "cutoffs_um");
    json_begin_object(w);
    if (gauss) { /* the nesting indices as used: lengths, the same along both axes */
        const lwt_gauss_nesting *g = r->gauss;
        const double ls[2] = {g->lambda_s > 0 ? g->lambda_s : NAN, g->lambda_s > 0 ? g->lambda_s : NAN},
                     lc[2] = {g->lambda_c, g->lambda_c}, lf[2] = {g->lambda_f, g->lambda_f};
        cutoff(w, "lambda_s", r->lambda_s_req, ls);
        cutoff(w, "lambda_c", r->lambda_c_req, lc);
        cutoff(w, "lambda_f", 0, lf);
    } else {
        cutoff(w, "lambda_s", r->lambda_s_req, s->lambda_s);
        cutoff(w, "lambda_c", r->lambda_c_req, s->lambda_c);
        cutoff(w, "lambda_f", 0, s->lambda_f);
    }
    json_key_number(w, "spacing_used", s->spacing * UM); /* the Gaussian's defaults come from it too */
    json_end_object(w);
    json_key(w, "parameters");
    json_begin_object(w);
    static const char *const who[1 + LWT_BAND_COUNT] = {"input", "form", "waviness", "roughness", "noise"};
    for (int k = 0; k <= LWT_BAND_COUNT; k++)
        if (r->params[k])
            params(w, who[k], r->params[k], r->mr[k], r->spatial[k], r->feature[k]);
    json_end_object(w);
    mr_settings(w);
    if (r->feature[0]) { /* lwt_feature_params_compute's defaults, which lwt filter uses */
        json_key(w, "features");
        json_begin_object(w);
        json_key_number(w, "wolf_pruning_percent_of_Sz", 5);
        json_key_number(w, "connectivity", 8);
        json_key(w, "closed");
        json_string(w, "Sda, Sha, Sdv, Shv: motifs touching neither the border nor an invalid point");
        json_end_object(w);
    }
    units(w);
    timing(w, r);
    strings(w, "outputs", r->outputs, r->noutputs);
    strings(w, "notes", r->notes, r->nnotes);
    levels_per_axis(w, r);
}

lwt_status lwt_report_write_json(lwt_context *ctx, const char *path, const lwt_report *r)
{
    json_writer w;
    json_init(&w);
    json_begin_object(&w);
    body(&w, r);
    json_end_object(&w);
    if (!json_ok(&w)) {
        json_free(&w);
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "cannot build the JSON report");
    }
    lwt_status rc = lwt_write_file_atomic(ctx, path, w.buf, w.len);
    json_free(&w);
    return rc;
}
