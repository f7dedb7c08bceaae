/*
 * npy_header.h - internal to src/io: the pieces of the .npy reader/writer
 * (npy.c) that the memory-mapped arrays (mapped_array.c) share with it, so
 * that both parse and write headers the same way. Not a public header.
 */
#ifndef LWT_IO_NPY_HEADER_H
#define LWT_IO_NPY_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <lwt.h>

#include "io/npy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest header text accepted, so that a corrupt length field cannot make a
   reader allocate gigabytes. */
#define NPY_MAX_HEADER ((size_t)1 << 24) /* 16 MiB */

/* Large enough for any header lwt__npy_build_header makes (NPY_MAX_DIMS dims). */
#define NPY_HEADER_BUF (NPY_MAX_DIMS * 24 + 128 + 128)

/* Writes "path: message" (one line) into err and returns -1: the error
   reporting of npy.c and mapped_array.c. */
int lwt__npy_fail(char *err, size_t errlen, const char *path, const char *fmt, ...);

/* For a path that exists and is not a regular file, what it is ("is a directory", "is a FIFO
   (named pipe), not a regular file", ...; stat, links followed, nothing opened); NULL for a
   regular file or a path stat cannot see. In surface_file.c. */
const char *lwt__not_regular(const char *path);

/* What a header dict says. */
typedef struct npy_header_info {
    lwt_dtype dtype;             /* LWT_F32 or LWT_F64 */
    int swap;                    /* data byte order differs from this machine's */
    int fortran;                 /* fortran_order True */
    int ndim;
    size_t shape[NPY_MAX_DIMS];  /* entries past ndim are left as they were */
} npy_header_info;

/* Checks the preamble before the header dict: the magic, the format version
   (1.0, 2.0 or 3.0) and the header length. pre (12 bytes) holds the first got
   bytes of the file. When the version needs a longer preamble than got and
   more is not NULL, more(ctx, pre + got, n) is called once to read the
   missing n bytes and returns how many it read. fsize is the file's size, or
   NULL when it is not known (not a regular file). Returns 0 with *prelen (the
   preamble's length, where the header dict starts) and *hlen (the header
   dict's length) set, or -1 with the reason in msg (e.g. "not a .npy file
   (bad magic; expected \\x93NUMPY)", "truncated header: ..."), without the
   path. */
int lwt__npy_parse_preamble(unsigned char pre[12], size_t got,
                            size_t (*more)(void *ctx, void *buf, size_t n), void *ctx,
                            const uintmax_t *fsize, size_t *prelen, size_t *hlen, char *msg,
                            size_t msglen);

/* Parses the header dict text (len bytes, NUL-terminated after them, padding
   included; a NUL inside is refused). Zeroes *hi first. Returns 0,
   or -1 with the reason in msg (e.g. "unsupported dtype '<i4' (lwt reads
   float32 and float64)", "malformed header: ..."), without the path. */
int lwt__npy_parse_header(const char *text, size_t len, npy_header_info *hi, char *msg, size_t msglen);

/* Builds the preamble and header npy_write writes ('<f4'/'<f8', C order,
   version 1.0, or 2.0 if the header does not fit in 65535 bytes) into buf.
   Returns its length, a multiple of 64 (where the data starts), or 0 if buf is
   too small (NPY_HEADER_BUF always suffices). */
size_t lwt__npy_build_header(unsigned char *buf, size_t bufsize, lwt_dtype dtype, int ndim,
                             const size_t *shape);

/* Element count of shape (1 for ndim 0, 0 if any dimension is 0); -1 if it
   overflows size_t. */
int lwt__npy_shape_count(int ndim, const size_t *shape, size_t *count);

/* "(3, 4)", "(5,)", "()" into buf (NPY_MAX_DIMS * 22 + 4 bytes suffice). */
void lwt__npy_format_shape(char *buf, size_t size, int ndim, const size_t *shape);

/* Best effort: fsync the directory holding path, so that a rename is durable. */
void lwt__npy_fsync_parent_dir(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* LWT_IO_NPY_HEADER_H */
