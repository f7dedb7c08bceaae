/*
 * Stream workers: a CPU thread group or a CUDA device, each run by its own
 * host thread. A worker pulls chunks of a level from the engine (which asks
 * the load-balancing policy), runs their recipes and reports each one done.
 * A worker that keeps several chunks in flight (GPU) asks without blocking
 * and finishes what it holds before it waits.
 */
#ifndef LWT_STREAM_WORKER_H
#define LWT_STREAM_WORKER_H

#include "lwt_experimental.h"
#include "stream/recipe.h"

typedef struct stream_engine stream_engine;

/* next chunk for worker w: >= 0 a chunk; -1 the level is finished for it;
 * -2 (only when !may_block) nothing now, but chunks are still out */
long engine_next(stream_engine *e, int w, int may_block);
/* chunk c is about to run: LWT_OK, or an injected test failure */
lwt_status engine_chunk_begin(stream_engine *e, int w, long c);
/* chunk c is complete: busy seconds spent on it (the engine applies the
 * test slowdown, feeds the policy and the progress report) */
void engine_done(stream_engine *e, int w, long c, double busy_s, double util_compute, double util_mem);
/* worker w failed on chunk c (c < 0: before any chunk) and retires */
void engine_failed(stream_engine *e, int w, long c, lwt_status why);
void engine_add_gpu_times(stream_engine *e, double h2d, double kernel, double d2h, size_t bh2d, size_t bd2h,
                          size_t bwindows, long fused, long passes);
const lwt_context *engine_ctx(const stream_engine *e);

double stream_now(void);

/* Run one job (a band split: stream/split_job.c) on a streamer's workers. */
lwt_status stream_run_job(lwt_streamer *s, const level_job *job);
/* The groups of levels a call of s runs, in order (forward: levels 1 up, inverse: J down), as
   jobs with their host pointers unset; returns how many (at most the plan's levels). The MPI
   ranks (mpi/) run each group's chunks in shares. */
int stream_groups(const lwt_streamer *s, int inverse, level_job *jobs);
/* Every worker's prepare for runs of jobs shaped like `job` (its buffers unset). */
lwt_status stream_prepare_job(lwt_streamer *s, const level_job *job);

typedef struct worker_ops {
    /* run chunks of this level until engine_next says -1; returns the
     * worker's failure (it has already called engine_failed) or LWT_OK */
    lwt_status (*level)(void *state, stream_engine *e, int w, const level_job *job);
    void (*destroy)(void *state);
    /* make now the buffers runs of jobs shaped like `job` need (a GPU worker's device arenas,
       row cache and, for converting copies, pinned rings), so that no run allocates them; the
       job's host pointers may be NULL. NULL op: nothing to make */
    lwt_status (*prepare)(void *state, const level_job *job);
} worker_ops;

/* static description for the weighted and FNN policies */
typedef struct worker_caps {
    double gflops, mem_gib, parallel, mem_gbs, bus_gbs;
} worker_caps;

lwt_status stream_cpu_worker_create(const lwt_plan *plan, const lwt_stream_worker *cfg, const worker_ops **ops,
                                    void **state, worker_caps *caps);
#ifdef LWT_HAVE_CUDA
lwt_status stream_cuda_worker_create(const lwt_plan *plan, const lwt_stream_tuning *tuning, const lwt_stream_worker *cfg,
                                     const worker_ops **ops, void **state, worker_caps *caps);
#endif

#endif
