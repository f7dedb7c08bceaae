/* Wavelet object internals: filter bank, lifting scheme, chosen paths. */
#ifndef LWT_CORE_WAVELET_H
#define LWT_CORE_WAVELET_H

#include "core/scheme.h"
#include "lwt.h"

#define LWT_MAX_FILTER 256

struct lwt_wavelet {
    char name[64];
    char family[16];
    int orthogonal;
    int length;
    double dec_lo[LWT_MAX_FILTER], dec_hi[LWT_MAX_FILTER];
    double rec_lo[LWT_MAX_FILTER], rec_hi[LWT_MAX_FILTER];
    int has_scheme;
    lwt_scheme scheme;
    double err64, err32;       /* measured lifting error (INFINITY without a scheme) */
    double table_pr_err;       /* perfect-reconstruction error of the filter table */
    lwt_path path64, path32;
};

static inline lwt_filter_bank lwt_wavelet_bank(const lwt_wavelet *w)
{
    lwt_filter_bank fb = {w->length, w->dec_lo, w->dec_hi, w->rec_lo, w->rec_hi};
    return fb;
}

#endif
