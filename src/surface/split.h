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
 * Row chunks. The rows can be cut into chunks: chunk k owns rows [own0, own1) and transforms
 * the window [win0, win1) = its rows plus `halo` rows on either side (clipped to the surface).
 * A band value depends only on input rows within the composite support of the J-level forward
 * and inverse transforms, and the window starts on a multiple of 2^J rows, so every coefficient
 * the owned rows need is computed by the same operations on the same values as in the whole
 * surface's transform: the bands are bit-identical for every chunk size (tests/c/
 * test_surface_split.c checks this for every mode and many wavelets). The halo bounds how far
 * the values the window's artificial edges produce spread: through level j of the forward
 * transform, a filter of length L keeps e_j = ceil((e_{j-1} + L) / 2) coefficients (e_0 = 0)
 * next to the edge unreliable; each inverse level turns c unreliable coefficients into 2 c + L
 * samples (c_J = e_J); halo = c_0 rounded up to a multiple of 2^J. It is larger than the
 * exact bound (each term counts L where L - 2 would do), which costs only computation.
 * Periodic modes (periodic, periodization) wrap the first rows onto the last ones: one chunk.
 *
 * On the GPU the chunks form a pipeline: chunk k's rows go up while chunk k - 1 is transformed
 * and chunk k - 2's bands come down, so the upload hides under the downloads (filter_cuda.c).
 * On the CPU chunks only bound the working memory to a window.
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

#define LWT_SPLIT_MAX_CHUNKS 64

typedef struct lwt_split_chunk {
    size_t own0, own1; /* rows whose band values this chunk writes */
    size_t win0, win1; /* rows it transforms: own +- halo, clipped; win0 a multiple of 2^levels */
} lwt_split_chunk;

/** Halo rows for a J-level split with a filter of length L (see above). */
size_t lwt_split_halo(int levels, int filter_length);

/** Cut ny rows into chunks of about chunk_rows owned rows (rounded up to a multiple of
 *  2^levels; at most LWT_SPLIT_MAX_CHUNKS chunks). One chunk when chunk_rows is 0 or covers
 *  the surface, when the mode is periodic or periodization, or when the windows would not be
 *  smaller than the surface. Returns the number of chunks written to out. */
int lwt_split_layout(size_t ny, int levels, int filter_length, lwt_mode mode, size_t chunk_rows,
                     lwt_split_chunk out[LWT_SPLIT_MAX_CHUNKS]);

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
    size_t halo;          /* rows of halo per side (0 with one chunk) */
    char wavelet[32];     /* canonical name */
} lwt_splitter_info;

/** Times of one run in ms. total: the call (transfers and transforms; nothing is allocated).
 *  With one chunk the phases are timed too: forward (with the upload on a GPU) and each band
 *  until it is complete in host memory (its GPU work may have run earlier, overlapped);
 *  pipelined chunks have no phases: those fields are 0. */
typedef struct lwt_split_times {
    double forward, inverse[LWT_BAND_COUNT], total;
} lwt_split_times;

/** Plan the split of nx x ny surfaces (nx per row). Uses spec's wavelet, mode, dtype, backend,
 *  algorithm, split, threads, progress and chunk_rows (0 = automatic: pipelined chunks on a
 *  GPU, one chunk on the CPU). Allocates every buffer a run needs. */
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
