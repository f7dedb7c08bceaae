/* curve_csv.h - curves sampled at common abscissae as one CSV file (lwt filter's
 * material_ratio.csv: the Abbott-Firestone curve of the input and of each band). */
#ifndef LWT_IO_CURVE_CSV_H
#define LWT_IO_CURVE_CSV_H

#include <stddef.h>

#include "lwt.h"

/** Write a header line "x_name,name_0,...", then per row i: x[i] and col[k][i] for every column
 *  (17 significant digits, NaN as an empty field), atomically. A failure is logged through ctx
 *  ("path: reason") and nothing is left behind. */
lwt_status lwt_curve_csv_write(lwt_context *ctx, const char *path, const char *x_name, const double *x, size_t n,
                               int ncols, const char *const names[], const double *const cols[]);

#endif
