/* mr_curve.h - the material ratio curve's representation (lwt_material_curve, lwt_surface.h):
 * the valid heights about their mean, sorted ascending, shared by mr_curve.c (sorting, queries)
 * and params_mr.c (the parameters). */
#ifndef LWT_SURFACE_MR_CURVE_H
#define LWT_SURFACE_MR_CURVE_H

#include <stddef.h>

#include "lwt_surface.h"

struct lwt_material_curve {
    double *a;   /* n heights about the mean, ascending: a[0] lowest; material ratio of a[k] is
                    100 (n - 1 - k) / (n - 1) % */
    size_t n;
    double mean; /* metres, the reference the heights are taken about */
};

/* The long loops over a curve (its parameters' searches and integrals) run in MR_BLOCKS fixed
 * blocks of the index range, each block in index order on one thread, the blocks' results then
 * combined in block order: the same bits for any thread count. A 12288^2 surface's family took
 * 2.0 s on one core of the 16-core GPU host (docs/PERFORMANCE.md, "lwt filter end to end"). */
#define MR_BLOCKS 256
#define MR_BLOCK_LO(n, b) ((size_t)(((unsigned __int128)(n) * (unsigned)(b)) / MR_BLOCKS))

/* Height of the curve at ascending position x in [0, n - 1] (linear between points). */
static inline double lwt__mr_at(const lwt_material_curve *c, double x)
{
    if (x <= 0)
        return c->a[0];
    if (x >= (double)(c->n - 1))
        return c->a[c->n - 1];
    size_t k = (size_t)x;
    double t = x - (double)k;
    return t == 0 ? c->a[k] : c->a[k] + t * (c->a[k + 1] - c->a[k]);
}

/* Integral over material ratio (as a fraction, 0..1) of the curve's part above height h, and of
 * the part below it: the peak material above h and the void below h. */
double lwt__mr_above(const lwt_material_curve *c, double h);
double lwt__mr_below(const lwt_material_curve *c, double h);

#endif
