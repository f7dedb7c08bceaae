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

/* Host sides of a copy may hold another type than the transform's (a band
 * sink of doubles fed by a float32 transform, a double source narrowed to
 * float32): RCVT_NARROW reads doubles, RCVT_WIDEN writes doubles. A 16-bit
 * plan streams its float32 plan with the caller's arrays in 16 bits:
 * RCVT_FROM_F16 / RCVT_FROM_BF16 read float16 / bfloat16 (widened, exact),
 * RCVT_TO_F16 / RCVT_TO_BF16 write them (each value rounded once, core/half.h).
 * The arena side is always the transform's type. */
enum { RCVT_NONE = 0, RCVT_NARROW = 1, RCVT_WIDEN = 2, RCVT_FROM_F16, RCVT_FROM_BF16, RCVT_TO_F16, RCVT_TO_BF16 };

/* n[0] x n[1] x n[2] elements, n[2] contiguous; strides of axes 0 and 1 in elements.
 * A scatter with a nan_mask writes NaN wherever nan_mask[i] is not finite, i being
 * the destination element's index from dst.host (the invalid points of a surface). */
typedef struct rcopy {
    rloc src, dst;
    size_t n[3];
    size_t ss[2], ds[2];
    int cvt;
    const double *nan_mask;
} rcopy;

/* element sizes of a copy's two sides, for a transform of elements of es bytes */
static inline size_t rcopy_src_es(const rcopy *c, size_t es)
{
    return c->cvt == RCVT_NARROW ? sizeof(double) : c->cvt == RCVT_FROM_F16 || c->cvt == RCVT_FROM_BF16 ? 2 : es;
}
static inline size_t rcopy_dst_es(const rcopy *c, size_t es)
{
    return c->cvt == RCVT_WIDEN ? sizeof(double) : c->cvt == RCVT_TO_F16 || c->cvt == RCVT_TO_BF16 ? 2 : es;
}

typedef struct rpass {
    lwt_line_prog prog;
    size_t outer, inner;
    rloc in, out;
    /* 1: this pass and the next, reading this one's output, may run as one fused level
       (2-D forward: axis 0 then axis 1; 2-D inverse: axis 1 then axis 0); a worker that
       does so gives the same bits and leaves this pass's output unwritten */
    int fuse_next;
} rpass;

/* A whole transform of one of the job's plans (split jobs: a window's forward
 * or a band's inverse), with its workspace in the arena. */
typedef struct rplan {
    int plan; /* index into the job's split->plan */
    int inverse;
    rloc in, out, ws;
} rplan;

/* ROP_COPY and ROP_ZERO (c.dst set to 0; c.src unused) use c, ROP_PASS p, ROP_PLAN t */
enum { ROP_COPY = 0, ROP_PASS = 1, ROP_ZERO = 2, ROP_PLAN = 3 };

typedef struct rop {
    int kind;
    rcopy c;
    rpass p;
    rplan t;
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

typedef struct split_spec split_spec; /* stream/split_job.h */

/* One group of levels of a streamed call, or one band split (split != NULL). */
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
    /* split jobs: src is the input, outs[b] output b; host sides in double where the
       transform is float32 (io_f64), NaN where nan_mask is not finite */
    const split_spec *split;
    char *outs[4];
    int io_f64;
    const double *nan_mask;
    /* LWT_F16 or LWT_BF16 (plan: the 16-bit plan's float32 plan; 0 otherwise): the caller's
       arrays hold that type (the signal: forward src and inverse dst of the group with j0 = 1;
       the packed coefficients), read widened and written rounded once; the approximations
       between groups (src and dst of the other groups) stay float32, as in memory */
    int io16;
    long nout;             /* rows chunks own (forward: level j1 coefficients, inverse: a_{j0-1} rows) */
    long per_chunk;
    long nchunks;          /* chunks this run computes: chunk0 .. chunk0 + nchunks - 1 of the group */
    long chunk0;           /* 0, or the first chunk of an MPI rank's share of the group (mpi/) */
} level_job;

/* building blocks of recipe builders: an arena region of elems (256-byte aligned), and a
 * new zeroed op at the end of list l (NULL and r->failed set when out of memory) */
size_t recipe_alloc(recipe *r, size_t elems);
rop *recipe_push(recipe *r, rlist *l);

void recipe_init(recipe *r);
void recipe_free(recipe *r);

/* Build chunk c's recipe (clears r first). Returns 0, or -1 when out of memory. */
int recipe_build(const level_job *job, long c, recipe *r);
/* outputs of chunk c, and a recipe for any output range (a worker short of
 * device memory splits a chunk) */
void recipe_chunk_range(const level_job *job, long c, long *lo, long *hi);
int recipe_build_range(const level_job *job, long lo, long hi, recipe *r);

/* Copy elements through two strided 3-D views (host memory; src and dst point at
 * the copy's first element), converting and masking as c says; big copies over
 * `threads` OpenMP threads (0: OpenMP's default). */
void recipe_copy_host(const rcopy *c, const char *src, char *dst, size_t es, int threads);
/* Zero c's destination view (host memory; dst points at its first element). */
void recipe_zero_host(const rcopy *c, char *dst, size_t es);
/* Merge axes that are contiguous on both sides (fewer, longer runs). */
void recipe_copy_normalize(rcopy *c);

#endif
