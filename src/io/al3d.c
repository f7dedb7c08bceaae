/*
 * al3d.c - Alicona (Bruker Alicona) .al3d depth images (read only).
 *
 * Layout (little-endian), as the AL3D file format specification describes it (and Gwyddion's
 * alicona.c, SurfaceTopography's AL3D.py and surfalize's al3d.py read it):
 *   0   magic "AliconaImaging\0\r\n" (17 bytes)
 *   17  tags of 52 bytes each: key (20 bytes), value (30 bytes), both NUL-terminated text, then
 *       "\r\n". The first is Version, the second TagCount (how many tags follow), then the rest
 *       in any order: Cols, Rows, DepthImageOffset (bytes from the start of the file; 0 = no
 *       depth image), PixelSizeXMeter, PixelSizeYMeter, InvalidPixelValue, TextureImageOffset,
 *       NumberOfPlanes, IconOffset, CreatingApplication, ...
 *   at DepthImageOffset: Rows scanlines of Cols float32 depths in metres, each scanline padded to
 *       a multiple of 8 bytes (the last one's padding may be missing).
 * Depths at or above InvalidPixelValue (3e15 in Alicona's files), NaN and infinities are not
 * measured. The icon, the texture planes and the repeatability map are not read.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AL3D_MAGIC "AliconaImaging\0\r\n"
#define AL3D_MAGIC_SIZE 17
#define AL3D_TAG 52
#define AL3D_KEY 20
#define AL3D_VALUE 30
#define AL3D_TAGS_PER_READ 64

/* The tags the reader uses; have_* says which were present. */
typedef struct {
    unsigned long long cols, rows, depth_offset;
    double dx, dy, invalid;
    int have_cols, have_rows, have_depth, have_dx, have_dy, have_invalid;
    char application[64];
} al3d_tags;

/* An unsigned integer tag value (the whole value, blanks around allowed). */
static int parse_count(const char *v, unsigned long long *out)
{
    char *end;
    while (*v == ' ')
        v++;
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    *out = strtoull(v, &end, 10);
    while (*end == ' ')
        end++;
    return errno || *end ? -1 : 0;
}

/* A floating-point tag value (the whole value, blanks around allowed). */
static int parse_real(const char *v, double *out)
{
    char *end;
    while (*v == ' ')
        v++;
    if (!*v)
        return -1;
    *out = strtod(v, &end);
    while (*end == ' ')
        end++;
    return *end ? -1 : 0;
}

/* One tag at t (52 bytes): key and value as C strings; -1 when it does not end in "\r\n". */
static int split_tag(const unsigned char *t, char key[AL3D_KEY + 1], char value[AL3D_VALUE + 1])
{
    memcpy(key, t, AL3D_KEY);
    key[AL3D_KEY] = 0;
    memcpy(value, t + AL3D_KEY, AL3D_VALUE);
    value[AL3D_VALUE] = 0;
    return t[50] == '\r' && t[51] == '\n' ? 0 : -1;
}

/* A tag value the reader needs, refused with its key when it does not parse. */
static lwt_status bad_value(lwt_context *ctx, const char *path, const char *key, const char *value)
{
    char shown[AL3D_VALUE + 1];
    lwt__copy_clean(shown, sizeof shown, value, strlen(value));
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p > 0x7e)
            *p = '?';
    return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt: tag %s has the value '%s'", key, shown);
}

static lwt_status take_tag(lwt_context *ctx, const char *path, const char *key, const char *value, al3d_tags *t)
{
    int bad = 0;
    if (!strcmp(key, "Cols"))
        bad = parse_count(value, &t->cols), t->have_cols = 1;
    else if (!strcmp(key, "Rows"))
        bad = parse_count(value, &t->rows), t->have_rows = 1;
    else if (!strcmp(key, "DepthImageOffset"))
        bad = parse_count(value, &t->depth_offset), t->have_depth = 1;
    else if (!strcmp(key, "PixelSizeXMeter"))
        bad = parse_real(value, &t->dx), t->have_dx = 1;
    else if (!strcmp(key, "PixelSizeYMeter"))
        bad = parse_real(value, &t->dy), t->have_dy = 1;
    else if (!strcmp(key, "InvalidPixelValue"))
        bad = parse_real(value, &t->invalid), t->have_invalid = 1;
    else if (!strcmp(key, "CreatingApplication"))
        lwt__copy_clean(t->application, sizeof t->application, value, strlen(value));
    return bad ? bad_value(ctx, path, key, value) : LWT_OK;
}

/* The tags after Version and TagCount, count of them from byte AL3D_MAGIC_SIZE + 2 tags, read a
 * block at a time (the caller has checked that the file holds them). */
static lwt_status read_tags(lwt_context *ctx, const char *path, int fd, uint64_t count, al3d_tags *t)
{
    unsigned char block[AL3D_TAGS_PER_READ * AL3D_TAG];
    char key[AL3D_KEY + 1], value[AL3D_VALUE + 1];
    lwt_status rc;
    for (uint64_t i = 0; i < count; i += AL3D_TAGS_PER_READ) {
        size_t k = count - i < AL3D_TAGS_PER_READ ? (size_t)(count - i) : AL3D_TAGS_PER_READ;
        if ((rc = lwt__read_at(ctx, path, fd, block, k * AL3D_TAG, AL3D_MAGIC_SIZE + (2 + i) * AL3D_TAG)))
            return rc;
        for (size_t j = 0; j < k; j++) {
            if (split_tag(block + j * AL3D_TAG, key, value))
                return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                      "corrupt: tag %llu does not end in CR LF (not a 52-byte AL3D tag)",
                                      (unsigned long long)(i + j + 3));
            if ((rc = take_tag(ctx, path, key, value, t)))
                return rc;
        }
    }
    return LWT_OK;
}

typedef struct {
    double *z;
    size_t cols, per_row; /* depths per scanline, float32 slots per padded scanline */
    float invalid;        /* depths at or above it are not measured; +inf: none */
} al3d_decode;

/* records are the float32 slots of the padded scanlines: those past Cols are padding */
static void decode_depths(void *user, const unsigned char *d, size_t first, size_t count)
{
    const al3d_decode *c = (const al3d_decode *)user;
    for (size_t i = first; i < first + count; i++, d += 4) {
        size_t row = i / c->per_row, col = i % c->per_row;
        if (col >= c->cols)
            continue;
        float v = lwt__lef32(d);
        c->z[row * c->cols + col] = (!isfinite(v) || v >= c->invalid) ? NAN : (double)v;
    }
}

/* The magic and the tags are read and checked first; then the depths, once the file is known to
 * hold them. */
lwt_status lwt_surface_read_al3d(lwt_context *ctx, const char *path, lwt_surface *out)
{
    unsigned char head[AL3D_MAGIC_SIZE + 2 * AL3D_TAG];
    char key[AL3D_KEY + 1], value[AL3D_VALUE + 1];
    al3d_tags t;
    size_t len;
    int fd;
    memset(&t, 0, sizeof t);
    lwt_status rc = lwt__open_head(ctx, path, out, &fd, &len, head, sizeof head);
    if (rc)
        return rc;
    if (len < AL3D_MAGIC_SIZE || memcmp(head, AL3D_MAGIC, AL3D_MAGIC_SIZE)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "not an Alicona AL3D file (no AliconaImaging magic)");
        goto done;
    }
    if (len < sizeof head) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "truncated: %zu bytes, the magic and the Version and TagCount tags have %zu", len,
                            sizeof head);
        goto done;
    }
    unsigned long long count;
    if (split_tag(head + AL3D_MAGIC_SIZE, key, value) || strcmp(key, "Version") ||
        split_tag(head + AL3D_MAGIC_SIZE + AL3D_TAG, key, value) || strcmp(key, "TagCount")) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt: the first tags are not Version and TagCount");
        goto done;
    }
    if (parse_count(value, &count)) {
        rc = bad_value(ctx, path, "TagCount", value);
        goto done;
    }
    if (count > (len - sizeof head) / AL3D_TAG) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "truncated: TagCount %llu tags of %d bytes, the file has %zu bytes after the first two",
                            count, AL3D_TAG, len - sizeof head);
        goto done;
    }
    if ((rc = read_tags(ctx, path, fd, count, &t)))
        goto done;
    const char *missing = !t.have_cols ? "Cols" : !t.have_rows ? "Rows" : !t.have_depth ? "DepthImageOffset"
                          : !t.have_dx ? "PixelSizeXMeter" : !t.have_dy ? "PixelSizeYMeter" : NULL;
    if (missing) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt: no %s tag", missing);
        goto done;
    }
    if (t.depth_offset == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "no depth image (DepthImageOffset is 0)");
        goto done;
    }
    if (t.cols == 0 || t.rows == 0 || t.cols > SIZE_MAX / 8 || t.rows > SIZE_MAX / 8) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid dimensions %llu x %llu", t.cols, t.rows);
        goto done;
    }
    if (!(t.dx > 0) || !(t.dy > 0) || !isfinite(t.dx) || !isfinite(t.dy)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid pixel size %g x %g m", t.dx, t.dy);
        goto done;
    }
    /* scanlines padded to 8 bytes; the last one needs only its depths */
    size_t nx = (size_t)t.cols, ny = (size_t)t.rows, per_row = (nx + 1) / 2 * 2, slots, need;
    if (lwt__mul_size(per_row, ny - 1, &slots) || slots > SIZE_MAX - nx || lwt__mul_size(slots + nx, 4, &need) ||
        t.depth_offset > len || len - t.depth_offset < need) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch (truncated?): %zu x %zu float32 depths in scanlines of %zu bytes need "
                            "%.0f bytes from byte %llu, the file has %zu bytes",
                            nx, ny, per_row * 4, ((double)per_row * (double)(ny - 1) + (double)nx) * 4.0,
                            t.depth_offset, len);
        goto done;
    }
    if ((rc = lwt__surface_alloc_file(ctx, path, out, nx, ny, 0)))
        goto done;
    /* the marker compared in float32, the depths' type: a tag printed with fewer digits
       (3e+15 for 3000000028082176) still names the same float */
    float invalid = !t.have_invalid || isnan(t.invalid) || t.invalid > FLT_MAX ? INFINITY
                    : t.invalid < -FLT_MAX                                      ? -INFINITY
                                                                                : (float)t.invalid;
    al3d_decode dec = {out->z, nx, per_row, invalid};
    if ((rc = lwt__read_records(ctx, path, fd, t.depth_offset, slots + nx, 4, decode_depths, &dec)))
        goto done;
    out->dx = t.dx;
    out->dy = t.dy;
    snprintf(out->source_format, sizeof out->source_format, "al3d");
    snprintf(out->instrument, sizeof out->instrument, "Alicona%s%s", t.application[0] ? " " : "", t.application);

done:
    close(fd);
    if (rc)
        lwt_surface_free(out);
    return rc;
}
