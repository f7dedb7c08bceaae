/* Kernels of the CUDA backend and their launchers (host side, C++). */
#ifndef LWT_CUDA_KERNELS_CUH
#define LWT_CUDA_KERNELS_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/backend.h"
#include "core/slide.h"
}

/* The scheme and filters as the kernels see them: pointers into the plan's
 * device table, passed by value with each launch. */
struct lwt_dev_scheme {
    const lwt_step *steps;
    const double *taps;
    const double *filters; /* dec_lo, dec_hi, rec_lo, rec_hi, F each */
    int F, nsteps, ach, sa, sd;
    double ka, kd;
    int f32_in_float; /* float32 plans may compute in float (scheme measured accurate enough) */
};

/* One pass (all lines along one axis) on the stream; scratch holds the
 * per-line work buffers. Returns the launch status. */
cudaError_t lwt_cuda_launch_pass(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch,
                                 cudaStream_t stream);

/* Seed 000's plain RC (cuda_steps.cu): a kernel per lifting step over all lines,
   the channels in scratch (the line kernel's layout and arithmetic). */
cudaError_t lwt_cuda_launch_steps(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch, cudaStream_t stream);

/* The line kernel: one thread per line, per-line work in scratch. */
cudaError_t lwt_cuda_launch_lines(const lwt_pass *ps, const lwt_dev_scheme *dev, double *scratch, cudaStream_t stream);

/* The tiled fast path; false when it does not apply (direct filter bank,
 * schemes too long for shared memory), leaving the pass to the line kernel. */
bool lwt_cuda_launch_tiles(const lwt_pass *ps, const lwt_dev_scheme *dev, cudaStream_t stream, cudaError_t *err);
/* Whether a pass would take the tiled path (and so needs no scratch). */
bool lwt_cuda_tiles_apply(const lwt_pass *ps, bool f32_in_float);

/* A whole pass along a strided axis (inner > 1, no map, no window) for the
 * compiled-in scheme shapes, with the lifting window in registers
 * (cuda_columns.cu); false when it does not apply. Within the plan's bounds
 * of the CPU, not bit for bit: the in-memory driver's passes only. */
bool lwt_cuda_launch_columns(const lwt_pass *ps, const lwt_dev_scheme *dev, cudaStream_t stream, cudaError_t *err);
/* Whether a pass would take the column kernel (pure host code: the planner asks). */
bool lwt_cuda_columns_apply(const lwt_pass *ps);

/* One sliding-window level of a 2-D array (cuda_slide.cu, core/slide.h):
 * in/out as the driver's fused2d operation, d_tab its lwt_slide_table in
 * device memory, threads per block 0 (256) or a multiple of 32 up to 1024. */
cudaError_t lwt_cuda_slide2d(const lwt_slide_geom *g, const int *d_tab, const lwt_dev_scheme *dev, int ntaps_total,
                             int threads, lwt_dtype dtype, const void *const in[4], const size_t in_stride[4], void *const out[4],
                             const size_t out_stride[4], cudaStream_t stream);

cudaError_t lwt_cuda_launch_copy_block(size_t es, const void *src, const size_t *sshape, const size_t *soff,
                                       void *dst, const size_t *dshape, const size_t *doff, const size_t *block,
                                       cudaStream_t stream);

/* zero n blocks of a C-order 3-D array of es-byte elements (a launch per 32 blocks) */
cudaError_t lwt_cuda_zero_blocks(size_t es, void *dst, const size_t *dshape, const lwt_box *blocks, size_t n,
                                 cudaStream_t stream);

#endif
