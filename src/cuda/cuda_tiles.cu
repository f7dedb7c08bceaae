/*
 * Tiled lifting pass: the fast path for every lifting plan, any scheme,
 * mode, axis and direction.
 *
 * A block owns a tile: W neighbouring lines (columns of a strided axis, so
 * each row of the tile is one coalesced segment) by T outputs along the axis.
 * It loads the tile's samples plus the halo the scheme reaches into shared
 * memory, de-interleaved into the even and odd channels, runs the lifting
 * steps there (one barrier per step), and writes the outputs once. Lifting
 * ranges are translation-invariant, so they are computed once on the host
 * for tile 0 (core/line.c) and shifted per tile; samples outside the signal
 * come from the mode's extension (core/extend.h), exactly as on the CPU.
 * Global traffic per pass: one read (plus the halo) and one write.
 */
#include <cuda_runtime.h>

extern "C" {
#include "core/extend.h"
#include "core/line.h"
}
#include "cuda/cuda_kernels.cuh"

namespace {

#define TILE_UNROLL 8

template <typename REAL, typename WREAL>
__device__ WREAL tile_load_ext(const REAL *x, size_t stride, int mode, long N, long n)
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

template <typename REAL, typename WREAL>
__device__ WREAL tile_load_coeff(const REAL *c, size_t stride, const lwt_line_prog &p, int band, long k)
{
    if (p.mode == LWT_MODE_PERIODIZATION)
        k = lwt_mod(k, p.nc);
    if (k < 0 || k >= p.nc)
        return 0;
    return (WREAL)c[(size_t)(band * p.nc + k) * stride];
}

template <typename REAL, typename WREAL, bool INVERSE, int W>
__global__ void __launch_bounds__(256) tile_kernel(const lwt_line_prog tp, const lwt_dev_scheme s,
                                                   const REAL *__restrict__ in, REAL *__restrict__ out, size_t inner,
                                                   long T, long ntiles, size_t groups_per_outer)
{
    extern __shared__ unsigned char smem_raw[];
    WREAL *sm = reinterpret_cast<WREAL *>(smem_raw);
    const size_t b = blockIdx.x;
    const long tile = (long)(b % (size_t)ntiles);
    const size_t lg = b / (size_t)ntiles;
    const size_t o = lg / groups_per_outer;
    const size_t col0 = (lg % groups_per_outer) * (size_t)W;
    const int lanes = (int)((inner - col0) < (size_t)W ? inner - col0 : (size_t)W);
    const size_t n_in = INVERSE ? 2 * (size_t)tp.nc : (size_t)tp.n;
    const size_t n_out = INVERSE ? (size_t)tp.n : 2 * (size_t)tp.nc;
    const REAL *x = in + o * n_in * inner + col0;
    REAL *y = out + o * n_out * inner + col0;

    /* tile 0's ranges shifted by whole coefficients */
    const long shift = tile * T;
    const long lo0 = tp.ch[0].lo + shift, len0 = tp.ch[0].hi - tp.ch[0].lo;
    const long lo1 = tp.ch[1].lo + shift, len1 = tp.ch[1].hi - tp.ch[1].lo;
    WREAL *ch[2] = {sm, sm + (size_t)len0 * W};
    const long lo[2] = {lo0, lo1};
    /* blockDim.x is a multiple of W: each thread keeps its lane, rows stride by nth / W */
    const int lane = threadIdx.x % W, r0 = threadIdx.x / W, rstep = blockDim.x / W;

    if (!INVERSE) {
        /* samples y[n], n from the lowest even to the highest odd channel index */
        const long ylo = min(2 * lo0, 2 * lo1 + 1), yhi = max(2 * (lo0 + len0) - 1, 2 * (lo1 + len1));
        const int rows = (int)(yhi - ylo);
        if (lanes == W && ylo + tp.delta >= 0 && yhi + tp.delta <= tp.n) {
            /* interior tile: no extension; U independent loads in flight per
               thread, since one outstanding load per thread cannot cover the
               memory latency at full bandwidth */
            const REAL *xl = x + lane + (size_t)(ylo + tp.delta) * inner;
            for (int r = r0; r < rows; r += rstep * TILE_UNROLL) {
                REAL v[TILE_UNROLL];
#pragma unroll
                for (int u = 0; u < TILE_UNROLL; u++) {
                    const int rr = r + u * rstep;
                    v[u] = rr < rows ? xl[(size_t)rr * inner] : (REAL)0;
                }
#pragma unroll
                for (int u = 0; u < TILE_UNROLL; u++) {
                    const int rr = r + u * rstep;
                    const long n = ylo + rr;
                    const int c = (int)(n & 1);
                    const long m = (n - c) / 2;
                    if (rr < rows && m >= lo[c] && m < lo[c] + (c ? len1 : len0))
                        ch[c][(size_t)(m - lo[c]) * W + lane] = (WREAL)v[u];
                }
            }
        } else {
            for (int r = r0; r < rows; r += rstep) {
                const long n = ylo + r;
                const int c = (int)(n & 1);
                const long m = (n - c) / 2;
                if (m < lo[c] || m >= lo[c] + (c ? len1 : len0))
                    continue;
                WREAL v = lane < lanes ? tile_load_ext<REAL, WREAL>(x + lane, inner, tp.mode, tp.n, n + tp.delta)
                                       : (WREAL)0;
                ch[c][(size_t)(m - lo[c]) * W + lane] = v;
            }
        }
    } else {
        const int a = s.ach, d = 1 - s.ach;
        const WREAL ika = (WREAL)(1.0 / s.ka), ikd = (WREAL)(1.0 / s.kd);
        const long la = a ? len1 : len0, ld = d ? len1 : len0;
        const bool interior = lanes == W && lo[a] - s.sa >= 0 && lo[a] + la - s.sa <= tp.nc && lo[d] - s.sd >= 0 &&
                              lo[d] + ld - s.sd <= tp.nc;
        for (int band = 0; band < 2; band++) {
            const int c = band ? d : a;
            const long len = band ? ld : la, off = band ? s.sd : s.sa;
            const WREAL sc = band ? ikd : ika;
            if (interior) {
                const REAL *xl = x + lane + (size_t)(band * tp.nc + lo[c] - off) * inner;
                for (int r = r0; r < len; r += rstep * TILE_UNROLL) {
                    REAL v[TILE_UNROLL];
#pragma unroll
                    for (int u = 0; u < TILE_UNROLL; u++) {
                        const int rr = r + u * rstep;
                        v[u] = rr < len ? xl[(size_t)rr * inner] : (REAL)0;
                    }
#pragma unroll
                    for (int u = 0; u < TILE_UNROLL; u++) {
                        const int rr = r + u * rstep;
                        if (rr < len)
                            ch[c][(size_t)rr * W + lane] = (WREAL)v[u] * sc;
                    }
                }
            } else {
                for (int r = r0; r < len; r += rstep) {
                    const long m = lo[c] + r;
                    WREAL v = lane < lanes ? tile_load_coeff<REAL, WREAL>(x + lane, inner, tp, band, m - off) : 0;
                    ch[c][(size_t)r * W + lane] = v * sc;
                }
            }
        }
    }
    __syncthreads();

    for (int k = 0; k < s.nsteps; k++) {
        const int si = INVERSE ? s.nsteps - 1 - k : k;
        const lwt_step st = s.steps[si];
        const int t = st.target, u = 1 - t;
        const long rlo = tp.step[si].lo + shift, rlen = tp.step[si].hi - tp.step[si].lo;
        const double *taps = s.taps + st.first;
        for (int r = r0; r < rlen; r += rstep) {
            const long m = rlo + r;
            const WREAL *sp = ch[u] + (size_t)(m + st.off - lo[u]) * W + lane;
            WREAL acc = 0;
            for (int q = 0; q < st.ntaps; q++)
                acc += (WREAL)__ldg(taps + q) * sp[(size_t)q * W];
            WREAL *dp = ch[t] + (size_t)(m - lo[t]) * W + lane;
            *dp = INVERSE ? *dp - acc : *dp + acc;
        }
        __syncthreads();
    }

    if (!INVERSE) {
        const int a = s.ach, d = 1 - s.ach;
        const WREAL ka = (WREAL)s.ka, kd = (WREAL)s.kd;
        const long k0 = shift;
        for (int r = r0; r < T; r += rstep) {
            const long k = k0 + r;
            if (k >= tp.nc || lane >= lanes)
                continue;
            y[(size_t)k * inner + lane] = (REAL)(ka * ch[a][(size_t)(k + s.sa - lo[a]) * W + lane]);
            y[(size_t)(tp.nc + k) * inner + lane] = (REAL)(kd * ch[d][(size_t)(k + s.sd - lo[d]) * W + lane]);
        }
    } else {
        const long m0 = 2 * shift;
        for (int r = r0; r < 2 * T; r += rstep) {
            const long m = m0 + r;
            if (m >= tp.n || lane >= lanes)
                continue;
            const long yi = m - tp.delta;
            const int c = (int)lwt_mod(yi, 2);
            const long idx = lwt_floor_div(yi, 2);
            y[(size_t)m * inner + lane] = (REAL)ch[c][(size_t)(idx - lo[c]) * W + lane];
        }
    }
}

template <typename REAL, typename WREAL, int W>
cudaError_t launch_w(const lwt_pass *ps, const lwt_line_prog &tp, const lwt_dev_scheme *dev, long T, long ntiles,
                     cudaStream_t stream)
{
    const size_t gpo = ps->inner == 1 ? 1 : (ps->inner + W - 1) / W;
    const size_t blocks = (size_t)ntiles * ps->outer * gpo;
    const size_t smem = (size_t)((tp.ch[0].hi - tp.ch[0].lo) + (tp.ch[1].hi - tp.ch[1].lo)) * W * sizeof(WREAL);
    const unsigned threads = 256;
    if (tp.inverse) {
        auto k = tile_kernel<REAL, WREAL, true, W>;
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        k<<<(unsigned)blocks, threads, smem, stream>>>(tp, *dev, (const REAL *)ps->in, (REAL *)ps->out, ps->inner, T,
                                                      ntiles, gpo);
    } else {
        auto k = tile_kernel<REAL, WREAL, false, W>;
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        k<<<(unsigned)blocks, threads, smem, stream>>>(tp, *dev, (const REAL *)ps->in, (REAL *)ps->out, ps->inner, T,
                                                      ntiles, gpo);
    }
    return cudaGetLastError();
}

template <typename REAL, typename WREAL>
cudaError_t launch(const lwt_pass *ps, const lwt_line_prog &tp, const lwt_dev_scheme *dev, int W, long T,
                   long ntiles, cudaStream_t stream)
{
    switch (W) {
    case 1: return launch_w<REAL, WREAL, 1>(ps, tp, dev, T, ntiles, stream);
    case 32: return launch_w<REAL, WREAL, 32>(ps, tp, dev, T, ntiles, stream);
    default: return launch_w<REAL, WREAL, 64>(ps, tp, dev, T, ntiles, stream);
    }
}

} // namespace

/* Tile shape: a strided axis takes 32 columns x 64 outputs (128-byte rows in
 * float32); a contiguous axis takes 1 line x 1024 outputs (2048 samples). */
bool lwt_cuda_launch_tiles(const lwt_pass *ps, const lwt_dev_scheme *dev, cudaStream_t stream, cudaError_t *err)
{
    const lwt_line_prog &p = *ps->prog;
    if (p.direct)
        return false;
    /* 256-byte rows on strided axes (64 floats or 32 doubles); narrower axes leave lanes idle */
    const int W = ps->inner == 1 ? 1 : ps->dtype == LWT_F32 && ps->inner >= 64 ? 64 : 32;
    const long T = ps->inner == 1 ? 1024 : 64;
    lwt_line_prog *tp = new lwt_line_prog(p);
    if (p.inverse)
        lwt_line_ranges_inverse(tp, ps->scheme, 0, 2 * T);
    else
        lwt_line_ranges_forward(tp, ps->scheme, 0, T);
    const long outputs = p.inverse ? (p.n + 1) / 2 : p.nc;
    const long ntiles = (outputs + T - 1) / T;
    const size_t per_elem = (ps->dtype == LWT_F32 && dev->f32_in_float) ? 4 : 8;
    const size_t smem = (size_t)((tp->ch[0].hi - tp->ch[0].lo) + (tp->ch[1].hi - tp->ch[1].lo)) * W * per_elem;
    if (smem > 200 * 1024 || ntiles < 1) {
        delete tp;
        return false; /* very long schemes: the line kernel handles them */
    }
    if (ps->dtype == LWT_F32)
        *err = dev->f32_in_float ? launch<float, float>(ps, *tp, dev, W, T, ntiles, stream)
                                 : launch<float, double>(ps, *tp, dev, W, T, ntiles, stream);
    else
        *err = launch<double, double>(ps, *tp, dev, W, T, ntiles, stream);
    delete tp;
    return true;
}
