/*
 * zip_read.c - reading entries of zip-based surface files (X3P, Sensofar .plux) with libzip:
 * the archive opened from a regular file only, every entry read to exactly the size its
 * directory declares (CRC checked), and a declared size that its compressed bytes cannot hold
 * refused before a buffer of that size is allocated. The formats' own files (x3p.c, plux.c)
 * decide which entries to read and what they mean.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/zip_read.h"
#include "io/md5_hex.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int zip_open_error(int zerr, const char *path, const char *format, lwt_context *ctx)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, zerr);
    const char *zs = zip_error_strerror(&ze);
    int rc;
    if (zerr == ZIP_ER_NOENT || zerr == ZIP_ER_OPEN || zerr == ZIP_ER_READ)
        rc = lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot open: %s", zs);
    else if (zerr == ZIP_ER_NOZIP)
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "not a zip archive (truncated or corrupt %s file)", format);
    else
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt zip archive (truncated or damaged): %s",
                            zs);
    zip_error_fini(&ze);
    return rc;
}

/* Read one entry of `size` bytes completely into b, checking its size and (unless raw) its CRC.
 * raw reads a stored entry as it lies in the archive, without libzip's CRC: for data whose MD5
 * the caller checks instead, which catches all the CRC would (the CRC cost 37 ms of the
 * ~0.3 s of CPU a 128 MiB data.bin took to read on the development VM). */
/* Read size bytes of zf into b; with md5 (33 chars, "" when OpenSSL has none) also their MD5,
 * computed on a second thread 8 MiB behind the reads: for a 128 MiB data.bin the MD5 (~0.2 s
 * here) was the larger half of the read, and the reading (copy out of the page cache, page
 * faults of b) can run beside it. Returns the bytes read; *bad and why on a read error. */
#define READ_PIECE ((size_t)8 << 20)
static size_t read_hashed(zip_file_t *zf, unsigned char *b, size_t size, char *md5, int *bad, char *why, size_t wl)
{
    atomic_size_t got = 0;
    atomic_int done = 0;
    size_t total = 0;
    lwt_md5 *m = md5 ? lwt__md5_begin() : NULL;
#pragma omp parallel sections num_threads(m ? 2 : 1)
    {
#pragma omp section
        {
            while (total < size) {
                zip_int64_t k = zip_fread(zf, b + total, size - total < READ_PIECE ? size - total : READ_PIECE);
                if (k < 0) {
                    *bad = 1;
                    snprintf(why, wl, "%s", zip_file_strerror(zf));
                }
                if (k <= 0)
                    break;
                total += (size_t)k;
                atomic_store(&got, total);
            }
            atomic_store(&done, 1);
        }
#pragma omp section
        if (m) { /* with one thread this runs after the reads, on the whole */
            size_t hashed = 0;
            for (;;) {
                size_t g = atomic_load(&got);
                if (g > hashed) {
                    lwt__md5_add(m, b + hashed, g - hashed);
                    hashed = g;
                } else if (atomic_load(&done) && hashed == atomic_load(&got)) {
                    break;
                } else {
                    sched_yield();
                }
            }
        }
    }
    if (m && lwt__md5_end(m, md5))
        md5[0] = 0;
    else if (md5 && !m)
        md5[0] = 0;
    return total;
}

lwt_status lwt__zip_read_entry_into(zip_t *za, zip_int64_t idx, const char *name, size_t size, int raw, const char *zpath,
                           unsigned char *b, char *md5, lwt_context *ctx)
{
    zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)idx, raw ? ZIP_FL_COMPRESSED : 0);
    if (!zf)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "corrupt zip archive: cannot open %s: %s",
                              name, zip_strerror(za));
    int bad = 0;
    char why[160] = "";
    size_t total = read_hashed(zf, b, size, md5, &bad, why, sizeof why);
    if (!bad) {
        unsigned char extra;
        zip_int64_t k = zip_fread(zf, &extra, 1); /* reach the end: libzip checks the CRC there */
        if (k < 0) {
            bad = 1;
            snprintf(why, sizeof why, "%s", zip_file_strerror(zf));
        } else if (k > 0 || total != size) {
            bad = 1;
            snprintf(why, sizeof why, "uncompressed size differs from the directory (%zu bytes stated)", size);
        }
    }
    if (zip_fclose(zf) != 0 && !bad) {
        bad = 1;
        snprintf(why, sizeof why, "close failed");
    }
    if (bad)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "corrupt zip archive: reading %s: %s", name, why);
    return LWT_OK;
}

/* A stored entry holds exactly its compressed bytes and a deflated one at most 1032 times them
 * (deflate's limit): a directory that declares more lies, and is refused before a buffer of the
 * declared size is allocated. Other methods are left to the read, which stops at the declared size. */
lwt_status lwt__zip_check_declared_size(const zip_stat_t *st, const char *name, const char *zpath, lwt_context *ctx)
{
    zip_uint64_t cap;
    if (!(st->valid & ZIP_STAT_COMP_SIZE) || !(st->valid & ZIP_STAT_COMP_METHOD))
        return LWT_OK;
    if (st->comp_method == ZIP_CM_STORE)
        cap = st->comp_size;
    else if (st->comp_method == ZIP_CM_DEFLATE)
        cap = st->comp_size > (UINT64_MAX - 64) / 1032 ? UINT64_MAX : st->comp_size * 1032 + 64;
    else
        return LWT_OK;
    if (st->size > cap)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath,
                              "corrupt zip archive: %s declares %llu bytes, more than its %llu %s bytes can hold", name,
                              (unsigned long long)st->size, (unsigned long long)st->comp_size,
                              st->comp_method == ZIP_CM_STORE ? "stored" : "deflated");
    return LWT_OK;
}

/* the size of entry idx, at most maxsize */
static int entry_size(zip_t *za, zip_int64_t idx, const char *name, zip_uint64_t maxsize, const char *zpath,
                      size_t *size, zip_stat_t *st, lwt_context *ctx)
{
    zip_stat_init(st);
    if (zip_stat_index(za, (zip_uint64_t)idx, 0, st) != 0 || !(st->valid & ZIP_STAT_SIZE))
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "corrupt zip archive: cannot stat %s: %s",
                              name, zip_strerror(za));
    if (st->size > maxsize || st->size >= (zip_uint64_t)SIZE_MAX)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "%s is too large (%llu bytes, at most %llu)", name,
                              (unsigned long long)st->size, (unsigned long long)maxsize);
    int rc = lwt__zip_check_declared_size(st, name, zpath, ctx);
    if (rc)
        return rc;
    *size = (size_t)st->size;
    return LWT_OK;
}

/* Read one entry completely into a new buffer (one NUL byte after it), checking its size and CRC. */
lwt_status lwt__zip_read_entry(zip_t *za, zip_int64_t idx, const char *name, zip_uint64_t maxsize, const char *zpath,
                      unsigned char **buf, size_t *len, lwt_context *ctx)
{
    zip_stat_t st;
    size_t size = 0;
    *buf = NULL;
    *len = 0;
    int rc = entry_size(za, idx, name, maxsize, zpath, &size, &st, ctx);
    if (rc)
        return rc;
    unsigned char *b = (unsigned char *)malloc(size + 1);
    if (!b)
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, zpath, "out of memory for %s (%zu bytes)", name,
                              size);
    if ((rc = lwt__zip_read_entry_into(za, idx, name, size, 0, zpath, b, NULL, ctx))) {
        free(b);
        return rc;
    }
    b[size] = 0;
    *buf = b;
    *len = size;
    return LWT_OK;
}

lwt_status lwt__zip_open(lwt_context *ctx, const char *path, const char *format, zip_t **out)
{
    int fd, zerr = 0;
    size_t fsize;
    *out = NULL;
    /* a directory, FIFO or device refused before libzip opens it (a FIFO would block the open) */
    lwt_status rc = lwt__open_regular(ctx, path, &fd, &fsize);
    if (rc)
        return rc;
    zip_t *za = zip_fdopen(fd, ZIP_CHECKCONS, &zerr); /* owns fd from here on, unless it fails */
    if (!za) {
        close(fd);
        return zip_open_error(zerr, path, format, ctx);
    }
    *out = za;
    return LWT_OK;
}
