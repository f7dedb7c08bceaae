/* Versioned public structs (sized.h). */
#include "core/sized.h"

#include <string.h>

#include "core/fail.h"

lwt_status lwt_sized_read(const lwt_context *ctx, const char *type, const void *in, size_t first_size, void *out,
                          size_t out_size)
{
    size_t given;
    memcpy(&given, in, sizeof given);
    LWT_RETURN_IF(given == 0 || given > out_size || given < first_size, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "%s.size is %zu, not one this library knows (%zu): start from %s_default()", type, given,
                  out_size, type);
    memcpy(out, in, given);
    memcpy(out, &out_size, sizeof out_size);
    return LWT_OK;
}
