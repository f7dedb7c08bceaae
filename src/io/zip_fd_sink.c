/* zip_fd_sink.c - libzip output into a file descriptor through a 1 MiB buffer (zip_fd_sink.h). */
#define _POSIX_C_SOURCE 200809L

#include "io/zip_fd_sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* libzip writes 8 KiB at a time; 1 MiB turns a 128 MiB entry into 128 write calls */
#define SINK_BUF ((size_t)1 << 20)

typedef struct sink {
    int fd;
    unsigned char *buf;
    zip_uint64_t buf_off; /* file offset of buf[0] */
    size_t buf_len;
    zip_uint64_t pos, end; /* write position, size written so far */
    zip_error_t err;
} sink;

static int put_all(sink *k, const unsigned char *p, size_t len, zip_uint64_t off)
{
    while (len > 0) {
        ssize_t w = pwrite(k->fd, p, len, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            zip_error_set(&k->err, ZIP_ER_WRITE, w < 0 ? errno : EIO);
            return -1;
        }
        p += w;
        off += (zip_uint64_t)w;
        len -= (size_t)w;
    }
    return 0;
}

static int flush(sink *k)
{
    int rc = k->buf_len ? put_all(k, k->buf, k->buf_len, k->buf_off) : 0;
    k->buf_len = 0;
    return rc;
}

static zip_int64_t sink_write(sink *k, const void *data, zip_uint64_t len)
{
    if (k->pos != k->buf_off + k->buf_len || k->buf_len + len > SINK_BUF) { /* a seek, or full */
        if (flush(k))
            return -1;
        k->buf_off = k->pos;
    }
    if (len >= SINK_BUF) {
        if (put_all(k, (const unsigned char *)data, (size_t)len, k->pos))
            return -1;
        k->buf_off = k->pos + len;
    } else {
        memcpy(k->buf + k->buf_len, data, (size_t)len);
        k->buf_len += (size_t)len;
    }
    k->pos += len;
    if (k->pos > k->end)
        k->end = k->pos;
    return (zip_int64_t)len;
}

static zip_int64_t sink_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    sink *k = (sink *)ud;
    switch (cmd) {
    case ZIP_SOURCE_SUPPORTS:
        return ZIP_SOURCE_SUPPORTS_WRITABLE;
    case ZIP_SOURCE_STAT: /* no archive there yet: libzip starts a new one */
        zip_error_set(&k->err, ZIP_ER_READ, ENOENT);
        return -1;
    case ZIP_SOURCE_BEGIN_WRITE:
        k->buf_off = k->pos = k->end = 0;
        k->buf_len = 0;
        return 0;
    case ZIP_SOURCE_WRITE:
        return sink_write(k, data, len);
    case ZIP_SOURCE_SEEK_WRITE: {
        if (flush(k))
            return -1;
        zip_int64_t to = zip_source_seek_compute_offset(k->pos, k->end, data, len, &k->err);
        if (to < 0)
            return -1;
        k->pos = k->buf_off = (zip_uint64_t)to;
        return 0;
    }
    case ZIP_SOURCE_TELL_WRITE:
        return (zip_int64_t)k->pos;
    case ZIP_SOURCE_COMMIT_WRITE:
        return flush(k);
    case ZIP_SOURCE_ROLLBACK_WRITE: /* the caller removes the file */
        k->buf_len = 0;
        return 0;
    case ZIP_SOURCE_REMOVE:
        return 0;
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&k->err, data, len);
    case ZIP_SOURCE_FREE:
        free(k->buf);
        zip_error_fini(&k->err);
        free(k);
        return 0;
    default: /* reading the archive back: never asked of a new one */
        zip_error_set(&k->err, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

zip_t *lwt__zip_create_on_fd(int fd, int *zerr)
{
    zip_error_t ze;
    zip_error_init(&ze);
    *zerr = ZIP_ER_MEMORY;
    sink *k = (sink *)calloc(1, sizeof *k);
    if (!k || !(k->buf = (unsigned char *)malloc(SINK_BUF))) {
        free(k);
        return NULL;
    }
    k->fd = fd;
    zip_error_init(&k->err);
    zip_source_t *src = zip_source_function_create(sink_cb, k, &ze);
    if (!src) {
        *zerr = zip_error_code_zip(&ze);
        sink_cb(k, NULL, 0, ZIP_SOURCE_FREE);
        zip_error_fini(&ze);
        return NULL;
    }
    zip_t *za = zip_open_from_source(src, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    if (!za) {
        *zerr = zip_error_code_zip(&ze);
        zip_source_free(src); /* frees k */
    }
    zip_error_fini(&ze);
    return za;
}
