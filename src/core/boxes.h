/*
 * Boxes in a C-order array of up to three axes (shapes padded with trailing
 * 1s), and the boxes that a set of them leaves uncovered: the gaps of
 * PyWavelets' packed coefficient array, which a forward transform fills with
 * zeros. Zeroing only the gaps, not the whole array before the bands are
 * written over it, saves a full write of the output (measured on an H200:
 * 0.24 of 1.29 ms for a 4-level CDF 9/7 forward of 16384^2 in symmetric mode,
 * docs/PERFORMANCE.md version 14).
 */
#ifndef LWT_CORE_BOXES_H
#define LWT_CORE_BOXES_H

#include <stddef.h>

typedef struct lwt_box {
    size_t off[3], ext[3];
} lwt_box;

/* The parts of an array of `shape` that none of boxes[0..nb) covers, as
   disjoint boxes written to out[0..max); returns how many there are (also
   when more than max, so a first call with max 0 sizes the list). */
size_t lwt_box_complement(const size_t shape[3], const lwt_box *boxes, size_t nb, lwt_box *out, size_t max);

#endif
