/*
 * memory_limit.c - the readers' side of the context's memory ceiling
 * (lwt_context_set_memory_limit): a reader states what a file's declared sizes would make it
 * hold at once and is refused before it allocates any of it. One place, so every reader words
 * the refusal alike and the CLI's --max-memory reaches all of them through the context.
 */
#include <inttypes.h>
#include <stdio.h>

#include "io/surface_file.h"

void lwt__format_bytes(char *buf, size_t n, uint64_t bytes)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " bytes", bytes);
    else
        snprintf(buf, n, "%.1f %s", v, unit[u]);
}

lwt_status lwt__check_memory(lwt_context *ctx, const char *path, uint64_t bytes)
{
    size_t limit = lwt_context_memory_limit(ctx);
    if (limit == 0 || bytes <= limit)
        return LWT_OK;
    char need[32], have[32];
    lwt__format_bytes(need, sizeof need, bytes);
    lwt__format_bytes(have, sizeof have, limit);
    return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path,
                          "reading it needs %s, more than the memory limit of %s", need, have);
}

lwt_status lwt__surface_alloc_file(lwt_context *ctx, const char *path, lwt_surface *out, size_t nx, size_t ny,
                                   uint64_t held)
{
    size_t n;
    if (lwt__mul_size(nx, ny, &n) || n > (UINT64_MAX - held) / sizeof(double))
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "dimensions %zu x %zu are too large", nx, ny);
    lwt_status st = lwt__check_memory(ctx, path, (uint64_t)n * sizeof(double) + held);
    if (st)
        return st;
    if (lwt_surface_alloc(NULL, out, nx, ny) /* logged here, with the file */)
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory for %zu x %zu points", nx, ny);
    return LWT_OK;
}
