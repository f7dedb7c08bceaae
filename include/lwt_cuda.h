/*
 * lwt_cuda.h - device-pointer entry points of liblwt (CUDA builds).
 *
 * A plan made with backend LWT_BACKEND_CUDA (or AUTO on a machine with a GPU)
 * is bound to desc.device. lwt_forward / lwt_inverse accept host pointers and
 * copy in and out; the functions below run on device pointers, asynchronously
 * on the caller's stream, with no host synchronization and no allocation.
 */
#ifndef LWT_CUDA_H
#define LWT_CUDA_H

#include <cuda_runtime.h>

#include "lwt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of device workspace one lwt_*_device call needs for this plan. */
lwt_status lwt_plan_device_workspace_size(const lwt_plan *plan, size_t *bytes);

/** Forward on device memory: in (input_count x batch), out (coeff_count x batch),
 *  workspace of lwt_plan_device_workspace_size bytes, all on the plan's device. */
lwt_status lwt_forward_device(const lwt_plan *plan, const void *d_in, void *d_out, void *d_workspace,
                              cudaStream_t stream);
lwt_status lwt_inverse_device(const lwt_plan *plan, const void *d_in, void *d_out, void *d_workspace,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
