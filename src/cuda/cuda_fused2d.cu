/*
 * Fused 2-D forward level (seed 000's LBB idea, done per tile): a block owns
 * TY x TX outputs of each of the four bands. It loads the samples they
 * depend on (the tile plus the scheme's halo on every side, de-interleaved
 * into even/odd channels along both axes) into shared memory once, runs the
 * row lifting on every row of the region, then the column lifting on just
 * the 2 TX columns that hold outputs, and writes each band straight to its
 * place (the packed coefficient array, or the next level's approximation).
 * Global traffic per level: one read (plus halo) and one write.
 *
 * Any scheme and mode: lifting ranges come from core/line.c (tile 0,
 * shifted per tile) and samples outside the array from core/extend.h in both
 * directions (the row pass is linear, so extending its input in y is the
 * same as extending its output, which is what PyWavelets' axis-by-axis
 * transform does). The row and column passes commute, so the result equals
 * the separable one up to rounding.
 */
#include <cuda_runtime.h>

extern "C" {
#include "core/extend.h"
#include "core/line.h"
}
#include "cuda/cuda_kernels.cuh"

namespace {

#define FTX 32
#define FTY 32

/* one axis of a tile, relative to tile 0 */
struct axis_tile {
    long n, nc, delta;
    int mode;
    int lo[2], len[2];
    int step_lo[LWT_SCHEME_MAX_STEPS], step_len[LWT_SCHEME_MAX_STEPS];
};

struct fused_args {
    axis_tile ax[2];   /* 0: y (rows, axis 0), 1: x (columns, axis 1) */
    long tiles_x;
    int ntaps_total;
    size_t src_stride; /* elements per source row */
    void *dst[4];      /* band by mask: bit 0 = axis 0 detail, bit 1 = axis 1 detail */
    size_t dst_stride[4];
};

template <typename REAL, typename WREAL>
__device__ WREAL load2d(const REAL *x, size_t stride, const axis_tile &ay, const axis_tile &ax, long yy, long xx)
{
    lwt_ext_terms ty, tx;
    lwt_extend(ay.mode, ay.n, yy, &ty);
    lwt_extend(ax.mode, ax.n, xx, &tx);
    WREAL v = 0;
    for (int a = 0; a < ty.n; a++) {
        WREAL row = 0;
        for (int b = 0; b < tx.n; b++)
            row += (WREAL)tx.w[b] * (WREAL)x[(size_t)ty.idx[a] * stride + (size_t)tx.idx[b]];
        v += (WREAL)ty.w[a] * row;
    }
    return v;
}

template <typename REAL, typename WREAL>
__global__ void __launch_bounds__(256) fused_forward(const fused_args A, const lwt_dev_scheme s,
                                                     const REAL *__restrict__ src)
{
    extern __shared__ unsigned char smem_raw[];
    WREAL *sm = reinterpret_cast<WREAL *>(smem_raw);
    const axis_tile &ay = A.ax[0], &ax = A.ax[1];
    const long tx = blockIdx.x % A.tiles_x, ty = blockIdx.x / A.tiles_x;
    const long sx = tx * FTX, sy = ty * FTY; /* output shifts */
    const long lox[2] = {ax.lo[0] + sx, ax.lo[1] + sx}, loy[2] = {ay.lo[0] + sy, ay.lo[1] + sy};
    const int RW = ax.len[0] + ax.len[1], R = ay.len[0] + ay.len[1];
    WREAL *taps = sm + (size_t)R * RW;
    const int cx_t = threadIdx.x % 32, ry_t = threadIdx.x / 32, rstep = blockDim.x / 32;
    for (int i = threadIdx.x; i < A.ntaps_total; i += blockDim.x)
        taps[i] = (WREAL)s.taps[i];

    /* load: smem row (cy, my) holds y-channel sample 2 (loy[cy] + my) + cy;
       within a row, x-channel cx at column (cx ? len0 : 0) + mx */
    const long xlo = min(2 * lox[0], 2 * lox[1] + 1);
    const long xhi = max(2 * (lox[0] + ax.len[0]) - 1, 2 * (lox[1] + ax.len[1]));
    const int NX = (int)(xhi - xlo);
    const long ylo = min(2 * loy[0], 2 * loy[1] + 1);
    const long yhi = max(2 * (loy[0] + ay.len[0]) - 1, 2 * (loy[1] + ay.len[1]));
    const bool interior = xlo + ax.delta >= 0 && xhi + ax.delta <= ax.n && ylo + ay.delta >= 0 &&
                          yhi + ay.delta <= ay.n;
    for (int rr = ry_t; rr < R; rr += rstep) {
        const int cy = rr >= ay.len[0];
        const int my = rr - (cy ? ay.len[0] : 0);
        const long yy = 2 * (loy[cy] + my) + cy + ay.delta;
        WREAL *row = sm + (size_t)rr * RW;
        const REAL *grow = src + (interior ? (size_t)yy * A.src_stride : 0);
        for (int j = cx_t; j < NX; j += 32) {
            const long n = xlo + j;
            const int cx = (int)(n & 1);
            const int mx = (int)((n - cx) / 2 - lox[cx]);
            if (mx < 0 || mx >= ax.len[cx])
                continue;
            const long xx = n + ax.delta;
            row[(cx ? ax.len[0] : 0) + mx] =
                interior ? (WREAL)grow[xx] : load2d<REAL, WREAL>(src, A.src_stride, ay, ax, yy, xx);
        }
    }
    __syncthreads();

    /* row lifting on every row of the region */
    for (int k = 0; k < s.nsteps; k++) {
        const lwt_step st = s.steps[k];
        const int t = st.target, u = 1 - t;
        const int len = ax.step_len[k];
        const int dbase = (t ? ax.len[0] : 0) + (int)(ax.step_lo[k] + sx - lox[t]);
        const int sbase = (u ? ax.len[0] : 0) + (int)(ax.step_lo[k] + sx + st.off - lox[u]);
        const WREAL *tq = taps + st.first;
        const int nt = st.ntaps;
        for (int rr = ry_t; rr < R; rr += rstep) {
            WREAL *row = sm + (size_t)rr * RW;
            for (int m = cx_t; m < len; m += 32) {
                const WREAL *sp = row + sbase + m;
                WREAL acc = 0;
                for (int q = 0; q < nt; q++)
                    acc += tq[q] * sp[q];
                row[dbase + m] += acc;
            }
        }
        __syncthreads();
    }

    /* column lifting on the 2 FTX columns holding outputs (scales applied at the end) */
    const int qa0 = (s.ach ? ax.len[0] : 0) + (int)(sx + s.sa - lox[s.ach]);
    const int qd0 = (s.ach ? 0 : ax.len[0]) + (int)(sx + s.sd - lox[1 - s.ach]);
    for (int k = 0; k < s.nsteps; k++) {
        const lwt_step st = s.steps[k];
        const int t = st.target, u = 1 - t;
        const int len = ay.step_len[k];
        const int dbase = (t ? ay.len[0] : 0) + (int)(ay.step_lo[k] + sy - loy[t]);
        const int sbase = (u ? ay.len[0] : 0) + (int)(ay.step_lo[k] + sy + st.off - loy[u]);
        const WREAL *tq = taps + st.first;
        const int nt = st.ntaps;
        for (int m = ry_t; m < len; m += rstep)
            for (int j = cx_t; j < 2 * FTX; j += 32) {
                const int col = j < FTX ? qa0 + j : qd0 + j - FTX;
                const WREAL *sp = sm + (size_t)(sbase + m) * RW + col;
                WREAL acc = 0;
                for (int q = 0; q < nt; q++)
                    acc += tq[q] * sp[(size_t)q * RW];
                sm[(size_t)(dbase + m) * RW + col] += acc;
            }
        __syncthreads();
    }

    /* write the four bands */
    const int ra0 = (s.ach ? ay.len[0] : 0) + (int)(sy + s.sa - loy[s.ach]);
    const int rd0 = (s.ach ? 0 : ay.len[0]) + (int)(sy + s.sd - loy[1 - s.ach]);
    const WREAL kk[2] = {(WREAL)s.ka, (WREAL)s.kd};
    for (int r = ry_t; r < FTY; r += rstep) {
        const long ky = sy + r;
        if (ky >= ay.nc)
            break;
        for (int j = cx_t; j < FTX; j += 32) {
            const long kx = sx + j;
            if (kx >= ax.nc)
                break;
            for (int band = 0; band < 4; band++) {
                const int by = band & 1, bx = band >> 1;
                const WREAL v = sm[(size_t)((by ? rd0 : ra0) + r) * RW + (bx ? qd0 : qa0) + j];
                ((REAL *)A.dst[band])[(size_t)ky * A.dst_stride[band] + kx] = (REAL)(kk[by] * kk[bx] * v);
            }
        }
    }
}

void fill_axis(axis_tile *t, const lwt_scheme *s, lwt_mode mode, int F, long n, long T)
{
    lwt_line_prog *p = new lwt_line_prog;
    lwt_line_prog_forward(p, s, 0, F, mode, n);
    lwt_line_ranges_forward(p, s, 0, T);
    t->n = n;
    t->nc = p->nc;
    t->delta = p->delta;
    t->mode = (int)mode;
    for (int c = 0; c < 2; c++) {
        t->lo[c] = (int)p->ch[c].lo;
        t->len[c] = (int)(p->ch[c].hi - p->ch[c].lo);
    }
    for (int k = 0; k < s->nsteps; k++) {
        t->step_lo[k] = (int)p->step[k].lo;
        t->step_len[k] = (int)(p->step[k].hi - p->step[k].lo);
    }
    delete p;
}

template <typename REAL, typename WREAL>
cudaError_t launch(const fused_args &A, const lwt_dev_scheme *dev, const void *src, size_t smem, long tiles,
                   cudaStream_t stream)
{
    auto k = fused_forward<REAL, WREAL>;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    k<<<(unsigned)tiles, 256, smem, stream>>>(A, *dev, (const REAL *)src);
    return cudaGetLastError();
}

} // namespace

bool lwt_cuda_fused2d_forward(const lwt_scheme *s, const lwt_dev_scheme *dev, lwt_dtype dtype, lwt_mode mode, int F,
                              const void *src, size_t n0, size_t n1, void *const dst[4], const size_t dst_stride[4],
                              cudaStream_t stream, cudaError_t *err)
{
    fused_args *A = new fused_args;
    fill_axis(&A->ax[0], s, mode, F, (long)n0, FTY);
    fill_axis(&A->ax[1], s, mode, F, (long)n1, FTX);
    const bool use_float = dtype == LWT_F32 && dev->f32_in_float;
    const size_t es = use_float ? 4 : 8;
    const size_t R = (size_t)(A->ax[0].len[0] + A->ax[0].len[1]), RW = (size_t)(A->ax[1].len[0] + A->ax[1].len[1]);
    const size_t smem = (R * RW + (size_t)s->ntaps_total) * es;
    if (smem > 160 * 1024) {
        delete A;
        return false;
    }
    A->tiles_x = (A->ax[1].nc + FTX - 1) / FTX;
    const long tiles = A->tiles_x * ((A->ax[0].nc + FTY - 1) / FTY);
    A->ntaps_total = s->ntaps_total;
    A->src_stride = n1;
    for (int b = 0; b < 4; b++) {
        A->dst[b] = dst[b];
        A->dst_stride[b] = dst_stride[b];
    }
    if (dtype == LWT_F32)
        *err = use_float ? launch<float, float>(*A, dev, src, smem, tiles, stream)
                         : launch<float, double>(*A, dev, src, smem, tiles, stream);
    else
        *err = launch<double, double>(*A, dev, src, smem, tiles, stream);
    delete A;
    return true;
}
