/*
 * fill.h - fill invalid (non-measured) points of a height map before a wavelet transform.
 *
 * Method: harmonic (Laplace) inpainting, solved coarse to fine. A pyramid of half-size grids is
 * built by averaging the valid points of each 2x2 block, up to the first grid without holes
 * (at the latest the 1x1 grid, which holds the mean of all valid points). Going back down, every
 * hole of a grid starts from the bilinear interpolation of the grid above and is then relaxed
 * with Gauss-Seidel sweeps of the 5-point Laplace equation (each hole becomes the mean of its
 * in-grid neighbours; valid points are fixed; the grid border acts as a zero-slope boundary).
 * The result is smooth inside holes and continuous with the measured points around them, so
 * the fill adds no texture of its own to the detail bands. Valid points are never changed.
 * Deterministic: the sweeps run in a fixed order.
 */
#ifndef LWT_SURFACE_FILL_H
#define LWT_SURFACE_FILL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LWT_FILL_SWEEPS 16        /* Gauss-Seidel sweeps per pyramid level */
#define LWT_FILL_TOP_SWEEPS 400   /* at most this many on the coarsest grid that has holes */

/** Fill the non-finite points of z (nx per row, ny rows) in place.
 *  Returns 0 (filled receives the number of points filled), -1 out of memory (z unchanged),
 *  -2 when no point is valid (z unchanged). */
int lwt_fill_invalid(double *z, size_t nx, size_t ny, size_t *filled);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_FILL_H */
