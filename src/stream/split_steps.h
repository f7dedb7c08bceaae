/*
 * split_steps.h - the transform of a band split by levels per axis (split_job.h, split_step):
 * a chunk's window goes through the steps one level at a time, each a pass along axis 1 (x),
 * axis 0 (y) or both (axis 0 then axis 1, the order of the 2-D driver), on the previous step's
 * approximation; each step's coefficients stay in the arena. A band is then rebuilt step by
 * step from the coarsest, each step's block holding its details where they belong to the band
 * (zero elsewhere) and the approximation rebuilt by the coarser steps.
 *
 * Every pass runs on whole lines of the window: along axis 0 the window's rows, aligned to
 * 2^row_levels and holding every row the owned rows depend on (split_job.c's halos), so each
 * owned value is computed from the same inputs by the same operations as in the whole surface.
 *
 * Internal to liblwt (stream/split_job.c is the user).
 */
#ifndef LWT_STREAM_SPLIT_STEPS_H
#define LWT_STREAM_SPLIT_STEPS_H

#include <stddef.h>

#include "stream/recipe.h"
#include "stream/split_job.h"

#define SPLIT_STEPS_NONE ((size_t)-1)

/* where the forward put each step's coefficients, and the shape of what it split */
typedef struct split_steps_fwd {
    size_t rows[SPLIT_MAX_STEPS + 1], cols[SPLIT_MAX_STEPS + 1]; /* approximation after i steps */
    size_t coeffs[SPLIT_MAX_STEPS];                              /* arena offset of step i's block */
    size_t last;                                                 /* arena offset of the last approximation */
} split_steps_fwd;

/* The forward of a window of `rows` rows (whole rows of the split's arrays) at arena offset x. */
void split_steps_forward(recipe *r, const split_spec *sp, size_t rows, size_t x, split_steps_fwd *f);
/* Output `out` of the window rebuilt: its arena offset, or SPLIT_STEPS_NONE when no step
   holds a coefficient of it (a band of zeros). */
size_t split_steps_inverse(recipe *r, const split_spec *sp, const split_steps_fwd *f, int out);

#endif
