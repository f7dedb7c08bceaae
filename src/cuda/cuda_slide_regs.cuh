/* The sliding-window 2-D level with the vertical window in registers
 * (cuda_slide_regs.cu): for schemes of a compiled-in shape, the same tiles
 * and results as lwt_cuda_slide2d. */
#ifndef LWT_CUDA_SLIDE_REGS_CUH
#define LWT_CUDA_SLIDE_REGS_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/scheme.h"
#include "core/slide.h"
}

#define LWT_RS_MAX_TAPS 32 /* taps of the longest compiled-in shape, rounded up */

/* the compiled-in shape of s (a non-negative id), or -1 */
int lwt_cuda_slide_regs_shape(const lwt_scheme *s);

/* threads per block (one per strip column) */
int lwt_cuda_slide_regs_threads(void);

/* whether a level planned as g fits one thread per column of its strips */
int lwt_cuda_slide_regs_fits(const lwt_slide_geom *g);

/* one level: in/out as lwt_cuda_slide2d; float32 computes in float. improved: the
   steps along the rows in predict-update pairs, one warp exchange per pair (seed
   000's eq. 16), else one per step (classic); the same bits either way */
cudaError_t lwt_cuda_slide2d_regs(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s, lwt_dtype dtype,
                                  const void *const in[4], const size_t in_stride[4], void *const out[4],
                                  const size_t out_stride[4], cudaStream_t stream);

#endif
