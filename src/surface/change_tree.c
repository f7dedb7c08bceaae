/* change_tree.c - the second step of the feature segmentation (motifs.h): the basins of
 * watershed.c merged as the heights rise (ISO 16610-85's change tree) with Wolf pruning, into the
 * significant motifs with their pits, saddle levels, extent and volume. */
#include "surface/motifs.h"
#include "core/fail.h"

#include <math.h>
#include <stdlib.h>

/* Two basins meeting at a point: a valid point u with a neighbour v of another basin before it
 * in the order. Rising through the heights, two basins join at their first such pair (the
 * saddle), so the change tree only needs these pairs, in the order of u. Each pair carries what
 * the merge needs (u's height, both basins), so the merge never reads the grid: it visits the
 * pairs in height order, all over the field, and the grid's cache lines (z and lab of u's
 * neighbourhood) cost more than the merge itself (measured: 27 % of the family's time when the
 * merge read them, white noise of 1024^2 points). */
typedef struct event {
    uint64_t key;    /* lwt__height_key of u's height */
    uint32_t bu, bv; /* u's basin, v's */
} event;

/* the height of a key (lwt__height_key's inverse) */
static double height_of(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~(1ull << 63) : ~k;
    double h;
    memcpy(&h, &u, sizeof h);
    return h;
}

/* Stable LSD radix sort of m events by key, 8-bit digits, a digit every key shares skipped; tmp
 * holds m. Returns the buffer holding the result (e or tmp). */
static event *radix_events(event *e, event *tmp, size_t m)
{
    size_t c[8][256];
    memset(c, 0, sizeof c);
    for (size_t i = 0; i < m; i++)
        for (int d = 0; d < 8; d++)
            c[d][(e[i].key >> (8 * d)) & 255]++;
    for (int d = 0; d < 8 && m > 1; d++) {
        size_t *cd = c[d], sum = 0;
        if (cd[(e[0].key >> (8 * d)) & 255] == m)
            continue;
        for (int r = 0; r < 256; r++) {
            const size_t t = cd[r];
            cd[r] = sum;
            sum += t;
        }
        for (size_t i = 0; i < m; i++)
            tmp[cd[(e[i].key >> (8 * d)) & 255]++] = e[i];
        event *t = e;
        e = tmp;
        tmp = t;
    }
    return e;
}

/* The events sorted by key, stably (events collected by point index stay so on equal heights:
 * the order (h, index)): one stable pass into BUCKETS buckets by height over the heights' range
 * (a bucket never decreases with the height), then each bucket, small enough for the caches, by
 * radix_events (mr_curve.c's sort of the heights is the model; this one carries the basins).
 * On 1024^2 points of white noise the plain radix sort of all events (5-6 passes out of cache)
 * took 21 % of the family's time. Returns the buffer holding the result (e or tmp), NULL
 * without memory. */
#define BUCKETS 4096
static event *sort_events(event *e, event *tmp, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double h = height_of(e[i].key);
        lo = h < lo ? h : lo;
        hi = h > hi ? h : hi;
    }
    const double scale = BUCKETS / (hi - lo);
    if (n < 4 * BUCKETS || !(scale > 0) || !isfinite(scale))
        return radix_events(e, tmp, n);
    size_t *start = calloc(BUCKETS + 1, sizeof *start);
    if (!start)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const double b = (height_of(e[i].key) - lo) * scale;
        start[b < BUCKETS - 1 ? (size_t)b + 1 : BUCKETS]++;
    }
    for (size_t r = 1; r <= BUCKETS; r++)
        start[r] += start[r - 1];
    for (size_t i = 0; i < n; i++) {
        const double b = (height_of(e[i].key) - lo) * scale;
        tmp[start[b < BUCKETS - 1 ? (size_t)b : BUCKETS - 1]++] = e[i];
    }
    /* start[r] is now bucket r's end; tmp holds the buckets in order, e is their scratch */
    for (size_t r = 0, first = 0; r < BUCKETS; first = start[r++]) {
        const size_t m = start[r] - first;
        if (radix_events(tmp + first, e + first, m) != tmp + first)
            memcpy(tmp + first, e + first, m * sizeof *e);
    }
    free(start);
    return tmp;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

/* The pairs of point u (mask: its neighbours inside the field) appended to e (room for 8 more);
 * returns how many, and sets *cut when a neighbour is invalid. One pair a basin met, in the
 * order first met among u's neighbours. */
static inline int pairs_of(const double *z, double sign, const uint32_t *lab, size_t u, const ptrdiff_t *off,
                           unsigned mask, event *e, int *cut)
{
    const uint32_t lu = lab[u];
    const double hu = sign * z[u];
    uint32_t met[8];
    int nmet = 0;
#pragma GCC unroll 8 /* GCC kept k in memory and tested the mask bit by bit otherwise */
    for (int k = 0; k < 8; k++) {
        if (!(mask >> k & 1))
            continue;
        const size_t v = (size_t)((ptrdiff_t)u + off[k]);
        const uint32_t lv = lab[v];
        if (lv == lu)
            continue;
        if (lv == LWT_LAB_INVALID) {
            *cut = 1;
            continue;
        }
        if (!lwt__before(sign * z[v], v, hu, u))
            continue;
        int seen = 0;
        for (int q = 0; q < nmet; q++)
            seen |= met[q] == lv;
        if (!seen)
            met[nmet++] = lv;
    }
    for (int q = 0; q < nmet; q++) {
        e[q].key = lwt__height_key(hu);
        e[q].bu = lu & ~LWT_LAB_DONE;
        e[q].bv = met[q] & ~LWT_LAB_DONE;
    }
    return nmet;
}

/* The meeting pairs (by u's index) and which basins are open: a point on the field's border or
 * next to an invalid point opens its basin. Returns the number of pairs, or (size_t)-1 without
 * memory; *events malloc'ed. */
static size_t collect(const double *z, size_t nx, size_t ny, double sign, const uint32_t *lab, size_t nbasins,
                      unsigned char *open, event **events)
{
    const int ox[8] = LWT_NB_DX_INIT, oy[8] = LWT_NB_DY_INIT;
    ptrdiff_t off[8];
    for (int k = 0; k < 8; k++)
        off[k] = (ptrdiff_t)oy[k] * (ptrdiff_t)nx + ox[k];
    size_t cap = nx * ny / 8 + 16, n = 0;
    event *e = malloc(cap * sizeof *e);
    size_t *last = malloc((nbasins ? nbasins : 1) * sizeof *last); /* per basin: its last pair */
    if (!e || !last) {
        free(e), free(last);
        return (size_t)-1;
    }
    memset(last, 0xff, (nbasins ? nbasins : 1) * sizeof *last);
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++) {
            const size_t u = j * nx + i;
            if (lab[u] == LWT_LAB_INVALID)
                continue;
            if (n + 8 > cap) {
                cap += cap / 2;
                event *g = realloc(e, cap * sizeof *e);
                if (!g) {
                    free(e), free(last);
                    return (size_t)-1;
                }
                e = g;
            }
            int cut = i == 0 || j == 0 || i + 1 == nx || j + 1 == ny;
            /* inside, the constant mask lets the compiler drop the tests */
            const int m = cut ? pairs_of(z, sign, lab, u, off, lwt__inside(i, j, nx, ny), e + n, &cut)
                              : pairs_of(z, sign, lab, u, off, 0xff, e + n, &cut);
            const uint32_t bu = lab[u] & ~LWT_LAB_DONE;
            if (cut)
                open[bu] = 1;
            /* The basin's last pair with the same other basin stands for this one at the lower of
               their heights (the merge only needs each pair's lowest meeting; which point it is
               breaks ties only): along a boundary most pairs repeat the previous one (6.7 million
               pairs of 240 thousand basins on the demo's 4096^2 roughness band). */
            for (size_t q = n, end = n + (size_t)m; q < end; q++) {
                const event x = e[q];
                if (last[bu] != SIZE_MAX && e[last[bu]].bv == x.bv) {
                    if (x.key < e[last[bu]].key)
                        e[last[bu]].key = x.key;
                    continue;
                }
                last[bu] = n;
                e[n++] = x;
            }
        }
    free(last);
    *events = e;
    return n;
}

void lwt__motifs_free(lwt_motifs *m)
{
    free(m->crit), free(m->level), free(m->points), free(m->volume), free(m->open);
    memset(m, 0, sizeof *m);
}

/* The pairs in order, as the level rises: a pair joins its basins' components (connected sets
 * below the level) if they are not one yet. The younger component (the higher lowest pit;
 * ISO 16610-85's elder rule) ends there, its local height the level less its pit. Below the
 * threshold (or 0: a plateau's pieces) it is one motif and Wolf pruning merges it into the motif
 * across the saddle, the one holding the pair's basin on the elder's side (it is the least
 * significant motif there: a component's younger motifs were pruned or ended higher). Else both
 * sides' motifs that had not met another surviving motif yet get this level as their saddle.
 * Leaves motif[] (union-find over basins) and the saddle levels of the motifs' root basins in
 * level[]. A component's root is its lowest basin, so its lowest pit is pit[root]. */
static void merge(const double *z, double sign, double threshold, const lwt_basins *b, const event *ev, size_t nev,
                  uint32_t *comp, uint32_t *motif, unsigned char *joined, double *level)
{
    const uint32_t *low = b->pit;
    for (size_t x = 0; x < b->count; x++) {
        comp[x] = motif[x] = (uint32_t)x;
        level[x] = INFINITY;
    }
    for (size_t q = 0; q < nev; q++) {
        const uint32_t bu = ev[q].bu, bv = ev[q].bv, cu = find(comp, bu), cv = find(comp, bv);
        if (cu == cv)
            continue;
        const double hu = height_of(ev[q].key);
        const int v_elder = lwt__before(sign * z[low[cv]], low[cv], sign * z[low[cu]], low[cu]);
        const uint32_t young = v_elder ? cu : cv, elder = v_elder ? cv : cu;
        const uint32_t young_side = v_elder ? bu : bv, elder_side = v_elder ? bv : bu;
        const double height = hu - sign * z[low[young]];
        if (height < threshold || !(height > 0)) {
            motif[find(motif, young_side)] = find(motif, elder_side);
        } else {
            if (!joined[young])
                level[find(motif, young_side)] = hu;
            if (!joined[elder])
                level[find(motif, elder_side)] = hu;
            joined[elder] = 1;
        }
        comp[young] = elder;
    }
}

/* Number the motifs (root basins, by basin number), their pits, saddle levels and open flags;
 * lab[] becomes each point's motif; then each motif's points and volume below its saddle, summed
 * in point order. */
static lwt_status finish(lwt_context *ctx, const double *z, size_t n, double sign, lwt_basins *b, uint32_t *motif,
                         uint32_t *id, const unsigned char *open_basin, const double *level, lwt_motifs *out)
{
    size_t m = 0;
    for (size_t x = 0; x < b->count; x++)
        motif[x] = find(motif, (uint32_t)x); /* every basin straight to its root */
    for (size_t x = 0; x < b->count; x++)
        if (motif[x] == x)
            id[x] = (uint32_t)m++;
    out->count = m;
    out->crit = malloc((m ? m : 1) * sizeof *out->crit);
    out->level = malloc((m ? m : 1) * sizeof *out->level);
    out->points = calloc(m ? m : 1, sizeof *out->points);
    out->volume = calloc(m ? m : 1, sizeof *out->volume);
    out->open = calloc(m ? m : 1, 1);
    if (!out->crit || !out->level || !out->points || !out->volume || !out->open) {
        lwt__motifs_free(out);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu motifs", m);
    }
    for (size_t x = 0; x < b->count; x++)
        if (motif[x] == x) {
            out->crit[id[x]] = b->pit[x];
            out->level[id[x]] = level[x];
        }
    for (size_t x = 0; x < b->count; x++) {
        const uint32_t t = id[motif[x]], p = b->pit[x];
        if (lwt__before(sign * z[p], p, sign * z[out->crit[t]], out->crit[t]))
            out->crit[t] = p; /* a merged motif's pit: its lowest basin's (Wolf keeps the deeper) */
        out->open[t] |= open_basin[x];
    }
    for (size_t x = 0; x < b->count; x++)
        motif[x] = id[motif[x]]; /* basin -> motif number */
    for (size_t u = 0; u < n; u++) {
        if (b->lab[u] == LWT_LAB_INVALID)
            continue;
        const uint32_t t = motif[b->lab[u] & ~LWT_LAB_DONE];
        b->lab[u] = t;
        out->points[t]++;
        const double d = out->level[t] - sign * z[u];
        if (d > 0)
            out->volume[t] += d;
    }
    return LWT_OK;
}

lwt_status lwt__change_tree(lwt_context *ctx, const double *z, size_t nx, size_t ny, double sign, double threshold,
                            lwt_basins *b, lwt_motifs *out)
{
    memset(out, 0, sizeof *out);
    const size_t k = b->count ? b->count : 1;
    uint32_t *comp = malloc(k * sizeof *comp), *motif = malloc(k * sizeof *motif);
    unsigned char *open = calloc(k, 1), *joined = calloc(k, 1);
    double *level = malloc(k * sizeof *level);
    event *ev = NULL, *tmp = NULL;
    size_t nev = 0;
    lwt_status st = LWT_OK;
    if (comp && motif && open && joined && level)
        nev = collect(z, nx, ny, sign, b->lab, b->count, open, &ev);
    if (!comp || !motif || !open || !joined || !level || nev == (size_t)-1 ||
        !(tmp = malloc((nev ? nev : 1) * sizeof *tmp))) {
        st = lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the change tree of %zu basins", b->count);
    } else {
        const event *sorted = sort_events(ev, tmp, nev);
        if (!sorted) {
            free(comp), free(motif), free(open), free(joined), free(level), free(ev), free(tmp);
            return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the change tree's sort");
        }
        merge(z, sign, threshold, b, sorted, nev, comp, motif, joined, level);
        free(ev), free(tmp);
        ev = tmp = NULL;
        st = finish(ctx, z, nx * ny, sign, b, motif, comp, open, level, out);
    }
    free(comp), free(motif), free(open), free(joined), free(level), free(ev), free(tmp);
    return st;
}
