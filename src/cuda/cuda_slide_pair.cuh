/* Two forward 2-D levels in one pass with the register kernel's machinery
 * (cuda_slide_pair.cu, core/slide_pair.h). */
#ifndef LWT_CUDA_SLIDE_PAIR_CUH
#define LWT_CUDA_SLIDE_PAIR_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/scheme.h"
#include "core/slide_pair.h"
}

/* levels 1 and 2 of an n0 x n1 forward as one pass, or NULL where that does not
   apply (not a compiled-in shape, core/slide_pair.h's conditions). es: bytes of
   the working type (the element type). Free with free(). */
lwt_slide_pair *lwt_cuda_slide_pair_plan(const lwt_scheme *s, lwt_mode mode, int F, long n0, long n1, size_t es);

/* The pair: in, the n0 x n1 input (rows in_stride elements apart); out1[b], b =
   1..3, level 1's detail bands (bit 0: detail along axis 0, bit 1 along axis 1),
   out2[b], b = 0..3, level 2's four bands, rows out*_stride[b] apart. Classic
   lifting; the same bits as two one-level passes of lwt_cuda_slide2d_regs.
   nbatch such arrays at once: array z's input at in + z in_bstride, its bands at
   out1[b] + z out1_bstride[b] and out2[b] + z out2_bstride[b] (elements; the
   bstrides NULL for one array). */
cudaError_t lwt_cuda_slide_pair(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, lwt_dtype dtype,
                                const void *in, size_t in_stride, void *const out1[4], const size_t out1_stride[4],
                                void *const out2[4], const size_t out2_stride[4], size_t nbatch, size_t in_bstride,
                                const size_t out1_bstride[4], const size_t out2_bstride[4], cudaStream_t stream);

/* level 2's tile rows [t0, t1) of the pair only, one float32 array, the same bits as in the
   whole pair (a device's share of a spread, stream/spread_job.cu); regions as
   lwt_cuda_slide2d_regs_tiles' */
cudaError_t lwt_cuda_slide_pair_tiles(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, const void *in,
                                      size_t in_stride, void *const out1[4], const size_t out1_stride[4],
                                      void *const out2[4], const size_t out2_stride[4], long t0, long t1, int regions,
                                      cudaStream_t stream);

/* The pair of a float16/bfloat16 plan (cuda_half.cu), float32 arithmetic: the detail bands
   stored in 16 bits (bfloat16 when bf16, else float16), the input too when signal16, level 2's
   approximation in float32 (cuda_store16.cuh). */
cudaError_t lwt_cuda_slide_pair_half(int shape, const lwt_slide_pair *pp, const lwt_scheme *s, int bf16, int signal16,
                                     const void *in, size_t in_stride, void *const out1[4],
                                     const size_t out1_stride[4], void *const out2[4], const size_t out2_stride[4],
                                     size_t nbatch, size_t in_bstride, const size_t out1_bstride[4],
                                     const size_t out2_bstride[4], cudaStream_t stream);

#endif
