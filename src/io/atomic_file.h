/* atomic_file.h - write a memory buffer to a file atomically (temporary file, rename). */
#ifndef LWT_IO_ATOMIC_FILE_H
#define LWT_IO_ATOMIC_FILE_H

#include <stddef.h>

#include "lwt.h"

/** LWT_OK, or LWT_ERR_IO with "path: reason" logged through ctx. Nothing is left on failure.
 *  No fsync: its users (the PNG previews, report.json) write into lwt filter's temporary output
 *  folder, which appears whole or not at all; that folder's files are not made durable one by
 *  one (cli/filter_job.c says why). */
lwt_status lwt_write_file_atomic(lwt_context *ctx, const char *path, const void *data, size_t len);

#endif
