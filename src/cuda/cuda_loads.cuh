/* Device-side reads of a line with PyWavelets' boundary rules, shared by the
 * CUDA kernels (the extension itself is core/extend.h, shared with the CPU). */
#ifndef LWT_CUDA_LOADS_CUH
#define LWT_CUDA_LOADS_CUH

extern "C" {
#include "core/extend.h"
#include "core/line.h"
}

/* sample n of a line of length N (element stride `stride`), extended by the mode */
template <typename REAL, typename WREAL>
__device__ __forceinline__ WREAL lwt_dev_load_ext(const REAL *x, size_t stride, int mode, long N, long n)
{
    if (n >= 0 && n < N)
        return (WREAL)x[(size_t)n * stride];
    lwt_ext_terms e;
    lwt_extend(mode, N, n, &e);
    WREAL v = 0;
    for (int k = 0; k < e.n; k++)
        v += (WREAL)e.w[k] * (WREAL)x[(size_t)e.idx[k] * stride];
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
    return (WREAL)c[(size_t)k * stride];
}

#endif
