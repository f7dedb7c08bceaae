/*
 * vk4.c - Keyence VK-X laser confocal microscope .vk4 files (read only): the height image.
 *
 * Layout (little-endian), as Keyence's VK4 description is read by Gwyddion's keyence.c and
 * surfalize's vk.py:
 *   0   magic "VK4_", DLL version (4 bytes), file type (4 bytes)
 *   12  offset table, uint32 byte offsets from the start of the file (0 = absent): measurement
 *       conditions, colour peak, colour + light, light[3], height[3] (at 36, 40, 44), then
 *       thumbnails, assembly, line measurement, line thickness, string data (at 76), reserved
 *   measurement conditions: uint32 size of the block, year, month, day, hour, minute, second
 *       (at +4 .. +24), ..., x length per pixel (+168), y length per pixel (+172), both in
 *       picometres, z length per digit (+176, picometres per height unit), ...
 *   height image: uint32 width, height, bit depth (16 or 32), compression (0), byte size,
 *       palette min, palette max, a 768-byte palette, then width x height unsigned heights,
 *       row after row (+796).
 * Height = value x z length per digit (picometres). The format has no invalid-point marker: every
 * value is a height. Only the first height image (height[0]) is read; colour, light, thumbnails
 * and the other blocks are not.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VK4_HEAD 84            /* magic, version, type, the 18-entry offset table */
#define VK4_CONDITIONS_USED 180 /* the measurement conditions up to z length per digit */
#define VK4_IMAGE_HEAD 796      /* height image header with its palette */
#define PICOMETRE 1e-12

typedef struct {
    double *z, scale;
    size_t es;
} vk4_decode;

static void decode_heights(void *user, const unsigned char *d, size_t first, size_t count)
{
    const vk4_decode *c = (const vk4_decode *)user;
    for (size_t i = first; i < first + count; i++, d += c->es)
        c->z[i] = (double)(c->es == 2 ? lwt__le16(d) : lwt__le32(d)) * c->scale;
}

/* The header, the measurement conditions and the height image's header are read and checked
 * first; then the heights, once the file is known to hold them. */
lwt_status lwt_surface_read_vk4(lwt_context *ctx, const char *path, lwt_surface *out)
{
    unsigned char head[VK4_HEAD], cond[VK4_CONDITIONS_USED], img[20];
    size_t len;
    int fd;
    lwt_status rc = lwt__open_head(ctx, path, out, &fd, &len, head, sizeof head);
    if (rc)
        return rc;
    if (len < 4 || memcmp(head, "VK4_", 4)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "not a Keyence VK4 file (no VK4_ magic)");
        goto done;
    }
    if (len < VK4_HEAD) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "truncated: %zu bytes, the header and offset table alone have %d", len, VK4_HEAD);
        goto done;
    }
    uint32_t cond_at = lwt__le32(head + 12), height_at = lwt__le32(head + 36);
    if (cond_at > len || len - cond_at < VK4_CONDITIONS_USED) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "truncated or corrupt: the measurement conditions at byte %u need %d bytes, the file has "
                            "%zu",
                            (unsigned)cond_at, VK4_CONDITIONS_USED, len);
        goto done;
    }
    if ((rc = lwt__read_at(ctx, path, fd, cond, sizeof cond, cond_at)))
        goto done;
    uint32_t cond_size = lwt__le32(cond);
    if (cond_size < VK4_CONDITIONS_USED || cond_size > len - cond_at) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "corrupt: the measurement conditions block declares %u bytes (at byte %u of %zu; the "
                            "scale needs %d)",
                            (unsigned)cond_size, (unsigned)cond_at, len, VK4_CONDITIONS_USED);
        goto done;
    }
    uint32_t xpp = lwt__le32(cond + 168), ypp = lwt__le32(cond + 172), zpd = lwt__le32(cond + 176);
    if (xpp == 0 || ypp == 0 || zpd == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "invalid scale: x, y length per pixel %u, %u pm, z length per digit %u pm", (unsigned)xpp,
                            (unsigned)ypp, (unsigned)zpd);
        goto done;
    }
    if (height_at == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "no height image (its offset is 0)");
        goto done;
    }
    if (height_at > len || len - height_at < VK4_IMAGE_HEAD) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "truncated or corrupt: the height image at byte %u needs a %d-byte header, the file has %zu",
                            (unsigned)height_at, VK4_IMAGE_HEAD, len);
        goto done;
    }
    if ((rc = lwt__read_at(ctx, path, fd, img, sizeof img, height_at)))
        goto done;
    uint32_t w = lwt__le32(img), h = lwt__le32(img + 4), bits = lwt__le32(img + 8), comp = lwt__le32(img + 12),
             bytes = lwt__le32(img + 16);
    if (bits != 16 && bits != 32) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "height image of %u bits per point is not supported (16, 32)",
                            (unsigned)bits);
        goto done;
    }
    if (comp != 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "compressed height image (compression %u) is not supported",
                            (unsigned)comp);
        goto done;
    }
    if (w == 0 || h == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid dimensions %u x %u", (unsigned)w, (unsigned)h);
        goto done;
    }
    size_t nx = w, ny = h, n, need, es = bits / 8;
    if (lwt__mul_size(nx, ny, &n) || lwt__mul_size(n, es, &need) || need != bytes) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch: the height image declares %u bytes, %zu x %zu points of %zu bytes are %.0f",
                            (unsigned)bytes, nx, ny, es, (double)nx * (double)ny * (double)es);
        goto done;
    }
    if (len - height_at - VK4_IMAGE_HEAD < need) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch (truncated?): %zu x %zu heights of %zu bytes need %zu bytes after byte %llu, "
                            "the file has %zu",
                            nx, ny, es, need, (unsigned long long)height_at + VK4_IMAGE_HEAD,
                            len - height_at - VK4_IMAGE_HEAD);
        goto done;
    }
    if ((rc = lwt__surface_alloc_file(ctx, path, out, nx, ny, 0)))
        goto done;
    vk4_decode dec = {out->z, (double)zpd * PICOMETRE, es};
    if ((rc = lwt__read_records(ctx, path, fd, (uint64_t)height_at + VK4_IMAGE_HEAD, n, es, decode_heights, &dec)))
        goto done;
    out->dx = (double)xpp * PICOMETRE;
    out->dy = (double)ypp * PICOMETRE;
    snprintf(out->source_format, sizeof out->source_format, "vk4");
    snprintf(out->instrument, sizeof out->instrument, "Keyence");
    unsigned yr = lwt__le32(cond + 4), mon = lwt__le32(cond + 8), day = lwt__le32(cond + 12),
             hr = lwt__le32(cond + 16), mi = lwt__le32(cond + 20), sec = lwt__le32(cond + 24);
    if (yr > 0 && yr < 10000 && mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && hr < 24 && mi < 60 && sec < 61)
        snprintf(out->date, sizeof out->date, "%04u-%02u-%02uT%02u:%02u:%02u", yr, mon, day, hr, mi, sec);

done:
    close(fd);
    if (rc)
        lwt_surface_free(out);
    return rc;
}
