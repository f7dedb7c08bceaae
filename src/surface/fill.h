/*
 * fill.h - fill invalid (non-measured) points of a height map before a wavelet transform.
 *
 * Method: harmonic (Laplace) inpainting, solved coarse to fine. A pyramid of half-size grids is
 * built: a coarse cell whose 2x2 block is all valid holds the block mean, the others are holes
 * (when a grid would have no valid cell at all, blocks with any valid point count as valid, so
 * the pyramid always ends with data). Going back down, every hole of a grid starts from the
 * bilinear interpolation of the grid above and is then relaxed with Gauss-Seidel sweeps of the
 * 5-point Laplace equation (each hole becomes the mean of its in-grid neighbours; valid points
 * are fixed; the grid border acts as a zero-slope boundary) until the largest change is below
 * 1e-13 of the height range or the sweep budget is spent. A plane is reproduced inside the
 * field; a hole at the border flattens towards it.
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

#define LWT_FILL_SWEEPS 16        /* Gauss-Seidel sweeps per pyramid level (at most) ... */
#define LWT_FILL_TOP_SWEEPS 400   /* ... or this many on a grid with few holes */
#define LWT_FILL_SMALL 65536      /* "few holes" */

/** Fill the non-finite points of z (nx per row, ny rows) in place.
 *  Returns 0 (filled receives the number of points filled), -1 out of memory (z unchanged),
 *  -2 when no point is valid (z unchanged). */
int lwt_fill_invalid(double *z, size_t nx, size_t ny, size_t *filled);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_FILL_H */
