/*
 * Converting copies of a GPU stream worker (a float32 transform's double sources and band
 * sinks, NaN put back at a surface's invalid points) go through a small ring of pinned
 * pieces, the host converting each piece as it goes up or comes down: pinned staging for a
 * whole chunk (a band split's window and three bands: about 350 MB a slot at 12288^2) took
 * longer to allocate than the split takes to run when the worker is made per call
 * (lwt_filter_run: 1.4 s where four 16 MiB pieces gave 0.19 s, H100).
 *
 * The worker's thread converts both ways: uploads as it issues a chunk, downloads when the
 * chunk completes, each through a ring of its own (a download's pieces wait on its own stream,
 * never behind the uploads' copies). A second host thread for the downloads, so that the two
 * directions convert at once, made lwt_filter_run slower: its transforms took 168-191 ms where
 * converting on the worker's thread took 150-163 (H200, 2026-11-26, two runs each, alternating;
 * two OpenMP teams of 16 threads on 16 cores: docs/PERFORMANCE.md). What had made the downloads
 * slow was page faults in the caller's fresh band memory (recipe.c, copy_run_by_pages): with
 * tasks of whole pages the transforms take 120-150 ms, the former split's 129-156.
 */
#ifndef LWT_STREAM_CVT_RING_CUH
#define LWT_STREAM_CVT_RING_CUH

#include <cuda_runtime.h>

extern "C" {
#include "stream/recipe.h"
}

/* Two rings per GPU worker, 80 MiB pinned (the former split had 64): pinning costs ~2.6 GB/s
 * (two rings of four 16 MiB pieces took 46-65 ms to make, H200), and the worker makes them once
 * (cuda_prepare, at the split's creation). Uploads: four 8 MiB pieces (the host converts into
 * pinned memory, which never faults). Downloads: three 16 MiB pieces, so that a float32 piece
 * widened to double covers 16 huge pages of the caller's memory, one per thread of a 16-core
 * host (recipe.c, copy_run_by_pages: 8 MiB pieces left half the threads waiting on page faults
 * of fresh bands). */
#define CVT_PIECES_MAX 4
#define CVT_UP_PIECES 4
#define CVT_UP_PIECE_BYTES ((size_t)8 << 20)
#define CVT_DOWN_PIECES 3
#define CVT_DOWN_PIECE_BYTES ((size_t)16 << 20)

/* npieces pinned pieces of piece_bytes, each with the event of the last copy through it; the
 * host converts each piece over `threads` OpenMP threads. */
struct cvt_ring {
    char *pin;
    cudaEvent_t ev[CVT_PIECES_MAX];
    size_t piece_bytes;
    unsigned npieces, next;
    int threads;
};

cudaError_t cvt_ring_init(cvt_ring *r, int threads, unsigned npieces, size_t piece_bytes);
void cvt_ring_free(cvt_ring *r); /* after the copies through it are done */

/* Copy c (host, converted) to dst on the device, piece by piece on stream `up`. */
cudaError_t cvt_ring_upload(cvt_ring *r, const rcopy *c, char *dst, size_t es, cudaStream_t up);

/* Copy c from src on the device (ready after `after`) to the host, converted: up to
 * npieces pieces in flight on stream `down`, each converted as it arrives; returns when
 * the host side is complete. */
cudaError_t cvt_ring_download(cvt_ring *r, const rcopy *c, const char *src, size_t es, cudaEvent_t after,
                              cudaStream_t down);

#endif
