/* plane.c - least-squares mean plane (centred normal equations, per-row sums; plane.h). */
#include "surface/plane.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>

enum { R_N, R_I, R_Z, R_II, R_IJ, R_JJ, R_IZ, R_JZ, R_COUNT };
_Static_assert(R_COUNT == LWT_PLANE_ROW_FIELDS, "plane.h's row fields");

void lwt__plane_rows_first(const double *z, size_t nx, size_t rows, int threads, double *r)
{
    const int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)rows; jj++) {
        const size_t j = (size_t)jj;
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
}

int lwt__plane_rows_means(const double *r, size_t ny, double mean[3])
{
    double n = 0, si = 0, sj = 0, sz = 0;
    for (size_t j = 0; j < ny; j++) {
        n += r[j * R_COUNT + R_N];
        si += r[j * R_COUNT + R_I];
        sj += r[j * R_COUNT + R_N] * (double)j;
        sz += r[j * R_COUNT + R_Z];
    }
    if (n == 0)
        return -1;
    mean[0] = si / n;
    mean[1] = sj / n;
    mean[2] = sz / n;
    return 0;
}

void lwt__plane_rows_second(const double *z, size_t nx, size_t j0, size_t rows, const double mean[3], int threads,
                            double *r)
{
    const int nt = lwt__surf_threads(threads);
    const double mi = mean[0], mj = mean[1], mz = mean[2];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)rows; jj++) {
        const size_t j = (size_t)jj;
        double a = 0, b = 0, c = 0, d = 0, e = 0, cj = (double)(j0 + j) - mj;
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
}

void lwt__plane_rows_finish(const double *r, size_t ny, const double mean[3], double dx, double dy, lwt_plane *out)
{
    double sii = 0, sij = 0, sjj = 0, siz = 0, sjz = 0;
    for (size_t j = 0; j < ny; j++) {
        sii += r[j * R_COUNT + R_II];
        sij += r[j * R_COUNT + R_IJ];
        sjj += r[j * R_COUNT + R_JJ];
        siz += r[j * R_COUNT + R_IZ];
        sjz += r[j * R_COUNT + R_JZ];
    }
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
    out->z0 = mean[2] - bi * mean[0] - bj * mean[1];
}

lwt_status lwt_plane_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy, int threads,
                         lwt_plane *out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_plane_fit: NULL argument");
    out->z0 = out->sx = out->sy = 0;
    double *r = calloc(ny * R_COUNT, sizeof *r);
    if (!r)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory fitting a plane to %zu rows", ny);
    double mean[3];
    lwt__plane_rows_first(z, nx, ny, threads, r);
    if (lwt__plane_rows_means(r, ny, mean)) {
        free(r);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "all points are invalid");
    }
    lwt__plane_rows_second(z, nx, 0, ny, mean, threads, r);
    lwt__plane_rows_finish(r, ny, mean, dx, dy, out);
    free(r);
    return LWT_OK;
}

void lwt__plane_subtract_rows(double *z, size_t nx, size_t j0, size_t rows, double dx, double dy, const lwt_plane *p,
                              int threads)
{
    int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)rows; jj++) {
        size_t j = (size_t)jj;
        double base = p->z0 + p->sy * dy * (double)(j0 + j);
        double *row = z + j * nx;
        for (size_t i = 0; i < nx; i++)
            if (isfinite(row[i]))
                row[i] -= base + p->sx * dx * (double)i;
    }
}

void lwt_plane_subtract(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_plane *p, int threads)
{
    lwt__plane_subtract_rows(z, nx, 0, ny, dx, dy, p, threads);
}
