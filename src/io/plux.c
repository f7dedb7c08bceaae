/*
 * plux.c - Sensofar .plux topographies (SensoSCAN / SensoVIEW 2015 and later) (read only).
 *
 * A zip archive. index.xml describes the measurement (root element of any name):
 *   GENERAL/IMAGE_SIZE_X, IMAGE_SIZE_Y   points per row, rows
 *   GENERAL/FOV_X, FOV_Y                 the spacing in micrometres (per point, despite the name)
 *   GENERAL/DATE                         the measurement date
 *   LAYER_N/FILENAME_Z                   the height entry of layer N (LAYER_0.raw)
 *   INFO/ITEM_N/NAME, VALUE              free items: "Device", "Comment", ...
 * and the height entry holds IMAGE_SIZE_Y x IMAGE_SIZE_X little-endian float32 heights in
 * micrometres, row after row; a point that was not measured is NaN. (SurfaceTopography's and
 * surfalize's readers take the same layout; docs/FORMATS.md.) Only layer 0 is read.
 */
#include "io/xml_paths.h"
#include "io/zip_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUX_MAX_INDEX ((zip_uint64_t)4 << 20) /* index.xml: a few kB in real files */

typedef struct {
    size_t nx, ny;
    int have_nx, have_ny, have_dx, have_dy;
    double dx, dy; /* micrometres */
    char layer[256];
    char date[40], device[64], comment[256];
    char item_name[64]; /* NAME of the INFO item being read: its VALUE follows it */
} plux_index;

static int parse_count(const char *t, size_t *out)
{
    char *end;
    while (*t == ' ' || *t == '\t' || *t == '\r' || *t == '\n')
        t++;
    if (*t < '0' || *t > '9')
        return -1;
    unsigned long long v = strtoull(t, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end || v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_number(const char *t, double *out)
{
    char *end;
    double v = strtod(t, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (end == t || *end)
        return -1;
    *out = v;
    return 0;
}

static void on_element(lwt__xml_walk *w, void *user, const char *path, const char *text)
{
    plux_index *x = (plux_index *)user;
    if (!strncmp(path, "GENERAL/", 8)) {
        const char *f = path + 8;
        if (!strcmp(f, "IMAGE_SIZE_X") || !strcmp(f, "IMAGE_SIZE_Y")) {
            const int is_x = f[11] == 'X';
            if (parse_count(text, is_x ? &x->nx : &x->ny))
                lwt__xml_fail(w, LWT_ERR_FORMAT, "index.xml: GENERAL/%s '%.40s' is not a count", f, text);
            *(is_x ? &x->have_nx : &x->have_ny) = 1;
        } else if (!strcmp(f, "FOV_X") || !strcmp(f, "FOV_Y")) {
            const int is_x = f[4] == 'X';
            if (parse_number(text, is_x ? &x->dx : &x->dy))
                lwt__xml_fail(w, LWT_ERR_FORMAT, "index.xml: GENERAL/%s '%.40s' is not a number", f, text);
            *(is_x ? &x->have_dx : &x->have_dy) = 1;
        } else if (!strcmp(f, "DATE")) {
            lwt__copy_clean(x->date, sizeof x->date, text, strlen(text));
        }
    } else if (!strcmp(path, "LAYER_0/FILENAME_Z")) {
        lwt__copy_clean(x->layer, sizeof x->layer, text, strlen(text));
    } else if (!strncmp(path, "INFO/ITEM_", 10)) {
        const char *f = strrchr(path, '/') + 1;
        if (f == path + 5) /* the item itself ended: its NAME is no other item's */
            x->item_name[0] = 0;
        else if (!strcmp(f, "NAME"))
            lwt__copy_clean(x->item_name, sizeof x->item_name, text, strlen(text));
        else if (!strcmp(f, "VALUE") && !strcmp(x->item_name, "Device"))
            lwt__copy_clean(x->device, sizeof x->device, text, strlen(text));
        else if (!strcmp(f, "VALUE") && !strcmp(x->item_name, "Comment"))
            lwt__copy_clean(x->comment, sizeof x->comment, text, strlen(text));
    }
}

/* the entry called name (any case); -1 if none */
static zip_int64_t find_entry(zip_t *za, const char *name)
{
    return zip_name_locate(za, name, ZIP_FL_NOCASE | ZIP_FL_ENC_GUESS);
}

/* index.xml, checked: sizes and spacing present and usable */
static lwt_status read_index(lwt_context *ctx, const char *path, zip_t *za, plux_index *x)
{
    unsigned char *xml = NULL;
    size_t len = 0;
    zip_int64_t i = find_entry(za, "index.xml");
    if (i < 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "missing index.xml in the .plux archive");
    lwt_status rc = lwt__zip_read_entry(za, i, "index.xml", PLUX_MAX_INDEX, path, &xml, &len, ctx);
    if (rc)
        return rc;
    rc = lwt__xml_walk_doc(ctx, path, "index.xml", (const char *)xml, len, on_element, x);
    free(xml);
    if (rc)
        return rc;
    if (!x->have_nx || !x->have_ny || x->nx == 0 || x->ny == 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "index.xml: GENERAL/IMAGE_SIZE_X and IMAGE_SIZE_Y must be counts of at least 1");
    if (!x->have_dx || !x->have_dy || !(x->dx > 0) || !(x->dy > 0) || !isfinite(x->dx) || !isfinite(x->dy))
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "index.xml: GENERAL/FOV_X and FOV_Y (the spacing, um) must be positive numbers");
    if (!x->layer[0])
        snprintf(x->layer, sizeof x->layer, "LAYER_0.raw");
    return LWT_OK;
}

lwt_status lwt_surface_read_plux(lwt_context *ctx, const char *path, lwt_surface *out)
{
    zip_t *za = NULL;
    plux_index x;
    memset(&x, 0, sizeof x);
    lwt_surface_init(out);
    if (!path)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "no file name");
    lwt_status rc = lwt__zip_open(ctx, path, ".plux", &za);
    if (rc)
        return rc;
    if ((rc = read_index(ctx, path, za, &x)))
        goto done;

    zip_int64_t idata = find_entry(za, x.layer);
    if (idata < 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "missing height data '%s' named in index.xml", x.layer);
        goto done;
    }
    size_t n, need;
    if (lwt__mul_size(x.nx, x.ny, &n) || lwt__mul_size(n, 4, &need)) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "dimensions %zu x %zu are too large", x.nx, x.ny);
        goto done;
    }
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, (zip_uint64_t)idata, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt zip archive: cannot stat %s", x.layer);
        goto done;
    }
    if (st.size != (zip_uint64_t)need) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "size mismatch: %s has %llu bytes, index.xml describes %zu x %zu float32 heights = %zu "
                            "bytes",
                            x.layer, (unsigned long long)st.size, x.nx, x.ny, need);
        goto done;
    }
    if ((rc = lwt__zip_check_declared_size(&st, x.layer, path, ctx)))
        goto done;
    /* the float32 entry is read into the start of the heights and widened in place: no second buffer */
    if ((rc = lwt__surface_alloc_file(ctx, path, out, x.nx, x.ny, 0)))
        goto done;
    unsigned char *raw = (unsigned char *)out->z;
    if ((rc = lwt__zip_read_entry_into(za, idata, x.layer, need, 0, path, raw, NULL, ctx)))
        goto done;
    /* from the last point down: z[i] (bytes 8i..8i+7) lies past every float f[j], j < i, still unread */
    for (size_t i = n; i-- > 0;) {
        const float v = lwt__lef32(raw + 4 * i);
        out->z[i] = isfinite(v) ? (double)v * 1e-6 : NAN;
    }
    if (lwt_surface_count_valid(out) == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "all points are invalid");
        goto done;
    }
    out->dx = x.dx * 1e-6;
    out->dy = x.dy * 1e-6;
    snprintf(out->source_format, sizeof out->source_format, "plux");
    snprintf(out->date, sizeof out->date, "%s", x.date);
    snprintf(out->instrument, sizeof out->instrument, "Sensofar%s%s", x.device[0] ? " " : "", x.device);
    snprintf(out->comment, sizeof out->comment, "%s", x.comment);

done:
    if (rc)
        lwt_surface_free(out);
    if (za)
        zip_discard(za);
    return rc;
}
