/*
 * A plan's steps: how each level runs, decided once at plan creation (FFTW's
 * mkplan/apply split). The planner (steps.c) asks the backend what it can run
 * (lwt_backend_ops' level_kernel, pair_kernel, pass_kernel) and records the
 * answers; the driver (plan.c) walks the list and never tries one kernel to
 * fall back on another. lwt_plan_explain prints the list.
 */
#ifndef LWT_CORE_STEPS_H
#define LWT_CORE_STEPS_H

#include "lwt.h"

struct lwt_backend_ops;

typedef enum lwt_level_op {
    /* one pass per axis through the workspace, then the bands copied to their places
       (forward) or assembled from them (inverse) */
    LWT_LEVEL_PASSES = 0,
    /* one pass per axis; the forward's last pass writes the bands to their places
       through a map, the inverse's first pass reads them through it */
    LWT_LEVEL_PASSES_MAP = 1,
    /* a 2-D level in one sliding-window pass, bands straight to their places */
    LWT_LEVEL_FUSED2D = 2,
    /* forward levels j and j + 1 of a 2-D plan in one pass (one step for both) */
    LWT_LEVEL_PAIR2D = 3,
    /* a 3-D level: the pass along axis 0 and a 2-D level on each plane of its output
       (forward; the inverse runs the planes first) */
    LWT_LEVEL_PLANES = 4,
    /* a batch of 1-D signals as one array of rows: one pass for all of them, each
       writing (reading) its bands in its own packed array through a map */
    LWT_LEVEL_ROWS = 5,
    /* a 3-D forward level in one pass: axis 0 and the planes fused, bands straight to
       their places */
    LWT_LEVEL_VOLUME = 6
} lwt_level_op;

typedef struct lwt_level_step {
    lwt_level_op op;
    int level;                        /* decomposition level j (a pair: j and j + 1) */
    const char *kernel[LWT_MAX_NDIM]; /* what runs: per axis for passes (in the order they
                                         run), [0] for a fused level, pair or volume, [0] the pass
                                         along axis 0 and [1] the planes' level for PLANES */
} lwt_level_step;

/* The steps of both directions, in execution order; forward by levels 1..J, inverse J..1. */
typedef struct lwt_steps {
    int n[2];               /* [inverse] */
    lwt_level_step *v[2];
    /* a batch of 2-D arrays level by level: each FUSED2D step runs on every array of the
       batch in one call (seed 004's batches), instead of the arrays one after the other */
    int batch_levels;
} lwt_steps;

/* Resolve the steps of plan p on a backend (q: its query context); LWT_ERR_OUT_OF_MEMORY
   or LWT_ERR_INTERNAL (a backend that answers no plain pass). */
lwt_status lwt_steps_plan(const lwt_plan *p, const struct lwt_backend_ops *ops, const void *q, lwt_steps *out);
void lwt_steps_free(lwt_steps *s);

#endif
