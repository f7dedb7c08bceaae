/*
 * motifs.h - the segmentation of a height map into motifs (ISO 25178-2 5.3: dales, and hills as
 * the dales of -z), shared by watershed.c (points drained into basins), change_tree.c (basins
 * merged by Wolf pruning into motifs) and params_feature.c (the parameters of the motifs).
 *
 * Heights are h = sign * z (sign +1: dales, -1: hills). Points are ordered by (h, index): a total
 * order, ties in height broken by the index, so "lower" is never ambiguous and the segmentation
 * is one answer whatever the threads (a plateau is split by index into basins that meet at
 * their own height: local height 0, always pruned).
 */
#ifndef LWT_SURFACE_MOTIFS_H
#define LWT_SURFACE_MOTIFS_H

#include <stdint.h>
#include <string.h>

#include "lwt_surface.h"

/* lab[] of a point: a pointer to the next point down (a point index < 2^31) while draining,
 * then LWT_LAB_DONE | basin (or motif) number; LWT_LAB_INVALID for a point that is not finite. */
#define LWT_LAB_DONE 0x80000000u
#define LWT_LAB_INVALID 0xffffffffu
#define LWT_MAX_POINTS 0x7ffffffeu

/* the 8 neighbours: offsets along x and y, in this fixed order (the order breaks slope ties) */
#define LWT_NB_DX_INIT {-1, 0, 1, -1, 1, -1, 0, 1}
#define LWT_NB_DY_INIT {-1, -1, -1, 0, 0, 1, 1, 1}

/* The neighbours of point (i, j) inside an nx x ny field: bit k for LWT_NB's k-th. */
static inline unsigned lwt__inside(size_t i, size_t j, size_t nx, size_t ny)
{
    unsigned m = 0xff;
    if (i == 0)
        m &= ~0x29u; /* x - 1: k = 0, 3, 5 */
    if (i + 1 == nx)
        m &= ~0x94u; /* x + 1: k = 2, 4, 7 */
    if (j == 0)
        m &= ~0x07u; /* y - 1: k = 0, 1, 2 */
    if (j + 1 == ny)
        m &= ~0xe0u; /* y + 1: k = 5, 6, 7 */
    return m;
}

/* A height's bits as an unsigned key in the order of the values (-0 made +0 first, so equal
 * heights have equal keys): the event sort's key (change_tree.c). */
static inline uint64_t lwt__height_key(double h)
{
    uint64_t u;
    h += 0.0; /* -0 + 0 = +0 */
    memcpy(&u, &h, sizeof u);
    return u >> 63 ? ~u : u | (1ull << 63);
}

/* point a (height ha) comes before point b (height hb) in the order (h, index); finite heights */
static inline int lwt__before(double ha, size_t a, double hb, size_t b)
{
    return ha < hb || (ha == hb && a < b);
}

typedef struct lwt_basins {
    uint32_t *lab;   /* nx * ny: LWT_LAB_DONE | basin, LWT_LAB_INVALID */
    uint32_t *pit;   /* per basin: its lowest point */
    size_t count;
} lwt_basins;

/* The next point down from each valid point along its steepest descent (the neighbour before it
 * in the order with the largest drop over distance, dx and dy apart; itself at a pit), for the
 * dales (h = z) in down[] and the hills (h = -z) in up[]; LWT_LAB_INVALID where z is not finite.
 * threads: the rows run on them (each point's own answer). */
void lwt__descend(const double *z, size_t nx, size_t ny, double dx, double dy, int threads, uint32_t *down,
                  uint32_t *up);
/* Number the basins of one of those arrays (lab, n points: it becomes LWT_LAB_DONE | basin) and
 * find their pits; out->lab = lab, out->pit malloc'ed. */
lwt_status lwt__basins(lwt_context *ctx, uint32_t *lab, size_t n, lwt_basins *out);

typedef struct lwt_motifs {
    size_t count;        /* significant motifs */
    uint32_t *crit;      /* per motif: its pit (peak) point */
    double *level;       /* per motif: h of the lowest saddle on its boundary (INFINITY: none) */
    size_t *points;      /* per motif: its valid points */
    double *volume;      /* per motif: sum over its points of (level - h)+, h units (times dx dy: m^3) */
    unsigned char *open; /* per motif: 1 when it touches the field's border or an invalid point */
} lwt_motifs;

/* Merge basins b (lab[] turns from basin to motif numbers) into the significant motifs of h =
 * sign * z with Wolf pruning at height threshold (> 0 or 0); the motifs' fields malloc'ed
 * (lwt__motifs_free). */
lwt_status lwt__change_tree(lwt_context *ctx, const double *z, size_t nx, size_t ny, double sign, double threshold,
                            lwt_basins *b, lwt_motifs *out);
void lwt__motifs_free(lwt_motifs *m);

#endif
