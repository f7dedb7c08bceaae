/*
 * plane.h - least-squares mean plane of the valid points of a height map.
 *
 * z(x, y) ~ z0 + sx * x + sy * y with x = ix * dx, y = iy * dy (metres, slopes dimensionless).
 * Sums run per row, then over rows in order: the result does not depend on the thread count.
 */
#ifndef LWT_SURFACE_PLANE_H
#define LWT_SURFACE_PLANE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lwt_plane {
    double z0; /* height at ix = iy = 0 (metres) */
    double sx; /* dz/dx */
    double sy; /* dz/dy */
} lwt_plane;

/** Fit over the finite points. Valid points on one line only: the slope across it is 0.
 *  Returns 0, -1 when no point is valid, -2 out of memory. */
int lwt_plane_fit(const double *z, size_t nx, size_t ny, double dx, double dy, int threads, lwt_plane *out);
/** z -= plane at every finite point (non-finite points stay as they are). */
void lwt_plane_subtract(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_plane *p, int threads);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_PLANE_H */
