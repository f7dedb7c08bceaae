/*
 * Converting copies of a GPU stream worker (a float32 transform's double sources and band
 * sinks, NaN put back at a surface's invalid points) go through a small ring of pinned
 * pieces, the host converting each piece as it goes up or comes down: pinned staging for a
 * whole chunk (a band split's window and three bands: about 350 MB a slot at 12288^2) took
 * longer to allocate than the split takes to run when the worker is made per call
 * (lwt_filter_run: 1.4 s where four 16 MiB pieces gave 0.19 s, H100).
 *
 * Uploads are converted by the worker's thread as it issues a chunk. Downloads are converted
 * by a second host thread (cvt_downloader), so that one chunk's bands come down and are
 * widened while the worker thread narrows and sends up the next chunk's rows: on one thread
 * the two directions took turns, and lwt_filter_run's transforms took 149-153 ms where the
 * former split, which interleaved them, took 115-120 ms (H100, docs/PERFORMANCE.md).
 */
#ifndef LWT_STREAM_CVT_RING_CUH
#define LWT_STREAM_CVT_RING_CUH

#include <cuda_runtime.h>

extern "C" {
#include "stream/recipe.h"
}

/* Two rings of four 8 MiB pieces (uploads and downloads), 64 MiB pinned per GPU worker as the
 * former split had: pinning costs ~2.6 GB/s (two rings of four 16 MiB pieces took 46-65 ms to
 * make, H200), and the worker makes them once (cuda_prepare_convert, at the split's creation) */
#define CVT_PIECES 4
#define CVT_PIECE_BYTES ((size_t)8 << 20)

/* A copy that goes through the ring: it converts or masks, and is one contiguous run. */
static inline int cvt_through_ring(const rcopy *c)
{
    return (c->cvt != RCVT_NONE || c->nan_mask) && c->n[0] == 1 && c->n[1] == 1;
}

/* CVT_PIECES pinned pieces, each with the event of the last copy through it; the host
 * converts each piece over `threads` OpenMP threads. */
struct cvt_ring {
    char *pin;
    cudaEvent_t ev[CVT_PIECES];
    unsigned next;
    int threads;
};

cudaError_t cvt_ring_init(cvt_ring *r, int threads);
void cvt_ring_free(cvt_ring *r); /* after the copies through it are done */

/* Copy c (host, converted) to dst on the device, piece by piece on stream `up`. */
cudaError_t cvt_ring_upload(cvt_ring *r, const rcopy *c, char *dst, size_t es, cudaStream_t up);

/* A chunk's converting scatters, handed to the downloader; the worker waits for it before
 * it completes the chunk or reuses the slot's arena. */
struct cvt_ticket {
    const recipe *r;      /* the scatters */
    const char *arena;    /* their device sources */
    size_t es;
    cudaEvent_t after;    /* the chunk's kernels are done */
    int pending;
    cudaError_t err;
    cvt_ticket *next;     /* the downloader's queue */
};

struct cvt_downloader;

/* A thread with its own ring (converting over `threads` threads) and stream on `device`
 * (the current device). */
cudaError_t cvt_downloader_start(int device, int threads, cvt_downloader **out);
/* Queue t's converting scatters (t filled by the caller except pending, err, next). */
void cvt_downloader_submit(cvt_downloader *d, cvt_ticket *t);
/* Wait until t is done (at once if it never was submitted); its copies' error. */
cudaError_t cvt_downloader_wait(cvt_downloader *d, cvt_ticket *t);
/* Finish what is queued, stop the thread, free the ring. NULL is a no-op. */
void cvt_downloader_stop(cvt_downloader *d);

#endif
