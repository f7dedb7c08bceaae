/* The sliding-window 2-D level with the vertical window in registers
 * (cuda_slide_regs.cu): for schemes of a compiled-in shape, the same tiles
 * and results as lwt_cuda_slide2d. */
#ifndef LWT_CUDA_SLIDE_REGS_CUH
#define LWT_CUDA_SLIDE_REGS_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/line.h"
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

/* a level planned for the register kernel (lwt_slide_plan_rows, strips as wide as
   one thread per column allows; rows 0: the whole axis), or NULL where it does not
   apply: not a compiled-in shape, the forward of smooth and antireflect (whose
   columns outside the array are extended after the vertical steps), no fit.
   Tiles are short (16 rows): the kernels run as many blocks as the device holds,
   each sliding down an equal share of the tiles. Free with free(). */
lwt_slide_geom *lwt_cuda_slide_regs_plan(const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0, long n1,
                                         long nc0, long nc1, long rows, size_t es);

/* one level: in/out as lwt_cuda_slide2d; float32 computes in float. improved: the
   steps along the rows in predict-update pairs, one warp exchange per pair (seed
   000's eq. 16), else one per step (classic); the same bits either way */
cudaError_t lwt_cuda_slide2d_regs(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s, lwt_dtype dtype,
                                  const void *const in[4], const size_t in_stride[4], void *const out[4],
                                  const size_t out_stride[4], cudaStream_t stream);

/* nbatch such levels at once, slice z's band b at in[b] + z in_bstride[b] and
   out[b] + z out_bstride[b] (elements): the planes of a 3-D level */
cudaError_t lwt_cuda_slide2d_regs_batch(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s,
                                        lwt_dtype dtype, const void *const in[4], const size_t in_stride[4],
                                        void *const out[4], const size_t out_stride[4], size_t nbatch,
                                        const size_t in_bstride[4], const size_t out_bstride[4], cudaStream_t stream);

/* the tile rows [t0, t1) of that level only, the same bits as in the whole level
   (a device's share of a level spread over several devices); regions > 1: the blocks
   at work at any time take their rows from that many places of [t0, t1)
   (lwt_slide_runs_plan), 1: in order */
cudaError_t lwt_cuda_slide2d_regs_tiles(int shape, int improved, const lwt_slide_geom *g, const lwt_scheme *s,
                                        lwt_dtype dtype, const void *const in[4], const size_t in_stride[4],
                                        void *const out[4], const size_t out_stride[4], long t0, long t1,
                                        int regions, cudaStream_t stream);

/* A level of a float16/bfloat16 plan (cuda_half.cu) as lwt_cuda_slide2d_regs computes it in
   float32 with classic lifting, its detail bands stored in 16 bits (bfloat16 when bf16, else
   float16), and its signal side too (the forward's input, the inverse's output) when signal16;
   the approximation band is float32 either way. Each 16-bit value is the float32 one rounded
   once (core/half.h). nbatch (at most 65535) such levels at once as lwt_cuda_slide2d_regs_batch's,
   the batch strides in elements of each array's own type. */
cudaError_t lwt_cuda_slide2d_regs_half(int shape, const lwt_slide_geom *g, const lwt_scheme *s, int bf16, int signal16,
                                       const void *const in[4], const size_t in_stride[4], void *const out[4],
                                       const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                                       const size_t out_bstride[4], cudaStream_t stream);

/* A streamed chunk's forward level (g from lwt_cuda_slide_regs_plan with rows =
   row_end - row0): coefficient rows [row0, row_end) from the input rows that win
   places in `in` (rows of in_stride elements), into out[b] (band b as the
   driver's fused2d: bit 0 detail along axis 0, bit 1 along axis 1; row k at k -
   row0). Double arithmetic in the CPU backend's order, float32 rounded between
   the vertical and horizontal steps as the CPU's two passes round it: the same
   bits as the CPU backend. */
cudaError_t lwt_cuda_slide2d_regs_part(int shape, const lwt_slide_geom *g, const lwt_scheme *s, lwt_dtype dtype,
                                       const lwt_window *win, long row0, long row_end, const void *in,
                                       size_t in_stride, void *const out[4], size_t out_stride, cudaStream_t stream);

#endif
