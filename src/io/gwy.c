/*
 * gwy.c - Gwyddion native files (.gwy, "GWYP") (read only).
 *
 * The magic "GWYP", then one serialized object. An object is its NUL-terminated type name, a
 * uint32 size and that many bytes of components; a component is its NUL-terminated name, one
 * type character and the value: 'b' bool and 'c' char (1 byte), 'i' int32, 'q' int64, 'd'
 * double, 's' NUL-terminated string, 'o' an object; the upper-case letters ('C', 'I', 'Q', 'D',
 * 'S', 'O') are arrays of those, a uint32 element count first. Everything is little-endian.
 *
 * The file's object is a GwyContainer whose component "/N/data" is channel N, a GwyDataField
 * (xres, yres 'i'; xreal, yreal 'd' (the whole width and height, in si_unit_xy); si_unit_xy and
 * si_unit_z GwySIUnit objects holding 'unitstr'; data 'D', xres * yres values, row after row),
 * "/N/data/title" its title and "/N/mask" a GwyDataField whose nonzero points are masked.
 *
 * The whole tree is walked once, bounded by the file (every size and count is checked against
 * the bytes its enclosing object has left, so a lying size fails before anything is allocated),
 * reading small pieces through a buffer: the data arrays are only located. Then the channel
 * with the lowest N is checked, allocated and read, and its mask applied.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GWY_MAX_DEPTH 32 /* Gwyddion's files nest a few levels deep; the walk recurses, so bound it */
#define GWY_NAME_MAX 256 /* names longer than this are read (skipped) but never match */

/* A buffered reader over the file: every read is bounded by `end` of the object being read. */
typedef struct {
    lwt_context *ctx;
    const char *path;
    int fd;
    uint64_t len;               /* file size */
    unsigned char buf[1 << 16]; /* file bytes [bpos, bpos + bn) */
    uint64_t bpos;
    size_t bn;
} gwy_in;

/* A GwyDataField as found: what was present, and where its data array lies. */
typedef struct {
    int32_t xres, yres;
    double xreal, yreal;
    int have_xres, have_yres, have_xreal, have_yreal, have_data;
    char unit_xy[32], unit_z[32];
    uint64_t data_off;
    uint32_t data_count;
} gwy_field;

/* What an object being walked is to the reader, and where its findings go. */
enum { ROLE_OTHER, ROLE_TOP, ROLE_FIELD, ROLE_UNIT };
typedef struct {
    int role;
    gwy_field *field; /* ROLE_FIELD */
    char *unit;       /* ROLE_UNIT: receives unitstr */
    size_t unit_cap;
    const char *what; /* for messages: "/0/data" and the like */
} gwy_target;

/* The container's findings: the lowest-numbered channel, its mask and its title. */
typedef struct {
    long data_n, mask_n, title_n; /* -1: none yet */
    gwy_field data, mask;
    char title[256];
} gwy_found;

/* "truncated or corrupt: WHAT needs N UNIT, its object has LEFT bytes left" */
static lwt_status past_end(gwy_in *in, const char *what, uint64_t n, const char *unit, uint64_t left)
{
    return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                          "truncated or corrupt: %s needs %llu %s, its object has %llu bytes left", what,
                          (unsigned long long)n, unit, (unsigned long long)left);
}

/* the byte at pos (pos < len); NULL with the failure logged */
static const unsigned char *at(gwy_in *in, uint64_t pos, lwt_status *rc)
{
    if (pos < in->bpos || pos >= in->bpos + in->bn) {
        uint64_t left = in->len - pos;
        size_t n = left < sizeof in->buf ? (size_t)left : sizeof in->buf;
        if ((*rc = lwt__read_at(in->ctx, in->path, in->fd, in->buf, n, pos)))
            return NULL;
        in->bpos = pos;
        in->bn = n;
    }
    return in->buf + (pos - in->bpos);
}

/* n (<= 8) bytes at *pos, which must end by end; advances *pos */
static lwt_status take(gwy_in *in, uint64_t *pos, uint64_t end, unsigned char *dst, size_t n, const char *what)
{
    lwt_status rc = LWT_OK;
    if (end - *pos < n)
        return past_end(in, what, n, "bytes", end - *pos);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = at(in, *pos + i, &rc);
        if (!p)
            return rc;
        dst[i] = *p;
    }
    *pos += n;
    return LWT_OK;
}

/* A NUL-terminated string at *pos ending before end; its first cap - 1 bytes go to dst
 * (*truncated set when there were more). With clean, a byte that is not printable ASCII
 * becomes '?': names end up in messages, which must stay one printable line, and every name
 * the reader looks for is printable ASCII. */
static lwt_status take_string(gwy_in *in, uint64_t *pos, uint64_t end, char *dst, size_t cap, int clean,
                              int *truncated, const char *what)
{
    size_t k = 0;
    lwt_status rc = LWT_OK;
    *truncated = 0;
    for (uint64_t p = *pos; p < end; p++) {
        const unsigned char *c = at(in, p, &rc);
        if (!c)
            return rc;
        if (*c == 0) {
            if (dst)
                dst[k] = 0;
            *pos = p + 1;
            return LWT_OK;
        }
        if (dst && k + 1 < cap)
            dst[k++] = clean && (*c < 0x20 || *c > 0x7e) ? '?' : (char)*c;
        else
            *truncated = 1;
    }
    return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                          "truncated or corrupt: %s has no end (no NUL before the end of its object)", what);
}

static size_t scalar_size(char t)
{
    switch (t) {
    case 'b':
    case 'c':
        return 1;
    case 'i':
        return 4;
    case 'q':
    case 'd':
        return 8;
    default:
        return 0;
    }
}

/* "/N/data", "/N/mask", "/N/data/title": 1, 2, 3 with *n = N; 0 for any other name */
static int channel_key(const char *name, long *n)
{
    const char *p = name;
    long v = 0;
    if (*p++ != '/' || *p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > 100000000L)
            return 0;
        v = v * 10 + (*p - '0');
    }
    *n = v;
    return !strcmp(p, "/data") ? 1 : !strcmp(p, "/mask") ? 2 : !strcmp(p, "/data/title") ? 3 : 0;
}

static lwt_status walk_object(gwy_in *in, uint64_t *pos, uint64_t end, int depth, gwy_target *t, gwy_found *found);

/* One component of the object t at *pos (its object ends at end). */
static lwt_status walk_component(gwy_in *in, uint64_t *pos, uint64_t end, int depth, gwy_target *t,
                                 gwy_found *found, const char *type_name)
{
    char name[GWY_NAME_MAX];
    unsigned char b[8] = {0}; /* take fills it; GCC 12 cannot see that */
    int trunc;
    lwt_status rc;
    if ((rc = take_string(in, pos, end, name, sizeof name, 1, &trunc, "a component name")))
        return rc;
    if (trunc)
        name[0] = 0; /* a name this long is nothing the reader looks for */
    if ((rc = take(in, pos, end, b, 1, "a component type")))
        return rc;
    const char type = (char)b[0];
    gwy_field *f = t->role == ROLE_FIELD ? t->field : NULL;

    if (scalar_size(type)) {
        if ((rc = take(in, pos, end, b, scalar_size(type), name)))
            return rc;
        if (f && type == 'i' && !strcmp(name, "xres"))
            f->xres = (int32_t)lwt__le32(b), f->have_xres = 1;
        else if (f && type == 'i' && !strcmp(name, "yres"))
            f->yres = (int32_t)lwt__le32(b), f->have_yres = 1;
        else if (f && type == 'd' && !strcmp(name, "xreal"))
            f->xreal = lwt__lef64(b), f->have_xreal = 1;
        else if (f && type == 'd' && !strcmp(name, "yreal"))
            f->yreal = lwt__lef64(b), f->have_yreal = 1;
        return LWT_OK;
    }
    switch (type) {
    case 's': {
        char v[256];
        long n = -1;
        const int title = t->role == ROLE_TOP && channel_key(name, &n) == 3;
        const int unit = t->role == ROLE_UNIT && !strcmp(name, "unitstr");
        if ((rc = take_string(in, pos, end, v, sizeof v, 0, &trunc, name)))
            return rc;
        if (title && (found->title_n < 0 || n < found->title_n)) {
            found->title_n = n;
            lwt__copy_clean(found->title, sizeof found->title, v, sizeof v);
        }
        if (unit)
            snprintf(t->unit, t->unit_cap, "%s", trunc ? "(too long)" : v);
        return LWT_OK;
    }
    case 'o': {
        gwy_target child = {ROLE_OTHER, NULL, NULL, 0, name};
        gwy_field field;
        long n = -1;
        const int key = t->role == ROLE_TOP ? channel_key(name, &n) : 0;
        memset(&field, 0, sizeof field);
        if (key == 1 || key == 2) {
            child.role = ROLE_FIELD;
            child.field = &field;
        } else if (f && (!strcmp(name, "si_unit_xy") || !strcmp(name, "si_unit_z"))) {
            child.role = ROLE_UNIT;
            child.unit = name[8] == 'x' ? f->unit_xy : f->unit_z;
            child.unit_cap = sizeof f->unit_xy;
        }
        if ((rc = walk_object(in, pos, end, depth + 1, &child, found)))
            return rc;
        if (key == 1 && (found->data_n < 0 || n < found->data_n))
            found->data_n = n, found->data = field;
        if (key == 2 && (found->mask_n < 0 || n < found->mask_n))
            found->mask_n = n, found->mask = field;
        return LWT_OK;
    }
    case 'C': case 'I': case 'Q': case 'D': case 'S': case 'O': {
        if ((rc = take(in, pos, end, b, 4, name)))
            return rc;
        const uint32_t count = lwt__le32(b);
        const size_t es = scalar_size((char)(type - 'A' + 'a'));
        if (es) {
            if ((uint64_t)count * es > end - *pos)
                return past_end(in, name[0] ? name : "an array", (uint64_t)count * es, "bytes", end - *pos);
            if (f && type == 'D' && !strcmp(name, "data"))
                f->data_off = *pos, f->data_count = count, f->have_data = 1;
            *pos += (uint64_t)count * es;
            return LWT_OK;
        }
        /* every element takes at least one byte: a count past that is a lie, found before the loop */
        if (count > end - *pos)
            return past_end(in, name[0] ? name : "an array", count, "elements (a byte or more each)", end - *pos);
        for (uint32_t i = 0; i < count; i++) {
            gwy_target other = {ROLE_OTHER, NULL, NULL, 0, name};
            rc = type == 'S' ? take_string(in, pos, end, NULL, 0, 0, &trunc, name)
                             : walk_object(in, pos, end, depth + 1, &other, found);
            if (rc)
                return rc;
        }
        return LWT_OK;
    }
    default:
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                              "corrupt: unknown component type 0x%02x of '%s' in a %s", (unsigned)(unsigned char)type,
                              name, type_name);
    }
}

/* One object at *pos: type name, size, components. It must end by end. */
static lwt_status walk_object(gwy_in *in, uint64_t *pos, uint64_t end, int depth, gwy_target *t, gwy_found *found)
{
    char type_name[GWY_NAME_MAX];
    unsigned char b[4];
    int trunc;
    lwt_status rc;
    if (depth > GWY_MAX_DEPTH)
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "objects nested more than %d deep (at %s)",
                              GWY_MAX_DEPTH, t->what);
    if ((rc = take_string(in, pos, end, type_name, sizeof type_name, 1, &trunc, "an object type name")))
        return rc;
    if ((rc = take(in, pos, end, b, 4, "an object size")))
        return rc;
    const uint64_t size = lwt__le32(b);
    if (size > end - *pos)
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                              "truncated or corrupt: %s (a %s) declares %llu bytes, %llu are left", t->what,
                              trunc ? "?" : type_name, (unsigned long long)size, (unsigned long long)(end - *pos));
    const char *want = t->role == ROLE_TOP ? "GwyContainer" : t->role == ROLE_FIELD ? "GwyDataField"
                       : t->role == ROLE_UNIT ? "GwySIUnit" : NULL;
    if (want && (trunc || strcmp(type_name, want)))
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "%s is a %s, not a %s", t->what,
                              trunc ? "(too long type name)" : type_name, want);
    const uint64_t cend = *pos + size;
    while (*pos < cend)
        if ((rc = walk_component(in, pos, cend, depth, t, found, type_name)))
            return rc;
    return LWT_OK;
}

/* A channel or mask that can be read: its sizes, and its data array matching them. */
static lwt_status check_field(gwy_in *in, const gwy_field *f, const char *what)
{
    if (!f->have_xres || !f->have_yres || !f->have_data)
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "%s lacks %s", what,
                              !f->have_xres ? "xres" : !f->have_yres ? "yres" : "its data array");
    if (f->xres <= 0 || f->yres <= 0)
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path, "%s: invalid dimensions %d x %d", what,
                              (int)f->xres, (int)f->yres);
    if ((uint64_t)f->xres * (uint64_t)f->yres != f->data_count)
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                              "%s: size mismatch: xres x yres = %d x %d, but the data array has %u values", what,
                              (int)f->xres, (int)f->yres, (unsigned)f->data_count);
    return LWT_OK;
}

/* A unit's power of ten: "m", "mm", "um"/"µm", "nm", ... (lwt__unit_to_metres). An empty or
 * missing unit is not assumed to be metres: a unitless or non-length channel (a phase, a
 * current) is not a height map, and a wrong guess would be off by a factor, silently. */
static lwt_status unit_factor(gwy_in *in, const char *unit, const char *which, double *f)
{
    char shown[32];
    *f = lwt__unit_to_metres(unit);
    if (*f == 0) {
        size_t k = 0;
        for (; unit[k] && k + 1 < sizeof shown; k++) /* printable in the message */
            shown[k] = (unsigned char)unit[k] < 0x20 || (unsigned char)unit[k] > 0x7e ? '?' : unit[k];
        shown[k] = 0;
        return lwt__file_fail(in->ctx, LWT_ERR_FORMAT, in->path,
                              "%s unit '%s' is not a length unit (m, mm, um, nm, pm, A)", which, shown);
    }
    return LWT_OK;
}

typedef struct {
    double *z, scale;
} gwy_decode;

static void decode_heights(void *user, const unsigned char *d, size_t first, size_t count)
{
    const gwy_decode *c = (const gwy_decode *)user;
    for (size_t i = first; i < first + count; i++, d += 8) {
        double v = lwt__lef64(d);
        c->z[i] = isfinite(v) ? v * c->scale : NAN;
    }
}

static void decode_mask(void *user, const unsigned char *d, size_t first, size_t count)
{
    double *z = (double *)user;
    for (size_t i = first; i < first + count; i++, d += 8)
        if (lwt__lef64(d) != 0) /* a NaN counts as masked too */
            z[i] = NAN;
}

/* The tree is walked first (no allocation but the reader's buffer); then the channel the walk
 * found is checked and only then allocated and read. */
lwt_status lwt_surface_read_gwy(lwt_context *ctx, const char *path, lwt_surface *out)
{
    gwy_in *in = NULL;
    gwy_found found;
    unsigned char magic[4];
    size_t len;
    int fd;
    lwt_surface_init(out);
    if (!path)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "no file name");
    lwt_status rc = lwt__open_regular(ctx, path, &fd, &len);
    if (rc)
        return rc;
    memset(magic, 0, sizeof magic);
    if ((rc = lwt__read_at(ctx, path, fd, magic, len < 4 ? len : 4, 0)))
        goto done;
    if (len < 4 || memcmp(magic, "GWYP", 4)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            !memcmp(magic, "GWYO", 4) ? "the old Gwyddion 1 format (GWYO) is not supported"
                                                      : "not a Gwyddion file (no GWYP magic)");
        goto done;
    }
    if (!(in = (gwy_in *)malloc(sizeof *in))) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
        goto done;
    }
    memset(in, 0, sizeof *in);
    in->ctx = ctx;
    in->path = path;
    in->fd = fd;
    in->len = (uint64_t)len;
    memset(&found, 0, sizeof found);
    found.data_n = found.mask_n = found.title_n = -1;
    gwy_target top = {ROLE_TOP, NULL, NULL, 0, "the top-level object"};
    uint64_t pos = 4;
    if ((rc = walk_object(in, &pos, in->len, 0, &top, &found)))
        goto done;
    if (found.data_n < 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "no channel (no /N/data image in the file)");
        goto done;
    }
    char what[48], mwhat[48];
    snprintf(what, sizeof what, "channel /%ld/data", found.data_n);
    snprintf(mwhat, sizeof mwhat, "mask /%ld/mask", found.data_n);
    const gwy_field *f = &found.data;
    const int masked = found.mask_n == found.data_n;
    double fxy, fz;
    if ((rc = check_field(in, f, what)) || (masked && (rc = check_field(in, &found.mask, mwhat))))
        goto done;
    if (masked && (found.mask.xres != f->xres || found.mask.yres != f->yres)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "%s is %d x %d, its channel %d x %d", mwhat,
                            (int)found.mask.xres, (int)found.mask.yres, (int)f->xres, (int)f->yres);
        goto done;
    }
    if ((rc = unit_factor(in, f->unit_xy, "lateral (si_unit_xy)", &fxy)) ||
        (rc = unit_factor(in, f->unit_z, "height (si_unit_z)", &fz)))
        goto done;
    const double dx = f->xreal * fxy / f->xres, dy = f->yreal * fxy / f->yres;
    if (!f->have_xreal || !f->have_yreal || !(dx > 0) || !(dy > 0) || !isfinite(dx) || !isfinite(dy)) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "%s: invalid or missing size xreal x yreal = %g x %g", what,
                            f->have_xreal ? f->xreal : NAN, f->have_yreal ? f->yreal : NAN);
        goto done;
    }
    const size_t nx = (size_t)f->xres, ny = (size_t)f->yres;
    if (lwt_surface_alloc(NULL, out, nx, ny) /* logged below, with the file */) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory for %zu x %zu points", nx, ny);
        goto done;
    }
    gwy_decode dec = {out->z, fz};
    if ((rc = lwt__read_records(ctx, path, fd, f->data_off, nx * ny, 8, decode_heights, &dec)))
        goto done;
    if (masked && (rc = lwt__read_records(ctx, path, fd, found.mask.data_off, nx * ny, 8, decode_mask, out->z)))
        goto done;
    out->dx = dx;
    out->dy = dy;
    snprintf(out->source_format, sizeof out->source_format, "gwy");
    if (found.title_n == found.data_n)
        snprintf(out->comment, sizeof out->comment, "%s", found.title);

done:
    free(in);
    close(fd);
    if (rc)
        lwt_surface_free(out);
    return rc;
}
