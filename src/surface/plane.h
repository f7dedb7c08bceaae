/*
 * plane.h - least-squares mean plane of the valid points of a height map.
 *
 * z(x, y) ~ z0 + sx * x + sy * y with x = ix * dx, y = iy * dy (metres, slopes dimensionless).
 * Sums run per row, then over rows in order: the result does not depend on the thread count.
 */
#ifndef LWT_SURFACE_PLANE_H
#define LWT_SURFACE_PLANE_H

/* lwt_plane, lwt_plane_fit and lwt_plane_subtract are public (lwt_surface.h). */
#include "lwt_surface.h"

/*
 * The fit as per-row partial sums, for a caller holding only a slab of rows (an MPI rank, as
 * params_rows.h): rows = LWT_PLANE_ROW_FIELDS doubles per row; z points at the slab's first
 * row, j0 is its row number. lwt_plane_fit is exactly these calls over the whole map:
 *   first(z, nx, rows, threads, r)          counts and sums of each row
 *   means(all_r, ny, mean)                  every row in row order; -1: no valid point
 *   second(z, nx, j0, rows, mean, threads, r)   the centred second moments of each row
 *   finish(all_r, ny, mean, dx, dy, out)    every row in row order
 */
#define LWT_PLANE_ROW_FIELDS 8
void lwt__plane_rows_first(const double *z, size_t nx, size_t rows, int threads, double *r);
int lwt__plane_rows_means(const double *r, size_t ny, double mean[3]);
void lwt__plane_rows_second(const double *z, size_t nx, size_t j0, size_t rows, const double mean[3], int threads,
                            double *r);
void lwt__plane_rows_finish(const double *r, size_t ny, const double mean[3], double dx, double dy, lwt_plane *out);
/* lwt_plane_subtract on rows [j0, j0 + rows) of a map, z at row j0 */
void lwt__plane_subtract_rows(double *z, size_t nx, size_t j0, size_t rows, double dx, double dy, const lwt_plane *p,
                              int threads);

#endif /* LWT_SURFACE_PLANE_H */
