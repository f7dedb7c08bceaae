/*
 * mapped_array.c - memory-mapped .npy / raw arrays and scratch (see mapped_array.h).
 *
 * The .npy header is parsed and built by the code npy.c uses (npy_header.h),
 * so a mapped read accepts exactly the headers npy_read accepts and a created
 * file is byte for byte what npy_write would write.
 *
 * Read mappings cover only the data (from the page holding its first byte),
 * not the header or trailing bytes; a created file is mapped whole (header
 * included, so the mapping is never empty). Arrays of zero elements map
 * nothing and point data at a static dummy that is never written.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE on glibc */
#define _FILE_OFFSET_BITS 64

#include "io/mapped_array.h"
#include "io/npy_header.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* What data points at when there are no elements: valid, aligned, never
   dereferenced (count 0), never written. */
static const double empty_data[1];

/* ------------------------------------------------------------ small helpers */

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The closed state: nothing held, fd -1. */
static void set_closed(lwt_mapped *m)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
}

/* every entry point starts the same way: out closed and err empty, so that a
 * failure leaves nothing half-set */
static void begin(lwt_mapped *out, char *err, size_t errlen)
{
    if (out)
        set_closed(out);
    if (err && errlen > 0)
        err[0] = '\0';
}

/* pread until n bytes or end of file; returns the count, or -1 with errno. */
static ssize_t pread_fully(int fd, void *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int pwrite_fully(int fd, const void *buf, size_t n, off_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, (const char *)buf + done, n - done, off + (off_t)done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        done += (size_t)w;
    }
    return 0;
}

/* Largest value an off_t holds (off_t is a signed integer type). */
static uintmax_t off_max(void)
{
    return sizeof(off_t) >= sizeof(int64_t) ? (uintmax_t)INT64_MAX : (uintmax_t)INT32_MAX;
}

/* Best effort: refuse up front when the file system holding fd clearly cannot
   take `bytes` more bytes (otherwise the first write to an unbacked page
   raises SIGBUS). File systems that report no sizes are trusted. */
static int check_space(int fd, uintmax_t bytes, const char *path, const char *what, char *err,
                       size_t errlen)
{
    struct statvfs vs;
    if (fstatvfs(fd, &vs) != 0 || vs.f_blocks == 0 || vs.f_frsize == 0)
        return 0;
    uintmax_t avail = (uintmax_t)vs.f_bavail;
    uintmax_t frsize = (uintmax_t)vs.f_frsize;
    avail = avail > UINTMAX_MAX / frsize ? UINTMAX_MAX : avail * frsize;
    if (bytes > avail)
        return lwt__npy_fail(err, errlen, path,
                    "not enough disk space for %s: needs %ju bytes, the file system has %ju free",
                    what, bytes, avail);
    return 0;
}

/* Opens path read-only and checks it is a regular file; *size gets its size. */
static int open_regular(const char *path, int *fdout, uintmax_t *size, char *err, size_t errlen)
{
    struct stat st;
    /* O_NONBLOCK: a FIFO must not block the open; it is refused below. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return lwt__npy_fail(err, errlen, path, "cannot open: %s", strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return lwt__npy_fail(err, errlen, path, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return lwt__npy_fail(err, errlen, path, "is a directory, not an array file");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return lwt__npy_fail(err, errlen, path,
                    "not a regular file (a pipe or device cannot be memory-mapped; drop --stream)");
    }
    *fdout = fd;
    *size = st.st_size > 0 ? (uintmax_t)st.st_size : 0;
    return 0;
}

/* Maps nbytes of fd read-only starting at file offset data_off and fills *out
   (which owns fd from here on, success or not). */
static int map_data_read(int fd, const char *path, uintmax_t data_off, lwt_dtype dtype, int ndim,
                         const size_t *shape, size_t count, lwt_mapped *out, char *err,
                         size_t errlen)
{
    size_t elsize = npy_elem_size(dtype), nbytes = count * elsize;
    out->path = dup_string(path);
    if (!out->path) {
        close(fd);
        return lwt__npy_fail(err, errlen, path, "out of memory");
    }
    out->fd = fd;
    if (nbytes > 0 && data_off % elsize != 0) {
        lwt_map_close(out);
        return lwt__npy_fail(err, errlen, path,
                    "data starts at byte %ju, not a multiple of the %zu-byte element size, so it "
                    "cannot be used in place: rewrite the file (numpy.save aligns it) or drop "
                    "--stream",
                    data_off, elsize);
    }
    if (nbytes > 0) {
        uintmax_t pg = page_size(), start = data_off / pg * pg;
        size_t lead = (size_t)(data_off - start);
        if (nbytes > SIZE_MAX - lead) {
            lwt_map_close(out);
            return lwt__npy_fail(err, errlen, path, "array too large to map (%zu bytes)", nbytes);
        }
        void *p = mmap(NULL, lead + nbytes, PROT_READ, MAP_SHARED, fd, (off_t)start);
        if (p == MAP_FAILED) {
            int e = errno;
            lwt_map_close(out);
            return lwt__npy_fail(err, errlen, path, "cannot map %zu bytes: %s", lead + nbytes, strerror(e));
        }
        out->map = p;
        out->map_len = lead + nbytes;
        out->data = (char *)p + lead;
    } else {
        out->data = (void *)empty_data;
    }
    out->dtype = dtype;
    out->ndim = ndim;
    for (int k = 0; k < ndim; k++)
        out->shape[k] = shape[k];
    out->count = count;
    out->writable = 0;
    return 0;
}

/* ------------------------------------------------------------------ reading */

int lwt_map_npy_read(const char *path, lwt_mapped *out, char *err, size_t errlen)
{
    unsigned char pre[12];
    char msg[256];
    char *htext = NULL;
    npy_header_info hi;
    uintmax_t fsize;
    size_t prelen, hlen, count, elsize, sq = 0;
    ssize_t got;
    int fd;

    begin(out, err, errlen);
    if (!path || !out)
        return lwt__npy_fail(err, errlen, path, "lwt_map_npy_read: invalid argument");
    if (open_regular(path, &fd, &fsize, err, errlen))
        return -1;

    /* preamble: the same checks and messages as npy_read */
    got = pread_fully(fd, pre, sizeof pre, 0);
    if (got < 0) {
        lwt__npy_fail(err, errlen, path, "read error: %s", strerror(errno));
        goto bad;
    }
    if (lwt__npy_parse_preamble(pre, (size_t)got, NULL, NULL, &fsize, &prelen, &hlen, msg,
                                sizeof msg)) {
        lwt__npy_fail(err, errlen, path, "%s", msg);
        goto bad;
    }

    /* header dict */
    htext = malloc(hlen + 1);
    if (!htext) {
        lwt__npy_fail(err, errlen, path, "out of memory reading the header");
        goto bad;
    }
    got = pread_fully(fd, htext, hlen, (off_t)prelen);
    if (got < 0) {
        lwt__npy_fail(err, errlen, path, "read error: %s", strerror(errno));
        goto bad;
    }
    if ((size_t)got < hlen) { /* shrank since fstat */
        lwt__npy_fail(err, errlen, path, "truncated header: header length is %zu bytes, file has %zd",
             hlen, got);
        goto bad;
    }
    htext[hlen] = '\0';
    if (lwt__npy_parse_header(htext, hlen, &hi, msg, sizeof msg)) {
        lwt__npy_fail(err, errlen, path, "%s", msg);
        goto bad;
    }
    free(htext);
    htext = NULL;

    /* only what can be used in place */
    elsize = npy_elem_size(hi.dtype);
    if (hi.swap) {
        int big = host_is_little_endian();
        lwt__npy_fail(err, errlen, path,
             "data is stored %s-endian; --stream maps the data in place and needs this "
             "machine's byte order: convert it (numpy: np.save(path, a.astype('%cf%zu'))) or "
             "drop --stream",
             big ? "big" : "little", big ? '<' : '>', elsize);
        goto bad;
    }
    for (int k = 0; k < hi.ndim; k++)
        sq += hi.shape[k] > 1;
    if (lwt__npy_shape_count(hi.ndim, hi.shape, &count) || count > SIZE_MAX / elsize) {
        char shown[NPY_MAX_DIMS * 22 + 4];
        lwt__npy_format_shape(shown, sizeof shown, hi.ndim, hi.shape);
        lwt__npy_fail(err, errlen, path, "array size overflows: shape %s of %s is more than %zu bytes",
             shown, npy_dtype_name(hi.dtype), SIZE_MAX);
        goto bad;
    }
    /* Fortran order with at most one axis longer than 1 (and empty arrays)
       is laid out exactly like C order. */
    if (hi.fortran && sq >= 2 && count > 0) {
        lwt__npy_fail(err, errlen, path,
             "stored in Fortran order; --stream maps the data in place and needs C order: "
             "convert it (numpy: np.save(path, np.ascontiguousarray(a))) or drop --stream");
        goto bad;
    }
    {
        uintmax_t avail = fsize - prelen - hlen, nbytes = (uintmax_t)count * elsize;
        if (avail < nbytes) {
            lwt__npy_fail(err, errlen, path, "truncated: header says %ju bytes of data, file has %ju",
                 nbytes, avail);
            goto bad;
        }
    }
    return map_data_read(fd, path, (uintmax_t)prelen + hlen, hi.dtype, hi.ndim, hi.shape, count,
                         out, err, errlen);
bad:
    free(htext);
    close(fd);
    return -1;
}

int lwt_map_raw_read(const char *path, lwt_dtype dtype, int ndim, const size_t *shape,
                     size_t offset_bytes, lwt_mapped *out, char *err, size_t errlen)
{
    uintmax_t fsize, avail;
    size_t count, elsize;
    char shown[NPY_MAX_DIMS * 22 + 4];
    int fd;

    begin(out, err, errlen);
    if (!path || !out)
        return lwt__npy_fail(err, errlen, path, "lwt_map_raw_read: invalid argument");
    if (!npy_dtype_ok(dtype))
        return lwt__npy_fail(err, errlen, path, "lwt_map_raw_read: invalid dtype %d", (int)dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return lwt__npy_fail(err, errlen, path, "lwt_map_raw_read: invalid ndim %d (0..%d)", ndim,
                    NPY_MAX_DIMS);
    if (ndim > 0 && !shape)
        return lwt__npy_fail(err, errlen, path, "lwt_map_raw_read: shape is NULL");
    elsize = npy_elem_size(dtype);
    lwt__npy_format_shape(shown, sizeof shown, ndim, shape);
    if (lwt__npy_shape_count(ndim, shape, &count) || count > SIZE_MAX / elsize)
        return lwt__npy_fail(err, errlen, path, "array size overflows: shape %s of %s is more than %zu bytes",
                    shown, npy_dtype_name(dtype), SIZE_MAX);
    if (open_regular(path, &fd, &fsize, err, errlen))
        return -1;
    if (fsize < (uintmax_t)offset_bytes) {
        close(fd);
        return lwt__npy_fail(err, errlen, path,
                    "size mismatch: the offset of %zu bytes is past the end of the file (%ju "
                    "bytes); shape %s of %s needs %ju bytes after it",
                    offset_bytes, fsize, shown, npy_dtype_name(dtype), (uintmax_t)count * elsize);
    }
    avail = fsize - offset_bytes;
    if (avail != (uintmax_t)count * elsize) {
        close(fd);
        if (offset_bytes)
            return lwt__npy_fail(err, errlen, path,
                        "size mismatch: shape %s of %s needs %ju bytes after the %zu-byte offset, "
                        "the file has %ju",
                        shown, npy_dtype_name(dtype), (uintmax_t)count * elsize, offset_bytes, avail);
        return lwt__npy_fail(err, errlen, path, "size mismatch: shape %s of %s needs %ju bytes, the file has %ju",
                    shown, npy_dtype_name(dtype), (uintmax_t)count * elsize, avail);
    }
    return map_data_read(fd, path, offset_bytes, dtype, ndim, shape, count, out, err, errlen);
}

/* ------------------------------------------------------------------ writing */

int lwt_map_npy_create(const char *path, lwt_dtype dtype, int ndim, const size_t *shape,
                       lwt_mapped *out, char *err, size_t errlen)
{
    unsigned char header[NPY_HEADER_BUF];
    size_t hdr, count, elsize, nbytes, total;
    char *tmp = NULL;
    int fd = -1;
    void *p;

    begin(out, err, errlen);
    if (!path || !*path || !out)
        return lwt__npy_fail(err, errlen, path, "lwt_map_npy_create: invalid argument");
    if (!npy_dtype_ok(dtype))
        return lwt__npy_fail(err, errlen, path, "lwt_map_npy_create: invalid dtype %d", (int)dtype);
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return lwt__npy_fail(err, errlen, path, "lwt_map_npy_create: invalid ndim %d (0..%d)", ndim,
                    NPY_MAX_DIMS);
    if (ndim > 0 && !shape)
        return lwt__npy_fail(err, errlen, path, "lwt_map_npy_create: shape is NULL");
    if (!host_is_little_endian())
        return lwt__npy_fail(err, errlen, path,
                    "a memory-mapped .npy output needs a little-endian machine; drop --stream");
    elsize = npy_elem_size(dtype);
    hdr = lwt__npy_build_header(header, sizeof header, dtype, ndim, shape);
    if (hdr == 0)
        return lwt__npy_fail(err, errlen, path, "lwt_map_npy_create: header too large");
    if (lwt__npy_shape_count(ndim, shape, &count) || count > (SIZE_MAX - hdr) / elsize ||
        (uintmax_t)(hdr + count * elsize) > off_max())
        return lwt__npy_fail(err, errlen, path, "array size overflows");
    nbytes = count * elsize;
    total = hdr + nbytes;

    /* temporary sibling: <path>.tmp-<pid>-<n>, created exclusively */
    tmp = malloc(strlen(path) + 48);
    if (!tmp)
        return lwt__npy_fail(err, errlen, path, "out of memory");
    for (unsigned i = 0;; i++) {
        sprintf(tmp, "%s.tmp-%ld-%u", path, (long)getpid(), i);
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            break;
        if (errno != EEXIST || i == 999) {
            lwt__npy_fail(err, errlen, path, "cannot create temporary file %s: %s", tmp,
                 errno == EEXIST ? "too many exist" : strerror(errno));
            free(tmp);
            return -1;
        }
    }
    if (pwrite_fully(fd, header, hdr, 0) != 0) {
        lwt__npy_fail(err, errlen, path, "cannot write the header of %s: %s", tmp, strerror(errno));
        goto bad;
    }
    if (check_space(fd, nbytes, path, "the output", err, errlen))
        goto bad;
    if (ftruncate(fd, (off_t)total) != 0) {
        lwt__npy_fail(err, errlen, path, "cannot extend %s to %zu bytes: %s", tmp, total, strerror(errno));
        goto bad;
    }
    p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        lwt__npy_fail(err, errlen, path, "cannot map %s (%zu bytes): %s", tmp, total, strerror(errno));
        goto bad;
    }
    out->path = dup_string(path);
    if (!out->path) {
        munmap(p, total);
        lwt__npy_fail(err, errlen, path, "out of memory");
        goto bad;
    }
    out->dtype = dtype;
    out->ndim = ndim;
    for (int k = 0; k < ndim; k++)
        out->shape[k] = shape[k];
    out->count = count;
    out->data = (char *)p + hdr;
    out->map = p;
    out->map_len = total;
    out->fd = fd;
    out->tmp_path = tmp;
    out->writable = 1;
    return 0;
bad:
    close(fd);
    unlink(tmp);
    free(tmp);
    return -1;
}

int lwt_map_commit(lwt_mapped *m, char *err, size_t errlen)
{
    const char *what = NULL;
    int e = 0;

    if (err && errlen > 0)
        err[0] = '\0';
    if (!m || !m->writable || !m->tmp_path || !m->path) {
        const char *p = m && m->path ? m->path : "(mapping)";
        return lwt__npy_fail(err, errlen, p, "lwt_map_commit: not an uncommitted lwt_map_npy_create mapping");
    }
    if (m->map && msync(m->map, m->map_len, MS_SYNC) != 0) {
        what = "cannot write back";
        e = errno;
    }
    if (m->map) {
        munmap(m->map, m->map_len);
        m->map = NULL;
        m->map_len = 0;
    }
    m->data = NULL;
    if (!what && fsync(m->fd) != 0 && errno != EINVAL && errno != EROFS) {
        what = "cannot sync";
        e = errno;
    }
    if (close(m->fd) != 0 && !what) {
        what = "cannot close";
        e = errno;
    }
    m->fd = -1;
    if (!what && rename(m->tmp_path, m->path) != 0) {
        what = "cannot rename into place";
        e = errno;
    }
    if (what) {
        lwt__npy_fail(err, errlen, m->path, "%s %s: %s", what, m->tmp_path, strerror(e));
        lwt_map_close(m); /* removes the temporary */
        return -1;
    }
    lwt__npy_fsync_parent_dir(m->path);
    free(m->tmp_path);
    m->tmp_path = NULL; /* committed: nothing left to remove */
    lwt_map_close(m);
    return 0;
}

void lwt_map_close(lwt_mapped *m)
{
    if (!m)
        return;
    if (m->map && m->map_len)
        munmap(m->map, m->map_len);
    /* Only a file-backed mapping (path set) owns its fd: a zero-initialised
       struct has fd 0, which must not be closed. */
    if (m->path && m->fd >= 0)
        close(m->fd);
    if (m->writable && m->tmp_path)
        unlink(m->tmp_path);
    free(m->path);
    free(m->tmp_path);
    set_closed(m);
}

/* ------------------------------------------------------------------ scratch */

int lwt_map_scratch(size_t bytes, const char *dir, lwt_mapped *out, char *err, size_t errlen)
{
    void *p;

    begin(out, err, errlen);
    if (!out)
        return lwt__npy_fail(err, errlen, dir ? dir : "scratch", "lwt_map_scratch: invalid argument");
    if (bytes == 0) {
        out->data = (void *)empty_data;
    } else if (!dir) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
        if (p == MAP_FAILED)
            return lwt__npy_fail(err, errlen, "scratch", "cannot map %zu bytes of memory: %s", bytes,
                        strerror(errno));
        out->map = p;
        out->map_len = bytes;
        out->data = p;
    } else {
        char *name;
        int fd;
        if ((uintmax_t)bytes > off_max())
            return lwt__npy_fail(err, errlen, dir, "scratch of %zu bytes is too large for a file", bytes);
        name = malloc(strlen(dir) + sizeof "/.lwt-scratch-XXXXXX");
        if (!name)
            return lwt__npy_fail(err, errlen, dir, "out of memory");
        sprintf(name, "%s/.lwt-scratch-XXXXXX", dir);
        fd = mkstemp(name);
        if (fd < 0) {
            lwt__npy_fail(err, errlen, dir, "cannot create a scratch file: %s", strerror(errno));
            free(name);
            return -1;
        }
        /* unlinked at once: the blocks live as long as the fd or the mapping */
        unlink(name);
        free(name);
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        if (check_space(fd, bytes, dir, "scratch", err, errlen)) {
            close(fd);
            return -1;
        }
        if (ftruncate(fd, (off_t)bytes) != 0) {
            int e = errno;
            close(fd);
            return lwt__npy_fail(err, errlen, dir, "cannot extend a scratch file to %zu bytes: %s", bytes,
                        strerror(e));
        }
        /* MAP_SHARED: dirty pages go back to the file, not to RAM or swap */
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        {
            int e = errno;
            close(fd); /* the mapping keeps the file alive */
            if (p == MAP_FAILED)
                return lwt__npy_fail(err, errlen, dir, "cannot map a scratch file of %zu bytes: %s", bytes,
                            strerror(e));
        }
        out->map = p;
        out->map_len = bytes;
        out->data = p;
    }
    out->dtype = LWT_F32;
    out->ndim = 1;
    out->shape[0] = bytes;
    out->count = bytes;
    out->writable = 1;
    return 0;
}

void lwt_map_advise_sequential(const lwt_mapped *m)
{
    if (!m)
        return;
#ifdef POSIX_MADV_SEQUENTIAL
    if (m->map && m->map_len)
        (void)posix_madvise(m->map, m->map_len, POSIX_MADV_SEQUENTIAL);
#endif
#ifdef POSIX_FADV_SEQUENTIAL
    if (m->path && m->fd >= 0)
        (void)posix_fadvise(m->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}
