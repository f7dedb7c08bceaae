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
 * This version: CPU ranks, batch 1.
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
 * Collective. desc describes the whole array (the same on every rank; backend CPU or AUTO,
 * batch 1); stream NULL or the chunking and this rank's workers (lwt_stream_desc_default);
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

/* this rank's element counts: its slab of the signal and its pieces of the coefficients */
lwt_status lwt_mpi_plan_local(const lwt_mpi_plan *plan, size_t *input_count, size_t *coeff_count);

/* rows [row0, row1) along axis 0 of band (level, band_mask) (lwt_plan_band's numbering) that
   this rank holds, and the element offset of the first in its coefficients */
lwt_status lwt_mpi_band_rows(const lwt_mpi_plan *plan, int level, unsigned band_mask, size_t *row0, size_t *row1,
                             size_t *offset);

/* Collective: this rank's slab in, its coefficient pieces out (and the other way round). */
lwt_status lwt_mpi_forward(const lwt_mpi_plan *plan, const void *local_input, void *local_coeffs);
lwt_status lwt_mpi_inverse(const lwt_mpi_plan *plan, const void *local_coeffs, void *local_output);

#ifdef __cplusplus
}
#endif

#endif
