/*
 * test_surface_io_plux.c - the zip-based readers' newer parts: Sensofar .plux
 * (lwt_surface_read_plux, src/io/plux.c) and X3P checksum mismatches read anyway
 * (lwt_context_set_ignore_checksums).
 *
 * No .plux with a licence that lets it into a test was found on this machine, so the files are
 * written here with libzip from the published layout (the summary is at the top of plux.c):
 * index.xml (sizes, FOV_X/FOV_Y as the spacing in micrometres, the date, INFO items) and
 * LAYER_0.raw, float32 micrometres, NaN not measured. Valid files must give back every height
 * (float32 value x 1e-6, exactly), the spacing and the metadata, stored and deflated; hostile
 * ones are refused with their status and one line naming the file.
 *
 * X3P: a file written by lwt whose md5checksum.hex, or whose data.bin (so that
 * MD5ChecksumPointData no longer matches), is replaced is refused by default (LWT_ERR_CHECKSUM)
 * and, with the context's ignore_checksums set, read with one warning "checksum mismatch
 * ignored" and no error.
 */
#define _XOPEN_SOURCE 700

#include "io/surface_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "check.h"
#include "test_dirs.h"
#include "test_log.h"
#include "read_check.h"

static int warnings;
static char last_warning[1024];

/* test_log's sink, and the warnings counted beside it */
static void log_fn(void *user, lwt_log_level level, const char *msg)
{
    if (level == LWT_LOG_WARNING) {
        warnings++;
        snprintf(last_warning, sizeof last_warning, "%s", msg);
    }
    test_log_fn(user, level, msg);
}

typedef struct {
    const char *name;
    const void *data;
    size_t len;
    int deflate;
} entry;

static void put_zip(const char *path, const entry *e, int n)
{
    int err = 0;
    remove(path);
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    CHECK(za != NULL, "cannot create %s", path);
    if (!za)
        return;
    for (int i = 0; i < n; i++) {
        zip_source_t *src = zip_source_buffer(za, e[i].data, e[i].len, 0);
        zip_int64_t idx = src ? zip_file_add(za, e[i].name, src, ZIP_FL_OVERWRITE) : -1;
        CHECK(idx >= 0, "%s: cannot add %s", path, e[i].name);
        if (idx >= 0)
            zip_set_file_compression(za, (zip_uint64_t)idx, e[i].deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    CHECK(zip_close(za) == 0, "%s: zip_close failed", path);
}

/* ------------------------------------------------------------------ .plux */

enum { NX = 6, NY = 4 };
static float heights[NX * NY];
static unsigned char raw[NX * NY * 4];

static void make_heights(void)
{
    for (int i = 0; i < NX * NY; i++)
        heights[i] = (float)((i * 29 % 17) - 8) * 0.37f - 101.5f; /* micrometres, like sensofar-1.plu */
    heights[5] = NAN;
    heights[NX * NY - 2] = INFINITY;
    for (int i = 0; i < NX * NY; i++) {
        uint32_t u;
        memcpy(&u, &heights[i], 4);
        for (int k = 0; k < 4; k++)
            raw[4 * i + k] = (unsigned char)(u >> (8 * k));
    }
}

static char xml[4096];
/* index.xml with these general fields (NULL: left out) and layer file name (NULL: no FILENAME_Z) */
static const char *index_xml(const char *sx, const char *sy, const char *fx, const char *fy, const char *layer)
{
    int k = snprintf(xml, sizeof xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xml>\n <GENERAL>\n"
                                      "  <DATE>2024-03-05 14:22:01</DATE>\n");
#define FIELD(tag, v)                                                                                                  \
    if (v)                                                                                                             \
        k += snprintf(xml + k, sizeof xml - (size_t)k, "  <" tag ">%s</" tag ">\n", v);
    FIELD("IMAGE_SIZE_X", sx)
    FIELD("IMAGE_SIZE_Y", sy)
    FIELD("FOV_X", fx)
    FIELD("FOV_Y", fy)
#undef FIELD
    k += snprintf(xml + k, sizeof xml - (size_t)k, " </GENERAL>\n <LAYER_0>\n");
    if (layer)
        k += snprintf(xml + k, sizeof xml - (size_t)k, "  <FILENAME_Z>%s</FILENAME_Z>\n", layer);
    snprintf(xml + k, sizeof xml - (size_t)k,
             " </LAYER_0>\n <INFO>\n  <ITEM_0><NAME>Comment</NAME><VALUE>polished steel</VALUE></ITEM_0>\n"
             "  <ITEM_1><NAME>Objective</NAME><VALUE>50X</VALUE></ITEM_1>\n"
             "  <ITEM_2><NAME>Device</NAME><VALUE>S neox</VALUE></ITEM_2>\n </INFO>\n</xml>\n");
    return xml;
}

static void check_valid(const char *path, double fx, double fy)
{
    lwt_surface s;
    test_log_reset(&tlog);
    lwt_status st = lwt_surface_read(tctx, path, &s); /* by extension: a zip that is not an X3P */
    CHECK(st == LWT_OK, "%s: status %d: %s", path, (int)st, tlog.last);
    if (st)
        return;
    CHECK(s.nx == NX && s.ny == NY, "%s: %zu x %zu", path, s.nx, s.ny);
    CHECK(s.dx == fx * 1e-6 && s.dy == fy * 1e-6, "%s: spacing %.17g %.17g", path, s.dx, s.dy);
    size_t wrong = 0;
    for (int i = 0; i < NX * NY; i++)
        if (isfinite(heights[i]) ? s.z[i] != (double)heights[i] * 1e-6 : !isnan(s.z[i]))
            wrong++;
    CHECK(wrong == 0, "%s: %zu heights differ from the float32 values x 1e-6 (NaN, inf invalid)", path, wrong);
    CHECK(lwt_surface_count_valid(&s) == NX * NY - 2, "%s: %zu valid points", path, lwt_surface_count_valid(&s));
    CHECK(!strcmp(s.source_format, "plux") && !strcmp(s.instrument, "Sensofar S neox") &&
              !strcmp(s.comment, "polished steel") && !strcmp(s.date, "2024-03-05 14:22:01"),
          "%s: metadata '%s' '%s' '%s' '%s'", path, s.source_format, s.instrument, s.comment, s.date);
    lwt_surface_free(&s);
}

static void test_plux(void)
{
    make_heights();
    entry e[2] = {{"index.xml", index_xml("6", "4", "0.6918", "0.6918", "LAYER_0.raw"), 0, 0},
                  {"LAYER_0.raw", raw, sizeof raw, 0}};
    e[0].len = strlen(xml);
    put_zip("stored.plux", e, 2);
    check_valid("stored.plux", 0.6918, 0.6918);

    /* deflated, anisotropic, the layer named by default (no FILENAME_Z) */
    entry d[2] = {{"index.xml", index_xml("6", "4", "1.25", "0.75", NULL), 0, 1}, {"LAYER_0.raw", raw, sizeof raw, 1}};
    d[0].len = strlen(xml);
    put_zip("deflated.plux", d, 2);
    check_valid("deflated.plux", 1.25, 0.75);

    /* hostile */
    entry h[2] = {{"index.xml", NULL, 0, 0}, {"LAYER_0.raw", raw, sizeof raw, 0}};
    struct {
        const char *name, *sx, *sy, *fx, *fy, *layer;
        size_t raw_len;
        lwt_status want;
        const char *text;
    } bad[] = {
        {"no-size.plux", NULL, "4", "1", "1", "LAYER_0.raw", sizeof raw, LWT_ERR_FORMAT, "IMAGE_SIZE_X and IMAGE_SIZE_Y"},
        {"negative.plux", "-6", "4", "1", "1", "LAYER_0.raw", sizeof raw, LWT_ERR_FORMAT, "'-6' is not a count"},
        {"zero-fov.plux", "6", "4", "0", "1", "LAYER_0.raw", sizeof raw, LWT_ERR_FORMAT, "FOV_X and FOV_Y"},
        {"text-fov.plux", "6", "4", "1", "wide", "LAYER_0.raw", sizeof raw, LWT_ERR_FORMAT, "'wide' is not a number"},
        {"no-layer.plux", "6", "4", "1", "1", "LAYER_7.raw", sizeof raw, LWT_ERR_FORMAT,
         "missing height data 'LAYER_7.raw'"},
        {"short.plux", "6", "4", "1", "1", "LAYER_0.raw", sizeof raw - 4, LWT_ERR_FORMAT,
         "size mismatch: LAYER_0.raw has 92 bytes, index.xml describes 6 x 4 float32 heights = 96 bytes"},
        {"huge.plux", "100000", "100000", "1", "1", "LAYER_0.raw", sizeof raw, LWT_ERR_FORMAT,
         "size mismatch"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        h[0].data = index_xml(bad[i].sx, bad[i].sy, bad[i].fx, bad[i].fy, bad[i].layer);
        h[0].len = strlen(xml);
        h[1].len = bad[i].raw_len;
        put_zip(bad[i].name, h, 2);
        expect_error(bad[i].name, bad[i].want, bad[i].text);
    }
    entry only_raw[1] = {{"LAYER_0.raw", raw, sizeof raw, 0}};
    put_zip("no-index.plux", only_raw, 1);
    expect_error("no-index.plux", LWT_ERR_FORMAT, "missing index.xml");
    entry broken[2] = {{"index.xml", "<xml><GENERAL><IMAGE_SIZE_X>6</GENERAL></xml>", 45, 0},
                       {"LAYER_0.raw", raw, sizeof raw, 0}};
    put_zip("malformed.plux", broken, 2);
    expect_error("malformed.plux", LWT_ERR_FORMAT, "index.xml is not well-formed XML (line 1)");
    static unsigned char nan_raw[NX * NY * 4];
    for (int i = 0; i < NX * NY; i++)
        memcpy(nan_raw + 4 * i, "\x00\x00\xc0\x7f", 4); /* float32 NaN, little-endian */
    entry all_nan[2] = {{"index.xml", index_xml("6", "4", "1", "1", NULL), 0, 0}, {"LAYER_0.raw", nan_raw, sizeof nan_raw, 0}};
    all_nan[0].len = strlen(xml);
    put_zip("all-nan.plux", all_nan, 2);
    expect_error("all-nan.plux", LWT_ERR_NO_DATA, "all points are invalid");
    /* the memory limit is checked before the heights are allocated */
    lwt_context_set_memory_limit(tctx, 100);
    expect_error("stored.plux", LWT_ERR_OUT_OF_MEMORY, "reading it needs 192 bytes, more than the memory limit");
    lwt_context_set_memory_limit(tctx, 0);
    expect_refused_basics("plux", "not a zip archive (truncated or corrupt .plux file)");
}

/* ------------------------------------------------------------------ X3P checksums */

/* a copy of src with entry `name` replaced by data */
static void replace_entry(const char *src, const char *dst, const char *name, const void *data, size_t len)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    static unsigned char b[1 << 20];
    size_t k = in ? fread(b, 1, sizeof b, in) : 0;
    if (out) {
        fwrite(b, 1, k, out);
        fclose(out);
    }
    if (in)
        fclose(in);
    int err = 0;
    zip_t *za = zip_open(dst, 0, &err);
    zip_source_t *s = za ? zip_source_buffer(za, data, len, 0) : NULL;
    CHECK(s && zip_file_add(za, name, s, ZIP_FL_OVERWRITE) >= 0 && zip_close(za) == 0, "cannot rewrite %s in %s",
          name, dst);
}

static void expect_x3p(const char *path, int ignore, lwt_status want, const char *text, const lwt_surface *same)
{
    lwt_surface s;
    test_log_reset(&tlog);
    warnings = 0;
    last_warning[0] = 0;
    lwt_context_set_ignore_checksums(tctx, ignore);
    lwt_status st = lwt_surface_read(tctx, path, &s);
    lwt_context_set_ignore_checksums(tctx, 0);
    CHECK(st == want, "%s (ignore %d): status %d, want %d: %s", path, ignore, (int)st, (int)want, tlog.last);
    if (want != LWT_OK) {
        CHECK(tlog.errors == 1 && strstr(tlog.last, text) && warnings == 0,
              "%s: %d errors, %d warnings, message '%s' lacks '%s'", path, tlog.errors, warnings, tlog.last, text);
        return;
    }
    CHECK(tlog.errors == 0 && warnings == 1 && strstr(last_warning, "checksum mismatch ignored") &&
              strstr(last_warning, text) && !strncmp(last_warning, path, strlen(path)),
          "%s: %d errors, %d warnings, warning '%s' (want one naming the file, 'checksum mismatch ignored', '%s')", path,
          tlog.errors, warnings, last_warning, text);
    if (st == LWT_OK && same) {
        size_t wrong = 0;
        for (size_t i = 0; i < s.nx * s.ny; i++)
            wrong += !(s.z[i] == same->z[i] || (isnan(s.z[i]) && isnan(same->z[i])));
        CHECK(s.nx == same->nx && s.ny == same->ny && wrong == 0, "%s: heights differ from the file written", path);
    }
    if (st == LWT_OK)
        lwt_surface_free(&s);
}

static void test_x3p_checksums(void)
{
    lwt_surface s;
    CHECK(lwt_surface_alloc(tctx, &s, 5, 3) == LWT_OK, "alloc");
    for (int i = 0; i < 15; i++)
        s.z[i] = (i - 7) * 1.5e-6;
    s.dx = s.dy = 2e-6;
    CHECK(lwt_surface_write_x3p(tctx, "good.x3p", &s) == LWT_OK, "cannot write good.x3p: %s", tlog.last);
    CHECK(lwt_context_ignore_checksums(tctx) == 0 && lwt_context_ignore_checksums(NULL) == 0,
          "checksums are not verified by default");

    const char bad_md5[] = "0123456789abcdef0123456789abcdef *main.xml\n";
    replace_entry("good.x3p", "bad-md5.x3p", "md5checksum.hex", bad_md5, strlen(bad_md5));
    expect_x3p("bad-md5.x3p", 0, LWT_ERR_CHECKSUM, "wrong MD5 checksum of main.xml", NULL);
    expect_x3p("bad-md5.x3p", 1, LWT_OK, "md5checksum.hex says 0123456789abcdef0123456789abcdef", &s);

    double other[15];
    for (int i = 0; i < 15; i++)
        other[i] = 1e-6 * i;
    replace_entry("good.x3p", "bad-data.x3p", "bindata/data.bin", other, sizeof other);
    expect_x3p("bad-data.x3p", 0, LWT_ERR_CHECKSUM, "MD5ChecksumPointData", NULL);
    lwt_surface changed = s;
    changed.z = other;
    expect_x3p("bad-data.x3p", 1, LWT_OK, "wrong MD5 checksum of bindata/data.bin", &changed);

    /* a size mismatch is not a checksum: refused whatever the setting */
    replace_entry("good.x3p", "short-data.x3p", "bindata/data.bin", other, sizeof other - 8);
    expect_x3p("short-data.x3p", 1, LWT_ERR_FORMAT, "size mismatch", NULL);
    lwt_surface_free(&s);
}

int main(void)
{
    if (!(tctx = test_log_context(&tlog)))
        return 1;
    lwt_context_set_log(tctx, log_fn, &tlog);
    char dir[] = "plux_scratch.XXXXXX";
    if (enter_scratch_dir(dir, "test_surface_io_plux"))
        return 1;
    test_plux();
    test_x3p_checksums();
    /* the files this test wrote and nothing else: reading creates no file (temporary or other) */
    CHECK(count_prefix(".", "") == 17 && !exists("missing.plux"), "%d files in the scratch folder, the test wrote 17",
          count_prefix(".", ""));
    if (leave_scratch_dir(dir, failures != 0))
        CHECK(0, "cannot leave %s", dir);
    lwt_context_destroy(tctx);
    return finish("test_surface_io_plux");
}
