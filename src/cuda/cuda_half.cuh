/* 16-bit plans on device pointers (cuda_half.cu), called by lwt_cuda.h's entry points. */
#ifndef LWT_CUDA_HALF_CUH
#define LWT_CUDA_HALF_CUH

#include <cuda_runtime.h>

#include "lwt.h"

/* device workspace of a 16-bit plan (p->f32 set) */
lwt_status lwt_cuda_half_workspace(const lwt_plan *p, size_t *bytes);
/* its forward (inverse) on device pointers, asynchronously on stream */
lwt_status lwt_cuda_half_run(const lwt_plan *p, const void *d_in, void *d_out, void *d_ws, cudaStream_t stream,
                             int inverse);

#endif
