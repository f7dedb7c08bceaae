/*
 * sdf.c - SDF surface data files (ISO 25178-71, descended from the BCR/Surfstand format):
 * ASCII ("aISO-1.0", "aBCR-1.0") and binary ("bISO-1.0", "bBCR-1.0"), read and write.
 *
 * ASCII: the magic line, "Key = value" header lines, "*", the values (profile after profile,
 * NumPoints per profile, "BAD" for an invalid point), "*", a free-text trailer, "*".
 * Binary: 81-byte little-endian header (magic 8, ManufacID 10, CreateDate 12, ModDate 12,
 * NumPoints u16, NumProfiles u16, Xscale, Yscale, Zscale, Zresolution f64, Compression u8,
 * DataType u8, CheckType u8), then the values. DataType: 0 uint8, 1 uint16, 2 uint32,
 * 3 float32, 4 int8, 5 int16, 6 int32, 7 float64. Heights = value * Zscale (metres),
 * spacing = Xscale, Yscale (metres).
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <lwt.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SDF_BIN_HEADER 81
#define SDF_MAX_HEADER ((size_t)1 << 20) /* an ASCII header must end (its '*' line) within 1 MiB */

static const size_t sdf_type_size[8] = {1, 2, 4, 4, 1, 2, 4, 8};
static const char *const sdf_type_name[8] = {"uint8", "uint16", "uint32", "float32",
                                             "int8",  "int16",  "int32",  "float64"};

static int lowc(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

static int streq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lowc((unsigned char)*a) != lowc((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* "DDMMYYYYhhmm" -> "YYYY-MM-DDThh:mm:00"; otherwise a clean copy */
static void sdf_date_to_iso(char *dst, size_t n, const char *src, size_t len)
{
    char clean[16];
    lwt__copy_clean(clean, sizeof clean, src, len);
    int ok = strlen(clean) == 12;
    for (int i = 0; ok && i < 12; i++)
        ok = clean[i] >= '0' && clean[i] <= '9';
    if (ok)
        snprintf(dst, n, "%.4s-%.2s-%.2sT%.2s:%.2s:00", clean + 4, clean + 2, clean, clean + 8, clean + 10);
    else
        snprintf(dst, n, "%s", clean);
}

static void iso_to_sdf_date(char out[13], const char *iso)
{
    /* YYYY-MM-DDThh:mm -> DDMMYYYYhhmm */
    int ok = 1;
    static const char pat[] = "dddd-dd-ddTdd:dd";
    for (int i = 0; pat[i]; i++)
        if (pat[i] == 'd' ? !(iso[i] >= '0' && iso[i] <= '9') : iso[i] != pat[i]) {
            ok = 0;
            break;
        }
    if (!ok) {
        time_t t = time(NULL);
        struct tm tmv;
        if (gmtime_r(&t, &tmv) && strftime(out, 13, "%d%m%Y%H%M", &tmv) == 12)
            return;
        memcpy(out, "010119700000", 13);
        return;
    }
    memcpy(out, iso + 8, 2);
    memcpy(out + 2, iso + 5, 2);
    memcpy(out + 4, iso, 4);
    memcpy(out + 8, iso + 11, 2);
    memcpy(out + 10, iso + 14, 2);
    out[12] = 0;
}

/* ------------------------------------------------------------------ reading */

/* A value that marks a point as not measured: NaN or infinity, and the largest value of the
 * point type with either sign (-DBL_MAX and +DBL_MAX for float64, what surfalize writes; FLT_MAX
 * for float32): no instrument measures 1.8e308 of anything. */
static int sdf_not_measured(double v, long long data_type)
{
    return !isfinite(v) || fabs(v) == DBL_MAX || (data_type == 3 && fabs(v) == (double)FLT_MAX);
}

typedef struct {
    long long num_points, num_profiles, compression, data_type, check_type;
    double xscale, yscale, zscale, zres;
    int have_np, have_npr, have_xs, have_ys, have_zs, have_dt;
    char manufac[64], created[40];
} sdf_header;

static int check_header(const sdf_header *h, const char *path, lwt_context *ctx)
{
    if (h->num_points <= 0 || h->num_profiles <= 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "invalid NumPoints x NumProfiles = %lld x %lld", h->num_points, h->num_profiles);
    if (h->compression != 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "Compression = %lld is not supported",
                              h->compression);
    if (h->check_type != 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "CheckType = %lld is not supported",
                              h->check_type);
    if (h->data_type < 0 || h->data_type > 7)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "unknown DataType %lld", h->data_type);
    if (!(h->xscale > 0) || !(h->yscale > 0) || !isfinite(h->xscale) || !isfinite(h->yscale))
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "Xscale and Yscale must be positive (%g, %g)",
                              h->xscale, h->yscale);
    if (!isfinite(h->zscale) || h->zscale == 0)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "invalid Zscale %g", h->zscale);
    return LWT_OK;
}

static void fill_meta(lwt_surface *out, const sdf_header *h)
{
    snprintf(out->source_format, sizeof out->source_format, "sdf");
    out->dx = h->xscale;
    out->dy = h->yscale;
    out->z_resolution = (h->zres > 0 && isfinite(h->zres)) ? h->zres : 0;
    snprintf(out->instrument, sizeof out->instrument, "%s", h->manufac);
    snprintf(out->date, sizeof out->date, "%s", h->created);
}

/* only spaces or tabs left after a number */
static int rest_blank(const char *end)
{
    while (*end == ' ' || *end == '\t')
        end++;
    return *end == 0;
}

static int parse_ll(const char *s, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno)
        return -1;
    if (!rest_blank(end))
        return -1;
    *v = x;
    return 0;
}

static int parse_dbl(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s)
        return -1;
    if (!rest_blank(end))
        return -1;
    *v = x;
    return 0;
}

static int read_ascii_values(const char *path, const sdf_header *hp, const char *p, const char *end, lwt_surface *out,
                             lwt_context *ctx);

/* ASCII: the header is parsed from the first SDF_MAX_HEADER bytes (pre, prelen of the file's len),
 * checked against the file's size, and only then is the whole file read for the values. */
static int read_ascii(const char *path, int fd, const char *pre, size_t prelen, size_t len, lwt_surface *out,
                      lwt_context *ctx)
{
    sdf_header h;
    memset(&h, 0, sizeof h);
    const char *p = pre, *end = pre + prelen;
    /* skip the magic line */
    while (p < end && *p != '\n')
        p++;
    int star = 0;
    size_t lineno = 1;
    while (p < end) {
        p++; /* past '\n' */
        lineno++;
        const char *ls = p;
        while (p < end && *p != '\n')
            p++;
        char line[512];
        lwt__copy_clean(line, sizeof line, ls, (size_t)(p - ls));
        if (!line[0] || line[0] == ';')
            continue;
        if (line[0] == '*') {
            star = 1;
            if (p < end)
                p++;
            break;
        }
        char *eq = strchr(line, '=');
        char *key = line, *val;
        if (eq) {
            *eq = 0;
            val = eq + 1;
        } else { /* "Key value" */
            val = line + strcspn(line, " \t");
            if (*val)
                *val++ = 0;
        }
        /* trim key and value */
        size_t kl = strlen(key);
        while (kl && (key[kl - 1] == ' ' || key[kl - 1] == '\t'))
            key[--kl] = 0;
        while (*val == ' ' || *val == '\t')
            val++;
        int bad = 0;
        if (streq_nocase(key, "NumPoints"))
            bad = parse_ll(val, &h.num_points), h.have_np = 1;
        else if (streq_nocase(key, "NumProfiles"))
            bad = parse_ll(val, &h.num_profiles), h.have_npr = 1;
        else if (streq_nocase(key, "Xscale"))
            bad = parse_dbl(val, &h.xscale), h.have_xs = 1;
        else if (streq_nocase(key, "Yscale"))
            bad = parse_dbl(val, &h.yscale), h.have_ys = 1;
        else if (streq_nocase(key, "Zscale"))
            bad = parse_dbl(val, &h.zscale), h.have_zs = 1;
        else if (streq_nocase(key, "Zresolution"))
            bad = parse_dbl(val, &h.zres);
        else if (streq_nocase(key, "Compression"))
            bad = parse_ll(val, &h.compression);
        else if (streq_nocase(key, "DataType"))
            bad = parse_ll(val, &h.data_type), h.have_dt = 1;
        else if (streq_nocase(key, "CheckType"))
            bad = parse_ll(val, &h.check_type);
        else if (streq_nocase(key, "ManufacID"))
            lwt__copy_clean(h.manufac, sizeof h.manufac, val, strlen(val));
        else if (streq_nocase(key, "CreateDate"))
            sdf_date_to_iso(h.created, sizeof h.created, val, strlen(val));
        if (bad)
            return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "header line %zu: bad value for %s: '%s'",
                                  lineno, key, val);
    }
    if (!star && prelen < len)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "no '*' line ends the header within its first %zu bytes",
                              prelen);
    if (!star)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "no '*' line after the header (truncated file?)");
    const char *missing = !h.have_np ? "NumPoints" : !h.have_npr ? "NumProfiles" : !h.have_xs ? "Xscale"
                        : !h.have_ys ? "Yscale" : !h.have_zs ? "Zscale" : !h.have_dt ? "DataType" : NULL;
    if (missing)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "header has no %s", missing);
    int rc = check_header(&h, path, ctx);
    if (rc)
        return rc;

    size_t nx = (size_t)h.num_points, ny = (size_t)h.num_profiles, n, dataoff = (size_t)(p - pre);
    if (lwt__mul_size(nx, ny, &n) || n > (len - dataoff) / 2 + 1)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "size mismatch: header says %zu x %zu values, the file is far too short for them", nx,
                              ny);
    /* the whole file and the heights at once */
    if ((rc = lwt__check_memory(ctx, path, (uint64_t)len + 1 + (uint64_t)n * sizeof(double))))
        return rc;
    char *buf = (char *)malloc(len + 1);
    if (!buf)
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory (%zu bytes)", len + 1);
    if ((rc = lwt__read_at(ctx, path, fd, buf, len, 0))) {
        free(buf);
        return rc;
    }
    buf[len] = 0;
    rc = read_ascii_values(path, &h, buf + dataoff, buf + len, out, ctx);
    free(buf);
    return rc;
}

/* the values from p to end, the header h checked */
static int read_ascii_values(const char *path, const sdf_header *hp, const char *p, const char *end, lwt_surface *out,
                             lwt_context *ctx)
{
    const sdf_header h = *hp;
    size_t nx = (size_t)h.num_points, ny = (size_t)h.num_profiles, n = nx * ny;
    int rc = lwt__surface_alloc_file(ctx, path, out, nx, ny, 0);
    if (rc)
        return rc;

    size_t count = 0;
    int closed = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ','))
            p++;
        if (p >= end)
            break;
        if (*p == '*') {
            closed = 1;
            p++;
            break;
        }
        const char *ts = p;
        while (p < end && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ',' || *p == '*'))
            p++;
        size_t tl = (size_t)(p - ts);
        char tok[64];
        if (tl >= sizeof tok) {
            lwt_surface_free(out);
            return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "bad value at point %zu", count + 1);
        }
        memcpy(tok, ts, tl);
        tok[tl] = 0;
        double v;
        if (streq_nocase(tok, "BAD")) {
            v = NAN;
        } else {
            char *e;
            v = strtod(tok, &e);
            if (e == tok || *e) {
                lwt_surface_free(out);
                return lwt__file_fail(ctx, LWT_ERR_FORMAT, path, "bad value '%s' at point %zu", tok,
                                      count + 1);
            }
            v = sdf_not_measured(v, h.data_type) ? NAN : v * h.zscale;
        }
        if (count < n)
            out->z[count] = v;
        count++;
    }
    if (count != n) {
        lwt_surface_free(out);
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "size mismatch: header says %zu x %zu = %zu values, the data section has %zu%s", nx, ny,
                              n, count, closed ? "" : " (no closing '*': truncated file?)");
    }
    /* trailer: free text up to the next '*' */
    if (closed) {
        const char *ts = p, *te = p;
        while (te < end && *te != '*')
            te++;
        lwt__copy_clean(out->comment, sizeof out->comment, ts, (size_t)(te - ts));
    }
    fill_meta(out, &h);
    return LWT_OK;
}

typedef struct {
    double *z, zscale;
    long long data_type;
    size_t es;
} sdf_decode;

static void decode_points(void *user, const unsigned char *d, size_t first, size_t count)
{
    const sdf_decode *c = (const sdf_decode *)user;
    for (size_t i = first; i < first + count; i++, d += c->es) {
        double v;
        switch (c->data_type) {
        case 0: v = d[0]; break;
        case 1: v = lwt__le16(d); break;
        case 2: v = lwt__le32(d); break;
        case 3: v = lwt__lef32(d); break;
        case 4: v = (signed char)d[0]; break;
        case 5: v = (int16_t)lwt__le16(d); break;
        case 6: v = (int32_t)lwt__le32(d); break;
        default: v = lwt__lef64(d); break;
        }
        c->z[i] = sdf_not_measured(v, c->data_type) ? NAN : v * c->zscale;
    }
}

/* binary: the 81-byte header (buf, at least that long when the file is) checked, then the values
 * it declares read from fd once the file (len bytes) is known to hold them */
static int read_binary(const char *path, int fd, const unsigned char *buf, size_t len, lwt_surface *out,
                       lwt_context *ctx)
{
    sdf_header h;
    memset(&h, 0, sizeof h);
    if (len < SDF_BIN_HEADER)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "truncated: %zu bytes, the binary SDF header alone has %d", len, SDF_BIN_HEADER);
    lwt__copy_clean(h.manufac, sizeof h.manufac, (const char *)buf + 8, 10);
    sdf_date_to_iso(h.created, sizeof h.created, (const char *)buf + 18, 12);
    h.num_points = lwt__le16(buf + 42);
    h.num_profiles = lwt__le16(buf + 44);
    h.xscale = lwt__lef64(buf + 46);
    h.yscale = lwt__lef64(buf + 54);
    h.zscale = lwt__lef64(buf + 62);
    h.zres = lwt__lef64(buf + 70);
    h.compression = buf[78];
    h.data_type = buf[79];
    h.check_type = buf[80];
    int rc = check_header(&h, path, ctx);
    if (rc)
        return rc;
    size_t nx = (size_t)h.num_points, ny = (size_t)h.num_profiles, n = nx * ny;
    size_t es = sdf_type_size[h.data_type], need = n * es, have = len - SDF_BIN_HEADER;
    if (have < need)
        return lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                              "size mismatch (truncated?): header says %zu x %zu %s values = %zu bytes, the file has "
                              "%zu bytes of data",
                              nx, ny, sdf_type_name[h.data_type], need, have);
    if ((rc = lwt__surface_alloc_file(ctx, path, out, nx, ny, 0)))
        return rc;
    sdf_decode dec = {out->z, h.zscale, h.data_type, es};
    if ((rc = lwt__read_records(ctx, path, fd, SDF_BIN_HEADER, n, es, decode_points, &dec)))
        return rc;
    fill_meta(out, &h);
    return LWT_OK;
}

lwt_status lwt_surface_read_sdf(lwt_context *ctx, const char *path, lwt_surface *out)
{
    size_t len, prelen;
    int fd;
    lwt_surface_init(out);
    if (!path)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "(null)", "no file name");
    int rc = lwt__open_regular(ctx, path, &fd, &len);
    if (rc)
        return rc;
    prelen = len < SDF_MAX_HEADER ? len : SDF_MAX_HEADER;
    unsigned char *pre = (unsigned char *)malloc(prelen + 1);
    if (!pre) {
        close(fd);
        return lwt__file_fail(ctx, LWT_ERR_OUT_OF_MEMORY, path, "out of memory");
    }
    if ((rc = lwt__read_at(ctx, path, fd, pre, prelen, 0)))
        goto done;
    pre[prelen] = 0;
    if (prelen < 8 || (pre[0] != 'a' && pre[0] != 'b') ||
        (memcmp(pre + 1, "ISO-1.0", 7) && memcmp(pre + 1, "BCR-1.0", 7))) {
        rc = lwt__file_fail(ctx, LWT_ERR_FORMAT, path,
                            "not an SDF file (no aISO-1.0, bISO-1.0, aBCR-1.0 or bBCR-1.0 magic)");
        goto done;
    }
    if (pre[0] == 'a')
        rc = read_ascii(path, fd, (const char *)pre, prelen, len, out, ctx);
    else
        rc = read_binary(path, fd, pre, len, out, ctx);
done:
    free(pre);
    close(fd);
    if (rc)
        lwt_surface_free(out);
    return rc;
}

/* ------------------------------------------------------------------ writing */

/* text for the ASCII trailer: printable, no '*', no line breaks */
static void trailer_text(char *dst, size_t n, const char *src)
{
    lwt__copy_clean(dst, n, src, strlen(src));
    for (char *c = dst; *c; c++)
        if (*c == '*' || *c == '<' || *c == '>')
            *c = ' ';
}

lwt_status lwt_surface_write_sdf(lwt_context *ctx, const char *path, const lwt_surface *s, int binary)
{
    return lwt__surface_write_sdf_sync(ctx, path, s, binary, 1);
}

lwt_status lwt__surface_write_sdf_sync(lwt_context *ctx, const char *path, const lwt_surface *s, int binary,
                                       int durable)
{
    char tmp[4200], date[13], mod[13], now_iso[40];
    size_t n;
    int unwritable = lwt__check_writable(ctx, path, s, "SDF", &n);
    if (unwritable)
        return unwritable;
    if (binary && (s->nx > 65535 || s->ny > 65535))
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path,
                              "binary SDF holds at most 65535 x 65535 points (have %zu x %zu)", s->nx, s->ny);

    lwt__now_iso8601(now_iso, sizeof now_iso);
    iso_to_sdf_date(mod, now_iso);
    iso_to_sdf_date(date, s->date[0] ? s->date : now_iso);
    double zres = s->z_resolution > 0 && isfinite(s->z_resolution) ? s->z_resolution : -1.0;

    int fd = lwt__tmp_create(ctx, path, tmp, sizeof tmp);
    if (fd < 0)
        return LWT_ERR_IO;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        lwt__tmp_abort(fd, tmp);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "cannot write: %s", strerror(e));
    }

    if (binary) {
        unsigned char h[SDF_BIN_HEADER], buf[8 * 1024];
        memset(h, 0, sizeof h);
        memcpy(h, "bISO-1.0", 8);
        memset(h + 8, ' ', 10);
        memcpy(h + 8, "lwt", 3);
        memcpy(h + 18, date, 12);
        memcpy(h + 30, mod, 12);
        lwt__put_le16(h + 42, (uint16_t)s->nx);
        lwt__put_le16(h + 44, (uint16_t)s->ny);
        lwt__put_lef64(h + 46, s->dx);
        lwt__put_lef64(h + 54, s->dy);
        lwt__put_lef64(h + 62, 1.0);
        lwt__put_lef64(h + 70, zres);
        h[78] = 0; /* Compression */
        h[79] = 7; /* DataType: double */
        h[80] = 0; /* CheckType */
        fwrite(h, 1, sizeof h, f);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            double v = isfinite(s->z[i]) ? s->z[i] : NAN;
            lwt__put_lef64(buf + k, v);
            k += 8;
            if (k == sizeof buf || i + 1 == n) {
                fwrite(buf, 1, k, f);
                k = 0;
            }
        }
    } else {
        char manu[64], instr[128], comm[256];
        fprintf(f, "aISO-1.0\nManufacID = lwt\nCreateDate = %s\nModDate = %s\nNumPoints = %zu\n"
                   "NumProfiles = %zu\nXscale = %.17g\nYscale = %.17g\nZscale = 1\nZresolution = %.17g\n"
                   "Compression = 0\nDataType = 7\nCheckType = 0\n*\n",
                date, mod, s->nx, s->ny, s->dx, s->dy, zres);
        for (size_t iy = 0; iy < s->ny; iy++) {
            const double *row = s->z + iy * s->nx;
            for (size_t ix = 0; ix < s->nx; ix++) {
                if (isfinite(row[ix]))
                    fprintf(f, ix ? " %.17g" : "%.17g", row[ix]);
                else
                    fputs(ix ? " BAD" : "BAD", f);
            }
            fputc('\n', f);
        }
        snprintf(manu, sizeof manu, "lwt %d.%d.%d", LWT_VERSION_MAJOR, LWT_VERSION_MINOR, LWT_VERSION_PATCH);
        fprintf(f, "*\n<ExportedBy>%s</ExportedBy>\n", manu);
        trailer_text(instr, sizeof instr, s->instrument);
        if (instr[0])
            fprintf(f, "<Instrument>%s</Instrument>\n", instr);
        trailer_text(comm, sizeof comm, s->comment);
        if (comm[0])
            fprintf(f, "<Comment>%s</Comment>\n", comm);
        fputs("*\n", f);
    }

    int bad = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (!bad && durable && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        return lwt__file_fail(ctx, LWT_ERR_IO, path, "write failed: %s", strerror(e));
    }
    return lwt__tmp_commit(ctx, -1, tmp, path);
}
