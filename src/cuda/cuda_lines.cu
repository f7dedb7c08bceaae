/*
 * The general CUDA pass: one thread per line, for every wavelet, mode,
 * direction and axis. It is the CPU backend's algorithm with the lanes
 * spread over threads: the work buffers live in a device scratch laid out
 * [index][line], so neighbouring threads touch neighbouring addresses. It
 * computes in double for both dtypes, like the CPU, and uses the same line
 * programs (core/line.h) and extension (core/extend.h).
 */
#include <cuda_runtime.h>

extern "C" {
#include "core/extend.h"
#include "core/line.h"
}
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_line_ops.cuh"
#include "cuda/cuda_loads.cuh"

namespace {

template <typename REAL>
__global__ void pass_kernel(const lwt_line_prog p, const lwt_dev_scheme s, const REAL *in, REAL *out, size_t outer,
                            size_t inner, double *scratch)
{
    const size_t nl = outer * inner;
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nl)
        return;
    const size_t o = t / inner, c = t % inner;
    const size_t n_in = (size_t)lwt_prog_in_extent(&p), n_out = (size_t)lwt_prog_out_extent(&p);
    const size_t bin = (size_t)lwt_prog_in_band(&p), bout = (size_t)(p.out_hi - p.out_lo);
    const REAL *x = in + o * n_in * inner + c;
    REAL *y = out + o * n_out * inner + c;
    const size_t st = inner;

    if (p.direct) {
        const int F = s.F;
        const long lo = p.span.lo, len = p.span.hi - p.span.lo;
        double *b0 = scratch, *b1 = scratch + (size_t)len * nl;
        if (!p.inverse) {
            for (long n = lo; n < p.span.hi; n++)
                b0[(size_t)(n - lo) * nl + t] = lwt_dev_load_ext<REAL, double>(x, st, p.mode, p.n, n + p.delta, p.win);
            const double *h = s.filters, *g = s.filters + F;
            for (long k = p.out_lo; k < p.out_hi; k++) {
                double a = 0, d = 0;
                for (int j = 0; j < F; j++) {
                    double v = b0[(size_t)(2 * k + 1 - j - lo) * nl + t];
                    a += __ldg(h + j) * v;
                    d += __ldg(g + j) * v;
                }
                y[(size_t)(k - p.out_lo) * st] = (REAL)a;
                y[(size_t)(bout + k - p.out_lo) * st] = (REAL)d;
            }
        } else {
            for (long i = lo; i < p.span.hi; i++) {
                b0[(size_t)(i - lo) * nl + t] = lwt_dev_load_coeff<REAL, double>(x, st, p, i);
                b1[(size_t)(i - lo) * nl + t] = lwt_dev_load_coeff<REAL, double>(x + bin * st, st, p, i);
            }
            const double *rl = s.filters + 2 * F, *rh = s.filters + 3 * F;
            for (long m = p.out_lo; m < p.out_hi; m++) {
                long q = m - p.sigma;
                int e = (int)lwt_mod(q, 2);
                long i = lwt_floor_div(q, 2);
                double acc = 0;
                for (int j = 0; j < F / 2; j++) {
                    size_t idx = (size_t)(i - j - lo) * nl + t;
                    acc += __ldg(rl + 2 * j + e) * b0[idx] + __ldg(rh + 2 * j + e) * b1[idx];
                }
                y[(size_t)(m - p.out_lo) * st] = (REAL)acc;
            }
        }
        return;
    }

    const lwt_line_chans L = lwt_line_layout(p, scratch, nl);
    for (int cc = 0; cc < 2; cc++)
        for (long m = p.ch[cc].lo; m < p.ch[cc].hi; m++)
            L.ch[cc][(size_t)(m - p.ch[cc].lo) * nl + t] = lwt_line_in<REAL>(p, s, x, st, bin, cc, m);
    for (int k = 0; k < s.nsteps; k++) {
        const int si = p.inverse ? s.nsteps - 1 - k : k;
        for (long m = p.step[si].lo; m < p.step[si].hi; m++)
            lwt_line_step_at(p, s, si, m, L, t, nl);
    }
    for (long k = p.out_lo; k < p.out_hi; k++)
        lwt_line_out<REAL>(p, s, y, st, bout, L, t, nl, k);
}

/* rows of the block along grid.y (looped), contiguous runs along grid.x;
 * each thread moves COPY_PER_THREAD elements of a row, with the row
 * addresses computed once (index arithmetic, not bandwidth, limited the
 * one-element-per-thread version) */
#define COPY_PER_THREAD 4
template <typename T>
__global__ void copy_block_kernel(const T *src, size_t s1, size_t s2, size_t so0, size_t so1, size_t so2, T *dst,
                                  size_t d1, size_t d2, size_t do0, size_t do1, size_t do2, size_t b0, size_t b1,
                                  size_t b2)
{
    const size_t c0 = blockIdx.x * (size_t)blockDim.x * COPY_PER_THREAD + threadIdx.x;
    for (size_t r = blockIdx.y; r < b0 * b1; r += gridDim.y) {
        const size_t i0 = r / b1, i1 = r - i0 * b1;
        const T *srow = src + ((so0 + i0) * s1 + so1 + i1) * s2 + so2;
        T *drow = dst + ((do0 + i0) * d1 + do1 + i1) * d2 + do2;
        T v[COPY_PER_THREAD];
#pragma unroll
        for (int u = 0; u < COPY_PER_THREAD; u++) {
            const size_t i2 = c0 + (size_t)u * blockDim.x;
            if (i2 < b2)
                v[u] = srow[i2];
        }
#pragma unroll
        for (int u = 0; u < COPY_PER_THREAD; u++) {
            const size_t i2 = c0 + (size_t)u * blockDim.x;
            if (i2 < b2)
                drow[i2] = v[u];
        }
    }
}

} // namespace

cudaError_t lwt_cuda_launch_pass(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch,
                                 cudaStream_t stream)
{
    cudaError_t terr = cudaSuccess;
    if (lwt_cuda_launch_tiles(ps, dev, stream, &terr))
        return terr;
    return lwt_cuda_launch_lines(ps, dev, scratch, stream);
}

cudaError_t lwt_cuda_launch_lines(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch, cudaStream_t stream)
{
    const size_t nl = ps->outer * ps->inner;
    const unsigned threads = 128;
    const unsigned blocks = (unsigned)((nl + threads - 1) / threads);
    if (ps->dtype == LWT_F32)
        pass_kernel<float><<<blocks, threads, 0, stream>>>(*ps->prog, *dev, (const float *)ps->in,
                                                           (float *)ps->out, ps->outer, ps->inner, scratch);
    else
        pass_kernel<double><<<blocks, threads, 0, stream>>>(*ps->prog, *dev, (const double *)ps->in,
                                                            (double *)ps->out, ps->outer, ps->inner, scratch);
    return cudaGetLastError();
}

cudaError_t lwt_cuda_launch_copy_block(size_t es, const void *src, const size_t *ss, const size_t *so, void *dst,
                                       const size_t *ds, const size_t *dof, const size_t *b, cudaStream_t stream)
{
    if (b[0] * b[1] * b[2] == 0)
        return cudaSuccess;
    const unsigned threads = 256;
    const size_t rows = b[0] * b[1];
    const size_t per_block = (size_t)threads * COPY_PER_THREAD;
    dim3 blocks((unsigned)((b[2] + per_block - 1) / per_block), (unsigned)(rows < 65535 ? rows : 65535));
    if (es == 4)
        copy_block_kernel<unsigned int><<<blocks, threads, 0, stream>>>(
            (const unsigned int *)src, ss[1], ss[2], so[0], so[1], so[2], (unsigned int *)dst, ds[1], ds[2], dof[0],
            dof[1], dof[2], b[0], b[1], b[2]);
    else
        copy_block_kernel<unsigned long long><<<blocks, threads, 0, stream>>>(
            (const unsigned long long *)src, ss[1], ss[2], so[0], so[1], so[2], (unsigned long long *)dst, ds[1],
            ds[2], dof[0], dof[1], dof[2], b[0], b[1], b[2]);
    return cudaGetLastError();
}

/* Blocks of an array zeroed, blockIdx.y the block: a kernel, not cudaMemset3DAsync per block,
   which took 6 ms more than this for the 3-D gaps of a 512^3 symmetric plan (H200). */
constexpr int ZERO_BOXES = 32;
struct zero_boxes_args {
    size_t ds1, ds2;
    size_t off[ZERO_BOXES][3], ext[ZERO_BOXES][3];
};

template <typename T> __global__ void zero_boxes_kernel(T *dst, const __grid_constant__ zero_boxes_args A)
{
    const size_t *o = A.off[blockIdx.y], *e = A.ext[blockIdx.y];
    const size_t total = e[0] * e[1] * e[2];
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        const size_t k = i % e[2], t = i / e[2], j = t % e[1], h = t / e[1];
        dst[((o[0] + h) * A.ds1 + o[1] + j) * A.ds2 + o[2] + k] = 0;
    }
}

cudaError_t lwt_cuda_zero_blocks(size_t es, void *dst, const size_t *ds, const lwt_box *blocks, size_t n,
                                 cudaStream_t stream)
{
    for (size_t b0 = 0; b0 < n; b0 += ZERO_BOXES) {
        zero_boxes_args A;
        A.ds1 = ds[1];
        A.ds2 = ds[2];
        const unsigned nb = (unsigned)(n - b0 < (size_t)ZERO_BOXES ? n - b0 : (size_t)ZERO_BOXES);
        size_t most = 0;
        for (unsigned i = 0; i < nb; i++) {
            const lwt_box *b = &blocks[b0 + i];
            for (int k = 0; k < 3; k++) {
                A.off[i][k] = b->off[k];
                A.ext[i][k] = b->ext[k];
            }
            const size_t t = b->ext[0] * b->ext[1] * b->ext[2];
            most = t > most ? t : most;
        }
        if (!most)
            continue;
        const unsigned threads = 256;
        const dim3 grid((unsigned)((most + threads - 1) / threads < 1024 ? (most + threads - 1) / threads : 1024), nb);
        if (es == 2) /* float16/bfloat16 (cuda_half.cu) */
            zero_boxes_kernel<unsigned short><<<grid, threads, 0, stream>>>((unsigned short *)dst, A);
        else if (es == 4)
            zero_boxes_kernel<unsigned int><<<grid, threads, 0, stream>>>((unsigned int *)dst, A);
        else
            zero_boxes_kernel<unsigned long long><<<grid, threads, 0, stream>>>((unsigned long long *)dst, A);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}
