/*
 * The sliding-window 2-D level on the GPU (seed 000's LBB model, core/slide.h):
 * one block per strip x segment, the ring of rows in shared memory, the body
 * shared with the CPU runner (core/slide_body.h). Warps take rows and lanes
 * take columns, so every global row access is one coalesced segment.
 */
#include <cuda_runtime.h>

extern "C" {
#include "core/extend.h"
#include "core/slide.h"
}
#include "cuda/cuda_kernels.cuh"

namespace {

#include "cuda/cuda_slide_body.cuh"

#define SLIDE_THREADS 256       /* default threads per block */
#define SLIDE_MAX_THREADS 1024  /* lwt_plan_desc.lbb_threads may ask for up to this */

struct slide_io {
    const void *in[4];
    size_t in_stride[4];
    void *out[4];
    size_t out_stride[4];
    double k[4]; /* forward: band scales; inverse: their inverses */
};

struct slide_scheme {
    const lwt_step *steps;
    const double *taps;
    const int *tab; /* the block schedule (lwt_slide_table), device memory */
    int ntaps_total, ach;
    long sa, sd;
};

#define SLIDE_KERNEL(SUF, REAL_T, WREAL_T)                                                                          \
    __global__ void __launch_bounds__(SLIDE_MAX_THREADS, 1) slide_kernel_##SUF(const __grid_constant__ lwt_slide_geom G,  \
                                              const __grid_constant__ slide_scheme sc, const __grid_constant__ slide_io io) \
    {                                                                                                             \
        extern __shared__ unsigned char smem_raw[];                                                               \
        WREAL_T *taps = reinterpret_cast<WREAL_T *>(smem_raw);                                                    \
        WREAL_T *ring = taps + ((sc.ntaps_total + 1) & ~1);                                                       \
        int *tab = reinterpret_cast<int *>(ring + (size_t)2 * G.C * G.RW);                                        \
        for (int i = threadIdx.x; i < sc.ntaps_total; i += blockDim.x)                                            \
            taps[i] = (WREAL_T)sc.taps[i];                                                                        \
        for (int i = threadIdx.x; i < G.iters * LWT_SLIDE_TAB(&G); i += blockDim.x)                               \
            tab[i] = sc.tab[i];                                                                                   \
        __syncthreads();                                                                                          \
        const slide_thr_##SUF th = {(int)(threadIdx.x % 32), 32, (int)(threadIdx.x / 32), (int)(blockDim.x / 32), \
                                    (int)threadIdx.x, (int)blockDim.x};                                           \
        const WREAL_T kk[4] = {(WREAL_T)io.k[0], (WREAL_T)io.k[1], (WREAL_T)io.k[2], (WREAL_T)io.k[3]};           \
        if (G.inverse) {                                                                                          \
            const REAL_T *const src[4] = {(const REAL_T *)io.in[0], (const REAL_T *)io.in[1],                     \
                                          (const REAL_T *)io.in[2], (const REAL_T *)io.in[3]};                    \
            slide_inverse_##SUF(&G, sc.steps, taps, sc.ach, sc.sa, sc.sd, kk, src, io.in_stride,                  \
                                (REAL_T *)io.out[0], io.out_stride[0], ring, tab, (long)blockIdx.x, &th);              \
        } else {                                                                                                  \
            REAL_T *const dst[4] = {(REAL_T *)io.out[0], (REAL_T *)io.out[1], (REAL_T *)io.out[2],                \
                                    (REAL_T *)io.out[3]};                                                         \
            slide_forward_##SUF(&G, sc.steps, taps, sc.ach, sc.sa, sc.sd, kk, (const REAL_T *)io.in[0],           \
                                io.in_stride[0], dst, io.out_stride, ring, tab, (long)blockIdx.x, &th);                \
        }                                                                                                         \
    }

SLIDE_KERNEL(ff, float, float)
SLIDE_KERNEL(fd, float, double)
SLIDE_KERNEL(dd, double, double)

template <typename K>
cudaError_t launch(K kernel, const lwt_slide_geom &g, const slide_scheme &sc, const slide_io &io, size_t smem,
                   int threads, cudaStream_t stream)
{
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    kernel<<<(unsigned)(g.tiles[0] * g.tiles[1]), (unsigned)threads, smem, stream>>>(g, sc, io);
    return cudaGetLastError();
}

} // namespace

/* shared memory of one block: taps, the ring, the schedule */
static size_t slide_smem(const lwt_slide_geom *g, int ntaps_total, size_t es)
{
    return ((size_t)((ntaps_total + 1) & ~1) + (size_t)2 * g->C * g->RW) * es +
           sizeof(int) * (size_t)g->iters * LWT_SLIDE_TAB(g);
}

cudaError_t lwt_cuda_slide2d(const lwt_slide_geom *g, const int *d_tab, const lwt_dev_scheme *dev, int ntaps_total,
                             int threads, lwt_dtype dtype, const void *const in[4], const size_t in_stride[4], void *const out[4],
                             const size_t out_stride[4], cudaStream_t stream)
{
    slide_scheme sc;
    sc.steps = dev->steps;
    sc.taps = dev->taps;
    sc.tab = d_tab;
    sc.ntaps_total = ntaps_total;
    sc.ach = dev->ach;
    sc.sa = dev->sa;
    sc.sd = dev->sd;
    slide_io io;
    for (int b = 0; b < 4; b++) {
        io.in[b] = in[b];
        io.in_stride[b] = in_stride[b];
        io.out[b] = out[b];
        io.out_stride[b] = out_stride[b];
        io.k[b] = lwt_slide_scale(dev->ka, dev->kd, g->inverse, b);
    }
    const int nth = threads > 0 ? threads : SLIDE_THREADS;
    if (dtype == LWT_F64)
        return launch(slide_kernel_dd, *g, sc, io, slide_smem(g, ntaps_total, 8), nth, stream);
    if (dev->f32_in_float)
        return launch(slide_kernel_ff, *g, sc, io, slide_smem(g, ntaps_total, 4), nth, stream);
    return launch(slide_kernel_fd, *g, sc, io, slide_smem(g, ntaps_total, 8), nth, stream);
}
