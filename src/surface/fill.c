/* fill.c - harmonic inpainting of invalid points, coarse to fine (see fill.h). */
#include "surface/fill.h"

#include <math.h>
#include <stdlib.h>

typedef struct grid {
    size_t nx, ny;
    double *z;
    unsigned char *known; /* 1 = measured (or averaged from measured points): fixed */
    size_t *holes;        /* indices of the points to fill, in row order */
    unsigned char *nb;    /* per hole: which neighbours exist (NB_* bits) */
    size_t nholes;
} grid;

/* The neighbours a hole has inside its grid, found once when the holes are listed: relax()
 * used to derive them from p % nx and p / nx on every sweep, and those two 64-bit divisions
 * were the fill's largest cost (perf: 4096^2 with 1 % invalid points, up to 400 sweeps on the
 * coarse grids). */
enum { NB_W = 1, NB_E = 2, NB_N = 4, NB_S = 8 };

#define MAX_GRIDS 80

static void grid_free(grid *g, int owns_z)
{
    if (owns_z)
        free(g->z);
    free(g->known);
    free(g->holes);
    free(g->nb);
}

static int list_holes(grid *g)
{
    size_t n = g->nx * g->ny, k = 0;
    for (size_t i = 0; i < n; i++)
        k += !g->known[i];
    g->nholes = k;
    g->holes = malloc((k ? k : 1) * sizeof *g->holes);
    g->nb = malloc(k ? k : 1);
    if (!g->holes || !g->nb)
        return -1;
    k = 0;
    for (size_t j = 0; j < g->ny; j++)
        for (size_t i = 0; i < g->nx; i++)
            if (!g->known[j * g->nx + i]) {
                g->holes[k] = j * g->nx + i;
                g->nb[k++] = (unsigned char)((i > 0 ? NB_W : 0) | (i + 1 < g->nx ? NB_E : 0) | (j > 0 ? NB_N : 0) |
                                             (j + 1 < g->ny ? NB_S : 0));
            }
    return 0;
}

/* c = 2x2 block averages of f. A coarse cell is known when all its fine cells are: its value is
 * then the exact block mean (a plane stays a plane). When no cell would be known that way, a
 * cell with any known fine cell counts as known, so that the pyramid always ends with data. */
static int coarsen(const grid *f, grid *c)
{
    c->nx = (f->nx + 1) / 2;
    c->ny = (f->ny + 1) / 2;
    size_t n = c->nx * c->ny, strict = 0;
    c->z = malloc(n * sizeof *c->z);
    c->known = malloc(n);
    c->holes = NULL;
    c->nb = NULL;
    if (!c->z || !c->known)
        return -1;
    for (int lenient = 0; lenient < 2 && strict == 0; lenient++)
        for (size_t J = 0; J < c->ny; J++)
            for (size_t I = 0; I < c->nx; I++) {
                const size_t f0 = 2 * J * f->nx + 2 * I;
                if (2 * J + 1 < f->ny && 2 * I + 1 < f->nx &&
                    (f->known[f0] & f->known[f0 + 1] & f->known[f0 + f->nx] & f->known[f0 + f->nx + 1])) {
                    /* a whole block of measured points (nearly all of them when holes are few):
                       the general loop's sums in its order, without its bounds and count logic */
                    const double *z0 = f->z + f0, *z1 = z0 + f->nx;
                    c->z[J * c->nx + I] = ((((0.0 + z0[0]) + z0[1]) + z1[0]) + z1[1]) / 4;
                    c->known[J * c->nx + I] = 1;
                    strict++;
                    continue;
                }
                double s = 0;
                int cnt = 0, all = 0;
                for (size_t j = 2 * J; j < 2 * J + 2 && j < f->ny; j++)
                    for (size_t i = 2 * I; i < 2 * I + 2 && i < f->nx; i++) {
                        all++;
                        if (f->known[j * f->nx + i]) {
                            s += f->z[j * f->nx + i];
                            cnt++;
                        }
                    }
                int known = lenient ? cnt > 0 : cnt == all;
                c->z[J * c->nx + I] = cnt ? s / cnt : 0.0;
                c->known[J * c->nx + I] = (unsigned char)known;
                strict += (size_t)known;
            }
    return list_holes(c);
}

/* holes of f start from the bilinear interpolation of c (fully valued) */
static void prolong(grid *f, const grid *c)
{
    for (size_t h = 0; h < f->nholes; h++) {
        size_t p = f->holes[h], i = p % f->nx, j = p / f->nx;
        double cx = (i + 0.5) * 0.5 - 0.5, cy = (j + 0.5) * 0.5 - 0.5;
        if (cx < 0) cx = 0;
        if (cy < 0) cy = 0;
        if (cx > (double)(c->nx - 1)) cx = (double)(c->nx - 1);
        if (cy > (double)(c->ny - 1)) cy = (double)(c->ny - 1);
        size_t i0 = (size_t)cx, j0 = (size_t)cy;
        size_t i1 = i0 + 1 < c->nx ? i0 + 1 : i0, j1 = j0 + 1 < c->ny ? j0 + 1 : j0;
        double fx = cx - (double)i0, fy = cy - (double)j0;
        const double *z = c->z;
        double top = (1 - fx) * z[j0 * c->nx + i0] + fx * z[j0 * c->nx + i1];
        double bot = (1 - fx) * z[j1 * c->nx + i0] + fx * z[j1 * c->nx + i1];
        f->z[p] = (1 - fy) * top + fy * bot;
    }
}

/* Gauss-Seidel sweeps of the 5-point Laplace equation over the holes; returns the last max change */
static double relax(grid *g, int sweeps)
{
    double change = 0;
    const size_t nx = g->nx;
    for (int s = 0; s < sweeps; s++) {
        change = 0;
        for (size_t h = 0; h < g->nholes; h++) {
            const size_t p = g->holes[h];
            const unsigned m = g->nb[h];
            double sum = 0;
            int cnt = 0;
            if (m & NB_W) { sum += g->z[p - 1]; cnt++; }
            if (m & NB_E) { sum += g->z[p + 1]; cnt++; }
            if (m & NB_N) { sum += g->z[p - nx]; cnt++; }
            if (m & NB_S) { sum += g->z[p + nx]; cnt++; }
            if (!cnt)
                continue;
            /* an interior hole (4 neighbours): the same value as sum / 4, without the division's
               latency in the sweep's dependency chain */
            double v = cnt == 4 ? sum * 0.25 : sum / cnt, d = fabs(v - g->z[p]);
            if (d > change)
                change = d;
            g->z[p] = v;
        }
    }
    return change;
}

int lwt_fill_invalid(double *z, size_t nx, size_t ny, size_t *filled)
{
    if (filled)
        *filled = 0;
    if (!z || nx == 0 || ny == 0)
        return -2;
    size_t nbad = 0, n = nx * ny;
    for (size_t i = 0; i < n; i++)
        nbad += !isfinite(z[i]);
    if (nbad == 0)
        return 0;
    if (nbad == n)
        return -2;
    grid g[MAX_GRIDS] = {{0}};
    int ng = 1, rc = 0;
    g[0].nx = nx;
    g[0].ny = ny;
    g[0].z = z;
    g[0].known = malloc(nx * ny);
    if (!g[0].known)
        return -1;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nx * ny; i++) {
        g[0].known[i] = isfinite(z[i]) != 0;
        if (g[0].known[i]) {
            if (z[i] < lo) lo = z[i];
            if (z[i] > hi) hi = z[i];
        }
    }
    if (!(lo <= hi)) {
        grid_free(&g[0], 0);
        return -2;
    }
    if (list_holes(&g[0])) {
        grid_free(&g[0], 0);
        return -1;
    }
    size_t total = g[0].nholes;
    /* build the pyramid up to the first grid without holes */
    while (g[ng - 1].nholes > 0) {
        if (ng == MAX_GRIDS || coarsen(&g[ng - 1], &g[ng])) {
            rc = -1;
            ng += ng < MAX_GRIDS;
            goto done;
        }
        ng++;
    }
    /* back down: interpolate, then relax until converged (a bigger budget on small grids) */
    double tol = 1e-13 * (hi - lo > 0 ? hi - lo : fabs(hi) > 0 ? fabs(hi) : 1.0);
    for (int k = ng - 2; k >= 0; k--) {
        prolong(&g[k], &g[k + 1]);
        int budget = g[k].nholes <= LWT_FILL_SMALL ? LWT_FILL_TOP_SWEEPS : LWT_FILL_SWEEPS;
        for (int s = 0; s < budget; s += 4)
            if (relax(&g[k], 4) <= tol)
                break;
    }
    if (filled)
        *filled = total;
done:
    for (int k = 0; k < ng; k++)
        grid_free(&g[k], k > 0);
    return rc;
}
