/*
 * lwt_stream.h - streamed execution of a plan: host-resident arrays of any
 * size (for instance memory-mapped files bigger than RAM), cut into chunks
 * along the slowest axis and run on one or more workers (CPU threads, CUDA
 * devices) chosen by a load-balancing policy.
 *
 * The result is bit-identical to lwt_forward / lwt_inverse of the same plan
 * on the CPU backend, for every wavelet, mode, level count and chunk size:
 * each level is cut into chunks of output rows, and each chunk reads the
 * input rows its outputs depend on (its halo, plus the rows the mode's
 * extension pulls from the far ends), so every coefficient is computed by
 * the same operations in the same order as in memory. GPU workers compute
 * float32 data in double precision, as the CPU backend does, so mixing CPU
 * and GPU workers does not change a bit either.
 *
 * Several levels run in one pass over the data: a chunk owns rows at every
 * level and recomputes the halo rows its outputs need from the finer level
 * (grown level by level); the engine fuses as many levels as keep that
 * overhead small and passes the approximation between such groups through
 * a scratch array (host memory, see lwt_stream_scratch_size).
 *
 * A float16 or bfloat16 plan streams its float32 plan: the caller's input is
 * widened as it is read and the output rounded once as it is written; the
 * scratch and everything between levels stay float32 (so the scratch size is
 * the float32 plan's), and the bits are the in-memory 16-bit plan's.
 */
#ifndef LWT_STREAM_H
#define LWT_STREAM_H

#include <stddef.h>

#include "lwt.h"
#include "lwt_export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LWT_STREAM_MAX_WORKERS 16

typedef enum lwt_worker_kind { LWT_WORKER_CPU = 0, LWT_WORKER_CUDA = 1 } lwt_worker_kind;

typedef enum lwt_balance_policy {
    LWT_BALANCE_POLICY_STATIC = 0,   /* equal contiguous shares */
    LWT_BALANCE_POLICY_WEIGHTED = 1, /* shares proportional to each worker's capability */
    LWT_BALANCE_POLICY_QUEUE = 2,    /* workers pull the next chunk */
    LWT_BALANCE_POLICY_FNN = 3       /* seed 000's fuzzy-neural-network predictor */
} lwt_balance_policy;

typedef struct lwt_stream_worker {
    lwt_worker_kind kind;
    int device;       /* CUDA device index */
    int threads;      /* CPU worker: threads (0 = all) */
} lwt_stream_worker;

/*
 * How to stream. Fill it from lwt_stream_desc_default(), never from zeros:
 * `size` tells the library which version of this struct a program was built
 * with, so fields added at the end later get their defaults for binaries
 * built against an older header. Switches of the seed's single-GPU
 * optimizations and test faults are in lwt_experimental.h
 * (lwt_stream_tuning), not here.
 */
typedef struct lwt_stream_desc {
    size_t size;            /* sizeof(lwt_stream_desc), set by lwt_stream_desc_default() */
    size_t chunk_rows;      /* input rows (slowest axis) per chunk; 0 = about 64 MiB per chunk */
    int nworkers;           /* 0 = one CPU worker */
    lwt_stream_worker workers[LWT_STREAM_MAX_WORKERS];
    lwt_balance_policy balance;
    /* progress: called from worker threads (serialized), fraction in [0, 1] */
    void (*progress)(void *user, double fraction);
    void *progress_user;
} lwt_stream_desc;

typedef struct lwt_stream_report {
    double seconds;                                 /* wall time of the call */
    int nworkers;
    long chunks[LWT_STREAM_MAX_WORKERS];            /* chunks each worker finished */
    double busy_s[LWT_STREAM_MAX_WORKERS];          /* time each worker spent on them */
    double share[LWT_STREAM_MAX_WORKERS];           /* policy's last share per worker */
    int failed[LWT_STREAM_MAX_WORKERS];             /* 1: the worker failed and was retired */
    double h2d_s, kernel_s, d2h_s;                  /* GPU stage times summed over chunks */
    size_t bytes_h2d, bytes_d2h;                    /* bytes the GPU workers moved over the host bus */
    size_t bytes_windows;                           /* bytes the GPU workers' chunk windows read; more than
                                                       bytes_h2d where a worker kept rows that consecutive
                                                       windows share on the device (their halos) */
    long total_chunks;
    long levels_fused, levels_passes;               /* 2-D forward levels of chunks the GPU workers ran
                                                       as one sliding-window kernel each, and as two
                                                       separable passes (no kernel for that wavelet,
                                                       mode or shape; the same bits either way) */
} lwt_stream_report;

/** Defaults: chunk_rows 0, one CPU worker, queue policy, no progress callback. */
LWT_API lwt_stream_desc lwt_stream_desc_default(void);

/** Host scratch the call needs (bytes), for the plan's intermediate approximations. */
LWT_API lwt_status lwt_stream_scratch_size(const lwt_plan *plan, size_t *bytes);

/**
 * Forward / inverse of one plan (any backend; only its description is used)
 * on host memory: in and out as for lwt_forward / lwt_inverse (batch items
 * one after the other). scratch: lwt_stream_scratch_size bytes, or NULL to
 * allocate. report may be NULL. On failure the output is incomplete and the
 * status says why (every worker failed, out of memory, ...).
 */
LWT_API lwt_status lwt_stream_forward(const lwt_plan *plan, const lwt_stream_desc *desc, const void *in, void *out,
                                      void *scratch, lwt_stream_report *report);
LWT_API lwt_status lwt_stream_inverse(const lwt_plan *plan, const lwt_stream_desc *desc, const void *in, void *out,
                                      void *scratch, lwt_stream_report *report);

/**
 * A streamer: the workers of a description made once and kept for every call
 * (GPU workers' device plans, streams, chunk buffers, row cache and pinned
 * staging; the policy's state, which the FNN goes on learning), as a plan is
 * made once for many transforms. Each call gives what lwt_stream_forward /
 * lwt_stream_inverse give, without the setup (about 2 ms per GPU worker).
 * The plan and the description's callbacks must outlive it; one call at a
 * time. A worker that fails is retired for the streamer's life; when none is
 * left a call fails. The one-shot functions above make a streamer per call.
 */
typedef struct lwt_streamer lwt_streamer;

LWT_API lwt_status lwt_streamer_create(const lwt_plan *plan, const lwt_stream_desc *desc, lwt_streamer **out);
LWT_API lwt_status lwt_streamer_forward(lwt_streamer *s, const void *in, void *out, void *scratch,
                                        lwt_stream_report *report);
LWT_API lwt_status lwt_streamer_inverse(lwt_streamer *s, const void *in, void *out, void *scratch,
                                        lwt_stream_report *report);
LWT_API void lwt_streamer_destroy(lwt_streamer *s); /* NULL is a no-op */

LWT_API const char *lwt_balance_policy_name(lwt_balance_policy b);

#ifdef __cplusplus
}
#endif
#endif
