/*
 * fail.h - the one way a failure travels inside lwt (zstd's error_private.h is the model).
 *
 * Every internal function that can fail returns an lwt_status. The function that first sees a
 * failure logs one line through the context (lwt_fail: the log callback, level error) and
 * returns the status; its callers forward the status unchanged and log nothing more, so a user
 * gets one status and one message naming the cause. Plain C and CUDA C use the same macros:
 *
 *   LWT_RETURN_IF(cond, ctx, status, fmt, ...)  fail with a logged message when cond holds
 *   LWT_FORWARD(expr)                           return expr's status unless it is LWT_OK
 *   LWT_FORWARD_GOTO(st, expr, label)           st = expr; on failure jump to label (cleanup)
 *   LWT_CUDA_CHECK(ctx, call)                   a failed CUDA runtime call: log it, return
 *                                               LWT_ERR_OUT_OF_MEMORY for allocations, else
 *                                               LWT_ERR_DEVICE (CUDA C only)
 *   lwt_cuda_fail(ctx, err, what)               the same as a function, for code that keeps
 *                                               the cudaError_t (cleanup first, then fail)
 */
#ifndef LWT_CORE_FAIL_H
#define LWT_CORE_FAIL_H

#ifdef __cplusplus
extern "C" {
#endif
#include "core/context.h"
#ifdef __cplusplus
}
#endif

#define LWT_RETURN_IF(cond, ctx, status, ...)                                                                    \
    do {                                                                                                         \
        if (cond)                                                                                                \
            return lwt_fail((ctx), (status), __VA_ARGS__);                                                       \
    } while (0)

#define LWT_FORWARD(expr)                                                                                        \
    do {                                                                                                         \
        lwt_status fwd_st_ = (expr);                                                                             \
        if (fwd_st_ != LWT_OK)                                                                                   \
            return fwd_st_;                                                                                      \
    } while (0)

#define LWT_FORWARD_GOTO(st, expr, label)                                                                        \
    do {                                                                                                         \
        if (((st) = (expr)) != LWT_OK)                                                                           \
            goto label;                                                                                          \
    } while (0)

#ifdef __CUDACC__
#include <cuda_runtime.h>

/** The status of a CUDA error: an allocation that failed is out of memory, anything else a device error. */
static inline lwt_status lwt_cuda_status(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation ? LWT_ERR_OUT_OF_MEMORY : LWT_ERR_DEVICE;
}

/** Log "what: CUDA error NAME (text)" and return lwt_cuda_status(e). */
static inline lwt_status lwt_cuda_fail(const lwt_context *ctx, cudaError_t e, const char *what)
{
    return lwt_fail(ctx, lwt_cuda_status(e), "%s: CUDA error %s (%s)", what, cudaGetErrorName(e),
                    cudaGetErrorString(e));
}

#define LWT_CUDA_CHECK(ctx, call)                                                                                \
    do {                                                                                                         \
        cudaError_t ck_e_ = (call);                                                                              \
        if (ck_e_ != cudaSuccess)                                                                                \
            return lwt_cuda_fail((ctx), ck_e_, #call);                                                           \
    } while (0)
#endif

#endif
