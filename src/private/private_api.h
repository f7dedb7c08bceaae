/*
 * private_api.h - what liblwt lends liblwt_surface beyond the public headers.
 *
 * liblwt_surface.so is linked against liblwt.so, where every internal function is hidden
 * (-fvisibility=hidden). The surface code needs two internals: the context's log sink (its
 * failures log one line through the caller's context, like liblwt's own) and the band split
 * job of the stream engine (src/stream/split_job.h), so that the surface split runs on the one
 * engine in the process instead of a private copy. These few functions are exported from
 * liblwt.so for that alone: they are declared only here, never installed, and may change in
 * any release, so liblwt_surface works only with the liblwt of its own version (lwt-surface.pc
 * and lwtConfig.cmake pin it; tests/install/check_exports.sh checks the list).
 */
#ifndef LWT_PRIVATE_API_H
#define LWT_PRIVATE_API_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lwt.h"

#if defined(__GNUC__) || defined(__clang__)
#define LWT_PRIVATE_API __attribute__((visibility("default")))
#else
#define LWT_PRIVATE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* lwt_fail with a va_list: log the message at level error through ctx (NULL: dropped) and
   return status. */
LWT_PRIVATE_API lwt_status lwt__vfail(const lwt_context *ctx, lwt_status status, const char *fmt, va_list ap);

/* The stream engine's band split (stream_split_create / _run / _destroy of src/stream/
   split_job.h, same arguments): nchunks and halo receive the chunk layout. */
typedef struct lwt__split lwt__split;
LWT_PRIVATE_API lwt_status lwt__split_create(const lwt_plan *whole, size_t chunk_rows, int nout,
                                             const uint64_t *keep, int threads, lwt__split **out, long *nchunks,
                                             long *halo);
LWT_PRIVATE_API lwt_status lwt__split_run(lwt__split *s, const void *in, void *const out[], int io_f64,
                                          const double *nan_mask, void (*progress)(void *user, double fraction),
                                          void *progress_user);
LWT_PRIVATE_API void lwt__split_destroy(lwt__split *s);

#ifdef __cplusplus
}
#endif
#endif
