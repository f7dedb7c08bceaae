/* Context internals: log sink, thread count, memory ceiling, checksum policy. Nothing here is global. */
#ifndef LWT_CORE_CONTEXT_H
#define LWT_CORE_CONTEXT_H

#include "lwt.h"

struct lwt_context {
    lwt_log_fn log_fn;
    void *log_user;
    int threads;        /* 0 = all available */
    size_t memory_limit; /* bytes, 0 = none (lwt_context_set_memory_limit) */
    int ignore_checksums; /* 1: surface readers read a file whose checksum fails, with a warning */
};

/* printf-style message to the context's log callback (dropped when none). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void lwt_log(const lwt_context *ctx, lwt_log_level level, const char *fmt, ...);

/* Logs an error and returns its status, so call sites read `return lwt_fail(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
lwt_status lwt_fail(const lwt_context *ctx, lwt_status status, const char *fmt, ...);

#endif
