/*
 * Two forward 2-D levels in one pass (core/slide_pair.h): the register
 * kernel's level 1 (cuda_slide_regs.cu) with a second register window behind
 * it. Per batch of R rows of each level-1 vertical channel (the stages of four
 * consecutive batches run between the same two barriers: see the main loop):
 *
 *   1. level 1's vertical steps in registers (a thread per sample column of
 *      the level-1 strip), finished rows to ring rows in shared memory;
 *   2. level 1's steps along the rows (a warp per ring row); the detail bands
 *      under the block's level-2 strip and rows are written, the
 *      approximation rows stay in shared memory;
 *   3. level 2's vertical steps on those R approximation rows (R / 2 of each
 *      level-2 channel, a thread per level-1 approximation column of the
 *      level-2 strip), into level 2's ring rows;
 *   4. level 2's steps along the rows, its four bands written.
 *
 * The level-1 approximation never goes to global memory: a two-level
 * transform reads the input once and writes every band once, against a
 * second read and write of a quarter of the data for one level per pass.
 * The cost is the halo: a level-1 strip computes the columns of its level-2
 * strip's halo, which its neighbours compute too.
 *
 * Each value is computed with the same operations in the same order as by
 * two one-level passes (the level-1 approximation rounded to the element type
 * and scaled as the one-level kernel stores it), so the results are the same
 * bits. Periodization only: loads wrap rows and columns into the array.
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <utility>

extern "C" {
#include "core/extend.h"
#include "core/slide_pair.h"
#include "core/slide_runs.h"
}
#include "cuda/cuda_regs_pipe.cuh"
#include "cuda/cuda_regs_rows.cuh"
#include "cuda/cuda_slide_pair.cuh"
#include "cuda/cuda_slide_regs.cuh"
#include "cuda/cuda_store16.cuh"

namespace {

constexpr int NP1 = RS_THREADS / 64;  /* level 1: a ring row is the strip's RS_THREADS samples */
constexpr int NP2 = RS_THREADS / 128; /* level 2: half as many */

/* level-1 rows of each vertical channel per batch (level 2 gets half as many of
   each of its channels): the one-level kernel's choice (rs_rows) */
constexpr int rp_rows(int id, int es) { return es == 4 && kShapes[id].n <= 8 ? 8 : 4; }
/* The shapes and types that run levels in pairs, as measured on an H200 (docs/PERFORMANCE.md,
 * version 16; 16384^2, periodization, 4 levels, forward, against one level per pass):
 * float32 Haar 0.794 -> 0.756 ms, D4 1.010 -> 0.921, CDF 5/3 0.987 -> 0.938; float32 CDF 9/7
 * 0.961 -> 0.952 (the pair executes 58% more instructions than level 1 alone for 25% more
 * work, ncu), but 8192^2 0.303 -> 0.285, 4096^2 0.127 -> 0.113, 2048^2 0.075 -> 0.060
 * (one kernel's latency fewer per pair); D8 0.989 -> 1.086, D20 1.46 -> 6.8 (not analysed; ptxas shows 122
 * registers and a 330-byte stack frame); float64, at two blocks per SM, 1.7x (D4) to 5x
 * (CDF 9/7) slower. Only these kernels are built. */
constexpr bool rp_enabled(int id, int es) { return es == 4 && (id == 0 || id == 1 || id == 2 || id == 6); }
static_assert(kShapes[0].n == 2 && kShapes[1].n == 3 && kShapes[2].n == 2 && kShapes[2].nt[0] == 2 &&
                  kShapes[6].n == 4 && kShapes[6].nt[3] == 2,
              "rp_enabled names Haar, D4, CDF 5/3 and float32 CDF 9/7 by their places in kShapes");
/* three blocks per SM: 70-80 registers, no spills (ptxas); at two, CDF 9/7 ran 8% slower */
constexpr int RP_MIN_BLOCKS = 3;

template <typename REAL> struct rp_args {
    REAL taps[LWT_RS_MAX_TAPS];
    REAL k[4]; /* {ka, kd, ka, kd} */
    const void *in;  /* REAL, or 16 bits (cuda_store16.cuh) */
    size_t in_stride;
    void *out1[4], *out2[4];
    size_t out1_stride[4], out2_stride[4];
    int ach;
    long sa, sd;
    long c_lo;    /* slide_pair.h */
    int u0;
    int wb;       /* level-1 batches before level 2's first */
    long p_first; /* first level-1 row pushed, from the first level-1 approximation row level 2 reads */
    lwt_slide_runs runs; /* over level 2's tiles [runs.t0, runs.t0 + runs.ntr) */
    int regions;         /* the runs' order (lwt_slide_runs_plan) */
    int bf16;            /* 16-bit storage: bfloat16, else float16 */
    /* a batch of arrays, one per blockIdx.y (the BATCH kernels): array z's input at in +
       z in_bstride, its bands at out1[b] + z out1_bstride[b] and out2[b] + z out2_bstride[b] */
    size_t in_bstride, out1_bstride[4], out2_bstride[4];
};

template <int ID, typename REAL, int ST, bool BATCH>
__global__ void __launch_bounds__(RS_THREADS, RP_MIN_BLOCKS)
    rp_forward(const __grid_constant__ lwt_slide_geom G1, const __grid_constant__ lwt_slide_geom G2,
               const __grid_constant__ rp_args<REAL> A)
{
    constexpr rs_pipe P = make_pipe(kShapes[ID], false);
    /* the lags as named constants, never P.D[runtime]: an index into P made the compiler keep P
       in local memory, and in the 16-bit kernels the windows w and w2 with it (ptxas: 72 more
       stack bytes; ncu: L2 86% busy with local traffic, the CDF 9/7 pair 1.06 -> 1.80 ms) */
    constexpr int D0 = P.D[0], D1 = P.D[1];
    constexpr int R = rp_rows(ID, sizeof(REAL)), R2 = R / 2;
    constexpr int RW1 = rs_ring_np(NP1), RW2 = rs_ring_np(NP2);
    constexpr int PAD1 = rs_pad_np(NP1), PAD2 = rs_pad_np(NP2);
    extern __shared__ unsigned char smem_raw[];
    REAL *const buf = reinterpret_cast<REAL *>(smem_raw); /* [3][R][2][RW1] + slack, then [2][R2][2][RW2] + slack */
    const lwt_slide_axis &ay1 = G1.ax[0], &ax1 = G1.ax[1], &ay2 = G2.ax[0], &ax2 = G2.ax[1];
    long strip, tr, nt;
    if (!lwt_slide_run(&A.runs, G2.tiles[1], blockIdx.x, &strip, &tr, &nt))
        return;
    const long sy2 = tr * ay2.T, sx2 = strip * ax2.T;
    const int ext2 = (int)(nt - 1) * ay2.T;
    const long C0 = 2 * sx2 + A.c_lo; /* the level-1 strip's first coefficient column */
    long xlo1, xlo2;
    const int NX1 = lwt_slide_strip(&G1, C0, &xlo1), NX2 = lwt_slide_strip(&G2, sx2, &xlo2);
    const int a = A.ach;
    const int j = threadIdx.x, lane = j & 31, warp = j >> 5, nwarp = blockDim.x >> 5;

    /* level 1: this thread's sample column (wrapped into the array: threads without a
       column load the strip's first and drop it) and its place in a ring row */
    const int rc = rs_strip_col(NP1, rs_cw_np(NP1), ax1, C0, xlo1, NX1, j);
    const bool has_col = rc >= 0;
    const size_t xw = (size_t)lwt_mod(xlo1 + (has_col ? j : 0) + ax1.delta, ax1.n);
    /* level 2: its column of the level-1 approximation in a level-1 ring row, and
       its place in a level-2 ring row */
    const int rc2 = rs_strip_col(NP2, rs_cw_np(NP2), ax2, sx2, xlo2, NX2, j);
    const bool has_col2 = rc2 >= 0;
    const int pll = has_col2 ? rs_pos_np(NP1, ax1, a, (int)(A.sa - ax1.lo[a]) + A.u0 + j) : 0;

    /* rows: level 2 reads level-1 approximation rows from Z on, which level-1 batch
       wb + i makes (row r of batch i is approximation row Z + i R + r) */
    const long Z = 2 * (G2.m_start + sy2) + ay2.delta, P0 = Z + A.p_first;
    long NI = A.wb + (rs_iters(G2, P.D, ext2) + R2 - 1) / R2;
    const long own_lo = 2 * sy2, own_hi = min(2 * (sy2 + (long)ay2.T * nt), ay1.nc); /* level-1 rows written */
#pragma unroll
    for (int c = 0; c < 2; c++) { /* and every owned detail row finished */
        const long last = own_hi - 1 + (c == a ? A.sa : A.sd) + (c ? D1 : D0);
        NI = max(NI, lwt_floor_div(last - P0, R) + 1);
    }

    constexpr bool fold_scale = sizeof(REAL) == 4; /* as rs_forward */
    const REAL kv[2] = {A.k[a == 0 ? 0 : 1], A.k[a == 1 ? 0 : 1]};
    const REAL kll = (fold_scale ? A.k[0] : (REAL)1) * A.k[2]; /* the approximation's band scale */
    using XT = rs_sig_t<REAL, ST>; /* the input's storage */
    using DT = rs_det_t<REAL, ST>; /* the detail bands' */
    const XT *src = (const XT *)A.in + (BATCH ? blockIdx.y * A.in_bstride : 0);
    const size_t stride = A.in_stride;
    /* where array blockIdx.y's band b starts (BATCH; as rs_forward, the offsets only in the
       kernels for batches) */
    auto out1_at = [&](int b) { return (DT *)A.out1[b] + (BATCH ? blockIdx.y * A.out1_bstride[b] : 0); };
    auto out2_at = [&](int b) { return (size_t)(BATCH ? blockIdx.y * A.out2_bstride[b] : 0); };
    auto load = [&](REAL(&v)[R][2], long m0) {
        const long y0 = 2 * m0 + ay1.delta;
        if (y0 >= 0 && y0 + 2 * R <= ay1.n) {
            const XT *p = src + (size_t)y0 * stride + xw;
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int c = 0; c < 2; c++)
                    v[r][c] = rs_widen<REAL>(p[(size_t)(2 * r + c) * stride], A.bf16);
            return;
        }
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int c = 0; c < 2; c++)
                v[r][c] = rs_widen<REAL>(src[(size_t)lwt_mod(y0 + 2 * r + c, ay1.n) * stride + xw], A.bf16);
    };

    REAL w[2][P.WM], w2[2][P.WM];
#pragma unroll
    for (int s = 0; s < P.WM; s++)
        w[0][s] = w[1][s] = w2[0][s] = w2[1][s] = 0;
    /* One barrier per interval: interval t runs level 1's vertical steps of batch t,
       its row steps of batch t - 1, level 2's vertical steps of batch t - 2 and its
       row steps of batch t - 3, each on rows the interval before finished. Level-1
       ring rows live three intervals (three buffers), level 2's two. With a barrier
       between the stages instead (three per batch, two buffers), the pair ran 13%
       slower than two one-level passes (CDF 9/7, 2 levels, 16384^2, H200). */
    REAL *const ring2 = buf + 3 * R * 2 * RW1 + 2 * rs_cw_np(NP1);
    int b0 = 0, b1 = 2, b2 = 1; /* the level-1 buffers of batches t, t - 1, t - 2 */
    for (long t = 0; t < NI + 3; t++) {
        REAL v[R][2];
        if (t < NI)
            load(v, P0 + t * R);
        /* level 2, vertical, batch t - 2: its approximation rows are level-1 rows of that batch */
        if (has_col2 && t - 2 >= A.wb && t - 2 < NI) {
            const REAL *const bb = buf + (size_t)b2 * R * 2 * RW1;
            REAL *const rr2 = ring2 + (size_t)(t & 1) * R2 * 2 * RW2;
#pragma unroll
            for (int r = 0; r < R2; r++) {
                const REAL v0 = (REAL)(kll * bb[(2 * (2 * r) + a) * RW1 + pll]);
                const REAL v1 = (REAL)(kll * bb[(2 * (2 * r + 1) + a) * RW1 + pll]);
                vpush<ID, false>(w2, v0, v1, A.taps);
                if constexpr (fold_scale) {
                    rr2[(2 * r) * RW2 + rc2] = w2[0][D0];
                    rr2[(2 * r + 1) * RW2 + rc2] = w2[1][D1];
                } else {
                    rr2[(2 * r) * RW2 + rc2] = kv[0] * w2[0][D0];
                    rr2[(2 * r + 1) * RW2 + rc2] = kv[1] * w2[1][D1];
                }
            }
        }
        /* level 1, vertical, batch t */
        if (t < NI) {
            REAL *const bb = buf + (size_t)b0 * R * 2 * RW1;
#pragma unroll
            for (int r = 0; r < R; r++) {
                vpush<ID, false>(w, v[r][0], v[r][1], A.taps);
                if (has_col) {
                    if constexpr (fold_scale) {
                        bb[(2 * r) * RW1 + rc] = w[0][D0];
                        bb[(2 * r + 1) * RW1 + rc] = w[1][D1];
                    } else {
                        bb[(2 * r) * RW1 + rc] = kv[0] * w[0][D0];
                        bb[(2 * r + 1) * RW1 + rc] = kv[1] * w[1][D1];
                    }
                }
            }
        }
        const int hc = warp & 1, vb = hc == a ? 0 : 1;
        const REAL kvh = fold_scale ? A.k[hc == a ? 0 : 1] : (REAL)1;
        const REAL ka = kvh * A.k[2], kd = kvh * A.k[3];
        /* level 1 along the rows, batch t - 1: the owned detail rows written, the
           approximation rows kept for level 2 (all of them from batch wb on) */
        if (t >= 1 && t - 1 < NI) {
            const long i = t - 1;
            const long sh = hc == a ? A.sa : A.sd;
            /* level 1's bands here are all details (its approximation stays in shared memory) */
            DT *const ob_a = vb ? out1_at(vb) + 2 * sx2 : nullptr, *const ob_d = out1_at(vb | 2) + 2 * sx2;
            const size_t os_a = A.out1_stride[vb], os_d = A.out1_stride[vb | 2];
            const int pa = rs_pos_np(NP1, ax1, a, (int)(A.sa - ax1.lo[a] - A.c_lo) + lane);
            const int pd = rs_pos_np(NP1, ax1, 1 - a, (int)(A.sd - ax1.lo[1 - a] - A.c_lo) + lane);
            const long ncols = min(2L * ax2.T, ax1.nc - 2 * sx2);
            REAL *const bb = buf + (size_t)b1 * R * 2 * RW1;
            for (int r = warp >> 1; r < R; r += nwarp >> 1) {
                const long kb = P0 + i * R + r - (hc ? D1 : D0) - sh; /* band row */
                const bool own = kb >= own_lo && kb < own_hi;
                if (!own && !(hc == a && i >= A.wb))
                    continue;
                REAL *const row = bb + (2 * r + hc) * RW1;
                hlift<ID, false, 1, NP1>(row + rs_phys_np(NP1, lane * NP1), A.taps, lane);
                if (!own)
                    continue;
                DT *const oa = vb ? ob_a + (size_t)kb * os_a : nullptr, *const od = ob_d + (size_t)kb * os_d;
#pragma unroll
                for (int q = 0; q < NP1; q++) {
                    const REAL va = row[pa + (32 + PAD1) * q], vd = row[pd + (32 + PAD1) * q];
                    if (lane + 32 * q < ncols) {
                        if (vb)
                            oa[lane + 32 * q] = rs_narrow<DT>(ka * va, A.bf16);
                        od[lane + 32 * q] = rs_narrow<DT>(kd * vd, A.bf16);
                    }
                }
            }
        }
        /* level 2 along the rows, batch t - 3, its bands written (rs_forward's step 3) */
        if (t - 3 >= A.wb && t - 3 < NI) {
            const long i2 = t - 3 - A.wb;
            const long hsh = (hc == a ? A.sa : A.sd) - sy2;
            /* band vb | 2 holds details; band vb too unless it is the approximation (vb 0) */
            using band = rs_band<REAL, DT>;
            const band ob_a = band(A.out2[vb], vb != 0).at(out2_at(vb) + sx2),
                       ob_d = band(A.out2[vb | 2], true).at(out2_at(vb | 2) + sx2);
            const size_t os_a = A.out2_stride[vb], os_d = A.out2_stride[vb | 2];
            const int pa = rs_pos_np(NP2, ax2, a, (int)(A.sa - ax2.lo[a]) + lane);
            const int pd = rs_pos_np(NP2, ax2, 1 - a, (int)(A.sd - ax2.lo[1 - a]) + lane);
            const long ncols = min((long)ax2.T, ax2.nc - sx2);
            REAL *const rr2 = ring2 + (size_t)((t - 1) & 1) * R2 * 2 * RW2; /* written in interval t - 1 */
            for (int r = warp >> 1; r < R2; r += nwarp >> 1) {
                const long rr = G2.m_start + i2 * R2 + r - (hc ? D1 : D0);
                if (rr < G2.out_lo[hc] || rr >= G2.out_hi[hc] + ext2 || rr - hsh >= ay2.nc)
                    continue;
                REAL *const row = rr2 + (2 * r + hc) * RW2;
                hlift<ID, false, 1, NP2>(row + rs_phys_np(NP2, lane * NP2), A.taps, lane);
                const band od = ob_d.at((size_t)(rr - hsh) * os_d);
                ob_a.at((size_t)(rr - hsh) * os_a).visit([&](auto *oa) {
#pragma unroll
                    for (int q = 0; q < NP2; q++) {
                        const REAL va = row[pa + (32 + PAD2) * q], vd = row[pd + (32 + PAD2) * q];
                        if (lane + 32 * q < ncols) {
                            oa[lane + 32 * q] = rs_narrow<rs_elem_t<decltype(oa)>>(ka * va, A.bf16);
                            od.put(lane + 32 * q, kd * vd, A.bf16);
                        }
                    }
                });
            }
        }
        __syncthreads();
        const int bt = b2; /* rotate: batch t + 1 takes the buffer batch t - 2 leaves */
        b2 = b1;
        b1 = b0;
        b0 = bt;
    }
}

/* shared memory of the pair kernel: three buffers of level-1 ring rows and rs_forward's
   slack, then two of level 2's and theirs */
constexpr size_t rp_smem(int R, size_t es)
{
    return ((size_t)3 * R * 2 * rs_ring_np(NP1) + 2 * rs_cw_np(NP1) + (size_t)2 * (R / 2) * 2 * rs_ring_np(NP2) +
            2 * rs_cw_np(NP2)) *
           es;
}

template <typename REAL, int ST, int ID>
cudaError_t launch_enabled(const lwt_slide_pair &pp, rp_args<REAL> A, size_t nbatch, cudaStream_t stream)
{
    constexpr rs_pipe P = make_pipe(kShapes[ID], false);
    constexpr int R = rp_rows(ID, sizeof(REAL));
    const lwt_slide_geom &g1 = pp.g1, &g2 = pp.g2;
    /* level-1 warm-up: the first push must come no later than g1.m_start rows before the
       first band row needed (the approximation from Z, the details from 2 sy2; Z - 2 sy2
       is `lead` for every block), and batch wb's first row must finish row Z */
    const long lead = 2 * g2.m_start + g2.ax[0].delta;
    const long need = A.sa + P.D[A.ach] - g1.m_start + (lead > 0 ? lead : 0);
    A.wb = need > 0 ? (int)((need + R - 1) / R) : 0;
    A.p_first = A.sa + P.D[A.ach] - (long)A.wb * R;
    /* a 16-bit plan's batch: one launch (the offsets below are in float32 elements) */
    if (ST != RS_PLAIN && nbatch > 65535)
        return cudaErrorInvalidValue;
    auto k = nbatch > 1 ? rp_forward<ID, REAL, ST, true> : rp_forward<ID, REAL, ST, false>;
    const size_t smem = rp_smem(R, sizeof(REAL));
    cudaError_t e = cudaSuccess;
    if (smem > 48 * 1024 && (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)))
        return e;
    int dev = 0, sms = 0, per_sm = 0;
    if ((e = cudaGetDevice(&dev)) || (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, RS_THREADS, smem)))
        return e;
    /* a batch: full runs only (rs_forward's launch_kernel says why) */
    const long blocks = lwt_slide_runs_plan(&A.runs, A.runs.t0, A.runs.ntr, g2.tiles[1],
                                            nbatch > 1 ? 0 : (long)sms * (per_sm > 0 ? per_sm : 1), A.regions);
    if (blocks <= 0)
        return cudaSuccess;
    const size_t most = 65535; /* arrays per launch (gridDim.y) */
    for (size_t z0 = 0; z0 < nbatch; z0 += most) {
        rp_args<REAL> Az = A; /* z0 > 0 only in batches, whose arrays are all REAL */
        Az.in = (const REAL *)A.in + z0 * A.in_bstride;
        for (int b = 0; b < 4; b++) {
            Az.out1[b] = A.out1[b] ? (REAL *)A.out1[b] + z0 * A.out1_bstride[b] : NULL;
            Az.out2[b] = A.out2[b] ? (REAL *)A.out2[b] + z0 * A.out2_bstride[b] : NULL;
        }
        const unsigned nz = (unsigned)(nbatch - z0 < most ? nbatch - z0 : most);
        k<<<dim3((unsigned)blocks, nz), RS_THREADS, smem, stream>>>(g1, g2, Az);
        if ((e = cudaGetLastError()))
            return e;
    }
    return cudaSuccess;
}

template <typename REAL, int ST, int ID>
cudaError_t launch_id(const lwt_slide_pair &pp, rp_args<REAL> A, size_t nbatch, cudaStream_t stream)
{
    if constexpr (!rp_enabled(ID, sizeof(REAL)))
        return cudaErrorInvalidValue;
    else
        return launch_enabled<REAL, ST, ID>(pp, A, nbatch, stream);
}

template <typename REAL, int ST, int... ID>
cudaError_t launch(int id, const lwt_slide_pair &pp, const rp_args<REAL> &A, size_t nbatch, cudaStream_t stream,
                   std::integer_sequence<int, ID...>)
{
    using fn = cudaError_t (*)(const lwt_slide_pair &, rp_args<REAL>, size_t, cudaStream_t);
    const fn tab[] = {launch_id<REAL, ST, ID>...};
    return tab[id](pp, A, nbatch, stream);
}

/* storage ST (cuda_store16.cuh; bf16: its 16-bit type); nbatch arrays, bstrides as rp_args';
   level 2's tile rows [t0, t1) in the runs' order of `regions` */
template <typename REAL, int ST>
cudaError_t launch_pair(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, int bf16, const void *in,
                        size_t in_stride, void *const out1[4], const size_t out1_stride[4], void *const out2[4],
                        const size_t out2_stride[4], size_t nbatch, size_t in_bstride, const size_t out1_bstride[4],
                        const size_t out2_bstride[4], long t0, long t1, int regions, cudaStream_t stream)
{
    rp_args<REAL> A;
    A.runs.t0 = t0;
    A.runs.ntr = t1 - t0;
    A.regions = regions;
    for (int i = 0; i < LWT_RS_MAX_TAPS; i++)
        A.taps[i] = i < s->ntaps_total ? (REAL)s->taps[i] : (REAL)0;
    for (int bnd = 0; bnd < 4; bnd++) {
        A.k[bnd] = (REAL)lwt_slide_scale(s->ka, s->kd, 0, bnd);
        A.out1[bnd] = out1[bnd];
        A.out1_stride[bnd] = out1_stride[bnd];
        A.out2[bnd] = out2[bnd];
        A.out2_stride[bnd] = out2_stride[bnd];
        A.out1_bstride[bnd] = out1_bstride ? out1_bstride[bnd] : 0;
        A.out2_bstride[bnd] = out2_bstride ? out2_bstride[bnd] : 0;
    }
    A.in_bstride = in_bstride;
    A.in = in;
    A.in_stride = in_stride;
    A.bf16 = bf16;
    A.ach = s->ach;
    A.sa = s->sa;
    A.sd = s->sd;
    A.c_lo = pp->c_lo;
    A.u0 = pp->u0;
    return launch<REAL, ST>(shape, *pp, A, nbatch > 0 ? nbatch : 1, stream,
                            std::make_integer_sequence<int, kNumShapes>{});
}

} // namespace

lwt_slide_pair *lwt_cuda_slide_pair_plan(const lwt_scheme *s, lwt_mode mode, int F, long n0, long n1, size_t es)
{
    const int id = lwt_cuda_slide_regs_shape(s);
    if (id < 0 || !rp_enabled(id, (int)es))
        return NULL;
    lwt_slide_pair *pp = (lwt_slide_pair *)malloc(sizeof *pp);
    if (pp && lwt_slide_pair_plan(pp, s, mode, F, n0, n1, es, RS_THREADS, NP1, NP2))
        return pp;
    free(pp);
    return NULL;
}

cudaError_t lwt_cuda_slide_pair(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, lwt_dtype dtype,
                                const void *in, size_t in_stride, void *const out1[4], const size_t out1_stride[4],
                                void *const out2[4], const size_t out2_stride[4], size_t nbatch, size_t in_bstride,
                                const size_t out1_bstride[4], const size_t out2_bstride[4], cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes)
        return cudaErrorInvalidValue;
    if (dtype != LWT_F32)
        return cudaErrorInvalidValue; /* rp_enabled: float32 only */
    return launch_pair<float, RS_PLAIN>(shape, pp, s, 0, in, in_stride, out1, out1_stride, out2, out2_stride, nbatch,
                                        in_bstride, out1_bstride, out2_bstride, 0, pp->g2.tiles[0], 1, stream);
}

cudaError_t lwt_cuda_slide_pair_tiles(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, const void *in,
                                      size_t in_stride, void *const out1[4], const size_t out1_stride[4],
                                      void *const out2[4], const size_t out2_stride[4], long t0, long t1, int regions,
                                      cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes || t0 < 0 || t1 > pp->g2.tiles[0] || t0 > t1 || regions < 1)
        return cudaErrorInvalidValue;
    return launch_pair<float, RS_PLAIN>(shape, pp, s, 0, in, in_stride, out1, out1_stride, out2, out2_stride, 1, 0,
                                        NULL, NULL, t0, t1, regions, stream);
}

cudaError_t lwt_cuda_slide_pair_half(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, int bf16, int signal16,
                                     const void *in, size_t in_stride, void *const out1[4],
                                     const size_t out1_stride[4], void *const out2[4], const size_t out2_stride[4],
                                     size_t nbatch, size_t in_bstride, const size_t out1_bstride[4],
                                     const size_t out2_bstride[4], cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes)
        return cudaErrorInvalidValue;
    const long nt = pp->g2.tiles[0];
    return signal16 ? launch_pair<float, RS_XD16>(shape, pp, s, bf16, in, in_stride, out1, out1_stride, out2,
                                                  out2_stride, nbatch, in_bstride, out1_bstride, out2_bstride, 0, nt, 1,
                                                  stream)
                    : launch_pair<float, RS_D16>(shape, pp, s, bf16, in, in_stride, out1, out1_stride, out2,
                                                 out2_stride, nbatch, in_bstride, out1_bstride, out2_bstride, 0, nt, 1,
                                                 stream);
}
