/*
 * params.h - ISO 25178-2 areal field parameters of a height map, over its valid points.
 *
 * Heights are taken relative to the mean of the valid points (the reference of a scale-limited
 * surface; level a raw surface first with lwt_plane_subtract when its tilt must not count).
 * With d = z - mean over the n valid points:
 *   Sa = mean |d|          Sq = sqrt(mean d^2)      Ssk = mean d^3 / Sq^3   Sku = mean d^4 / Sq^4
 *   Sp = max d             Sv = -min d (>= 0)       Sz = Sp + Sv
 * The hybrid parameters follow ISO 25178-2:2021's discretization (as surfalize and Gwyddion):
 *   Sdq = sqrt(mean over x pairs of ((z[i+1,j] - z[i,j]) / dx)^2
 *              + mean over y pairs of ((z[i,j+1] - z[i,j]) / dy)^2)    (forward differences)
 *   Sdr = 100 % * mean over cells of (A_cell / (dx dy) - 1)
 * where a pair counts when both points are valid, a cell when its four corners are, and A_cell
 * is the developed area of the cell by triangles: the mean of its two triangulations, i.e. half
 * the sum of its four corner triangles, each spanned by the corner's x edge and y edge
 * (A = dx dy sqrt(1 + gx^2 + gy^2) / 2 with that corner's edge gradients). Both are exact for a
 * plane (a 45-degree plane gives Sdq = 1, Sdr = 41.42 %). Sums run per row and then over rows
 * in order (params_rows.h), so the result does not depend on the thread count. Undefined values
 * are NaN (no valid point: all; Sq = 0: Ssk and Sku; no pair along x or along y: Sdq; no valid
 * cell: Sdr).
 */
#ifndef LWT_SURFACE_PARAMS_H
#define LWT_SURFACE_PARAMS_H

/* lwt_iso_params and its functions are public (lwt_surface.h). */
#include "lwt_surface.h"

#endif /* LWT_SURFACE_PARAMS_H */
