/*
 * Two forward 2-D levels in one pass (cuda_slide_pair.cu): the geometry.
 *
 * A block owns a strip and a run of rows of level 2, planned as the one-level
 * register kernel plans that level (g2, core/slide.h). It slides down the
 * level-1 input rows in the columns that strip needs: level 1 over a strip
 * of T1 coefficient columns (g1), whose approximation rows feed level 2's
 * vertical window straight from shared memory, so the level-1 approximation
 * is never written or read back. The block writes the level-1 detail bands
 * only for the level-1 coefficients under its level-2 strip and rows (band
 * columns [2 sx2, 2 sx2 + 2 T2), rows likewise), which tile the level; the
 * columns and rows around them are computed by both neighbours.
 *
 * Periodization with both sizes multiples of 4 only: there the level-1
 * approximation at an index past the array's end, computed from the wrapped
 * input like any other, is the periodic extension level 2 reads there. In
 * the other modes level 2 extends the level-1 approximation itself, which
 * the level-1 lifting of the extended input does not give.
 */
#ifndef LWT_CORE_SLIDE_PAIR_H
#define LWT_CORE_SLIDE_PAIR_H

#include "core/slide.h"

typedef struct lwt_slide_pair {
    lwt_slide_geom g1; /* level 1, strips of T1 = g1.ax[1].T columns */
    lwt_slide_geom g2; /* level 2 on the level-1 approximation */
    /* the level-1 strip of the level-2 strip at sx2 starts at band column 2 sx2 + c_lo;
       level-2 thread j reads the level-1 approximation column 2 sx2 + c_lo + u0 + j */
    long c_lo;
    int u0;
} lwt_slide_pair;

/*
 * Plan levels 1 and 2 of an n0 x n1 forward (level 1's input). threads:
 * threads per block, one per level-1 strip column; slots1, slots2: ring
 * slots per lane and channel of each level's rows (a channel's extent in a
 * strip at most 32 slots). Returns 0 when the pair does not apply: not
 * periodization, a size not a multiple of 4, too short for one strip, or
 * no strip width that fits.
 */
int lwt_slide_pair_plan(lwt_slide_pair *p, const lwt_scheme *s, lwt_mode mode, int F, long n0, long n1, size_t es,
                        int threads, int slots1, int slots2);

/* columns of one level's strip at most `threads` samples wide and each channel within
   32 slots per lane (the register kernels' fit, cuda_slide_regs.cu) */
int lwt_slide_pair_fits(const lwt_slide_geom *g, int threads, int slots);

#endif
