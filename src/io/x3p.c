/*
 * x3p.c - X3P (ISO 25178-72 / ISO 5436-2 XML) areal surfaces: reading (x3p_write.c writes).
 *
 * An X3P file is a zip archive holding main.xml (the description), md5checksum.hex (MD5 of
 * main.xml) and, unless the points are listed inline in main.xml, bindata/data.bin
 * (little-endian point records) and optionally bindata/valid.bin (one bit per point, LSB
 * first, set = valid). zip: libzip; XML: expat (element names matched by local name, any
 * prefix or none); MD5: OpenSSL EVP.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/md5_hex.h"
#include "io/surface_file.h"
#include "io/xml_paths.h"
#include "io/zip_read.h"

#include <lwt.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#define X3P_MAX_XML ((zip_uint64_t)16 << 20) /* refuse a main.xml above 16 MiB (an inline DataList of ~0.5 M points) */

/* ------------------------------------------------------------------ small helpers */

static int is_hex(int c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int lowc(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

/* s (trimmed) starts with 32 hex digits followed by nothing or a blank: copy them, lower case. */
static int parse_md5(const char *s, char out[33])
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    for (int i = 0; i < 32; i++) {
        if (!is_hex((unsigned char)s[i]))
            return -1;
        out[i] = (char)lowc((unsigned char)s[i]);
    }
    out[32] = 0;
    char c = s[32];
    if (c != 0 && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '*')
        return -1;
    return 0;
}

/* strict double: whole (trimmed) string must be a number */
static int parse_double(const char *s, double *out)
{
    char *end;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (!*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int parse_size(const char *s, size_t *out)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (*s < '0' || *s > '9')
        return -1;
    size_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t d = (size_t)(*s - '0');
        if (v > (SIZE_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    if (*s)
        return -1;
    *out = v;
    return 0;
}

static size_t type_size(char t)
{
    switch (t) {
    case 'I': return 2;
    case 'L': return 4;
    case 'F': return 4;
    case 'D': return 8;
    default: return 0;
    }
}

static const char *type_name(char t)
{
    switch (t) {
    case 'I': return "I (int16)";
    case 'L': return "L (int32)";
    case 'F': return "F (float32)";
    case 'D': return "D (float64)";
    default: return "?";
    }
}

/* one little-endian value of type t at p, as double (float NaN/inf kept) */
static double load_value(char t, const unsigned char *p)
{
    switch (t) {
    case 'I': return (double)(int16_t)lwt__le16(p);
    case 'L': return (double)(int32_t)lwt__le32(p);
    case 'F': return (double)lwt__lef32(p);
    default: return lwt__lef64(p);
    }
}

/* ------------------------------------------------------------------ main.xml parsing */

typedef struct {
    char type;  /* 'I' incremental, 'A' absolute, 0 missing */
    char dtype; /* 'I','L','F','D', 0 missing */
    int has_inc, has_off;
    double inc, off;
} x3p_axis;

typedef struct {
    lwt__xml_walk *walk; /* the walk calling back, for doc_error */

    char feature[16];
    int have_feature;
    x3p_axis ax[3];
    int have_matrix, have_list, have_datalink, have_datalist;
    int have_sx, have_sy, have_sz;
    size_t sx, sy, sz, list_n;
    char datalink[512], validlink[512];
    char md5data[80], md5valid[80];
    int have_md5data, have_md5valid, have_validlink;
    char checksumfile[256];

    double *dv;        /* 3 values per Datum */
    unsigned char *dn; /* number of values per Datum, 0 = empty (invalid) */
    size_t ndat, capdat;

    char date[40], creator[64], manufacturer[64], model[64], comment[256];
} x3p_doc;

static void doc_free(x3p_doc *d)
{
    free(d->dv);
    free(d->dn);
    d->dv = NULL;
    d->dn = NULL;
}

static void doc_error(x3p_doc *d, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void doc_error(x3p_doc *d, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lwt__xml_fail(d->walk, (lwt_status)code, "%s", msg);
}

static void set_str(char *dst, size_t n, const char *src)
{
    lwt__copy_clean(dst, n, src, strlen(src));
}

static void axis_field(x3p_doc *d, x3p_axis *a, const char *axname, const char *field, const char *t)
{
    char v[64];
    set_str(v, sizeof v, t);
    if (!strcmp(field, "AxisType")) {
        if (strcmp(v, "I") && strcmp(v, "A"))
            doc_error(d, LWT_ERR_FORMAT, "main.xml: %s/AxisType '%s' is neither I nor A", axname, v);
        else
            a->type = v[0];
    } else if (!strcmp(field, "DataType")) {
        if (strlen(v) != 1 || !type_size(v[0]))
            doc_error(d, LWT_ERR_FORMAT, "main.xml: %s/DataType '%s' is not one of I, L, F, D", axname, v);
        else
            a->dtype = v[0];
    } else if (!strcmp(field, "Increment") || !strcmp(field, "Offset")) {
        double x;
        if (!v[0])
            return; /* <Offset/>: absent */
        if (parse_double(v, &x) || !isfinite(x)) {
            doc_error(d, LWT_ERR_FORMAT, "main.xml: %s/%s '%s' is not a number", axname, field, v);
            return;
        }
        if (field[0] == 'I') {
            a->inc = x;
            a->has_inc = 1;
        } else {
            a->off = x;
            a->has_off = 1;
        }
    }
}

static void add_datum(x3p_doc *d, const char *t)
{
    size_t limit = 0;
    if (d->have_sx && d->have_sy && d->have_sz) {
        size_t a;
        if (!lwt__mul_size(d->sx, d->sy, &a) && !lwt__mul_size(a, d->sz, &limit) && d->ndat >= limit) {
            doc_error(d, LWT_ERR_FORMAT,
                      "size mismatch: DataList has more than the %zu points of MatrixDimension %zu x %zu x %zu", limit,
                      d->sx, d->sy, d->sz);
            return;
        }
    }
    if (d->ndat == d->capdat) {
        size_t nc = d->capdat ? d->capdat * 2 : 1024;
        double *nv = (double *)realloc(d->dv, nc * 3 * sizeof(double));
        if (!nv) {
            doc_error(d, LWT_ERR_OUT_OF_MEMORY, "out of memory for DataList");
            return;
        }
        d->dv = nv;
        unsigned char *nn = (unsigned char *)realloc(d->dn, nc);
        if (!nn) {
            doc_error(d, LWT_ERR_OUT_OF_MEMORY, "out of memory for DataList");
            return;
        }
        d->dn = nn;
        d->capdat = nc;
    }
    size_t i = d->ndat;
    int k = 0;
    const char *p = t;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (*p) {
        for (;;) {
            char *end;
            if (k == 3) {
                doc_error(d, LWT_ERR_FORMAT, "main.xml: Datum %zu has more than 3 values", i + 1);
                return;
            }
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
                p++;
            double v = strtod(p, &end);
            if (end == p) {
                doc_error(d, LWT_ERR_FORMAT, "main.xml: Datum %zu is not a list of numbers", i + 1);
                return;
            }
            d->dv[3 * i + (size_t)k++] = v;
            p = end;
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
                p++;
            if (*p == ';') {
                p++;
                continue;
            }
            if (*p) {
                doc_error(d, LWT_ERR_FORMAT, "main.xml: Datum %zu is not a list of numbers", i + 1);
                return;
            }
            break;
        }
    }
    d->dn[i] = (unsigned char)k;
    d->ndat++;
}

static void on_element(lwt__xml_walk *w, void *ud, const char *path, const char *t)
{
    x3p_doc *d = (x3p_doc *)ud;
    const char *p = path;
    d->walk = w;
    if (!strcmp(p, "Record3/DataList"))
        d->have_datalist = 1;
    else if (!strcmp(p, "Record3/DataLink"))
        d->have_datalink = 1;
    else if (!strcmp(p, "Record3/MatrixDimension"))
        d->have_matrix = 1;

    if (!strncmp(p, "Record1/", 8)) {
        p += 8;
        if (!strcmp(p, "FeatureType")) {
            set_str(d->feature, sizeof d->feature, t);
            d->have_feature = 1;
        } else if (!strncmp(p, "Axes/C", 6) && (p[6] == 'X' || p[6] == 'Y' || p[6] == 'Z') && p[7] == '/') {
            static const char *names[3] = {"CX", "CY", "CZ"};
            int k = p[6] - 'X';
            axis_field(d, &d->ax[k], names[k], p + 8, t);
        }
    } else if (!strncmp(p, "Record2/", 8)) {
        p += 8;
        if (!strcmp(p, "Date"))
            set_str(d->date, sizeof d->date, t);
        else if (!strcmp(p, "Creator"))
            set_str(d->creator, sizeof d->creator, t);
        else if (!strcmp(p, "Instrument/Manufacturer"))
            set_str(d->manufacturer, sizeof d->manufacturer, t);
        else if (!strcmp(p, "Instrument/Model"))
            set_str(d->model, sizeof d->model, t);
        if (!strcmp(d->manufacturer, "not available") || !strcmp(d->manufacturer, "unknown"))
            d->manufacturer[0] = 0; /* placeholders, as written by several tools (and by lwt) */
        if (!strcmp(d->model, "not available") || !strcmp(d->model, "unknown"))
            d->model[0] = 0;
        else if (!strcmp(p, "Comment"))
            set_str(d->comment, sizeof d->comment, t);
    } else if (!strncmp(p, "Record3/", 8)) {
        p += 8;
        if (!strcmp(p, "DataList/Datum")) {
            add_datum(d, t);
        } else if (!strncmp(p, "MatrixDimension/Size", 20) && (p[20] == 'X' || p[20] == 'Y' || p[20] == 'Z') &&
                   !p[21]) {
            size_t v;
            if (parse_size(t, &v)) {
                doc_error(d, LWT_ERR_FORMAT, "main.xml: MatrixDimension/Size%c '%.40s' is not a count",
                          p[20], t);
            } else if (p[20] == 'X') {
                d->sx = v;
                d->have_sx = 1;
            } else if (p[20] == 'Y') {
                d->sy = v;
                d->have_sy = 1;
            } else {
                d->sz = v;
                d->have_sz = 1;
            }
        } else if (!strcmp(p, "ListDimension")) {
            d->have_list = 1;
            (void)parse_size(t, &d->list_n);
        } else if (!strcmp(p, "DataLink/PointDataLink")) {
            set_str(d->datalink, sizeof d->datalink, t);
        } else if (!strcmp(p, "DataLink/MD5ChecksumPointData")) {
            set_str(d->md5data, sizeof d->md5data, t);
            d->have_md5data = 1;
        } else if (!strcmp(p, "DataLink/ValidPointsLink")) {
            set_str(d->validlink, sizeof d->validlink, t);
            d->have_validlink = d->validlink[0] != 0;
        } else if (!strcmp(p, "DataLink/MD5ChecksumValidPoints")) {
            set_str(d->md5valid, sizeof d->md5valid, t);
            d->have_md5valid = 1;
        }
    } else if (!strcmp(p, "Record4/ChecksumFile")) {
        set_str(d->checksumfile, sizeof d->checksumfile, t);
    }

}

/* ------------------------------------------------------------------ zip access */

static int skip_entry_name(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return !strncmp(name, "__MACOSX/", 9) || strstr(name, "/__MACOSX/") || !strncmp(base, "._", 2);
}

/* the entry whose base name is main.xml (any case), the shallowest one; -1 if none */
static zip_int64_t find_main_xml(zip_t *za, char *prefix, size_t prefixlen)
{
    zip_int64_t n = zip_get_num_entries(za, 0), best = -1;
    int bestdepth = 1 << 30;
    prefix[0] = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(za, (zip_uint64_t)i, ZIP_FL_ENC_GUESS);
        if (!name || skip_entry_name(name))
            continue;
        const char *base = strrchr(name, '/');
        base = base ? base + 1 : name;
        if (strlen(base) != 8)
            continue;
        int match = 1;
        for (int k = 0; k < 8; k++)
            if (lowc((unsigned char)base[k]) != "main.xml"[k])
                match = 0;
        if (!match)
            continue;
        int depth = 0;
        for (const char *c = name; *c; c++)
            depth += *c == '/';
        if (depth < bestdepth) {
            bestdepth = depth;
            best = i;
            size_t pl = (size_t)(base - name);
            if (pl >= prefixlen)
                pl = 0;
            memcpy(prefix, name, pl);
            prefix[pl] = 0;
        }
    }
    return best;
}

/* Normalise a link from main.xml ("bindata/data.bin", "/bindata/data.bin", "file:///bindata/...",
 * "%20" for blanks, backslashes) and find it: first from the zip root, as the file says, then
 * relative to the folder holding main.xml. */
static zip_int64_t find_linked(zip_t *za, const char *prefix, const char *link)
{
    char norm[512], full[1100];
    size_t k = 0;
    const char *s = link;
    if (!strncmp(s, "file:///", 8))
        s += 8;
    else if (!strncmp(s, "file://", 7))
        s += 7;
    while (*s == '/' || (*s == '.' && s[1] == '/'))
        s += (*s == '/') ? 1 : 2;
    for (; *s && k + 1 < sizeof norm; s++) {
        if (s[0] == '%' && s[1] == '2' && s[2] == '0') {
            norm[k++] = ' ';
            s += 2;
        } else {
            norm[k++] = (*s == '\\') ? '/' : *s;
        }
    }
    norm[k] = 0;
    if (!norm[0])
        return -1;
    zip_int64_t i = zip_name_locate(za, norm, ZIP_FL_NOCASE | ZIP_FL_ENC_GUESS);
    if (i >= 0)
        return i;
    if (prefix[0]) {
        snprintf(full, sizeof full, "%s%s", prefix, norm);
        i = zip_name_locate(za, full, ZIP_FL_NOCASE | ZIP_FL_ENC_GUESS);
    }
    return i;
}

/* ------------------------------------------------------------------ reading */

/* A checksum that does not match its data: refused (LWT_ERR_CHECKSUM), or, when the context says
 * to ignore checksums (lwt_context_set_ignore_checksums, lwt --ignore-checksum), read anyway
 * with one warning line: published data sets hold X3P files whose md5checksum.hex is stale. */
static int checksum_mismatch(lwt_context *ctx, const char *zpath, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int checksum_mismatch(lwt_context *ctx, const char *zpath, const char *fmt, ...)
{
    char msg[400], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!lwt_context_ignore_checksums(ctx))
        return lwt__file_fail(ctx, LWT_ERR_CHECKSUM, zpath, "%s", msg);
    snprintf(line, sizeof line, "%s: checksum mismatch ignored: %s", zpath, msg);
    lwt_context_log(ctx, LWT_LOG_WARNING, line);
    return LWT_OK;
}

/* the MD5 `got` of an entry against the field of main.xml that states it */
static int check_md5_hex(const char *have, const char *field, const char *got, const char *entry, const char *zpath,
                         lwt_context *ctx)
{
    char want[33];
    if (parse_md5(have, want) || have[32 + strspn(have + 32, " \t\r\n")] != 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "main.xml: malformed %s '%.40s'", field,
                              have);
    if (!got[0])
        return lwt__file_fail(ctx, LWT_ERR_CHECKSUM, zpath, "MD5 is not available (OpenSSL)");
    if (strcmp(want, got))
        return checksum_mismatch(ctx, zpath, "wrong MD5 checksum of %s: %s in main.xml says %s, the data has %s",
                                 entry, field, want, got);
    return LWT_OK;
}

static int check_md5_field(const char *have, const char *field, const unsigned char *data, size_t len,
                           const char *entry, const char *zpath, lwt_context *ctx)
{
    char got[33];
    lwt__md5_hex(data, len, got); /* "" when OpenSSL has no MD5 */
    return check_md5_hex(have, field, got, entry, zpath, ctx);
}

/* md5checksum.hex (or the name in Record4): "HASH *main.xml" or the bare hash, any case. */
static int check_main_md5(zip_t *za, const char *prefix, const char *name, const unsigned char *xml, size_t xmllen,
                          const char *zpath, int *checked, lwt_context *ctx)
{
    zip_int64_t i = find_linked(za, prefix, name);
    unsigned char *buf;
    size_t len;
    char want[33], got[33];
    if (i < 0)
        return LWT_OK; /* absent: nothing to verify */
    int rc = lwt__zip_read_entry(za, i, name, 4096, zpath, &buf, &len, ctx);
    if (rc)
        return rc;
    if (parse_md5((const char *)buf, want)) {
        free(buf);
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "%s does not hold an MD5 checksum", name);
    }
    free(buf);
    if (lwt__md5_hex(xml, xmllen, got))
        return lwt__file_fail(ctx, LWT_ERR_CHECKSUM, zpath, "MD5 is not available (OpenSSL)");
    *checked = 1;
    if (strcmp(want, got))
        return checksum_mismatch(ctx, zpath, "wrong MD5 checksum of main.xml: %s says %s, main.xml has %s", name,
                                 want, got);
    return LWT_OK;
}

/* Spacing of an absolute X (k=0) or Y (k=1) axis from the coordinates of the valid points;
 * they must lie on a uniform, increasing grid. coord[i] is NaN for invalid points. */
static int absolute_spacing(const double *coord, const double *z, size_t nx, size_t ny, int k, double *spacing,
                            const char *zpath, lwt_context *ctx)
{
    const char *an = k == 0 ? "CX" : "CY";
    size_t n = nx * ny, i0 = SIZE_MAX, i1 = SIZE_MAX, lo = SIZE_MAX, hi = 0;
    /* the valid points with the smallest and largest column (k=0) or row (k=1) */
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(z[i]) || !isfinite(coord[i]))
            continue;
        size_t c = k == 0 ? i % nx : i / nx;
        if (lo == SIZE_MAX || c < lo) {
            lo = c;
            i0 = i;
        }
        if (i1 == SIZE_MAX || c > hi) {
            hi = c;
            i1 = i;
        }
    }
    if (i0 == SIZE_MAX)
        return LWT_OK; /* no valid point: reported later */
    if (hi == lo)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath,
                              "absolute %s axis: cannot derive a spacing from a single %s", an,
                              k == 0 ? "column" : "row");
    double c0 = coord[i0], h = (coord[i1] - c0) / (double)(hi - lo);
    if (!(h > 0) || !isfinite(h))
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath, "absolute %s axis is not increasing", an);
    double tol = 1e-3 * h;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(z[i]) || !isfinite(coord[i]))
            continue;
        size_t c = k == 0 ? i % nx : i / nx;
        double expect = c0 + ((double)c - (double)lo) * h;
        if (fabs(coord[i] - expect) > tol)
            return lwt__file_fail(ctx, LWT_ERR_FORMAT, zpath,
                                  "absolute %s axis is not uniformly spaced (point x=%zu y=%zu is %g m off the grid "
                                  "of spacing %g m); resampling is not supported",
                                  an, i % nx, i / nx, coord[i] - expect, h);
    }
    *spacing = h;
    return LWT_OK;
}

/* z (read straight from data.bin, float64) to heights as the general decoding below makes them:
 * invalid (valid.bin) or non-finite points NaN, the others scaled by CZ's Increment and Offset
 * when they are not 1 and 0. Returns the number of valid points. */
static size_t decode_in_place(double *z, size_t n, const unsigned char *vbin, double incz, double offz)
{
    size_t valid = 0;
    for (size_t i = 0; i < n; i++) {
        double v = z[i];
        int ok = isfinite(v) && (!vbin || ((vbin[i >> 3] >> (i & 7)) & 1));
        if (ok && incz != 1.0) /* keep values (and the sign of zero) exact when there is nothing to scale */
            v *= incz;
        if (ok && offz != 0.0)
            v += offz;
        ok = ok && isfinite(v);
        z[i] = ok ? v : NAN;
        valid += (size_t)ok;
    }
    return valid;
}

lwt_status lwt_surface_read_x3p(lwt_context *ctx, const char *path, lwt_surface *out)
{
    int rc = LWT_OK;
    zip_t *za = NULL;
    unsigned char *xml = NULL, *bin = NULL, *vbin = NULL;
    size_t xmllen = 0, binlen = 0, vbinlen = 0;
    double *xc = NULL, *yc = NULL;
    char prefix[512], mainname[600];
    x3p_doc d;

    memset(&d, 0, sizeof d);
    lwt_surface_init(out);
    if (!path)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "no file name");

    if ((rc = lwt__zip_open(ctx, path, "X3P", &za)))
        return rc;

    zip_int64_t imain = find_main_xml(za, prefix, sizeof prefix);
    if (imain < 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "missing main.xml in the X3P archive");
        goto done;
    }
    snprintf(mainname, sizeof mainname, "%smain.xml", prefix);
    if ((rc = lwt__zip_read_entry(za, imain, mainname, X3P_MAX_XML, path, &xml, &xmllen, ctx)))
        goto done;

    /* the checksum of main.xml first: a damaged main.xml is best reported as such */
    int md5_checked = 0;
    if ((rc = check_main_md5(za, prefix, "md5checksum.hex", xml, xmllen, path, &md5_checked, ctx)))
        goto done;

    if ((rc = lwt__xml_walk_doc(ctx, path, mainname, (const char *)xml, xmllen, on_element, &d)))
        goto done;

    if (d.checksumfile[0] && !md5_checked &&
        (rc = check_main_md5(za, prefix, d.checksumfile, xml, xmllen, path, &md5_checked, ctx)))
        goto done;

    /* ---- what is it? */
    if (!d.have_feature) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "main.xml has no Record1/FeatureType");
        goto done;
    }
    if (!strcmp(d.feature, "PRF") || !strcmp(d.feature, "PCL")) {
        rc = lwt__file_fail(ctx, LWT_ERR_NOT_AREAL, path,
                            "not an areal surface: FeatureType %s (%s)", d.feature,
                            d.feature[1] == 'R' ? "profile" : "point cloud");
        goto done;
    }
    if (strcmp(d.feature, "SUR")) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "unknown FeatureType '%s' (expected SUR)",
                            d.feature);
        goto done;
    }
    if (!d.have_matrix) {
        rc = d.have_list ? lwt__file_fail(ctx, LWT_ERR_NOT_AREAL, path,
                                          "not an areal surface: points stored as a list (ListDimension), "
                                          "not a matrix")
                         : lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                          "main.xml has no Record3/MatrixDimension");
        goto done;
    }
    if (!d.have_sx || !d.have_sy || !d.have_sz || d.sx == 0 || d.sy == 0 || d.sz == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "main.xml: MatrixDimension needs SizeX, SizeY and SizeZ of at least 1");
        goto done;
    }
    if (d.sz != 1) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "multi-layer X3P (SizeZ = %zu) is not supported", d.sz);
        goto done;
    }
    static const char *axn[3] = {"CX", "CY", "CZ"};
    for (int k = 0; k < 3; k++) {
        if (!d.ax[k].type) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "main.xml: Record1/Axes/%s/AxisType missing",
                                axn[k]);
            goto done;
        }
        if (d.ax[k].type == 'A' && !d.ax[k].dtype) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "main.xml: Record1/Axes/%s/DataType missing", axn[k]);
            goto done;
        }
    }
    if (d.ax[2].type != 'A') {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "main.xml: the CZ axis must be absolute (A)");
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        if (d.ax[k].type == 'I' && (!d.ax[k].has_inc || !(d.ax[k].inc > 0))) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "main.xml: incremental axis %s needs a positive Increment", axn[k]);
            goto done;
        }
    }

    size_t nx = d.sx, ny = d.sy, n, rec = 0, nbytes;
    int absx = d.ax[0].type == 'A', absy = d.ax[1].type == 'A';
    if (lwt__mul_size(nx, ny, &n)) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "dimensions %zu x %zu are too large", nx, ny);
        goto done;
    }
    if (absx)
        rec += type_size(d.ax[0].dtype);
    if (absy)
        rec += type_size(d.ax[1].dtype);
    rec += type_size(d.ax[2].dtype);
    int nfields = absx + absy + 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* float64 heights and nothing else per point: data.bin is the height array itself */
    const int direct = d.have_datalink && !absx && !absy && d.ax[2].dtype == 'D';
#else
    const int direct = 0;
#endif
    double incz = d.ax[2].has_inc ? d.ax[2].inc : 1.0, offz = d.ax[2].has_off ? d.ax[2].off : 0.0;
    double incx = d.ax[0].has_inc ? d.ax[0].inc : 1.0, offx = d.ax[0].has_off ? d.ax[0].off : 0.0;
    double incy = d.ax[1].has_inc ? d.ax[1].inc : 1.0, offy = d.ax[1].has_off ? d.ax[1].off : 0.0;

    if (d.have_datalink) {
        if (!d.datalink[0]) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "main.xml: DataLink without PointDataLink");
            goto done;
        }
        zip_int64_t idata = find_linked(za, prefix, d.datalink);
        if (idata < 0) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "missing data file '%s' named in main.xml", d.datalink);
            goto done;
        }
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(za, (zip_uint64_t)idata, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "corrupt zip archive: cannot stat %s",
                                d.datalink);
            goto done;
        }
        if (lwt__mul_size(n, rec, &nbytes)) {
            rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "dimensions %zu x %zu are too large", nx,
                                ny);
            goto done;
        }
        if (st.size != (zip_uint64_t)nbytes) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "size mismatch: %s has %llu bytes, main.xml describes %zu x %zu points of %zu bytes "
                                "(%s%s%s) = %zu bytes",
                                d.datalink, (unsigned long long)st.size, nx, ny, rec,
                                absx ? "X, " : "", absy ? "Y, " : "", type_name(d.ax[2].dtype), nbytes);
            goto done;
        }
        if ((rc = lwt__zip_check_declared_size(&st, d.datalink, path, ctx)))
            goto done;
        /* held at once: the heights, the absolute X and Y coordinates, data.bin as read (unless it
           is read straight into the heights) and the valid-point bits (past 2^58 points the sum
           saturates instead of overflowing) */
        uint64_t held = n > (UINT64_MAX >> 6) ? UINT64_MAX
                                               : (uint64_t)n * sizeof(double) * (uint64_t)nfields +
                                                     (direct ? 0 : (uint64_t)nbytes) + n / 8 + 1;
        if ((rc = lwt__check_memory(ctx, path, held)))
            goto done;
        if (direct) { /* straight into the heights: no second 128 MiB buffer to fault in and copy */
            if (!(out->z = (double *)malloc(nbytes ? nbytes : 1))) {
                rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory for %zu x %zu points", nx, ny);
                goto done;
            }
            out->nx = nx;
            out->ny = ny;
            int raw = d.have_md5data && (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE;
            char md5[33];
            if ((rc = lwt__zip_read_entry_into(za, idata, d.datalink, nbytes, raw, path, (unsigned char *)out->z,
                                      d.have_md5data ? md5 : NULL, ctx)) ||
                (d.have_md5data &&
                 (rc = check_md5_hex(d.md5data, "MD5ChecksumPointData", md5, d.datalink, path, ctx))))
                goto done;
        } else if ((rc = lwt__zip_read_entry(za, idata, d.datalink, (zip_uint64_t)nbytes, path, &bin, &binlen, ctx)) ||
                   (d.have_md5data && (rc = check_md5_field(d.md5data, "MD5ChecksumPointData", bin, binlen,
                                                            d.datalink, path, ctx)))) {
            goto done;
        }
        if (d.have_validlink) {
            zip_int64_t ivalid = find_linked(za, prefix, d.validlink);
            if (ivalid < 0) {
                rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                    "missing valid-points file '%s' named in main.xml", d.validlink);
                goto done;
            }
            if ((rc = lwt__zip_read_entry(za, ivalid, d.validlink, (zip_uint64_t)(n / 8 + 1), path, &vbin, &vbinlen, ctx)))
                goto done;
            if (vbinlen != (n + 7) / 8) {
                rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                    "size mismatch: %s has %zu bytes, %zu points need %zu", d.validlink, vbinlen, n,
                                    (n + 7) / 8);
                goto done;
            }
            if (d.have_md5valid && (rc = check_md5_field(d.md5valid, "MD5ChecksumValidPoints", vbin, vbinlen,
                                                         d.validlink, path, ctx)))
                goto done;
        }
    } else if (d.have_datalist) {
        if (d.ndat != n) {
            rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                "size mismatch: DataList has %zu points, MatrixDimension %zu x %zu needs %zu", d.ndat,
                                nx, ny, n);
            goto done;
        }
    } else {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "main.xml has neither DataLink nor DataList");
        goto done;
    }

    /* ---- decode */
    if (direct) {
        if (decode_in_place(out->z, n, vbin, incz, offz) == 0) {
            rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "all points are invalid");
            goto done;
        }
        out->dx = d.ax[0].inc;
        out->dy = d.ax[1].inc;
        goto described;
    }
    if (lwt_surface_alloc(NULL, out, nx, ny) /* logged below, with the file */) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory for %zu x %zu points", nx, ny);
        goto done;
    }
    if (absx && !(xc = (double *)malloc(n * sizeof(double)))) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
        goto done;
    }
    if (absy && !(yc = (double *)malloc(n * sizeof(double)))) {
        rc = lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        double v[3] = {NAN, NAN, NAN};
        int valid;
        if (bin) {
            const unsigned char *p = bin + i * rec;
            int f = 0;
            if (absx) {
                v[f++] = load_value(d.ax[0].dtype, p);
                p += type_size(d.ax[0].dtype);
            }
            if (absy) {
                v[f++] = load_value(d.ax[1].dtype, p);
                p += type_size(d.ax[1].dtype);
            }
            v[f] = load_value(d.ax[2].dtype, p);
            valid = !vbin || ((vbin[i >> 3] >> (i & 7)) & 1);
        } else {
            int got = d.dn[i];
            valid = got != 0;
            if (valid && got != nfields) {
                rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                                    "main.xml: Datum %zu has %d value%s, the axes need %d", i + 1, got,
                                    got == 1 ? "" : "s", nfields);
                goto done;
            }
            for (int f = 0; f < got; f++)
                v[f] = d.dv[3 * i + (size_t)f];
        }
        int f = 0;
        double x = NAN, y = NAN, z;
        if (absx)
            x = v[f++] * incx + offx;
        if (absy)
            y = v[f++] * incy + offy;
        z = v[f];
        if (valid && isfinite(z)) {
            if (incz != 1.0) /* keep values (and the sign of zero) exact when there is nothing to scale */
                z *= incz;
            if (offz != 0.0)
                z += offz;
        } else {
            z = NAN;
        }
        if (!isfinite(z))
            z = NAN;
        out->z[i] = z;
        if (xc)
            xc[i] = x;
        if (yc)
            yc[i] = y;
    }

    out->dx = absx ? 0 : d.ax[0].inc;
    out->dy = absy ? 0 : d.ax[1].inc;
    if (absx && (rc = absolute_spacing(xc, out->z, nx, ny, 0, &out->dx, path, ctx)))
        goto done;
    if (absy && (rc = absolute_spacing(yc, out->z, nx, ny, 1, &out->dy, path, ctx)))
        goto done;
    if (lwt_surface_count_valid(out) == 0) {
        rc = lwt__file_fail(ctx, LWT_ERR_NO_DATA, path, "all points are invalid");
        goto done;
    }

described:
    snprintf(out->source_format, sizeof out->source_format, "x3p");
    snprintf(out->date, sizeof out->date, "%s", d.date);
    snprintf(out->creator, sizeof out->creator, "%s", d.creator);
    snprintf(out->comment, sizeof out->comment, "%s", d.comment);
    snprintf(out->instrument, sizeof out->instrument, "%s%s%s", d.manufacturer,
             d.manufacturer[0] && d.model[0] ? " " : "", d.model);

done:
    if (rc)
        lwt_surface_free(out);
    free(xc);
    free(yc);
    free(xml);
    free(bin);
    free(vbin);
    doc_free(&d);
    if (za)
        zip_discard(za);
    return rc;
}
