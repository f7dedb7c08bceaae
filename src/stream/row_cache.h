/*
 * Row cache: the bookkeeping of a device ring buffer that mirrors the most
 * recent bytes a GPU stream worker uploaded of one host array, so that rows
 * consecutive chunks share (their halos) cross the host bus once.
 *
 * A forward chunk reads a window of input rows: its own rows plus a halo on
 * either side, grown level by level when levels are fused (for CDF 9/7 at 4
 * levels and 512-row chunks about 20% more than its share). The next chunk's
 * window starts inside this one's, so uploading each window whole moves those
 * halo rows twice. The cache keeps the bytes [lo, hi) of the host array at
 * ring offsets (host offset mod cap); a window [a, b) that starts inside or
 * at the end of what the ring holds only uploads [hi, b) and copies the rest
 * device to device. Any other window (a worker's chunks need not be adjacent
 * under the dynamic policies) restarts the cache at a.
 *
 * Pure host arithmetic: no CUDA here, so CPU tests check it. The worker turns
 * a plan into copies and orders them: an upload waits until every chunk in
 * flight whose reads it overlaps in the ring (row_plan_overlaps) has copied
 * its window out. Ring positions, not host offsets, decide, because after a
 * restart (or on another array) the same host offsets live elsewhere.
 */
#ifndef LWT_STREAM_ROW_CACHE_H
#define LWT_STREAM_ROW_CACHE_H

#include <stddef.h>

typedef struct row_cache {
    const char *base; /* host array mirrored (NULL: empty) */
    size_t cap;       /* ring bytes */
    size_t lo, hi;    /* host byte offsets held: [lo, hi), hi - lo <= cap */
} row_cache;

/* a run of bytes: host offset (from base) and ring offset; never wraps */
typedef struct row_span {
    size_t host, ring, bytes;
} row_span;

typedef struct row_plan {
    int cached;        /* 0: [a, b) does not fit the ring: copy host -> window directly */
    int nup, nread;
    row_span up[2];    /* host -> ring */
    row_span read[2];  /* ring -> window; host - a is the offset in the window */
} row_plan;

void row_cache_init(row_cache *c, size_t cap);
/* forget everything held (a new level, or new data) */
void row_cache_reset(row_cache *c);
/* Plan the window [a, b) of host array base (offsets in bytes) and update
 * the cache to hold it. */
void row_cache_plan(row_cache *c, const char *base, size_t a, size_t b, row_plan *p);
/* 1 when the uploads of `writer` land on ring bytes that `reader` reads */
int row_plan_overlaps(const row_plan *writer, const row_plan *reader);

#endif
