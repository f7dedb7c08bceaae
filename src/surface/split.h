/*
 * split.h - the band split of filter.h (forward transform, then one inverse per band from the
 * coefficients of that band alone) as a reusable object: planned once for a surface shape, run
 * on many surfaces, on the CPU or on a GPU.
 *
 * lwt_filter_run uses it on the levelled, filled surface (double in, double bands out, the
 * transform in spec.dtype). Callers whose heights are already finite and in the transform's
 * precision - the seed's case study keeps float32 end to end - call lwt_splitter_run directly:
 * no conversion, and on the GPU the host buffers are copied straight to and from the device,
 * which with pinned buffers (cudaHostAlloc) runs at the bus's speed.
 *
 * Chunks. The split is a job of the stream engine (src/stream/split_job.h): rows are cut into
 * chunks, each transforming a window of the input rows its owned rows depend on (exact halos),
 * so the bands are bit-identical for every chunk size; on a GPU the chunks form a pipeline
 * (one chunk's rows go up while another is transformed and a third one's bands come down) and
 * the coefficients stay on the device between the inverses. On the CPU one chunk by default.
 *
 * Pure computation on caller memory: no printing, no files, no global state.
 */
#ifndef LWT_SURFACE_SPLIT_H
#define LWT_SURFACE_SPLIT_H

#include <stdint.h>

#include "lwt_surface.h"
#include "surface/filter.h"

/* The splitter, its info and times are public (lwt_surface.h). */

/** The plan's packed levels (lwt_plan_band numbering: 0 = approximation, 1 = coarsest details,
 *  levels = finest) that make up band b of the split, as a bit set; 0 = the band is empty. */
uint64_t lwt_split_keep(const lwt_band_split *split, int band);

#endif /* LWT_SURFACE_SPLIT_H */
