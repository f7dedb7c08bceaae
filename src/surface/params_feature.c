/* params_feature.c - the ISO 25178-2 feature parameters (lwt_surface.h) from the significant
 * motifs of watershed.c and change_tree.c: hills and dales segmented side by side. */
#include "surface/motifs.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>

static const char *const NAMES[LWT_FEATURE_PARAM_COUNT] = {"Spd", "Spc", "S10z", "S5p", "S5v",
                                                            "Sda", "Sha", "Sdv", "Shv"};
static const char UNITS[LWT_FEATURE_PARAM_COUNT + 1] = "dchhhaavv";

/* the 5 of S5p and S5v (ISO 25178-2: "five-point") */
#define FIVE 5

const char *lwt_feature_param_name(int k)
{
    return k >= 0 && k < LWT_FEATURE_PARAM_COUNT ? NAMES[k] : NULL;
}

char lwt_feature_param_unit(int k)
{
    return k >= 0 && k < LWT_FEATURE_PARAM_COUNT ? UNITS[k] : 0;
}

double lwt_feature_param_value(const lwt_feature_params *p, int k)
{
    const double v[LWT_FEATURE_PARAM_COUNT] = {p->Spd, p->Spc, p->S10z, p->S5p, p->S5v,
                                               p->Sda, p->Sha, p->Sdv,  p->Shv};
    return k >= 0 && k < LWT_FEATURE_PARAM_COUNT ? v[k] : NAN;
}

/* One polarity's segmentation (sign +1 dales, -1 hills) into m from its descent pointers lab
 * (lwt__descend's), which become the points' motif numbers. */
static lwt_status segment(lwt_context *ctx, const double *z, size_t nx, size_t ny, double sign, double threshold,
                          uint32_t *lab, lwt_motifs *m)
{
    lwt_basins b;
    LWT_FORWARD(lwt__basins(ctx, lab, nx * ny, &b));
    lwt_status st = lwt__change_tree(ctx, z, nx, ny, sign, threshold, &b, m);
    free(b.pit);
    return st;
}

/* Mean of the FIVE largest of sign * (z - mean) at the motifs' extremes (fewer: of all); NaN
 * without motifs. Largest first, ties by point index: a fixed set whatever the order found. */
static double five_point(const double *z, const lwt_motifs *m, double sign, double mean)
{
    size_t best[FIVE], nb = 0;
    for (size_t t = 0; t < m->count; t++) {
        size_t c = m->crit[t], k = nb < FIVE ? nb++ : FIVE;
        /* insertion into the sorted best[], the hill's height (or the dale's depth) descending */
        while (k > 0 && (-sign * z[best[k - 1]] < -sign * z[c] ||
                         (-sign * z[best[k - 1]] == -sign * z[c] && best[k - 1] > c))) {
            if (k < FIVE)
                best[k] = best[k - 1];
            k--;
        }
        if (k < FIVE)
            best[k] = c;
    }
    if (!nb)
        return NAN;
    double s = 0;
    for (size_t k = 0; k < nb; k++)
        s += -sign * (z[best[k]] - mean);
    return s / (double)nb;
}

/* Mean over the closed motifs of their area and volume (m^2, m^3); NaN without one. */
static void closed_means(const lwt_motifs *m, double cell, size_t *closed, double *area, double *volume)
{
    double a = 0, v = 0;
    size_t c = 0;
    for (size_t t = 0; t < m->count; t++)
        if (!m->open[t]) {
            c++;
            a += (double)m->points[t];
            v += m->volume[t];
        }
    *closed = c;
    *area = c ? a * cell / (double)c : NAN;
    *volume = c ? v * cell / (double)c : NAN;
}

/* Spc: the mean of -(d2z/dx2 + d2z/dy2) / 2 by central differences at each peak whose 4 axis
 * neighbours are valid points of the field; NaN without one. */
static double mean_curvature(const double *z, size_t nx, size_t ny, double dx, double dy, const lwt_motifs *hills)
{
    double s = 0;
    size_t c = 0;
    for (size_t t = 0; t < hills->count; t++) {
        const size_t u = hills->crit[t], i = u % nx, j = u / nx;
        if (i == 0 || j == 0 || i + 1 == nx || j + 1 == ny)
            continue;
        const double zxx = (z[u - 1] - 2 * z[u] + z[u + 1]) / (dx * dx);
        const double zyy = (z[u - nx] - 2 * z[u] + z[u + nx]) / (dy * dy);
        if (!isfinite(zxx + zyy))
            continue;
        s += -0.5 * (zxx + zyy);
        c++;
    }
    return c ? s / (double)c : NAN;
}

lwt_status lwt_feature_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                      double pruning, int threads, lwt_feature_params *out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_feature_params_compute: NULL argument");
    memset(out, 0, sizeof *out);
    out->Spd = out->Spc = out->S10z = out->S5p = out->S5v = out->Sda = out->Sha = out->Sdv = out->Shv = NAN;
    out->threshold = NAN;
    if (pruning == 0)
        pruning = 5;
    LWT_RETURN_IF(!(pruning > 0 && pruning < 100), ctx, LWT_ERR_INVALID_ARGUMENT,
                  "feature parameters: Wolf pruning %g %% of Sz is outside (0, 100)", pruning);
    LWT_RETURN_IF(!(dx > 0 && dy > 0 && isfinite(dx) && isfinite(dy)), ctx, LWT_ERR_INVALID_ARGUMENT,
                  "feature parameters: spacing %g, %g", dx, dy);
    LWT_RETURN_IF(nx == 0 || ny == 0 || nx > LWT_MAX_POINTS / ny, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "feature parameters: %zu x %zu points (at most %u)", nx, ny, LWT_MAX_POINTS);
    /* Sz and the mean of the valid points, summed in point order */
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t nv = 0;
    for (size_t u = 0; u < nx * ny; u++)
        if (isfinite(z[u])) {
            lo = z[u] < lo ? z[u] : lo; /* not fmin: a libm call a point */
            hi = z[u] > hi ? z[u] : hi;
            sum += z[u];
            nv++;
        }
    LWT_RETURN_IF(nv == 0, ctx, LWT_ERR_NO_DATA, "feature parameters: no valid point");
    const double mean = sum / (double)nv, threshold = pruning / 100 * (hi - lo), cell = dx * dy;
    out->threshold = threshold;
    lwt_motifs m[2] = {{0}}; /* dales, hills */
    lwt_status st[2] = {LWT_OK, LWT_OK};
    uint32_t *lab[2] = {malloc(nx * ny * sizeof *lab[0]), malloc(nx * ny * sizeof *lab[1])};
    if (!lab[0] || !lab[1]) {
        free(lab[0]), free(lab[1]);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the segmentation of %zu points", nx * ny);
    }
    lwt__descend(z, nx, ny, dx, dy, threads, lab[0], lab[1]);
    /* the two segmentations are independent: one thread each when there are two */
#pragma omp parallel for num_threads(lwt__surf_threads(threads) > 1 ? 2 : 1) schedule(static, 1)
    for (int s = 0; s < 2; s++)
        st[s] = segment(ctx, z, nx, ny, s ? -1.0 : 1.0, threshold, lab[s], &m[s]);
    free(lab[0]), free(lab[1]);
    if (st[0] == LWT_OK && st[1] == LWT_OK) {
        const lwt_motifs *dales = &m[0], *hills = &m[1];
        out->n_peaks = hills->count;
        out->n_pits = dales->count;
        out->Spd = (double)hills->count / ((double)nv * cell);
        out->Spc = mean_curvature(z, nx, ny, dx, dy, hills);
        out->S5p = five_point(z, hills, -1.0, mean);
        out->S5v = five_point(z, dales, 1.0, mean);
        out->S10z = out->S5p + out->S5v;
        closed_means(dales, cell, &out->n_closed_dales, &out->Sda, &out->Sdv);
        closed_means(hills, cell, &out->n_closed_hills, &out->Sha, &out->Shv);
    }
    lwt__motifs_free(&m[0]);
    lwt__motifs_free(&m[1]);
    return st[0] != LWT_OK ? st[0] : st[1];
}
