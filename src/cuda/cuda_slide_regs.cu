/*
 * The sliding-window 2-D level with the vertical window in registers, for
 * lifting schemes whose shape (per step: target channel, offset, tap count)
 * is one of a compiled-in list. Same tiles, ranges and arithmetic as the
 * generic kernel (cuda_slide.cu, core/slide.h), so the results are the same
 * bits; what changes is where the work happens:
 *
 *   - a thread owns one sample column of the strip and slides down it, one
 *     row of each vertical channel per step, running every vertical lifting
 *     step on a register window at a fixed lag (the lags of core/slide.c for
 *     one row per iteration, computed here at compile time);
 *   - every R rows the finished rows go to shared memory, and each warp lifts
 *     whole rows along the row with only warp barriers between steps;
 *   - one block barrier per R rows (double-buffered rows), against one per
 *     lifting step per iteration in the generic kernel.
 *
 * The generic kernel, one instruction stream for every scheme, spends about
 * 11 warp instructions per sample on ring indexing, loop control and its
 * schedule table; here steps, offsets and taps are compile-time (the taps'
 * values are kernel parameters, read from the constant bank).
 * The inverse mirrors it: warps load coefficient rows and lift them along
 * the row, then each thread runs the vertical inverse down its output column.
 */
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <limits.h>
#include <string.h>
#include <type_traits>
#include <utility>

extern "C" {
#include "core/extend.h"
#include "core/slide.h"
#include "core/slide_runs.h"
}
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_regs_pipe.cuh"
#include "cuda/cuda_regs_rows.cuh"
#include "cuda/cuda_slide_regs.cuh"
#include "cuda/cuda_store16.cuh"

namespace {

/* rows of each vertical channel per block barrier: 8, or 4 for float64 and
   long schemes (whose windows leave fewer registers for the rows loaded ahead) */
constexpr int rs_rows(int id, int es) { return es == 4 && kShapes[id].n <= 8 ? 8 : 4; }
/* Registers against occupancy, measured on an H200 (docs/PERFORMANCE.md):
 * more resident blocks hide the barriers and load latency better than
 * registers do, so short float32 schemes issue each batch's loads at its
 * start and run 3-4 blocks per SM (forward: 3, no spills; inverse: 4);
 * float64 and long schemes, two blocks of up to 128 registers, issue the
 * next batch's loads before this batch's lifting. Loading ahead at two
 * blocks made the CDF 9/7 forward 2.3x slower than three blocks without; for
 * db10 it was 2.1x faster than two blocks without. The forwards of <= 3
 * steps ran 4 blocks (16-68 bytes of spills) until the blocks took runs of
 * tiles (the runs' extra rows took registers: 44-108 bytes); at 3 blocks the
 * D4 and CDF 5/3 forwards are 12-23% faster than either, Haar's within 1%
 * (version 14). */
constexpr bool rs_short(int id, int es) { return es == 4 && kShapes[id].n <= 8; }
constexpr int rs_min_blocks(int id, int es, bool inv)
{
    return !rs_short(id, es) ? (inv && es == 4 ? 3 : 2) : inv ? 4 : 3;
}
/* The forwards for batches of levels (3-D planes) carry the plane offsets: at 3 blocks per SM
   the D4, CDF 5/3 and D8 ones spill 48 bytes (ptxas), and at 2 the D4 and CDF 5/3 forwards of
   1024^3 run 6-8% faster (7.20 -> 6.62 ms); Haar and float32 CDF 9/7 (16-20 bytes) stay at 3,
   where they measured 1.5-2.4% faster than at 2 (H200, version 15) */
constexpr int rs_batch_min_blocks(int id, int es)
{
    return es == 4 && (id == 1 || id == 2 || id == 4) ? 2 : rs_min_blocks(id, es, false);
}

/* The generic kernel's slide_load2d for the modes the forward runs (one term of
   weight +-1, or none, per axis), given the column's term (ci < 0: none): the
   same sum, so the same bits. Before, every load of a strip at the array's
   edge ran slide_load2d (both axes' extension through local memory), which
   made those blocks the grid's slowest; with the column's term computed once,
   SMs went from 66% to 77% of the kernel's time active (ncu) and one level of
   CDF 9/7 at 16384^2 from 1.25 to 0.93 ms. */
template <typename REAL, typename WREAL, typename ROWS>
__device__ __forceinline__ WREAL edge_load(const REAL *src, size_t stride, const lwt_slide_axis &ay, long yy, long ci,
                                        WREAL cw, const ROWS &row_at, int bf16)
{
    lwt_ext_terms ty;
    lwt_extend(ay.mode, ay.n, yy, &ty);
    const long yb = ty.n ? row_at(ty.idx[0]) : -1;
    if (yb < 0 || ci < 0)
        return 0;
    return (WREAL)0 + (WREAL)ty.w[0] * ((WREAL)0 + cw * rs_widen<WREAL>(src[(size_t)yb * stride + (size_t)ci], bf16));
}

/* The buffer row of input row y: y itself, or (a streamed chunk, WIN) its
 * place in the chunk's window; -1 for rows the window does not hold, which
 * only outputs past the chunk's last row read (rows are loaded as zeros). */
template <bool WIN> __device__ __forceinline__ long rs_row(const lwt_window &w, long y)
{
    return WIN ? lwt_window_pos(&w, y) : y;
}

/* whether rows [y, y + n) are consecutive buffer rows (*yb the first) */
template <bool WIN> __device__ __forceinline__ bool rs_rows_run(const lwt_window &w, long y, long n, long *yb)
{
    if constexpr (!WIN) {
        *yb = y;
        return true;
    } else {
        for (int s = 0; s < w.nseg; s++)
            if (y >= w.lo[s] && y + n <= w.hi[s]) {
                *yb = w.pos[s] + (y - w.lo[s]);
                return true;
            }
        return false;
    }
}

/* A value between the vertical and the horizontal steps. The CPU backend stores
 * it in the element type between its two passes (float32 computes in double
 * and rounds each pass's output), so the kernel that matches it bit for bit
 * (REAL float, WREAL double: a streamed chunk's level) rounds it there too. */
template <typename REAL, typename WREAL> __device__ __forceinline__ WREAL rs_mid(WREAL v)
{
    return sizeof(REAL) < sizeof(WREAL) ? (WREAL)(REAL)v : v;
}

template <typename WREAL> struct rs_args {
    WREAL taps[LWT_RS_MAX_TAPS];
    WREAL k[4]; /* forward: {ka, kd, ka, kd}; inverse: 1 / band scale */
    const void *in[4];
    size_t in_stride[4];
    void *out[4];
    size_t out_stride[4];
    /* a batch of levels, one per blockIdx.y (the planes of a 3-D level): band b of
       slice z at in[b] + z in_bstride[b] and out[b] + z out_bstride[b] (elements) */
    size_t in_bstride[4], out_bstride[4];
    unsigned nbatch; /* slices in this launch (gridDim.y) */
    int ach;
    long sa, sd;
    /* forward: coefficient rows [row0, row_end) along axis 0, tile 0 starting at row0 and
       output row k written at row k - row0 of the bands (a whole level: 0 and nc0); win:
       where the input rows are (the WIN kernels) */
    long row0, row_end;
    lwt_window win;
    /* the blocks' runs of tiles over tile rows [t0, t0 + ntr) (a device's share of a
       level spread over several, stream/spread_job.cu; all of them otherwise) */
    lwt_slide_runs runs;
    int regions; /* the runs' order (lwt_slide_runs_plan): 1, or a spread's share */
    int bf16; /* 16-bit storage (RS_D16, RS_XD16): bfloat16, else float16 (last: the plain
                 kernels' parameters keep their places) */
};

/* elements of shared memory: two buffers of R rows of each vertical channel, and
   slack for the forward's band writes, which read a row's positions up to its
   region's end plus the lane offset of the band's first coefficient */
constexpr int rs_smem(bool inv, int R) { return 2 * R * 2 * rs_ring(inv) + 2 * rs_cw(inv); }
/* The inverse copies its rows of band coefficients into the ring rows asynchronously
   (cp.async) while the batch before lifts its columns (rs_inverse). ncu showed its warps
   waiting on these loads (L1TEX scoreboard) for half of their stall cycles when they
   were made at the batch's start. Measured on an H200 (docs/PERFORMANCE.md, version 13),
   4 levels at 16384^2: 3-14% faster for Haar, D4, CDF 5/3, D20 and float64 CDF 9/7; for
   float32 CDF 9/7 5-8% slower than loading them at the batch's start. Since version 14 the
   unstaged kernels wrap the band columns of edge strips with one add, and the staged ones
   keep the general loop (unrolled there it spilled), which turned the balance for float32:
   loading at the batch's start, 4 levels, periodization, 16384^2: D4 1.416 -> 1.113 ms,
   CDF 5/3 1.378 -> 1.085, D8 1.508 -> 1.180, D20 2.078 -> 1.778; 4096^2: D4 0.234 -> 0.145;
   symmetric 2-6% faster; Haar 0.909 -> 0.929 (version 16). So float32 stages Haar only,
   float64 every shape. The kernels for batches of planes (3-D) load at the batch's start
   (version 15: 1024^3, D4, CDF 5/3, D8, D20 inverses 25-28% faster, float64 CDF 9/7 14%). */
constexpr bool rs_inv_staged(int id, int es) { return es == 8 || id == 0; }
/* The forward's L2 prefetch of the next batch's rows. Measured on an H200 (docs/PERFORMANCE.md,
   version 14), 4 levels at 16384^2: Haar 6% faster, D4, CDF 5/3 and float32 CDF 9/7 6-8% slower
   (one level of CDF 9/7: 0.873 -> 0.953 ms); kept for Haar (shape 0) only. */
constexpr bool rs_prefetch(int id, int es) { return id == 0 && rs_short(id, es); }
static_assert(kShapes[0].n == 2 && kShapes[0].nt[0] == 1 && kShapes[0].nt[1] == 1, "rs_prefetch names Haar by its place");
/* The staged inverses whose edge rows go through rs_edge_row. Measured on an H200
   (docs/PERFORMANCE.md, version 14), 4 levels at 16384^2, inverse: float64 CDF 9/7
   (shape 3) 2.832 -> 2.612 ms (symmetric 2.541 -> 2.348); float64 D4 symmetric 1.751 ->
   1.825, float32 Haar 0.906 -> 0.931 and the rest within 2%: only float64 CDF 9/7. */
constexpr bool rs_edge_call(int id, int es) { return es == 8 && id == 3; }
static_assert(kShapes[3].n == 5 && kShapes[3].nt[4] == 6, "rs_edge_call names CDF 9/7 by its place in kShapes");
static_assert(kShapes[0].n == 2 && kShapes[0].nt[0] == 1, "rs_inv_staged names Haar by its place in kShapes");
static_assert(rs_cw(false) % 32 == 16 && rs_cw(true) % 32 == 16, "ring regions must start 16 banks apart");
static_assert((RS_THREADS / 32) % 2 == 0, "each warp lifts rows of one vertical channel");
static_assert(!rs_pad(false) || 32 % rs_slots(false) == 0, "a lane's slots must not straddle a pad");
static_assert(!rs_pad(true) || 32 % rs_slots(true) == 0, "a lane's slots must not straddle a pad");

/* The 16-bit inverses that read their band rows in 4-byte pairs (rs_row16). Measured on an H100
   (docs/PERFORMANCE.md, "fused levels"), 16384^2, 4 levels, inverse, float16 / bfloat16 against
   one value a lane: Haar 1.753 -> 1.451 / 1.704 -> 1.387 ms (symmetric 1.770 -> 1.451), D8
   2.089 -> 1.984 / 2.021 -> 1.911; but CDF 5/3 2.018 -> 2.141 / 1.955 -> 2.070 and CDF 9/7
   symmetric 1.930 -> 2.023 (ptxas: 16-44 bytes of spills in the 64-register short inverses);
   pairs shifted by one value for odd rows too: no better (CDF 9/7 symmetric 2.047). */
constexpr bool rs_inv_pairs(int id) { return id == 0 || id == 4; }
static_assert(kShapes[4].n == 5 && kShapes[4].nt[4] == 1, "rs_inv_pairs names D8 by its place in kShapes");

/* the inverse's band reads store lane + 32 q at ring position lane + 32 q */
static_assert(!rs_pad(true), "the inverse's ring rows are unpadded");

/* this block's run of tiles (core/slide_runs.h) as one tall tile: its first
   coefficient row and column, and the rows it adds to one tile; false: none */
template <typename ARGS>
__device__ __forceinline__ bool rs_block_run(const lwt_slide_geom &G, const ARGS &A, long row0, long *sy, long *sx,
                                             int *ext)
{
    long strip, tr, nt;
    if (!lwt_slide_run(&A.runs, G.tiles[1], blockIdx.x, &strip, &tr, &nt))
        return false;
    *sy = row0 + tr * G.ax[0].T;
    *sx = strip * G.ax[1].T;
    *ext = (int)(nt - 1) * G.ax[0].T; /* at most 15 more tiles of 16 rows */
    return true;
}

template <int ID, int GS, typename REAL, typename WREAL, bool WIN, bool BATCH, int ST = RS_PLAIN>
__global__ void __launch_bounds__(RS_THREADS, BATCH ? rs_batch_min_blocks(ID, sizeof(WREAL))
                                                    : rs_min_blocks(ID, sizeof(WREAL), false))
    rs_forward(const __grid_constant__ lwt_slide_geom G, const __grid_constant__ rs_args<WREAL> A)
{
    constexpr rs_pipe P = make_pipe(kShapes[ID], false);
    constexpr int R = rs_rows(ID, sizeof(WREAL));
    extern __shared__ unsigned char smem_raw[];
    WREAL *const buf = reinterpret_cast<WREAL *>(smem_raw); /* [2][R][2][RW] */
    const lwt_slide_axis &ay = G.ax[0], &ax = G.ax[1];
    long sy, sx;
    int ext;
    if (!rs_block_run(G, A, A.row0, &sy, &sx, &ext))
        return;
    long xlo;
    const int NX = lwt_slide_strip(&G, sx, &xlo);
    const bool x_inside = xlo + ax.delta >= 0 && xlo + NX + ax.delta <= ax.n;
    constexpr int RW = rs_ring(false), NP = rs_slots(false);
    const int a = A.ach;
    const int ncols = (int)(ax.nc - sx < ax.T ? ax.nc - sx : ax.T);
    /* a batch's slice offsets only in the kernels for batches (BATCH): held through
       the kernel, they made the short float32 forwards spill (ptxas: 8 -> 88 bytes),
       and the 2-D inverses 2-8% slower (H200) */
    using XT = rs_sig_t<REAL, ST>; /* the input's storage */
    const XT *src = (const XT *)A.in[0] + (BATCH ? blockIdx.y * A.in_bstride[0] : 0);
    const size_t stride = A.in_stride[0];

    /* this thread's sample column and its place in a ring row */
    const int j = threadIdx.x, lane = j & 31, warp = j >> 5, nwarp = blockDim.x >> 5;
    const int rc = rs_strip_col(NP, rs_cw(false), ax, sx, xlo, NX, j); /* -1: no column */
    const bool has_col = rc >= 0;
    /* threads without a column read the strip's first one in the batches
       that need no checks (inside the array) and drop it */
    const long xx = xlo + (has_col ? j : 0) + ax.delta;
    /* its column's extension for the loads outside the array, computed once:
       sample col_idx times col_w, or none (-1: the zero mode). Kept in registers:
       in shared memory it cost CDF 9/7 4% (measured, docs/PERFORMANCE.md) */
    long col_idx;
    WREAL col_w;
    {
        lwt_ext_terms tx;
        lwt_extend(ax.mode, ax.n, xx, &tx);
        col_idx = tx.n ? tx.idx[0] : -1;
        col_w = tx.n ? (WREAL)tx.w[0] : (WREAL)0;
    }

    /* vertical scale of channel c. Float32 leaves it out of the ring rows and applies
       it with the horizontal scale at the band write (the steps along the row are
       linear, so that is the same value to rounding, one multiply fewer per sample);
       float64 scales where the CPU backend does, for the same bits. */
    constexpr bool fold_scale = sizeof(WREAL) == 4;
    const WREAL kv[2] = {A.k[a == 0 ? 0 : 1], A.k[a == 1 ? 0 : 1]};
    const long NI = rs_iters(G, P.D, ext);

    WREAL w[2][P.WM];
#pragma unroll
    for (int s = 0; s < P.WM; s++)
        w[0][s] = w[1][s] = 0;
    auto row_at = [&](long y) { return rs_row<WIN>(A.win, y); };
    /* whether the rows of the batch from channel row m0 are all loaded and inside the
       array (*yb: the buffer row of its first sample row): then no checks per row */
    auto plain_rows = [&](long m0, long *yb) {
        const long y0 = 2 * (m0 + sy) + ay.delta;
        return m0 >= ay.lo[0] && m0 >= ay.lo[1] && m0 + R <= ay.lo[0] + ay.len[0] + ext &&
               m0 + R <= ay.lo[1] + ay.len[1] + ext && y0 >= 0 && y0 + 2 * R <= ay.n &&
               rs_rows_run<WIN>(A.win, y0, 2 * R, yb);
    };
    /* this thread's samples of rows m0 .. m0 + R - 1 of both channels */
    auto load = [&](WREAL(&v)[R][2], long m0) {
        long yb;
        if (plain_rows(m0, &yb)) {
            if (x_inside) { /* and the strip's columns: no checks at all */
                const XT *p = src + (size_t)yb * stride + (size_t)xx;
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int c = 0; c < 2; c++)
                        v[r][c] = rs_widen<WREAL>(p[(size_t)(2 * r + c) * stride], A.bf16);
                return;
            }
            /* A strip at the array's left or right edge: each thread loads its column
               or the column its extension reads, and makes the value edge_load makes.
               Through edge_load sample by sample, these strips ran several times slower
               than the others and ended the grid alone (version 14). */
            const bool x_in = xx >= 0 && xx < ax.n;
            const XT *p = src + (size_t)yb * stride + (size_t)(x_in ? xx : col_idx >= 0 ? col_idx : 0);
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    const WREAL x = rs_widen<WREAL>(p[(size_t)(2 * r + c) * stride], A.bf16);
                    v[r][c] = !has_col ? (WREAL)0 : x_in ? x : col_idx < 0 ? (WREAL)0 : (WREAL)0 + col_w * x;
                }
            return;
        }
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int c = 0; c < 2; c++) {
                const long m = m0 + r;
                v[r][c] = 0;
                if (!has_col || m < ay.lo[c] || m >= ay.lo[c] + ay.len[c] + ext)
                    continue;
                const long yy = 2 * (m + sy) + c + ay.delta;
                if (x_inside && yy >= 0 && yy < ay.n) {
                    const long yb = row_at(yy);
                    v[r][c] = yb < 0 ? (WREAL)0 : rs_widen<WREAL>(src[(size_t)yb * stride + (size_t)xx], A.bf16);
                    continue;
                }
                v[r][c] = edge_load(src, stride, ay, yy, col_idx, col_w, row_at, A.bf16);
            }
    };
    /* 1. the batch's loads: issued ahead (before the previous batch's
       lifting, so their latency overlaps it) or at its start. Staging them in
       shared memory instead, by cp.async or by bulk copies (TMA), measured no
       faster for CDF 9/7 and slower for D4 and CDF 5/3 (docs/PERFORMANCE.md,
       version 13): the stage takes shared memory from the L1 that holds the
       loads in flight. */
    constexpr bool ahead = !rs_short(ID, sizeof(WREAL));
    WREAL vn[R][2];
    if (ahead)
        load(vn, G.m_start);
    int b = 0;
    for (long i0 = 0; i0 < NI; i0 += R, b ^= 1) {
        WREAL v[R][2];
        if (ahead) {
#pragma unroll
            for (int r = 0; r < R; r++)
                v[r][0] = vn[r][0], v[r][1] = vn[r][1];
            if (i0 + R < NI)
                load(vn, G.m_start + i0 + R);
        } else {
            load(v, G.m_start + i0);
        }
        /* 2. vertical lifting in registers; finished rows, scaled, to the ring rows
           (rows the block does not emit land there too and are ignored) */
        WREAL *bb = buf + (size_t)b * R * 2 * RW;
#pragma unroll
        for (int r = 0; r < R; r++) {
            vpush<ID, false>(w, v[r][0], v[r][1], A.taps);
            if (has_col) { /* written out, not a loop over c: ptxas -v shows 28 bytes of spill in the
                              D4 and CDF 5/3 forwards this way, 40-52 with the loop */
                if constexpr (fold_scale) {
                    bb[(2 * r) * RW + rc] = w[0][P.D[0]];
                    bb[(2 * r + 1) * RW + rc] = w[1][P.D[1]];
                } else {
                    bb[(2 * r) * RW + rc] = rs_mid<REAL>(kv[0] * w[0][P.D[0]]);
                    bb[(2 * r + 1) * RW + rc] = rs_mid<REAL>(kv[1] * w[1][P.D[1]]);
                }
            }
        }
        __syncthreads();
        /* the next batch's rows start coming into L2 while this one's are lifted along
           the rows: one bulk prefetch per sample row (Hopper), the strip's bytes from
           their 16-byte boundary, within the row's last sample (rs_prefetch) */
        if (rs_prefetch(ID, sizeof(WREAL)) && j < 2 * R && i0 + R < NI) {
            long yb;
            if (x_inside && plain_rows(G.m_start + i0 + R, &yb)) {
                const char *row = (const char *)(src + (size_t)(yb + j) * stride);
                const uintptr_t a0 = (uintptr_t)(row + (size_t)(xlo + ax.delta) * sizeof(XT)) & ~(uintptr_t)15;
                const uintptr_t a1 = (uintptr_t)(row + (size_t)(xlo + NX + ax.delta) * sizeof(XT)) & ~(uintptr_t)15;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* a Hopper instruction; older GPUs go without */
                if (a1 > a0)
                    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a0), "r"((unsigned)(a1 - a0))
                                 : "memory");
#else
                (void)a0;
                (void)a1;
#endif
            }
        }
        /* 3. each warp lifts whole rows of its vertical channel hc along the row and
           writes them to their bands (coalesced, from the ring row): its rows go to
           bands vb and vb | 2, row rr - hsh; hlane is its lane's offset in a ring
           row, pa and pd the positions of the lane's first output coefficient of
           each band (those of a band are consecutive from A.sa or A.sd on) */
        const int hc = warp & 1, vb = hc == a ? 0 : 1;
        const long hsh = (hc == a ? A.sa : A.sd) - sy;
        /* band vb | 2 holds details; band vb too unless it is the approximation (vb 0) */
        using band = rs_band<REAL, rs_det_t<REAL, ST>>;
        const band ob_a = band(A.out[vb], vb != 0).at((BATCH ? blockIdx.y * A.out_bstride[vb] : 0) + sx),
                   ob_d = band(A.out[vb | 2], true).at((BATCH ? blockIdx.y * A.out_bstride[vb | 2] : 0) + sx);
        const size_t os_a = A.out_stride[vb], os_d = A.out_stride[vb | 2];
        const int hlane = rs_phys(false, lane * NP);
        const int pa = rs_pos(false, ax, a, (int)(A.sa - ax.lo[a]) + lane);
        const int pd = rs_pos(false, ax, 1 - a, (int)(A.sd - ax.lo[1 - a]) + lane);
        /* the band scales: horizontal, times the vertical one when it was folded */
        const WREAL kvh = fold_scale ? A.k[hc == a ? 0 : 1] : (WREAL)1; /* kv[hc], not indexed: that put kv in local memory */
        const WREAL ka = kvh * A.k[2], kd = kvh * A.k[3];
        for (int r = warp >> 1; r < R; r += nwarp >> 1) {
            const long rr = G.m_start + i0 + r - P.D[hc];
            if (rr < G.out_lo[hc] || rr >= G.out_hi[hc] + ext || rr - hsh >= A.row_end)
                continue;
            WREAL *row = bb + (2 * r + hc) * RW;
            hlift<ID, false, GS>(row + hlane, A.taps, lane);
            const size_t orow = (size_t)(rr - hsh - A.row0);
            const band od = ob_d.at(orow * os_d);
            /* loads outside the test, so only the stores are predicated (positions past
               the row stay inside the allocation: rs_smem's slack) */
            ob_a.at(orow * os_a).visit([&](auto *oa) {
#pragma unroll
                for (int q = 0; q < NP; q++) {
                    const WREAL va = row[pa + (32 + rs_pad(false)) * q], vd = row[pd + (32 + rs_pad(false)) * q];
                    if (lane + 32 * q < ncols) {
                        oa[lane + 32 * q] = rs_narrow<rs_elem_t<decltype(oa)>>(ka * va, A.bf16);
                        od.put(lane + 32 * q, kd * vd, A.bf16);
                    }
                }
            });
        }
    }
}

/* A ring row's channel of an inverse strip at a band's edge, by one lane: band
   columns k0 + mx for mx in [0, len), wrapped (periodic) or zero past the band,
   zero outside [0, len) and for rows that are not live. A call (rs_edge_call):
   inlined and unrolled it made float64 CDF 9/7 spill 104-120 bytes. */
template <int NP, typename BAND, typename WREAL>
__device__ __noinline__ void rs_edge_row(WREAL *out, const BAND g, long k0, int off, int len, long nc, bool periodic,
                                         bool live, int lane, int bf16)
{
    const bool one_period = k0 >= -nc && k0 + len <= 2 * nc;
#pragma unroll
    for (int q = 0; q < NP; q++) {
        const int mx = lane + 32 * q - off;
        long kx = k0 + mx;
        if (periodic && (kx < 0 || kx >= nc))
            kx = one_period ? kx + (kx < 0 ? nc : -nc) : lwt_mod(kx, nc);
        out[lane + 32 * q] =
            !live || mx < 0 || mx >= len || kx < 0 || kx >= nc ? (WREAL)0 : g.template get<WREAL>(kx, bf16);
    }
}

/* the bands a warp of the inverse reads, per horizontal channel (rs_inverse) */
template <typename BAND, typename WREAL> struct rs_wbands {
    BAND g[2];
    size_t s[2];
    WREAL k[2];
    long k0[2];
    int off[2];
    bool inside[2];
};

template <int ID, int GS, typename REAL, typename WREAL, bool BATCH, int ST = RS_PLAIN>
__global__ void __launch_bounds__(RS_THREADS, rs_min_blocks(ID, sizeof(WREAL), true))
    rs_inverse(const __grid_constant__ lwt_slide_geom G, const __grid_constant__ rs_args<WREAL> A)
{
    constexpr rs_pipe P = make_pipe(kShapes[ID], true);
    constexpr int R = rs_rows(ID, sizeof(WREAL));
    extern __shared__ unsigned char smem_raw[];
    WREAL *const buf = reinterpret_cast<WREAL *>(smem_raw); /* [2][R][2][RW] */
    const lwt_slide_axis &ay = G.ax[0], &ax = G.ax[1];
    long sy, sx;
    int ext;
    if (!rs_block_run(G, A, 0, &sy, &sx, &ext))
        return;
    const int a = A.ach;
    const bool periodic = ay.mode == LWT_MODE_PERIODIZATION;
    const long x0 = 2 * sx; /* first output column */
    const int ncols = (int)(ax.n - x0 < 2L * ax.T ? ax.n - x0 : 2L * ax.T);
    constexpr int RW = rs_ring(true), CW = rs_cw(true), NP = rs_slots(true);
    using XT = rs_sig_t<REAL, ST>; /* the output's storage */
    using band = rs_band<REAL, rs_det_t<REAL, ST>>;
    XT *const dst = (XT *)A.out[0] + (BATCH ? blockIdx.y * A.out_bstride[0] : 0);
    const size_t dstride = A.out_stride[0];

    /* output column x0 + j is y[x0 + j - delta]: its place in a ring row */
    const int j = threadIdx.x, lane = j & 31, warp = j >> 5, nwarp = blockDim.x >> 5;
    const bool has_col = j < ncols;
    int rc = 0; /* without a column: reads a ring position and drops it */
    if (has_col) {
        const long yx = x0 + j - ax.delta;
        const int odd = (int)(yx & 1);
        rc = rs_pos(true, ax, odd, odd ? (int)((yx - 1 - 2 * (ax.lo[1] + sx)) >> 1) : (int)((yx - 2 * (ax.lo[0] + sx)) >> 1));
    }
    const long NI = rs_iters(G, P.D, ext);

    /* Each warp takes ring rows of one vertical channel hc: coefficient row ky = m - hsh
       of bands vb and vb | 2. Per horizontal channel cx (rs_wbands): its band (data,
       stride, scale), first band column k0, the ring position of its element 0, and
       whether the block's columns are inside the band (then a live row is read without
       checks). Computed where used, not held across the batch's phases: held, they made
       the CDF 9/7 inverse spill. */
    const int hc = warp & 1, vb = hc == a ? 0 : 1;
    const long hsh = (hc == a ? A.sa : A.sd) - sy;
    auto warp_bands = [&]() {
        rs_wbands<band, WREAL> W;
#pragma unroll
        for (int cx = 0; cx < 2; cx++) {
            const int bnd = vb | (cx == a ? 0 : 2);
            W.g[cx] = band(A.in[bnd], bnd != 0).at(BATCH ? blockIdx.y * A.in_bstride[bnd] : 0);
            W.s[cx] = A.in_stride[bnd];
            W.k[cx] = A.k[bnd];
            W.k0[cx] = ax.lo[cx] + sx - (cx == a ? A.sa : A.sd);
            W.off[cx] = (int)(ax.lo[cx] - rs_base(ax));
            W.inside[cx] = W.k0[cx] >= 0 && W.k0[cx] + ax.len[cx] <= ax.nc;
        }
        return W;
    };
    const int hlane = rs_phys(true, lane * NP);
    /* see rs_inv_staged; the copies move bytes as stored, so never for 16-bit bands */
    constexpr bool staged = rs_inv_staged(ID, sizeof(WREAL)) && !BATCH && ST == RS_PLAIN;
    /* ring row r of the batch at i0 holds band row *ky, or zeros (false) */
    auto band_row = [&](long i0, int r, long *ky) {
        const long m = G.m_start + i0 + r;
        *ky = m - hsh;
        if (periodic && (*ky < 0 || *ky >= ay.nc)) /* the division only where it wraps */
            *ky = lwt_mod(*ky, ay.nc);
        return m >= ay.lo[hc] && m < ay.lo[hc] + ay.len[hc] + ext && *ky >= 0 && *ky < ay.nc;
    };
    /* The rows of the batch at i0 that need no checks, copied into ring buffer bb
       asynchronously (cp.async, rs_inv_staged), zeros beside the band. Ring rows hold
       band values as stored: hlift scales them as it reads them (the same product). */
    auto stage_rows = [&](long i0, WREAL *bb) {
        const rs_wbands<band, WREAL> W = warp_bands();
        for (int r = warp >> 1; r < R; r += nwarp >> 1) {
            long ky;
            if (!band_row(i0, r, &ky))
                continue;
#pragma unroll
            for (int cx = 0; cx < 2; cx++) {
                if (!W.inside[cx])
                    continue;
                const REAL *g = (const REAL *)W.g[cx].p + (size_t)ky * W.s[cx] + W.k0[cx]; /* plain bands only */
                WREAL *out = bb + (2 * r + hc) * RW + cx * CW;
#pragma unroll
                for (int q = 0; q < NP; q++) {
                    const int mx = lane + 32 * q - W.off[cx];
                    if (mx >= 0 && mx < ax.len[cx])
                        __pipeline_memcpy_async(out + lane + 32 * q, g + mx, sizeof(REAL));
                    else
                        out[lane + 32 * q] = 0;
                }
            }
        }
        __pipeline_commit();
    };

    WREAL w[2][P.WM];
#pragma unroll
    for (int s = 0; s < P.WM; s++)
        w[0][s] = w[1][s] = 0;
    if (staged)
        stage_rows(0, buf);
    int b = 0;
    for (long i0 = 0; i0 < NI; i0 += R, b ^= 1) {
        WREAL *bb = buf + (size_t)b * R * 2 * RW;
        /* 1. each warp fills whole ring rows of its vertical channel with band
           coefficients (staged ones are there already) and lifts them along the row */
        const rs_wbands<band, WREAL> W = warp_bands();
        for (int r = warp >> 1; r < R; r += nwarp >> 1) {
            WREAL *row = bb + (2 * r + hc) * RW;
            long ky;
            const bool live = band_row(i0, r, &ky);
#pragma unroll
            for (int cx = 0; cx < 2; cx++) {
                const int len = ax.len[cx];
                const band g = W.g[cx].at(live ? (size_t)ky * W.s[cx] : 0);
                WREAL *out = row + cx * CW;
                if (live && W.inside[cx]) {
                    if constexpr (staged) {
                        __pipeline_wait_prior(0); /* this lane's copies of the row */
                    } else {
                        g.visit([&](const auto *gp) {
                            if constexpr (std::is_same<rs_elem_t<decltype(gp)>, uint16_t>::value) {
                                rs_row16<NP, rs_inv_pairs(ID)>(gp + W.k0[cx] - W.off[cx], out, lane, W.off[cx],
                                                               len, A.bf16);
                            } else {
#pragma unroll
                                for (int q = 0; q < NP; q++) {
                                    const int mx = lane + 32 * q - W.off[cx];
                                    out[lane + 32 * q] = mx >= 0 && mx < len ? (WREAL)gp[W.k0[cx] + mx] : (WREAL)0;
                                }
                            }
                        });
                    }
                    continue;
                }
                /* A strip at the band's left or right edge: band columns wrap (periodization) or
                   are zero past the edge. Where the strip reaches at most one period past
                   either end (all but tiny bands), the wrap is an add, unrolled; the general
                   loop below made these strips 2.7x slower than the others (H200, version 14).
                   Only in the kernels that load rows here (unstaged): in the staged ones, the
                   unrolled copy made float64 CDF 9/7 spill 104-120 bytes and D8 32. Not
                   rs_edge_row's loop, which keeps lwt_mod beside the add: inlined here it
                   gave back the gain (4 levels at 16384^2: 1.162 -> 1.345 ms, measured). */
                const long nc = ax.nc, k0 = W.k0[cx];
                if (!staged && k0 >= -nc && k0 + len <= 2 * nc) { /* the columns loaded: k0 + [0, len) */
#pragma unroll
                    for (int q = 0; q < NP; q++) {
                        const int mx = lane + 32 * q - W.off[cx];
                        long kx = k0 + mx;
                        if (periodic)
                            kx += kx < 0 ? nc : kx >= nc ? -nc : 0;
                        out[lane + 32 * q] = !live || mx < 0 || mx >= len || kx < 0 || kx >= nc
                                                 ? (WREAL)0
                                                 : g.template get<WREAL>(kx, A.bf16);
                    }
                    continue;
                }
                if constexpr (rs_edge_call(ID, sizeof(WREAL))) {
                    rs_edge_row<NP>(out, g, k0, W.off[cx], len, nc, periodic, live, lane, A.bf16);
                } else {
                    for (int q = 0; q < NP; q++) {
                        const int mx = lane + 32 * q - W.off[cx];
                        long kx = k0 + mx;
                        if (periodic && (kx < 0 || kx >= nc))
                            kx = lwt_mod(kx, nc);
                        out[lane + 32 * q] = !live || mx < 0 || mx >= len || kx < 0 || kx >= nc
                                                 ? (WREAL)0
                                                 : g.template get<WREAL>(kx, A.bf16);
                    }
                }
            }
            __syncwarp(); /* every lane's copies and stores of the row */
            hlift<ID, true, GS>(row + hlane, A.taps, lane, W.k);
        }
        __syncthreads();
        /* the next batch's rows start coming while the columns are lifted (its ring
           rows were last read by the vertical phase of the batch before this one) */
        if (staged && i0 + R < NI)
            stage_rows(i0 + R, buf + (size_t)(b ^ 1) * R * 2 * RW);
        /* 2. the vertical inverse down this thread's output column */
        const long m0 = G.m_start + i0;
        /* every row of the batch is an output row inside the array: no checks */
        const long y0 = 2 * (m0 - P.D[0] + sy) + ay.delta, y1 = 2 * (m0 - P.D[1] + sy) + 1 + ay.delta;
        const bool plain = has_col && m0 - P.D[0] >= G.out_lo[0] && m0 + R - P.D[0] <= G.out_hi[0] + ext &&
                           m0 - P.D[1] >= G.out_lo[1] && m0 + R - P.D[1] <= G.out_hi[1] + ext && y0 >= 0 &&
                           y1 >= 0 && y0 + 2 * R <= ay.n && y1 + 2 * R <= ay.n + 1;
        XT *const q0 = dst + (plain ? (size_t)y0 * dstride + (size_t)(x0 + j) : 0);
        XT *const q1 = dst + (plain ? (size_t)y1 * dstride + (size_t)(x0 + j) : 0);
#pragma unroll
        for (int r = 0; r < R; r++) {
            vpush<ID, true>(w, bb[(2 * r) * RW + rc], bb[(2 * r + 1) * RW + rc], A.taps);
            if (plain) {
                q0[(size_t)(2 * r) * dstride] = rs_narrow<XT>(w[0][P.D[0]], A.bf16);
                q1[(size_t)(2 * r) * dstride] = rs_narrow<XT>(w[1][P.D[1]], A.bf16);
                continue;
            }
            const WREAL wo[2] = {w[0][P.D[0]], w[1][P.D[1]]}; /* this row's finished samples */
#pragma unroll
            for (int c = 0; c < 2; c++) {
                const long rr = m0 + r - P.D[c];
                if (!has_col || rr < G.out_lo[c] || rr >= G.out_hi[c] + ext)
                    continue;
                const long y = 2 * (rr + sy) + c + ay.delta;
                if (y >= 0 && y < ay.n)
                    dst[(size_t)y * dstride + (size_t)(x0 + j)] = rs_narrow<XT>(wo[c], A.bf16);
            }
        }
    }
}

template <typename WREAL> using kern_t = void (*)(const lwt_slide_geom, const rs_args<WREAL>);
template <typename WREAL> struct kernel_table {
    kern_t<WREAL> fwd[kNumShapes], fwd_batch[kNumShapes], inv[kNumShapes], inv_batch[kNumShapes];
};
/* the kernels of every compiled-in shape: forward and inverse, one level or a batch of them */
template <int GS, typename REAL, typename WREAL, int... ID>
kernel_table<WREAL> kernels(std::integer_sequence<int, ID...>)
{
    return {{rs_forward<ID, GS, REAL, WREAL, false, false>...},
            {rs_forward<ID, GS, REAL, WREAL, false, true>...},
            {rs_inverse<ID, GS, REAL, WREAL, false>...},
            {rs_inverse<ID, GS, REAL, WREAL, true>...}};
}

/* kernel k of shape id on the runs of tiles of A.runs (rs_block_run), with
   the shared memory it needs */
template <typename WREAL>
cudaError_t launch_kernel(kern_t<WREAL> k, int id, const lwt_slide_geom &g, rs_args<WREAL> A, cudaStream_t stream)
{
    const size_t smem = rs_smem(g.inverse != 0, rs_rows(id, sizeof(WREAL))) * sizeof(WREAL);
    cudaError_t e = cudaSuccess;
    if (smem > 48 * 1024 && (e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)))
        return e;
    if (A.runs.ntr <= 0)
        return cudaSuccess;
    int dev = 0, sms = 0, per_sm = 0;
    if ((e = cudaGetDevice(&dev)) || (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, RS_THREADS, smem)))
        return e;
    /* a batch of levels: full runs only. Its slices' own shorter runs (planned for the
       device's share of one slice) were mostly empty blocks: 20 of 30 per 1024^2 plane */
    const long resident = (long)sms * (per_sm > 0 ? per_sm : 1), slices = A.nbatch > 0 ? A.nbatch : 1;
    const long blocks = lwt_slide_runs_plan(&A.runs, A.runs.t0, A.runs.ntr, g.tiles[1], slices > 1 ? 0 : resident,
                                            A.regions);
    k<<<dim3((unsigned)blocks, (unsigned)slices), RS_THREADS, smem, stream>>>(g, A);
    return cudaGetLastError();
}

template <int GS, typename REAL, typename WREAL>
cudaError_t launch_id(int id, const lwt_slide_geom &g, const rs_args<WREAL> &A, cudaStream_t stream)
{
    const kernel_table<WREAL> t = kernels<GS, REAL, WREAL>(std::make_integer_sequence<int, kNumShapes>{});
    const bool batch = A.nbatch > 1;
    const kern_t<WREAL> k = g.inverse ? (batch ? t.inv_batch[id] : t.inv[id]) : batch ? t.fwd_batch[id] : t.fwd[id];
    static_assert(sizeof(REAL) == sizeof(WREAL), "the inverse copies REAL band values into WREAL ring rows");
    return launch_kernel(k, id, g, A, stream);
}

template <typename REAL, typename WREAL>
cudaError_t launch_variant(int id, int improved, const lwt_slide_geom &g, const rs_args<WREAL> &A,
                           cudaStream_t stream)
{
    return improved ? launch_id<2, REAL, WREAL>(id, g, A, stream) : launch_id<1, REAL, WREAL>(id, g, A, stream);
}

template <typename WREAL>
void fill_args(rs_args<WREAL> &A, const lwt_slide_geom *g, const lwt_scheme *s, const void *const in[4],
               const size_t in_stride[4], void *const out[4], const size_t out_stride[4])
{
    for (int i = 0; i < s->ntaps_total && i < LWT_RS_MAX_TAPS; i++)
        A.taps[i] = (WREAL)s->taps[i];
    for (int bnd = 0; bnd < 4; bnd++) {
        A.in[bnd] = in[bnd];
        A.in_stride[bnd] = in_stride[bnd];
        A.out[bnd] = out[bnd];
        A.out_stride[bnd] = out_stride[bnd];
        A.in_bstride[bnd] = 0;
        A.out_bstride[bnd] = 0;
        A.k[bnd] = (WREAL)lwt_slide_scale(s->ka, s->kd, g->inverse, bnd);
    }
    A.nbatch = 1;
    A.bf16 = 0;
    A.ach = s->ach;
    A.sa = s->sa;
    A.sd = s->sd;
    A.row0 = 0;
    A.row_end = g->ax[0].nc;
    memset(&A.win, 0, sizeof A.win);
    A.runs.t0 = 0;
    A.runs.ntr = g->tiles[0];
    A.regions = 1;
}

/* tile rows [t0, t1) of a level, storage and arithmetic in REAL */
template <typename REAL>
cudaError_t launch_tiles(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s, const void *const in[4],
                         const size_t in_stride[4], void *const out[4], const size_t out_stride[4], long t0, long t1,
                         int regions, cudaStream_t stream)
{
    rs_args<REAL> A;
    fill_args(A, g, s, in, in_stride, out, out_stride);
    A.runs.t0 = t0;
    A.runs.ntr = t1 - t0;
    A.regions = regions;
    return launch_variant<REAL, REAL>(shape, improved, *g, A, stream);
}

/* a batch of whole levels, at most 65535 slices per launch (gridDim.y) */
template <typename REAL>
cudaError_t launch_batch(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s, const void *const in[4],
                         const size_t in_stride[4], void *const out[4], const size_t out_stride[4], size_t nbatch,
                         const size_t in_bstride[4], const size_t out_bstride[4], cudaStream_t stream)
{
    const size_t most = 65535;
    rs_args<REAL> A;
    fill_args(A, g, s, in, in_stride, out, out_stride);
    for (size_t z0 = 0; z0 < nbatch; z0 += most) {
        for (int bnd = 0; bnd < 4; bnd++) {
            A.in[bnd] = in[bnd] ? (const REAL *)in[bnd] + z0 * in_bstride[bnd] : NULL;
            A.out[bnd] = out[bnd] ? (REAL *)out[bnd] + z0 * out_bstride[bnd] : NULL;
            A.in_bstride[bnd] = in_bstride[bnd];
            A.out_bstride[bnd] = out_bstride[bnd];
        }
        A.nbatch = (unsigned)(nbatch - z0 < most ? nbatch - z0 : most);
        cudaError_t e = launch_variant<REAL, REAL>(shape, improved, *g, A, stream);
        if (e)
            return e;
    }
    return cudaSuccess;
}

/* a streamed chunk's forward level: the window kernels, classic lifting (the same bits as improved) */
template <typename REAL, int... ID>
cudaError_t launch_part(int id, const lwt_slide_geom &g, const rs_args<double> &A, cudaStream_t stream,
                        std::integer_sequence<int, ID...>)
{
    const kern_t<double> tab[] = {rs_forward<ID, 1, REAL, double, true, false>...};
    return launch_kernel(tab[id], id, g, A, stream);
}

/* a 16-bit plan's level (RS_D16, RS_XD16): float32 arithmetic, classic lifting, one array or a
   batch of them (one per blockIdx.y) */
template <int ST, int... ID>
kern_t<float> half_kernel(int id, bool inverse, bool batch, std::integer_sequence<int, ID...>)
{
    const kern_t<float> fwd[] = {rs_forward<ID, 1, float, float, false, false, ST>...};
    const kern_t<float> inv[] = {rs_inverse<ID, 1, float, float, false, ST>...};
    const kern_t<float> fwd_batch[] = {rs_forward<ID, 1, float, float, false, true, ST>...};
    const kern_t<float> inv_batch[] = {rs_inverse<ID, 1, float, float, true, ST>...};
    return batch ? (inverse ? inv_batch[id] : fwd_batch[id]) : inverse ? inv[id] : fwd[id];
}

} // namespace

int lwt_cuda_slide_regs_shape(const lwt_scheme *s)
{
    if (s->ntaps_total > LWT_RS_MAX_TAPS)
        return -1;
    for (int id = 0; id < kNumShapes; id++) {
        const rs_shape &sh = kShapes[id];
        bool same = sh.n == s->nsteps;
        for (int k = 0; same && k < sh.n; k++)
            same = sh.t[k] == s->steps[k].target && sh.off[k] == s->steps[k].off && sh.nt[k] == s->steps[k].ntaps;
        if (same)
            return id;
    }
    return -1;
}

int lwt_cuda_slide_regs_fits(const lwt_slide_geom *g)
{
    /* both channels of a ring row within the 32 x rs_slots slots of a warp (hlift) */
    const lwt_slide_axis *ax = &g->ax[1];
    const long e0 = ax->lo[0] + ax->len[0], e1 = ax->lo[1] + ax->len[1];
    if ((e0 > e1 ? e0 : e1) - rs_base(*ax) > 32L * rs_slots(g->inverse != 0))
        return 0;
    if (g->inverse) {
        const long out1 = (g->ax[1].n + 1) / 2;
        return 2L * (g->ax[1].T < out1 ? g->ax[1].T : out1) <= RS_THREADS;
    }
    long xlo;
    return lwt_slide_strip(g, 0, &xlo) <= RS_THREADS;
}

int lwt_cuda_slide_regs_threads(void) { return RS_THREADS; }

cudaError_t lwt_cuda_slide2d_regs_tiles(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s,
                                        lwt_dtype dtype, const void *const in[4], const size_t in_stride[4],
                                        void *const out[4], const size_t out_stride[4], long t0, long t1,
                                        int regions, cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes || t0 < 0 || t1 > g->tiles[0] || t0 > t1 || regions < 1)
        return cudaErrorInvalidValue;
    return dtype == LWT_F64
               ? launch_tiles<double>(shape, improved, g, s, in, in_stride, out, out_stride, t0, t1, regions, stream)
               : launch_tiles<float>(shape, improved, g, s, in, in_stride, out, out_stride, t0, t1, regions, stream);
}

cudaError_t lwt_cuda_slide2d_regs(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s, lwt_dtype dtype,
                                  const void *const in[4], const size_t in_stride[4], void *const out[4],
                                  const size_t out_stride[4], cudaStream_t stream)
{
    return lwt_cuda_slide2d_regs_tiles(shape, improved, g, s, dtype, in, in_stride, out, out_stride, 0, g->tiles[0], 1,
                                       stream);
}

cudaError_t lwt_cuda_slide2d_regs_batch(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s,
                                        lwt_dtype dtype, const void *const in[4], const size_t in_stride[4],
                                        void *const out[4], const size_t out_stride[4], size_t nbatch,
                                        const size_t in_bstride[4], const size_t out_bstride[4], cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes)
        return cudaErrorInvalidValue;
    return dtype == LWT_F64 ? launch_batch<double>(shape, improved, g, s, in, in_stride, out, out_stride, nbatch,
                                                   in_bstride, out_bstride, stream)
                            : launch_batch<float>(shape, improved, g, s, in, in_stride, out, out_stride, nbatch,
                                                  in_bstride, out_bstride, stream);
}

lwt_slide_geom *lwt_cuda_slide_regs_plan(const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0, long n1,
                                         long nc0, long nc1, long rows, size_t es)
{
    /* tiles of the fewest rows lwt_slide_plan_rows makes (16); blocks take runs of them */
    const long min_blocks = LONG_MAX;
    if (lwt_cuda_slide_regs_shape(s) < 0)
        return NULL;
    if (!inverse && (mode == LWT_MODE_SMOOTH || mode == LWT_MODE_ANTIREFLECT))
        return NULL;
    lwt_slide_geom *g = (lwt_slide_geom *)malloc(sizeof *g);
    if (!g)
        return NULL;
    /* ring rows of RS_THREADS elements; the inverse's hold its halo besides
       2 T = RS_THREADS output columns (its width measured by a first plan) */
    int cols = RS_THREADS;
    if (inverse && lwt_slide_plan_rows(g, s, mode, F, inverse, n0, n1, nc0, nc1, rows, es, 0, min_blocks, cols))
        cols += g->RW - 2 * g->ax[1].T;
    for (int attempt = 0; attempt < 8 && cols >= 32; attempt++, cols -= 2)
        if (lwt_slide_plan_rows(g, s, mode, F, inverse, n0, n1, nc0, nc1, rows, es, 0, min_blocks, cols) &&
            lwt_cuda_slide_regs_fits(g))
            return g;
    free(g);
    return NULL;
}

cudaError_t lwt_cuda_slide2d_regs_part(int shape, const lwt_slide_geom *g, const lwt_scheme *s, lwt_dtype dtype,
                                       const lwt_window *win, long row0, long row_end, const void *in,
                                       size_t in_stride, void *const out[4], size_t out_stride, cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes || g->inverse || !win->nseg)
        return cudaErrorInvalidValue;
    const void *ins[4] = {in, in, in, in};
    const size_t is[4] = {in_stride, in_stride, in_stride, in_stride};
    const size_t os[4] = {out_stride, out_stride, out_stride, out_stride};
    rs_args<double> A;
    fill_args(A, g, s, ins, is, out, os);
    A.row0 = row0;
    A.row_end = row_end;
    A.win = *win;
    const auto ids = std::make_integer_sequence<int, kNumShapes>{};
    return dtype == LWT_F64 ? launch_part<double>(shape, *g, A, stream, ids)
                            : launch_part<float>(shape, *g, A, stream, ids);
}

cudaError_t lwt_cuda_slide2d_regs_half(int shape, const lwt_slide_geom *g, const lwt_scheme *s, int bf16, int signal16,
                                       const void *const in[4], const size_t in_stride[4], void *const out[4],
                                       const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                                       const size_t out_bstride[4], cudaStream_t stream)
{
    if (shape < 0 || shape >= kNumShapes || nbatch > 65535) /* one launch: gridDim.y */
        return cudaErrorInvalidValue;
    rs_args<float> A;
    fill_args(A, g, s, in, in_stride, out, out_stride);
    A.bf16 = bf16;
    const bool batch = nbatch > 1;
    if (batch) {
        for (int bnd = 0; bnd < 4; bnd++) {
            A.in_bstride[bnd] = in_bstride[bnd];
            A.out_bstride[bnd] = out_bstride[bnd];
        }
        A.nbatch = (unsigned)nbatch;
    }
    const auto ids = std::make_integer_sequence<int, kNumShapes>{};
    const bool inv = g->inverse != 0;
    return launch_kernel(signal16 ? half_kernel<RS_XD16>(shape, inv, batch, ids)
                                  : half_kernel<RS_D16>(shape, inv, batch, ids),
                         shape, *g, A, stream);
}
