/* atomic_file.c - see atomic_file.h. */
#include "io/atomic_file.h"
#include "io/surface_file.h"

int lwt_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char tmp[4096];
    int fd = lwt__tmp_create(path, tmp, sizeof tmp, err, errlen);
    if (fd < 0)
        return LWT_SURFACE_ERR_IO;
    if (lwt__write_all(fd, data, len)) {
        lwt__tmp_abort(fd, tmp);
        return lwt__surf_fail(err, errlen, LWT_SURFACE_ERR_IO, path, "write failed");
    }
    return lwt__tmp_commit(fd, tmp, path, err, errlen) ? LWT_SURFACE_ERR_IO : 0;
}
