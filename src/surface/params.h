/*
 * params.h - ISO 25178-2 areal field parameters of a height map, over its valid points.
 *
 * Heights are taken relative to the mean of the valid points (the reference of a scale-limited
 * surface; level a raw surface first with lwt_plane_subtract when its tilt must not count).
 * With d = z - mean over the n valid points:
 *   Sa = mean |d|          Sq = sqrt(mean d^2)      Ssk = mean d^3 / Sq^3   Sku = mean d^4 / Sq^4
 *   Sp = max d             Sv = -min d (>= 0)       Sz = Sp + Sv
 * Gradients are taken per grid cell whose 4 corners are valid, at the cell centre:
 *   gx = ((z10 - z00) + (z11 - z01)) / (2 dx),   gy = ((z01 - z00) + (z11 - z10)) / (2 dy)
 *   Sdq = sqrt(mean over cells of gx^2 + gy^2)
 *   Sdr = 100 % * mean over cells of (sqrt(1 + gx^2 + gy^2) - 1)
 * (the ISO integral definitions with the cell-centre gradient; exact for any plane: a 45-degree
 * plane gives Sdq = 1, Sdr = 41.42 %). Sums run per row and then over rows in order, so the
 * result does not depend on the thread count. Undefined values are NaN (no valid point: all;
 * Sq = 0: Ssk and Sku; no valid cell: Sdq and Sdr).
 */
#ifndef LWT_SURFACE_PARAMS_H
#define LWT_SURFACE_PARAMS_H

/* lwt_iso_params and its functions are public (lwt_surface.h). */
#include "lwt_surface.h"

#endif /* LWT_SURFACE_PARAMS_H */
