/*
 * Which tiles each block of a register-kernel level runs (cuda_slide_regs.cu).
 *
 * A level is planned in short tiles (16 coefficient rows); a block slides down a
 * run of consecutive tiles of one strip as one tall tile. Blocks go in rows of
 * runs, strip by strip (block = row of runs * strips + strip), so the blocks
 * that run at once read and write neighbouring columns of the same rows: their
 * halo columns and the partial 32-byte sectors at their edges meet in L2.
 *
 * Runs are H tiles, then G rows of runs of H / 2, G of H / 4, ..., 1, where G
 * rows of runs are about the blocks the device holds at once. The last wave of
 * blocks is then made of shorter and shorter runs and ends nearly together:
 * with one run height, the SMs were active 77% of the time of the level-1
 * kernel (ncu, docs/PERFORMANCE.md version 13), the last wave part-empty.
 *
 * A device's share of a level spread over several (stream/spread_job.cu) may
 * send its full runs' blocks round regions of its rows (lwt_slide_runs_region),
 * so the blocks writing rows in another device's memory run among the others.
 */
#ifndef LWT_CORE_SLIDE_RUNS_H
#define LWT_CORE_SLIDE_RUNS_H

#include "core/hd.h"

#define LWT_SLIDE_RUN_TILES 16 /* the longest run: 256 rows, the tile height measured best before runs */

typedef struct lwt_slide_runs {
    long t0, ntr; /* the tile rows to run: [t0, t0 + ntr) of every strip */
    long nfull;   /* rows of runs of H tiles */
    int H, G;
    int regions; /* the full runs' regions (lwt_slide_runs_region); 1: in order */
} lwt_slide_runs;

/* the runs of tile rows [t0, t0 + ntr) of ns strips on a device that holds
   `resident` blocks at once: H the longest run up to LWT_SLIDE_RUN_TILES that
   still makes two waves of blocks; returns the blocks to launch (the last ones
   may have no work). resident 0: runs of H tiles only, no shorter ones (a
   level among many in one launch, whose grid's last wave is not its own).
   regions > 1: the full runs' blocks go round that many regions of the tile
   rows (lwt_slide_runs_region); 1: in order */
LWT_HD long lwt_slide_runs_plan(lwt_slide_runs *r, long t0, long ntr, long ns, long resident, int regions)
{
    int h = LWT_SLIDE_RUN_TILES, halvings = 0;
    while (h > 1 && ns * ((ntr + h - 1) / h) < 2 * resident)
        h /= 2;
    for (int x = h; x > 1; x /= 2)
        halvings++;
    const long g = resident <= 0 ? 0 : resident > ns ? (resident + ns - 1) / ns : 1;
    const long tail = g * (h - 1); /* tiles in the shorter runs */
    r->t0 = t0;
    r->ntr = ntr;
    r->H = h;
    r->G = (int)g;
    r->nfull = ntr > tail ? (ntr - tail + h - 1) / h : 0;
    r->regions = regions < 1 ? 1 : regions > r->nfull ? (int)(r->nfull ? r->nfull : 1) : regions;
    return ntr > 0 ? ns * (r->nfull + g * halvings) : 0;
}

/* Full runs with regions: the rows of full runs are cut in K regions of consecutive rows
   (region k holds q + 1 rows for k < nfull % K, else q), and consecutive blocks go to the
   regions in turn, each region's blocks in its own order (row by row, the strips in order).
   So 1 / K of the blocks at work at any time are in each region, not whole rows of runs
   one after another. Block blk < nfull ns: its region's row of runs and strip. */
LWT_HD void lwt_slide_runs_region(const lwt_slide_runs *r, long ns, long blk, long *row, long *strip)
{
    const long K = r->regions, q = r->nfull / K, rem = r->nfull % K;
    long k, i; /* region, block within it */
    if (blk < q * ns * K) {
        k = blk % K;
        i = blk / K;
    } else {
        k = (blk - q * ns * K) % rem;
        i = q * ns + (blk - q * ns * K) / rem;
    }
    *row = k * q + (k < rem ? k : rem) + i / ns;
    *strip = i % ns;
}

/* block blk's run: strip, first tile row (from t0 on) and tiles; 0 if it has none */
LWT_HD int lwt_slide_run(const lwt_slide_runs *r, long ns, long blk, long *strip, long *tile_row, long *ntiles)
{
    const long grp = blk / ns;
    long start, h = r->H;
    if (grp < r->nfull && r->regions > 1) {
        long row;
        lwt_slide_runs_region(r, ns, blk, &row, strip);
        start = row * r->H;
    } else if (grp < r->nfull) {
        start = grp * r->H;
        *strip = blk - grp * ns;
    } else {
        if (r->G <= 0)
            return 0;
        const long t = grp - r->nfull, L = t / r->G + 1; /* run height H >> L */
        h = r->H >> (L < 30 ? L : 30);
        start = r->nfull * r->H + r->G * (r->H - (r->H >> (L - 1 < 30 ? L - 1 : 30))) + (t - (L - 1) * r->G) * h;
        *strip = blk - grp * ns;
    }
    if (h < 1 || start >= r->ntr)
        return 0;
    *tile_row = r->t0 + start;
    *ntiles = h < r->ntr - start ? h : r->ntr - start;
    return 1;
}

#endif
