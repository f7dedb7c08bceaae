/*
 * plu.c - Sensofar PLu (.plu, version 2000 and later) topographies (read only).
 *
 * No magic bytes. Little-endian layout:
 *   0    date string [128]            128  time_t u32            132  comment [256]
 *   388  calibration: yres, xres, N_tall u32; dy_multip, mppx, mppy, x_0, y_0, mpp_tall, z_0 f32
 *   428  measurement: type, algorithm, method, objective, area, xres_area, yres_area, xres,
 *        yres, na u32; incr_z f64 (468); range f32; n_planes, tpc_umbral_F u32;
 *        restore, num_layers, version, config_hardware, stack_im_num, reserved u8; 2 pad;
 *        factor_delmacio u32 (496)
 *   500  yres, xres u32, then yres*xres float32 heights in micrometres, row after row;
 *        1000001.0 marks a point that was not measured.
 * Measurement type 3 is a topography; 1 (profile), 2 (multi-profile) and 5 (thickness
 * profile) are profiles. Only the first layer is read.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLU_DATA 500
#define PLU_NOT_MEASURED 1000001.0f

static void decode_points(void *user, const unsigned char *d, size_t first, size_t count)
{
    double *z = (double *)user;
    for (size_t i = first; i < first + count; i++, d += 4) {
        float v = lwt__lef32(d);
        z[i] = (v == PLU_NOT_MEASURED || !isfinite(v)) ? NAN : (double)v * 1e-6;
    }
}

/* The header is read and checked first; then the points it declares, once the file is known to
 * hold them. */
lwt_status lwt_surface_read_plu(lwt_context *ctx, const char *path, lwt_surface *out)
{
    unsigned char b[PLU_DATA + 8];
    size_t len;
    int fd;
    lwt_surface_init(out);
    if (!path)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "no file name");
    int rc = lwt__open_regular(ctx, path, &fd, &len);
    if (rc)
        return rc;

    if (len < PLU_DATA + 8) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "truncated: %zu bytes, a Sensofar PLu header has %d", len, PLU_DATA + 8);
        goto done;
    }
    if ((rc = lwt__read_at(ctx, path, fd, b, sizeof b, 0)))
        goto done;
    /* the file starts with a printable date string: a cheap sanity check for a format without magic */
    for (int i = 0; i < 8; i++)
        if (b[i] < 0x20 || b[i] > 0x7e) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "not a Sensofar PLu file (it does not start with a date)");
            goto done;
        }
    double mppx = lwt__lef32(b + 388 + 16), mppy = lwt__lef32(b + 388 + 20);
    uint32_t type = lwt__le32(b + 428);
    if (type == 1 || type == 2 || type == 5) {
        rc = lwt__file_fail(ctx, LWT_ERR_NOT_AREAL, path,
                            "not an areal surface: Sensofar measurement type %u is a profile", (unsigned)type);
        goto done;
    }
    if (type != 3) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "Sensofar measurement type %u is not supported (only 3, topography)", (unsigned)type);
        goto done;
    }
    /* only the first layer is read (b[489] holds the number of layers) */
    uint32_t yres = lwt__le32(b + PLU_DATA), xres = lwt__le32(b + PLU_DATA + 4);
    if (xres == 0 || yres == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid dimensions %u x %u", (unsigned)xres,
                            (unsigned)yres);
        goto done;
    }
    size_t nx = xres, ny = yres, n, need;
    if (lwt__mul_size(nx, ny, &n) || lwt__mul_size(n, 4, &need) || len - (PLU_DATA + 8) < need) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch (truncated?): %zu x %zu float32 heights need %llu bytes, the file has %zu "
                            "after the header",
                            nx, ny, (unsigned long long)nx * ny * 4, len - (PLU_DATA + 8));
        goto done;
    }
    if (!(mppx > 0) || !(mppy > 0) || !isfinite(mppx) || !isfinite(mppy)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid pixel size %g x %g um", mppx, mppy);
        goto done;
    }
    if ((rc = lwt__surface_alloc_file(ctx, path, out, nx, ny, 0)))
        goto done;
    if ((rc = lwt__read_records(ctx, path, fd, PLU_DATA + 8, n, 4, decode_points, out->z)))
        goto done;
    out->dx = mppx * 1e-6;
    out->dy = mppy * 1e-6;
    snprintf(out->source_format, sizeof out->source_format, "plu");
    lwt__copy_clean(out->date, sizeof out->date, (const char *)b, 128);
    lwt__copy_clean(out->comment, sizeof out->comment, (const char *)b + 132, 256);
    if (!strcmp(out->comment, "(None)"))
        out->comment[0] = 0;
    snprintf(out->instrument, sizeof out->instrument, "Sensofar");

done:
    close(fd);
    if (rc)
        lwt_surface_free(out);
    return rc;
}
