/*
 * split_impl.h - the splitter's state and its run with host I/O of either kind (split.c, used by
 * filter.c); internal to lwt_surface.
 */
#ifndef LWT_SURFACE_SPLIT_IMPL_H
#define LWT_SURFACE_SPLIT_IMPL_H

#include "surface/split.h"

/* Host data of one run. The heights come in and the bands go out either in the transform's
 * dtype or as double (converted by the engine on the way); z: when not NULL, band values are NaN
 * wherever z is not finite (lwt_filter_run's invalid points). With one chunk a band may be the
 * input array itself (every input row is read before any band row is written). */
typedef struct lwt_split_io {
    const void *in;
    void *band[LWT_BAND_COUNT];
    int host_f64;    /* 1: in and band are double; 0: the transform's dtype */
    const double *z; /* n values, or NULL */
} lwt_split_io;

/* defined in filter.c: a monotonic clock in ms */
double lwt_filter_now_ms(void);

/* Runs will have double I/O (lwt_filter_run): the engine's buffers for them are made now
   (with a float32 transform, the converting rings too), so that no run allocates them. */
lwt_status lwt__splitter_prepare_f64(lwt_splitter *s);

/* a run with host I/O of either kind (lwt_filter_run: double with NaN restore) */
lwt_status lwt__splitter_run_io(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *times);

#endif
