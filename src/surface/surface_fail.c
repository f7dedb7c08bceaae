/* surface_fail.c - the surface code's lwt_fail (surface_fail.h). */
#include "surface/surface_fail.h"

#include "private/private_api.h"

lwt_status lwt__surface_fail(const lwt_context *ctx, lwt_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lwt_status st = lwt__vfail(ctx, status, fmt, ap);
    va_end(ap);
    return st;
}
