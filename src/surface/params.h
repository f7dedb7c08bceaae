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

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lwt_iso_params {
    double Sa, Sq, Ssk, Sku, Sp, Sv, Sz; /* heights in metres, Ssk and Sku dimensionless */
    double Sdq;                          /* dimensionless */
    double Sdr;                          /* percent */
    size_t n_valid;                      /* points used for the height parameters */
    size_t n_cells;                      /* cells used for Sdq and Sdr */
} lwt_iso_params;

#define LWT_ISO_PARAM_COUNT 9
/** Name ("Sa", ...) and value of parameter k (0..8) in the order Sa Sq Ssk Sku Sp Sv Sz Sdq Sdr. */
const char *lwt_iso_param_name(int k);
double lwt_iso_param_value(const lwt_iso_params *p, int k);
/** 1 when parameter k is a height (metres), 0 when it is dimensionless or a percentage. */
int lwt_iso_param_is_height(int k);

/** Compute over the finite points of z (nx per row, ny rows), spacing dx, dy > 0.
 *  Returns 0, or -1 out of memory. */
int lwt_iso_params_compute(const double *z, size_t nx, size_t ny, double dx, double dy, int threads,
                           lwt_iso_params *out);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_PARAMS_H */
