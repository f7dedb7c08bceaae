/*
 * Chunk recipes: what one chunk of a group of levels does, as data that a
 * CPU or a GPU worker executes - copy rows in, run passes, copy results out.
 * Built on the host from the plan alone.
 *
 * A group fuses levels j0 .. j1 (forward) or j1 .. j0 (inverse) into one
 * pass over the data: a chunk owns a run of rows at every level and computes
 * whatever its outputs depend on, recursively down the levels. Forward, the
 * chunk's outputs at level j1 need a window of level j1 - 1 approximation
 * rows (at most three runs: the main one plus the rows the mode's extension
 * pulls from the far ends); each run is computed as level j1 - 1 outputs,
 * which need a window of level j1 - 2 rows, and so on down to the group's
 * input, read from host memory. The chunk writes the detail rows it owns at
 * every level and, at j1, its approximation rows. Inverse mirrors this: the
 * chunk owns output rows of level j0, whose window of level j0 coefficients
 * needs approximation rows computed by level j0 + 1, and so on up to j1,
 * whose approximation is read from host memory.
 *
 * Passes run in the in-memory driver's order (PyWavelets' dwtn / idwtn) on
 * windows holding exactly the values the in-memory transform holds, so each
 * coefficient is computed by the same operations: bit-identical results.
 *
 * Ops come in three lists: gathers (host -> arena; they depend on nothing, so
 * a GPU can issue them all first), compute (passes and arena -> arena copies,
 * in order) and scatters (arena -> host, after the compute). The arena is one
 * buffer per worker slot; regions are never reused within a recipe.
 */
#ifndef LWT_STREAM_RECIPE_H
#define LWT_STREAM_RECIPE_H

#include <stddef.h>

#include "core/line.h"
#include "core/plan.h"

/* One side of a copy or pass: the arena (buf >= 0, offset in elements) or
 * host memory (buf < 0, host + off elements). */
typedef struct rloc {
    int buf;
    char *host;
    size_t off;
} rloc;

/* n[0] x n[1] x n[2] elements, n[2] contiguous; strides of axes 0 and 1 in elements */
typedef struct rcopy {
    rloc src, dst;
    size_t n[3];
    size_t ss[2], ds[2];
} rcopy;

typedef struct rpass {
    lwt_line_prog prog;
    size_t outer, inner;
    rloc in, out;
    /* 1: this pass (axis 0 of a 2-D forward level) and the next (axis 1, reading
       this one's output) may run as one fused level; a worker that does so gives
       the same bits and leaves this pass's output unwritten */
    int fuse_next;
} rpass;

typedef struct rop {
    int is_pass;
    rcopy c;
    rpass p;
} rop;

typedef struct rlist {
    rop *v;
    int n, cap;
} rlist;

typedef struct recipe {
    rlist gather, compute, scatter;
    size_t arena_elems;
    size_t in_elems, out_elems;  /* elements gathered and scattered (host traffic) */
    int failed;                  /* out of memory while building */
} recipe;

/* One group of levels of a streamed call. */
typedef struct level_job {
    const lwt_plan *plan;
    int inverse;
    int j0, j1;            /* finest and coarsest level of the group (j0 <= j1) */
    const char *src;       /* forward: a_{j0-1} (contiguous sizes[j0-1]); inverse: a_{j1} (contiguous
                              sizes[j1]) or NULL when j1 is the plan's last level (packed corner) */
    const char *coeffs_in; /* inverse: the packed coefficients */
    char *coeffs_out;      /* forward: the packed coefficients */
    char *dst;             /* forward: a_{j1} (contiguous sizes[j1]) or NULL (packed corner);
                              inverse: a_{j0-1} (contiguous sizes[j0-1]) */
    long nout;             /* rows chunks own (forward: level j1 coefficients, inverse: a_{j0-1} rows) */
    long per_chunk;
    long nchunks;
} level_job;

void recipe_init(recipe *r);
void recipe_free(recipe *r);

/* Build chunk c's recipe (clears r first). Returns 0, or -1 when out of memory. */
int recipe_build(const level_job *job, long c, recipe *r);
/* outputs of chunk c, and a recipe for any output range (a worker short of
 * device memory splits a chunk) */
void recipe_chunk_range(const level_job *job, long c, long *lo, long *hi);
int recipe_build_range(const level_job *job, long lo, long hi, recipe *r);

/* Copy elements through two strided 3-D views (host memory). */
void recipe_copy_host(const rcopy *c, const char *src, char *dst, size_t es);
/* Merge axes that are contiguous on both sides (fewer, longer runs). */
void recipe_copy_normalize(rcopy *c);

#endif
