/* watershed.c - the first step of the feature segmentation (motifs.h): every valid point drained
 * along its steepest descent to a pit, one basin a pit; hills and dales from one pass. */
#include "surface/motifs.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdlib.h>

/* The steepest of u's neighbours k (in LWT_NB order, inside the field) down in the order (h, index)
 * from u, for the dales (h = z: *down) and the hills (h = -z: *up) at once, one read of the
 * neighbourhood for both (the pass for one sign took 20 % of the family's time, white noise of
 * 1024^2 points). Slopes are the drop over the neighbour's distance; the first on a tie. */
static inline void steepest(const double *z, size_t u, const ptrdiff_t *off, const double *inv, unsigned mask,
                            uint32_t *down, uint32_t *up)
{
    const double zu = z[u];
    size_t lo = u, hi = u;
    double s_lo = -1, s_hi = -1;
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        if (!(mask >> k & 1))
            continue;
        const size_t v = (size_t)((ptrdiff_t)u + off[k]);
        const double zv = z[v], s = (zu - zv) * inv[k];
        /* NaN compares false both ways: never a step */
        const int below = zv < zu || (zv == zu && v < u), above = zv > zu || (zv == zu && v < u);
        if (below && s > s_lo) {
            s_lo = s;
            lo = v;
        }
        if (above && -s > s_hi) {
            s_hi = -s;
            hi = v;
        }
    }
    *down = (uint32_t)lo;
    *up = (uint32_t)hi;
}

void lwt__descend(const double *z, size_t nx, size_t ny, double dx, double dy, int threads, uint32_t *down,
                  uint32_t *up)
{
    const int ox[8] = LWT_NB_DX_INIT, oy[8] = LWT_NB_DY_INIT;
    double inv[8];
    ptrdiff_t off[8];
    for (int k = 0; k < 8; k++) {
        inv[k] = 1.0 / hypot(ox[k] * dx, oy[k] * dy);
        off[k] = (ptrdiff_t)oy[k] * (ptrdiff_t)nx + ox[k];
    }
#pragma omp parallel for num_threads(lwt__surf_threads(threads)) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        const size_t j = (size_t)jj;
        for (size_t i = 0; i < nx; i++) {
            const size_t u = j * nx + i;
            if (!isfinite(z[u])) {
                down[u] = up[u] = LWT_LAB_INVALID;
                continue;
            }
            if (i == 0 || j == 0 || i + 1 == nx || j + 1 == ny)
                steepest(z, u, off, inv, lwt__inside(i, j, nx, ny), &down[u], &up[u]);
            else /* all 8 inside: the constant mask lets the compiler drop the tests */
                steepest(z, u, off, inv, 0xff, &down[u], &up[u]);
        }
    }
}

lwt_status lwt__basins(lwt_context *ctx, uint32_t *lab, size_t n, lwt_basins *out)
{
    out->lab = lab;
    out->count = 0;
    size_t pits = 0;
    for (size_t u = 0; u < n; u++)
        pits += lab[u] == u;
    out->pit = malloc((pits ? pits : 1) * sizeof *out->pit);
    if (!out->pit)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu basins", pits);
    /* Each point follows its chain down to a numbered point or a pit (numbered then, in the order
       pits are first reached: points by index), and the chain gets that number on the way back:
       every point is walked at most twice, O(n). */
    size_t count = 0;
    for (size_t u = 0; u < n; u++) {
        if (lab[u] & LWT_LAB_DONE)
            continue;
        size_t p = u;
        while (!(lab[p] & LWT_LAB_DONE) && lab[p] != p)
            p = lab[p];
        uint32_t id;
        if (lab[p] & LWT_LAB_DONE) {
            id = lab[p] & ~LWT_LAB_DONE;
        } else {
            id = (uint32_t)count;
            out->pit[count++] = (uint32_t)p;
            lab[p] = LWT_LAB_DONE | id;
        }
        for (size_t q = u; q != p;) {
            const size_t next = lab[q];
            lab[q] = LWT_LAB_DONE | id;
            q = next;
        }
    }
    out->count = count;
    return LWT_OK;
}
