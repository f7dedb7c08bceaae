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
    double err32_arith;        /* ... with float32 arithmetic (GPU float kernels) */
    double table_pr_err;       /* perfect-reconstruction error of the filter table */
    lwt_path path64, path32;   /* the scheme against its bound, in every mode */
    unsigned fb_modes64, fb_modes32; /* LWT_MODE_BIT of the modes whose AUTO plans still take
                                        the filter bank (core/path_table.h) */
};

/* Why an LWT_ALGO_AUTO plan of w in (mode, dtype) takes its path. */
typedef enum lwt_path_reason {
    LWT_PATH_WHY_LIFTING = 0,   /* the scheme meets the bound in this mode */
    LWT_PATH_WHY_NO_SCHEME = 1, /* no lifting scheme within the bound in any mode */
    LWT_PATH_WHY_MODE = 2       /* the scheme misses the bound in this mode (path table) */
} lwt_path_reason;

lwt_path lwt_wavelet_auto_path(const lwt_wavelet *w, lwt_mode mode, lwt_dtype dtype, lwt_path_reason *why);

/* Acceptance of a scheme's measured error (see wavelet.c). */
#define LWT_ACCEPT_F64 5e-14
#define LWT_ACCEPT_F32 5e-7

static inline lwt_filter_bank lwt_wavelet_bank(const lwt_wavelet *w)
{
    lwt_filter_bank fb = {w->length, w->dec_lo, w->dec_hi, w->rec_lo, w->rec_hi};
    return fb;
}

#endif
