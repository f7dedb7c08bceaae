/*
 * zip_fd_sink.h - a new zip archive that libzip writes straight into an open file descriptor.
 *
 * libzip's own file output (zip_open on a path) writes a second temporary file through stdio
 * and renames it over the path on zip_close. For a 128 MiB X3P that was ~32,000 write calls
 * of 4 KiB (strace -c) and a rename over the existing placeholder, which on ext4 starts the
 * writeback of the whole file (auto_da_alloc: 20-75 ms inside rename). This sink gathers
 * libzip's 8 KiB writes into a 1 MiB buffer and writes them to the caller's descriptor (the
 * writer's own temporary file), so that the caller alone decides about fsync and the rename.
 */
#ifndef LWT_IO_ZIP_FD_SINK_H
#define LWT_IO_ZIP_FD_SINK_H

#include <zip.h>

/** A new, empty archive writing into fd (open for writing, empty, positioned at 0). The
 *  descriptor stays the caller's: zip_close flushes into it but neither syncs nor closes it.
 *  NULL with *zerr set (a ZIP_ER_* code) when it cannot be made. */
zip_t *lwt__zip_create_on_fd(int fd, int *zerr);

#endif
