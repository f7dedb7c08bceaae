/*
 * params_rows.h - the height and hybrid ISO 25178-2 parameters (lwt_iso_params) as per-row
 * partial sums, so that a caller holding only a slab of rows (an MPI rank) can compute its part
 * and a root can finish from every row's partials, bit-identical to one process.
 *
 * Every partial of row j depends only on rows j and j + 1 (one halo row): its points (count,
 * sum, extremes, moments about the mean), its x differences, and the y differences and cells
 * between it and row j + 1. Two passes, because the moments need the mean:
 *
 *   rows = LWT_PARAMS_ROW_FIELDS doubles per row, for rows [j0, j1)
 *   lwt__params_rows_first(z, nx, j0, j1, next, dx, dy, threads, rows);   (next = row j1, or NULL)
 *   mean = lwt__params_rows_mean(all_rows, ny);                           (every row, in row order)
 *   lwt__params_rows_second(z, nx, j0, j1, mean, threads, rows);
 *   lwt__params_rows_finish(all_rows, ny, &out);                          (every row, in row order)
 *
 * z points at the caller's rows: row j starts at z + j * nx. The partials are sums over one row
 * in a fixed order, so they do not depend on the thread count; mean and finish add them over
 * rows in row order (the only order a distributed caller must keep). lwt_iso_params_compute is
 * exactly these four calls over the whole surface. The material-ratio family needs a global sort
 * and lives apart (params_mr.c).
 */
#ifndef LWT_SURFACE_PARAMS_ROWS_H
#define LWT_SURFACE_PARAMS_ROWS_H

#include <stddef.h>

#include "lwt_surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/* doubles of partials per row (the layout is private to params_rows.c) */
#define LWT_PARAMS_ROW_FIELDS 14

/** Pass 1 over rows [j0, j1): valid points, their sum and extremes, x differences, and the y
 *  differences and cells between row j and row j + 1 (for the last row j1 - 1, with `next`, the
 *  row after it; NULL when there is none: the surface's last row). Writes every field of rows
 *  [0, j1 - j0) of `rows` (the moments are zeroed for pass 2). dx, dy > 0. */
void lwt__params_rows_first(const double *z, size_t nx, size_t j0, size_t j1, const double *next, double dx,
                            double dy, int threads, double *rows);
/** Mean of the valid heights from the pass-1 partials of all ny rows (summed in row order);
 *  NaN when no point is valid. */
double lwt__params_rows_mean(const double *rows, size_t ny);
/** Pass 2 over rows [j0, j1): sums of |d|, d^2, d^3, d^4 with d = z - mean, into rows[0 ..). */
void lwt__params_rows_second(const double *z, size_t nx, size_t j0, size_t j1, double mean, int threads,
                             double *rows);
/** The parameters from the partials of all ny rows after both passes (summed in row order). */
void lwt__params_rows_finish(const double *rows, size_t ny, lwt_iso_params *out);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_PARAMS_ROWS_H */
