/*
 * zip_read.h - reading the entries of zip-based surface files (X3P: x3p.c; Sensofar .plux:
 * plux.c) with libzip. Every failure is logged once, "PATH: reason" (surface_file.h's rule),
 * and returned as an lwt_status.
 */
#ifndef LWT_IO_ZIP_READ_H
#define LWT_IO_ZIP_READ_H

#include <zip.h>

#include "io/surface_file.h"

/** Open the regular file path as a zip archive (ZIP_CHECKCONS): a directory, FIFO or device is
 *  refused before libzip opens it; a file that is no zip is "not a zip archive (truncated or
 *  corrupt FORMAT file)". *za receives the archive (zip_discard it). */
lwt_status lwt__zip_open(lwt_context *ctx, const char *path, const char *format, zip_t **za);
/** Read entry idx (called name in messages) completely into a new buffer of its size plus one
 *  NUL byte, checking its CRC; an entry declaring more than maxsize bytes, or more than its
 *  compressed bytes can hold, is refused before the buffer is allocated. */
lwt_status lwt__zip_read_entry(zip_t *za, zip_int64_t idx, const char *name, zip_uint64_t maxsize, const char *zpath,
                               unsigned char **buf, size_t *len, lwt_context *ctx);
/** Read exactly size bytes of entry idx into b. raw: a stored entry as it lies in the archive,
 *  without libzip's CRC (for data whose MD5 the caller checks instead). md5 (33 chars) also
 *  receives the data's MD5 ("" when OpenSSL has none); NULL: none. */
lwt_status lwt__zip_read_entry_into(zip_t *za, zip_int64_t idx, const char *name, size_t size, int raw,
                                    const char *zpath, unsigned char *b, char *md5, lwt_context *ctx);
/** Refuse an entry whose directory declares more bytes than its compressed bytes can hold
 *  (stored: its compressed size; deflated: 1032 times it, deflate's limit). */
lwt_status lwt__zip_check_declared_size(const zip_stat_t *st, const char *name, const char *zpath, lwt_context *ctx);

#endif
