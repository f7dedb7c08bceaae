/*
 * A 3-D forward level in one pass (issue 28, item 2). The level by planes runs
 * the pass along axis 0 through global memory and then a 2-D level on every
 * plane of its output: two reads and two writes of the level, a floor of
 * 2 x (1 + 1/8 + 1/64) = 2.28 copies for three levels. Here a block owns a
 * tile of ax[1].T x ax[2].T coefficients of the planes and a segment of axis 0,
 * and slides down axis 0:
 *
 *   - each thread owns up to VPOS positions of the tile and its halo (a sample
 *     row of axis 1 and column of axis 2) and runs axis 0's lifting on them in
 *     registers, one channel row of each axis-0 channel per iteration, every
 *     step at its compile-time lag (cuda_regs_pipe.cuh, as the column kernel);
 *   - each finished axis-0 row (an approximation plane and a detail plane of
 *     the tile) goes to shared memory, where the block runs the vertical
 *     steps (axis 1, a block barrier per step) and a warp lifts each row that
 *     is an output along axis 2 in registers (hlift), then writes its bands
 *     straight to their places.
 *
 * The halo of a tile is read by its neighbours too (from L2: the blocks slide
 * down axis 0 together) and lifted along axis 0 again, which is the price of
 * not keeping a second copy of the level. The ranges of every step come from
 * core/slide.c's per-axis planning (lwt_slide_fill_axis), so every mode whose
 * extension maps a sample to a sample works; smooth and antireflect, which
 * extrapolate, keep the level by planes. Float32 computed in float with the
 * level by planes' operations in its order (the same lifting chains, the axis-0
 * scale where the column kernel applies it, the edge values its 2-D kernel
 * makes, the folded vertical and horizontal scale at the store): the same bits
 * as the level by planes (tests/gpu/test_gpu.c compares them).
 *
 * Measured (H100, docs/PERFORMANCE.md "3-D levels in one pass"): the DRAM
 * bytes of one copy of the level (8.8 GB for one 1024^3 level: the halos come
 * from L2), but 2.6 times the instructions of the two passes (7.95 G against
 * 3.05 G; the per-row index work of the 2-D tile, redone every iteration, and
 * the halo lifted twice), issued 61% of the time: 1024^3 CDF 9/7 3 levels in
 * 15.6 ms against 8.8 ms by planes. So the planner keeps the level by planes
 * and this runs where a plan asks (lwt_plan_tuning.volume_pass).
 */
#include <cuda_runtime.h>

#include <limits.h>
#include <stdlib.h>
#include <utility>

extern "C" {
#include "core/extend.h"
#include "core/line.h"
#include "core/slide.h"
}
#include "cuda/cuda_regs_pipe.cuh"
#include "cuda/cuda_regs_rows.cuh"
#include "cuda/cuda_slide_regs.cuh"
#include "cuda/cuda_vol.cuh"

namespace {

constexpr int VT = 1024;               /* threads per block */
constexpr int VPOS = 3;                /* tile positions per thread (the axis-0 windows take the registers) */
constexpr int VT2 = 32;                /* coefficients per tile along axis 2: one per lane at the store */
constexpr int VNP = 2;                 /* slots per lane and channel of a tile row lifted by one warp */
constexpr int VCW = rs_cw_np(VNP);     /* a channel's region of a tile row (cuda_regs_rows.cuh's layout) */
constexpr int VCH = 24;                /* rows of a channel's region along axis 1: ax[1].T <= 16 and its halo */
constexpr int VROW = 2 * VCW;          /* a tile row: both horizontal channels */
static_assert(VROW % 32 == 0, "the vertical steps run whole rows in chunks of 32 lanes");
constexpr int VTILE = 2 * VCH * VROW;  /* a tile: both vertical channels */
constexpr size_t VSMEM = 4 * VTILE * sizeof(float); /* two buffers of both axis-0 channels' tiles: 120 KiB */

/* the shapes built here: windows of at most 4 rows a channel, so that VPOS positions'
   windows fit the 64 registers of 1024 threads (Haar, D4, CDF 5/3, float32 CDF 9/7) */
constexpr bool vol_built(int id) { return kShapes[id].n <= 5 && make_pipe(kShapes[id], false).WM <= 4; }

struct vol_args {
    float taps[LWT_RS_MAX_TAPS];
    float k0[2]; /* axis-0 channel c's scale, applied as the row leaves the axis-0 window */
    float k[8];  /* band b's scale along axes 1 and 2 (bit 0 of b: axis 0, ignored) */
    const float *in;
    size_t in_row, in_plane;
    float *out[8];
    size_t out_row[8], out_plane[8];
    int ach;
    long sa, sd;
};

/* forward sample index of tile 0's channel-c index m along axis a, tile t0 on */
__device__ __forceinline__ long vol_sample(const lwt_slide_axis &a, int c, long m, long t0)
{
    return 2 * (m + t0) + c + a.delta;
}

template <int ID>
__global__ void __launch_bounds__(VT, 1) vol_forward(const __grid_constant__ lwt_vol_geom G,
                                                     const __grid_constant__ vol_args A)
{
    constexpr rs_shape S = kShapes[ID];
    constexpr rs_pipe P = make_pipe(S, false);
    extern __shared__ float vsm[];
    /* the bands' places, indexed by band at the store: in shared memory (indexed kernel
       parameters are copied to local memory) */
    __shared__ float *vout[8];
    __shared__ size_t vrow[8], vplane[8];
    __shared__ float vk[8];
    if (threadIdx.x < 8) {
        vout[threadIdx.x] = A.out[threadIdx.x];
        vrow[threadIdx.x] = A.out_row[threadIdx.x];
        vplane[threadIdx.x] = A.out_plane[threadIdx.x];
        vk[threadIdx.x] = A.k[threadIdx.x];
    }
    const lwt_slide_axis &a0 = G.ax[0], &a1 = G.ax[1], &a2 = G.ax[2];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const long sz = (long)blockIdx.y * a0.T, sy = (long)(blockIdx.x / G.tiles[2]) * a1.T,
               sx = (long)(blockIdx.x % G.tiles[2]) * a2.T;
    const int a = A.ach;
    const long sh[2] = {a == 0 ? A.sa : A.sd, a == 1 ? A.sa : A.sd}; /* channel c's output shift */

    /* The tile's positions: rows of both vertical channels (region c1 of VCH rows), and the
       strip's consecutive sample columns (core/slide.h's lwt_slide_strip), so that a warp
       reads neighbouring samples; each column goes to its channel's region. */
    const long xlo = G.xlo;
    const int NX = G.nx;
    const int E1 = a1.len[0] + a1.len[1];
    /* off: the position's offset o in a plane as 4 o + 2 e + n, e where it lies outside the
       array along axis 1 or 2 (the extension reads sample o), n where the extension negates
       it (antisymmetric); -1 where the mode makes it zero. sidx: its shared-memory index, -1
       for threads without that position. */
    int off[VPOS], sidx[VPOS];
#pragma unroll
    for (int q = 0; q < VPOS; q++) {
        const int p = tid + q * VT, r = p / NX, s = p - r * NX;
        const int c1 = r >= a1.len[0] ? 1 : 0, i1 = r - (c1 ? a1.len[0] : 0);
        const long n = xlo + s;
        const int c2 = (int)(n & 1);
        const long i2 = (n - c2) / 2 - a2.lo[c2];
        sidx[q] = -1;
        off[q] = -1;
        if (r >= E1 || i2 < 0 || i2 >= a2.len[c2])
            continue;
        sidx[q] = (c1 * VCH + i1) * VROW + c2 * VCW + rs_phys_np(VNP, (int)(a2.lo[c2] + i2 - rs_base(a2)));
        const long yy = vol_sample(a1, c1, a1.lo[c1] + i1, sy), xx = n + 2 * sx + a2.delta;
        lwt_ext_terms ty, tx;
        lwt_extend(a1.mode, a1.n, yy, &ty);
        lwt_extend(a2.mode, a2.n, xx, &tx);
        const bool outside = yy < 0 || yy >= a1.n || xx < 0 || xx >= a2.n;
        if (ty.n && tx.n)
            off[q] = 4 * (int)(ty.idx[0] * (long)A.in_row + tx.idx[0]) + (outside ? 2 : 0) +
                     (ty.w[0] * tx.w[0] < 0 ? 1 : 0);
    }

    /* axis-0 channel rows m of both channels into v: zero outside the channels' ranges */
    auto load = [&](float(&v)[VPOS][2], long m) {
#pragma unroll
        for (int c = 0; c < 2; c++) {
            const float *base = nullptr;
            float w = 0; /* the extension's weight outside the array along axis 0 */
            if (m >= a0.lo[c] && m < a0.lo[c] + a0.len[c]) {
                const long z = vol_sample(a0, c, m, sz);
                if (z >= 0 && z < a0.n) {
                    base = A.in + (size_t)z * A.in_plane;
                } else {
                    lwt_ext_terms tz;
                    lwt_extend(a0.mode, a0.n, z, &tz);
                    if (tz.n) {
                        base = A.in + (size_t)tz.idx[0] * A.in_plane;
                        w = (float)tz.w[0];
                    }
                }
            }
#pragma unroll
            for (int q = 0; q < VPOS; q++) {
                const float x = base && off[q] >= 0 ? base[off[q] >> 2] : 0.0f;
                v[q][c] = w == 0 ? x : 0.0f + w * x; /* the column kernel's extended sum */
            }
        }
    };

    float win[VPOS][2][P.WM];
#pragma unroll
    for (int q = 0; q < VPOS; q++)
#pragma unroll
        for (int s = 0; s < P.WM; s++)
            win[q][0][s] = win[q][1][s] = 0;
    const long e0 = G.out_hi[0] - 1 + P.D[0], e1 = G.out_hi[1] - 1 + P.D[1];
    const long NI = (e0 > e1 ? e0 : e1) - G.m_start + 1;
    float vn[VPOS][2];
    load(vn, G.m_start);
    for (long i = 0; i < NI; i++) {
        const long m = G.m_start + i;
        float v[VPOS][2];
#pragma unroll
        for (int q = 0; q < VPOS; q++)
            v[q][0] = vn[q][0], v[q][1] = vn[q][1];
        if (i + 1 < NI)
            load(vn, m + 1); /* in flight while this row is lifted */
        /* axis-0 channel c's row m - D[c] is final: coefficient k0[c] of its bands */
        bool live[2];
        long k0[2];
#pragma unroll
        for (int c = 0; c < 2; c++) {
            const long rr = m - P.D[c];
            k0[c] = rr - sh[c] + sz;
            live[c] = rr >= G.out_lo[c] && rr < G.out_hi[c] && k0[c] < a0.nc;
        }
        /* Two buffers: a warp still lifting rows of this iteration's tiles is done with them
           before any warp passes the next iteration's first barrier. Iterations without
           output (the warm-up, the end) write nothing and skip the barriers. */
        float *buf = vsm + (i & 1) * 2 * VTILE;
#pragma unroll
        for (int q = 0; q < VPOS; q++) {
            if (sidx[q] < 0)
                continue;
            vpush<ID, false>(win[q], v[q][0], v[q][1], A.taps);
#pragma unroll
            for (int c = 0; c < 2; c++)
                if (live[c]) {
                    /* scaled, and extended along axes 1 and 2, as the level by planes stores the
                       pass's output and its 2-D kernel loads it: the same bits */
                    const float z = A.k0[c] * win[q][c][P.D[c]];
                    buf[c * VTILE + sidx[q]] = off[q] & 2 ? 0.0f + (off[q] & 1 ? -z : z) : z;
                }
        }
        if (!live[0] && !live[1])
            continue;
        const int ntl = (live[0] ? 1 : 0) + (live[1] ? 1 : 0), tl0 = live[0] ? 0 : 1;
        __syncthreads();
        /* axis 1: every step on the rows of its range, all columns of the live tiles */
#pragma unroll
        for (int k = 0; k < S.n; k++) {
            const int t = S.t[k], u = 1 - t;
            const int rows = a1.step_len[k];
            const int rt = (int)(a1.step_lo[k] - a1.lo[t]), ru = (int)(a1.step_lo[k] + S.off[k] - a1.lo[u]);
            /* a warp a row, lanes over its VROW columns in chunks of 32 (positions past a
               channel's data hold values no output reads) */
            for (int rw = warp; rw < ntl * rows; rw += VT / 32) {
                const int tl = rw >= rows ? 1 : tl0, r = rw >= rows ? rw - rows : rw;
                float *tile = buf + tl * VTILE;
                float *y = tile + (t * VCH + rt + r) * VROW + lane;
                const float *x = tile + (u * VCH + ru + r) * VROW + lane;
#pragma unroll
                for (int j = 0; j < VROW; j += 32)
                    y[j] = lift_step<false>(y[j], A.taps + P.first[k], S.nt[k], x + j, VROW);
            }
            __syncthreads();
        }
        /* axis 2 on the rows that are outputs, a warp a row in registers (the 2-D kernels'
           lifting along a ring row, cuda_regs_rows.cuh), then its two bands out */
        const int sh1 = G.t1_shift, T1 = 1 << sh1;
        const long base2 = rs_base(a2);
        for (int task = warp; task < ntl << (sh1 + 1); task += VT / 32) {
            const int tl = task >> (sh1 + 1) ? 1 : tl0, c1 = task >> sh1 & 1, kk = task & (T1 - 1);
            const long k1 = sy + kk;
            if (k1 >= a1.nc)
                continue;
            const long r1 = (c1 == a ? A.sa : A.sd) + kk - a1.lo[c1];
            float *row = buf + tl * VTILE + (c1 * VCH + (int)r1) * VROW;
            hlift<ID, false, 1, VNP>(row + rs_phys_np(VNP, lane * VNP), A.taps, lane);
            const long k2 = sx + lane;
            if (k2 < a2.nc)
#pragma unroll
                for (int c2 = 0; c2 < 2; c2++) {
                    const int b = (tl != a ? 1 : 0) | (c1 != a ? 2 : 0) | (c2 != a ? 4 : 0);
                    const float val = row[c2 * VCW + rs_phys_np(VNP, (int)((c2 == a ? A.sa : A.sd) + lane - base2))];
                    vout[b][(size_t)(tl ? k0[1] : k0[0]) * vplane[b] + (size_t)k1 * vrow[b] + (size_t)k2] = vk[b] * val;
                }
        }
    }
}

using vol_kern_t = void (*)(const lwt_vol_geom, const vol_args);

template <int... ID> vol_kern_t vol_kernel(int id, std::integer_sequence<int, ID...>)
{
    const vol_kern_t tab[] = {(vol_built(ID) ? vol_forward<vol_built(ID) ? ID : 0> : nullptr)...};
    return id >= 0 && id < kNumShapes ? tab[id] : nullptr;
}

} // namespace

lwt_vol_geom *lwt_cuda_vol_plan(const lwt_scheme *s, lwt_mode mode, int F, const size_t n[3], size_t in_row, int sms)
{
    const int shape = lwt_cuda_slide_regs_shape(s);
    if (shape < 0 || !vol_kernel(shape, std::make_integer_sequence<int, kNumShapes>{}))
        return NULL;
    if (mode == LWT_MODE_SMOOTH || mode == LWT_MODE_ANTIREFLECT)
        return NULL;
    if (n[1] == 0 || (n[1] - 1) * in_row + n[2] > (size_t)INT_MAX / 4)
        return NULL; /* 32-bit offsets in a plane, with two flags */
    lwt_vol_geom *g = (lwt_vol_geom *)calloc(1, sizeof *g);
    lwt_line_prog *p = (lwt_line_prog *)malloc(sizeof *p);
    if (!g || !p) {
        free(g);
        free(p);
        return NULL;
    }
    g->shape = shape;
    lwt_slide_fill_axis(&g->ax[2], p, s, mode, F, 0, (long)n[2], 0, VT2);
    lwt_slide_geom *strip = (lwt_slide_geom *)calloc(1, sizeof *strip);
    if (!strip) {
        free(g);
        free(p);
        return NULL;
    }
    strip->ax[1] = g->ax[2];
    g->nx = lwt_slide_strip(strip, 0, &g->xlo);
    free(strip);
    const long NX = g->nx;
    bool fits = false;
    for (int T1 = 16; T1 >= 8 && !fits; T1 /= 2) {
        lwt_slide_fill_axis(&g->ax[1], p, s, mode, F, 0, (long)n[1], 0, T1);
        fits = true;
        /* both channels of a tile row within a warp's 32 VNP slots (hlift) */
        const lwt_slide_axis &a2 = g->ax[2];
        const long b2 = rs_base(a2), e0 = a2.lo[0] + a2.len[0], e1 = a2.lo[1] + a2.len[1];
        fits = (e0 > e1 ? e0 : e1) - b2 <= 32L * VNP;
        for (int c = 0; c < 2; c++)
            fits = fits && g->ax[1].len[c] <= VCH;
        g->t1_shift = T1 == 16 ? 4 : 3;
        fits = fits && (g->ax[1].len[0] + g->ax[1].len[1]) * NX <= (long)VT * VPOS;
        /* the rows and columns every step and output reads lie inside the regions */
        for (int k = 0; fits && k < s->nsteps; k++)
            for (int ax = 1; ax <= 2; ax++) {
                const lwt_slide_axis &A = g->ax[ax];
                const int t = s->steps[k].target, u = 1 - t;
                fits = fits && A.step_lo[k] >= A.lo[t] && A.step_lo[k] + A.step_len[k] <= A.lo[t] + A.len[t] &&
                       A.step_lo[k] + s->steps[k].off >= A.lo[u] &&
                       A.step_lo[k] + A.step_len[k] + s->steps[k].off + s->steps[k].ntaps - 1 <= A.lo[u] + A.len[u];
            }
        for (int c = 0; fits && c < 2; c++) {
            const long shc = c == s->ach ? s->sa : s->sd;
            fits = shc >= g->ax[1].lo[c] && shc + g->ax[1].T <= g->ax[1].lo[c] + g->ax[1].len[c] &&
                   shc >= g->ax[2].lo[c] && shc + VT2 <= g->ax[2].lo[c] + g->ax[2].len[c];
        }
    }
    if (!fits) {
        free(g);
        free(p);
        return NULL;
    }
    g->tiles[1] = ((long)g->ax[1].nc + g->ax[1].T - 1) / g->ax[1].T;
    g->tiles[2] = ((long)g->ax[2].nc + VT2 - 1) / VT2;
    /* axis 0 in segments: the whole axis per block where the tiles make two waves of blocks
       (one block per SM), shorter segments (down to 32 rows) where they do not */
    lwt_slide_fill_axis(&g->ax[0], p, s, mode, F, 0, (long)n[0], 0, 1);
    const long nc0 = g->ax[0].nc, tiles12 = g->tiles[1] * g->tiles[2];
    long T0 = nc0;
    while (T0 > 32 && tiles12 * ((nc0 + T0 - 1) / T0) < 2L * sms)
        T0 = (T0 + 1) / 2;
    lwt_slide_fill_axis(&g->ax[0], p, s, mode, F, 0, (long)n[0], 0, (int)T0);
    free(p);
    g->tiles[0] = (nc0 + T0 - 1) / T0;
    if (g->tiles[0] > 65535 || tiles12 > INT_MAX) {
        free(g);
        return NULL;
    }
    g->m_start = g->ax[0].lo[0] < g->ax[0].lo[1] ? g->ax[0].lo[0] : g->ax[0].lo[1];
    for (int c = 0; c < 2; c++) {
        const long shc = c == s->ach ? s->sa : s->sd;
        g->out_lo[c] = shc;
        g->out_hi[c] = shc + T0;
    }
    return g;
}

cudaError_t lwt_cuda_vol_forward(const lwt_vol_geom *g, const lwt_scheme *s, const float *in, size_t in_row,
                                 size_t in_plane, float *const out[8], const size_t out_row[8],
                                 const size_t out_plane[8], cudaStream_t stream)
{
    const vol_kern_t k = vol_kernel(g->shape, std::make_integer_sequence<int, kNumShapes>{});
    if (!k)
        return cudaErrorInvalidValue;
    vol_args A = {};
    for (int i = 0; i < s->ntaps_total && i < LWT_RS_MAX_TAPS; i++)
        A.taps[i] = (float)s->taps[i];
    const float ka = (float)s->ka, kd = (float)s->kd;
    A.k0[s->ach] = ka;
    A.k0[1 - s->ach] = kd;
    for (int b = 0; b < 8; b++) {
        /* the planes' kernel's float product of the vertical and horizontal scales */
        A.k[b] = ((b & 2) ? kd : ka) * ((b & 4) ? kd : ka);
        A.out[b] = out[b];
        A.out_row[b] = out_row[b];
        A.out_plane[b] = out_plane[b];
    }
    A.in = in;
    A.in_row = in_row;
    A.in_plane = in_plane;
    A.ach = s->ach;
    A.sa = s->sa;
    A.sd = s->sd;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)VSMEM);
    if (e)
        return e;
    k<<<dim3((unsigned)(g->tiles[1] * g->tiles[2]), (unsigned)g->tiles[0]), VT, VSMEM, stream>>>(*g, A);
    return cudaGetLastError();
}
