/* Device-side reads of a line with PyWavelets' boundary rules, shared by the
 * CUDA kernels (the extension itself is core/extend.h, shared with the CPU). */
#ifndef LWT_CUDA_LOADS_CUH
#define LWT_CUDA_LOADS_CUH

extern "C" {
#include "core/extend.h"
#include "core/line.h"
}

/* sample n of a line of length N (element stride `stride`), extended by the
 * mode; the line's samples sit in memory through the window w (streamed
 * chunks), or all of them in order (w.nseg == 0) */
template <typename REAL, typename WREAL>
__device__ __forceinline__ WREAL lwt_dev_load_ext(const REAL *x, size_t stride, int mode, long N, long n,
                                                  const lwt_window &w)
{
    /* A tile may reach past a streamed chunk's last output; samples there
       are not in the window (position -1) and their values are never used. */
    if (n >= 0 && n < N) {
        const long i = lwt_window_pos(&w, n);
        return i < 0 ? (WREAL)0 : (WREAL)x[(size_t)i * stride];
    }
    lwt_ext_terms e;
    lwt_extend(mode, N, n, &e);
    WREAL v = 0;
    for (int k = 0; k < e.n; k++) {
        const long i = lwt_window_pos(&w, e.idx[k]);
        if (i < 0)
            return 0;
        v += (WREAL)e.w[k] * (WREAL)x[(size_t)i * stride];
    }
    return v;
}

/* coefficient k of a band starting at c: zero outside [0, nc) (PyWavelets'
 * valid upsampling convolution), periodic for periodization */
template <typename REAL, typename WREAL>
__device__ __forceinline__ WREAL lwt_dev_load_coeff(const REAL *c, size_t stride, const lwt_line_prog &p, long k)
{
    if (p.mode == LWT_MODE_PERIODIZATION)
        k = lwt_mod(k, p.nc);
    if (k < 0 || k >= p.nc)
        return 0;
    const long i = lwt_window_pos(&p.win, k);
    return i < 0 ? (WREAL)0 : (WREAL)c[(size_t)i * stride];
}

/* The segment of window w holding every index in [lo, hi), as the shift
 * from an index to its position; false when the run crosses segments. */
__device__ __forceinline__ bool lwt_dev_window_run(const lwt_window &w, long lo, long hi, long whole, long *shift)
{
    if (w.nseg == 0) {
        *shift = 0;
        return lo >= 0 && hi <= whole;
    }
    for (int s = 0; s < w.nseg; s++)
        if (lo >= w.lo[s] && hi <= w.hi[s]) {
            *shift = w.pos[s] - w.lo[s];
            return true;
        }
    return false;
}

#endif
