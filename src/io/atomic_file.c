/* atomic_file.c - see atomic_file.h. */
#include "io/atomic_file.h"
#include "io/surface_file.h"

lwt_status lwt_write_file_atomic(lwt_context *ctx, const char *path, const void *data, size_t len)
{
    char tmp[4096];
    int fd = lwt__tmp_create(ctx, path, tmp, sizeof tmp);
    if (fd < 0)
        return LWT_ERR_IO;
    if (lwt__write_all(fd, data, len)) {
        lwt__tmp_abort(fd, tmp);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "write failed");
    }
    return lwt__tmp_commit_sync(ctx, fd, tmp, path, 0);
}
