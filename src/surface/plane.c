/* plane.c - least-squares mean plane (centred normal equations, per-row sums). */
#include "surface/plane.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>

enum { R_N, R_I, R_Z, R_II, R_IJ, R_JJ, R_IZ, R_JZ, R_COUNT };

lwt_status lwt_plane_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy, int threads,
                         lwt_plane *out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_plane_fit: NULL argument");
    out->z0 = out->sx = out->sy = 0;
    double *r = calloc(ny * R_COUNT, sizeof *r);
    if (!r)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory fitting a plane to %zu rows", ny);
    int nt = lwt__surf_threads(threads);
    /* pass 1: counts and sums per row (index coordinates) */
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        size_t j = (size_t)jj;
        double n = 0, si = 0, sz = 0;
        const double *row = z + j * nx;
        for (size_t i = 0; i < nx; i++)
            if (isfinite(row[i])) {
                n += 1;
                si += (double)i;
                sz += row[i];
            }
        r[j * R_COUNT + R_N] = n;
        r[j * R_COUNT + R_I] = si;
        r[j * R_COUNT + R_Z] = sz;
    }
    double n = 0, si = 0, sj = 0, sz = 0;
    for (size_t j = 0; j < ny; j++) {
        n += r[j * R_COUNT + R_N];
        si += r[j * R_COUNT + R_I];
        sj += r[j * R_COUNT + R_N] * (double)j;
        sz += r[j * R_COUNT + R_Z];
    }
    if (n == 0) {
        free(r);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "all points are invalid");
    }
    const double mi = si / n, mj = sj / n, mz = sz / n;
    /* pass 2: centred second moments */
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        size_t j = (size_t)jj;
        double a = 0, b = 0, c = 0, d = 0, e = 0, cj = (double)j - mj;
        const double *row = z + j * nx;
        for (size_t i = 0; i < nx; i++)
            if (isfinite(row[i])) {
                double ci = (double)i - mi, cz = row[i] - mz;
                a += ci * ci;
                b += ci * cj;
                c += cj * cj;
                d += ci * cz;
                e += cj * cz;
            }
        r[j * R_COUNT + R_II] = a;
        r[j * R_COUNT + R_IJ] = b;
        r[j * R_COUNT + R_JJ] = c;
        r[j * R_COUNT + R_IZ] = d;
        r[j * R_COUNT + R_JZ] = e;
    }
    double sii = 0, sij = 0, sjj = 0, siz = 0, sjz = 0;
    for (size_t j = 0; j < ny; j++) {
        sii += r[j * R_COUNT + R_II];
        sij += r[j * R_COUNT + R_IJ];
        sjj += r[j * R_COUNT + R_JJ];
        siz += r[j * R_COUNT + R_IZ];
        sjz += r[j * R_COUNT + R_JZ];
    }
    free(r);
    double det = sii * sjj - sij * sij, bi = 0, bj = 0;
    if (sii > 0 && sjj > 0 && det > 1e-12 * sii * sjj) {
        bi = (siz * sjj - sjz * sij) / det;
        bj = (sjz * sii - siz * sij) / det;
    } else if (sii > 0 && sjj <= 1e-12 * sii) {
        bi = siz / sii;
    } else if (sjj > 0 && sii <= 1e-12 * sjj) {
        bj = sjz / sjj;
    }
    out->sx = bi / dx;
    out->sy = bj / dy;
    out->z0 = mz - bi * mi - bj * mj;
    return LWT_OK;
}

void lwt_plane_subtract(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_plane *p, int threads)
{
    int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        size_t j = (size_t)jj;
        double base = p->z0 + p->sy * dy * (double)j;
        double *row = z + j * nx;
        for (size_t i = 0; i < nx; i++)
            if (isfinite(row[i]))
                row[i] -= base + p->sx * dx * (double)i;
    }
}
