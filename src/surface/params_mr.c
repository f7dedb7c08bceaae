/* params_mr.c - the ISO 25178-2 material ratio (functional) parameters of a material ratio curve
 * (lwt_surface.h; the curve is mr_curve.c's). Apart from params.c because it needs every height
 * sorted: it cannot be summed from rows as the height and hybrid parameters are. */
#include "surface/mr_curve.h"
#include "core/context.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stddef.h>

static const char *const NAMES[LWT_MR_PARAM_COUNT] = {"Smr", "Smc", "Sxp", "Sdc", "Sk",  "Spk", "Svk",
                                                       "Smr1", "Smr2", "Vmp", "Vmc", "Vvv", "Vvc"};
static const char UNITS[LWT_MR_PARAM_COUNT + 1] = "%hhhhhh%%vvvv";

lwt_mr_spec lwt_mr_spec_default(void)
{
    lwt_mr_spec s = {0};
    s.size = sizeof s;
    s.smr_c = 0;
    s.smc_mr = 10;
    s.p = 10;
    s.q = 80;
    s.sxp_p = 2.5;
    s.sxp_q = 50;
    s.sdc_a = 2;
    s.sdc_b = 98;
    s.sk_width = 40;
    return s;
}

const char *lwt_mr_param_name(int k)
{
    return k >= 0 && k < LWT_MR_PARAM_COUNT ? NAMES[k] : NULL;
}

char lwt_mr_param_unit(int k)
{
    return k >= 0 && k < LWT_MR_PARAM_COUNT ? UNITS[k] : 0;
}

double lwt_mr_param_value(const lwt_mr_params *p, int k)
{
    const double v[LWT_MR_PARAM_COUNT] = {p->Smr,  p->Smc,  p->Sxp, p->Sdc, p->Sk,  p->Spk, p->Svk,
                                          p->Smr1, p->Smr2, p->Vmp, p->Vmc, p->Vvv, p->Vvc};
    return k >= 0 && k < LWT_MR_PARAM_COUNT ? v[k] : NAN;
}

/* Height at descending position t in [0, m] (material ratio t / m), m = n - 1. */
static double h_at(const lwt_material_curve *c, double t)
{
    return lwt__mr_at(c, (double)(c->n - 1) - t);
}

/* The secant's fall over the window [t0, t0 + span] (descending positions): h(t0 + span) - h(t0),
 * <= 0. As a function of t0 it is linear between the positions where t0 or t0 + span is a point
 * of the curve, so its largest value (least slope in magnitude) is at one of those. Returns the
 * first (smallest t0) of the largest. */
static double central_region(const lwt_material_curve *c, double span, int nt)
{
    const double m = (double)(c->n - 1);
    double best[MR_BLOCKS], best_t0[MR_BLOCKS];
    /* the points in fixed blocks over the threads, each block's best, then the blocks' in order:
       the largest fall and its smallest t0 are the same whatever the blocks (max is exact) */
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int b = 0; b < MR_BLOCKS; b++) {
        double bb = -INFINITY, bt = 0;
        for (size_t k = MR_BLOCK_LO(c->n, b); k < MR_BLOCK_LO(c->n, b + 1); k++) {
            const double cand[2] = {(double)k - span, (double)k}; /* window ending, starting at point k */
            for (int i = 0; i < 2; i++) {
                double t0 = cand[i];
                if (t0 < 0 || t0 + span > m)
                    continue;
                double f = h_at(c, t0 + span) - h_at(c, t0);
                if (f > bb || (f == bb && t0 < bt)) {
                    bb = f;
                    bt = t0;
                }
            }
        }
        best[b] = bb;
        best_t0[b] = bt;
    }
    double bb = -INFINITY, bt = 0;
    for (int b = 0; b < MR_BLOCKS; b++)
        if (best[b] > bb || (best[b] == bb && best_t0[b] < bt)) {
            bb = best[b];
            bt = best_t0[b];
        }
    return bt;
}

/* The equivalent straight line of ISO 13565-2 on the curve h(t): the least-squares line over the
 * central region [t0, t0 + span] of the piecewise linear curve itself (integrals over each
 * segment, about the region's centre tc: b0 = mean height, b1 = int (t - tc) h / (span^3 / 12)).
 * Sets *top and *bottom to the line at material ratio 0 % and 100 %. */
static void equivalent_line(const lwt_material_curve *c, double span, int nt, double *top, double *bottom)
{
    const double m = (double)(c->n - 1), t0 = central_region(c, span, nt), t1 = t0 + span, tc = 0.5 * (t0 + t1);
    /* segment j runs from p_j = t0 (j = 0) or floor(t0) + j to q_j = min(floor(t0) + j + 1, t1),
       for the segments that start before t1 */
    const double f0 = floor(t0);
    const size_t nseg = (size_t)fmax(1.0, ceil(t1 - f0));
    double sh[MR_BLOCKS], sth[MR_BLOCKS];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int b = 0; b < MR_BLOCKS; b++) {
        double ih = 0, ith = 0;
        for (size_t j = MR_BLOCK_LO(nseg, b); j < MR_BLOCK_LO(nseg, b + 1); j++) {
            const double k = f0 + 1 + (double)j, p = j ? k - 1 : t0, q = k < t1 ? k : t1;
            const double hp = h_at(c, p), hq = h_at(c, q), tp = p - tc, tq = q - tc;
            ih += 0.5 * (q - p) * (hp + hq);
            ith += (q - p) / 6.0 * (tp * (2 * hp + hq) + tq * (hp + 2 * hq));
        }
        sh[b] = ih;
        sth[b] = ith;
    }
    double ih = 0, ith = 0;
    for (int b = 0; b < MR_BLOCKS; b++) {
        ih += sh[b];
        ith += sth[b];
    }
    const double b0 = ih / span, b1 = ith / (span * span * span / 12.0);
    *top = b0 - b1 * tc;
    *bottom = b0 + b1 * (m - tc);
}

lwt_status lwt_mr_params_compute(lwt_context *ctx, const lwt_material_curve *c, const lwt_mr_spec *spec,
                                 lwt_mr_params *out)
{
    if (!c || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_mr_params_compute: NULL argument");
    lwt_mr_spec s = lwt_mr_spec_default();
    if (spec) {
        if (spec->size < offsetof(lwt_mr_spec, sk_width) + sizeof spec->sk_width)
            return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_mr_spec: size %zu, fill it from lwt_mr_spec_default()",
                            spec->size);
        s = *spec;
    }
    LWT_RETURN_IF(!(s.sk_width > 0 && s.sk_width < 100), ctx, LWT_ERR_INVALID_ARGUMENT,
                  "material ratio: Sk region width %g %% is outside (0, 100)", s.sk_width);
    out->n_valid = c->n;
    out->Smr = lwt_material_curve_smr(c, s.smr_c);
    out->Smc = lwt_material_curve_smc(c, s.smc_mr);
    out->Sxp = lwt_material_curve_smc(c, s.sxp_p) - lwt_material_curve_smc(c, s.sxp_q);
    out->Sdc = lwt_material_curve_smc(c, s.sdc_a) - lwt_material_curve_smc(c, s.sdc_b);
    const double vmp = lwt_material_curve_vm(c, s.p), vvv = lwt_material_curve_vv(c, s.q);
    out->Vmp = vmp;
    out->Vmc = lwt_material_curve_vm(c, s.q) - vmp;
    out->Vvv = vvv;
    out->Vvc = lwt_material_curve_vv(c, s.p) - vvv;
    out->Sk = out->Spk = out->Svk = out->Smr1 = out->Smr2 = NAN;
    if (c->n >= 3 && c->a[c->n - 1] > c->a[0]) { /* a flat curve has no central region's line */
        double top, bottom;
        equivalent_line(c, s.sk_width / 100.0 * (double)(c->n - 1), lwt__surf_threads(ctx ? ctx->threads : 0),
                        &top, &bottom);
        out->Sk = top - bottom;
        out->Smr1 = lwt_material_curve_smr(c, top);
        out->Smr2 = lwt_material_curve_smr(c, bottom);
        /* the triangle of base Smr1 with the peak area: 2 area / base; 0 when empty */
        double a1 = lwt__mr_above(c, top), a2 = lwt__mr_below(c, bottom);
        out->Spk = a1 > 0 ? 2 * a1 / (out->Smr1 / 100.0) : 0.0;
        out->Svk = a2 > 0 ? 2 * a2 / (1.0 - out->Smr2 / 100.0) : 0.0;
    }
    return LWT_OK;
}
