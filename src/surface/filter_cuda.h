/*
 * filter_cuda.h - the band split of filter.c kept on the GPU (CUDA plans only; internal).
 *
 * lwt_filter_run calls lwt_filter_cuda_bands when its plan resolved to LWT_BACKEND_CUDA, in
 * place of the four host-pointer lwt_forward / lwt_inverse calls. It computes the same bands
 * with the same plan and kernels (the same bits), but allocates the device buffers once,
 * uploads the filled input once, builds each band's coefficients on the device, and overlaps
 * the GPU work of band b+1 with the download and float->double conversion of band b.
 * Defined in filter_cuda.c, in CUDA builds only (LWT_HAVE_CUDA).
 */
#ifndef LWT_SURFACE_FILTER_CUDA_H
#define LWT_SURFACE_FILTER_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "lwt.h"
#include "surface/filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* shared with filter.c (defined there): a monotonic clock in ms, and an error message into
   err (printf-style) that returns st */
double lwt_filter_now_ms(void);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
lwt_status lwt_filter_fail(char *err, size_t errlen, lwt_status st, const char *fmt, ...);

typedef struct lwt_filter_cuda_job {
    const lwt_plan *plan;        /* 2-D, ny x nx, backend LWT_BACKEND_CUDA */
    int device;                  /* the plan's CUDA device (lwt_plan_desc.device) */
    lwt_dtype dtype;             /* the plan's dtype */
    const lwt_filter_spec *spec; /* progress callback and CPU threads */
    int nbands;                  /* 3, or 4 with a noise band */
    int steps;                   /* progress steps in all; band b reports step 2 + b */
    /* keep[b] bit L: the plan's packed level L (lwt_plan_band numbering: 0 = approximation,
       1 = coarsest details ... levels = finest; all three detail masks) belongs to band b.
       keep[b] == 0: the band is empty and comes out exactly zero. */
    uint64_t keep[LWT_BAND_COUNT];
    const double *filled;        /* n heights, invalid points filled: the transform input */
    const double *z;             /* n original heights: non-finite points become NaN in every band */
    size_t n;                    /* nx * ny */
    size_t n_invalid;            /* non-finite points of z (0: no NaN pass) */
    double *band[LWT_BAND_COUNT];/* n doubles each, band 0 .. nbands-1. band[0] may be `filled`
                                    itself: it is written only after the upload is complete */
} lwt_filter_cuda_job;

/* Fills job->band[0 .. nbands-1]. ms_forward: upload (with the float conversion) + forward;
 * ms_inverse[b]: wall time from the end of the previous step to band b complete in host
 * memory (its own GPU work ran earlier, overlapped with the previous band's download), so
 * ms_forward + the sum of ms_inverse is the wall time of the whole transform phase.
 * Device buffers, streams and pinned staging are allocated and freed inside (not in the timed
 * fields). On failure: LWT_ERR_DEVICE (any CUDA error), LWT_ERR_OUT_OF_MEMORY or the transform's
 * status, one line in err, nothing left allocated; the band contents are then undefined. */
lwt_status lwt_filter_cuda_bands(const lwt_filter_cuda_job *job, double *ms_forward,
                                 double ms_inverse[LWT_BAND_COUNT], char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_FILTER_CUDA_H */
