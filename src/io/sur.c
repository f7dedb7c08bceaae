/*
 * sur.c - Digital Surf / MountainsMap .sur surfaces (read only).
 *
 * A 512-byte little-endian header, then a comment and a private zone of the sizes it gives,
 * then the points as int16 or int32, profile after profile (x fast). Height = raw * Zspacing
 * (in the Z step unit) + Zoffset. With the "non-measured points" flag set, raw == Zmin - 2
 * marks an invalid point. Only the first object of the file is read.
 *
 * Compressed files ("DSCOMPRESSED", MountainsMap 7 and later) have the same header (the size of
 * the compressed data block at 324) and zones; the points are a data block instead: a uint32
 * stream count, that many (inflated size, zipped size) uint32 pairs, then the zipped streams one
 * after the other, each a zlib stream; inflated and put end to end they are the points of the
 * uncompressed layout. (Layout as Gwyddion's surffile.c and surfalize's sur.py read it; Digital
 * Surf's writers use one stream.)
 *
 * Header offsets (bytes): 0 signature[12], 12 format u16 (0 = PC), 14 number of objects,
 * 16 version, 18 object type (1 profile, 2 surface, 4 profile series, ...), 20 object name[30],
 * 50 operator name[30], 80 material code, 82 acquisition, 84 range, 86 special points,
 * 88 absolute, 90 reserved[8], 98 bits per point u16, 100 Zmin i32, 104 Zmax i32,
 * 108 points per line i32, 112 lines i32, 116 total points i32, 120 X, Y, Z spacing f32,
 * 132 axis names 3x16, 180 step units X, Y, Z 3x16, 228 length units 3x16,
 * 276 unit ratios 3 f32, 288 imprint, inversion, leveling u16, 294 reserved[12],
 * 306 seconds, minutes, hours, day, month, year, day of week u16, 320 duration f32,
 * 324 compressed data size u32 (DSCOMPRESSED), 328 reserved[6], 334 comment size u16, 336 private size u16, 338 client zone[128],
 * 466 X, Y, Z offsets f32, 478 reserved to 512.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUR_HEADER 512

static double unit_field(const unsigned char *p, char *name, size_t namelen)
{
    lwt__copy_clean(name, namelen, (const char *)p, 16);
    return lwt__unit_to_metres(name);
}

typedef struct {
    double *z, scale, shift;
    size_t es;
    int special;
    int64_t nm;
} sur_decode;

static void decode_points(void *user, const unsigned char *d, size_t first, size_t count)
{
    const sur_decode *c = (const sur_decode *)user;
    for (size_t i = first; i < first + count; i++, d += c->es) {
        int64_t raw = c->es == 2 ? (int64_t)(int16_t)lwt__le16(d) : (int64_t)(int32_t)lwt__le32(d);
        c->z[i] = (c->special && raw == c->nm) ? NAN : (double)raw * c->scale + c->shift;
    }
}

/* deflate gives at most 1032 bytes for one zipped byte (zlib's own limit, zlib.h's compressBound
 * reasoning): a stream declaring more cannot be true, and is refused before anything is allocated */
#define DEFLATE_MAX_RATIO 1032
/* Digital Surf's writers use one stream; the directory is read entry by entry and each stream
 * has its own inflate, so a bound keeps a hostile count (one stream per 9 bytes of the file) from
 * costing minutes: 65536 streams of up to 4 GiB each is more than any surface */
#define SUR_MAX_STREAMS 65536u

/* Stream k's directory entry (inflated size, zipped size), k counted from 0. */
static lwt_status stream_entry(lwt_context *ctx, const char *path, int fd, size_t off, uint32_t k,
                               uint32_t *raw, uint32_t *zipped)
{
    unsigned char e[8];
    lwt_status rc = lwt__read_at(ctx, path, fd, e, 8, (uint64_t)off + 4 + 8 * (uint64_t)k);
    *raw = lwt__le32(e);
    *zipped = lwt__le32(e + 4);
    return rc;
}

/* The compressed data block at off, checked against the file and the points before anything is
 * allocated: the streams must inflate to exactly need bytes, their zipped bytes must be in the
 * file, no stream may declare more than deflate can give, and the block's size must be the
 * header's (when the header gives one: surfalize before 0.19 wrote 0 there). *streams: the count. */
static lwt_status check_streams(lwt_context *ctx, const char *path, int fd, size_t len, size_t off, size_t need,
                                uint32_t declared, uint32_t *streams)
{
    unsigned char c[4];
    lwt_status rc;
    if (len < off || len - off < 4)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "truncated: the compressed data block (at byte %zu) is past the end of the file (%zu bytes)",
                              off, len);
    if ((rc = lwt__read_at(ctx, path, fd, c, 4, off)))
        return rc;
    uint32_t count = lwt__le32(c);
    uint64_t left = len - off - 4;
    if (count == 0 || count > left / 8)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "corrupt: %u compressed streams, the file has room for the directory of %llu", count,
                              (unsigned long long)(left / 8));
    if (count > SUR_MAX_STREAMS)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "%u compressed streams: more than %u are not supported",
                              count, SUR_MAX_STREAMS);
    uint64_t raw_sum = 0, zipped_sum = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t raw, zipped;
        if ((rc = stream_entry(ctx, path, fd, off, k, &raw, &zipped)))
            return rc;
        if ((uint64_t)raw > (uint64_t)zipped * DEFLATE_MAX_RATIO)
            return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                  "corrupt: compressed stream %u of %u declares %u bytes from %u zipped bytes, more "
                                  "than deflate can give",
                                  k + 1, count, raw, zipped);
        raw_sum += raw;
        zipped_sum += zipped;
    }
    uint64_t block = 4 + 8 * (uint64_t)count + zipped_sum;
    if (block - 4 > left)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "truncated: the compressed data block needs %llu bytes after byte %zu, the file has %zu",
                              (unsigned long long)block, off, len - off);
    if (raw_sum != need)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "size mismatch: the compressed streams inflate to %llu bytes, the header's points need %zu",
                              (unsigned long long)raw_sum, need);
    if (declared != 0 && declared != block)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "size mismatch: the header says the compressed data block has %u bytes, its directory %llu",
                              declared, (unsigned long long)block);
    *streams = count;
    return LWT_OK;
}

/* The points of the compressed data block at off (checked by check_streams), stream after stream. */
static lwt_status read_streams(lwt_context *ctx, const char *path, int fd, size_t off, uint32_t count, size_t es,
                               sur_decode *dec)
{
    lwt__record_sink sink = {decode_points, dec, es, 0, 0, {0}};
    uint64_t at = (uint64_t)off + 4 + 8 * (uint64_t)count;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t raw, zipped;
        char what[48];
        lwt_status rc = stream_entry(ctx, path, fd, off, k, &raw, &zipped);
        snprintf(what, sizeof what, "compressed stream %u of %u", k + 1, count);
        if (rc || (rc = lwt__inflate_records(ctx, path, fd, at, zipped, raw, &sink, what)))
            return rc;
        at += zipped;
    }
    return LWT_OK;
}

/* The header is read and checked first; then the points the header declares, once the file is
 * known to hold them (a huge or lying file costs nothing). */
lwt_status lwt_surface_read_sur(lwt_context *ctx, const char *path, lwt_surface *out)
{
    unsigned char b[SUR_HEADER];
    char comment_text[sizeof out->comment];
    size_t len;
    int fd;
    int rc = lwt__open_head(ctx, path, out, &fd, &len, b, sizeof b);
    if (rc)
        return rc;

    if (len < 12 || (memcmp(b, "DIGITAL SURF", 12) && memcmp(b, "DSCOMPRESSED", 12))) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "not a Digital Surf file (no DIGITAL SURF magic)");
        goto done;
    }
    const int compressed = !memcmp(b, "DSCOMPRESSED", 12);
    if (len < SUR_HEADER) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "truncated: %zu bytes, the header alone has %d",
                            len, SUR_HEADER);
        goto done;
    }
    unsigned fmt = lwt__le16(b + 12), type = lwt__le16(b + 18), special = lwt__le16(b + 86);
    unsigned bits = lwt__le16(b + 98);
    int32_t zmin = (int32_t)lwt__le32(b + 100);
    int32_t nxi = (int32_t)lwt__le32(b + 108), nyi = (int32_t)lwt__le32(b + 112);
    uint32_t ntot = lwt__le32(b + 116);
    double sx = lwt__lef32(b + 120), sy = lwt__lef32(b + 124), sz = lwt__lef32(b + 128);
    size_t comment = lwt__le16(b + 334), private_size = lwt__le16(b + 336);
    double zoff = lwt__lef32(b + 474);

    if (fmt != 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "format %u (Macintosh byte order) is not supported", fmt);
        goto done;
    }
    if (type == 1 || type == 4 || type == 7 || type == 17) {
        rc = lwt__file_fail(ctx, LWT_ERR_NOT_AREAL, path,
                            "not an areal surface: Digital Surf object type %u is a profile", type);
        goto done;
    }
    if (type != 2) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "Digital Surf object type %u is not supported (only 2, surface)", type);
        goto done;
    }
    if (bits != 16 && bits != 32) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "%u bits per point is not supported", bits);
        goto done;
    }
    if (nxi <= 0 || nyi <= 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid dimensions %d x %d", nxi, nyi);
        goto done;
    }
    size_t nx = (size_t)nxi, ny = (size_t)nyi, n = nx * ny, es = bits / 8, need;
    if ((uint64_t)n != (uint64_t)ntot) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch: %zu x %zu points per line and lines, but %u points in total", nx, ny,
                            (unsigned)ntot);
        goto done;
    }
    char ux[20], uy[20], uz[20];
    double fx = unit_field(b + 180, ux, sizeof ux), fy = unit_field(b + 196, uy, sizeof uy),
           fz = unit_field(b + 212, uz, sizeof uz);
    if (fx == 0 || fy == 0 || fz == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "unknown length unit '%s'",
                            fx == 0 ? ux : fy == 0 ? uy : uz);
        goto done;
    }
    if (!(sx > 0) || !(sy > 0) || !isfinite(sx) || !isfinite(sy) || !isfinite(sz) || sz == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid spacing %g x %g x %g", sx, sy, sz);
        goto done;
    }
    size_t off = SUR_HEADER + comment + private_size;
    uint32_t streams = 0;
    if (compressed && lwt__mul_size(n, es, &need)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid dimensions %zu x %zu", nx, ny);
        goto done;
    }
    if (compressed) {
        if ((rc = check_streams(ctx, path, fd, len, off, need, lwt__le32(b + 324), &streams)))
            goto done;
    } else if (lwt__mul_size(n, es, &need) || len < off || len - off < need) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch (truncated?): %zu x %zu points of %zu bytes need %llu bytes after the "
                            "header, the file has %zu",
                            nx, ny, es, (unsigned long long)n * es + comment + private_size, len - SUR_HEADER);
        goto done;
    }
    comment_text[0] = 0;
    if (comment) {
        char raw[4096];
        size_t k = comment < sizeof raw ? comment : sizeof raw;
        if ((rc = lwt__read_at(ctx, path, fd, raw, k, SUR_HEADER)))
            goto done;
        lwt__copy_clean(comment_text, sizeof comment_text, raw, k);
    }
    if ((rc = lwt__surface_alloc_file(ctx, path, out, nx, ny, 0)))
        goto done;
    sur_decode dec = {out->z, sz * fz, isfinite(zoff) ? zoff * fz : 0.0, es, special == 1, (int64_t)zmin - 2};
    if (compressed)
        rc = read_streams(ctx, path, fd, off, streams, es, &dec);
    else
        rc = lwt__read_records(ctx, path, fd, off, n, es, decode_points, &dec);
    if (rc)
        goto done;
    out->dx = sx * fx;
    out->dy = sy * fy;
    snprintf(out->source_format, sizeof out->source_format, "sur");
    lwt__copy_clean(out->creator, sizeof out->creator, (const char *)b + 50, 30);
    unsigned sec = lwt__le16(b + 306), mi = lwt__le16(b + 308), hr = lwt__le16(b + 310), day = lwt__le16(b + 312),
             mon = lwt__le16(b + 314), yr = lwt__le16(b + 316);
    if (yr > 0 && mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && hr < 24 && mi < 60 && sec < 61)
        snprintf(out->date, sizeof out->date, "%04u-%02u-%02uT%02u:%02u:%02u", yr, mon, day, hr, mi, sec);
    snprintf(out->comment, sizeof out->comment, "%s", comment_text);
    if (!out->comment[0])
        lwt__copy_clean(out->comment, sizeof out->comment, (const char *)b + 20, 30); /* object name */

done:
    close(fd);
    if (rc)
        lwt_surface_free(out);
    return rc;
}
