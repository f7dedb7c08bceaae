/* params.c - ISO 25178-2 height and hybrid parameters (see params.h for the discretization). */
#include "surface/params.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>

static const char *const NAMES[LWT_ISO_PARAM_COUNT] = {"Sa", "Sq", "Ssk", "Sku", "Sp", "Sv", "Sz", "Sdq", "Sdr"};

const char *lwt_iso_param_name(int k)
{
    return k >= 0 && k < LWT_ISO_PARAM_COUNT ? NAMES[k] : NULL;
}

double lwt_iso_param_value(const lwt_iso_params *p, int k)
{
    const double v[LWT_ISO_PARAM_COUNT] = {p->Sa, p->Sq, p->Ssk, p->Sku, p->Sp, p->Sv, p->Sz, p->Sdq, p->Sdr};
    return k >= 0 && k < LWT_ISO_PARAM_COUNT ? v[k] : NAN;
}

int lwt_iso_param_is_height(int k)
{
    return k == 0 || k == 1 || (k >= 4 && k <= 6);
}

/* per-row partial sums */
enum { P_N, P_Z, P_ABS, P_D2, P_D3, P_D4, P_MAX, P_MIN, P_CELLS, P_G2, P_AREA, P_COUNT };

lwt_status lwt_iso_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                  int threads, lwt_iso_params *out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_iso_params_compute: NULL argument");
    out->Sa = out->Sq = out->Ssk = out->Sku = out->Sp = out->Sv = out->Sz = out->Sdq = out->Sdr = NAN;
    out->n_valid = out->n_cells = 0;
    double *r = calloc(ny * P_COUNT, sizeof *r);
    if (!r)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the parameters of %zu rows", ny);
    const int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        const double *row = z + (size_t)jj * nx;
        double n = 0, s = 0;
        for (size_t i = 0; i < nx; i++)
            if (isfinite(row[i])) {
                n += 1;
                s += row[i];
            }
        r[jj * P_COUNT + P_N] = n;
        r[jj * P_COUNT + P_Z] = s;
    }
    double n = 0, sz = 0;
    for (size_t j = 0; j < ny; j++) {
        n += r[j * P_COUNT + P_N];
        sz += r[j * P_COUNT + P_Z];
    }
    if (n == 0) {
        free(r);
        return LWT_OK;
    }
    const double mean = sz / n;
    const double hx = 0.5 / dx, hy = 0.5 / dy;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        size_t j = (size_t)jj;
        const double *row = z + j * nx;
        double a = 0, d2 = 0, d3 = 0, d4 = 0, mx = -INFINITY, mn = INFINITY;
        for (size_t i = 0; i < nx; i++)
            if (isfinite(row[i])) {
                double d = row[i] - mean, q = d * d;
                a += fabs(d);
                d2 += q;
                d3 += q * d;
                d4 += q * q;
                if (d > mx) mx = d;
                if (d < mn) mn = d;
            }
        double cells = 0, g2 = 0, area = 0;
        if (j + 1 < ny) {
            const double *nxt = row + nx;
            for (size_t i = 0; i + 1 < nx; i++) {
                double z00 = row[i], z10 = row[i + 1], z01 = nxt[i], z11 = nxt[i + 1];
                if (!(isfinite(z00) && isfinite(z10) && isfinite(z01) && isfinite(z11)))
                    continue;
                double gx = ((z10 - z00) + (z11 - z01)) * hx, gy = ((z01 - z00) + (z11 - z10)) * hy;
                double g = gx * gx + gy * gy;
                cells += 1;
                g2 += g;
                area += g / (1.0 + sqrt(1.0 + g)); /* sqrt(1 + g) - 1 without cancellation */
            }
        }
        double *p = r + j * P_COUNT;
        p[P_ABS] = a;
        p[P_D2] = d2;
        p[P_D3] = d3;
        p[P_D4] = d4;
        p[P_MAX] = mx;
        p[P_MIN] = mn;
        p[P_CELLS] = cells;
        p[P_G2] = g2;
        p[P_AREA] = area;
    }
    double a = 0, d2 = 0, d3 = 0, d4 = 0, mx = -INFINITY, mn = INFINITY, cells = 0, g2 = 0, area = 0;
    for (size_t j = 0; j < ny; j++) {
        const double *p = r + j * P_COUNT;
        a += p[P_ABS];
        d2 += p[P_D2];
        d3 += p[P_D3];
        d4 += p[P_D4];
        if (p[P_MAX] > mx) mx = p[P_MAX];
        if (p[P_MIN] < mn) mn = p[P_MIN];
        cells += p[P_CELLS];
        g2 += p[P_G2];
        area += p[P_AREA];
    }
    free(r);
    out->n_valid = (size_t)n;
    out->Sa = a / n;
    out->Sq = sqrt(d2 / n);
    if (out->Sq > 0) {
        double s2 = d2 / n;
        out->Ssk = (d3 / n) / (s2 * out->Sq);
        out->Sku = (d4 / n) / (s2 * s2);
    }
    out->Sp = mx;
    out->Sv = -mn;
    out->Sz = mx - mn;
    if (cells > 0) {
        out->n_cells = (size_t)cells;
        out->Sdq = sqrt(g2 / cells);
        out->Sdr = 100.0 * area / cells;
    }
    return LWT_OK;
}
