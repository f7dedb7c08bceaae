/*
 * Sets of element ranges of one array (a rank's reads or holdings), sorted and disjoint once
 * normalized: what the MPI ranks compare to plan their messages (mpi_plan.c).
 */
#ifndef LWT_MPI_SPANS_H
#define LWT_MPI_SPANS_H

#include <stddef.h>

#include "stream/recipe.h"

typedef struct span {
    size_t lo, hi; /* elements [lo, hi) */
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
    int failed; /* out of memory */
} spans;

void spans_free(spans *s);
void spans_add(spans *s, size_t lo, size_t hi);
/* sorted, overlapping and touching ranges merged */
void spans_normalize(spans *s);
/* out = a & b (both normalized); out is cleared first */
void spans_intersect(const spans *a, const spans *b, spans *out);
size_t spans_count(const spans *s); /* elements */
/* whether element i is in s (normalized) */
int spans_has(const spans *s, size_t i);

/* The host side of copy c (src: gather, else dst: scatter) as element ranges, added to s when
   it is the array at base (recipes name a host array by its base and an element offset);
   returns whether it was. */
int spans_add_copy(spans *s, const rcopy *c, int src, const char *base);
/* The same as one range from the copy's first element to its last (what a DMA of the copy
   spans, the gaps between its rows included) */
int spans_add_extent(spans *s, const rcopy *c, int src, const char *base);

#endif
