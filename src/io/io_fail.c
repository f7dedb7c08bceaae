/* io_fail.c - the file formats' lwt_fail (io_fail.h). */
#include "io/io_fail.h"

#include <stdarg.h>
#include <stdio.h>

lwt_status lwt__io_fail(const lwt_context *ctx, lwt_status status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lwt_context_log(ctx, LWT_LOG_ERROR, msg);
    return status;
}
