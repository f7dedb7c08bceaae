/* The spread's shares and row placement (spread_job.h): host arithmetic, no CUDA. */
#include "stream/spread_job.h"

#include "core/context.h"
#include "stream/sched.h"

/* Chunks 0 .. n-1 of one set, handed out by the scheduler to devices 0 .. ndev-1: device k's
 * share is [cut[k], cut[k + 1]). The static policy gives each a contiguous run in device order;
 * anything else cannot be placed as rows and is an internal error. */
static lwt_status take_shares(const lwt_context *ctx, lwt_sched *sch, long n, int ndev, long *cut)
{
    if (lwt_sched_begin(sch, n))
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "spread: cannot schedule %ld tile rows", n);
    cut[0] = 0;
    for (int k = 0; k < ndev; k++) {
        long end = cut[k];
        for (long c; (c = lwt_sched_next(sch, k)) >= 0; end++) {
            if (c != end)
                return lwt_fail(ctx, LWT_ERR_INTERNAL, "spread: device %d's share is not contiguous", k);
            lwt_sched_done(sch, k, c, 0.0, 0.0, 0.0);
        }
        cut[k + 1] = end;
    }
    if (cut[ndev] != n)
        return lwt_fail(ctx, LWT_ERR_INTERNAL, "spread: %ld of %ld tile rows shared out", cut[ndev], n);
    return LWT_OK;
}

/* the forward tiles the devices share at level j: the second level of a pair's, or the level's
   own; NULL where it has none (the register kernel does not run it) */
static const lwt_slide_geom *forward_tiles(const spread_layout *L, int j)
{
    return j > 1 && L->lv[j - 1].pair ? &L->lv[j - 1].pair->g2 : L->lv[j].g[0];
}

/* the device index that writes coefficient row r of level j: the share holding its tile row
   (the first level of a pair: the pair's block writing level j + 1's row r / 2), or, where
   level j has no forward tiles, the share holding the row itself */
static int level_row_owner(const spread_layout *L, int j, size_t r)
{
    const size_t rows = L->plan->sizes[j][0];
    if (!rows)
        return 0;
    if (r >= rows)
        r = rows - 1;
    const spread_level *v = &L->lv[j];
    if (v->pair)
        return level_row_owner(L, j + 1, r / 2);
    const lwt_slide_geom *g = forward_tiles(L, j);
    const long x = g ? (long)r / g->ax[0].T : (long)r;
    const long *cut = g ? v->tile[0] : v->row;
    int k = 0;
    while (k + 1 < L->ndev && cut[k + 1] <= x)
        k++;
    return k;
}

int spread_array_row_owner(const spread_layout *L, int j, size_t r)
{
    if (L->plan->levels == 0)
        return 0;
    return j == 0 ? level_row_owner(L, 1, r / 2) : level_row_owner(L, j, r);
}

/* Packed row r goes to the device writing its coarsest band's row. A packed row holds bands
 * of several levels side by side (level 1's first detail band beside everything coarser), and
 * a row is placed whole, so some writes cross devices whatever the choice; this choice makes
 * them level j's writes beside the coarser levels' bands, made while level j runs over the
 * device's own memory (four times the bytes of level j + 1), instead of level j + 1's writes,
 * made in a level that moves little else. Measured on 4 x H200, 32768^2 CDF 9/7 4 levels:
 * placed by level 1, level 2 took 0.93 ms on 4 GPUs against 0.55 ms on one; placed by the
 * coarsest band, 4 GPUs went from 1.65x to 2.16x one GPU (docs/PERFORMANCE.md, "Four GPUs"). */
int spread_packed_row_owner(const spread_layout *L, size_t r)
{
    const lwt_plan *p = L->plan;
    if (p->levels == 0)
        return 0;
    for (int i = 0; i <= p->levels; i++) /* band list index: 0 the approximation, then coarsest first */
        for (unsigned mask = i ? 1 : 0; mask < (i ? 4u : 1u); mask++) {
            lwt_band b;
            if (lwt_plan_band(p, i, mask, &b) == LWT_OK && r >= b.offset[0] && r < b.offset[0] + b.shape[0])
                return level_row_owner(L, i ? p->levels - i + 1 : p->levels, r - b.offset[0]);
        }
    return 0; /* no band (a gap row) */
}

/* the inverse's tiles of level j by where their first output row lives */
static void inverse_tiles(spread_layout *L, int j)
{
    spread_level *v = &L->lv[j];
    const lwt_slide_geom *g = v->g[1];
    const long T = g->ax[0].T, nt = g->tiles[0];
    long tr = 0;
    v->tile[1][0] = 0;
    for (int k = 1; k < L->ndev; k++) {
        /* tile tr's outputs start near sample row 2 tr T */
        while (tr < nt && spread_array_row_owner(L, j - 1, (size_t)(2 * tr * T)) < k)
            tr++;
        v->tile[1][k] = tr;
    }
    v->tile[1][L->ndev] = nt;
}

lwt_status spread_layout_shares(spread_layout *L)
{
    const lwt_plan *p = L->plan;
    lwt_sched *sch = NULL;
    if (lwt_sched_create(LWT_BALANCE_STATIC, L->ndev, NULL, &sch))
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "spread: no scheduler for %d devices", L->ndev);
    lwt_status st = LWT_OK;
    for (int j = 1; j <= p->levels && !st; j++) {
        spread_level *v = &L->lv[j];
        const lwt_slide_geom *g = forward_tiles(L, j);
        if (v->pair) /* its rows go with level j + 1's */
            continue;
        st = g ? take_shares(p->ctx, sch, g->tiles[0], L->ndev, v->tile[0])
               : take_shares(p->ctx, sch, (long)p->sizes[j][0], L->ndev, v->row);
    }
    lwt_sched_destroy(sch);
    /* after the forward shares: the inverse's follow where its rows live */
    for (int j = 1; j <= p->levels && !st; j++)
        if (L->lv[j].g[1])
            inverse_tiles(L, j);
    return st;
}
