/*
 * The vertical lifting window in registers, shared by the register kernels
 * (cuda_slide_regs.cu: 2-D levels; cuda_columns.cu: passes along a strided
 * axis): the compiled-in scheme shapes, each shape's pipeline of lags
 * (computed at compile time), one lifting step, and one row entering the
 * window. A thread owns one column and slides down it one row of each
 * channel at a time; step k lifts, at a fixed lag, the row it can now
 * finish, so every step runs on registers with constant indices.
 */
#ifndef LWT_CUDA_REGS_PIPE_CUH
#define LWT_CUDA_REGS_PIPE_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/slide.h"
}

namespace {

constexpr int RS_MAXS = 12;   /* steps of the longest compiled-in shape */
constexpr int RS_MAX_STEP_TAPS = 6; /* taps of the longest step */

struct rs_shape {
    int n;
    int t[RS_MAXS], off[RS_MAXS], nt[RS_MAXS];
};

/* The shapes the factorization (core/factor.c) gives the seed's wavelets and
 * a few more; any scheme with one of these shapes, whatever its taps, runs
 * here (lwt_cuda_slide_regs_shape matches them at plan creation). */
constexpr rs_shape kShapes[] = {
    {2, {1, 0}, {0, 0}, {1, 1}},                                  /* haar */
    {3, {0, 1, 0}, {0, 0, -1}, {1, 2, 1}},                        /* db2 (D4) */
    {2, {1, 0}, {0, -1}, {2, 2}},                                 /* bior2.2 (CDF 5/3) */
    {5, {1, 0, 1, 0, 1}, {0, -1, 0, -1, -2}, {2, 2, 2, 2, 6}},    /* bior4.4 (CDF 9/7) */
    {5, {0, 1, 0, 1, 0}, {0, 0, -2, 2, -3}, {1, 2, 2, 2, 1}},     /* db4 (D8) */
    {11, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}, {0, 0, -1, 0, -2, 2, -4, 4, -6, 6, -7},
     {1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 6}},                          /* db10 (D20) */
    /* float32 plans drop taps below float32's resolution (core/scheme_trim.c): */
    {4, {1, 0, 1, 0}, {0, -1, 0, -1}, {2, 2, 2, 2}},              /* bior4.4 in float32 */
    {11, {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}, {0, 0, -1, 0, -2, 2, -4, 4, -6, 6, -7},
     {1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1}},                          /* db10 in float32 */
};
constexpr int kNumShapes = (int)(sizeof kShapes / sizeof kShapes[0]);

/* The pipeline of one direction: lag[k] of the step at execution position k
 * (it lifts row m_new - lag[k] when row m_new has just been loaded), D[c] the
 * lag at which rows of channel c are final, W[c] the rows of channel c the
 * window keeps (slot s holds row m_new - s), first[si] the taps of step si. */
struct rs_pipe {
    int lag[RS_MAXS], first[RS_MAXS];
    int D[2], W[2], WM;
};

constexpr int rs_max(int a, int b) { return a > b ? a : b; }

/* core/slide.c's compute_lags, for one row per iteration */
constexpr rs_pipe make_pipe(rs_shape s, bool inv)
{
    rs_pipe p{};
    int first = 0;
    for (int k = 0; k < s.n; k++) {
        p.first[k] = first;
        first += s.nt[k];
    }
    int wl[2] = {0, 0};
    for (int k = 0; k < s.n; k++) {
        const int si = inv ? s.n - 1 - k : k, t = s.t[si], u = 1 - t;
        int lag = rs_max(wl[t], wl[u] + s.off[si] + s.nt[si] - 1);
        for (int j = 0; j < k; j++) {
            const int sj = inv ? s.n - 1 - j : j;
            if (s.t[sj] != t)
                lag = rs_max(lag, p.lag[j] - s.off[sj]);
        }
        p.lag[k] = lag;
        wl[t] = lag;
    }
    for (int c = 0; c < 2; c++) {
        p.D[c] = wl[c];
        int w = wl[c];
        for (int k = 0; k < s.n; k++) {
            const int si = inv ? s.n - 1 - k : k;
            w = rs_max(w, s.t[si] == c ? p.lag[k] : p.lag[k] - s.off[si]);
        }
        p.W[c] = w + 1;
    }
    p.WM = rs_max(p.W[0], p.W[1]);
    return p;
}

/* every shape's pipeline reads only rows already loaded (slot >= 0) */
constexpr bool pipe_reads_loaded(rs_shape s, bool inv)
{
    const rs_pipe p = make_pipe(s, inv);
    for (int k = 0; k < s.n; k++) {
        const int si = inv ? s.n - 1 - k : k;
        if (p.lag[k] - s.off[si] - (s.nt[si] - 1) < 0)
            return false;
    }
    return true;
}
constexpr bool all_pipes_ok()
{
    for (int i = 0; i < kNumShapes; i++)
        if (!pipe_reads_loaded(kShapes[i], false) || !pipe_reads_loaded(kShapes[i], true))
            return false;
    return true;
}
static_assert(all_pipes_ok(), "a lag lets a step read a row before it is loaded");
constexpr bool all_steps_short()
{
    for (int i = 0; i < kNumShapes; i++)
        for (int k = 0; k < kShapes[i].n; k++)
            if (kShapes[i].nt[k] > RS_MAX_STEP_TAPS)
                return false;
    return true;
}

/*
 * One lifting step on one target value y: y +- sum_q taps[q] x[dir q], nt taps
 * (x points at the first tap's source; dir: +1 along a row's slots, -1 down
 * the vertical window, whose slot s holds row m_new - s).
 *
 * Float64 keeps the CPU backend's order and roundings (sum of products, each
 * product and sum rounded, then the update), so its results are the same bits.
 * Float32 runs the step as one FMA chain into the target, the target first:
 * nt FFMA against the 2 nt multiplies and adds of the sum-then-update form
 * (0-5% faster, docs/PERFORMANCE.md version 13: the kernel is bound by load
 * latency more than by issue). It rounds nt times instead of 2 nt; the
 * float32 bound is checked against the float64 CPU reference, not bit for bit.
 */
template <bool INV>
__device__ __forceinline__ float lift_step(float y, const float *taps, int nt, const float *x, int dir)
{
#pragma unroll
    for (int q = 0; q < RS_MAX_STEP_TAPS; q++)
        if (q < nt)
            y = __fmaf_rn(INV ? -taps[q] : taps[q], x[dir * q], y);
    return y;
}
template <bool INV>
__device__ __forceinline__ double lift_step(double y, const double *taps, int nt, const double *x, int dir)
{
    double acc = __dmul_rn(taps[0], x[0]);
#pragma unroll
    for (int q = 1; q < RS_MAX_STEP_TAPS; q++)
        if (q < nt)
            acc = __dadd_rn(__dmul_rn(taps[q], x[dir * q]), acc);
    return INV ? __dsub_rn(y, acc) : __dadd_rn(y, acc);
}

/* one row of both vertical channels enters the window: shift, then every
   vertical step at its lag (the generic kernel's order and rounding) */
template <int ID, bool INV, typename WREAL, int WM>
__device__ __forceinline__ void vpush(WREAL (&w)[2][WM], WREAL v0, WREAL v1, const WREAL *taps)
{
    constexpr rs_shape S = kShapes[ID];
    constexpr rs_pipe P = make_pipe(S, INV);
#pragma unroll
    for (int s = WM - 1; s > 0; s--) {
        w[0][s] = w[0][s - 1];
        w[1][s] = w[1][s - 1];
    }
    w[0][0] = v0;
    w[1][0] = v1;
#pragma unroll
    for (int k = 0; k < S.n; k++) {
        const int si = INV ? S.n - 1 - k : k;
        const int t = S.t[si], u = 1 - t, base = P.lag[k] - S.off[si];
        w[t][P.lag[k]] = lift_step<INV>(w[t][P.lag[k]], taps + P.first[si], S.nt[si], &w[u][base], -1);
    }
}

/* iterations of a slide down a run of tiles ext rows taller than one (core/slide.h's
   geometry, D the pipeline's lags at which rows are final) */
__device__ __forceinline__ long rs_iters(const lwt_slide_geom &G, const int D[2], int ext)
{
    const long e0 = G.out_hi[0] + ext - 1 + D[0], e1 = G.out_hi[1] + ext - 1 + D[1];
    return (e0 > e1 ? e0 : e1) - G.m_start + 1;
}

} // namespace

#endif
