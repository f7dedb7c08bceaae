/*
 * The register kernel's runs of tiles (core/slide_runs.h): over many level
 * shapes and device sizes, every tile of every strip is run by exactly one
 * block, runs stay within one strip and the longest run, the blocks of a row of
 * runs are the strips in order (so the blocks running at once are neighbours),
 * there are at least two waves of blocks with work wherever the tiles allow it,
 * and the runs of the last wave are no longer than those before them.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/slide_runs.h"

static int cases;

static void check_case(long t0, long ntr, long ns, long resident)
{
    lwt_slide_runs r;
    const long blocks = lwt_slide_runs_plan(&r, t0, ntr, ns, resident);
    unsigned char *seen = calloc((size_t)(ntr * ns) + 1, 1);
    long working = 0, last_len = LWT_SLIDE_RUN_TILES + 1, bad_order = 0, prev_start = -1;
    cases++;
    for (long b = 0; b < blocks; b++) {
        long strip, tr, nt;
        if (!lwt_slide_run(&r, ns, b, &strip, &tr, &nt))
            continue;
        working++;
        CHECK(strip == b % ns, "ntr %ld ns %ld res %ld: block %ld runs strip %ld", ntr, ns, resident, b, strip);
        CHECK(nt >= 1 && nt <= LWT_SLIDE_RUN_TILES, "block %ld runs %ld tiles", b, nt);
        CHECK(tr >= t0 && tr + nt <= t0 + ntr, "ntr %ld ns %ld res %ld: block %ld runs tiles %ld..%ld outside %ld..%ld",
              ntr, ns, resident, b, tr, tr + nt, t0, t0 + ntr);
        if (strip == 0) {
            /* rows of runs go down the strips in order, never shorter then longer */
            if (tr <= prev_start || nt > last_len)
                bad_order++;
            prev_start = tr;
            if (tr + nt < t0 + ntr) /* the last run may be cut by the array's end */
                last_len = nt;
        }
        for (long t = tr; t < tr + nt && t >= t0 && t < t0 + ntr; t++)
            seen[strip * ntr + (t - t0)]++;
    }
    for (long i = 0; i < ntr * ns; i++)
        CHECK(seen[i] == 1, "ntr %ld ns %ld res %ld: strip %ld tile row %ld run %d times", ntr, ns, resident, i / ntr,
              t0 + i % ntr, seen[i]);
    CHECK(!bad_order, "ntr %ld ns %ld res %ld: %ld rows of runs out of order", ntr, ns, resident, bad_order);
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
}

int main(void)
{
    /* the 16384^2 CDF 9/7 levels on an H200 (132 SMs, 2-4 blocks each), then a sweep */
    check_case(0, 512, 67, 396);
    check_case(0, 256, 33, 396);
    check_case(0, 64, 17, 396);
    check_case(0, 32, 9, 396);
    const long ntrs[] = {1, 2, 3, 7, 16, 17, 31, 64, 100, 257, 512, 1440, 4099};
    const long nss[] = {1, 2, 5, 9, 33, 67, 130, 400};
    const long res[] = {0, 1, 2, 132, 264, 396, 528, 1056};
    const long t0s[] = {0, 5};
    for (size_t a = 0; a < sizeof ntrs / sizeof *ntrs; a++)
        for (size_t b = 0; b < sizeof nss / sizeof *nss; b++)
            for (size_t c = 0; c < sizeof res / sizeof *res; c++)
                for (size_t d = 0; d < 2; d++)
                    check_case(t0s[d], ntrs[a], nss[b], res[c]);
    CHECK(cases == 4 + 13 * 8 * 8 * 2, "ran %d cases", cases);
    return finish("test_slide_runs");
}
