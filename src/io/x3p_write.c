/*
 * x3p_write.c - writing X3P files (ISO 25178-72): main.xml, bindata/data.bin (little-endian
 * float64 heights, NaN at invalid points), bindata/valid.bin when a point is invalid, and
 * md5checksum.hex, in that order, through libzip.
 *
 * No copy of the heights is made. A first pass converts them to their file bytes 64 KiB at a
 * time (in cache) for the MD5 that main.xml states and the valid-point bits; libzip's pass then
 * takes the same bytes from a source that converts them again as it reads (its CRC and the
 * write to the file), and writes through zip_fd_sink.h into the temporary file. The MD5 cannot
 * ride on libzip's pass: main.xml, which states it, comes first in the archive, as every X3P
 * reader we know expects. 4096 x 4096 points (128 MiB) on the 2-core development VM: the
 * converted copy, MD5 over it, libzip's 4 KiB stdio writes and its own temporary file took
 * 0.6-0.7 s per file; see docs/PERFORMANCE.md, "Surface filtration (CPU)", for the numbers
 * of this version.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/md5_hex.h"
#include "io/surface_file.h"
#include "io/zip_fd_sink.h"

#include <lwt.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

/* ------------------------------------------------------------------ main.xml */

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_reserve(sbuf *b, size_t extra)
{
    if (b->oom)
        return;
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->len + extra + 1)
        nc *= 2;
    char *ns = (char *)realloc(b->s, nc);
    if (!ns) {
        b->oom = 1;
        return;
    }
    b->s = ns;
    b->cap = nc;
}

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->oom = 1;
        return;
    }
    sb_reserve(b, (size_t)k);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
}

static void sb_escaped(sbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': sb_printf(b, "&amp;"); break;
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        case '\'': sb_printf(b, "&apos;"); break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                c = ' ';
            sb_printf(b, "%c", (char)c);
        }
    }
}

/* valid UTF-8 (the strings we write come from files of unknown encoding) */
static int is_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int k = *p < 0x80 ? 0 : (*p >> 5) == 6 ? 1 : (*p >> 4) == 14 ? 2 : (*p >> 3) == 30 ? 3 : -1;
        if (k < 0)
            return 0;
        p++;
        for (int i = 0; i < k; i++, p++)
            if ((*p >> 6) != 2)
                return 0;
    }
    return 1;
}

static void sb_text(sbuf *b, const char *s, const char *fallback)
{
    if (!s || !s[0] || !is_utf8(s))
        s = fallback;
    sb_escaped(b, s);
}

/* "YYYY-MM-DDThh:mm:ss" prefix: usable as xsd:dateTime */
static int looks_like_datetime(const char *s)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:dd";
    for (int i = 0; pat[i]; i++) {
        if (pat[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != pat[i])
            return 0;
    }
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || strchr("-:T.Z+", *p)))
            return 0;
    return 1;
}

/* main.xml of s; md5v NULL when every point is valid (no valid.bin) */
static void main_xml(sbuf *x, const lwt_surface *s, const char *md5d, const char *md5v)
{
    char when[40];
    if (looks_like_datetime(s->date))
        snprintf(when, sizeof when, "%s", s->date);
    else
        lwt__now_iso8601(when, sizeof when);

    sb_printf(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<p:ISO5436_2 xmlns:p=\"http://www.opengps.eu/2008/ISO5436_2\" "
                  "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                  "xsi:schemaLocation=\"http://www.opengps.eu/2008/ISO5436_2 "
                  "http://www.opengps.eu/2008/ISO5436_2/ISO5436_2.xsd\">\n"
                  "  <Record1>\n"
                  "    <Revision>ISO5436 - 2000</Revision>\n"
                  "    <FeatureType>SUR</FeatureType>\n"
                  "    <Axes>\n");
    sb_printf(x, "      <CX>\n        <AxisType>I</AxisType>\n        <DataType>D</DataType>\n"
                  "        <Increment>%.17g</Increment>\n        <Offset>0</Offset>\n      </CX>\n", s->dx);
    sb_printf(x, "      <CY>\n        <AxisType>I</AxisType>\n        <DataType>D</DataType>\n"
                  "        <Increment>%.17g</Increment>\n        <Offset>0</Offset>\n      </CY>\n", s->dy);
    sb_printf(x, "      <CZ>\n        <AxisType>A</AxisType>\n        <DataType>D</DataType>\n"
                  "        <Increment>1</Increment>\n        <Offset>0</Offset>\n      </CZ>\n"
                  "    </Axes>\n  </Record1>\n");
    sb_printf(x, "  <Record2>\n    <Date>%s</Date>\n    <Creator>lwt</Creator>\n    <Instrument>\n"
                  "      <Manufacturer>", when);
    sb_text(x, s->instrument, "not available");
    sb_printf(x, "</Manufacturer>\n      <Model>not available</Model>\n      <Serial>not available</Serial>\n"
                  "      <Version>lwt %d.%d.%d</Version>\n    </Instrument>\n"
                  "    <ProbingSystem>\n      <Type>Software</Type>\n      <Identification>",
              LWT_VERSION_MAJOR, LWT_VERSION_MINOR, LWT_VERSION_PATCH);
    sb_printf(x, "lwt (from %s)", s->source_format[0] && is_utf8(s->source_format) ? s->source_format : "memory");
    sb_printf(x, "</Identification>\n    </ProbingSystem>\n");
    if (s->comment[0] && is_utf8(s->comment)) {
        sb_printf(x, "    <Comment>");
        sb_escaped(x, s->comment);
        sb_printf(x, "</Comment>\n");
    }
    sb_printf(x, "  </Record2>\n  <Record3>\n    <MatrixDimension>\n      <SizeX>%zu</SizeX>\n"
                  "      <SizeY>%zu</SizeY>\n      <SizeZ>1</SizeZ>\n    </MatrixDimension>\n"
                  "    <DataLink>\n      <PointDataLink>bindata/data.bin</PointDataLink>\n"
                  "      <MD5ChecksumPointData>%s</MD5ChecksumPointData>\n",
              s->nx, s->ny, md5d);
    if (md5v)
        sb_printf(x, "      <ValidPointsLink>bindata/valid.bin</ValidPointsLink>\n"
                      "      <MD5ChecksumValidPoints>%s</MD5ChecksumValidPoints>\n", md5v);
    sb_printf(x, "    </DataLink>\n  </Record3>\n  <Record4>\n    <ChecksumFile>md5checksum.hex</ChecksumFile>\n"
                  "  </Record4>\n</p:ISO5436_2>\n");
}

/* ------------------------------------------------------------------ the height records */

#define CHUNK 8192 /* values per conversion step: 64 KiB, well inside L2 */

/* z[0..k) as data.bin bytes (little-endian float64, every non-finite value as NaN) into out;
 * returns how many were not finite. On a little-endian host this is a copy with a select,
 * which the compiler vectorizes. */
static size_t le_records(const double *z, size_t k, unsigned char *out)
{
    size_t bad = 0;
    for (size_t i = 0; i < k; i++) {
        double v = z[i];
        int ok = isfinite(v) != 0;
        bad += (size_t)!ok;
        v = ok ? v : NAN;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out + 8 * i, &v, 8);
#else
        lwt__put_lef64(out + 8 * i, v);
#endif
    }
    return bad;
}

/* set bit i of vb for each finite z[i0 + i], i < k (valid.bin: LSB first) */
static void valid_bits(const double *z, size_t i0, size_t k, unsigned char *vb)
{
    for (size_t i = i0; i < i0 + k; i++)
        if (isfinite(z[i]))
            vb[i >> 3] |= (unsigned char)(1u << (i & 7));
}

typedef struct prepared {
    char md5d[33], md5v[33];
    unsigned char *vb; /* valid.bin, NULL when every point is valid */
} prepared;

/* The first pass: MD5 of data.bin and, at the first invalid point, valid.bin. */
static lwt_status prepare(lwt_context *ctx, const char *path, const double *z, size_t n, prepared *p)
{
    unsigned char buf[8 * CHUNK];
    lwt_md5 *m = lwt__md5_begin();
    if (!m)
        return lwt__file_fail(ctx, LWT_ERR_CHECKSUM, path, "MD5 is not available (OpenSSL)");
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        if (le_records(z + i, k, buf) && !p->vb) {
            if (!(p->vb = (unsigned char *)calloc(n / 8 + 1, 1))) {
                lwt__md5_end(m, p->md5d);
                return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
            }
            memset(p->vb, 0xff, i / 8); /* every point before this chunk is valid; CHUNK % 8 == 0 */
        }
        if (p->vb)
            valid_bits(z, i, k, p->vb);
        lwt__md5_add(m, buf, 8 * k);
    }
    if (lwt__md5_end(m, p->md5d) || (p->vb && lwt__md5_hex(p->vb, (n + 7) / 8, p->md5v)))
        return lwt__file_fail(ctx, LWT_ERR_CHECKSUM, path, "MD5 is not available (OpenSSL)");
    return LWT_OK;
}

/* data.bin for libzip: the records converted as it reads them (its reads are 8 KiB) */
typedef struct records {
    const double *z;
    zip_uint64_t size, pos; /* bytes */
    time_t mtime;
} records;

static zip_int64_t records_read(records *r, unsigned char *out, zip_uint64_t len)
{
    zip_uint64_t done = 0;
    if (len > r->size - r->pos)
        len = r->size - r->pos;
    while (done < len) {
        size_t i = (size_t)(r->pos / 8), off = (size_t)(r->pos % 8);
        zip_uint64_t k = (len - done) / 8;
        if (off == 0 && k > 0) {
            k = k > CHUNK ? CHUNK : k;
            le_records(r->z + i, (size_t)k, out + done);
            k *= 8;
        } else { /* a record split between two reads */
            unsigned char one[8];
            le_records(r->z + i, 1, one);
            k = 8 - off < len - done ? 8 - off : len - done;
            memcpy(out + done, one + off, (size_t)k);
        }
        done += k;
        r->pos += k;
    }
    return (zip_int64_t)done;
}

static zip_int64_t records_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    records *r = (records *)ud;
    switch (cmd) {
    case ZIP_SOURCE_SUPPORTS:
        return ZIP_SOURCE_SUPPORTS_READABLE;
    case ZIP_SOURCE_OPEN:
        r->pos = 0;
        return 0;
    case ZIP_SOURCE_READ:
        return records_read(r, (unsigned char *)data, len);
    case ZIP_SOURCE_STAT: {
        if (len < sizeof(zip_stat_t))
            return -1;
        zip_stat_t *st = (zip_stat_t *)data;
        zip_stat_init(st);
        st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD |
                    ZIP_STAT_MTIME;
        st->size = st->comp_size = r->size;
        st->comp_method = ZIP_CM_STORE;
        st->encryption_method = ZIP_EM_NONE;
        st->mtime = r->mtime;
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR: { /* reads cannot fail */
        zip_error_t e;
        zip_error_init(&e);
        zip_int64_t k = zip_error_to_data(&e, data, len);
        zip_error_fini(&e);
        return k;
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE: /* r lives on the writer's stack */
        return 0;
    default:
        return -1;
    }
}

/* ------------------------------------------------------------------ the archive */

/* float64 heights deflate by about 5 % at about 35 MB/s: big data.bin entries are stored */
#define X3P_STORE_BYTES ((size_t)1 << 20)

static int add_source(zip_t *za, const char *name, zip_source_t *src, int store)
{
    if (!src)
        return -1;
    zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (idx < 0) {
        zip_source_free(src);
        return -1;
    }
    if (store)
        (void)zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
    return 0;
}

static int add_buffer(zip_t *za, const char *name, const void *data, size_t len, int store)
{
    return add_source(za, name, zip_source_buffer(za, data, len, 0), store);
}

/* the archive into the open temporary file fd */
static lwt_status write_archive(lwt_context *ctx, const char *path, int fd, const sbuf *x, const char *chk,
                                records *rec, const unsigned char *vb, size_t vblen)
{
    int zerr = 0;
    zip_t *za = lwt__zip_create_on_fd(fd, &zerr);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        lwt_status rc = lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot create zip archive: %s", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return rc;
    }
    if (add_buffer(za, "main.xml", x->s, x->len, 0) || zip_dir_add(za, "bindata", ZIP_FL_ENC_UTF_8) < 0 ||
        add_source(za, "bindata/data.bin", zip_source_function(za, records_cb, rec), rec->size >= X3P_STORE_BYTES) ||
        (vb && add_buffer(za, "bindata/valid.bin", vb, vblen, 0)) ||
        add_buffer(za, "md5checksum.hex", chk, strlen(chk), 1)) {
        lwt_status rc = lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot build zip archive: %s", zip_strerror(za));
        zip_discard(za);
        return rc;
    }
    if (zip_close(za) != 0) {
        lwt_status rc = lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot write zip archive: %s", zip_strerror(za));
        zip_discard(za);
        return rc;
    }
    return LWT_OK;
}

lwt_status lwt__surface_write_x3p_sync(lwt_context *ctx, const char *path, const lwt_surface *s, int durable)
{
    char tmp[4200], md5m[33], chk[64];
    size_t n, nbytes;
    prepared p;
    sbuf x = {0, 0, 0, 0};
    memset(&p, 0, sizeof p);

    lwt_status rc = lwt__check_writable(ctx, path, s, "X3P", &n);
    if (rc)
        return rc;
    if (lwt__mul_size(n, 8, &nbytes))
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "dimensions too large");
    if ((rc = prepare(ctx, path, s->z, n, &p)))
        goto done;
    main_xml(&x, s, p.md5d, p.vb ? p.md5v : NULL);
    if (x.oom) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
        goto done;
    }
    if (lwt__md5_hex(x.s, x.len, md5m)) {
        rc = lwt__file_fail(ctx, LWT_ERR_CHECKSUM, path, "MD5 is not available (OpenSSL)");
        goto done;
    }
    snprintf(chk, sizeof chk, "%s *main.xml\n", md5m);

    int fd = lwt__tmp_create(ctx, path, tmp, sizeof tmp);
    if (fd < 0) {
        rc = LWT_ERR_IO;
        goto done;
    }
    records rec = {s->z, nbytes, 0, time(NULL)};
    if ((rc = write_archive(ctx, path, fd, &x, chk, &rec, p.vb, (n + 7) / 8))) {
        lwt__tmp_abort(fd, tmp);
        goto done;
    }
    rc = lwt__tmp_commit_sync(ctx, fd, tmp, path, durable); /* close, rename; unlinks tmp on failure */
done:
    free(p.vb);
    free(x.s);
    return rc;
}

lwt_status lwt_surface_write_x3p(lwt_context *ctx, const char *path, const lwt_surface *s)
{
    return lwt__surface_write_x3p_sync(ctx, path, s, 1);
}
