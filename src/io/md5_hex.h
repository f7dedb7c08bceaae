/*
 * md5_hex.h - MD5 digests as 32 lowercase hex digits (OpenSSL EVP), whole or in pieces.
 *
 * The X3P reader checks the digests main.xml states; the writer states them. In pieces so
 * that a writer can hash data it converts a chunk at a time instead of a converted copy.
 */
#ifndef LWT_IO_MD5_HEX_H
#define LWT_IO_MD5_HEX_H

#include <stddef.h>

/** MD5 of data as hex into out. 0 ok, -1 when OpenSSL has no MD5. */
int lwt__md5_hex(const void *data, size_t len, char out[33]);

typedef struct lwt_md5 lwt_md5;
/** A running digest; NULL when OpenSSL has no MD5 (or no memory). */
lwt_md5 *lwt__md5_begin(void);
/** Add len bytes. 0 ok, -1 failure (the digest is then unusable; lwt__md5_end still frees it). */
int lwt__md5_add(lwt_md5 *m, const void *data, size_t len);
/** Finish into out and free m (also after a failure). 0 ok, -1 failure. */
int lwt__md5_end(lwt_md5 *m, char out[33]);

#endif
