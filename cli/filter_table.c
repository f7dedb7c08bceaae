/* filter_table.c - the readable parameter table of lwt filter (stdout). */
#include "filter_job.h"
#include "surface/bands.h"

#include <math.h>
#include <stdio.h>

static void range(FILE *f, const char *band, int lo, int hi, const double *a, const double *b, int aniso)
{
    if (lo > hi) {
        fprintf(f, "  %s (empty)", band);
        return;
    }
    fprintf(f, "  %s %d-%d (%.4g-%.4g um", band, lo, hi, a[0] * 1e6, b[0] * 1e6);
    if (aniso)
        fprintf(f, " along x, %.4g-%.4g um along y", a[1] * 1e6, b[1] * 1e6);
    fputs(")", f);
}

/* one band of the per-axis levels line: "roughness 3-6 / 1-4 (8-128 / 8-128 um)", "-" for an
   axis without levels in it */
static void axis_range(FILE *f, const char *band, const int lo[2], const int hi[2], const double *a, const double *b)
{
    fprintf(f, "  %s", band);
    for (int k = 0; k < 2; k++) {
        if (lo[k] > hi[k])
            fprintf(f, "%s-", k ? " / " : " ");
        else
            fprintf(f, "%s%d-%d", k ? " / " : " ", lo[k], hi[k]);
    }
    fputs(" (", f);
    for (int k = 0; k < 2; k++) {
        if (lo[k] > hi[k])
            fprintf(f, "%s-", k ? " / " : "");
        else
            fprintf(f, "%s%.4g-%.4g", k ? " / " : "", a[k] * 1e6, b[k] * 1e6);
    }
    fputs(" um)", f);
}

/* the levels line of a split with levels per axis (lwt_bands_resolve_axes): x / y */
static void axes_levels(FILE *f, const lwt_report *r)
{
    const lwt_band_split *s = r->split;
    const lwt_band_axes *a = r->axes;
    const double nyq[2] = {2 * r->dx, 2 * r->dy};
    const int one[2] = {1, 1}, noise_hi[2] = {a->rough_lo[0] - 1, a->rough_lo[1] - 1};
    const int wavy_lo[2] = {a->rough_hi[0] + 1, a->rough_hi[1] + 1};
    fputs("  levels x / y:", f);
    if (noise_hi[0] > 0 || noise_hi[1] > 0)
        axis_range(f, "noise", one, noise_hi, nyq, s->lambda_s);
    axis_range(f, "roughness", a->rough_lo, a->rough_hi, s->lambda_s, s->lambda_c);
    axis_range(f, "waviness", wavy_lo, a->levels, s->lambda_c, s->lambda_f);
    fprintf(f, "  form > %.4g / %.4g um\n", s->lambda_f[0] * 1e6, s->lambda_f[1] * 1e6);
}

static void value(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %10.4g", v);
    else
        fprintf(f, " %10s", "-");
}

/* value of column k for surface b (0 the input, then the bands) in the table's unit; absent: the
   surface has no such parameters */
static int iso_cell(const lwt_report *r, int b, int k, double *v)
{
    if (!r->params[b])
        return 0;
    *v = lwt_iso_param_value(r->params[b], k) * (lwt_iso_param_is_height(k) ? 1e6 : 1);
    return 1;
}

static int mr_cell(const lwt_report *r, int b, int k, double *v)
{
    if (!r->mr[b])
        return 0;
    *v = lwt_mr_param_value(r->mr[b], k) * (lwt_mr_param_unit(k) == '%' ? 1 : 1e6);
    return 1;
}

static int spatial_cell(const lwt_report *r, int b, int k, double *v)
{
    const lwt_spatial_params *p = r->spatial[b];
    if (!p)
        return 0;
    *v = k == 0 ? p->Sal * 1e6 : k == 1 ? p->Str : p->Std;
    return 1;
}

static int feature_cell(const lwt_report *r, int b, int k, double *v)
{
    const lwt_feature_params *p = r->feature[b];
    if (!p)
        return 0;
    *v = lwt_report_feature_value(p, k);
    return 1;
}

/* one block of the table: a header line, then a line per surface that has the parameters */
static void block(FILE *f, const lwt_report *r, int ncols, const char *const head[], const char *note,
                  int (*cell)(const lwt_report *, int, int, double *))
{
    static const char *const who[1 + LWT_BAND_COUNT] = {"input", "form", "waviness", "roughness", "noise"};
    fprintf(f, "  %-10s", "");
    for (int k = 0; k < ncols; k++)
        fprintf(f, " %10s", head[k]);
    fprintf(f, "%s\n", note);
    double v;
    for (int b = 0; b <= LWT_BAND_COUNT; b++) {
        if (!cell(r, b, 0, &v))
            continue;
        fprintf(f, "  %-10s", who[b]);
        for (int k = 0; k < ncols; k++) {
            cell(r, b, k, &v);
            value(f, v);
        }
        fputc('\n', f);
    }
}

/* the Gaussian's header and band lines: nesting indices, the same along both axes */
static void gauss_head(FILE *f, const lwt_report *r)
{
    const lwt_gauss_nesting *g = r->gauss;
    fprintf(f, "  %zu x %zu points, spacing %.6g x %.6g um, %zu invalid; %s, float64, cpu\n", r->nx, r->ny,
            r->dx * 1e6, r->dy * 1e6, r->nx * r->ny - r->n_valid,
            r->robust ? "ISO 16610-71 robust Gaussian regression (S-filter ISO 16610-61)" : "ISO 16610-61 Gaussian");
    fputs("  nesting indices:", f);
    if (g->lambda_s > 0)
        fprintf(f, "  noise < %.4g um", g->lambda_s * 1e6);
    fprintf(f, "  roughness %.4g-%.4g um  waviness %.4g-%.4g um  form > %.4g um\n",
            (g->lambda_s > 0 ? g->lambda_s : 2 * fmax(r->dx, r->dy)) * 1e6, g->lambda_c * 1e6, g->lambda_c * 1e6,
            g->lambda_f * 1e6, g->lambda_f * 1e6);
}

/* the wavelet split's header and level lines */
static void wavelet_head(FILE *f, const lwt_report *r)
{
    const lwt_band_split *s = r->split;
    const lwt_filter_result *x = r->result;
    int aniso = fabs(r->dx - r->dy) > 1e-3 * (r->dx + r->dy);
    fprintf(f, "  %zu x %zu points, spacing %.6g x %.6g um, %zu invalid; %s (%s), %d levels, %s, %s, %s\n", r->nx,
            r->ny, r->dx * 1e6, r->dy * 1e6, r->nx * r->ny - r->n_valid, x->wavelet, r->wavelet, s->levels, r->mode,
            r->dtype, x->backend == LWT_BACKEND_CUDA ? "cuda" : "cpu");
    if (r->axes && !lwt__band_axes_uniform(r->axes, s)) {
        axes_levels(f, r);
        return;
    }
    fputs("  levels:", f);
    if (s->noise_hi > 0) {
        const double nyq[2] = {2 * r->dx, 2 * r->dy};
        range(f, "noise", 1, s->noise_hi, nyq, s->lambda_s, aniso);
    }
    range(f, "roughness", s->rough_lo, s->rough_hi, s->lambda_s, s->lambda_c, aniso);
    range(f, "waviness", s->wavy_lo, s->wavy_hi, s->lambda_c, s->lambda_f, aniso);
    fprintf(f, "  form > %.4g um", s->lambda_f[0] * 1e6);
    if (aniso)
        fprintf(f, " along x, > %.4g um along y", s->lambda_f[1] * 1e6);
    fputc('\n', f);
}

void filter_table_print(FILE *f, const lwt_report *r, const char *outdir)
{
    const lwt_filter_result *x = r->result;
    fprintf(f, "%s -> %s/\n", r->input, outdir);
    if (r->gauss)
        gauss_head(f, r);
    else
        wavelet_head(f, r);
    static const char *const head[LWT_ISO_PARAM_COUNT] = {"Sa/um", "Sq/um", "Ssk", "Sku", "Sp/um",
                                                          "Sv/um", "Sz/um", "Sdq", "Sdr/%"};
    char mr_head[LWT_MR_PARAM_COUNT][16];
    const char *mr_heads[LWT_MR_PARAM_COUNT];
    for (int k = 0; k < LWT_MR_PARAM_COUNT; k++) {
        char u = lwt_mr_param_unit(k);
        snprintf(mr_head[k], sizeof mr_head[k], "%s%s", lwt_mr_param_name(k), u == '%' ? "/%" : u == 'h' ? "/um" : "");
        mr_heads[k] = mr_head[k];
    }
    block(f, r, LWT_ISO_PARAM_COUNT, head, "", iso_cell);
    if (r->mr[0])
        block(f, r, LWT_MR_PARAM_COUNT, mr_heads, "  (V: ml/m2)", mr_cell); /* volumes in ml/m^2 = um */
    static const char *const sp_head[3] = {"Sal/um", "Str", "Std/deg"};
    if (r->spatial[0])
        block(f, r, 3, sp_head, "", spatial_cell);
    static const char *const ft_head[LWT_FEATURE_PARAM_COUNT] = {"Spd/mm-2", "Spc/mm-1", "S10z/um", "S5p/um", "S5v/um",
                                                                 "Sda/mm2",  "Sha/mm2",  "Sdv/mm3", "Shv/mm3"};
    if (r->feature[0])
        block(f, r, LWT_FEATURE_PARAM_COUNT, ft_head, "", feature_cell);
    int ninv = 0;
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        ninv += x->band[b] != NULL;
    char what[64];
    if (r->gauss)
        snprintf(what, sizeof what, "levelling %.0f ms, %d Gaussian low-passes", x->ms_fill, ninv - 1);
    else
        snprintf(what, sizeof what, "fill %.0f ms, forward + %d inverse", x->ms_fill, ninv);
    fprintf(f, "  time: read %.0f ms, %s %.0f ms, filter %.0f ms, parameters %.0f ms, write %.0f ms, total %.0f ms\n",
            r->ms_read, what, x->ms_transform, x->ms_total, r->ms_params, r->ms_write, r->ms_total);
    for (int k = 0; k < r->nnotes; k++)
        fprintf(f, "  note: %s\n", r->notes[k]);
    fflush(f);
}
