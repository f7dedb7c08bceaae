/*
 * surface_file.h - internals of the surface file layer (src/io: x3p.c, sdf.c, sur.c, plu.c, gwy.c
 * and surface_file.c). The readers and writers themselves and the lwt_surface data model are public
 * (include/lwt_surface.h); docs/FORMATS.md gives the details and deviations of each format.
 *
 * Failures: the function where one starts logs one line "FILE: reason" through the caller's
 * context (lwt__file_fail) and returns the lwt_status; its callers forward the status and log
 * nothing more. Nothing here prints, exits or keeps global state. Writers are atomic: they write
 * a temporary file beside the target and rename it over the target only on success; on failure
 * neither the target nor a temporary file is left behind.
 */
#ifndef LWT_IO_SURFACE_FILE_H
#define LWT_IO_SURFACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lwt_surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Log "path: message" (one line: line breaks become spaces) at level error through ctx and
 *  return status. */
lwt_status lwt__file_fail(const lwt_context *ctx, lwt_status status, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Checks shared by the writers: a file name, a non-empty surface, positive
   spacing (named in the message as `format` needs it) and a point count that
   fits; *n receives nx * ny. LWT_OK when writable, else the failure (logged). */
lwt_status lwt__check_writable(lwt_context *ctx, const char *path, const lwt_surface *s, const char *format,
                               size_t *n);
/** Refuse a path that is not a regular file, at once and without opening it (a FIFO would block
 *  the open, a device may act on it): "path: is a directory" and the like (LWT_ERR_IO, logged).
 *  LWT_OK for a regular file (symbolic links followed) or a path stat() cannot see (the open
 *  that follows reports that). */
lwt_status lwt__check_regular(lwt_context *ctx, const char *path);
/** lwt__check_regular, then open path read-only (O_NONBLOCK, so that a FIFO swapped in meanwhile
 *  cannot block; refused by fstat after the open). *fd receives the descriptor (blocking again),
 *  *size the file's size. Failures logged. */
lwt_status lwt__open_regular(lwt_context *ctx, const char *path, int *fd, size_t *size);
/** A reader's first steps: lwt_surface_init(out), refuse a NULL path, lwt__open_regular, then the
 *  first min(size, head_len) bytes of the file into head (the rest of head zeroed). *fd is -1
 *  after a failure (logged), else the caller closes it. */
lwt_status lwt__open_head(lwt_context *ctx, const char *path, lwt_surface *out, int *fd, size_t *size, void *head,
                          size_t head_len);
/** Read exactly len bytes at offset off of fd (pread, EINTR retried). Failures logged:
 *  LWT_ERR_IO on a read error, LWT_ERR_FORMAT when the file ends first (it shrank). */
lwt_status lwt__read_at(lwt_context *ctx, const char *path, int fd, void *buf, size_t len, uint64_t off);
/** Decode count records of fixed size into points first .. first + count - 1 (see lwt__read_records). */
typedef void (*lwt__decode_fn)(void *user, const unsigned char *src, size_t first, size_t count);
/** Read n records of es bytes each from offset off of fd, piece by piece through a bounce buffer of
 *  about 1 MiB, handing each piece to decode: the data costs no second copy of itself. The caller
 *  has checked that the file holds them. Failures logged. */
lwt_status lwt__read_records(lwt_context *ctx, const char *path, int fd, uint64_t off, size_t n, size_t es,
                             lwt__decode_fn decode, void *user);
/** Refuse (LWT_ERR_OUT_OF_MEMORY, "path: reading it needs 10.0 GiB, more than the memory limit of
 *  64.0 MiB", logged) what would hold bytes at once past the context's memory ceiling
 *  (lwt_context_set_memory_limit); LWT_OK within it or without one. memory_limit.c. */
lwt_status lwt__check_memory(lwt_context *ctx, const char *path, uint64_t bytes);
/** lwt_surface_alloc of an nx x ny surface for the file at path, once lwt__check_memory has passed
 *  its heights plus held, the bytes the reader holds beside them meanwhile. Failures logged. */
lwt_status lwt__surface_alloc_file(lwt_context *ctx, const char *path, lwt_surface *out, size_t nx, size_t ny,
                                   uint64_t held);
/** bytes for people: "512 bytes", "64.0 MiB". */
void lwt__format_bytes(char *buf, size_t n, uint64_t bytes);
/** Read a whole file into a malloc'ed buffer (one extra NUL byte after the data). */
lwt_status lwt__read_whole_file(lwt_context *ctx, const char *path, unsigned char **buf, size_t *len);

/** Create a new temporary file beside path ("path.tmp-PID-N", O_EXCL, mode 0666 & ~umask).
 *  tmp receives its name. Returns an open fd, or -1 with the failure logged (callers return
 *  LWT_ERR_IO). */
int lwt__tmp_create(lwt_context *ctx, const char *path, char *tmp, size_t tmplen);
/** fsync + close fd and rename tmp to path; on any failure unlink tmp (logged). */
lwt_status lwt__tmp_commit(lwt_context *ctx, int fd, const char *tmp, const char *path);
/** The same, with the fsync only when durable (see lwt__surface_write_x3p_sync). */
lwt_status lwt__tmp_commit_sync(lwt_context *ctx, int fd, const char *tmp, const char *path, int durable);
/** lwt_surface_write_x3p (durable = 1) or, with durable = 0, without the fsync before the rename:
 *  for files written into a folder that appears as a whole later (the CLI's output folders),
 *  whose durability, if any, is the folder's business. */
lwt_status lwt__surface_write_x3p_sync(lwt_context *ctx, const char *path, const lwt_surface *s, int durable);
/** lwt_surface_write_sdf, with durable as in lwt__surface_write_x3p_sync. */
lwt_status lwt__surface_write_sdf_sync(lwt_context *ctx, const char *path, const lwt_surface *s, int binary,
                                       int durable);
/** close fd (if >= 0) and unlink tmp. */
void lwt__tmp_abort(int fd, const char *tmp);
/** Write all bytes to fd. 0 ok, -1 error (errno set). */
int lwt__write_all(int fd, const void *buf, size_t len);

/** Where decoded records go when their bytes arrive in pieces of any length (inflated streams):
 *  a record cut between two pieces is kept in part until its last bytes come. next is the index of
 *  the next record; the caller bounds the bytes it hands over to the records it has room for. */
typedef struct {
    lwt__decode_fn decode;
    void *user;
    size_t es, next, npart;
    unsigned char part[8]; /* es <= 8 */
} lwt__record_sink;
/** Inflate the zlib stream of zipped bytes at offset off of fd, which must give exactly raw bytes,
 *  into sink. what names the stream in messages ("stream 1 of 2"). The caller has checked that
 *  the file holds the zipped bytes. Failures logged: LWT_ERR_FORMAT for a corrupt stream or one
 *  that gives more or fewer bytes than raw. inflate_records.c. */
lwt_status lwt__inflate_records(lwt_context *ctx, const char *path, int fd, uint64_t off, uint64_t zipped,
                                uint64_t raw, lwt__record_sink *sink, const char *what);

/** Length unit to metres: "m", "mm", "um", "µm" (UTF-8 or Latin-1), "nm", "pm", "A".
 *  Leading/trailing blanks ignored. 0 if unknown. */
double lwt__unit_to_metres(const char *unit);
/** Current UTC time as "YYYY-MM-DDThh:mm:ssZ". */
void lwt__now_iso8601(char *buf, size_t n);
/** Copy at most n-1 bytes of src (len bytes, not necessarily terminated) into dst, trimming
 *  blanks and control characters at both ends, replacing inner control characters by spaces. */
void lwt__copy_clean(char *dst, size_t n, const char *src, size_t len);
/** a*b without overflow: 0 ok, -1 on overflow. */
static inline int lwt__mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

/* Little-endian loads and stores, independent of the host byte order. */
static inline uint16_t lwt__le16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t lwt__le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t lwt__le64(const unsigned char *p)
{
    return (uint64_t)lwt__le32(p) | ((uint64_t)lwt__le32(p + 4) << 32);
}
static inline float lwt__lef32(const unsigned char *p)
{
    uint32_t u = lwt__le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double lwt__lef64(const unsigned char *p)
{
    uint64_t u = lwt__le64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static inline void lwt__put_le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8);
}
static inline void lwt__put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((v >> (8 * i)) & 0xff);
}
static inline void lwt__put_lef64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    lwt__put_le64(p, u);
}

#ifdef __cplusplus
}
#endif

#endif /* LWT_IO_SURFACE_FILE_H */
