/*
 * lwt_mpi.h - a transform of one array spread over the ranks of an MPI communicator
 * (liblwt_mpi, built when CMake finds MPI).
 *
 * Each rank owns a contiguous slab of rows of the array along its slowest axis (any sizes,
 * empty slabs allowed, in rank order, tiling the array). The transform runs on the streamed
 * engine of lwt_stream.h: each group of levels is cut into chunks of rows, each rank computes a
 * contiguous share of the chunks, and the rows a share's chunks read beyond what the rank holds
 * (their halos, and the far-end rows the mode's extension pulls) come from the ranks that hold
 * them by non-blocking point-to-point messages before the group runs. The messages are planned
 * once, when the plan is made: every rank derives every share's reads and writes from the plan
 * alone, so no rank asks another what it needs. The coefficients are bit-identical to
 * lwt_forward of the whole array on the CPU backend, for any rank count.
 *
 * The coefficients stay distributed: a rank holds, of every band of the packed layout, the
 * contiguous rows its chunks computed (lwt_mpi_band_rows), band after band in the order
 * level 0 (cA_J), then levels 1 .. J (coarsest first) and band masks 1 .. 2^ndim - 1, each
 * piece its rows one after the other. The inverse takes the coefficients so distributed and
 * gives each rank its slab of the signal.
 *
 * All calls but lwt_mpi_band_rows and lwt_mpi_plan_local are collective over the plan's
 * communicator, and the calls on one plan run one at a time (they share the arrays the plan
 * reserved). A failure on any rank fails the call on every rank with the same status.
 *
 * A rank computes on the workers of its stream description: CPU threads, or a GPU
 * (lwt_mpi_stream_desc_local picks one per rank by its rank on the node), and a job may mix
 * them. The shares of the chunks follow the ranks' slabs, or weights: given, measured when the
 * plan is made, or rebalanced between calls from the times observed (lwt_mpi_plan_rebalance).
 * The bits never depend on the shares. This version: batch 1.
 */
#ifndef LWT_MPI_H
#define LWT_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "lwt.h"
#include "lwt_experimental.h"
#include "lwt_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lwt_mpi_plan lwt_mpi_plan;

/*
 * Collective. desc describes the whole array (the same on every rank; batch 1; its backend is
 * not used: the workers of stream are); stream NULL (one CPU worker) or the chunking and this
 * rank's workers (lwt_stream_desc_default, lwt_mpi_stream_desc_local);
 * [row0, row1) is this rank's slab of axis 0 of the input.
 */
lwt_status lwt_mpi_plan_create(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                               MPI_Comm comm, size_t row0, size_t row1, lwt_mpi_plan **out);
/* The same with this rank's streamer tuned (lwt_experimental.h: the seed's optimization switches
   and the test faults, e.g. fail_after to make this rank's worker fail). Experimental. */
lwt_status lwt_mpi_plan_create_tuned(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                                     const lwt_stream_tuning *tuning, MPI_Comm comm, size_t row0, size_t row1,
                                     lwt_mpi_plan **out);
void lwt_mpi_plan_destroy(lwt_mpi_plan *plan); /* NULL is a no-op; not collective */

/* The share of the work each rank computes. */
#define LWT_MPI_WEIGHT_SLAB 0.0     /* in proportion to its slab (lwt_mpi_plan_create) */
#define LWT_MPI_WEIGHT_MEASURE -1.0 /* in proportion to its speed, measured when the plan is made:
                                       each rank times its workers on the transform's first chunk */
/*
 * Collective. lwt_mpi_plan_create with this rank's share of the work set by weight: > 0, its
 * capability relative to the other ranks' (e.g. 4 for a GPU rank beside CPU ranks of 1),
 * LWT_MPI_WEIGHT_MEASURE or LWT_MPI_WEIGHT_SLAB. Every rank passes the same kind (all given,
 * all measured or all by slab), else every rank gets LWT_ERR_INVALID_ARGUMENT. A rank's slab
 * and its share need not match: the rows between them travel with the halos.
 */
lwt_status lwt_mpi_plan_create_weighted(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                                        MPI_Comm comm, size_t row0, size_t row1, double weight,
                                        lwt_mpi_plan **out);
/* the weights the shares follow, rank by rank, summing to 1 (weights: the communicator's size) */
lwt_status lwt_mpi_plan_weights(const lwt_mpi_plan *plan, double *weights);
/*
 * Collective: new shares in proportion to each rank's observed speed (the elements its workers
 * wrote per second of their time in the calls since the shares were last set; a rank that ran
 * no chunk keeps the mean speed). The coefficients' distribution moves with the shares: ask
 * lwt_mpi_plan_local and lwt_mpi_band_rows again before the next call. No call observed:
 * nothing changes.
 */
lwt_status lwt_mpi_plan_rebalance(lwt_mpi_plan *plan);

/*
 * Collective over comm: this rank's workers in a job of one rank per GPU. backend AUTO: a CUDA
 * worker on the node's GPU numbered by the rank's place among the ranks of its node, when the
 * node has that many GPUs, else a CPU worker of `threads` threads (0: all); CUDA: the GPU, and
 * LWT_ERR_UNSUPPORTED on every rank when one rank has none; CPU: the CPU worker. chunk_rows is
 * left 0.
 */
lwt_status lwt_mpi_stream_desc_local(lwt_context *ctx, MPI_Comm comm, lwt_backend backend, int threads,
                                     lwt_stream_desc *out);

/* this rank's element counts: its slab of the signal and its pieces of the coefficients */
lwt_status lwt_mpi_plan_local(const lwt_mpi_plan *plan, size_t *input_count, size_t *coeff_count);

/* rows [row0, row1) along axis 0 of band (level, band_mask) (lwt_plan_band's numbering) that
   this rank holds, and the element offset of the first in its coefficients */
lwt_status lwt_mpi_band_rows(const lwt_mpi_plan *plan, int level, unsigned band_mask, size_t *row0, size_t *row1,
                             size_t *offset);

/* Collective: this rank's slab in, its coefficient pieces out (and the other way round).
   NULL for an array: it is in place in the plan's own arrays (below), no copy. */
lwt_status lwt_mpi_forward(const lwt_mpi_plan *plan, const void *local_input, void *local_coeffs);
lwt_status lwt_mpi_inverse(const lwt_mpi_plan *plan, const void *local_coeffs, void *local_output);

/*
 * The plan's own arrays, for calls without copies (a slab of a few GiB costs a pass over host
 * memory each way, as long as a GPU rank's transform): this rank's slab of the signal, its rows
 * one after the other; and its rows [row0, row1) of band (level, band_mask) inside the packed
 * coefficients, *first at row row0, stride[k] elements between neighbours along axis k (the
 * last axis contiguous). Write the slab there and call lwt_mpi_forward(plan, NULL, NULL), read
 * the bands from their views; or write the band rows and call lwt_mpi_inverse(plan, NULL,
 * NULL). Valid until the plan is destroyed or rebalanced.
 */
lwt_status lwt_mpi_plan_signal(const lwt_mpi_plan *plan, void **rows);
lwt_status lwt_mpi_band_view(const lwt_mpi_plan *plan, int level, unsigned band_mask, void **first, size_t *row0,
                             size_t *row1, size_t stride[LWT_MAX_NDIM]);

#ifdef __cplusplus
}
#endif

#endif
