/*
 * spd_solve.h - a small symmetric positive definite system by Cholesky, for the normal equations
 * of the form fits (at most LWT_FORM_MAX_COEFFS unknowns).
 *
 * The system is first scaled to a unit diagonal (G' = D G D, D = diag(G)^-1/2), which removes the
 * conditioning that only comes from the units or sizes of the columns; a pivot of the scaled
 * factorization below 1e-13 means the columns are dependent to rounding (points that do not
 * determine the model) and the solve refuses rather than return noise. With the Legendre basis
 * of form_poly.c the scaled matrix of a full grid has a condition number of a few tens at degree 6,
 * so the normal equations lose no accuracy that a QR would keep.
 */
#ifndef LWT_SURFACE_SPD_SOLVE_H
#define LWT_SURFACE_SPD_SOLVE_H

/* Solve G x = b, G n x n row-major (the lower triangle is read; G and b are overwritten).
   0, or -1 when G is not positive definite to rounding (x untouched). */
int lwt__spd_solve(double *G, double *b, int n, double *x);

#endif
