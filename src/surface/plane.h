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

#endif /* LWT_SURFACE_PLANE_H */
