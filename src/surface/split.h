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

#include <stddef.h>
#include <stdint.h>

#include "lwt.h"
#include "surface/filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The plan's packed levels (lwt_plan_band numbering: 0 = approximation, 1 = coarsest details,
 *  levels = finest) that make up band b of the split, as a bit set; 0 = the band is empty. */
uint64_t lwt_split_keep(const lwt_band_split *split, int band);

typedef struct lwt_splitter lwt_splitter;

typedef struct lwt_splitter_info {
    lwt_backend backend;  /* resolved */
    lwt_path path;        /* lifting or convolution */
    int max_level;        /* PyWavelets' dwtn_max_level of the whole surface */
    int nbands;           /* 3, or 4 with a noise band */
    int chunks;           /* row chunks of a run (see above) */
    size_t halo;          /* most rows a chunk's window reads beyond its owned rows (0 with one chunk) */
    char wavelet[32];     /* canonical name */
} lwt_splitter_info;

/** Times of one run in ms. total: the call (transfers, the forward and every inverse, which
 *  the engine overlaps chunk by chunk; nothing is allocated). */
typedef struct lwt_split_times {
    double total;
} lwt_split_times;

/** Plan the split of nx x ny surfaces (nx per row). Uses spec's wavelet, mode, dtype, backend,
 *  algorithm, split, threads, progress and chunk_rows (0 = automatic: pipelined chunks on a
 *  GPU, one chunk on the CPU). Makes every plan a run needs. */
lwt_status lwt_splitter_create(lwt_context *ctx, const lwt_filter_spec *spec, size_t nx, size_t ny,
                               lwt_splitter **out, char *err, size_t errlen);
void lwt_splitter_destroy(lwt_splitter *s); /* NULL is a no-op */
lwt_status lwt_splitter_get_info(const lwt_splitter *s, lwt_splitter_info *info);

/** Split finite heights `in` (nx x ny, spec.dtype) into band[0 .. nbands-1] (same dtype, host
 *  memory, not overlapping `in`). Runs may follow each other on one splitter, not at the same
 *  time. times may be NULL. */
lwt_status lwt_splitter_run(lwt_splitter *s, const void *in, void *const band[LWT_BAND_COUNT],
                            lwt_split_times *times, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_SPLIT_H */
