/* private_api.c - the internals liblwt lends liblwt_surface (private_api.h). */
#include "private/private_api.h"

#include "core/context.h"
#include "stream/split_job.h"

#include <stdio.h>

lwt_status lwt__vfail(const lwt_context *ctx, lwt_status status, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return lwt_fail(ctx, status, "%s", msg);
}

lwt_status lwt__split_create(const lwt_plan *whole, size_t chunk_rows, int nout, const uint64_t *keep, int threads,
                             lwt__split **out, long *nchunks, long *halo)
{
    stream_split *s = NULL;
    lwt_status st = stream_split_create(whole, chunk_rows, nout, keep, threads, &s);
    if (st != LWT_OK)
        return st;
    const split_spec *sp = stream_split_spec(s);
    *nchunks = sp->nchunks;
    *halo = sp->halo;
    *out = (lwt__split *)s;
    return LWT_OK;
}

lwt_status lwt__split_run(lwt__split *s, const void *in, void *const out[], int io_f64, const double *nan_mask,
                          void (*progress)(void *user, double fraction), void *progress_user)
{
    return stream_split_run((stream_split *)s, in, out, io_f64, nan_mask, progress, progress_user);
}

void lwt__split_destroy(lwt__split *s) { stream_split_destroy((stream_split *)s); }
