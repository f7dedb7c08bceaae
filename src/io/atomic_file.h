/* atomic_file.h - write a memory buffer to a file atomically (temporary file, fsync, rename). */
#ifndef LWT_IO_ATOMIC_FILE_H
#define LWT_IO_ATOMIC_FILE_H

#include <stddef.h>

/** 0 ok; non-zero (LWT_SURFACE_ERR_IO) with "path: reason" in err. Nothing is left on failure. */
int lwt_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
