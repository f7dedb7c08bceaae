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
#include "cuda/cuda_loads.cuh"

namespace {

#define TILE_UNROLL 8

/* Copy len rows of one lane from global (row stride gstride) into shared
 * memory (row stride W), TILE_UNROLL loads in flight per thread: one
 * outstanding load per thread cannot cover the memory latency. */
template <typename REAL, typename WREAL, int W>
__device__ __forceinline__ void load_rows(WREAL *dst, const REAL *src, size_t gstride, int len, int r0, int rstep,
                                          WREAL mul)
{
    const size_t gstep = gstride * (size_t)rstep;
    const REAL *g = src + gstride * (size_t)r0;
    int r = r0;
    for (; r + (TILE_UNROLL - 1) * rstep < len; r += TILE_UNROLL * rstep) {
        REAL v[TILE_UNROLL];
#pragma unroll
        for (int u = 0; u < TILE_UNROLL; u++)
            v[u] = g[gstep * u];
#pragma unroll
        for (int u = 0; u < TILE_UNROLL; u++)
            dst[(r + u * rstep) * W] = (WREAL)v[u] * mul;
        g += gstep * TILE_UNROLL;
    }
    for (; r < len; r += rstep, g += gstep)
        dst[r * W] = (WREAL)*g * mul;
}

template <typename REAL, typename WREAL, bool INVERSE, int W>
__global__ void __launch_bounds__(256) tile_kernel(const lwt_line_prog tp, const lwt_dev_scheme s,
                                                   const REAL *__restrict__ in, REAL *__restrict__ out, size_t inner,
                                                   long T, long ntiles, size_t groups_per_outer, int ntaps_total,
                                                   const lwt_dest_map map, bool use_map)
{
    extern __shared__ unsigned char smem_raw[];
    WREAL *sm = reinterpret_cast<WREAL *>(smem_raw);
    const size_t b = blockIdx.x;
    const long tile = (long)(b % (size_t)ntiles);
    const size_t lg = b / (size_t)ntiles;
    const size_t o = lg / groups_per_outer;
    const size_t col0 = (lg % groups_per_outer) * (size_t)W;
    const int lanes = (int)((inner - col0) < (size_t)W ? inner - col0 : (size_t)W);
    /* a streamed chunk computes outputs [out_lo, out_hi) only, from a window */
    const size_t n_in = (size_t)lwt_prog_in_extent(&tp), n_out = (size_t)lwt_prog_out_extent(&tp);
    const REAL *x = in + o * n_in * inner + col0;
    REAL *y = out + o * n_out * inner + col0;

    /* tile 0's ranges shifted by whole coefficients; 32-bit offsets inside the tile */
    const long shift = tile * T;
    const int len0 = (int)(tp.ch[0].hi - tp.ch[0].lo), len1 = (int)(tp.ch[1].hi - tp.ch[1].lo);
    const long lo[2] = {tp.ch[0].lo + shift, tp.ch[1].lo + shift};
    const int len[2] = {len0, len1};
    WREAL *ch[2] = {sm, sm + len0 * W};
    WREAL *taps = sm + (len0 + len1) * W; /* every step's taps, converted once */
    /* blockDim.x is a multiple of W: each thread keeps its lane, rows stride by nth / W */
    const int lane = threadIdx.x % W, r0 = threadIdx.x / W, rstep = blockDim.x / W;
    for (int i = threadIdx.x; i < ntaps_total; i += blockDim.x)
        taps[i] = (WREAL)s.taps[i];

    if (!INVERSE) {
        /* channel c holds y[2m + c], m in [lo_c, lo_c + len_c); interior:
           every sample inside the signal and in one run of the window */
        long wshift = 0;
        const bool interior =
            lanes == W &&
            lwt_dev_window_run(tp.win, min(2 * lo[0], 2 * lo[1] + 1) + tp.delta,
                               max(2 * (lo[0] + len0 - 1), 2 * (lo[1] + len1 - 1) + 1) + tp.delta + 1, tp.n, &wshift) &&
            2 * lo[0] + tp.delta >= 0 && 2 * lo[1] + 1 + tp.delta >= 0 &&
            2 * (lo[0] + len0 - 1) + tp.delta < tp.n && 2 * (lo[1] + len1 - 1) + 1 + tp.delta < tp.n;
        if (W == 1 && interior) {
            /* contiguous line: read the samples in order (fully coalesced) and
               split even/odd on the way into shared memory */
            const long ylo = min(2 * lo[0], 2 * lo[1] + 1);
            const int rows = (int)(max(2 * (lo[0] + len0) - 1, 2 * (lo[1] + len1)) - ylo);
            const REAL *g = x + (size_t)(ylo + tp.delta + wshift);
            for (int r = r0; r < rows; r += rstep * TILE_UNROLL) {
                REAL v[TILE_UNROLL];
#pragma unroll
                for (int u = 0; u < TILE_UNROLL; u++)
                    v[u] = r + u * rstep < rows ? g[r + u * rstep] : (REAL)0;
#pragma unroll
                for (int u = 0; u < TILE_UNROLL; u++) {
                    const long n = ylo + r + u * rstep;
                    const int c = (int)(n & 1);
                    const long m = (n - c) / 2 - lo[c];
                    if (r + u * rstep < rows && m >= 0 && m < len[c])
                        ch[c][m] = (WREAL)v[u];
                }
            }
        }
        for (int c = 0; c < 2 && !(W == 1 && interior); c++) {
            if (interior) {
                load_rows<REAL, WREAL, W>(ch[c] + lane, x + lane + (size_t)(2 * lo[c] + c + tp.delta + wshift) * inner,
                                          2 * inner, len[c], r0, rstep, (WREAL)1);
            } else {
                for (int r = r0; r < len[c]; r += rstep) {
                    const long n = 2 * (lo[c] + r) + c + tp.delta;
                    ch[c][r * W + lane] =
                        lane < lanes ? lwt_dev_load_ext<REAL, WREAL>(x + lane, inner, tp.mode, tp.n, n, tp.win) : (WREAL)0;
                }
            }
        }
    } else {
        const int a = s.ach, d = 1 - s.ach;
        long wsa = 0, wsd = 0;
        const bool interior = lanes == W && lo[a] - s.sa >= 0 && lo[a] + len[a] - s.sa <= tp.nc &&
                              lo[d] - s.sd >= 0 && lo[d] + len[d] - s.sd <= tp.nc &&
                              lwt_dev_window_run(tp.win, lo[a] - s.sa, lo[a] + len[a] - s.sa, tp.nc, &wsa) &&
                              lwt_dev_window_run(tp.win, lo[d] - s.sd, lo[d] + len[d] - s.sd, tp.nc, &wsd);
        /* where each band's line starts: [cA | cD] in x, or its place under the map */
        const REAL *xb[2] = {x, x + (size_t)lwt_prog_in_band(&tp) * inner};
        if (use_map) {
            int rg;
            const size_t o0 = lwt_dest_map_line(&map, o, 0, &rg), o1 = lwt_dest_map_line(&map, o, 1, &rg);
            xb[0] = (const REAL *)map.dst[rg][0] + o0;
            xb[1] = (const REAL *)map.dst[rg][1] + o1;
        }
        for (int band = 0; band < 2; band++) {
            const int c = band ? d : a;
            const long off = band ? s.sd : s.sa;
            /* times the reciprocal of the band's scale, as on the CPU (cpu_pass_tmpl.h) */
            const WREAL sc = (WREAL)(1.0 / (band ? s.kd : s.ka));
            if (interior) {
                load_rows<REAL, WREAL, W>(ch[c] + lane, xb[band] + lane + (size_t)(lo[c] - off + (band ? wsd : wsa)) * inner,
                                          inner, len[c], r0, rstep, sc);
            } else {
                for (int r = r0; r < len[c]; r += rstep) {
                    WREAL v = lane < lanes ? lwt_dev_load_coeff<REAL, WREAL>(xb[band] + lane, inner, tp, lo[c] + r - off)
                                           : (WREAL)0;
                    ch[c][r * W + lane] = v * sc;
                }
            }
        }
    }
    __syncthreads();

    for (int k = 0; k < s.nsteps; k++) {
        const int si = INVERSE ? s.nsteps - 1 - k : k;
        const lwt_step st = s.steps[si];
        const int t = st.target, u = 1 - t;
        const int rlen = (int)(tp.step[si].hi - tp.step[si].lo);
        const int dbase = (int)(tp.step[si].lo + shift - lo[t]);
        const int sbase = (int)(tp.step[si].lo + shift + st.off - lo[u]);
        const WREAL *tq = taps + st.first;
        const WREAL *src = ch[u] + lane;
        WREAL *dst = ch[t] + lane;
        const int nt = st.ntaps;
        for (int r = r0; r < rlen; r += rstep) {
            const WREAL *sp = src + (sbase + r) * W;
            WREAL acc;
            if (nt == 1) {
                acc = tq[0] * sp[0];
            } else if (nt == 2) {
                acc = tq[0] * sp[0] + tq[1] * sp[W];
            } else { /* from the first product, as the CPU (cpu_pass_tmpl.h) */
                acc = tq[0] * sp[0];
                for (int q = 1; q < nt; q++)
                    acc += tq[q] * sp[q * W];
            }
            WREAL *dp = dst + (dbase + r) * W;
            *dp = INVERSE ? *dp - acc : *dp + acc;
        }
        __syncthreads();
    }

    if (!INVERSE) {
        const int a = s.ach, d = 1 - s.ach;
        const WREAL ka = (WREAL)s.ka, kd = (WREAL)s.kd;
        const int kn = (int)min((long)T, tp.out_hi - tp.out_lo - shift); /* outputs of this tile */
        if (lane < lanes) {
            const WREAL *pa = ch[a] + lane + (int)(tp.out_lo + shift + s.sa - lo[a]) * W;
            const WREAL *pd = ch[d] + lane + (int)(tp.out_lo + shift + s.sd - lo[d]) * W;
            REAL *ya = y + lane + (size_t)shift * inner, *yd = ya + (size_t)(tp.out_hi - tp.out_lo) * inner;
            if (use_map) { /* last axis (inner == 1): each half of the line to its band */
                int rg;
                const size_t o0 = lwt_dest_map_line(&map, o, 0, &rg), o1 = lwt_dest_map_line(&map, o, 1, &rg);
                ya = (REAL *)map.dst[rg][0] + o0 + shift;
                yd = (REAL *)map.dst[rg][1] + o1 + shift;
            }
            for (int r = r0; r < kn; r += rstep) {
                ya[(size_t)r * inner] = (REAL)(ka * pa[r * W]);
                yd[(size_t)r * inner] = (REAL)(kd * pd[r * W]);
            }
        }
    } else {
        const long m0 = tp.out_lo + 2 * shift;
        const int mn = (int)min(2 * (long)T, tp.out_hi - m0);
        if (lane < lanes) {
            REAL *yl = y + lane + (size_t)(m0 - tp.out_lo) * inner;
            for (int r = r0; r < mn; r += rstep) {
                const long yi = m0 + r - tp.delta;
                const int c = (int)(yi & 1);
                const int idx = (int)((yi - c) / 2 - lo[c]);
                yl[(size_t)r * inner] = (REAL)ch[c][idx * W + lane];
            }
        }
    }
}

template <typename REAL, typename WREAL, int W>
cudaError_t launch_w(const lwt_pass *ps, const lwt_line_prog &tp, const lwt_dev_scheme *dev, long T, long ntiles,
                     cudaStream_t stream)
{
    const size_t gpo = ps->inner == 1 ? 1 : (ps->inner + W - 1) / W;
    const size_t blocks = (size_t)ntiles * ps->outer * gpo;
    const int ntaps_total = ps->scheme->ntaps_total;
    const size_t smem =
        ((size_t)((tp.ch[0].hi - tp.ch[0].lo) + (tp.ch[1].hi - tp.ch[1].lo)) * W + (size_t)ntaps_total) * sizeof(WREAL);
    const unsigned threads = 256;
    if (tp.inverse) {
        auto k = tile_kernel<REAL, WREAL, true, W>;
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        k<<<(unsigned)blocks, threads, smem, stream>>>(tp, *dev, (const REAL *)ps->in, (REAL *)ps->out, ps->inner, T,
                                                      ntiles, gpo, ntaps_total,
                                                      ps->map ? *ps->map : lwt_dest_map(), ps->map != NULL);
    } else {
        auto k = tile_kernel<REAL, WREAL, false, W>;
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        k<<<(unsigned)blocks, threads, smem, stream>>>(tp, *dev, (const REAL *)ps->in, (REAL *)ps->out, ps->inner, T,
                                                      ntiles, gpo, ntaps_total,
                                                      ps->map ? *ps->map : lwt_dest_map(), ps->map != NULL);
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

/* Tile shape: a strided axis takes 64 (float32) or 32 columns x 64 outputs
 * (256-byte rows); a contiguous axis takes 1 line x 1024 outputs. */
static void tile_shape(const lwt_pass *ps, int *W, long *T)
{
    *W = ps->inner == 1 ? 1 : ps->dtype == LWT_F32 && ps->inner >= 64 ? 64 : 32;
    *T = ps->inner == 1 ? 1024 : 64;
}

/* shared memory of one tile, 0 when the tiled path does not apply */
static size_t tile_plan(const lwt_pass *ps, bool f32_in_float, lwt_line_prog *tp, long *ntiles)
{
    const lwt_line_prog &p = *ps->prog;
    if (p.direct)
        return 0;
    int W;
    long T;
    tile_shape(ps, &W, &T);
    *tp = p;
    /* tile 0 starts at the first output (0, or a streamed chunk's first) */
    if (p.inverse)
        lwt_line_ranges_inverse(tp, ps->scheme, p.out_lo, p.out_lo + 2 * T);
    else
        lwt_line_ranges_forward(tp, ps->scheme, p.out_lo, p.out_lo + T);
    const long outputs = p.inverse ? (p.out_hi - p.out_lo + 1) / 2 : p.out_hi - p.out_lo;
    *ntiles = (outputs + T - 1) / T;
    const size_t per_elem = (ps->dtype == LWT_F32 && f32_in_float) ? 4 : 8;
    const size_t smem =
        ((size_t)((tp->ch[0].hi - tp->ch[0].lo) + (tp->ch[1].hi - tp->ch[1].lo)) * W + ps->scheme->ntaps_total) * per_elem;
    /* very long schemes: the line kernel handles them */
    return smem <= 200 * 1024 && *ntiles >= 1 ? smem : 0;
}

bool lwt_cuda_tiles_apply(const lwt_pass *ps, bool f32_in_float)
{
    lwt_line_prog *tp = new lwt_line_prog;
    long ntiles;
    bool ok = tile_plan(ps, f32_in_float, tp, &ntiles) != 0;
    delete tp;
    return ok;
}

bool lwt_cuda_launch_tiles(const lwt_pass *ps, const lwt_dev_scheme *dev, cudaStream_t stream, cudaError_t *err)
{
    if (ps->map && ps->inner != 1)
        return false;
    lwt_line_prog *tp = new lwt_line_prog;
    long ntiles;
    if (!tile_plan(ps, dev->f32_in_float, tp, &ntiles)) {
        delete tp;
        return false;
    }
    int W;
    long T;
    tile_shape(ps, &W, &T);
    if (ps->dtype == LWT_F32)
        *err = dev->f32_in_float ? launch<float, float>(ps, *tp, dev, W, T, ntiles, stream)
                                 : launch<float, double>(ps, *tp, dev, W, T, ntiles, stream);
    else
        *err = launch<double, double>(ps, *tp, dev, W, T, ntiles, stream);
    delete tp;
    return true;
}
