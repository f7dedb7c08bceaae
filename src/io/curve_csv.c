/* curve_csv.c - curves sampled at common abscissae as one CSV file (curve_csv.h). */
#include "io/curve_csv.h"
#include "io/atomic_file.h"
#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* appends one field (with its leading comma unless first); returns the new length */
static size_t field(char *buf, size_t len, double v, int first)
{
    if (!first)
        buf[len++] = ',';
    if (isfinite(v))
        len += (size_t)snprintf(buf + len, 32, "%.17g", v);
    return len;
}

lwt_status lwt_curve_csv_write(lwt_context *ctx, const char *path, const char *x_name, const double *x, size_t n,
                               int ncols, const char *const names[], const double *const cols[])
{
    size_t head = 2 + (size_t)snprintf(NULL, 0, "%s", x_name);
    for (int k = 0; k < ncols; k++)
        head += 1 + (size_t)snprintf(NULL, 0, "%s", names[k]);
    const size_t cap = head + n * (size_t)(ncols + 1) * 33 + 1; /* "%.17g" is at most 24 chars */
    char *buf = malloc(cap);
    if (!buf)
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory for %zu rows", n);
    size_t len = (size_t)snprintf(buf, cap, "%s", x_name);
    for (int k = 0; k < ncols; k++)
        len += (size_t)snprintf(buf + len, cap - len, ",%s", names[k]);
    buf[len++] = '\n';
    for (size_t i = 0; i < n; i++) {
        len = field(buf, len, x[i], 1);
        for (int k = 0; k < ncols; k++)
            len = field(buf, len, cols[k][i], 0);
        buf[len++] = '\n';
    }
    lwt_status rc = lwt_write_file_atomic(ctx, path, buf, len);
    free(buf);
    return rc;
}
