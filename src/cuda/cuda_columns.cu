/*
 * A pass along a strided axis with the lifting window in registers: the
 * vertical half of the register kernel (cuda_slide_regs.cu) on its own, for
 * the pass along axis 0 of a 3-D level (the planes then run the 2-D register
 * kernel) and the strided passes of the separable path.
 *
 * The lines of the pass are the columns of a matrix whose rows are `inner`
 * contiguous elements apart. A thread owns one column; a block, 256
 * neighbouring columns (a warp reads 128 contiguous bytes of float32 per
 * row), and slides down a run of tiles of 16 coefficient rows
 * (core/slide_runs.h), running every lifting step at its compile-time lag on
 * a register window (cuda_regs_pipe.cuh). There is no shared memory and no
 * barrier; the next R rows' loads are issued before this batch's lifting, so
 * their latency overlaps it. The tiled kernel this replaces on those passes
 * staged each tile in shared memory, one barrier per step, and ran at 40% of
 * the copy bandwidth (ncu, 512^3, docs/PERFORMANCE.md version 15).
 *
 * Tiles, ranges and the extension are those of the 2-D kernels' axis 0
 * (core/slide.h, lwt_slide_plan_column), so every mode works. Float32 runs
 * in float or double as the plan says (lwt_dev_scheme.f32_in_float); results
 * match the CPU backend within the plan's bounds, not bit for bit (the
 * streamed engine's passes, which must, keep the tiled kernel).
 */
#include <cuda_runtime.h>

#include <stdlib.h>
#include <utility>

extern "C" {
#include "core/extend.h"
#include "core/slide.h"
#include "core/slide_runs.h"
}
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_loads.cuh"
#include "cuda/cuda_regs_pipe.cuh"
#include "cuda/cuda_slide_regs.cuh"

namespace {

constexpr int CT = 256; /* threads (columns) per block */

template <typename WREAL> struct col_args {
    WREAL taps[LWT_RS_MAX_TAPS];
    WREAL k[2];     /* channel c's scale (forward) or its inverse (inverse) */
    const void *in;
    void *out;
    size_t stride;  /* elements between rows: the columns of the matrix */
    size_t in_outer, out_outer; /* elements between the matrices of blockIdx.y */
    long groups;    /* blocks of CT columns */
    long nc;        /* coefficients per band */
    int ach;
    long sa, sd;
    lwt_slide_runs runs;
};

/* rows of each channel per batch of loads. Measured on the H200 (3-D 1024^3, 3 levels,
   docs/PERFORMANCE.md version 15): 16 rows for float32, 4 rows, or 3 or 4 blocks per
   SM by launch bounds were all as fast or 2-12% slower */
constexpr int col_rows(int es) { return es == 4 ? 8 : 4; }

/* this block's columns and run of tiles: first coefficient row sy, extra rows ext */
template <typename WREAL>
__device__ __forceinline__ bool col_block(const lwt_slide_geom &G, const col_args<WREAL> &A, size_t *col, bool *has_col,
                                          long *sy, int *ext)
{
    long grp, tr, nt;
    if (!lwt_slide_run(&A.runs, A.groups, blockIdx.x, &grp, &tr, &nt))
        return false;
    const size_t c = (size_t)grp * CT + threadIdx.x;
    *has_col = c < A.stride;
    *col = *has_col ? c : A.stride - 1; /* past the last column: load it, drop the results */
    *sy = tr * G.ax[0].T;
    *ext = (int)(nt - 1) * G.ax[0].T;
    return true;
}

/* The slide down a run: the rows of both channels through the window, R at a
   time, each batch's loads issued before the previous batch's lifting so that
   their latency overlaps it. After row m has entered, channel c's row m - D[c]
   is final: rows(m0, q) says whether the batch's R rows of both channels
   all go to q[c] + r * qstep (then stored without checks; forward: scaled by
   k[c]), else one(m, c, v) stores each. The checks and 64-bit index
   arithmetic of one() per sample made the kernel bound by issue (ncu: SM 79%,
   DRAM 72% at 1024^3). */
template <int ID, bool INV, int R, typename REAL, typename WREAL, typename LOAD, typename ROWS, typename ONE>
__device__ __forceinline__ void col_slide(const lwt_slide_geom &G, long NI, const WREAL *taps, const WREAL k[2],
                                          size_t qstep, const LOAD &load, const ROWS &rows, const ONE &one)
{
    constexpr rs_pipe P = make_pipe(kShapes[ID], INV);
    WREAL w[2][P.WM];
#pragma unroll
    for (int s = 0; s < P.WM; s++)
        w[0][s] = w[1][s] = 0;
    WREAL vn[R][2];
    load(vn, G.m_start);
    for (long i0 = 0; i0 < NI; i0 += R) {
        WREAL v[R][2];
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r][0] = vn[r][0], v[r][1] = vn[r][1];
        if (i0 + R < NI)
            load(vn, G.m_start + i0 + R);
        const long m0 = G.m_start + i0;
        REAL *q[2];
        const bool plain = rows(m0, q);
#pragma unroll
        for (int r = 0; r < R; r++) {
            vpush<ID, INV>(w, v[r][0], v[r][1], taps);
            if (plain) {
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    *q[c] = (REAL)(INV ? w[c][P.D[c]] : k[c] * w[c][P.D[c]]);
                    q[c] += qstep;
                }
                continue;
            }
            one(m0 + r, 0, w[0][P.D[0]]);
            one(m0 + r, 1, w[1][P.D[1]]);
        }
    }
}

/* blocks per SM the kernel is built for: 2 for the inverse in double (up to 128 registers),
   else unbounded. The float64 CDF 9/7 and D20 inverses took 166 registers, one block per SM;
   at two (no spills), 3-D 1024^3 3 levels 21.1 -> 18.9 ms and 25.1 -> 22.3 (H200) */
constexpr int col_min_blocks(bool inv, int es) { return inv && es == 8 ? 2 : 0; }

template <int ID, bool INV, typename REAL, typename WREAL>
__global__ void __launch_bounds__(CT, col_min_blocks(INV, sizeof(WREAL))) col_pass(const __grid_constant__ lwt_slide_geom G,
                                                         const __grid_constant__ col_args<WREAL> A)
{
    constexpr rs_pipe P = make_pipe(kShapes[ID], INV);
    constexpr int R = col_rows(sizeof(WREAL));
    const lwt_slide_axis &ay = G.ax[0];
    size_t col;
    bool has_col;
    long sy;
    int ext;
    if (!col_block(G, A, &col, &has_col, &sy, &ext))
        return;
    const size_t stride = A.stride;
    const REAL *const src = (const REAL *)A.in + blockIdx.y * A.in_outer + col;
    REAL *const dst = (REAL *)A.out + blockIdx.y * A.out_outer + col;
    const long NI = rs_iters(G, P.D, ext);
    /* channel c's coefficient rows: k = m - sh[c] + sy for channel row m, band0[c] + k
       in the pass's [approximation | detail] rows */
    const int a = A.ach;
    const long sh[2] = {a == 0 ? A.sa : A.sd, a == 1 ? A.sa : A.sd};
    const long band0[2] = {a == 0 ? 0 : A.nc, a == 1 ? 0 : A.nc};
    /* whether row m of channel c is in its range (the run's extra rows included) */
    auto in_channel = [&](long m, int c) { return m >= ay.lo[c] && m < ay.lo[c] + ay.len[c] + ext; };
    /* whether channel rows m0 .. m0 + R - 1 are all in both channels' ranges */
    auto in_ranges = [&](long m0) {
        return in_channel(m0, 0) && in_channel(m0, 1) && in_channel(m0 + R - 1, 0) && in_channel(m0 + R - 1, 1);
    };

    if constexpr (!INV) {
        const lwt_window whole = {};
        /* this column's samples of channel rows m0 .. m0 + R - 1, zero outside the ranges */
        auto load = [&](WREAL(&v)[R][2], long m0) {
            const long y0 = 2 * (m0 + sy) + ay.delta;
            if (in_ranges(m0) && y0 >= 0 && y0 + 2 * R <= ay.n) {
                const REAL *p = src + (size_t)y0 * stride;
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int c = 0; c < 2; c++)
                        v[r][c] = (WREAL)p[(size_t)(2 * r + c) * stride];
                return;
            }
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    const long m = m0 + r;
                    v[r][c] = !in_channel(m, c)
                                  ? (WREAL)0
                                  : lwt_dev_load_ext<REAL, WREAL>(src, stride, ay.mode, ay.n,
                                                                  2 * (m + sy) + c + ay.delta, whole);
                }
        };
        /* channel c's row rr, final: coefficient k = rr - sh[c] + sy of its band */
        auto rows = [&](long m0, REAL *q[2]) {
            bool all = has_col;
#pragma unroll
            for (int c = 0; c < 2; c++) {
                const long rr = m0 - P.D[c];
                all = all && rr >= G.out_lo[c] && rr + R <= G.out_hi[c] + ext && rr + R - 1 - sh[c] + sy < A.nc;
                q[c] = dst + (size_t)(band0[c] + rr - sh[c] + sy) * stride;
            }
            return all;
        };
        auto one = [&](long m, int c, WREAL v) {
            const long rr = m - P.D[c], k = rr - sh[c] + sy;
            if (has_col && rr >= G.out_lo[c] && rr < G.out_hi[c] + ext && k < A.nc)
                dst[(size_t)(band0[c] + k) * stride] = (REAL)(A.k[c] * v);
        };
        col_slide<ID, false, R, REAL, WREAL>(G, NI, A.taps, A.k, stride, load, rows, one);
    } else {
        const bool periodic = ay.mode == LWT_MODE_PERIODIZATION;
        /* channel rows m0 .. m0 + R - 1 from their bands, scaled; zero outside the ranges
           and the band (periodization: wrapped) */
        auto load = [&](WREAL(&v)[R][2], long m0) {
            const long k0 = m0 - sh[0] + sy, k1 = m0 - sh[1] + sy;
            if (in_ranges(m0) && k0 >= 0 && k1 >= 0 && k0 + R <= A.nc && k1 + R <= A.nc) {
                const REAL *p0 = src + (size_t)(band0[0] + k0) * stride, *p1 = src + (size_t)(band0[1] + k1) * stride;
#pragma unroll
                for (int r = 0; r < R; r++) {
                    v[r][0] = (WREAL)p0[(size_t)r * stride] * A.k[0];
                    v[r][1] = (WREAL)p1[(size_t)r * stride] * A.k[1];
                }
                return;
            }
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    const long m = m0 + r;
                    long k = m - sh[c] + sy;
                    if (periodic && (k < 0 || k >= A.nc))
                        k = lwt_mod(k, A.nc);
                    const bool live = in_channel(m, c) && k >= 0 && k < A.nc;
                    v[r][c] = live ? (WREAL)src[(size_t)(band0[c] + k) * stride] * A.k[c] : (WREAL)0;
                }
        };
        /* channel c's row rr, final: sample row y = 2 (rr + sy) + c + delta */
        auto rows = [&](long m0, REAL *q[2]) {
            bool all = has_col;
#pragma unroll
            for (int c = 0; c < 2; c++) {
                const long rr = m0 - P.D[c], y = 2 * (rr + sy) + c + ay.delta;
                all = all && rr >= G.out_lo[c] && rr + R <= G.out_hi[c] + ext && y >= 0 && y + 2 * (R - 1) < ay.n;
                q[c] = dst + (size_t)y * stride;
            }
            return all;
        };
        auto one = [&](long m, int c, WREAL v) {
            const long rr = m - P.D[c], y = 2 * (rr + sy) + c + ay.delta;
            if (has_col && rr >= G.out_lo[c] && rr < G.out_hi[c] + ext && y >= 0 && y < ay.n)
                dst[(size_t)y * stride] = (REAL)v;
        };
        col_slide<ID, true, R, REAL, WREAL>(G, NI, A.taps, A.k, 2 * stride, load, rows, one);
    }
}

template <typename WREAL> using col_kern_t = void (*)(const lwt_slide_geom, const col_args<WREAL>);

template <typename REAL, typename WREAL, int... ID>
col_kern_t<WREAL> col_kernel(int id, bool inverse, std::integer_sequence<int, ID...>)
{
    const col_kern_t<WREAL> fwd[] = {col_pass<ID, false, REAL, WREAL>...}, inv[] = {col_pass<ID, true, REAL, WREAL>...};
    return inverse ? inv[id] : fwd[id];
}

template <typename REAL, typename WREAL>
cudaError_t launch(int id, const lwt_slide_geom &g, const lwt_pass *ps, cudaStream_t stream)
{
    const lwt_scheme *s = ps->scheme;
    const lwt_line_prog &lp = *ps->prog;
    col_args<WREAL> A;
    for (int i = 0; i < s->ntaps_total && i < LWT_RS_MAX_TAPS; i++)
        A.taps[i] = (WREAL)s->taps[i];
    /* channel c carries the approximation when c == ach */
    for (int c = 0; c < 2; c++) {
        const double k = c == s->ach ? s->ka : s->kd;
        A.k[c] = (WREAL)(g.inverse ? 1.0 / k : k);
    }
    A.in = ps->in;
    A.out = ps->out;
    A.stride = ps->inner;
    A.in_outer = (size_t)lwt_prog_in_extent(&lp) * ps->inner;
    A.out_outer = (size_t)lwt_prog_out_extent(&lp) * ps->inner;
    A.groups = (long)((ps->inner + CT - 1) / CT);
    A.nc = lp.nc;
    A.ach = s->ach;
    A.sa = s->sa;
    A.sd = s->sd;
    const col_kern_t<WREAL> k =
        col_kernel<REAL, WREAL>(id, g.inverse != 0, std::make_integer_sequence<int, kNumShapes>{});
    cudaError_t e;
    int dev = 0, sms = 0, per_sm = 0;
    if ((e = cudaGetDevice(&dev)) || (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, CT, 0)))
        return e;
    const long outer = (long)ps->outer, resident = (long)sms * (per_sm > 0 ? per_sm : 1);
    const long blocks = lwt_slide_runs_plan(&A.runs, 0, g.tiles[0], A.groups, (resident + outer - 1) / outer, 1);
    if (blocks > 0)
        k<<<dim3((unsigned)blocks, (unsigned)outer), CT, 0, stream>>>(g, A);
    return cudaGetLastError();
}

} // namespace

/* the kernel's scheme shape and the pass's column geometry in *g (malloc'd), or -1 (g
   NULL) where the column kernel does not apply */
static int column_plan(const lwt_pass *ps, lwt_slide_geom **g)
{
    const lwt_line_prog &lp = *ps->prog;
    const long whole = lp.inverse ? lp.n : lp.nc;
    *g = NULL;
    if (ps->inner < 2 || ps->map || lp.direct || lp.win.nseg || lp.out_lo != 0 || lp.out_hi != whole ||
        ps->outer < 1 || ps->outer > 65535)
        return -1;
    const int id = lwt_cuda_slide_regs_shape(ps->scheme);
    if (id < 0)
        return -1;
    *g = (lwt_slide_geom *)malloc(sizeof **g);
    if (!*g || !lwt_slide_plan_column(*g, ps->scheme, lp.mode, lp.F, lp.inverse, lp.n, lp.nc)) {
        free(*g);
        *g = NULL;
        return -1;
    }
    return id;
}

bool lwt_cuda_columns_apply(const lwt_pass *ps)
{
    lwt_slide_geom *g;
    const bool ok = column_plan(ps, &g) >= 0;
    free(g);
    return ok;
}

bool lwt_cuda_launch_columns(const lwt_pass *ps, const lwt_dev_scheme *dev, cudaStream_t stream, cudaError_t *err)
{
    lwt_slide_geom *g;
    const int id = column_plan(ps, &g);
    if (id < 0)
        return false;
    if (ps->dtype == LWT_F64)
        *err = launch<double, double>(id, *g, ps, stream);
    else
        *err = dev->f32_in_float ? launch<float, float>(id, *g, ps, stream) : launch<float, double>(id, *g, ps, stream);
    free(g);
    return true;
}
