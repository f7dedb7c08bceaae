/*
 * surface_file.c - common part of the surface file layer: the data model, dispatch by
 * magic bytes and extension, the .npy branch, and helpers shared by the format files
 * (error messages, whole-file reads, atomic temporary files, units).
 */
#define _POSIX_C_SOURCE 200809L

#include "core/half.h"
#include "io/surface_file.h"
#include "io/npy.h"
#include "io/npy_header.h"
#include "io/io_fail.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ data model */

void lwt_surface_init(lwt_surface *s)
{
    if (s)
        memset(s, 0, sizeof *s);
}

lwt_status lwt_surface_alloc(lwt_context *ctx, lwt_surface *s, size_t nx, size_t ny)
{
    size_t n, bytes;
    if (!s)
        return lwt__io_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_surface_alloc: no surface");
    lwt_surface_init(s);
    if (lwt__mul_size(nx, ny, &n) || lwt__mul_size(n, sizeof(double), &bytes))
        return lwt__io_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "a surface of %zu x %zu points is too large", nx, ny);
    s->z = (double *)malloc(bytes ? bytes : 1);
    if (!s->z)
        return lwt__io_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu x %zu points", nx, ny);
    for (size_t i = 0; i < n; i++)
        s->z[i] = NAN;
    s->nx = nx;
    s->ny = ny;
    return LWT_OK;
}

void lwt_surface_free(lwt_surface *s)
{
    if (!s)
        return;
    free(s->z);
    lwt_surface_init(s);
}

size_t lwt_surface_count_valid(const lwt_surface *s)
{
    size_t n = 0;
    if (!s || !s->z)
        return 0;
    for (size_t i = 0, m = s->nx * s->ny; i < m; i++)
        if (isfinite(s->z[i]))
            n++;
    return n;
}

/* ------------------------------------------------------------------ helpers */

lwt_status lwt__file_fail(const lwt_context *ctx, lwt_status status, const char *path, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one line */
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return lwt__io_fail(ctx, status, "%s: %s", path ? path : "(null)", msg);
}

/* what a path that is not a regular file is, for the message */
static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "is a directory";
    if (S_ISFIFO(m))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISCHR(m))
        return "is a character device, not a regular file";
    if (S_ISBLK(m))
        return "is a block device, not a regular file";
    if (S_ISSOCK(m))
        return "is a socket, not a regular file";
    return "is not a regular file";
}

const char *lwt__not_regular(const char *path)
{
    struct stat st;
    if (path && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return file_kind(st.st_mode);
    return NULL;
}

lwt_status lwt__check_regular(lwt_context *ctx, const char *path)
{
    const char *why = lwt__not_regular(path);
    return why ? lwt__file_fail(ctx, LWT_ERR_IO, path, "%s", why) : LWT_OK;
}

lwt_status lwt__open_regular(lwt_context *ctx, const char *path, int *fdout, size_t *size)
{
    struct stat st;
    *fdout = -1;
    *size = 0;
    lwt_status rc = lwt__check_regular(ctx, path);
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot open: %s", strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "%s", file_kind(st.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if ((uintmax_t)st.st_size >= (uintmax_t)SIZE_MAX) {
        close(fd);
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "too large for this machine");
    }
    *fdout = fd;
    *size = st.st_size > 0 ? (size_t)st.st_size : 0;
    return LWT_OK;
}

lwt_status lwt__read_at(lwt_context *ctx, const char *path, int fd, void *buf, size_t len, uint64_t off)
{
    unsigned char *p = (unsigned char *)buf;
    while (len > 0) {
        size_t chunk = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len;
        ssize_t k = pread(fd, p, chunk, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return lwt__file_fail(ctx, LWT_ERR_IO, path, "read error: %s", strerror(errno));
        if (k == 0)
            return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "truncated while reading (the file shrank?)");
        p += k;
        off += (uint64_t)k;
        len -= (size_t)k;
    }
    return LWT_OK;
}

lwt_status lwt__open_head(lwt_context *ctx, const char *path, lwt_surface *out, int *fd, size_t *size, void *head,
                          size_t head_len)
{
    *fd = -1;
    *size = 0;
    lwt_surface_init(out);
    if (!path)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "no file name");
    lwt_status rc = lwt__open_regular(ctx, path, fd, size);
    if (rc)
        return rc;
    memset(head, 0, head_len);
    if ((rc = lwt__read_at(ctx, path, *fd, head, *size < head_len ? *size : head_len, 0))) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

lwt_status lwt__read_records(lwt_context *ctx, const char *path, int fd, uint64_t off, size_t n, size_t es,
                             lwt__decode_fn decode, void *user)
{
    const size_t per = es ? (((size_t)1 << 20) / es ? ((size_t)1 << 20) / es : 1) : 1;
    unsigned char *b = (unsigned char *)malloc(per * es + 1);
    if (!b)
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
    lwt_status rc = LWT_OK;
    for (size_t i = 0; i < n && rc == LWT_OK; i += per) {
        size_t k = n - i < per ? n - i : per;
        rc = lwt__read_at(ctx, path, fd, b, k * es, off + (uint64_t)i * es);
        if (rc == LWT_OK)
            decode(user, b, i, k);
    }
    free(b);
    return rc;
}

lwt_status lwt__read_whole_file(lwt_context *ctx, const char *path, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    int fd;
    size_t fsize;
    lwt_status rc = lwt__open_regular(ctx, path, &fd, &fsize);
    if (rc)
        return rc;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot open: %s", strerror(e));
    }
    size_t cap = fsize + 1, n = 0;
    unsigned char *b = (unsigned char *)malloc(cap);
    if (!b) {
        fclose(f);
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory (%zu bytes)", cap);
    }
    for (;;) {
        if (n + 1 >= cap) { /* file grew while reading: keep going */
            unsigned char *nb = (unsigned char *)realloc(b, cap * 2);
            if (!nb) {
                free(b);
                fclose(f);
                return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
            }
            b = nb;
            cap *= 2;
        }
        size_t k = fread(b + n, 1, cap - 1 - n, f);
        n += k;
        if (k == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(b);
        fclose(f);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "read error: %s", strerror(e));
    }
    fclose(f);
    b[n] = 0;
    *buf = b;
    *len = n;
    return LWT_OK;
}

int lwt__tmp_create(lwt_context *ctx, const char *path, char *tmp, size_t tmplen)
{
    long pid = (long)getpid();
    for (int i = 0; i < 1000; i++) {
        int k = snprintf(tmp, tmplen, "%s.tmp-%ld-%d", path, pid, i);
        if (k < 0 || (size_t)k >= tmplen)
            return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path, "path too long"), -1;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST) {
            lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot create temporary file %s: %s", tmp,
                           strerror(errno));
            return -1;
        }
    }
    lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot create a temporary file beside it");
    return -1;
}

int lwt__write_all(int fd, const void *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    while (len > 0) {
        size_t chunk = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len;
        ssize_t k = write(fd, p, chunk);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0) {
            errno = EIO;
            return -1;
        }
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

void lwt__tmp_abort(int fd, const char *tmp)
{
    if (fd >= 0)
        close(fd);
    if (tmp && tmp[0])
        unlink(tmp);
}

lwt_status lwt__tmp_commit(lwt_context *ctx, int fd, const char *tmp, const char *path)
{
    return lwt__tmp_commit_sync(ctx, fd, tmp, path, 1);
}

lwt_status lwt__tmp_commit_sync(lwt_context *ctx, int fd, const char *tmp, const char *path, int durable)
{
    if (fd >= 0) {
        if (durable && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
            int e = errno;
            lwt__tmp_abort(fd, tmp);
            return lwt__file_fail(ctx, LWT_ERR_IO, path, "write failed: %s", strerror(e));
        }
        if (close(fd) != 0) {
            int e = errno;
            unlink(tmp);
            return lwt__file_fail(ctx, LWT_ERR_IO, path, "write failed: %s", strerror(e));
        }
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot rename temporary file: %s",
                              strerror(e));
    }
    return LWT_OK;
}

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

double lwt__unit_to_metres(const char *unit)
{
    char u[32];
    size_t n = 0;
    if (!unit)
        return 0;
    while (*unit == ' ' || *unit == '\t')
        unit++;
    while (unit[n] && n < sizeof u - 1) {
        u[n] = unit[n];
        n++;
    }
    while (n > 0 && (u[n - 1] == ' ' || u[n - 1] == '\t'))
        n--;
    u[n] = 0;
    if (!strcmp(u, "m"))
        return 1.0;
    if (!strcmp(u, "mm"))
        return 1e-3;
    if (!strcmp(u, "um") || !strcmp(u, "\xb5m") || !strcmp(u, "\xc2\xb5m") || !strcmp(u, "\xce\xbcm"))
        return 1e-6;
    if (!strcmp(u, "nm"))
        return 1e-9;
    if (!strcmp(u, "pm"))
        return 1e-12;
    if (!strcmp(u, "A") || !strcmp(u, "\xc5") || !strcmp(u, "\xc3\x85"))
        return 1e-10;
    if (!strcmp(u, "cm"))
        return 1e-2;
    return 0;
}

void lwt__now_iso8601(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tmv;
    if (n == 0)
        return;
    if (!gmtime_r(&t, &tmv) || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tmv) == 0)
        snprintf(buf, n, "1970-01-01T00:00:00Z");
}

void lwt__copy_clean(char *dst, size_t n, const char *src, size_t len)
{
    size_t a = 0, b = len, k = 0;
    if (n == 0)
        return;
    dst[0] = 0;
    if (!src)
        return;
    /* stop at a NUL inside the field */
    for (size_t i = 0; i < len; i++)
        if (src[i] == 0) {
            b = i;
            break;
        }
    while (a < b && ((unsigned char)src[a] <= ' ' || src[a] == 0x7f))
        a++;
    while (b > a && ((unsigned char)src[b - 1] <= ' ' || src[b - 1] == 0x7f))
        b--;
    for (size_t i = a; i < b && k + 1 < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[k++] = (c < ' ' || c == 0x7f) ? ' ' : (char)c;
    }
    dst[k] = 0;
}

/* ------------------------------------------------------------------ .npy */

lwt_status lwt_surface_read_npy(lwt_context *ctx, const char *path, lwt_surface *out)
{
    npy_array a;
    lwt_surface_init(out);
    memset(&a, 0, sizeof a);
    char msg[1024] = "";
    /* npy_read takes pipes (lwt forward reads them on purpose); a surface reader does not */
    lwt_status reg = lwt__check_regular(ctx, path);
    if (reg)
        return reg;
    size_t limit = lwt_context_memory_limit(ctx);
    int nrc = npy_read_max(path, limit, &a, msg, sizeof msg);
    if (nrc != 0) /* npy.c's own convention: "path: reason" in msg */
        return lwt__io_fail(ctx, nrc == NPY_OVER_LIMIT ? LWT_ERR_OUT_OF_MEMORY : LWT_ERR_FORMAT, "%s",
                            msg[0] ? msg : "cannot read the .npy file");
    if (a.ndim != 2 || a.shape[0] == 0 || a.shape[1] == 0) {
        char shp[96] = "";
        size_t k = 0;
        for (int i = 0; i < a.ndim && i < 8 && k < sizeof shp; i++) {
            int w = snprintf(shp + k, sizeof shp - k, "%s%zu", i ? ", " : "", a.shape[i]);
            if (w < 0)
                break;
            k += (size_t)w;
        }
        int nd = a.ndim;
        npy_free(&a);
        if (nd != 2)
            return lwt__file_fail(ctx, LWT_ERR_NOT_AREAL, path,
                                  "not an areal surface: array has %d dimension%s (%s), need 2 (ny, nx)", nd,
                                  nd == 1 ? "" : "s", shp);
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "empty array (%s)", shp);
    }
    size_t ny = a.shape[0], nx = a.shape[1], n = a.count;
    lwt_status st = lwt__surface_alloc_file(ctx, path, out, nx, ny, (uint64_t)n * npy_elem_size(a.dtype));
    if (st != LWT_OK) {
        npy_free(&a);
        return st;
    }
    if (a.dtype == LWT_F64) {
        const double *d = (const double *)a.data;
        for (size_t i = 0; i < n; i++)
            out->z[i] = isfinite(d[i]) ? d[i] : NAN;
    } else if (a.dtype == LWT_F16) { /* widened exactly (core/half.h) */
        const uint16_t *h = (const uint16_t *)a.data;
        for (size_t i = 0; i < n; i++) {
            const float f = lwt_f16_to_f32(h[i]);
            out->z[i] = isfinite(f) ? (double)f : NAN;
        }
    } else {
        const float *f = (const float *)a.data;
        for (size_t i = 0; i < n; i++)
            out->z[i] = isfinite(f[i]) ? (double)f[i] : NAN;
    }
    npy_free(&a);
    out->dx = 0;
    out->dy = 0;
    snprintf(out->source_format, sizeof out->source_format, "npy");
    return LWT_OK;
}

/* ------------------------------------------------------------------ dispatch */

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return "";
    return dot + 1;
}

static int ext_is(const char *path, const char *ext)
{
    const char *e = extension(path);
    size_t i = 0;
    for (; e[i] && ext[i]; i++)
        if (lower((unsigned char)e[i]) != lower((unsigned char)ext[i]))
            return 0;
    return e[i] == 0 && ext[i] == 0;
}

lwt_status lwt_surface_read(lwt_context *ctx, const char *path, lwt_surface *out)
{
    unsigned char head[16];
    size_t nh;
    int rc;

    if (!out)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path, "no output surface given");
    lwt_surface_init(out);
    if (!path || !path[0])
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path ? path : "(null)", "empty file name");

    int fd;
    size_t fsize;
    lwt_status st = lwt__open_regular(ctx, path, &fd, &fsize);
    if (st)
        return st;
    memset(head, 0, sizeof head);
    nh = fsize < sizeof head ? fsize : sizeof head;
    st = lwt__read_at(ctx, path, fd, head, nh, 0);
    close(fd);
    if (st)
        return st;
    if (nh == 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "empty file");

    if (nh >= 4 && !memcmp(head, "PK\x03\x04", 4) && ext_is(path, "plux"))
        rc = lwt_surface_read_plux(ctx, path, out);
    else if (nh >= 4 && !memcmp(head, "PK\x03\x04", 4))
        rc = lwt_surface_read_x3p(ctx, path, out);
    else if (nh >= 8 && !memcmp(head, "\x89HDF\r\n\x1a\n", 8))
        rc = lwt_surface_read_datx(ctx, path, out);
    else if (nh >= 12 && (!memcmp(head, "DIGITAL SURF", 12) || !memcmp(head, "DSCOMPRESSED", 12)))
        rc = lwt_surface_read_sur(ctx, path, out);
    else if (nh >= 4 && (!memcmp(head, "GWYP", 4) || !memcmp(head, "GWYO", 4)))
        rc = lwt_surface_read_gwy(ctx, path, out);
    else if (nh >= 14 && !memcmp(head, "AliconaImaging", 14))
        rc = lwt_surface_read_al3d(ctx, path, out);
    else if (nh >= 4 && !memcmp(head, "VK4_", 4))
        rc = lwt_surface_read_vk4(ctx, path, out);
    else if (nh >= 6 && !memcmp(head, "\x93NUMPY", 6))
        rc = lwt_surface_read_npy(ctx, path, out);
    else if (nh >= 8 && (head[0] == 'a' || head[0] == 'b') &&
             (!memcmp(head + 1, "ISO-1.0", 7) || !memcmp(head + 1, "BCR-1.0", 7)))
        rc = lwt_surface_read_sdf(ctx, path, out);
    else if (ext_is(path, "x3p"))
        rc = lwt_surface_read_x3p(ctx, path, out);
    else if (ext_is(path, "sdf"))
        rc = lwt_surface_read_sdf(ctx, path, out);
    else if (ext_is(path, "sur"))
        rc = lwt_surface_read_sur(ctx, path, out);
    else if (ext_is(path, "plu") || ext_is(path, "apx"))
        rc = lwt_surface_read_plu(ctx, path, out);
    else if (ext_is(path, "npy"))
        rc = lwt_surface_read_npy(ctx, path, out);
    else if (ext_is(path, "gwy"))
        rc = lwt_surface_read_gwy(ctx, path, out);
    else if (ext_is(path, "al3d"))
        rc = lwt_surface_read_al3d(ctx, path, out);
    else if (ext_is(path, "vk4"))
        rc = lwt_surface_read_vk4(ctx, path, out);
    else if (ext_is(path, "plux"))
        rc = lwt_surface_read_plux(ctx, path, out);
    else if (ext_is(path, "datx"))
        rc = lwt_surface_read_datx(ctx, path, out);
    else
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "unrecognised surface format (known: .x3p .sdf .sur .plu .gwy .al3d .vk4 .npy .plux "
                              ".datx)");
    if (rc != 0) {
        lwt_surface_free(out);
        return rc;
    }
    if (lwt_surface_count_valid(out) == 0) {
        lwt_surface_free(out);
        return lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "all points are invalid");
    }
    return LWT_OK;
}

lwt_status lwt_surface_write(lwt_context *ctx, const char *path, const lwt_surface *s)
{
    if (!path || !path[0])
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "empty file name");
    if (ext_is(path, "x3p"))
        return lwt_surface_write_x3p(ctx, path, s);
    if (ext_is(path, "sdf"))
        return lwt_surface_write_sdf(ctx, path, s, 1);
    return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path,
                          "cannot write this format (use .x3p or .sdf)");
}

lwt_status lwt__check_writable(lwt_context *ctx, const char *path, const lwt_surface *s, const char *format, size_t *n)
{
    if (!path || !path[0])
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "empty file name");
    if (!s || !s->z || s->nx == 0 || s->ny == 0)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path, "nothing to write (empty surface)");
    if (!(s->dx > 0) || !(s->dy > 0) || !isfinite(s->dx) || !isfinite(s->dy))
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path,
                              "%s needs the spacing: dx and dy must be positive (have %g, %g)", format, s->dx,
                              s->dy);
    if (lwt__mul_size(s->nx, s->ny, n))
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "dimensions too large");
    return 0;
}
