/* CK(call): a CUDA runtime call whose error returns LWT_ERR_DEVICE with the
 * error's name in the log. Needs `ctx` (const lwt_context *) in scope. */
#ifndef LWT_CUDA_CHECK_CUH
#define LWT_CUDA_CHECK_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/context.h"
}

#define CK(call)                                                                                       \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess)                                                                         \
            return lwt_fail(ctx, LWT_ERR_DEVICE, "CUDA error %s (%s) in %s", cudaGetErrorName(e_),   \
                            cudaGetErrorString(e_), #call);                                            \
    } while (0)

#endif
