/* row_pass.c - per-row sums, added in row order (row_pass.h). */
#include "surface/row_pass.h"
#include "surface/threads.h"

#include <string.h>

void lwt__row_pass(const double *z, size_t nx, size_t ny, int m, lwt_row_fn fn, const void *user, int threads,
                   double *rows)
{
    const int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        const size_t j = (size_t)jj;
        double *acc = rows + j * (size_t)m;
        memset(acc, 0, (size_t)m * sizeof *acc);
        fn(user, z + j * nx, nx, j, acc);
    }
}

void lwt__rows_add(const double *rows, size_t ny, int m, double *out)
{
    memset(out, 0, (size_t)m * sizeof *out);
    for (size_t j = 0; j < ny; j++)
        for (int k = 0; k < m; k++)
            out[k] += rows[j * (size_t)m + k];
}
