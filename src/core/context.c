/* Context: log sink and CPU thread count. */
#include "core/backend.h"
#include "core/context.h"
#include "lwt_surface.h" /* lwt_context_set_ignore_checksums: a context setting for the surface readers */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

lwt_status lwt_context_create(lwt_context **out)
{
    if (!out)
        return LWT_ERR_INVALID_ARGUMENT;
    lwt_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return LWT_ERR_OUT_OF_MEMORY;
    *out = ctx;
    return LWT_OK;
}

void lwt_context_destroy(lwt_context *ctx) { free(ctx); }

lwt_status lwt_context_set_log(lwt_context *ctx, lwt_log_fn fn, void *user)
{
    if (!ctx)
        return LWT_ERR_INVALID_ARGUMENT;
    ctx->log_fn = fn;
    ctx->log_user = user;
    return LWT_OK;
}

lwt_status lwt_context_set_threads(lwt_context *ctx, int threads)
{
    if (!ctx || threads < 0)
        return LWT_ERR_INVALID_ARGUMENT;
    ctx->threads = threads;
    return LWT_OK;
}

lwt_status lwt_context_set_memory_limit(lwt_context *ctx, size_t bytes)
{
    if (!ctx)
        return LWT_ERR_INVALID_ARGUMENT;
    ctx->memory_limit = bytes;
    return LWT_OK;
}

size_t lwt_context_memory_limit(const lwt_context *ctx) { return ctx ? ctx->memory_limit : 0; }

lwt_status lwt_context_set_ignore_checksums(lwt_context *ctx, int ignore)
{
    if (!ctx)
        return LWT_ERR_INVALID_ARGUMENT;
    ctx->ignore_checksums = ignore != 0;
    return LWT_OK;
}

int lwt_context_ignore_checksums(const lwt_context *ctx) { return ctx ? ctx->ignore_checksums : 0; }

int lwt_context_device_count(const lwt_context *ctx)
{
    (void)ctx;
    return lwt_cuda_device_count(); /* 0 in a build without CUDA (src/cuda/cuda_absent.c) */
}

static void vlog(const lwt_context *ctx, lwt_log_level level, const char *fmt, va_list ap)
{
    if (!ctx || !ctx->log_fn)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    ctx->log_fn(ctx->log_user, level, msg);
}

void lwt_context_log(const lwt_context *ctx, lwt_log_level level, const char *message)
{
    if (ctx && ctx->log_fn && message)
        ctx->log_fn(ctx->log_user, level, message);
}

void lwt_log(const lwt_context *ctx, lwt_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(ctx, level, fmt, ap);
    va_end(ap);
}

lwt_status lwt_fail(const lwt_context *ctx, lwt_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(ctx, LWT_LOG_ERROR, fmt, ap);
    va_end(ap);
    return status;
}
