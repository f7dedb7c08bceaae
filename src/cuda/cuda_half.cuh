/* 16-bit plans on device pointers (cuda_half.cu), called by lwt_cuda.h's entry points. */
#ifndef LWT_CUDA_HALF_CUH
#define LWT_CUDA_HALF_CUH

#include <cuda_runtime.h>

#include "lwt.h"

/* whether the 16-bit plan of float32 CUDA plan q runs fused levels (lwt_backend_ops.half_fused):
   2-D arrays (a batch of at most 65535) whose every level both ways runs on the register kernel,
   classic lifting */
extern "C" int lwt_cuda_half_fused(const lwt_plan *q);
/* device workspace of a 16-bit plan (p->f32 set) */
lwt_status lwt_cuda_half_workspace(const lwt_plan *p, size_t *bytes);
/* the fused levels of 16-bit plan p (p->half_fused) on device arrays, asynchronously on stream
   (the caller has set the device): the driver's walk of its float32 plan's steps
   (lwt_driver_run_half, cuda_backend.cu), the approximations between levels in ab[0] and ab[1],
   each of at least p->f32->buf_elems floats (its float32 plan's driver buffers will do) */
lwt_status lwt_cuda_half_fused_run(const lwt_plan *p, const void *d_in, void *d_out, float *ab[2], cudaStream_t stream,
                                   int inverse);
/* nbatch arrays of rows x cols values between float32 arrays and 16-bit ones (bfloat16 when bf16,
   else float16; narrow: float32 in), row and array strides in values: a 16-bit plan's coarsest
   approximations between its float32 buffer and the packed arrays' corners
   (lwt_backend_ops.half_corner), in one launch */
cudaError_t lwt_cuda_half_corner(int bf16, int narrow, const void *in, size_t in_stride, size_t in_bstride, void *out,
                                 size_t out_stride, size_t out_bstride, size_t rows, size_t cols, size_t nbatch,
                                 cudaStream_t stream);
/* its forward (inverse) on device pointers, asynchronously on stream */
lwt_status lwt_cuda_half_run(const lwt_plan *p, const void *d_in, void *d_out, void *d_ws, cudaStream_t stream,
                             int inverse);

#endif
