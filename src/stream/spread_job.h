/*
 * The device-resident spread over several GPUs (lwt_spread_*, include/lwt_cuda.h), a job of
 * the stream engine. Every 2-D level of the plan runs the in-memory register kernel with the
 * plan's own geometry; device k launches the tile rows of its share, so each coefficient is
 * computed by the same block code as on one device: the same bits for any device count.
 *
 * Shares. The chunks of a level are its forward tile rows, the workers the devices, and the
 * engine's scheduler (stream/sched.h, static policy: equal contiguous shares in device order)
 * hands them out, once, when the spread is made (two forward levels run in one pass, like the
 * plan's, share the second level's tiles): the arrays' rows live on the device that
 * writes them, so the shares fix the placement and cannot move between calls. A level the
 * register kernel does not run forward shares its coefficient rows the same way. The inverse's
 * tile rows follow where their output rows live.
 *
 * This part (spread_layout.c) is host arithmetic: shares and the owner of every array row.
 * spread_job.cu runs the levels: the devices' streams, the events that order a level after the
 * rows another device wrote at the level before, and the arrays (cuda/cuda_spread_mem.cuh).
 */
#ifndef LWT_STREAM_SPREAD_JOB_H
#define LWT_STREAM_SPREAD_JOB_H

#include <stddef.h>

#include "core/plan.h"
#include "core/slide.h"
#include "core/slide_pair.h"

typedef struct lwt_spread lwt_spread; /* lwt_cuda.h (CUDA builds only, which define these functions) */

#define SPREAD_MAX_DEV 16

typedef struct spread_level {
    const lwt_slide_geom *g[2]; /* forward, inverse (NULL: not the register kernel) */
    int shape[2], improved[2];
    /* forward levels j and j + 1 in one pass (set on level j, the caller's choice; NULL: none):
       the devices share level j + 1's tiles of the pair (pair->g2), level j has no tiles */
    const lwt_slide_pair *pair;
    int pair_shape;
    long tile[2][SPREAD_MAX_DEV + 1]; /* device k runs tile rows [tile[k], tile[k + 1]) */
    long row[SPREAD_MAX_DEV + 1];     /* no forward tiles: device k owns coefficient rows [row[k], row[k + 1]) */
} spread_level;

typedef struct spread_layout {
    const lwt_plan *plan;
    int ndev;
    spread_level *lv; /* [levels + 1], index j; the caller fills g, shape, improved and pair */
} spread_layout;

/* Every level's shares: forward tile rows (or coefficient rows) from the scheduler, then the
 * inverse's tile rows. LWT_OK, or LWT_ERR_OUT_OF_MEMORY. */
lwt_status spread_layout_shares(spread_layout *L);

/* the device index owning row r of level j's approximation array (j = 0: the samples) */
int spread_array_row_owner(const spread_layout *L, int j, size_t r);
/* the device index owning row r of the packed coefficients */
int spread_packed_row_owner(const spread_layout *L, size_t r);

/* The benchmark's view of one call (lwt-bench --resident-levels), not part of the API: once
 * lwt_spread_timeline_on is called, each call records on every device when it became idle at
 * the call's start and when each of its passes (a level, or a pair of levels) began and ended
 * there (CUDA events; a pass begins after the waits on the other devices' previous pass).
 * lwt_spread_timeline gives the last call's pass i on device k, in ms from that device's idle
 * point (the devices' idle points are one host moment, to a few microseconds): 1, or 0 past the
 * last pass or before any call. */
lwt_status lwt_spread_timeline_on(lwt_spread *s);
int lwt_spread_timeline(const lwt_spread *s, int k, int i, float *begin_ms, float *end_ms);

#endif
