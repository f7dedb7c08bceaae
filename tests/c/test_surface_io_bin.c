/*
 * test_surface_io_bin.c - the compressed Digital Surf .sur (DSCOMPRESSED), Alicona .al3d and
 * Keyence .vk4 readers (src/io/sur.c, al3d.c, vk4.c).
 *
 * Every file is written here, byte by byte, from the published layouts (summarised at the top of
 * each reader and in docs/FORMATS.md: the compressed .sur block as Gwyddion's surffile.c and
 * surfalize's sur.py read it, AL3D as Alicona's "AL3D File Format" specification gives it, VK4 as
 * Gwyddion's keyence.c and surfalize's vk.py read it); the .sur streams are deflated with zlib's
 * compress2 (the reader inflates). Valid files: every height, the spacing, the invalid points and
 * the format name must come back exactly, by the format's reader and through lwt_surface_read's
 * magic bytes under a neutral name. Hostile files (truncated, counts past the end, sizes that
 * disagree or overflow, offsets past the end, sparse files declaring gigabytes against a 64 MiB
 * memory limit, corrupt zlib data): each refused with its status and one line that names the
 * file and the reason, with nothing allocated for the declared size.
 */
#define _XOPEN_SOURCE 700

#include "io/surface_file.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "byte_buf.h"
#include "check.h"
#include "test_dirs.h"
#include "test_log.h"
#include "read_check.h"

static void write_file(const char *path, const gb *g)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(g->b, 1, g->n, f) == g->n && fclose(f) == 0, "cannot write %s", path);
}

/* g's bytes, then a hole up to total bytes (a sparse file: declared gigabytes cost no disk) */
static void write_sparse(const char *path, const gb *g, off_t total)
{
    write_file(path, g);
    CHECK(truncate(path, total) == 0, "cannot extend %s", path);
}

/* the file name, written as the bytes of g changed by body (statements on the copy, bad) */
#define MUTATE(name, body)                                                                                             \
    do {                                                                                                               \
        bad.n = 0;                                                                                                     \
        put(&bad, g.b, g.n);                                                                                           \
        body;                                                                                                          \
        write_file(name, &bad);                                                                                        \
    } while (0)

/* path read by reader, and as a copy named neutral by lwt_surface_read (magic bytes), must give
 * exactly z (NaN where invalid), dx, dy and the format name */
static void expect_surface(reader_fn reader, const char *path, const gb *bytes, const char *neutral, size_t nx,
                           size_t ny, const double *z, double dx, double dy, const char *format)
{
    for (int way = 0; way < 2; way++) {
        const char *p = way ? neutral : path;
        char err[1024];
        lwt_surface s;
        if (way)
            write_file(neutral, bytes);
        lwt_status st = read_one(way ? lwt_surface_read : reader, p, &s, err);
        CHECK(st == LWT_OK, "%s: not read: %s", p, err);
        if (st != LWT_OK)
            continue;
        CHECK(s.nx == nx && s.ny == ny, "%s: %zu x %zu, want %zu x %zu", p, s.nx, s.ny, nx, ny);
        CHECK(s.dx == dx && s.dy == dy, "%s: spacing %.17g %.17g, want %.17g %.17g", p, s.dx, s.dy, dx, dy);
        CHECK(!strcmp(s.source_format, format), "%s: format %s", p, s.source_format);
        int bad = 0;
        for (size_t i = 0; s.nx == nx && s.ny == ny && i < nx * ny; i++)
            if (!(isnan(z[i]) ? isnan(s.z[i]) : s.z[i] == z[i]) && bad++ < 3)
                CHECK(0, "%s: point %zu is %.17g, want %.17g", p, i, s.z[i], z[i]);
        CHECK(bad == 0, "%s: %d heights differ", p, bad);
        lwt_surface_free(&s);
    }
}

/* ------------------------------------------------------------------ compressed .sur */

/* A DSCOMPRESSED surface object: raw points (bits 16 or 32) cut into streams at the byte cuts
 * (increasing, inside the data), each deflated. *block_at: where the data block starts. The
 * header's block size is the true one unless header_block is given (>= 0). */
typedef struct {
    int bits, special;
    int32_t nx, ny, zmin;
    float sx, sy, sz, zoff;
    const char *units[3];
    const int32_t *raw;
    const size_t *cuts;
    size_t ncuts;
    long long header_block;
} sur_spec;

static void build_sur(gb *g, const sur_spec *sp, size_t *block_at)
{
    unsigned char h[512] = {0};
    const char comment[] = "crafted";
    memcpy(h, "DSCOMPRESSED", 12);
    lwt__put_le16(h + 14, 1); /* objects */
    lwt__put_le16(h + 16, 1); /* version */
    lwt__put_le16(h + 18, 2); /* surface */
    lwt__put_le16(h + 86, (uint16_t)sp->special);
    lwt__put_le16(h + 98, (uint16_t)sp->bits);
    gb t = {h, 100, 512};
    put_u32(&t, (uint32_t)sp->zmin);
    put_u32(&t, 0x7fffffff);
    put_u32(&t, (uint32_t)sp->nx);
    put_u32(&t, (uint32_t)sp->ny);
    put_u32(&t, (uint32_t)(sp->nx * sp->ny));
    put_f32(&t, sp->sx);
    put_f32(&t, sp->sy);
    put_f32(&t, sp->sz);
    for (int k = 0; k < 3; k++)
        memcpy(h + 180 + 16 * k, sp->units[k], strlen(sp->units[k]));
    lwt__put_le16(h + 334, (uint16_t)strlen(comment));
    t.n = 474;
    put_f32(&t, sp->zoff);

    gb raw = {0};
    for (int32_t i = 0; i < sp->nx * sp->ny; i++)
        if (sp->bits == 16)
            put_u16(&raw, (uint16_t)(int16_t)sp->raw[i]);
        else
            put_u32(&raw, (uint32_t)sp->raw[i]);
    size_t nstreams = sp->ncuts + 1, from = 0;
    gb dir = {0}, data = {0};
    put_u32(&dir, (uint32_t)nstreams);
    for (size_t k = 0; k < nstreams; k++) {
        size_t to = k < sp->ncuts ? sp->cuts[k] : raw.n;
        uLongf zn = compressBound(to - from);
        unsigned char *z = malloc(zn);
        CHECK(z && compress2(z, &zn, raw.b + from, to - from, 6) == Z_OK, "compress2 failed");
        put_u32(&dir, (uint32_t)(to - from));
        put_u32(&dir, (uint32_t)zn);
        put(&data, z, zn);
        free(z);
        from = to;
    }
    gb th = {h, 324, 512};
    put_u32(&th, sp->header_block >= 0 ? (uint32_t)sp->header_block : (uint32_t)(dir.n + data.n));
    g->n = 0;
    put(g, h, 512);
    put(g, comment, strlen(comment));
    *block_at = g->n;
    put(g, dir.b, dir.n);
    put(g, data.b, data.n);
    free(raw.b);
    free(dir.b);
    free(data.b);
}

/* the heights the layout defines: raw * (Zspacing * unit) + Zoffset * unit, Zmin - 2 invalid
 * when the flag is set */
static void sur_expect(const sur_spec *sp, double unit_z, double *z)
{
    for (int32_t i = 0; i < sp->nx * sp->ny; i++)
        z[i] = sp->special && sp->raw[i] == sp->zmin - 2
                   ? NAN
                   : (double)sp->raw[i] * ((double)sp->sz * unit_z) + (double)sp->zoff * unit_z;
}

static void test_sur(void)
{
    enum { NX = 7, NY = 5, N = NX * NY };
    int32_t raw32[N], raw16[N];
    double z[N];
    for (int i = 0; i < N; i++) {
        raw32[i] = (int32_t)((i * 2654435761u) ^ 0x5a5a5a5au);
        raw16[i] = (int32_t)(int16_t)(i * 40503u);
    }
    raw32[3] = raw32[20] = -1000002; /* Zmin - 2: not measured */
    raw16[9] = -32768;               /* Zmin - 2 with Zmin -32766 */
    gb g = {0};
    size_t at;

    /* 32 bits, one stream, the flag on; um spacing, nm heights */
    sur_spec a = {32, 1, NX, NY, -1000000, 0.25f, 1.5f, 0.125f, -3.75f, {"\xb5m", "um", "nm"}, raw32, NULL, 0, -1};
    build_sur(&g, &a, &at);
    write_file("a.sur", &g);
    sur_expect(&a, 1e-9, z);
    CHECK(isnan(z[3]) && isnan(z[20]), "the expected heights lack the invalid points");
    expect_surface(lwt_surface_read_sur, "a.sur", &g, "a-sur.dat", NX, NY, z, (double)0.25f * 1e-6,
                   (double)1.5f * 1e-6, "sur");

    /* 16 bits in three streams cut inside points (bytes 5 and 31), the header's block size 0
       (what surfalize wrote before 0.19), mm units */
    static const size_t cuts[] = {5, 31};
    sur_spec b = {16, 1, NX, NY, -32766, 2.0f, 3.0f, 0.001f, 0.5f, {"mm", "mm", "mm"}, raw16, cuts, 2, 0};
    build_sur(&g, &b, &at);
    write_file("b.sur", &g);
    sur_expect(&b, 1e-3, z);
    expect_surface(lwt_surface_read_sur, "b.sur", &g, "b-sur.dat", NX, NY, z, 2.0 * 1e-3, 3.0 * 1e-3, "sur");

    /* hostile ones, from a's bytes */
    build_sur(&g, &a, &at);
    gb bad = {0};
    MUTATE("cut-stream.sur", bad.n -= 9);
    expect_error("cut-stream.sur", LWT_ERR_FORMAT, "truncated");
    MUTATE("cut-directory.sur", bad.n = at + 6);
    expect_error("cut-directory.sur", LWT_ERR_FORMAT, "compressed streams");
    MUTATE("no-streams.sur", set_u32(&bad, at, 0));
    expect_error("no-streams.sur", LWT_ERR_FORMAT, "0 compressed streams");
    MUTATE("many-streams.sur", set_u32(&bad, at, 0xffffffffu));
    expect_error("many-streams.sur", LWT_ERR_FORMAT, "compressed streams");
    /* 70000 streams declared, with room in the file for their directory (a sparse tail) */
    MUTATE("streams-bound.sur", set_u32(&bad, at, 70000));
    write_sparse("streams-bound.sur", &bad, (off_t)at + 4 + 8 * 70000);
    expect_error("streams-bound.sur", LWT_ERR_FORMAT, "more than 65536 are not supported");
    MUTATE("raw-sum.sur", set_u32(&bad, at + 4, N * 4 - 4));
    expect_error("raw-sum.sur", LWT_ERR_FORMAT, "size mismatch");
    MUTATE("zipped-past-end.sur", set_u32(&bad, at + 8, 0x7fffffffu));
    expect_error("zipped-past-end.sur", LWT_ERR_FORMAT, "truncated");
    MUTATE("header-block.sur", set_u32(&bad, 324, 12345));
    expect_error("header-block.sur", LWT_ERR_FORMAT, "header says");
    MUTATE("corrupt-zlib.sur", bad.b[at + 12] ^= 0xff); /* the zlib header's first byte */
    expect_error("corrupt-zlib.sur", LWT_ERR_FORMAT, "zlib says");
    MUTATE("corrupt-deflate.sur", memset(bad.b + at + 14, 0xff, 8));
    expect_error("corrupt-deflate.sur", LWT_ERR_FORMAT, "corrupt");
    /* more points than the streams: 8 x 5 declared, 7 x 5 inflated */
    MUTATE("points.sur", (set_u32(&bad, 108, NX + 1), set_u32(&bad, 116, (NX + 1) * NY)));
    expect_error("points.sur", LWT_ERR_FORMAT, "size mismatch");

    /* b's first stream declares one byte more, its second one less: the sums agree, stream 1 does not */
    build_sur(&g, &b, &at);
    MUTATE("stream-size.sur", (set_u32(&bad, at + 4, 6), set_u32(&bad, at + 12, 25)));
    expect_error("stream-size.sur", LWT_ERR_FORMAT, "stream 1 of 3 inflates to 5 bytes");
    MUTATE("stream-longer.sur", (set_u32(&bad, at + 4, 4), set_u32(&bad, at + 12, 27)));
    expect_error("stream-longer.sur", LWT_ERR_FORMAT, "more than the 4 bytes");

    /* 20000 x 20000 int32 points (1.6 GB) from one stream: first declaring them from 100 zipped
       bytes (more than deflate gives), then from enough zipped bytes in a sparse file, refused
       by the 64 MiB memory limit before anything of that size is allocated */
    build_sur(&g, &a, &at);
    bad.n = 0;
    put(&bad, g.b, at);
    set_u32(&bad, 108, 20000);
    set_u32(&bad, 112, 20000);
    set_u32(&bad, 116, 400000000u);
    set_u32(&bad, 324, 0);
    put_u32(&bad, 1);
    put_u32(&bad, 1600000000u);
    put_u32(&bad, 100);
    write_sparse("ratio.sur", &bad, (off_t)bad.n + 100);
    expect_error("ratio.sur", LWT_ERR_FORMAT, "more than deflate can give");
    set_u32(&bad, at + 8, 1600000000u / 1032 + 1);
    write_sparse("huge.sur", &bad, (off_t)bad.n + 1600000000 / 1032 + 1);
    lwt_context_set_memory_limit(tctx, (size_t)64 << 20);
    expect_error("huge.sur", LWT_ERR_OUT_OF_MEMORY, "memory limit");
    lwt_context_set_memory_limit(tctx, 0);
    free(g.b);
    free(bad.b);
}

/* ------------------------------------------------------------------ .al3d */

static void tag(gb *g, const char *key, const char *value)
{
    unsigned char t[52] = {0};
    memcpy(t, key, strlen(key));
    memcpy(t + 20, value, strlen(value));
    t[50] = '\r';
    t[51] = '\n';
    put(g, t, 52);
}

/* magic, Version, TagCount, the tags (pairs of key, value; "DepthImageOffset" = "auto" puts the
 * image right after the tags and 30 zero bytes), then the depths in scanlines padded to 8 bytes
 * (the last one unpadded with short_last). *depth_at: where the depths start. */
static void build_al3d(gb *g, const char *const *tags, size_t ntags, size_t cols, size_t rows, const float *d,
                       int short_last, size_t *depth_at)
{
    char count[16], off[24];
    *depth_at = 17 + 52 * (2 + ntags) + 30;
    snprintf(count, sizeof count, "%zu", ntags);
    snprintf(off, sizeof off, "%zu", *depth_at);
    g->n = 0;
    put(g, "AliconaImaging\0\r\n", 17);
    tag(g, "Version", "1");
    tag(g, "TagCount", count);
    for (size_t i = 0; i < ntags; i++)
        tag(g, tags[2 * i], strcmp(tags[2 * i + 1], "auto") ? tags[2 * i + 1] : off);
    put_zeros(g, 30);
    size_t stride = (cols * 4 + 7) / 8 * 8;
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < cols; c++)
            put_f32(g, d[r * cols + c]);
        if (!(short_last && r + 1 == rows))
            put_zeros(g, stride - cols * 4);
    }
}

static void test_al3d(void)
{
    enum { C = 5, R = 4, N = C * R };
    float d[N];
    double z[N];
    for (int i = 0; i < N; i++)
        d[i] = (float)((i % 7) - 3) * 1.25e-6f + (float)i * 1e-9f;
    d[2] = 3.0e15f;         /* the marker as Alicona writes it */
    d[7] = 4.0e15f;         /* above it */
    d[11] = NAN;            /* not a number */
    d[13] = -3.0e15f;       /* a large negative depth is a depth */
    for (int i = 0; i < N; i++)
        z[i] = (i == 2 || i == 7 || i == 11) ? NAN : (double)d[i];
    /* the tags in another order than Alicona's, unknown ones among them; InvalidPixelValue with
       fewer digits than the float32 marker (3e+15 is 3000000028082176 as float32) */
    const char *tags[] = {"Rows", "4", "PlaceHolder", "x", "PixelSizeXMeter", "4.38027e-07",
                          "Cols", "5", "DepthImageOffset", "auto", "InvalidPixelValue", "3e+15",
                          "TextureImageOffset", "0", "PixelSizeYMeter", "2.5e-07", "NumberOfPlanes", "0",
                          "CreatingApplication", "crafted 1.0"};
    const size_t nt = sizeof tags / sizeof tags[0] / 2;
    gb g = {0}, bad = {0};
    size_t at;
    build_al3d(&g, tags, nt, C, R, d, 0, &at);
    write_file("a.al3d", &g);
    expect_surface(lwt_surface_read_al3d, "a.al3d", &g, "a-al3d.dat", C, R, z, 4.38027e-07, 2.5e-07, "al3d");
    build_al3d(&g, tags, nt, C, R, d, 1, &at); /* the last scanline without its padding */
    write_file("short.al3d", &g);
    expect_surface(lwt_surface_read_al3d, "short.al3d", &g, "short-al3d.dat", C, R, z, 4.38027e-07, 2.5e-07,
                   "al3d");

    /* hostile ones: a.al3d with one tag's value replaced, or cut */
    struct {
        const char *name, *key, *value;
        int code;
        const char *needle;
    } cases[] = {
        {"rows-text.al3d", "Rows", "four", LWT_ERR_FORMAT, "tag Rows has the value 'four'"},
        {"cols-zero.al3d", "Cols", "0", LWT_ERR_FORMAT, "invalid dimensions"},
        {"cols-huge.al3d", "Cols", "4611686018427387904", LWT_ERR_FORMAT, "invalid dimensions"},
        {"rows-huge.al3d", "Rows", "1000000000000", LWT_ERR_FORMAT, "size mismatch"},
        {"offset-past.al3d", "DepthImageOffset", "99999999", LWT_ERR_FORMAT, "size mismatch"},
        {"offset-zero.al3d", "DepthImageOffset", "0", LWT_ERR_NO_DATA, "no depth image"},
        {"dx-zero.al3d", "PixelSizeXMeter", "0", LWT_ERR_FORMAT, "invalid pixel size"},
        {"dy-nan.al3d", "PixelSizeYMeter", "nan", LWT_ERR_FORMAT, "invalid pixel size"},
        {"no-cols.al3d", "Cols", NULL, LWT_ERR_FORMAT, "no Cols tag"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *t2[2 * 10];
        size_t n2 = 0;
        for (size_t i = 0; i < nt; i++) {
            if (!strcmp(tags[2 * i], cases[k].key) && !cases[k].value)
                continue;
            t2[2 * n2] = tags[2 * i];
            t2[2 * n2 + 1] = !strcmp(tags[2 * i], cases[k].key) ? cases[k].value : tags[2 * i + 1];
            n2++;
        }
        build_al3d(&bad, t2, n2, C, R, d, 0, &at);
        write_file(cases[k].name, &bad);
        expect_error(cases[k].name, cases[k].code, cases[k].needle);
    }
    bad.n = 0;
    put(&bad, g.b, g.n - 1); /* short.al3d one byte short of its last (unpadded) scanline */
    write_file("cut-depths.al3d", &bad);
    bad.n = 0;
    put(&bad, g.b, g.n);
    expect_error("cut-depths.al3d", LWT_ERR_FORMAT, "size mismatch");
    bad.n = 17 + 52 * 4 + 10; /* inside the tags */
    write_file("cut-tags.al3d", &bad);
    expect_error("cut-tags.al3d", LWT_ERR_FORMAT, "truncated: TagCount 10");
    bad.n = 40;
    write_file("cut-head.al3d", &bad);
    expect_error("cut-head.al3d", LWT_ERR_FORMAT, "truncated");
    bad.n = 0;
    put(&bad, g.b, g.n);
    bad.b[17 + 52 * 3 + 51] = 'x'; /* a tag without its CR LF */
    write_file("crlf.al3d", &bad);
    expect_error("crlf.al3d", LWT_ERR_FORMAT, "does not end in CR LF");
    bad.b[17 + 52 * 3 + 51] = '\n';
    memcpy(bad.b + 17 + 52, "TagKount", 8);
    write_file("tagcount.al3d", &bad);
    expect_error("tagcount.al3d", LWT_ERR_FORMAT, "not Version and TagCount");
    memcpy(bad.b + 17 + 52, "TagCount", 8);
    memcpy(bad.b + 17 + 52 + 20, "4000000000", 10);
    write_file("many-tags.al3d", &bad);
    expect_error("many-tags.al3d", LWT_ERR_FORMAT, "truncated: TagCount 4000000000");

    /* 20000 x 20000 depths (1.6 GB) in a sparse file: the memory limit, before any allocation */
    const char *big[] = {"Cols", "20000", "Rows", "20000", "DepthImageOffset", "auto", "PixelSizeXMeter", "1e-6",
                         "PixelSizeYMeter", "1e-6"};
    build_al3d(&bad, big, 5, 1, 1, d, 0, &at);
    write_sparse("huge.al3d", &bad, (off_t)at + (off_t)20000 * 20000 * 4);
    lwt_context_set_memory_limit(tctx, (size_t)64 << 20);
    expect_error("huge.al3d", LWT_ERR_OUT_OF_MEMORY, "memory limit");
    lwt_context_set_memory_limit(tctx, 0);
    free(g.b);
    free(bad.b);
}

/* ------------------------------------------------------------------ .vk4 */

enum { VK4_COND = 84, VK4_COND_SIZE = 304, VK4_IMAGE = VK4_COND + VK4_COND_SIZE };

/* header, offset table (conditions at 84, height[0] right after them), conditions (date, scale in
 * picometres), the height image (header, palette, w x h unsigned heights of bits) */
static void build_vk4(gb *g, uint32_t w, uint32_t h, uint32_t bits, const uint32_t *raw, uint32_t xpp, uint32_t ypp,
                      uint32_t zpd)
{
    g->n = 0;
    put(g, "VK4_", 4);
    put(g, "\0\0\0\1", 4);
    put_u32(g, 0); /* file type */
    put_u32(g, VK4_COND);
    put_zeros(g, 5 * 4); /* colour peak, colour light, light[3] */
    put_u32(g, VK4_IMAGE);
    put_zeros(g, 11 * 4); /* height[1..2], thumbnails, assembly, lines, strings, reserved */
    put_u32(g, VK4_COND_SIZE);
    const uint32_t date[6] = {2026, 11, 27, 10, 20, 30};
    for (int i = 0; i < 6; i++)
        put_u32(g, date[i]);
    put_zeros(g, 168 - 28);
    put_u32(g, xpp);
    put_u32(g, ypp);
    put_u32(g, zpd);
    put_zeros(g, VK4_COND_SIZE - 180);
    put_u32(g, w);
    put_u32(g, h);
    put_u32(g, bits);
    put_u32(g, 0);
    put_u32(g, w * h * (bits / 8));
    put_u32(g, 0);
    put_u32(g, 65535);
    put_zeros(g, 768);
    for (uint32_t i = 0; i < w * h; i++)
        if (bits == 16)
            put_u16(g, (uint16_t)raw[i]);
        else
            put_u32(g, raw[i]);
}

static void test_vk4(void)
{
    enum { W = 6, H = 3, N = W * H };
    uint32_t raw[N];
    double z[N];
    for (int i = 0; i < N; i++)
        raw[i] = (uint32_t)(i * 2246822519u);
    raw[0] = 0;
    raw[1] = 0xffffffffu;
    gb g = {0}, bad = {0};
    /* 32 bits: height = value x 8500 pm; 138.5 nm x 277 nm pixels */
    build_vk4(&g, W, H, 32, raw, 138500, 277000, 8500);
    write_file("a.vk4", &g);
    for (int i = 0; i < N; i++)
        z[i] = (double)raw[i] * (8500 * 1e-12);
    expect_surface(lwt_surface_read_vk4, "a.vk4", &g, "a-vk4.dat", W, H, z, 138500 * 1e-12, 277000 * 1e-12, "vk4");
    lwt_surface s;
    char err[1024];
    if (read_one(lwt_surface_read_vk4, "a.vk4", &s, err) == LWT_OK) {
        CHECK(!strcmp(s.date, "2026-11-27T10:20:30"), "a.vk4: date '%s'", s.date);
        lwt_surface_free(&s);
    }
    for (int i = 0; i < N; i++) {
        raw[i] &= 0xffff;
        z[i] = (double)raw[i] * (1 * 1e-12);
    }
    build_vk4(&g, W, H, 16, raw, 1000000, 1000000, 1);
    write_file("b.vk4", &g);
    expect_surface(lwt_surface_read_vk4, "b.vk4", &g, "b-vk4.dat", W, H, z, 1000000 * 1e-12, 1000000 * 1e-12, "vk4");

    build_vk4(&g, W, H, 32, raw, 138500, 277000, 8500);
    MUTATE("cut-head.vk4", bad.n = 60);
    expect_error("cut-head.vk4", LWT_ERR_FORMAT, "truncated");
    MUTATE("cut-data.vk4", bad.n -= 1);
    expect_error("cut-data.vk4", LWT_ERR_FORMAT, "size mismatch (truncated?)");
    MUTATE("cond-past.vk4", set_u32(&bad, 12, 0xfffffff0u));
    expect_error("cond-past.vk4", LWT_ERR_FORMAT, "measurement conditions");
    MUTATE("cond-size.vk4", set_u32(&bad, VK4_COND, 100));
    expect_error("cond-size.vk4", LWT_ERR_FORMAT, "declares 100 bytes");
    MUTATE("cond-size-past.vk4", set_u32(&bad, VK4_COND, 0x7fffffffu));
    expect_error("cond-size-past.vk4", LWT_ERR_FORMAT, "measurement conditions block declares");
    MUTATE("zero-scale.vk4", set_u32(&bad, VK4_COND + 176, 0));
    expect_error("zero-scale.vk4", LWT_ERR_FORMAT, "invalid scale");
    MUTATE("no-height.vk4", set_u32(&bad, 36, 0));
    expect_error("no-height.vk4", LWT_ERR_NO_DATA, "no height image");
    MUTATE("height-past.vk4", set_u32(&bad, 36, 0xffffff00u));
    expect_error("height-past.vk4", LWT_ERR_FORMAT, "height image at byte");
    MUTATE("bits8.vk4", set_u32(&bad, VK4_IMAGE + 8, 8));
    expect_error("bits8.vk4", LWT_ERR_FORMAT, "8 bits per point");
    MUTATE("compressed.vk4", set_u32(&bad, VK4_IMAGE + 12, 1));
    expect_error("compressed.vk4", LWT_ERR_FORMAT, "compressed height image");
    MUTATE("bytes.vk4", set_u32(&bad, VK4_IMAGE + 16, W * H * 4 - 4));
    expect_error("bytes.vk4", LWT_ERR_FORMAT, "size mismatch");
    /* w x h overflowing 32 bits with a byte size that matches modulo 2^32 */
    MUTATE("overflow.vk4", (set_u32(&bad, VK4_IMAGE, 65536), set_u32(&bad, VK4_IMAGE + 4, 65536),
                            set_u32(&bad, VK4_IMAGE + 16, 0)));
    expect_error("overflow.vk4", LWT_ERR_FORMAT, "size mismatch");
    MUTATE("zero-width.vk4", set_u32(&bad, VK4_IMAGE, 0));
    expect_error("zero-width.vk4", LWT_ERR_FORMAT, "invalid dimensions");
    /* 20000 x 20000 32-bit heights (1.6 GB) in a sparse file: the memory limit */
    bad.n = 0;
    put(&bad, g.b, VK4_IMAGE + 796);
    set_u32(&bad, VK4_IMAGE, 20000);
    set_u32(&bad, VK4_IMAGE + 4, 20000);
    set_u32(&bad, VK4_IMAGE + 16, 1600000000u);
    write_sparse("huge.vk4", &bad, (off_t)VK4_IMAGE + 796 + 1600000000);
    lwt_context_set_memory_limit(tctx, (size_t)64 << 20);
    expect_error("huge.vk4", LWT_ERR_OUT_OF_MEMORY, "memory limit");
    lwt_context_set_memory_limit(tctx, 0);
    free(g.b);
    free(bad.b);
}

/* a folder given to each new reader: refused at once, not opened */
static void test_not_regular(void)
{
    const reader_fn readers[] = {lwt_surface_read_al3d, lwt_surface_read_vk4};
    CHECK(mkdir("folder.al3d", 0755) == 0, "cannot make a folder");
    for (size_t k = 0; k < 2; k++) {
        lwt_surface s;
        char err[1024];
        CHECK(read_one(readers[k], "folder.al3d", &s, err) == LWT_ERR_IO && strstr(err, "is a directory"),
              "reader %zu on a folder: %s", k, err);
    }
    rmdir("folder.al3d");
}

int main(void)
{
    if (!(tctx = test_log_context(&tlog)))
        return 1;
    char dir[] = "bin_scratch.XXXXXX";
    if (enter_scratch_dir(dir, "test_surface_io_bin"))
        return 1;
    test_sur();
    test_al3d();
    test_vk4();
    test_not_regular();
    /* the files this test wrote and nothing else: reading creates no file (temporary or other) */
    CHECK(count_prefix(".", "") == 57 && !exists("folder.al3d"), "%d files in the scratch folder, the test wrote 57",
          count_prefix(".", ""));
    if (leave_scratch_dir(dir, failures != 0)) /* kept when something failed, to look at the files */
        CHECK(0, "cannot leave %s", dir);
    lwt_context_destroy(tctx);
    return finish("test_surface_io_bin");
}
