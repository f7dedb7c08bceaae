/*
 * test_surface_io_gwy.c - the Gwyddion .gwy reader (lwt_surface_read_gwy, src/io/gwy.c).
 *
 * The files are written here, byte by byte, by a small serializer that follows the format as
 * Gwyddion's user guide describes it ("GWY file format"; the summary is at the top of gwy.c):
 * valid files with extra content the reader must skip (every component type, nested containers,
 * object arrays, a second channel), whose heights, spacing, units, mask and title must come back
 * exactly; and hostile ones (wrong magic, truncated, counts past the end, sizes that disagree,
 * zero and negative xres, deep nesting, units that are not lengths), each refused with its
 * status and one line naming the file and the reason. Any .gwy in $LWT_SHARED/data/surfaces is
 * read too (none there: said, not failed).
 */
#define _POSIX_C_SOURCE 200809L

#include "io/surface_file.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_buf.h"
#include "check.h"
#include "test_dirs.h"
#include "test_log.h"
#include "read_check.h"

/* ------------------------------------------------------------------ a tiny GWY serializer */

static void put_str(gb *g, const char *s) { put(g, s, strlen(s) + 1); }
static void comp(gb *g, const char *name, char type)
{
    put_str(g, name);
    put(g, &type, 1);
}
static void comp_i(gb *g, const char *name, int32_t v)
{
    comp(g, name, 'i');
    put_u32(g, (uint32_t)v);
}
static void comp_d(gb *g, const char *name, double v)
{
    comp(g, name, 'd');
    put_f64(g, v);
}
static void comp_s(gb *g, const char *name, const char *v)
{
    comp(g, name, 's');
    put_str(g, v);
}
/* the serialized object (type name, size, body) appended to out; body freed */
static void object(gb *out, const char *type, gb *body)
{
    put_str(out, type);
    put_u32(out, (uint32_t)body->n);
    put(out, body->b, body->n);
    free(body->b);
    memset(body, 0, sizeof *body);
}
static void comp_o(gb *g, const char *name, const char *type, gb *body)
{
    comp(g, name, 'o');
    object(g, type, body);
}
static void comp_unit(gb *g, const char *name, const char *unit)
{
    gb u = {0};
    if (unit)
        comp_s(&u, "unitstr", unit);
    comp_o(g, name, "GwySIUnit", &u);
}

typedef struct {
    int32_t xres, yres;
    double xreal, yreal;
    const char *uxy, *uz; /* NULL: no si_unit object at all */
    const double *v;
    uint32_t count;       /* the array's declared count */
    uint32_t nwritten;    /* values written (== count in a sound file) */
} field_spec;

/* a GwyDataField component, with the extras Gwyddion writes (offsets) and one it does not */
static void comp_field(gb *g, const char *name, const field_spec *f)
{
    gb d = {0};
    comp_i(&d, "xres", f->xres);
    comp_i(&d, "yres", f->yres);
    comp_d(&d, "xreal", f->xreal);
    comp_d(&d, "yreal", f->yreal);
    comp_d(&d, "xoff", 1.5e-6);
    comp_d(&d, "yoff", -2.5e-6);
    if (f->uxy)
        comp_unit(&d, "si_unit_xy", f->uxy);
    if (f->uz)
        comp_unit(&d, "si_unit_z", f->uz);
    comp(&d, "future", 'Q');
    put_u32(&d, 1);
    put_f64(&d, 0.0);
    comp(&d, "data", 'D');
    put_u32(&d, f->count);
    for (uint32_t i = 0; i < f->nwritten; i++)
        put_f64(&d, f->v[i]);
    comp_o(g, name, "GwyDataField", &d);
}

/* a whole file: "GWYP" and the container with body c (freed) */
static void write_gwy(const char *path, gb *c, const char *magic)
{
    gb f = {0};
    put(&f, magic, 4);
    object(&f, "GwyContainer", c);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(f.b, 1, f.n, fp) == f.n, "cannot write %s", path);
    if (fp)
        fclose(fp);
    free(f.b);
}

/* the extras of a real file, which the reader must walk past: every scalar, string, array and
 * object kind, a nested container (metadata) and an object array */
static void extras(gb *c)
{
    comp_s(c, "/0/base/palette", "Gray");
    comp(c, "/0/data/visible", 'b');
    put(c, "\1", 1);
    comp(c, "/0/char", 'c');
    put(c, "x", 1);
    comp(c, "/0/big", 'q');
    put_f64(c, 1.0);
    gb meta = {0};
    comp_s(&meta, "Date", "2024-05-06 07:08:09");
    comp_s(&meta, "Operator", "lwt");
    comp_o(c, "/0/meta", "GwyContainer", &meta);
    comp(c, "/0/bytes", 'C');
    put_u32(c, 3);
    put(c, "abc", 3);
    comp(c, "/0/ints", 'I');
    put_u32(c, 2);
    put_u32(c, 7);
    put_u32(c, 8);
    comp(c, "/0/names", 'S');
    put_u32(c, 2);
    put_str(c, "one");
    put_str(c, "");
    comp(c, "/0/units", 'O');
    put_u32(c, 2);
    gb u = {0};
    comp_s(&u, "unitstr", "V");
    object(c, "GwySIUnit", &u);
    object(c, "GwySIUnit", &u); /* an empty one */
    comp(c, "/0/doubles", 'D');
    put_u32(c, 0);
}

/* ------------------------------------------------------------------ checks */

/* the tests run in their scratch folder: a file's path is its name */
static void tpath(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s", name); }

static double heights[12];
static const double ones[4] = {9, 9, 9, 9};

/* ------------------------------------------------------------------ valid files */

/* channel 0 (4 x 3, um heights, one NaN, a mask marking one point), a title, channel 1 before
 * it with its own title, and the extras */
static void build_valid(gb *c)
{
    double mask[12] = {0};
    mask[2] = 1.0;
    const field_spec other = {2, 2, 1.0, 1.0, "m", "m", ones, 4, 4};
    const field_spec f = {4, 3, 8e-6, 6e-6, "m", "\xc2\xb5m", heights, 12, 12};
    const field_spec m = {4, 3, 8e-6, 6e-6, "m", "", mask, 12, 12};
    comp_field(c, "/1/data", &other);
    comp_s(c, "/1/data/title", "Other");
    extras(c);
    comp_field(c, "/0/data", &f);
    comp_s(c, "/0/data/title", "Height");
    comp_field(c, "/0/mask", &m);
}

static void test_valid(void)
{
    char p[600], err[1024];
    lwt_surface s;
    for (int i = 0; i < 12; i++)
        heights[i] = 0.125 + 0.25 * (i - 5);
    heights[7] = NAN;
    gb c = {0};
    build_valid(&c);
    tpath(p, sizeof p, "valid.gwy");
    write_gwy(p, &c, "GWYP");
    CHECK(read_one(lwt_surface_read_gwy, p, &s, err) == LWT_OK, "valid.gwy: %s", err);
    if (s.z) {
        CHECK(s.nx == 4 && s.ny == 3, "valid.gwy: %zu x %zu, want 4 x 3 (channel 0, not channel 1)", s.nx, s.ny);
        /* pixel size = xreal / xres (Gwyddion's), in metres */
        CHECK(s.dx == 8e-6 / 4 && s.dy == 6e-6 / 3, "valid.gwy: spacing %.17g %.17g", s.dx, s.dy);
        int bad = 0;
        for (int i = 0; i < 12 && s.nx * s.ny == 12; i++)
            bad += (i == 2 || i == 7) ? !isnan(s.z[i]) : s.z[i] != heights[i] * 1e-6;
        CHECK(bad == 0, "valid.gwy: %d heights differ from the file's micrometres (mask -> NaN at 2, NaN at 7)",
              bad);
        CHECK(lwt_surface_count_valid(&s) == 10, "valid.gwy: %zu valid points, want 10",
              lwt_surface_count_valid(&s));
        CHECK(!strcmp(s.source_format, "gwy") && !strcmp(s.comment, "Height"), "valid.gwy: format '%s', comment '%s'",
              s.source_format, s.comment);
    }
    lwt_surface_free(&s);

    /* found by its magic whatever its name, through the auto-detecting reader */
    char q[600];
    tpath(q, sizeof q, "valid_renamed.dat");
    CHECK(rename(p, q) == 0, "rename: %s", strerror(errno));
    CHECK(read_one(lwt_surface_read, q, &s, err) == LWT_OK && s.nx == 4 && !strcmp(s.source_format, "gwy"),
          "valid.gwy as .dat through lwt_surface_read: %s", err);
    lwt_surface_free(&s);

    /* no channel 0: the lowest number (3, not 12, whichever comes first); mm and nm; channel 12's
       mask and title belong to channel 12, so they are neither applied nor checked */
    const double v6[6] = {1, -2, 3.5, -4.25, 0, 6};
    const double m4[4] = {1, 1, 1, 1};
    const field_spec f12 = {2, 2, 1.0, 1.0, "m", "m", ones, 4, 4};
    const field_spec m12 = {2, 2, 1.0, 1.0, "m", "", m4, 4, 4};
    const field_spec f3 = {3, 2, 0.3, 0.5, "mm", "nm", v6, 6, 6};
    comp_field(&c, "/12/data", &f12);
    comp_s(&c, "/12/data/title", "wrong");
    comp_field(&c, "/12/mask", &m12);
    comp_field(&c, "/3/data", &f3);
    tpath(p, sizeof p, "channel3.gwy");
    write_gwy(p, &c, "GWYP");
    CHECK(read_one(lwt_surface_read, p, &s, err) == LWT_OK, "channel3.gwy: %s", err);
    if (s.z) {
        CHECK(s.nx == 3 && s.ny == 2 && s.dx == 0.3 * 1e-3 / 3 && s.dy == 0.5 * 1e-3 / 2,
              "channel3.gwy: %zu x %zu, spacing %.17g %.17g", s.nx, s.ny, s.dx, s.dy);
        int bad = 0;
        for (int i = 0; i < 6 && s.nx * s.ny == 6; i++)
            bad += s.z[i] != v6[i] * 1e-9;
        CHECK(bad == 0 && s.comment[0] == 0, "channel3.gwy: %d heights differ from the nanometres, comment '%s'",
              bad, s.comment);
    }
    lwt_surface_free(&s);
}

/* ------------------------------------------------------------------ hostile files */

/* the file NAME in the test folder holding the container body c (freed) */
static void write_named(const char *name, gb *c)
{
    char p[600];
    tpath(p, sizeof p, name);
    write_gwy(p, c, "GWYP");
}

/* a file with channel 0 as f, and the extras */
static void write_field_file(const char *name, const field_spec *f)
{
    gb c = {0};
    extras(&c);
    comp_field(&c, "/0/data", f);
    write_named(name, &c);
}

static void write_raw(const char *name, const unsigned char *b, size_t n)
{
    char p[600];
    tpath(p, sizeof p, name);
    FILE *fp = fopen(p, "wb");
    CHECK(fp && fwrite(b, 1, n, fp) == n, "cannot write %s", p);
    if (fp)
        fclose(fp);
}

static void test_hostile(void)
{
    /* a sound file's bytes, to cut and patch */
    gb c = {0}, f = {0};
    build_valid(&c);
    put(&f, "GWYP", 4);
    object(&f, "GwyContainer", &c);

    memcpy(f.b, "GWYX", 4);
    write_raw("magic.gwy", f.b, f.n);
    expect_error("magic.gwy", LWT_ERR_FORMAT, "not a Gwyddion file (no GWYP magic)");
    memcpy(f.b, "GWYO", 4);
    write_raw("old.gwy", f.b, f.n);
    expect_error("old.gwy", LWT_ERR_FORMAT, "GWYO");
    memcpy(f.b, "GWYP", 4);
    write_raw("short.gwy", f.b, 3);
    expect_error("short.gwy", LWT_ERR_FORMAT, "no GWYP magic");
    write_raw("cut_name.gwy", f.b, 8);
    expect_error("cut_name.gwy", LWT_ERR_FORMAT, "no NUL");
    write_raw("cut_half.gwy", f.b, f.n / 2);
    expect_error("cut_half.gwy", LWT_ERR_FORMAT, "truncated");
    write_raw("cut_last.gwy", f.b, f.n - 1);
    expect_error("cut_last.gwy", LWT_ERR_FORMAT, "truncated");
    free(f.b);

    /* the data array declares a million values and holds 12 */
    field_spec s = {4, 3, 1e-6, 1e-6, "m", "m", heights, 1000000, 12};
    write_field_file("count_past_end.gwy", &s);
    expect_error("count_past_end.gwy", LWT_ERR_FORMAT, "data needs 8000000 bytes");
    /* a string array declaring more strings than its object has bytes */
    c = (gb){0};
    comp(&c, "/0/names", 'S');
    put_u32(&c, 0xffffffffu);
    put_str(&c, "one");
    comp_field(&c, "/0/data", &(field_spec){4, 3, 1e-6, 1e-6, "m", "m", heights, 12, 12});
    write_named("strings_past_end.gwy", &c);
    expect_error("strings_past_end.gwy", LWT_ERR_FORMAT, "/0/names needs 4294967295 elements");

    s = (field_spec){5, 3, 1e-6, 1e-6, "m", "m", heights, 12, 12};
    write_field_file("size_mismatch.gwy", &s);
    expect_error("size_mismatch.gwy", LWT_ERR_FORMAT, "size mismatch: xres x yres = 5 x 3, but the data array has 12");
    s = (field_spec){0, 3, 1e-6, 1e-6, "m", "m", heights, 0, 0};
    write_field_file("xres0.gwy", &s);
    expect_error("xres0.gwy", LWT_ERR_FORMAT, "invalid dimensions 0 x 3");
    s = (field_spec){-4, -3, 1e-6, 1e-6, "m", "m", heights, 12, 12};
    write_field_file("xres_negative.gwy", &s);
    expect_error("xres_negative.gwy", LWT_ERR_FORMAT, "invalid dimensions -4 x -3");
    s = (field_spec){4, 3, 0.0, 1e-6, "m", "m", heights, 12, 12};
    write_field_file("xreal0.gwy", &s);
    expect_error("xreal0.gwy", LWT_ERR_FORMAT, "invalid or missing size");

    /* units: not a length, empty, missing */
    s = (field_spec){4, 3, 1e-6, 1e-6, "m", "V", heights, 12, 12};
    write_field_file("unit_volt.gwy", &s);
    expect_error("unit_volt.gwy", LWT_ERR_FORMAT, "height (si_unit_z) unit 'V' is not a length unit");
    s.uz = "";
    write_field_file("unit_empty.gwy", &s);
    expect_error("unit_empty.gwy", LWT_ERR_FORMAT, "height (si_unit_z) unit '' is not a length unit");
    s.uz = "m";
    s.uxy = NULL;
    write_field_file("unit_missing.gwy", &s);
    expect_error("unit_missing.gwy", LWT_ERR_FORMAT, "lateral (si_unit_xy) unit '' is not a length unit");

    /* objects nested 40 deep, in a component the reader does not otherwise look at */
    gb deep = {0};
    for (int k = 0; k < 40; k++) {
        gb body = {0};
        if (k)
            comp_o(&body, "x", "GwyContainer", &deep);
        deep = body;
    }
    c = (gb){0};
    comp_o(&c, "/deep", "GwyContainer", &deep);
    comp_field(&c, "/0/data", &(field_spec){4, 3, 1e-6, 1e-6, "m", "m", heights, 12, 12});
    write_named("deep.gwy", &c);
    expect_error("deep.gwy", LWT_ERR_FORMAT, "nested more than 32 deep");

    /* no channel; an unknown component type; a channel that is not a data field; a mask of
       another size; a nested object larger than its container */
    c = (gb){0};
    extras(&c);
    write_named("no_channel.gwy", &c);
    expect_error("no_channel.gwy", LWT_ERR_NO_DATA, "no channel");
    c = (gb){0};
    comp(&c, "/0/what", 'x');
    comp_field(&c, "/0/data", &(field_spec){4, 3, 1e-6, 1e-6, "m", "m", heights, 12, 12});
    write_named("type_x.gwy", &c);
    expect_error("type_x.gwy", LWT_ERR_FORMAT, "unknown component type 0x78 of '/0/what'");
    /* names and units from the file reach the message as printable ASCII only: no terminal
       escapes, no bytes that are not text */
    c = (gb){0};
    comp(&c, "/0/\x1b[31m\xff", 'x');
    write_named("escape.gwy", &c);
    expect_error("escape.gwy", LWT_ERR_FORMAT, "unknown component type 0x78 of '/0/?[31m?'");
    s = (field_spec){4, 3, 1e-6, 1e-6, "m", "V\x07\xb5", heights, 12, 12};
    write_field_file("unit_escape.gwy", &s);
    expect_error("unit_escape.gwy", LWT_ERR_FORMAT, "unit 'V?\?' is not a length unit");
    c = (gb){0};
    comp_unit(&c, "/0/data", "m");
    write_named("not_field.gwy", &c);
    expect_error("not_field.gwy", LWT_ERR_FORMAT, "/0/data is a GwySIUnit, not a GwyDataField");
    c = (gb){0};
    comp_field(&c, "/0/data", &(field_spec){4, 3, 1e-6, 1e-6, "m", "m", heights, 12, 12});
    comp_field(&c, "/0/mask", &(field_spec){2, 2, 1e-6, 1e-6, "m", "", ones, 4, 4});
    write_named("mask_size.gwy", &c);
    expect_error("mask_size.gwy", LWT_ERR_FORMAT, "mask /0/mask is 2 x 2, its channel 4 x 3");
    c = (gb){0};
    comp_s(&c, "/0/meta", "");
    comp(&c, "/0/liar", 'o');
    put_str(&c, "GwyContainer");
    put_u32(&c, 1000);
    write_named("inner_size.gwy", &c);
    expect_error("inner_size.gwy", LWT_ERR_FORMAT, "/0/liar (a GwyContainer) declares 1000 bytes, 0 are left");
}

/* ------------------------------------------------------------------ shared files */

/* every .gwy in $LWT_SHARED/data/surfaces must read, with sizes and spacing that make sense */
static void test_shared(void)
{
    const char *shared = getenv("LWT_SHARED");
    char dir[1024], p[1400], err[1024];
    int n = 0;
    if (!shared || !shared[0]) {
        printf("note: LWT_SHARED is not set, no shared .gwy file read\n");
        return;
    }
    snprintf(dir, sizeof dir, "%s/data/surfaces", shared);
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        size_t k = strlen(de->d_name);
        if (k < 5 || strcmp(de->d_name + k - 4, ".gwy"))
            continue;
        lwt_surface s;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        CHECK(read_one(lwt_surface_read, p, &s, err) == LWT_OK, "%s: %s", de->d_name, err);
        if (s.z)
            CHECK(s.nx > 0 && s.ny > 0 && s.dx > 0 && s.dy > 0 && lwt_surface_count_valid(&s) > 0,
                  "%s: %zu x %zu, spacing %g %g", de->d_name, s.nx, s.ny, s.dx, s.dy);
        printf("%s: %zu x %zu, dx %g dy %g, %zu valid\n", de->d_name, s.nx, s.ny, s.dx, s.dy,
               lwt_surface_count_valid(&s));
        lwt_surface_free(&s);
        n++;
    }
    if (d)
        closedir(d);
    if (n == 0)
        printf("note: no .gwy file in %s, only the crafted files were read\n", dir);
}

/* ------------------------------------------------------------------ main */

int main(void)
{
    if (!(tctx = test_log_context(&tlog)))
        return 1;
    char dir[] = "gwy_scratch.XXXXXX";
    if (enter_scratch_dir(dir, "test_surface_io_gwy"))
        return 1;
    CHECK(!exists("missing.gwy"), "missing.gwy exists");
    expect_error("missing.gwy", LWT_ERR_IO, "cannot open");
    test_valid();
    test_hostile();
    /* the files this test wrote and nothing else: reading creates no file (temporary or other) */
    CHECK(count_prefix(".", "") == 25, "%d files in the scratch folder, the test wrote 25", count_prefix(".", ""));
    test_shared();
    if (leave_scratch_dir(dir, failures != 0)) /* kept when something failed, to look at the files */
        CHECK(0, "cannot leave %s", dir);
    lwt_context_destroy(tctx);
    return finish("test_surface_io_gwy");
}
