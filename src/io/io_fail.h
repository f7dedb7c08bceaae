/*
 * io_fail.h - how the file readers and writers report a failure: the function where it starts
 * logs one line through the caller's context (level error; ctx NULL drops it) and returns the
 * status; callers forward the status and log nothing more (the rule of core/fail.h). liblwt_io
 * is a client of liblwt's public API, so the line goes through lwt_context_log.
 */
#ifndef LWT_IO_IO_FAIL_H
#define LWT_IO_IO_FAIL_H

#include "lwt.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
lwt_status lwt__io_fail(const lwt_context *ctx, lwt_status status, const char *fmt, ...);

#endif
