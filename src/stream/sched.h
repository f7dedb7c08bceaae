/* sched.h - which worker runs which chunk of a level: static, weighted, queue, and seed 000's
 * FNN data-oriented dynamic load balancing. Pure C11 + pthreads; no printing, no globals.
 * Policies, the weight formula and every FNN choice: docs/STREAMING.md, "Load balancing". */
#ifndef LWT_STREAM_SCHED_H
#define LWT_STREAM_SCHED_H

typedef enum lwt_balance {
    LWT_BALANCE_STATIC = 0,   /* contiguous equal split by count, no stealing */
    LWT_BALANCE_WEIGHTED = 1, /* contiguous split by the profile weight, no stealing */
    LWT_BALANCE_QUEUE = 2,    /* workers pull the next unclaimed chunk, unless they would finish it last */
    LWT_BALANCE_FNN = 3       /* groups sized by the FNN predictor, plus stealing */
} lwt_balance;

/* Static description of a worker (what the FNN calls F, M, P, MS, BC; also the weights of the
 * weighted split). 0 means unknown: that field is left out of the weight and counts as "high"
 * for the FNN (no information must not make a worker look slow). */
typedef struct lwt_worker_profile {
    double gflops;   /* peak arithmetic rate */
    double mem_gib;  /* memory size */
    double parallel; /* parallel units (SMs x cores per SM, or CPU threads) */
    double mem_gbs;  /* memory bandwidth */
    double bus_gbs;  /* host link bandwidth (PCIe/NVLink-C2C); for a CPU worker its memcpy rate */
} lwt_worker_profile;

typedef struct lwt_sched lwt_sched;

/* profiles: nworkers entries, or NULL for identical workers. 0 ok, -1 bad argument, -2 no memory. */
int lwt_sched_create(lwt_balance policy, int nworkers, const lwt_worker_profile *profiles, lwt_sched **out);
void lwt_sched_destroy(lwt_sched *s); /* NULL is a no-op */

/* A new set of chunks 0..nchunks-1 (one level). Call it when no chunk of the previous set is in
 * flight. The FNN keeps what it learned; retired workers stay retired. 0 ok, -1 no memory or
 * nchunks < 0 (the scheduler then hands out nothing). */
int lwt_sched_begin(lwt_sched *s, long nchunks);

/* Next chunk for this worker, or -1 when nothing is available to it now: nothing is left, or
 * (queue, FNN) the late-chunk guard keeps it from a chunk it would finish after the other live
 * workers had finished everything without it. Thread-safe; holds a mutex for a few microseconds
 * and never waits for other workers. A -1 may change only when a chunk finishes or a worker
 * fails: see lwt_sched_wait. */
long lwt_sched_next(lwt_sched *s, int worker);

/* After next() said -1 and with none of its own chunks in flight: block until something is
 * available to this worker (1: call next() again) or nothing can come to it any more in this set
 * (0: the set is over for this worker; while other live workers hold or are left chunks, one of
 * them may still fail, so a worker the guard declined waits). -1 without blocking when the worker
 * still has chunks in flight (finish them first: two workers waiting on each other's chunks would
 * deadlock).
 * Engine loop: for (;;) { c = next(); if (c < 0) { if (lwt_sched_wait() == 1) continue; break; } ... } */
int lwt_sched_wait(lwt_sched *s, int worker);

/* Worker finished chunk in `seconds` of busy time; util_compute/util_mem in [0,1] are its
 * occupancy feedback (UF, UM). Calls for a chunk not in flight on this worker are ignored. */
void lwt_sched_done(lwt_sched *s, int worker, long chunk, double seconds, double util_compute, double util_mem);

/* Worker failed on chunk: the worker is retired (for good), that chunk, its other chunks in
 * flight and everything still reserved for it go back to the live workers (under every policy).
 * Returns the number of live workers left, or -1 when none is left. */
int lwt_sched_failed(lwt_sched *s, int worker, long chunk);

/* For reports: chunks done per worker in the current set, and the share per worker: the FNN's
 * current predicted relative capability CP (sums to 1 over live workers), the split made at
 * begin() for static and weighted, the share actually taken so far for queue. Either may be NULL. */
void lwt_sched_stats(const lwt_sched *s, long *done_per_worker, double *share_per_worker);

const char *lwt_balance_name(lwt_balance b);               /* "static", "weighted", "queue", "fnn" */
int lwt_balance_parse(const char *name, lwt_balance *out); /* 0 ok, -1 unknown name */

#endif
