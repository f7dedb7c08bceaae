/*
 * row_pass.h - sums over the rows of a height map that do not depend on the thread count.
 *
 * Each row's m sums are computed by one thread into its own slot of a rows x m array; the caller
 * then adds the slots in row order (lwt__rows_add, or its own expansion). No reduction clause:
 * OpenMP's reduction order changes with the thread count, and so would the last bits.
 */
#ifndef LWT_SURFACE_ROW_PASS_H
#define LWT_SURFACE_ROW_PASS_H

#include <stddef.h>

/* acc: m zeroed doubles for row j (row = z + j * nx) */
typedef void (*lwt_row_fn)(const void *user, const double *row, size_t nx, size_t j, double *acc);

/* rows[j * m .. j * m + m) = fn's sums of row j, every row, on `threads` threads (0 = default). */
void lwt__row_pass(const double *z, size_t nx, size_t ny, int m, lwt_row_fn fn, const void *user, int threads,
                   double *rows);

/* out[k] = sum over j in order of rows[j * m + k], k < m. */
void lwt__rows_add(const double *rows, size_t ny, int m, double *out);

#endif
