/*
 * The line kernel's work on one element, shared by the line kernel (cuda_lines.cu: a
 * thread runs every stage of one line) and seed 000's plain RC (cuda_steps.cu: a launch
 * per stage, a thread per element). The lines' two channels live in a device scratch
 * laid out [index][line], in double, in the CPU backend's order of operations.
 */
#ifndef LWT_CUDA_LINE_OPS_CUH
#define LWT_CUDA_LINE_OPS_CUH

extern "C" {
#include "core/extend.h"
#include "core/line.h"
}
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_loads.cuh"

/* channel c's index m of line t at ch[c][(m - p.ch[c].lo) nl + t] */
struct lwt_line_chans {
    double *ch[2];
};

__device__ __forceinline__ lwt_line_chans lwt_line_layout(const lwt_line_prog &p, double *scratch, size_t nl)
{
    return {{scratch, scratch + (size_t)(p.ch[0].hi - p.ch[0].lo) * nl}};
}

/* channel cc's index m of a line, from its input x (stride st): forward, the sample,
   extended by the mode; inverse, the band coefficient (the detail band bin elements on)
   divided by its band's scale */
template <typename REAL>
__device__ __forceinline__ double lwt_line_in(const lwt_line_prog &p, const lwt_dev_scheme &s, const REAL *x, size_t st,
                                              size_t bin, int cc, long m)
{
    if (!p.inverse)
        return lwt_dev_load_ext<REAL, double>(x, st, p.mode, p.n, 2 * m + cc + p.delta, p.win);
    if (cc == s.ach)
        return lwt_dev_load_coeff<REAL, double>(x, st, p, m - s.sa) * (1.0 / s.ka);
    return lwt_dev_load_coeff<REAL, double>(x + bin * st, st, p, m - s.sd) * (1.0 / s.kd);
}

/* the lifting step of scheme index si at target index m of line t */
__device__ __forceinline__ void lwt_line_step_at(const lwt_line_prog &p, const lwt_dev_scheme &s, int si, long m,
                                                 const lwt_line_chans &L, size_t t, size_t nl)
{
    const lwt_step st = s.steps[si];
    const int u = 1 - st.target;
    const double *taps = s.taps + st.first;
    const double *sp = L.ch[u] + (size_t)(m + st.off - p.ch[u].lo) * nl + t;
    double acc = __ldg(taps) * sp[0]; /* from the first product, as the CPU (cpu_pass_tmpl.h) */
    for (int i = 1; i < st.ntaps; i++)
        acc += __ldg(taps + i) * sp[(size_t)i * nl];
    double *dp = L.ch[st.target] + (size_t)(m - p.ch[st.target].lo) * nl + t;
    *dp = p.inverse ? *dp - acc : *dp + acc;
}

/* output k of line t to y (stride st): forward, the approximation's coefficient k and,
   bout elements on, the detail's, scaled; inverse, sample k */
template <typename REAL>
__device__ __forceinline__ void lwt_line_out(const lwt_line_prog &p, const lwt_dev_scheme &s, REAL *y, size_t st,
                                             size_t bout, const lwt_line_chans &L, size_t t, size_t nl, long k)
{
    if (!p.inverse) {
        const int a = s.ach, d = 1 - s.ach;
        y[(size_t)(k - p.out_lo) * st] = (REAL)(s.ka * L.ch[a][(size_t)(k + s.sa - p.ch[a].lo) * nl + t]);
        y[(size_t)(bout + k - p.out_lo) * st] = (REAL)(s.kd * L.ch[d][(size_t)(k + s.sd - p.ch[d].lo) * nl + t]);
        return;
    }
    const long yi = k - p.delta;
    const int cc = (int)lwt_mod(yi, 2);
    const long idx = lwt_floor_div(yi, 2);
    y[(size_t)(k - p.out_lo) * st] = (REAL)L.ch[cc][(size_t)(idx - p.ch[cc].lo) * nl + t];
}

#endif
