/*
 * split_impl.h - the splitter's state, shared by split.c (layout, CPU runs) and filter_cuda.c
 * (GPU runs); internal to lwt_surface.
 */
#ifndef LWT_SURFACE_SPLIT_IMPL_H
#define LWT_SURFACE_SPLIT_IMPL_H

#include "surface/split.h"

#define LWT_SPLIT_MAX_PLANS (LWT_SPLIT_MAX_CHUNKS + 1) /* one per window height, and the whole surface */

/* Host data of one run. The heights come in and the bands go out either in the transform's
 * dtype (copied as they are) or as double (converted); z: when not NULL, band values are NaN
 * wherever z is not finite (lwt_filter_run's invalid points). */
typedef struct lwt_split_io {
    const void *in;
    void *band[LWT_BAND_COUNT];
    int host_f64;    /* 1: in and band are double; 0: the transform's dtype */
    const double *z; /* n values, or NULL */
} lwt_split_io;

typedef struct lwt_split_gpu lwt_split_gpu; /* filter_cuda.c */

/* defined in filter.c: a monotonic clock in ms, and an error message into err (printf-style)
   that returns st */
double lwt_filter_now_ms(void);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
lwt_status lwt_filter_fail(char *err, size_t errlen, lwt_status st, const char *fmt, ...);

struct lwt_splitter {
    lwt_context *ctx;
    lwt_wavelet *w;
    size_t nx, ny;
    lwt_dtype dtype;
    size_t esz;                        /* bytes per transform value */
    int threads;                       /* CPU threads of the host loops (0 = default) */
    lwt_filter_progress_fn progress;   /* spec's, steps 1 .. 1 + nbands (lwt__split_progress) */
    void *progress_user;
    int nbands;
    uint64_t keep[LWT_BAND_COUNT];     /* lwt_split_keep of each band */
    int nchunks;
    lwt_split_chunk chunk[LWT_SPLIT_MAX_CHUNKS];
    size_t halo;
    int nplans;
    lwt_plan *plan[LWT_SPLIT_MAX_PLANS];
    size_t plan_rows[LWT_SPLIT_MAX_PLANS];
    int chunk_plan[LWT_SPLIT_MAX_CHUNKS]; /* plan of each chunk's window */
    size_t max_coeffs, max_ws;         /* largest coefficient count and workspace over the plans */
    size_t max_win_rows;               /* tallest window */
    lwt_splitter_info info;
    int device;                        /* CUDA device of the plans */
    /* CPU runs: one window's signal, coefficients, band coefficients, band signal, workspace */
    void *x, *c, *t, *y, *ws;
    lwt_split_gpu *gpu;                /* GPU runs (NULL on the CPU) */
};

/* a run with host I/O of either kind (lwt_filter_run: double with NaN restore) */
lwt_status lwt__splitter_run_io(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *times, char *err,
                                size_t errlen);

/* The packed blocks (lwt_plan_band: offset and shape in the plan's packed layout) of the levels
 * in `keep` (lwt_split_keep), the approximation and three detail blocks per level, empty ones
 * left out: what a band's coefficient array copies from the full coefficients (CPU and GPU).
 * Returns the count (at most LWT_SPLIT_MAX_BLOCKS), or -1 when the plan has no such block. */
#define LWT_SPLIT_MAX_BLOCKS (1 + 3 * LWT_BANDS_MAX_LEVELS)
int lwt__split_blocks(const lwt_plan *p, uint64_t keep, lwt_band out[LWT_SPLIT_MAX_BLOCKS]);

/* progress as chunk k starts band b (b < 0: its forward transform): with one chunk step 1 is
 * the forward and 2 + b band b, as lwt_filter_run numbers them; with several, chunk k reports
 * its share of those steps */
void lwt__split_progress(const lwt_splitter *s, int k, int b);

/* host copies between the transform's dtype and the I/O's kind, parallel over threads:
 * load: count values of io input (from element i0) into dst in the transform's dtype;
 * store: count values of src (transform dtype) into io band b from element i0, NaN where z is
 * not finite */
void lwt__split_load(const lwt_splitter *s, const lwt_split_io *io, size_t i0, size_t count, void *dst);
void lwt__split_store(const lwt_splitter *s, const lwt_split_io *io, int b, size_t i0, size_t count, const void *src);
/* band b's value 0 (an empty band), with NaN where z is not finite */
void lwt__split_zero(const lwt_splitter *s, const lwt_split_io *io, int b, size_t i0, size_t count);

#ifdef LWT_HAVE_CUDA
/* filter_cuda.c */
lwt_status lwt__split_gpu_create(lwt_splitter *s, char *err, size_t errlen);
void lwt__split_gpu_destroy(lwt_split_gpu *g);
lwt_status lwt__split_gpu_run(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *times, char *err,
                              size_t errlen);
#endif

#endif
