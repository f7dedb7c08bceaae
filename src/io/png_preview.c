/* png_preview.c - palette PNG previews with colour and length scale bars (png_preview.h). */
#define _POSIX_C_SOURCE 200809L

#include "io/png_preview.h"
#include "io/atomic_file.h"
#include "io/font.h"
#include "io/surface_file.h"
#include "surface/select.h"

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* palette: NCOL colour-map entries, then the fixed colours */
#define NCOL 240
enum { IDX_NAN = NCOL, IDX_BG, IDX_FG, IDX_FRAME, NPAL };

static const unsigned char ANCHORS[][3] = {
    {20, 30, 110}, {30, 100, 200}, {40, 190, 210}, {110, 200, 90}, {240, 220, 60}, {245, 140, 40}, {170, 30, 30}};

static void palette(png_color *pal)
{
    const int na = (int)(sizeof ANCHORS / sizeof ANCHORS[0]);
    for (int i = 0; i < NCOL; i++) {
        double t = (double)i / (NCOL - 1) * (na - 1);
        int a = (int)t < na - 1 ? (int)t : na - 2;
        double f = t - a;
        pal[i].red = (png_byte)lround(ANCHORS[a][0] * (1 - f) + ANCHORS[a + 1][0] * f);
        pal[i].green = (png_byte)lround(ANCHORS[a][1] * (1 - f) + ANCHORS[a + 1][1] * f);
        pal[i].blue = (png_byte)lround(ANCHORS[a][2] * (1 - f) + ANCHORS[a + 1][2] * f);
    }
    pal[IDX_NAN] = (png_color){170, 170, 170};
    pal[IDX_BG] = (png_color){255, 255, 255};
    pal[IDX_FG] = (png_color){0, 0, 0};
    pal[IDX_FRAME] = (png_color){90, 90, 90};
}

/* ------------------------------------------------------------------ canvas */

typedef struct canvas {
    int w, h;
    unsigned char *px;
} canvas;

static void fill_rect(canvas *c, int x, int y, int w, int h, unsigned char v)
{
    for (int j = y < 0 ? 0 : y; j < y + h && j < c->h; j++)
        for (int i = x < 0 ? 0 : x; i < x + w && i < c->w; i++)
            c->px[(size_t)j * c->w + i] = v;
}

static void draw_text(canvas *c, int x, int y, const char *s, int scale)
{
    while (*s) {
        const char *const *g = lwt_font_glyph(&s);
        for (int r = 0; r < LWT_FONT_H; r++)
            for (int k = 0; k < LWT_FONT_W; k++)
                if (g[r][k] == '#')
                    fill_rect(c, x + k * scale, y + r * scale, scale, scale, IDX_FG);
        x += LWT_FONT_ADVANCE * scale;
    }
}

/* ------------------------------------------------------------------ maps */

/* box average (shrinking) or nearest point (enlarging) of z onto w x h */
static void resample(const double *z, size_t nx, size_t ny, int w, int h, double *out)
{
    for (int Y = 0; Y < h; Y++) {
        size_t y0 = (size_t)((double)Y * ny / h), y1 = (size_t)((double)(Y + 1) * ny / h);
        if (y1 <= y0) y1 = y0 + 1;
        if (y1 > ny) y1 = ny;
        for (int X = 0; X < w; X++) {
            size_t x0 = (size_t)((double)X * nx / w), x1 = (size_t)((double)(X + 1) * nx / w);
            if (x1 <= x0) x1 = x0 + 1;
            if (x1 > nx) x1 = nx;
            double s = 0;
            size_t cnt = 0;
            for (size_t j = y0; j < y1; j++)
                for (size_t i = x0; i < x1; i++)
                    if (isfinite(z[j * nx + i])) {
                        s += z[j * nx + i];
                        cnt++;
                    }
            out[(size_t)Y * w + X] = cnt ? s / (double)cnt : NAN;
        }
    }
}

/* 0.5 % and 99.5 % quantiles of the finite values; 0 when there are none */
static int value_range(const double *v, size_t n, double *lo, double *hi)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    size_t m = 0;
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            s[m++] = v[i];
    if (m == 0) {
        *lo = -1;
        *hi = 1;
    } else {
        *lo = lwt__select_kth(s, m, (size_t)(0.005 * (double)(m - 1)));
        *hi = lwt__select_kth(s, m, (size_t)ceil(0.995 * (double)(m - 1)));
    }
    free(s);
    if (!(*hi > *lo)) {
        double e = fabs(*lo) * 1e-6 + 1e-12;
        *lo -= e;
        *hi += e;
    }
    return 0;
}

/* 1, 2 or 5 times a power of ten, near x */
static double nice_step(double x)
{
    double p = pow(10, floor(log10(x))), m = x / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void format_tick(char *buf, size_t n, double v, double step)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (fabs(v) < step * 1e-6)
        v = 0;
    if (fabs(v) >= 1e6 || dec > 6)
        snprintf(buf, n, "%.3g", v);
    else
        snprintf(buf, n, "%.*f", dec, v);
}

typedef struct layout {
    int ts;                 /* text scale */
    int mw, mh;             /* map size */
    int pw, ph;             /* panel size */
    int map_x, map_y;       /* map origin inside a panel */
    int bar_x, bar_w;       /* colour bar */
} layout;

static layout make_layout(size_t nx, size_t ny, double dx, double dy, int panel_px)
{
    layout L;
    double W = (double)nx * dx, H = (double)ny * dy, s = panel_px / (W > H ? W : H);
    L.mw = (int)lround(W * s);
    L.mh = (int)lround(H * s);
    if (L.mw < 1) L.mw = 1;
    if (L.mh < 1) L.mh = 1;
    L.ts = panel_px >= 700 ? 2 : 1;
    int m = 10 * L.ts, title_h = LWT_FONT_H * (L.ts + 1) + 8 * L.ts, below = LWT_FONT_H * L.ts + 16 * L.ts;
    L.map_x = m;
    L.map_y = m + title_h;
    L.bar_x = m + L.mw + 10 * L.ts;
    L.bar_w = 14 * L.ts;
    int label_w = 10 * LWT_FONT_ADVANCE * L.ts;
    L.pw = L.bar_x + L.bar_w + 6 * L.ts + label_w + m;
    L.ph = L.map_y + L.mh + below + m;
    return L;
}

static int draw_map(canvas *c, const layout *L, int ox, const lwt_preview_map *m, size_t nx, size_t ny, double dx)
{
    double *img = malloc((size_t)L->mw * L->mh * sizeof *img), lo, hi;
    if (!img)
        return -1;
    resample(m->z, nx, ny, L->mw, L->mh, img);
    if (value_range(img, (size_t)L->mw * L->mh, &lo, &hi)) {
        free(img);
        return -1;
    }
    const int ts = L->ts, mx = ox + L->map_x, my = L->map_y;
    for (int Y = 0; Y < L->mh; Y++)
        for (int X = 0; X < L->mw; X++) {
            double v = img[(size_t)Y * L->mw + X];
            unsigned char k = IDX_NAN;
            if (isfinite(v)) {
                double t = (v - lo) / (hi - lo);
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                k = (unsigned char)lround(t * (NCOL - 1));
            }
            c->px[(size_t)(my + Y) * c->w + mx + X] = k;
        }
    free(img);
    /* title, frame */
    draw_text(c, mx, 10 * ts, m->title ? m->title : "", ts + 1);
    fill_rect(c, mx - 1, my - 1, L->mw + 2, 1, IDX_FRAME);
    fill_rect(c, mx - 1, my + L->mh, L->mw + 2, 1, IDX_FRAME);
    fill_rect(c, mx - 1, my - 1, 1, L->mh + 2, IDX_FRAME);
    fill_rect(c, mx + L->mw, my - 1, 1, L->mh + 2, IDX_FRAME);
    /* colour bar: top = hi; ticks in micrometres */
    const int bx = ox + L->bar_x, bh = L->mh;
    for (int Y = 0; Y < bh; Y++)
        fill_rect(c, bx, my + Y, L->bar_w, 1,
                  (unsigned char)lround((1.0 - (double)Y / (bh > 1 ? bh - 1 : 1)) * (NCOL - 1)));
    draw_text(c, bx, my - (LWT_FONT_H + 4) * ts, "\xC2\xB5m", ts);
    double lo_um = lo * 1e6, hi_um = hi * 1e6, step = nice_step((hi_um - lo_um) / 4);
    for (double t = ceil(lo_um / step) * step; t <= hi_um + 1e-9 * step; t += step) {
        int y = my + (int)lround((hi_um - t) / (hi_um - lo_um) * (bh - 1));
        char lab[32];
        format_tick(lab, sizeof lab, t, step);
        fill_rect(c, bx + L->bar_w - 4 * ts, y, 4 * ts, ts, IDX_FG); /* tick inside the bar */
        int ty = y - LWT_FONT_H * ts / 2;
        if (ty < my - 2 * ts) ty = my - 2 * ts;
        draw_text(c, bx + L->bar_w + 4 * ts, ty, lab, ts);
    }
    /* length scale bar below the map */
    double width_um = (double)nx * dx * 1e6, len = nice_step(width_um / 4);
    int lpx = (int)lround(len / width_um * L->mw);
    char lab[32];
    if (len >= 1000)
        snprintf(lab, sizeof lab, "%g mm", len / 1000);
    else
        snprintf(lab, sizeof lab, "%g \xC2\xB5m", len);
    int sy = my + L->mh + 6 * ts;
    fill_rect(c, mx, sy, lpx, 3 * ts, IDX_FG);
    draw_text(c, mx + lpx + 6 * ts, sy - (LWT_FONT_H * ts - 3 * ts) / 2, lab, ts);
    return 0;
}

/* ------------------------------------------------------------------ PNG */

typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
    int oom;
} membuf;

static void mem_write(png_structp png, png_bytep data, png_size_t n)
{
    membuf *b = (membuf *)png_get_io_ptr(png);
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 65536);
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void mem_flush(png_structp png)
{
    (void)png;
}

static int encode_png(const canvas *c, membuf *out)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *rows = malloc((size_t)c->h * sizeof *rows);
    volatile int rc = -1;
    if (!png || !info || !rows)
        goto done;
    if (setjmp(png_jmpbuf(png)))
        goto done;
    png_set_write_fn(png, out, mem_write, mem_flush);
    png_set_compression_level(png, 3);
    png_set_IHDR(png, info, (png_uint_32)c->w, (png_uint_32)c->h, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color pal[NPAL];
    palette(pal);
    png_set_PLTE(png, info, pal, NPAL);
    png_text txt = {0};
    txt.compression = PNG_TEXT_COMPRESSION_NONE;
    txt.key = (png_charp) "Software";
    txt.text = (png_charp) "lwt";
    png_set_text(png, info, &txt, 1);
    png_write_info(png, info);
    for (int j = 0; j < c->h; j++)
        rows[j] = c->px + (size_t)j * c->w;
    png_write_image(png, rows);
    png_write_end(png, NULL);
    rc = out->oom ? -1 : 0;
done:
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    free(rows);
    return rc;
}

lwt_status lwt_png_write_maps(lwt_context *ctx, const char *path, const lwt_preview_map *maps, int nmaps, size_t nx,
                              size_t ny, double dx, double dy, int panel_px)
{
    if (!path || !maps || nmaps < 1 || nmaps > 16 || nx < 1 || ny < 1 || !(dx > 0) || !(dy > 0) || panel_px < 16 ||
        panel_px > 8192)
        return lwt__file_fail(ctx, LWT_ERR_INVALID_ARGUMENT, path, "bad preview arguments");
    layout L = make_layout(nx, ny, dx, dy, panel_px);
    canvas c = {L.pw * nmaps, L.ph, NULL};
    c.px = malloc((size_t)c.w * c.h);
    membuf b = {0};
    lwt_status rc = LWT_ERR_OUT_OF_MEMORY;
    if (!c.px)
        goto done;
    memset(c.px, IDX_BG, (size_t)c.w * c.h);
    for (int k = 0; k < nmaps; k++)
        if (draw_map(&c, &L, k * L.pw, &maps[k], nx, ny, dx))
            goto done;
    if (encode_png(&c, &b))
        goto done;
    rc = lwt_write_file_atomic(ctx, path, b.p, b.len);
    goto out;
done:
    lwt__file_fail(ctx, rc, path, "out of memory drawing the preview");
out:
    free(c.px);
    free(b.p);
    return rc;
}
