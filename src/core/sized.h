/*
 * sized.h - the one rule for public structs a program fills (lwt_plan_desc, lwt_stream_desc,
 * lwt_filter_spec): each starts with `size_t size`, set by its _default() function to the
 * sizeof the program was built with. The library copies the caller's struct over its own
 * defaults, so a binary built against an older, shorter header gets the defaults of the fields
 * added since; a size of 0 (a struct not from _default()), one larger than this library's, or
 * one shorter than the first version is refused.
 */
#ifndef LWT_CORE_SIZED_H
#define LWT_CORE_SIZED_H

#include <stddef.h>

#include "lwt.h"

/* The size of the first version of struct T, which ended at field `last`. */
#define LWT_SIZED_FIRST(T, last) (offsetof(T, last) + sizeof(((T *)0)->last))

/* out holds this version's defaults (out_size bytes, `size` first); copy the caller's struct in
   (its own `size` bytes) and set out's size to out_size. type names the struct in the message
   ("lwt_plan_desc": "start from lwt_plan_desc_default()"). */
lwt_status lwt_sized_read(const lwt_context *ctx, const char *type, const void *in, size_t first_size, void *out,
                          size_t out_size);

#endif
