/*
 * The distributed plan's state, shared by its planning (mpi_plan.c), its execution
 * (mpi_run.c) and the capability weights of its ranks (mpi_balance.c).
 */
#ifndef LWT_MPI_INTERNAL_H
#define LWT_MPI_INTERNAL_H

#include "core/plan.h"
#include "lwt_mpi.h"
#include "mpi/spans.h"
#include "stream/worker.h"

/* what a rank sends each peer and receives from each before a group (normalized spans of one
   array, in elements) */
typedef struct xchg {
    spans *send, *recv;
} xchg;

typedef struct group {
    level_job job;  /* host pointers unset */
    long c0, c1;    /* this rank's chunks */
    xchg src;       /* forward: its input approximation; inverse: the coarser approximation */
    xchg coef;      /* inverse: the packed coefficients */
} group;

typedef struct piece {
    int level;
    unsigned mask;
    size_t row0, row1, row_elems, band_first; /* band_first: its first element in the packed */
    size_t packed_row;                        /* elements from one band row to the next */
    size_t runs, run, run_stride;             /* a band row in the packed: runs contiguous runs of
                                                 run elements, run_stride apart (3-D: its rows) */
    size_t offset;                            /* in this rank's coefficients */
} piece;

/* what this rank observed in its calls since the shares were last set: the time its streamer
   ran its chunks and the elements they wrote (lwt_mpi_plan_rebalance turns them into weights) */
typedef struct observed {
    double seconds, elements;
} observed;

/* the arrays every rank reserves at the whole array's size */
enum { ARR_SIG, ARR_COEF, ARR_APPR0, ARR_APPR1, ARR_COUNT };

struct lwt_mpi_plan {
    lwt_context *ctx;
    MPI_Comm comm;
    int rank, size;
    lwt_plan *plan;           /* the caller's description (a 16-bit plan computes its float32
                                 plan: mpi_compute) */
    lwt_streamer *streamer;
    size_t es, row_elems;     /* es: of the signal and the coefficients (the caller's type);
                                 input row: elements along axes 1.. */
    size_t appr_es;           /* of the approximations between groups: float32 for a 16-bit plan,
                                 so that what crosses between ranks is never rounded */
    size_t *slab;             /* size + 1 row boundaries */
    double *weight;           /* size relative capabilities the shares follow; NULL: the slabs */
    group *fwd, *inv;
    int nfwd, ninv;
    xchg out;                 /* inverse: the signal rows to their slabs */
    piece *pieces;
    int npieces;
    size_t local_coeffs;
    observed *seen;           /* written by the calls (the plan itself is const to them) */
    int gpu;                  /* this rank has a GPU worker */
    spans touched[ARR_COUNT]; /* what this rank's workers' copies span of each array (first to
                                 last element of each: a DMA must lie in one page-locked range) */
    void **pinned;            /* the pieces of them page-locked for its GPU worker (mpi_balance.c) */
    size_t npinned;
    /* the whole arrays, reserved once (reserve below): the signal, the packed coefficients and
       two areas the approximations between groups alternate in, as in lwt_stream; a rank's
       pages stay made between calls, so a call takes no page faults but the first's */
    char *sig, *coef, *appr[2];
    size_t sig_bytes, coef_bytes, appr_bytes;
};

/* the plan the ranks' streamers compute (levels, sizes): a 16-bit plan's float32 plan */
static inline const lwt_plan *mpi_compute(const lwt_mpi_plan *mp)
{
    return lwt_plan_compute(mp->plan);
}

/* bytes of an element of array a (ARR_*) */
static inline size_t mpi_array_es(const lwt_mpi_plan *mp, int a)
{
    return a == ARR_SIG || a == ARR_COEF ? mp->es : mp->appr_es;
}

/* the worst status of all ranks (every rank gets the same) */
lwt_status lwt__mpi_agree(const lwt_mpi_plan *mp, MPI_Comm comm, lwt_status st);

/* the shares, messages and pieces from mp->slab and mp->weight (again after a rebalance) */
lwt_status lwt__mpi_plan_shares(lwt_mpi_plan *mp);
void lwt__mpi_free_shares(lwt_mpi_plan *mp);

/* Page-lock what this rank's GPU worker reads and writes of the arrays (mp->touched), so that
   it copies them by DMA instead of packing them through staging (27x slower: 648 against 24 ms
   of bus time, 16384^2 CDF 9/7 on an H100); and undo it. Nothing without a GPU worker. */
void lwt__mpi_pin(lwt_mpi_plan *mp);
void lwt__mpi_unpin(lwt_mpi_plan *mp);

/* This rank's capability: its streamer's time for the first chunk of the forward's first
   group (a warm-up run first), as chunks per second; the arrays' pages it touched are given
   back. Collective only in that every rank calls it. */
lwt_status lwt__mpi_probe(lwt_mpi_plan *mp, double *weight);

/* runs chunks [c0, c1) of job on this rank's streamer (none when empty), adding to mp->seen */
lwt_status lwt__mpi_run_chunks(const lwt_mpi_plan *mp, level_job *job, long c0, long c1);

#endif
