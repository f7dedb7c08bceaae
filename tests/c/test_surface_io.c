/*
 * test_surface_io.c - surface file formats (include/lwt_surface.h, src/io/): every failure has its
 * lwt_status and logs exactly one line, which names the file.
 *
 *   test_surface_io                      the tests that need no data: synthetic round trips, bad
 *                                        files, crafted valid .sur and .plu files
 *   test_surface_io --shared             every file in $LWT_SHARED/data/surfaces (exit 77 with a
 *                                        message when that folder is absent: a fresh clone)
 *   test_surface_io --dump IN OUT        read IN, write OUT as: "LWTSURF1", u64 nx, u64 ny,
 *                                        f64 dx, f64 dy, char format[16], nx*ny f64 (little-endian)
 *   test_surface_io --write-x3p IN OUT   read IN, write OUT as X3P
 *   test_surface_io --write-sdf IN OUT [ascii|binary]
 *   (the tool modes print "ERROR <code>: <message>" on stderr and exit 2 on failure; they serve
 *    tests/py/test_surface_io.py)
 */
#define _POSIX_C_SOURCE 200809L

#include "io/npy.h"
#include "io/surface_file.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#include "check.h"
#include "test_log.h"

static char tmpdir[512];

/* Every API call of this test goes through one context; its failure message is copied into the
   caller's err (1024 bytes), and a failure must have logged exactly one line, a success none. */
static test_log tlog;
static lwt_context *tctx;

static lwt_status logged(lwt_status st, char *err)
{
    snprintf(err, 1024, "%s", tlog.last);
    CHECK(tlog.errors == (st != LWT_OK), "status %d came with %d logged messages (last: %s)", (int)st, tlog.errors,
          tlog.last);
    test_log_reset(&tlog);
    return st;
}
#define RD(path, s, err) (test_log_reset(&tlog), logged(lwt_surface_read(tctx, (path), (s)), (err)))
#define WX3P(path, s, err) (test_log_reset(&tlog), logged(lwt_surface_write_x3p(tctx, (path), (s)), (err)))
#define WSDF(path, s, bin, err) (test_log_reset(&tlog), logged(lwt_surface_write_sdf(tctx, (path), (s), (bin)), (err)))
#define WR(path, s, err) (test_log_reset(&tlog), logged(lwt_surface_write(tctx, (path), (s)), (err)))

static void tpath(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", tmpdir, name); }

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ------------------------------------------------------------------ tool modes */

static int tool_main(int argc, char **argv)
{
    char err[1024];
    lwt_surface s;
    if (argc < 4) {
        fprintf(stderr, "usage: %s --dump|--write-x3p|--write-sdf IN OUT [ascii|binary]\n", argv[0]);
        return 2;
    }
    int rc = RD(argv[2], &s, err);
    if (rc) {
        fprintf(stderr, "ERROR %d: %s\n", rc, err);
        return 2;
    }
    if (!strcmp(argv[1], "--dump")) {
        FILE *f = fopen(argv[3], "wb");
        if (!f) {
            fprintf(stderr, "ERROR 1: %s: %s\n", argv[3], strerror(errno));
            lwt_surface_free(&s);
            return 2;
        }
        unsigned char h[8];
        char fmt[16] = {0};
        fwrite("LWTSURF1", 1, 8, f);
        lwt__put_le64(h, (uint64_t)s.nx);
        fwrite(h, 1, 8, f);
        lwt__put_le64(h, (uint64_t)s.ny);
        fwrite(h, 1, 8, f);
        lwt__put_lef64(h, s.dx);
        fwrite(h, 1, 8, f);
        lwt__put_lef64(h, s.dy);
        fwrite(h, 1, 8, f);
        memcpy(fmt, s.source_format, sizeof fmt - 1);
        fwrite(fmt, 1, 16, f);
        for (size_t i = 0; i < s.nx * s.ny; i++) {
            lwt__put_lef64(h, s.z[i]);
            fwrite(h, 1, 8, f);
        }
        rc = fclose(f) != 0;
    } else if (!strcmp(argv[1], "--write-x3p")) {
        rc = WX3P(argv[3], &s, err);
    } else if (!strcmp(argv[1], "--write-sdf")) {
        int binary = !(argc > 4 && !strcmp(argv[4], "ascii"));
        rc = WSDF(argv[3], &s, binary, err);
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        rc = 2;
        snprintf(err, sizeof err, "unknown mode");
    }
    lwt_surface_free(&s);
    if (rc) {
        fprintf(stderr, "ERROR %d: %s\n", rc, err);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------ helpers */

static void make_surface(lwt_surface *s, size_t nx, size_t ny, double dx, double dy, int with_nan)
{
    if (lwt_surface_alloc(NULL, s, nx, ny) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    s->dx = dx;
    s->dy = dy;
    for (size_t iy = 0; iy < ny; iy++)
        for (size_t ix = 0; ix < nx; ix++) {
            size_t i = iy * nx + ix;
            double v = 1e-6 * sin(0.37 * (double)ix) * cos(0.21 * (double)iy) + 3e-9 * (double)(i % 11);
            if (with_nan && (i % 7 == 3 || (ix == 0 && iy == 0)))
                v = NAN;
            s->z[i] = v;
        }
    if (nx * ny > 5 && !isnan(s->z[1]))
        s->z[1] = -0.0;
    if (nx * ny > 5 && !isnan(s->z[2]))
        s->z[2] = 4.9406564584124654e-324; /* denormal: must survive bit-exactly */
    snprintf(s->comment, sizeof s->comment, "synthetic <test> & \"surface\"");
    snprintf(s->instrument, sizeof s->instrument, "Acme Profilometer");
    snprintf(s->source_format, sizeof s->source_format, "test");
}

/* bit-exact equality of two surfaces (NaN positions equal) */
static int same_surface(const lwt_surface *a, const lwt_surface *b, double rtol, const char *what)
{
    if (a->nx != b->nx || a->ny != b->ny) {
        CHECK(0, "%s: size %zux%zu vs %zux%zu", what, a->nx, a->ny, b->nx, b->ny);
        return 0;
    }
    CHECK(a->dx == b->dx && a->dy == b->dy, "%s: spacing %.17g,%.17g vs %.17g,%.17g", what, a->dx, a->dy, b->dx,
          b->dy);
    for (size_t i = 0; i < a->nx * a->ny; i++) {
        double u = a->z[i], v = b->z[i];
        if (isnan(u) || isnan(v)) {
            if (!(isnan(u) && isnan(v))) {
                CHECK(0, "%s: point %zu valid in one only (%g vs %g)", what, i, u, v);
                return 0;
            }
            continue;
        }
        int ok = rtol == 0 ? memcmp(&u, &v, sizeof u) == 0 : fabs(u - v) <= rtol * fabs(u);
        if (!ok) {
            CHECK(0, "%s: point %zu differs: %.17g vs %.17g", what, i, u, v);
            return 0;
        }
    }
    return 1;
}

static void md5hex(const void *d, size_t n, char out[33])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(d, n, md, &len, EVP_md5(), NULL);
    for (unsigned i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* write a zip with the given entries (NULL data = skip) */
typedef struct {
    const char *name;
    const void *data;
    size_t len;
} entry;

static void write_zip(const char *path, const entry *e, int n)
{
    int zerr;
    unlink(path);
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!za) {
        fprintf(stderr, "cannot create %s\n", path);
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        if (!e[i].data)
            continue;
        zip_source_t *src = zip_source_buffer(za, e[i].data, e[i].len, 0);
        if (!src || zip_file_add(za, e[i].name, src, ZIP_FL_OVERWRITE) < 0) {
            fprintf(stderr, "zip_file_add %s: %s\n", e[i].name, zip_strerror(za));
            exit(1);
        }
    }
    if (zip_close(za) != 0) {
        fprintf(stderr, "zip_close %s: %s\n", path, zip_strerror(za));
        exit(1);
    }
}

/* main.xml for a 4x4 D surface with a DataLink (or an inline list when datalist != NULL) */
static char *make_main_xml(const char *feature, size_t sx, size_t sy, const char *md5data, const char *datalist)
{
    static char buf[16384];
    int k = snprintf(buf, sizeof buf,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<q:ISO5436_2 xmlns:q=\"http://www.opengps.eu/2008/ISO5436_2\">\n"
                     "<Record1><Revision>ISO5436 - 2000</Revision><FeatureType>%s</FeatureType><Axes>\n"
                     "<CX><AxisType>I</AxisType><DataType>D</DataType><Increment>1e-6</Increment><Offset>0</Offset></CX>\n"
                     "<CY><AxisType>I</AxisType><DataType>D</DataType><Increment>2e-6</Increment><Offset>0</Offset></CY>\n"
                     "<CZ><AxisType>A</AxisType><DataType>D</DataType><Increment>1</Increment><Offset>0</Offset></CZ>\n"
                     "</Axes></Record1>\n<Record3><MatrixDimension><SizeX>%zu</SizeX><SizeY>%zu</SizeY><SizeZ>1</SizeZ>"
                     "</MatrixDimension>\n",
                     feature, sx, sy);
    if (datalist)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "<DataList>%s</DataList>\n", datalist);
    else
        k += snprintf(buf + k, sizeof buf - (size_t)k,
                      "<DataLink><PointDataLink>bindata/data.bin</PointDataLink>"
                      "<MD5ChecksumPointData>%s</MD5ChecksumPointData></DataLink>\n",
                      md5data);
    snprintf(buf + k, sizeof buf - (size_t)k,
             "</Record3>\n<Record4><ChecksumFile>md5checksum.hex</ChecksumFile></Record4>\n</q:ISO5436_2>\n");
    return buf;
}

/* build an x3p from a main.xml text, a 16-double data.bin; md5 of main.xml right or wrong */
static void craft_x3p(const char *path, const char *xml, int wrong_main_md5, int with_data, int with_main)
{
    unsigned char data[16 * 8];
    char md5[33], chk[64];
    for (int i = 0; i < 16; i++)
        lwt__put_lef64(data + 8 * i, 1e-6 * i);
    md5hex(xml, strlen(xml), md5);
    if (wrong_main_md5)
        md5[0] = md5[0] == '0' ? '1' : '0';
    snprintf(chk, sizeof chk, "%s *main.xml\n", md5);
    entry e[3] = {{"main.xml", with_main ? xml : NULL, strlen(xml)},
                  {"bindata/data.bin", with_data ? data : NULL, sizeof data},
                  {"md5checksum.hex", chk, strlen(chk)}};
    write_zip(path, e, 3);
}

static void expect_error(const char *path, int code, const char *needle, const char *what)
{
    char err[1024] = "";
    lwt_surface s;
    int rc = RD(path, &s, err);
    CHECK(rc == code, "%s: return %d, expected %d (%s)", what, rc, code, err);
    CHECK(s.z == NULL && s.nx == 0, "%s: output not empty after failure", what);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    CHECK(strstr(err, base) != NULL, "%s: message does not name the file: %s", what, err);
    CHECK(strstr(err, needle) != NULL, "%s: message lacks '%s': %s", what, needle, err);
    CHECK(strchr(err, '\n') == NULL, "%s: message is not one line", what);
    lwt_surface_free(&s);
}

static void no_temp_files_left(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d)))
        CHECK(strstr(de->d_name, ".tmp-") == NULL, "temporary file left behind: %s", de->d_name);
    closedir(d);
}

/* ------------------------------------------------------------------ synthetic tests */

static void test_roundtrips(void)
{
    char p1[600], p2[600], p3[600], p4[600], err[1024];
    lwt_surface a, b, c;
    tpath(p1, sizeof p1, "synth.x3p");
    tpath(p2, sizeof p2, "synth2.x3p");
    tpath(p3, sizeof p3, "synth.sdf");
    tpath(p4, sizeof p4, "synth_ascii.sdf");

    make_surface(&a, 37, 23, 1.5e-6, 2.5e-7, 1);

    /* X3P -> X3P, bit-exact, anisotropic spacing kept */
    CHECK(WX3P(p1, &a, err) == 0, "write x3p: %s", err);
    CHECK(RD(p1, &b, err) == 0, "read x3p: %s", err);
    if (b.z) {
        same_surface(&a, &b, 0, "x3p round trip");
        CHECK(!strcmp(b.source_format, "x3p"), "source_format %s", b.source_format);
        CHECK(!strcmp(b.comment, a.comment), "comment '%s'", b.comment);
        CHECK(!strcmp(b.instrument, a.instrument), "instrument '%s'", b.instrument);
        CHECK(!strcmp(b.creator, "lwt"), "creator '%s'", b.creator);
        CHECK(WX3P(p2, &b, err) == 0, "write x3p again: %s", err);
        CHECK(RD(p2, &c, err) == 0, "read x3p again: %s", err);
        if (c.z)
            same_surface(&a, &c, 0, "x3p -> x3p -> x3p");
        CHECK(!strcmp(c.date, b.date), "date not kept: %s vs %s", c.date, b.date);
        lwt_surface_free(&c);
    }
    lwt_surface_free(&b);

    /* the archive: main.xml, bindata/data.bin, bindata/valid.bin, md5checksum.hex */
    {
        int zerr;
        zip_t *za = zip_open(p1, ZIP_RDONLY, &zerr);
        CHECK(za != NULL, "reopen x3p with libzip");
        if (za) {
            CHECK(zip_name_locate(za, "main.xml", 0) >= 0, "no main.xml");
            CHECK(zip_name_locate(za, "bindata/data.bin", 0) >= 0, "no data.bin");
            CHECK(zip_name_locate(za, "bindata/valid.bin", 0) >= 0, "no valid.bin although NaN points");
            CHECK(zip_name_locate(za, "md5checksum.hex", 0) >= 0, "no md5checksum.hex");
            zip_discard(za);
        }
    }

    /* SDF binary and ASCII */
    CHECK(WSDF(p3, &a, 1, err) == 0, "write sdf: %s", err);
    CHECK(RD(p3, &b, err) == 0, "read sdf: %s", err);
    if (b.z) {
        same_surface(&a, &b, 0, "binary sdf round trip");
        CHECK(!strcmp(b.source_format, "sdf"), "source_format %s", b.source_format);
        CHECK(WSDF(p3, &b, 1, err) == 0, "sdf -> sdf: %s", err);
        CHECK(RD(p3, &c, err) == 0, "read sdf again: %s", err);
        if (c.z)
            same_surface(&a, &c, 0, "sdf -> sdf");
        lwt_surface_free(&c);
    }
    lwt_surface_free(&b);
    CHECK(WSDF(p4, &a, 0, err) == 0, "write ascii sdf: %s", err);
    CHECK(RD(p4, &b, err) == 0, "read ascii sdf: %s", err);
    if (b.z) {
        /* %.17g and Zscale 1: exact, which is within any Zresolution */
        same_surface(&a, &b, 0, "ascii sdf round trip");
        CHECK(strstr(b.comment, "ExportedBy") != NULL, "trailer not read: '%s'", b.comment);
    }
    lwt_surface_free(&b);

    /* x3p without invalid points has no valid.bin */
    for (size_t i = 0; i < a.nx * a.ny; i++)
        if (isnan(a.z[i]))
            a.z[i] = 0.5e-6;
    CHECK(WX3P(p2, &a, err) == 0, "write x3p: %s", err);
    {
        int zerr;
        zip_t *za = zip_open(p2, ZIP_RDONLY, &zerr);
        if (za) {
            CHECK(zip_name_locate(za, "bindata/valid.bin", 0) < 0, "valid.bin written without NaN points");
            zip_discard(za);
        }
    }
    CHECK(RD(p2, &b, err) == 0, "read x3p: %s", err);
    if (b.z)
        same_surface(&a, &b, 0, "x3p without NaN");
    lwt_surface_free(&b);

    /* generic writer by extension */
    CHECK(WR(p2, &a, err) == 0, "lwt_surface_write x3p: %s", err);
    tpath(p2, sizeof p2, "synth.txt");
    CHECK(WR(p2, &a, err) == LWT_ERR_INVALID_ARGUMENT, "unknown extension accepted");
    CHECK(!file_exists(p2), "file written for unknown extension");
    lwt_surface_free(&a);

    /* one row and one column surfaces are still areal matrices */
    make_surface(&a, 1, 9, 1e-6, 1e-6, 0);
    tpath(p2, sizeof p2, "column.x3p");
    CHECK(WX3P(p2, &a, err) == 0, "write 1x9: %s", err);
    CHECK(RD(p2, &b, err) == 0, "read 1x9: %s", err);
    if (b.z)
        same_surface(&a, &b, 0, "1x9");
    lwt_surface_free(&b);
    lwt_surface_free(&a);
}

/* An X3P bigger than the writer's pieces: several 64 KiB conversion chunks, the first invalid
 * point in a later chunk (valid.bin made late), libzip's 8 KiB reads, more than the sink's
 * 1 MiB buffer, a stored data.bin read straight into the heights; non-finite values of every
 * kind written as the one NaN; the files lwt filter writes without fsync alike. */
static void test_x3p_pieces(void)
{
    const size_t nx = 401, ny = 400, n = nx * ny; /* 1.28 MB of heights, n odd per row */
    const size_t bad[4] = {100000, 100001, 150001, n - 1};
    char p1[600], p2[600], err[1024];
    lwt_surface a, b;
    tpath(p1, sizeof p1, "pieces.x3p");
    tpath(p2, sizeof p2, "pieces_nosync.x3p");
    make_surface(&a, nx, ny, 1e-6, 1e-6, 0);
    uint64_t payload = 0x7ff8000000001234ULL, negnan = 0xfff8000000000000ULL;
    a.z[bad[0]] = INFINITY;
    a.z[bad[1]] = -INFINITY;
    memcpy(&a.z[bad[2]], &payload, 8);
    memcpy(&a.z[bad[3]], &negnan, 8);
    CHECK(WX3P(p1, &a, err) == 0, "write pieces.x3p: %s", err);
    CHECK((test_log_reset(&tlog), logged(lwt__surface_write_x3p_sync(tctx, p2, &a, 0), err)) == 0,
          "write without fsync: %s", err);
    for (int f = 0; f < 2; f++) {
        const char *p = f ? p2 : p1;
        CHECK(RD(p, &b, err) == 0, "read %s: %s", p, err); /* the reader checks both MD5s */
        if (b.z) {
            for (int k = 0; k < 4; k++)
                a.z[bad[k]] = NAN;
            same_surface(&a, &b, 0, "x3p in pieces");
        }
        lwt_surface_free(&b);
        int zerr;
        zip_t *za = zip_open(p, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
        CHECK(za != NULL, "%s: libzip cannot open it", p);
        if (!za)
            continue;
        zip_stat_t st;
        zip_int64_t id = zip_name_locate(za, "bindata/data.bin", 0), iv = zip_name_locate(za, "bindata/valid.bin", 0);
        CHECK(id >= 0 && iv >= 0, "%s: data.bin and valid.bin", p);
        CHECK(id >= 0 && zip_stat_index(za, (zip_uint64_t)id, 0, &st) == 0 && st.comp_method == ZIP_CM_STORE &&
                  st.size == 8 * n,
              "%s: data.bin stored, 8 bytes a point", p);
        unsigned char *d = malloc(8 * n), *v = malloc(n / 8 + 1);
        zip_file_t *zd = id >= 0 ? zip_fopen_index(za, (zip_uint64_t)id, 0) : NULL;
        zip_file_t *zv = iv >= 0 ? zip_fopen_index(za, (zip_uint64_t)iv, 0) : NULL;
        CHECK(zd && zv && zip_fread(zd, d, 8 * n) == (zip_int64_t)(8 * n) &&
                  zip_fread(zv, v, n / 8 + 1) == (zip_int64_t)((n + 7) / 8),
              "%s: read data.bin and valid.bin (CRC checked at their end)", p);
        if (zd)
            CHECK(zip_fclose(zd) == 0, "%s: data.bin CRC", p);
        if (zv)
            zip_fclose(zv);
        size_t wrong_bits = 0, wrong_nan = 0;
        const double canon = NAN;
        for (size_t i = 0; i < n; i++) {
            int invalid = i == bad[0] || i == bad[1] || i == bad[2] || i == bad[3];
            wrong_bits += (size_t)(((v[i >> 3] >> (i & 7)) & 1) == invalid);
            unsigned char le[8];
            uint64_t u;
            memcpy(&u, &canon, 8);
            for (int k = 0; k < 8; k++)
                le[k] = (unsigned char)(u >> (8 * k));
            wrong_nan += (size_t)(invalid && memcmp(d + 8 * i, le, 8) != 0);
        }
        CHECK(wrong_bits == 0, "%s: %zu wrong bits in valid.bin", p, wrong_bits);
        CHECK(wrong_nan == 0, "%s: %zu invalid points not stored as the one NaN", p, wrong_nan);
        free(d);
        free(v);
        zip_discard(za);
    }
    lwt_surface_free(&a);
    no_temp_files_left();
}

static void test_inline_and_axes(void)
{
    char p[600], err[1024];
    lwt_surface s;
    tpath(p, sizeof p, "inline.x3p");

    /* inline DataList with an empty Datum, integer Z with Increment and Offset */
    const char *xml =
        "<?xml version=\"1.0\"?>\n<ISO5436_2><Record1><FeatureType>SUR</FeatureType><Axes>"
        "<CX><AxisType>I</AxisType><DataType>D</DataType><Increment>0.5e-6</Increment></CX>"
        "<CY><AxisType>I</AxisType><DataType>D</DataType><Increment>0.25e-6</Increment></CY>"
        "<CZ><AxisType>A</AxisType><DataType>I</DataType><Increment>1e-9</Increment><Offset>-2e-6</Offset></CZ>"
        "</Axes></Record1><Record3><MatrixDimension><SizeX>3</SizeX><SizeY>2</SizeY><SizeZ>1</SizeZ>"
        "</MatrixDimension><DataList><Datum>1</Datum><Datum>-2</Datum><Datum/>"
        "<Datum>300</Datum><Datum>  4 </Datum><Datum>5</Datum></DataList></Record3>"
        "<Record4><ChecksumFile>md5checksum.hex</ChecksumFile></Record4></ISO5436_2>";
    craft_x3p(p, xml, 0, 0, 1);
    CHECK(RD(p, &s, err) == 0, "inline: %s", err);
    if (s.z) {
        CHECK(s.nx == 3 && s.ny == 2, "inline size %zux%zu", s.nx, s.ny);
        CHECK(s.dx == 0.5e-6 && s.dy == 0.25e-6, "inline spacing");
        CHECK(s.z[0] == 1 * 1e-9 + -2e-6 && s.z[1] == -2 * 1e-9 + -2e-6, "inline values %.17g %.17g", s.z[0], s.z[1]);
        CHECK(isnan(s.z[2]) && s.z[3] == 300 * 1e-9 - 2e-6, "inline empty Datum");
    }
    lwt_surface_free(&s);

    /* absolute X axis, uniform: spacing derived */
    xml = "<?xml version=\"1.0\"?>\n<a:ISO5436_2 xmlns:a=\"x\"><a:Record1><a:FeatureType>SUR</a:FeatureType><a:Axes>"
          "<a:CX><a:AxisType>A</a:AxisType><a:DataType>D</a:DataType><a:Increment>1</a:Increment>"
          "<a:Offset>1e-3</a:Offset></a:CX>"
          "<a:CY><a:AxisType>I</a:AxisType><a:DataType>D</a:DataType><a:Increment>3e-6</a:Increment></a:CY>"
          "<a:CZ><a:AxisType>A</a:AxisType><a:DataType>D</a:DataType></a:CZ>"
          "</a:Axes></a:Record1><a:Record3><a:MatrixDimension><a:SizeX>3</a:SizeX><a:SizeY>2</a:SizeY>"
          "<a:SizeZ>1</a:SizeZ></a:MatrixDimension><a:DataList>"
          "<a:Datum>0;1e-6</a:Datum><a:Datum>2e-6;2e-6</a:Datum><a:Datum>4e-6;3e-6</a:Datum>"
          "<a:Datum>0;4e-6</a:Datum><a:Datum/><a:Datum>4e-6;6e-6</a:Datum>"
          "</a:DataList></a:Record3><a:Record4><a:ChecksumFile>md5checksum.hex</a:ChecksumFile></a:Record4>"
          "</a:ISO5436_2>";
    craft_x3p(p, xml, 0, 0, 1);
    CHECK(RD(p, &s, err) == 0, "absolute X: %s", err);
    if (s.z) {
        CHECK(fabs(s.dx - 2e-6) < 1e-18 && s.dy == 3e-6, "absolute X spacing %.17g %.17g", s.dx, s.dy);
        CHECK(s.z[1] == 2e-6 && isnan(s.z[4]), "absolute X values");
    }
    lwt_surface_free(&s);

    /* absolute X axis, not uniform: error */
    char *bad = malloc(strlen(xml) + 16);
    strcpy(bad, xml);
    char *q = strstr(bad, "4e-6;3e-6");
    q[0] = '5';
    craft_x3p(p, bad, 0, 0, 1);
    free(bad);
    expect_error(p, LWT_ERR_FORMAT, "not uniformly spaced", "non-uniform absolute X");
}

/* binary records with an absolute X axis (float32) and int32 Z, in a sub-folder with junk */
static void test_binary_absolute_subfolder(void)
{
    char p[600], err[1024], md5[33], chk[64];
    unsigned char rec[6 * 8];
    lwt_surface s;
    /* 3 x 2 points: x = 10 + 2*ix (times Increment 1e-6), z = 100*i (times 1e-9) */
    for (int i = 0; i < 6; i++) {
        float x = (float)(10 + 2 * (i % 3));
        uint32_t u;
        memcpy(&u, &x, 4);
        for (int b = 0; b < 4; b++) {
            rec[8 * i + b] = (unsigned char)(u >> (8 * b));
            rec[8 * i + 4 + b] = (unsigned char)((uint32_t)(100 * i) >> (8 * b));
        }
    }
    unsigned char valid = 0x3f & ~(1u << 4); /* point 4 invalid */
    md5hex(rec, sizeof rec, md5);
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ISO5436><Record1><FeatureType>SUR</FeatureType><Axes>"
             "<CX><AxisType>A</AxisType><DataType>F</DataType><Increment>1e-6</Increment><Offset>0</Offset></CX>"
             "<CY><AxisType>I</AxisType><DataType>D</DataType><Increment>5e-6</Increment><Offset/></CY>"
             "<CZ><AxisType>A</AxisType><DataType>L</DataType><Increment>1e-9</Increment><Offset/></CZ>"
             "</Axes></Record1><Record2><Date>2020-01-02T03:04:05</Date><Creator>someone</Creator></Record2>"
             "<Record3><MatrixDimension><SizeX>3</SizeX><SizeY>2</SizeY><SizeZ>1</SizeZ></MatrixDimension>"
             "<DataLink><PointDataLink>bindata/data.bin</PointDataLink><MD5ChecksumPointData>%s"
             "</MD5ChecksumPointData><ValidPointsLink>bindata/valid.bin</ValidPointsLink></DataLink></Record3>"
             "<Record4><ChecksumFile>md5checksum.hex</ChecksumFile></Record4></ISO5436>",
             md5);
    char mmd5[33];
    md5hex(xml, strlen(xml), mmd5);
    for (char *c = mmd5; *c; c++) /* upper case and no file name: both occur in the wild */
        if (*c >= 'a' && *c <= 'f')
            *c = (char)(*c - 'a' + 'A');
    snprintf(chk, sizeof chk, "%s\r\n", mmd5);
    entry e[6] = {{"scan/", "", 0},
                  {"__MACOSX/scan/._main.xml", "junk", 4},
                  {"scan/main.xml", xml, strlen(xml)},
                  {"scan/bindata/data.bin", rec, sizeof rec},
                  {"scan/bindata/valid.bin", &valid, 1},
                  {"scan/md5checksum.hex", chk, strlen(chk)}};
    tpath(p, sizeof p, "subfolder.x3p");
    write_zip(p, e, 6);
    CHECK(RD(p, &s, err) == 0, "sub-folder, binary absolute X: %s", err);
    if (s.z) {
        CHECK(s.nx == 3 && s.ny == 2, "size");
        CHECK(fabs(s.dx - 2e-6) < 1e-18 && s.dy == 5e-6, "spacing %.17g %.17g", s.dx, s.dy);
        CHECK(s.z[0] == 0 && s.z[5] == 500 * 1e-9 && isnan(s.z[4]), "values %g %g %g", s.z[0], s.z[5], s.z[4]);
        CHECK(!strcmp(s.date, "2020-01-02T03:04:05") && !strcmp(s.creator, "someone"), "metadata %s %s", s.date,
              s.creator);
    }
    lwt_surface_free(&s);

    /* the same with a wrong valid.bin size */
    e[4].len = 0;
    e[4].data = "";
    write_zip(p, e, 6);
    expect_error(p, LWT_ERR_FORMAT, "valid.bin", "valid.bin size");
}

static void test_npy(void)
{
    char p[600], err[1024];
    lwt_surface s;
    float f[6] = {1e-6f, 2e-6f, NAN, 4e-6f, INFINITY, 6e-6f};
    size_t shape2[2] = {2, 3}, shape1[1] = {6};
    tpath(p, sizeof p, "surface.npy");
    CHECK(npy_write(p, LWT_F32, 2, shape2, f, err, sizeof err) == 0, "npy_write: %s", err);
    CHECK(RD(p, &s, err) == 0, "read npy: %s", err);
    if (s.z) {
        CHECK(s.nx == 3 && s.ny == 2 && s.dx == 0 && s.dy == 0, "npy: %zux%zu, spacing %g %g", s.nx, s.ny, s.dx,
              s.dy);
        CHECK(s.z[1] == (double)2e-6f && isnan(s.z[2]) && isnan(s.z[4]), "npy values");
        CHECK(!strcmp(s.source_format, "npy"), "source_format %s", s.source_format);
        char q[600];
        tpath(q, sizeof q, "from_npy.x3p");
        CHECK(WX3P(q, &s, err) == LWT_ERR_INVALID_ARGUMENT && strstr(err, "spacing"),
              "x3p from npy without spacing: %s", err);
        s.dx = s.dy = 1e-6; /* what the caller does with the spacing from the command line */
        CHECK(WX3P(q, &s, err) == 0, "x3p from npy: %s", err);
    }
    lwt_surface_free(&s);
    /* float16 heights widened exactly: 0x3c00 = 1, 0x0001 = 2^-24 (subnormal), 0x7e00 NaN, 0xfc00 -inf */
    const uint16_t h[6] = {0x3c00, 0x0001, 0x7e00, 0xc000, 0xfc00, 0x7bff};
    tpath(p, sizeof p, "surface16.npy");
    CHECK(npy_write(p, LWT_F16, 2, shape2, h, err, sizeof err) == 0, "npy_write float16: %s", err);
    CHECK(RD(p, &s, err) == 0, "read float16 npy: %s", err);
    if (s.z)
        CHECK(s.nx == 3 && s.ny == 2 && s.z[0] == 1.0 && s.z[1] == ldexp(1.0, -24) && isnan(s.z[2]) &&
                  s.z[3] == -2.0 && isnan(s.z[4]) && s.z[5] == 65504.0,
              "float16 npy values %g %g %g %g", s.z[0], s.z[1], s.z[3], s.z[5]);
    lwt_surface_free(&s);
    tpath(p, sizeof p, "profile.npy");
    CHECK(npy_write(p, LWT_F32, 1, shape1, f, err, sizeof err) == 0, "npy_write: %s", err);
    expect_error(p, LWT_ERR_NOT_AREAL, "not an areal surface", "1-D npy");
}

static void test_bad_files(void)
{
    char p[600], good[600], err[1024];
    lwt_surface s;
    unsigned char *buf;
    size_t len;
    char md5[33];
    unsigned char data[16 * 8];
    for (int i = 0; i < 16; i++)
        lwt__put_lef64(data + 8 * i, 1e-6 * i);
    md5hex(data, sizeof data, md5);

    /* a valid crafted file first: the crafting itself is right */
    tpath(good, sizeof good, "crafted.x3p");
    craft_x3p(good, make_main_xml("SUR", 4, 4, md5, NULL), 0, 1, 1);
    CHECK(RD(good, &s, err) == 0, "crafted x3p: %s", err);
    if (s.z)
        CHECK(s.nx == 4 && s.ny == 4 && s.dx == 1e-6 && s.dy == 2e-6 && s.z[5] == 1e-6 * 5, "crafted x3p content");
    lwt_surface_free(&s);

    /* truncated zip */
    make_surface(&s, 64, 48, 1e-6, 1e-6, 1);
    tpath(p, sizeof p, "truncated.x3p");
    CHECK(WX3P(p, &s, err) == 0, "write: %s", err);
    lwt_surface_free(&s);
    if (lwt__read_whole_file(tctx, p, &buf, &len) == 0) {
        FILE *f = fopen(p, "wb");
        fwrite(buf, 1, len * 6 / 10, f);
        fclose(f);
        expect_error(p, LWT_ERR_FORMAT, "zip", "truncated zip");
        /* corrupt bytes inside data.bin's compressed stream */
        tpath(p, sizeof p, "corrupt.x3p");
        f = fopen(p, "wb");
        for (size_t i = len / 3; i < len / 3 + 16; i++)
            buf[i] ^= 0x5a;
        fwrite(buf, 1, len, f);
        fclose(f);
        expect_error(p, LWT_ERR_FORMAT, "corrupt", "corrupt zip entry");
        free(buf);
    }

    /* not a zip at all, with .x3p */
    tpath(p, sizeof p, "text.x3p");
    {
        FILE *f = fopen(p, "wb");
        fputs("hello, I am not a zip archive\n", f);
        fclose(f);
    }
    expect_error(p, LWT_ERR_FORMAT, "not a zip archive", "not a zip");

    /* wrong MD5 of main.xml */
    tpath(p, sizeof p, "wrongmd5.x3p");
    craft_x3p(p, make_main_xml("SUR", 4, 4, md5, NULL), 1, 1, 1);
    expect_error(p, LWT_ERR_CHECKSUM, "MD5 checksum of main.xml", "wrong main.xml MD5");

    /* wrong MD5 of data.bin */
    tpath(p, sizeof p, "wrongdatamd5.x3p");
    char wrong[33];
    memcpy(wrong, md5, 33);
    wrong[5] = wrong[5] == 'a' ? 'b' : 'a';
    craft_x3p(p, make_main_xml("SUR", 4, 4, wrong, NULL), 0, 1, 1);
    expect_error(p, LWT_ERR_CHECKSUM, "MD5ChecksumPointData", "wrong data.bin MD5");

    /* missing main.xml */
    tpath(p, sizeof p, "nomain.x3p");
    craft_x3p(p, make_main_xml("SUR", 4, 4, md5, NULL), 0, 1, 0);
    expect_error(p, LWT_ERR_FORMAT, "missing main.xml", "missing main.xml");

    /* missing data file */
    tpath(p, sizeof p, "nodata.x3p");
    craft_x3p(p, make_main_xml("SUR", 4, 4, md5, NULL), 0, 0, 1);
    expect_error(p, LWT_ERR_FORMAT, "missing data file", "missing data.bin");

    /* header / data size mismatch */
    tpath(p, sizeof p, "mismatch.x3p");
    craft_x3p(p, make_main_xml("SUR", 5, 4, md5, NULL), 0, 1, 1);
    expect_error(p, LWT_ERR_FORMAT, "size mismatch", "size mismatch");
    tpath(p, sizeof p, "mismatch_list.x3p");
    craft_x3p(p, make_main_xml("SUR", 2, 2, NULL, "<Datum>1</Datum><Datum>2</Datum><Datum>3</Datum>"), 0, 0, 1);
    expect_error(p, LWT_ERR_FORMAT, "size mismatch", "size mismatch (list)");
    tpath(p, sizeof p, "huge.x3p");
    craft_x3p(p, make_main_xml("SUR", (size_t)1 << 40, (size_t)1 << 40, md5, NULL), 0, 1, 1);
    expect_error(p, LWT_ERR_OUT_OF_MEMORY, "too large", "huge dimensions");

    /* all points invalid */
    tpath(p, sizeof p, "allinvalid.x3p");
    craft_x3p(p, make_main_xml("SUR", 2, 2, NULL, "<Datum/><Datum/><Datum></Datum><Datum/>"), 0, 0, 1);
    expect_error(p, LWT_ERR_NO_DATA, "all points are invalid", "all invalid (list)");
    make_surface(&s, 5, 4, 1e-6, 1e-6, 0);
    for (size_t i = 0; i < 20; i++)
        s.z[i] = NAN;
    tpath(p, sizeof p, "allnan.x3p");
    CHECK(WX3P(p, &s, err) == 0, "write all-NaN: %s", err);
    expect_error(p, LWT_ERR_NO_DATA, "all points are invalid", "all invalid (valid.bin)");
    tpath(p, sizeof p, "allnan.sdf");
    CHECK(WSDF(p, &s, 0, err) == 0, "write all-NaN sdf: %s", err);
    expect_error(p, LWT_ERR_NO_DATA, "all points are invalid", "all invalid (sdf)");
    lwt_surface_free(&s);

    /* profile and point cloud */
    tpath(p, sizeof p, "profile.x3p");
    craft_x3p(p, make_main_xml("PRF", 4, 4, md5, NULL), 0, 1, 1);
    expect_error(p, LWT_ERR_NOT_AREAL, "not an areal surface", "profile");
    tpath(p, sizeof p, "cloud.x3p");
    craft_x3p(p, make_main_xml("PCL", 4, 4, md5, NULL), 0, 1, 1);
    expect_error(p, LWT_ERR_NOT_AREAL, "not an areal surface", "point cloud");

    /* malformed XML */
    tpath(p, sizeof p, "badxml.x3p");
    craft_x3p(p, "<?xml version=\"1.0\"?><ISO5436_2><Record1></Record2></ISO5436_2>", 0, 1, 1);
    expect_error(p, LWT_ERR_FORMAT, "not well-formed", "malformed XML");

    /* SDF: truncated binary, short ASCII, wrong magic */
    make_surface(&s, 10, 10, 1e-6, 1e-6, 0);
    tpath(p, sizeof p, "trunc.sdf");
    CHECK(WSDF(p, &s, 1, err) == 0, "write sdf: %s", err);
    CHECK(truncate(p, 81 + 8 * 99) == 0, "truncate");
    expect_error(p, LWT_ERR_FORMAT, "size mismatch", "truncated binary sdf");
    tpath(p, sizeof p, "short.sdf");
    {
        FILE *f = fopen(p, "wb");
        fputs("aISO-1.0\nManufacID = x\nNumPoints = 3\nNumProfiles = 2\nXscale = 1e-6\nYscale = 1e-6\n"
              "Zscale = 1e-6\nZresolution = -1\nCompression = 0\nDataType = 7\nCheckType = 0\n*\n"
              "1 2 3\n4 BAD\n*\n*\n",
              f);
        fclose(f);
    }
    expect_error(p, LWT_ERR_FORMAT, "size mismatch", "short ascii sdf");
    tpath(p, sizeof p, "nosdf.sdf");
    {
        FILE *f = fopen(p, "wb");
        fputs("xyz\n1 2 3\n", f);
        fclose(f);
    }
    expect_error(p, LWT_ERR_FORMAT, "not an SDF file", "wrong sdf magic");
    lwt_surface_free(&s);

    /* ASCII SDF with BAD and integer data type */
    tpath(p, sizeof p, "bad.sdf");
    {
        FILE *f = fopen(p, "wb");
        fputs("aBCR-1.0\r\nManufacID = x\r\nCreateDate = 040120100853\r\nModDate = 040120100853\r\n"
              "NumPoints = 3\r\nNumProfiles = 2\r\nXscale = 1e-6\r\nYscale = 2e-6\r\n"
              "Zscale = 1e-9\r\nZresolution = 1e-9\r\nCompression = 0\r\nDataType = 6\r\nCheckType = 0\r\n*\r\n"
              "1 2 3\r\n4 BAD -6\r\n*\r\n< OperatorName > Tom < / OperatorName >\r\n*\r\n",
              f);
        fclose(f);
    }
    CHECK(RD(p, &s, err) == 0, "ascii sdf with BAD: %s", err);
    if (s.z) {
        CHECK(s.nx == 3 && s.ny == 2 && s.dx == 1e-6 && s.dy == 2e-6, "ascii sdf header");
        CHECK(s.z[0] == 1e-9 && isnan(s.z[4]) && s.z[5] == -6 * 1e-9, "ascii sdf values");
        CHECK(s.z_resolution == 1e-9, "Zresolution %g", s.z_resolution);
        CHECK(!strcmp(s.date, "2010-01-04T08:53:00"), "CreateDate -> %s", s.date);
    }
    lwt_surface_free(&s);

    /* no such file, unknown format, empty file */
    tpath(p, sizeof p, "does_not_exist.x3p");
    expect_error(p, LWT_ERR_IO, "cannot open", "missing file");
    tpath(p, sizeof p, "junk.dat");
    {
        FILE *f = fopen(p, "wb");
        fputs("junk junk junk junk", f);
        fclose(f);
    }
    expect_error(p, LWT_ERR_FORMAT, "unrecognised", "unknown format");
    tpath(p, sizeof p, "empty.sur");
    fclose(fopen(p, "wb"));
    expect_error(p, LWT_ERR_FORMAT, "empty file", "empty file");
    tpath(p, sizeof p, "short.sur");
    {
        FILE *f = fopen(p, "wb");
        fputs("DIGITAL SURF and not much more", f);
        fclose(f);
    }
    expect_error(p, LWT_ERR_FORMAT, "truncated", "truncated sur");
    tpath(p, sizeof p, "short.plu");
    {
        FILE *f = fopen(p, "wb");
        fputs("Fri Mar 10 16:35:59 2023", f);
        fclose(f);
    }
    expect_error(p, LWT_ERR_FORMAT, "truncated", "truncated plu");
}

/* The convention itself: a failing read logs exactly one line, at level error, naming the file;
   without a context it fails the same way, silently. */
static void test_one_message(void)
{
    char p[600];
    lwt_surface s;
    tpath(p, sizeof p, "no_such_file.x3p");
    test_log_reset(&tlog);
    CHECK(lwt_surface_read(tctx, p, &s) == LWT_ERR_IO && tlog.errors == 1 && strstr(tlog.last, "no_such_file.x3p") &&
              strstr(tlog.last, "cannot open"),
          "missing file: %d messages, last '%s'", tlog.errors, tlog.last);
    CHECK(lwt_surface_read(NULL, p, &s) == LWT_ERR_IO && s.z == NULL, "missing file without a context");
    test_log_reset(&tlog);
    CHECK(lwt_surface_read_sdf(tctx, p, &s) == LWT_ERR_IO && tlog.errors == 1, "sdf reader: %d messages", tlog.errors);
    test_log_reset(&tlog);
}

static void test_no_partial_output(void)
{
    char p[600], err[1024];
    lwt_surface s;
    make_surface(&s, 8, 8, 1e-6, 1e-6, 1);

    tpath(p, sizeof p, "no_such_dir/out.x3p");
    CHECK(WX3P(p, &s, err) == LWT_ERR_IO, "write into missing dir: %s", err);
    CHECK(strstr(err, "out.x3p") != NULL, "message names the file: %s", err);
    tpath(p, sizeof p, "no_such_dir/out.sdf");
    CHECK(WSDF(p, &s, 1, err) == LWT_ERR_IO, "write sdf into missing dir");

    /* the target is a directory: the rename fails, the temporary file must go */
    tpath(p, sizeof p, "adir.x3p");
    mkdir(p, 0777);
    CHECK(WX3P(p, &s, err) == LWT_ERR_IO, "write over a directory: %s", err);
    tpath(p, sizeof p, "adir.sdf");
    mkdir(p, 0777);
    CHECK(WSDF(p, &s, 0, err) == LWT_ERR_IO, "sdf over a directory: %s", err);

    /* unknown spacing */
    s.dx = 0;
    tpath(p, sizeof p, "nospacing.x3p");
    CHECK(WX3P(p, &s, err) == LWT_ERR_INVALID_ARGUMENT, "dx = 0 accepted");
    CHECK(!file_exists(p), "file left after failed write");
    tpath(p, sizeof p, "nospacing.sdf");
    CHECK(WSDF(p, &s, 1, err) == LWT_ERR_INVALID_ARGUMENT, "sdf dx = 0 accepted");
    CHECK(!file_exists(p), "file left after failed write");
    lwt_surface_free(&s);

    /* too wide for binary SDF */
    make_surface(&s, 70000, 1, 1e-6, 1e-6, 0);
    tpath(p, sizeof p, "wide.sdf");
    CHECK(WSDF(p, &s, 1, err) == LWT_ERR_INVALID_ARGUMENT, "70000 points in binary SDF");
    CHECK(!file_exists(p), "file left after failed write");
    lwt_surface_free(&s);

    /* a failed write leaves an existing target untouched */
    make_surface(&s, 4, 4, 1e-6, 1e-6, 0);
    tpath(p, sizeof p, "keep.x3p");
    CHECK(WX3P(p, &s, err) == 0, "write: %s", err);
    s.dy = -1;
    CHECK(WX3P(p, &s, err) != 0, "dy < 0 accepted");
    lwt_surface t;
    CHECK(RD(p, &t, err) == 0 && t.dy == 1e-6, "existing file damaged by failed write");
    lwt_surface_free(&t);
    lwt_surface_free(&s);

    /* empty surface */
    lwt_surface_init(&s);
    CHECK(WX3P(p, &s, err) == LWT_ERR_INVALID_ARGUMENT, "empty surface accepted");

    no_temp_files_left();
}

/* ------------------------------------------------------------------ crafted .sur and .plu */
/* Small valid Digital Surf and Sensofar files written byte by byte from the layouts in
 * docs/FORMATS.md and at the top of src/io/sur.c and src/io/plu.c, with known raw values: the
 * readers must give exactly the heights, spacing and units those layouts define. Exact because
 * the expected heights use the reader's own operations in the same order, and C11 mode does not
 * contract them into fused multiply-adds. These run on a fresh clone; the real files in
 * $LWT_SHARED (test_surface_io --shared) are a second check where they exist. */

static void put_u32(unsigned char *p, uint32_t v)
{
    lwt__put_le16(p, (uint16_t)(v & 0xffff));
    lwt__put_le16(p + 2, (uint16_t)(v >> 16));
}

static void put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(p, u);
}

static void write_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n, "cannot write %s", path);
    if (f)
        fclose(f);
}

typedef struct sur_spec {
    unsigned type, bits, special;    /* object type (2 surface), 16|32, non-measured flag */
    int32_t zmin;                    /* raw zmin - 2 marks an invalid point when special == 1 */
    int nx, ny;
    float sx, sy, sz, zoff;          /* spacing and z offset, in the step units below */
    const char *ux, *uy, *uz;        /* step units (Latin-1) */
    const char *comment;             /* the comment zone */
    size_t private_size;             /* a private zone of junk the reader must skip */
    const int32_t *raw;              /* nx * ny points, x fast */
} sur_spec;

static void craft_sur(const char *path, const sur_spec *c)
{
    const size_t nc = strlen(c->comment), es = c->bits / 8, n = (size_t)c->nx * (size_t)c->ny;
    const size_t len = 512 + nc + c->private_size + n * es;
    unsigned char *b = calloc(1, len);
    if (!b)
        exit(1);
    memcpy(b, "DIGITAL SURF", 12);
    lwt__put_le16(b + 12, 0); /* PC byte order */
    lwt__put_le16(b + 14, 1); /* one object */
    lwt__put_le16(b + 16, 1); /* version */
    lwt__put_le16(b + 18, (uint16_t)c->type);
    memcpy(b + 20, "crafted object", 14);
    memcpy(b + 50, "lwt test", 8); /* operator name */
    lwt__put_le16(b + 86, (uint16_t)c->special);
    lwt__put_le16(b + 98, (uint16_t)c->bits);
    put_u32(b + 100, (uint32_t)c->zmin);
    put_u32(b + 104, (uint32_t)INT32_MAX);
    put_u32(b + 108, (uint32_t)c->nx);
    put_u32(b + 112, (uint32_t)c->ny);
    put_u32(b + 116, (uint32_t)n);
    put_f32(b + 120, c->sx);
    put_f32(b + 124, c->sy);
    put_f32(b + 128, c->sz);
    memcpy(b + 132, "X", 1);
    memcpy(b + 148, "Y", 1);
    memcpy(b + 164, "Z", 1);
    const char *units[3] = {c->ux, c->uy, c->uz};
    for (int k = 0; k < 3; k++) {
        memcpy(b + 180 + 16 * k, units[k], strlen(units[k])); /* step units */
        memcpy(b + 228 + 16 * k, units[k], strlen(units[k])); /* length units */
    }
    const uint16_t when[6] = {59, 35, 16, 10, 3, 2023}; /* s, min, h, day, month, year */
    for (int k = 0; k < 6; k++)
        lwt__put_le16(b + 306 + 2 * k, when[k]);
    lwt__put_le16(b + 334, (uint16_t)nc);
    lwt__put_le16(b + 336, (uint16_t)c->private_size);
    put_f32(b + 474, c->zoff);
    memcpy(b + 512, c->comment, nc);
    memset(b + 512 + nc, 0xee, c->private_size);
    unsigned char *d = b + 512 + nc + c->private_size;
    for (size_t i = 0; i < n; i++, d += es)
        if (es == 2)
            lwt__put_le16(d, (uint16_t)(int16_t)c->raw[i]);
        else
            put_u32(d, (uint32_t)c->raw[i]);
    write_bytes(path, b, len);
    free(b);
}

/* what the format says the file holds: height = raw * Zspacing * unit + Zoffset * unit */
static void sur_expected(lwt_surface *e, const sur_spec *c, double fx, double fy, double fz)
{
    if (lwt_surface_alloc(NULL, e, (size_t)c->nx, (size_t)c->ny) != 0)
        exit(1);
    e->dx = (double)c->sx * fx;
    e->dy = (double)c->sy * fy;
    const double scale = (double)c->sz * fz, shift = (double)c->zoff * fz;
    for (size_t i = 0; i < e->nx * e->ny; i++)
        e->z[i] = c->special == 1 && c->raw[i] == c->zmin - 2 ? NAN : (double)c->raw[i] * scale + shift;
}

static void test_crafted_sur(void)
{
    char p[600], err[1024];
    lwt_surface s, e;
    /* int16, Latin-1 "µm" / "um" / "nm", the non-measured flag set, a comment and a private zone */
    int32_t raw16[15];
    for (int i = 0; i < 15; i++)
        raw16[i] = 7 * i - 40;
    raw16[0] = -32768; /* the int16 extremes keep their sign */
    raw16[14] = 32767;
    raw16[6] = -102;   /* zmin - 2: not measured */
    const sur_spec a = {2, 16, 1, -100, 5, 3, 0.5f, 0.25f, 0.3f, 1.5f, "\xb5m", "um", "nm", "crafted comment", 5, raw16};
    tpath(p, sizeof p, "crafted16.sur");
    craft_sur(p, &a);
    CHECK(RD(p, &s, err) == 0, "crafted int16 .sur: %s", err);
    if (s.z) {
        sur_expected(&e, &a, 1e-6, 1e-6, 1e-9);
        same_surface(&e, &s, 0, "crafted int16 .sur");
        CHECK(isnan(s.z[6]) && lwt_surface_count_valid(&s) == 14, "crafted int16 .sur: %zu valid points, want 14",
              lwt_surface_count_valid(&s));
        CHECK(s.z[0] == -32768 * (0.3f * 1e-9) + 1.5f * 1e-9 && s.dx == 0.5e-6 && s.dy == 0.25e-6,
              "crafted int16 .sur: z[0] %.17g, spacing %.17g %.17g", s.z[0], s.dx, s.dy);
        CHECK(!strcmp(s.source_format, "sur") && !strcmp(s.comment, "crafted comment") &&
                  !strcmp(s.creator, "lwt test") && !strcmp(s.date, "2023-03-10T16:35:59"),
              "crafted int16 .sur metadata: '%s' '%s' '%s' '%s'", s.source_format, s.comment, s.creator, s.date);
        lwt_surface_free(&e);
    }
    lwt_surface_free(&s);

    /* int32, "mm" spacing as float32 (taken as stored: 0.003484f mm is 3.483999986201525 um, not
       3.484), "m" heights; the flag clear, so zmin - 2 is an ordinary height; no comment: the
       object name */
    const int32_t raw32[12] = {-2000000000, 3, 2000000000, 0, 1, -1, 123456789, -987654, 3, 42, -42, 7};
    const sur_spec b = {2, 32, 0, 5, 3, 4, 0.003484f, 0.001f, 1e-9f, -2.5e-7f, "mm", "mm", "m", "", 0, raw32};
    tpath(p, sizeof p, "crafted32.sur");
    craft_sur(p, &b);
    CHECK(RD(p, &s, err) == 0, "crafted int32 .sur: %s", err);
    if (s.z) {
        sur_expected(&e, &b, 1e-3, 1e-3, 1.0);
        same_surface(&e, &s, 0, "crafted int32 .sur");
        CHECK(lwt_surface_count_valid(&s) == 12 && s.dx == 3.483999986201525e-06,
              "crafted int32 .sur: %zu valid points (want 12), dx %.17g", lwt_surface_count_valid(&s), s.dx);
        CHECK(!strcmp(s.comment, "crafted object"), "crafted int32 .sur: comment '%s'", s.comment);
        lwt_surface_free(&e);
    }
    lwt_surface_free(&s);

    /* the same file as a profile (object type 1) is not an areal surface */
    sur_spec prof = b;
    prof.type = 1;
    tpath(p, sizeof p, "crafted_profile.sur");
    craft_sur(p, &prof);
    expect_error(p, LWT_ERR_NOT_AREAL, "not an areal surface", "crafted profile .sur");
}

/* Sensofar PLu: date, time, comment, calibration at 388 (mppx at 404, mppy at 408), measurement
 * type at 428, layers at 489, then at 500 yres, xres and the float32 heights in micrometres. */
static void craft_plu(const char *path, uint32_t type, const char *comment, float mppx, float mppy, int xres,
                      int yres, const float *um)
{
    const size_t n = (size_t)xres * (size_t)yres, len = 508 + 4 * n;
    unsigned char *b = calloc(1, len);
    if (!b)
        exit(1);
    memcpy(b, "Fri Mar 10 16:35:59 2023", 24);
    put_u32(b + 128, 1678466159u);
    memcpy(b + 132, comment, strlen(comment));
    put_u32(b + 388, (uint32_t)yres);
    put_u32(b + 392, (uint32_t)xres);
    put_f32(b + 400, 1.0f);
    put_f32(b + 404, mppx);
    put_f32(b + 408, mppy);
    put_u32(b + 428, type);
    put_u32(b + 428 + 28, (uint32_t)xres);
    put_u32(b + 428 + 32, (uint32_t)yres);
    b[489] = 1; /* layers */
    put_u32(b + 500, (uint32_t)yres);
    put_u32(b + 504, (uint32_t)xres);
    for (size_t i = 0; i < n; i++)
        put_f32(b + 508 + 4 * i, um[i]);
    write_bytes(path, b, len);
    free(b);
}

static void test_crafted_plu(void)
{
    char p[600], err[1024];
    lwt_surface s;
    float um[12];
    for (int i = 0; i < 12; i++)
        um[i] = -111.23046875f + 0.8125f * (float)i;
    um[5] = 1000001.0f; /* not measured */
    um[9] = NAN;
    tpath(p, sizeof p, "crafted.plu");
    craft_plu(p, 3, "(None)", 1.66f, 0.83f, 4, 3, um);
    CHECK(RD(p, &s, err) == 0, "crafted .plu: %s", err);
    if (s.z) {
        CHECK(s.nx == 4 && s.ny == 3, "crafted .plu: %zu x %zu, want 4 x 3", s.nx, s.ny);
        CHECK(s.dx == (double)1.66f * 1e-6 && s.dy == (double)0.83f * 1e-6, "crafted .plu: spacing %.17g %.17g",
              s.dx, s.dy);
        int bad = 0;
        for (size_t i = 0; i < 12 && s.nx * s.ny == 12; i++)
            bad += i == 5 || i == 9 ? !isnan(s.z[i]) : s.z[i] != (double)um[i] * 1e-6;
        CHECK(bad == 0, "crafted .plu: %d heights differ from the file's micrometres", bad);
        CHECK(!strcmp(s.source_format, "plu") && s.comment[0] == 0 && !strcmp(s.instrument, "Sensofar") &&
                  !strcmp(s.date, "Fri Mar 10 16:35:59 2023"),
              "crafted .plu metadata: '%s' '%s' '%s' '%s'", s.source_format, s.comment, s.instrument, s.date);
    }
    lwt_surface_free(&s);
    tpath(p, sizeof p, "crafted_comment.plu");
    craft_plu(p, 3, "probe A", 0.5f, 0.5f, 2, 6, um);
    CHECK(RD(p, &s, err) == 0, "crafted .plu with a comment: %s", err);
    if (s.z)
        CHECK(s.nx == 2 && s.ny == 6 && !strcmp(s.comment, "probe A") && s.z[2] == (double)um[2] * 1e-6,
              "crafted .plu 2 x 6: %zu x %zu, comment '%s'", s.nx, s.ny, s.comment);
    lwt_surface_free(&s);
    tpath(p, sizeof p, "crafted_profile.plu");
    craft_plu(p, 1, "", 1.0f, 1.0f, 4, 3, um);
    expect_error(p, LWT_ERR_NOT_AREAL, "not an areal surface", "crafted profile .plu");
}

/* ------------------------------------------------------------------ hostile inputs (issue 29) */

/* A reader that blocks (a FIFO with no writer) fails the test instead of hanging it. */
static void on_alarm(int sig)
{
    static const char m[] = "FAIL: a surface reader blocked (a FIFO or device as input)\n";
    (void)sig;
    if (write(2, m, sizeof m - 1) < 0) {
    }
    _exit(1);
}

typedef lwt_status (*surface_reader)(lwt_context *, const char *, lwt_surface *);
static const surface_reader all_readers[] = {lwt_surface_read,     lwt_surface_read_x3p, lwt_surface_read_sdf,
                                             lwt_surface_read_sur, lwt_surface_read_plu, lwt_surface_read_npy,
                                             lwt_surface_read_gwy, lwt_surface_read_plux, lwt_surface_read_datx};

static void expect_refused(const char *path, const char *needle, const char *what)
{
    for (size_t r = 0; r < sizeof all_readers / sizeof all_readers[0]; r++) {
        char err[1024];
        lwt_surface s;
        test_log_reset(&tlog);
        lwt_status rc = logged(all_readers[r](tctx, path, &s), err);
        CHECK(rc == LWT_ERR_IO, "%s, reader %zu: return %d, expected LWT_ERR_IO (%s)", what, r, (int)rc, err);
        CHECK(strstr(err, path) && strstr(err, needle), "%s, reader %zu: message lacks '%s': %s", what, r, needle,
              err);
        CHECK(s.z == NULL, "%s, reader %zu: output not empty", what, r);
        lwt_surface_free(&s);
    }
}

/* Directories, FIFOs and devices are refused at once, saying what the path is (item 3). */
static void test_non_regular(void)
{
    static const char *const exts[] = {"x3p", "sdf", "sur", "plu", "npy", "gwy", "dat", "plux", "datx"};
    char p[600], name[64];
    signal(SIGALRM, on_alarm);
    alarm(30);
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
        snprintf(name, sizeof name, "folder.%s", exts[e]);
        tpath(p, sizeof p, name);
        CHECK(mkdir(p, 0700) == 0, "mkdir %s: %s", p, strerror(errno));
        expect_refused(p, "is a directory", "a directory");
        snprintf(name, sizeof name, "fifo.%s", exts[e]);
        tpath(p, sizeof p, name);
        CHECK(mkfifo(p, 0600) == 0, "mkfifo %s: %s", p, strerror(errno));
        expect_refused(p, "is a FIFO", "a FIFO");
    }
    struct stat st;
    if (stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode))
        expect_refused("/dev/null", "is a character device", "a device");
    alarm(0);
    signal(SIGALRM, SIG_DFL);
}

/* the MD5 of the data.bin craft_x3p writes */
static void crafted_data_md5(char md5[33])
{
    unsigned char data[16 * 8];
    for (int i = 0; i < 16; i++)
        lwt__put_lef64(data + 8 * i, 1e-6 * i);
    md5hex(data, sizeof data, md5);
}

/* An element name or path the X3P parser cannot hold is refused, not dropped from the path
 * (item 4): here FeatureType would otherwise be read as Record1's own. */
static void test_x3p_long_names(void)
{
    char p[600], md5[33];
    crafted_data_md5(md5);
    const char *xml = make_main_xml("SUR", 4, 4, md5, NULL);
    const char *ft = strstr(xml, "<FeatureType>");
    const char *ftend = strstr(xml, "</FeatureType>") + strlen("</FeatureType>");
    size_t cap = strlen(xml) + 8192;
    char *doc = malloc(cap), longname[1101];
    memset(longname, 'A', 1100);
    longname[1100] = 0;
    int k = snprintf(doc, cap, "%.*s<%s>%.*s</%s>%s", (int)(ft - xml), xml, longname, (int)(ftend - ft), ft,
                     longname, ftend);
    CHECK(k > 0 && (size_t)k < cap, "long-name main.xml fits");
    tpath(p, sizeof p, "long_name.x3p");
    craft_x3p(p, doc, 0, 1, 1);
    expect_error(p, LWT_ERR_FORMAT, "too long", "an element name longer than the parser's path");
    /* a path too long although every name is short: 40 nested names of 40 characters */
    size_t o = (size_t)(ft - xml);
    memcpy(doc, xml, o);
    for (int i = 0; i < 40; i++)
        o += (size_t)snprintf(doc + o, cap - o, "<N%02d_____________________________________>", i);
    o += (size_t)snprintf(doc + o, cap - o, "%.*s", (int)(ftend - ft), ft);
    for (int i = 39; i >= 0; i--)
        o += (size_t)snprintf(doc + o, cap - o, "</N%02d_____________________________________>", i);
    snprintf(doc + o, cap - o, "%s", ftend);
    tpath(p, sizeof p, "long_path.x3p");
    craft_x3p(p, doc, 0, 1, 1);
    expect_error(p, LWT_ERR_FORMAT, "too long", "a path longer than the parser's path buffer");
    /* deeper than the parser follows */
    o = (size_t)(ft - xml);
    memcpy(doc, xml, o);
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(doc + o, cap - o, "<d>");
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(doc + o, cap - o, "</d>");
    snprintf(doc + o, cap - o, "%s", ft);
    tpath(p, sizeof p, "deep.x3p");
    craft_x3p(p, doc, 0, 1, 1);
    expect_error(p, LWT_ERR_FORMAT, "nested too deep", "elements nested deeper than the parser follows");
    free(doc);
}

/* Binary (and ASCII) SDF files mark non-measured points with -DBL_MAX or +DBL_MAX (surfalize
 * writes them): read as invalid points, not as heights (issue 27). */
/* the 3 x 2 SDF at p holds 1.5, marker, 2.5, marker, -3, 0.25 (times Zscale 1e-6): the markers
   must be invalid points, the rest heights */
static void check_sdf_marks(const char *p, const char *what)
{
    char err[1024];
    lwt_surface s;
    CHECK(RD(p, &s, err) == 0, "%s: %s", what, err);
    if (s.z && s.nx * s.ny == 6)
        CHECK(isnan(s.z[1]) && isnan(s.z[3]) && s.z[0] == 1.5e-6 && s.z[5] == 0.25e-6 &&
                  lwt_surface_count_valid(&s) == 4,
              "%s: markers read as heights: %g %g, %zu valid", what, s.z[1], s.z[3], lwt_surface_count_valid(&s));
    lwt_surface_free(&s);
}

/* a 3 x 2 binary SDF of float64 (type 7) or float32 (type 3) values v, Zscale 1e-6, checked */
static void binary_sdf_marks(const char *name, int type, const double v[6], const char *what)
{
    char p[600];
    const size_t es = type == 7 ? 8 : 4;
    unsigned char b[81 + 6 * 8];
    memset(b, 0, sizeof b);
    memcpy(b, "bISO-1.0", 8);
    memset(b + 8, ' ', 34);
    lwt__put_le16(b + 42, 3); /* NumPoints */
    lwt__put_le16(b + 44, 2); /* NumProfiles */
    lwt__put_lef64(b + 46, 1e-6);
    lwt__put_lef64(b + 54, 2e-6);
    lwt__put_lef64(b + 62, 1e-6); /* Zscale */
    lwt__put_lef64(b + 70, -1);
    b[79] = (unsigned char)type;
    for (int i = 0; i < 6; i++)
        if (es == 8)
            lwt__put_lef64(b + 81 + 8 * i, v[i]);
        else
            put_f32(b + 81 + 4 * i, (float)v[i]);
    tpath(p, sizeof p, name);
    write_bytes(p, b, 81 + 6 * es);
    check_sdf_marks(p, what);
}

static void test_sdf_dbl_max(void)
{
    char p[600];
    const double v[6] = {1.5, -DBL_MAX, 2.5, DBL_MAX, -3.0, 0.25};
    const double fv[6] = {1.5, -FLT_MAX, 2.5, FLT_MAX, -3.0, 0.25};
    binary_sdf_marks("dblmax.sdf", 7, v, "binary SDF, float64 -DBL_MAX/+DBL_MAX");
    binary_sdf_marks("fltmax.sdf", 3, fv, "binary SDF, float32 -FLT_MAX/+FLT_MAX");
    /* ASCII, the values written out in full */
    tpath(p, sizeof p, "dblmax_ascii.sdf");
    FILE *a = fopen(p, "w");
    if (a) {
        fprintf(a, "aISO-1.0\nNumPoints = 3\nNumProfiles = 2\nXscale = 1e-6\nYscale = 1e-6\nZscale = 1e-6\n"
                   "DataType = 7\n*\n1.5 %.17g 2.5\n%.17g -3 0.25\n*\n*\n",
                -DBL_MAX, DBL_MAX);
        fclose(a);
    }
    check_sdf_marks(p, "ASCII SDF, -DBL_MAX/+DBL_MAX");
}

/* ---- resource limits (item 2): a header is checked before the data is read */

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* patch a little-endian u32 at offset off of the file at path */
static void patch_u32(const char *path, long off, uint32_t v)
{
    unsigned char b[4];
    put_u32(b, v);
    FILE *f = fopen(path, "r+b");
    CHECK(f && fseek(f, off, SEEK_SET) == 0 && fwrite(b, 1, 4, f) == 4, "cannot patch %s", path);
    if (f)
        fclose(f);
}

/* extend the file at path to 3 GiB with a hole (no disk space, no time) */
static int make_sparse(const char *path)
{
    int ok = truncate(path, (off_t)3 << 30) == 0;
    if (!ok)
        printf("note: no sparse 3 GiB file here (%s): skipped\n", strerror(errno));
    return ok;
}

/* expect_error, and it must come at once, without reading the file or allocating its size */
static void expect_fast_error(const char *path, int code, const char *needle, const char *what)
{
    long rss0 = peak_rss_kb();
    double t0 = now_s();
    expect_error(path, code, needle, what);
    double dt = now_s() - t0;
    long grown = peak_rss_kb() - rss0;
    CHECK(dt < 1.0, "%s: %.2f s to fail, want < 1 s (was the whole file read?)", what, dt);
    CHECK(grown < 64 * 1024, "%s: peak memory grew by %ld MiB while failing", what, grown / 1024);
}

static void test_sparse_headers(void)
{
    char p[600];
    const int32_t raw[4] = {1, 2, 3, 4};
    sur_spec c = {0, 16, 0, 0, 2, 2, 1, 1, 1, 0, "um", "um", "um", "", 0, raw};
    /* a Digital Surf header of an unsupported object type, then 3 GiB */
    tpath(p, sizeof p, "sparse_type0.sur");
    craft_sur(p, &c);
    if (make_sparse(p))
        expect_fast_error(p, LWT_ERR_FORMAT, "object type 0", "3 GiB .sur, object type 0");
    /* a valid surface header declaring 60000 x 60000 int32 points (14 GB) in 3 GiB */
    c.type = 2;
    c.bits = 32;
    tpath(p, sizeof p, "sparse_big.sur");
    craft_sur(p, &c);
    patch_u32(p, 108, 60000);
    patch_u32(p, 112, 60000);
    patch_u32(p, 116, 60000u * 60000u);
    if (make_sparse(p))
        expect_fast_error(p, LWT_ERR_FORMAT, "size mismatch", "3 GiB .sur declaring 14 GB");
    /* Sensofar: not a topography */
    const float um[4] = {1, 2, 3, 4};
    tpath(p, sizeof p, "sparse_type0.plu");
    craft_plu(p, 0, "", 1.0f, 1.0f, 2, 2, um);
    if (make_sparse(p))
        expect_fast_error(p, LWT_ERR_FORMAT, "measurement type 0", "3 GiB .plu, measurement type 0");
    tpath(p, sizeof p, "sparse_big.plu");
    craft_plu(p, 3, "", 1.0f, 1.0f, 2, 2, um);
    patch_u32(p, 500, 60000);
    patch_u32(p, 504, 60000);
    if (make_sparse(p))
        expect_fast_error(p, LWT_ERR_FORMAT, "size mismatch", "3 GiB .plu declaring 14 GB");
    /* binary SDF with Compression = 1, ASCII SDF with no header end */
    unsigned char b[81];
    memset(b, 0, sizeof b);
    memcpy(b, "bISO-1.0", 8);
    lwt__put_le16(b + 42, 2);
    lwt__put_le16(b + 44, 2);
    lwt__put_lef64(b + 46, 1e-6);
    lwt__put_lef64(b + 54, 1e-6);
    lwt__put_lef64(b + 62, 1e-6);
    b[78] = 1;
    b[79] = 7;
    tpath(p, sizeof p, "sparse_compressed.sdf");
    write_bytes(p, b, sizeof b);
    if (make_sparse(p))
        expect_fast_error(p, LWT_ERR_FORMAT, "Compression", "3 GiB binary SDF, Compression 1");
    tpath(p, sizeof p, "sparse_ascii.sdf");
    write_bytes(p, (const unsigned char *)"aISO-1.0\nNumPoints = 2\n", 23);
    if (make_sparse(p))
        expect_fast_error(p, LWT_ERR_FORMAT, "header", "3 GiB ASCII SDF without a header end");
}

/* Patch the sizes of bindata/data.bin in the zip at path, in its local header and the central
 * directory alike: the uncompressed size, and the compressed one unless comp is 0. */
static void patch_data_bin_sizes(const char *path, uint32_t comp, uint32_t size)
{
    unsigned char *zb;
    size_t zl;
    char err[1024];
    if (lwt__read_whole_file(tctx, path, &zb, &zl) != 0)
        return;
    (void)logged(LWT_OK, err);
    int patched = 0;
    for (size_t i = 46; i + 16 <= zl; i++) {
        if (memcmp(zb + i, "bindata/data.bin", 16))
            continue;
        unsigned char *h = NULL;
        if (!memcmp(zb + i - 30, "PK\x03\x04", 4))
            h = zb + i - 30 + 18; /* local header: compressed, uncompressed size */
        else if (!memcmp(zb + i - 46, "PK\x01\x02", 4))
            h = zb + i - 46 + 20; /* central directory: the same */
        if (!h)
            continue;
        if (comp)
            put_u32(h, comp);
        put_u32(h + 4, size);
        patched++;
    }
    CHECK(patched == 2, "%s: patched %d headers of data.bin, want 2", path, patched);
    write_bytes(path, zb, zl);
    free(zb);
}

/* X3P: main.xml beyond its cap (16 MiB), inflated from a few kB; a data.bin whose directory entry
 * declares more than its compressed bytes can hold is refused before its buffer is allocated */
static void test_x3p_inflation(void)
{
    char p[600], md5[33];
    crafted_data_md5(md5);
    const char *xml = make_main_xml("SUR", 4, 4, md5, NULL);
    const size_t pad = (size_t)20 << 20, xl = strlen(xml);
    char *big = malloc(xl + pad + 16);
    if (!big)
        return;
    const char *root_end = strstr(xml, "<Record1>");
    size_t k = (size_t)(root_end - xml);
    memcpy(big, xml, k);
    memcpy(big + k, "<!--", 4);
    memset(big + k + 4, ' ', pad);
    memcpy(big + k + 4 + pad, "-->", 3);
    memcpy(big + k + 7 + pad, root_end, xl - k + 1);
    tpath(p, sizeof p, "bigmain.x3p");
    craft_x3p(p, big, 0, 1, 1);
    free(big);
    expect_fast_error(p, LWT_ERR_FORMAT, "too large", "main.xml inflating to 20 MiB");

    /* data.bin: 128 bytes deflated, the directory patched to say 1 GiB (16384 x 8192 doubles) */
    tpath(p, sizeof p, "bigdata.x3p");
    craft_x3p(p, make_main_xml("SUR", 16384, 8192, md5, NULL), 0, 1, 1);
    patch_data_bin_sizes(p, 0, 1u << 30);
    expect_fast_error(p, LWT_ERR_FORMAT, "can hold", "data.bin declaring 1 GiB in 128 compressed bytes");
    /* and 4 MiB of compressed bytes (enough for 1 GiB) that the archive of a few kB does not have:
       libzip refuses the archive when it opens it (ZIP_CHECKCONS) */
    tpath(p, sizeof p, "bigcomp.x3p");
    craft_x3p(p, make_main_xml("SUR", 16384, 8192, md5, NULL), 0, 1, 1);
    patch_data_bin_sizes(p, 4u << 20, 1u << 30);
    expect_fast_error(p, LWT_ERR_FORMAT, "corrupt", "data.bin declaring 4 MiB of compressed bytes in a tiny archive");
}

/* ------------------------------------------------------------------ shared data */

typedef struct {
    const char *name;
    int code; /* expected return */
    size_t nx, ny, nvalid;
    double dx, dy, zmin, zmax;
} expect;

/* name, expected return, nx, ny, valid points, dx, dy, z min, z max (metres): from the independent
 * reading in tests/py/test_surface_io.py (python3 tests/py/test_surface_io.py --print-expect) */
static const expect shared_files[] = {
    {"ISO5436-sample1.x3p", 0, 4, 4, 15,
     0.016015999999999999, 0.016015999999999999, -0.80836857168283005, 1.0475960256614201},
    {"ISO5436-sample1_bin.x3p", 0, 4, 4, 15,
     0.016015999999999999, 0.016015999999999999, -0.80836857168283005, 1.0475960256614201},
    {"ISO5436-sample2.x3p", LWT_ERR_NOT_AREAL, 0, 0, 0, 0, 0, 0, 0},
    {"ISO5436-sample3.x3p", 0, 4, 4, 15, 0.016015999999999999, 2, 1.1916314283171698, 3.0475960256614201},
    {"ISO5436-sample4.x3p", 0, 4, 4, 15, 0.016015999999999999, 0.016015999999999999, -0.80800000000000005, 1.048},
    {"ISO5436-sample4_bin.x3p", 0, 4, 4, 15, 0.016015999999999999, 0.016015999999999999, -0.80800000000000005, 1.048},
    {"bullet-land-sneox.x3p", 0, 918, 256, 209716,
     2.5799999999999999e-06, 2.5799999999999999e-06, -7.9473480582237244e-05, 5.2498580771498382e-05},
    {"cartridge-fadul-1-1.x3p", 0, 545, 545, 82542,
     6.2500000000000003e-06, 6.2500000000000003e-06, -8.9171720730724905e-06, 9.6643062285768177e-06},
    {"digitalsurf-int32.sur", 0, 563, 484, 272375,
     3.4840002190321683e-06, 3.4840002190321683e-06, 8.9120001041464994e-06, 1.0388000121395179e-05},
    {"houston-ba-b11-l1.x3p", 0, 976, 341, 329547,
     1.9350000000000001e-06, 1.9350000000000001e-06, -5.6475868225097655e-05, 4.6426116943359373e-05},
    {"mountains-export-anisotropic.x3p", 0, 650, 650, 422500,
     1.27656509837346e-07, 3.1458211352774599e-07, -3.144206865877671e-07, 2.3991551341223285e-07},
    {"rubber-infinitefocus.x3p", 0, 860, 634, 539944,
     2.2799842149999998e-06, 2.2797945189999999e-06, -9.5902869361452758e-06, 1.6094123566290364e-05},
    {"sensofar-1.plu", 0, 768, 576, 442368,
     1.6600000858306884e-06, 1.6600000858306884e-06, -0.00011123046875, -0.00010121484375},
    {"softgauge-example.sdf", 0, 7, 4, 28,
     9.9999999999999995e-07, 9.9999999999999995e-07, 9.4906999999999996e-07, 9.9999999999999995e-07},
};

static void test_shared(const char *dir)
{
    char p[1200], q[600], err[1024];
    for (size_t k = 0; k < sizeof shared_files / sizeof shared_files[0]; k++) {
        const expect *e = &shared_files[k];
        lwt_surface s, t;
        snprintf(p, sizeof p, "%s/%s", dir, e->name);
        int rc = RD(p, &s, err);
        CHECK(rc == e->code, "%s: return %d, expected %d: %s", e->name, rc, e->code, err);
        if (rc) {
            if (e->code == LWT_ERR_NOT_AREAL)
                CHECK(strstr(err, "not an areal surface") && strstr(err, e->name), "%s: message: %s", e->name, err);
            continue;
        }
        double zmin = INFINITY, zmax = -INFINITY;
        for (size_t i = 0; i < s.nx * s.ny; i++)
            if (!isnan(s.z[i])) {
                zmin = fmin(zmin, s.z[i]);
                zmax = fmax(zmax, s.z[i]);
            }
        size_t nv = lwt_surface_count_valid(&s);
        printf("%-34s %-3s nx %5zu ny %5zu dx %.6g dy %.6g valid %zu z [%.6g, %.6g] m\n", e->name,
               s.source_format, s.nx, s.ny, s.dx, s.dy, nv, zmin, zmax);
        CHECK(s.nx == e->nx && s.ny == e->ny, "%s: size %zux%zu, expected %zux%zu", e->name, s.nx, s.ny, e->nx, e->ny);
        CHECK(fabs(s.dx - e->dx) <= 1e-12 * e->dx && fabs(s.dy - e->dy) <= 1e-12 * e->dy,
              "%s: spacing %.17g %.17g, expected %.17g %.17g", e->name, s.dx, s.dy, e->dx, e->dy);
        CHECK(nv == e->nvalid, "%s: %zu valid points, expected %zu", e->name, nv, e->nvalid);
        CHECK(fabs(zmin - e->zmin) <= 1e-9 * fabs(e->zmin) && fabs(zmax - e->zmax) <= 1e-9 * fabs(e->zmax),
              "%s: z range [%.17g, %.17g], expected [%.17g, %.17g]", e->name, zmin, zmax, e->zmin, e->zmax);

        /* round trips of the real data */
        tpath(q, sizeof q, "real.x3p");
        CHECK(WX3P(q, &s, err) == 0, "%s -> x3p: %s", e->name, err);
        CHECK(RD(q, &t, err) == 0, "%s -> x3p -> read: %s", e->name, err);
        if (t.z)
            same_surface(&s, &t, 0, e->name);
        lwt_surface_free(&t);
        if (s.nx <= 65535 && s.ny <= 65535) {
            tpath(q, sizeof q, "real.sdf");
            CHECK(WSDF(q, &s, 1, err) == 0, "%s -> sdf: %s", e->name, err);
            CHECK(RD(q, &t, err) == 0, "%s -> sdf -> read: %s", e->name, err);
            if (t.z)
                same_surface(&s, &t, 0, e->name);
            lwt_surface_free(&t);
        }
        lwt_surface_free(&s);
    }
}

/* ------------------------------------------------------------------ main */

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *de;
    char p[1200];
    if (!d)
        return;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, de->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
    rmdir(tmpdir);
}

int main(int argc, char **argv)
{
    const int shared_only = argc > 1 && !strcmp(argv[1], "--shared");
    if (!(tctx = test_log_context(&tlog)))
        return 1;
    if (argc > 1 && !strncmp(argv[1], "--", 2) && !shared_only) {
        int rc = tool_main(argc, argv);
        lwt_context_destroy(tctx);
        return rc;
    }

    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/lwt_surface_io_XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot create a temporary folder: %s\n", strerror(errno));
        return 1;
    }

    if (!shared_only) {
        test_roundtrips();
        test_x3p_pieces();
        test_inline_and_axes();
        test_binary_absolute_subfolder();
        test_npy();
        test_bad_files();
        test_no_partial_output();
        test_one_message();
        test_crafted_sur();
        test_crafted_plu();
        test_non_regular();
        test_x3p_long_names();
        test_sdf_dbl_max();
        test_sparse_headers();
        test_x3p_inflation();
    }

    const char *shared = getenv("LWT_SHARED");
    char dir[1024];
    int have_shared = 0;
    if (shared_only && shared && shared[0]) {
        snprintf(dir, sizeof dir, "%s/data/surfaces", shared);
        struct stat st;
        have_shared = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    }
    if (have_shared)
        test_shared(dir);
    remove_tmpdir();
    lwt_context_destroy(tctx);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    if (shared_only && !have_shared) {
        printf("SKIP: real surface files not found ($LWT_SHARED/data/surfaces, LWT_SHARED=%s)\n",
               shared ? shared : "(unset)");
        return 77;
    }
    printf(shared_only ? "every shared surface file read as expected\n" : "all surface I/O checks passed\n");
    return 0;
}
