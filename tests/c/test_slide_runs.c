/*
 * The register kernel's runs of tiles (core/slide_runs.h): over many level
 * shapes and device sizes, every tile of every strip is run by exactly one
 * block, runs stay within one strip and the longest run, the blocks of a row of
 * runs are the strips in order (so the blocks running at once are neighbours),
 * there are at least two waves of blocks with work wherever the tiles allow it,
 * and the runs of the last wave are no longer than those before them. With
 * regions, consecutive blocks of the full runs go round the regions, each
 * region's blocks in their own order.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/slide_runs.h"

static int cases;

static void check_case(long t0, long ntr, long ns, long resident, int regions)
{
    lwt_slide_runs r;
    const long blocks = lwt_slide_runs_plan(&r, t0, ntr, ns, resident, regions);
    unsigned char *seen = calloc((size_t)(ntr * ns) + 1, 1);
    /* the full runs' blocks in launch order: row of runs * ns + strip */
    long *full = calloc((size_t)blocks + 1, sizeof *full);
    long nfull = 0, working = 0, last_len = LWT_SLIDE_RUN_TILES + 1, bad_order = 0, prev_start = -1;
    cases++;
    for (long b = 0; b < blocks; b++) {
        long strip, tr, nt;
        if (!lwt_slide_run(&r, ns, b, &strip, &tr, &nt))
            continue;
        working++;
        CHECK(nt >= 1 && nt <= LWT_SLIDE_RUN_TILES, "block %ld runs %ld tiles", b, nt);
        CHECK(tr >= t0 && tr + nt <= t0 + ntr, "ntr %ld ns %ld res %ld: block %ld runs tiles %ld..%ld outside %ld..%ld",
              ntr, ns, resident, b, tr, tr + nt, t0, t0 + ntr);
        if (b / ns < r.nfull)
            full[nfull++] = (tr - t0) / r.H * ns + strip;
        else {
            /* the shorter runs go down the strips in order after the full ones, never shorter then longer */
            CHECK(strip == b % ns, "ntr %ld ns %ld res %ld: block %ld runs strip %ld", ntr, ns, resident, b, strip);
            if (strip == 0 && (tr <= prev_start || nt > last_len || tr - t0 < r.nfull * r.H))
                bad_order++;
            if (strip == 0)
                prev_start = tr, last_len = nt;
        }
        for (long t = tr; t < tr + nt && t >= t0 && t < t0 + ntr; t++)
            seen[strip * ntr + (t - t0)]++;
    }
    for (long i = 0; i < ntr * ns; i++)
        CHECK(seen[i] == 1, "ntr %ld ns %ld res %ld: strip %ld tile row %ld run %d times", ntr, ns, resident, i / ntr,
              t0 + i % ntr, seen[i]);
    /* The full runs, with K regions of q or q + 1 rows of runs: the first K blocks start the
       regions (strip 0 of rows q or q + 1 apart, the first at row 0), and while every region
       has blocks left, block b + K is the block after block b in the same region (the next
       strip, or strip 0 of the next row). In order (K = 1): block b runs strip b % ns of row
       b / ns. */
    const long rows = nfull / (ns ? ns : 1), K = regions < rows ? regions : rows > 0 ? rows : 1, q = rows / K;
    for (long b = 0; b < nfull; b++) {
        if (b < K && (full[b] % ns != 0 || (b == 0 ? full[b] != 0
                                                   : full[b] - full[b - 1] != q * ns && full[b] - full[b - 1] != (q + 1) * ns)))
            bad_order++;
        if (b + K < q * ns * K && full[b + K] != full[b] + 1)
            bad_order++;
    }
    CHECK(!bad_order, "ntr %ld ns %ld res %ld regions %d: %ld runs out of order", ntr, ns, resident, regions,
          bad_order);
    if (resident == 0) /* a level among many in one launch: full runs, no block without work */
        CHECK(blocks == ns * ((ntr + LWT_SLIDE_RUN_TILES - 1) / LWT_SLIDE_RUN_TILES) && working == blocks,
              "ntr %ld ns %ld res 0: %ld blocks, %ld with work", ntr, ns, blocks, working);
    else if (ns * ntr >= 2 * resident)
        CHECK(working >= 2 * resident, "ntr %ld ns %ld res %ld: %ld blocks with work, fewer than two waves", ntr, ns,
              resident, working);
    else
        CHECK(working == ns * ntr, "ntr %ld ns %ld res %ld: %ld blocks for %ld tiles", ntr, ns, resident, working,
              ns * ntr);
    free(seen);
    free(full);
}

int main(void)
{
    /* the 16384^2 CDF 9/7 levels on an H200 (132 SMs, 2-4 blocks each), then a sweep */
    check_case(0, 512, 67, 396, 1);
    check_case(0, 256, 33, 396, 1);
    check_case(0, 64, 17, 396, 1);
    check_case(0, 32, 9, 396, 1);
    const long ntrs[] = {1, 2, 3, 7, 16, 17, 31, 64, 100, 257, 512, 1440, 4099};
    const long nss[] = {1, 2, 5, 9, 33, 67, 130, 400};
    const long res[] = {0, 1, 2, 132, 264, 396, 528, 1056};
    const long t0s[] = {0, 5};
    const int regs[] = {1, 2, 3, 4, 7};
    for (size_t a = 0; a < sizeof ntrs / sizeof *ntrs; a++)
        for (size_t b = 0; b < sizeof nss / sizeof *nss; b++)
            for (size_t c = 0; c < sizeof res / sizeof *res; c++)
                for (size_t d = 0; d < 2; d++)
                    for (size_t e = 0; e < sizeof regs / sizeof *regs; e++)
                        check_case(t0s[d], ntrs[a], nss[b], res[c], regs[e]);
    CHECK(cases == 4 + 13 * 8 * 8 * 2 * 5, "ran %d cases", cases);
    return finish("test_slide_runs");
}
