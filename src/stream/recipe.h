/*
 * Chunk recipes: what one chunk of one level does, as data that a CPU or a
 * GPU worker executes in order - copy input rows into worker buffers, run
 * passes, copy results out. Built on the host from the plan alone.
 *
 * Forward, level j, coefficients [k0, k1) along axis 0:
 *   gather the rows of the level's input that the window of the axis-0 pass
 *   names (main run + far-end rows of the mode), pass along axis 0 (only the
 *   chunk's outputs), pass along the other axes (whole lines), scatter each
 *   band block: details to the packed array, the approximation to the next
 *   level's input (or the packed corner at the last level).
 * Inverse, level j, samples [m0, m1) of the level's output along axis 0:
 *   gather the coefficient rows the window names from every band of the
 *   level ([cA | cD] blocks along the other axes, the a and d halves of axis
 *   0 one after the other), inverse passes along the other axes (whole lines),
 *   the axis-0 inverse for the chunk's samples, written to the output rows.
 * This is the in-memory driver's order (PyWavelets' dwtn / idwtn), so each
 * value is computed by the same operations.
 */
#ifndef LWT_STREAM_RECIPE_H
#define LWT_STREAM_RECIPE_H

#include <stddef.h>

#include "core/line.h"
#include "core/plan.h"

#define RECIPE_BUFS 3
#define RECIPE_MAX_COPIES 32
#define RECIPE_MAX_PASSES 3

/* One side of a copy or pass: a worker buffer (buf >= 0, offset in
 * elements) or host memory (buf < 0, host + offset elements). */
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
} rpass;

typedef struct recipe {
    int ncin, npass, ncout;
    rcopy cin[RECIPE_MAX_COPIES];
    rpass pass[RECIPE_MAX_PASSES];
    rcopy cout[RECIPE_MAX_COPIES];
    size_t buf_elems[RECIPE_BUFS];
    size_t in_elems, out_elems;  /* elements gathered and scattered (traffic) */
} recipe;

/* One level of a streamed call: where its input and outputs are. */
typedef struct level_job {
    const lwt_plan *plan;
    int inverse;
    int j;                 /* decomposition level, 1 = finest */
    const char *src;       /* forward: level input (contiguous sizes[j-1]); inverse: a_j (contiguous
                              sizes[j]) or NULL at the coarsest level (read from the packed corner) */
    const char *coeffs_in; /* inverse: the packed coefficients */
    char *coeffs_out;      /* forward: the packed coefficients */
    char *dst;             /* forward: a_j (contiguous sizes[j]) or NULL (packed corner);
                              inverse: output of the level (contiguous sizes[j-1]) */
    long nout;             /* outputs along axis 0 (forward: nc, inverse: sizes[j-1][0]) */
    long per_chunk;        /* outputs per chunk */
    long nchunks;
} level_job;

/* Build chunk c's recipe. host_out: the last inverse pass may write to host
 * memory directly (CPU); else it writes a buffer and a copy follows (GPU).
 * Returns 0, or -1 when the window could not be built (out of memory). */
int recipe_build(const level_job *job, long c, int host_out, recipe *r);
/* outputs of chunk c, and a recipe for any output range (a worker short of
 * device memory splits a chunk) */
void recipe_chunk_range(const level_job *job, long c, long *lo, long *hi);
int recipe_build_range(const level_job *job, long lo, long hi, int host_out, recipe *r);

/* Copy elements through two strided 3-D views (merging contiguous axes first). */
void recipe_copy_host(const rcopy *c, const char *src, char *dst, size_t es);

/* Merge axes that are contiguous on both sides (fewer, longer runs). */
void recipe_copy_normalize(rcopy *c);

#endif
