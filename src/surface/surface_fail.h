/*
 * surface_fail.h - how src/surface and src/io report a failure: the function where it starts
 * logs one line through the caller's context (level error; ctx NULL drops it) and returns the
 * status; callers forward the status (LWT_FORWARD / LWT_FORWARD_GOTO of core/fail.h) and log
 * nothing more. It is core/context.h's lwt_fail, reached through liblwt's private interface
 * (src/private/private_api.h), because liblwt_surface.so links liblwt.so, where lwt_fail is
 * hidden.
 */
#ifndef LWT_SURFACE_SURFACE_FAIL_H
#define LWT_SURFACE_SURFACE_FAIL_H

#include "core/fail.h"
#include "lwt.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
lwt_status lwt__surface_fail(const lwt_context *ctx, lwt_status status, const char *fmt, ...);

#endif
