/*
 * Seed 000's plain RC arrangement (LWT_ALGO_LIFTING_RC_STEPS): a pass along
 * one axis as a kernel per lifting step. The line programs, extension and
 * arithmetic are the line kernel's (cuda_line_ops.cuh: double, the CPU backend's
 * order); what differs is that every stage is its own launch over the whole
 * array, a thread per (line, index):
 *
 *   load  - the samples (forward) or band coefficients (inverse) of every
 *           line into its two channels in global scratch, [index][line];
 *   step  - one lifting step on every line (one launch per step: the
 *           device-wide synchronization between steps the seed blames for
 *           RC's fall with size);
 *   store - the channels, scaled, to the bands (forward) or the samples.
 *
 * It exists to be measured against the one-kernel passes (RC&LB) and the
 * sliding window (LBB), not to be fast.
 */
#include <cuda_runtime.h>

extern "C" {
#include "core/line.h"
}
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_line_ops.cuh"

namespace {

constexpr unsigned ST_THREADS = 128;

template <typename REAL>
__global__ void st_load(const lwt_line_prog p, const lwt_dev_scheme s, const REAL *in, size_t outer, size_t inner,
                        double *scratch)
{
    const size_t nl = outer * inner, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nl)
        return;
    const size_t o = t / inner, c = t % inner;
    const REAL *x = in + o * (size_t)lwt_prog_in_extent(&p) * inner + c;
    const size_t bin = (size_t)lwt_prog_in_band(&p);
    const lwt_line_chans L = lwt_line_layout(p, scratch, nl);
    const long len0 = p.ch[0].hi - p.ch[0].lo, len1 = p.ch[1].hi - p.ch[1].lo;
    for (long e = blockIdx.y; e < len0 + len1; e += gridDim.y) {
        const int cc = e < len0 ? 0 : 1;
        const long m = p.ch[cc].lo + (cc ? e - len0 : e);
        L.ch[cc][(size_t)(m - p.ch[cc].lo) * nl + t] = lwt_line_in<REAL>(p, s, x, inner, bin, cc, m);
    }
}

/* the step at execution position k on every line: the target channel's indices in the
   step's range, one per (thread, grid row) */
__global__ void st_step(const lwt_line_prog p, const lwt_dev_scheme s, int k, size_t nl, double *scratch)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nl)
        return;
    const int si = p.inverse ? s.nsteps - 1 - k : k;
    const lwt_line_chans L = lwt_line_layout(p, scratch, nl);
    for (long m = p.step[si].lo + blockIdx.y; m < p.step[si].hi; m += gridDim.y)
        lwt_line_step_at(p, s, si, m, L, t, nl);
}

template <typename REAL>
__global__ void st_store(const lwt_line_prog p, const lwt_dev_scheme s, REAL *out, size_t outer, size_t inner,
                         double *scratch)
{
    const size_t nl = outer * inner, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nl)
        return;
    const size_t o = t / inner, c = t % inner;
    REAL *y = out + o * (size_t)lwt_prog_out_extent(&p) * inner + c;
    const lwt_line_chans L = lwt_line_layout(p, scratch, nl);
    for (long k = p.out_lo + blockIdx.y; k < p.out_hi; k += gridDim.y)
        lwt_line_out<REAL>(p, s, y, inner, (size_t)(p.out_hi - p.out_lo), L, t, nl, k);
}

/* grid rows for `count` indices: up to 1024 (then each thread loops) */
inline unsigned st_rows(long count) { return (unsigned)(count < 1 ? 1 : count > 1024 ? 1024 : count); }

template <typename REAL>
cudaError_t launch(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch, cudaStream_t stream)
{
    const lwt_line_prog &p = *ps->prog;
    const size_t nl = ps->outer * ps->inner;
    const unsigned bx = (unsigned)((nl + ST_THREADS - 1) / ST_THREADS);
    const long nch = (p.ch[0].hi - p.ch[0].lo) + (p.ch[1].hi - p.ch[1].lo);
    st_load<REAL><<<dim3(bx, st_rows(nch)), ST_THREADS, 0, stream>>>(p, *dev, (const REAL *)ps->in, ps->outer,
                                                                     ps->inner, scratch);
    cudaError_t e = cudaGetLastError();
    for (int k = 0; k < dev->nsteps && e == cudaSuccess; k++) {
        const int si = p.inverse ? dev->nsteps - 1 - k : k;
        const long len = p.step[si].hi - p.step[si].lo;
        if (len <= 0)
            continue;
        st_step<<<dim3(bx, st_rows(len)), ST_THREADS, 0, stream>>>(p, *dev, k, nl, scratch);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess)
        return e;
    st_store<REAL><<<dim3(bx, st_rows(p.out_hi - p.out_lo)), ST_THREADS, 0, stream>>>(p, *dev, (REAL *)ps->out,
                                                                                      ps->outer, ps->inner, scratch);
    return cudaGetLastError();
}

} // namespace

cudaError_t lwt_cuda_launch_steps(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch, cudaStream_t stream)
{
    if (ps->prog->direct) /* a filter bank has no steps: the line kernel */
        return lwt_cuda_launch_lines(ps, dev, scratch, stream);
    return ps->dtype == LWT_F32 ? launch<float>(ps, dev, scratch, stream) : launch<double>(ps, dev, scratch, stream);
}
