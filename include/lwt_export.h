/*
 * lwt_export.h - LWT_API marks the public functions of liblwt, LWT_IO_API those
 * of liblwt_surface (the surface file readers and writers of lwt_surface.h).
 *
 * Both libraries are compiled with -fvisibility=hidden: only functions declared
 * with LWT_API in the public headers (lwt.h, lwt_stream.h, lwt_cuda.h,
 * lwt_experimental.h, lwt_surface.h) are exported from liblwt.so, only those
 * declared with LWT_IO_API (lwt_surface.h) from liblwt_surface.so; everything
 * else stays internal (tests/install/check_exports.sh checks both lists).
 *
 * The attribute is the same whether the library is being built or used, and
 * for the shared and the static library (both come from one set of objects):
 * on a declaration seen by a consumer it only says "defined elsewhere with
 * default visibility", which is right even under -fvisibility=hidden or
 * #pragma GCC visibility push(hidden). Compilers other than GCC/Clang get
 * plain declarations.
 */
#ifndef LWT_EXPORT_H
#define LWT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define LWT_API __attribute__((visibility("default")))
#else
#define LWT_API
#endif
#define LWT_IO_API LWT_API

#endif /* LWT_EXPORT_H */
