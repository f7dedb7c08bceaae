/*
 * byte_buf.h - a growing byte buffer for the C tests that write files byte by byte (the .gwy,
 * .sur, .al3d and .vk4 writers of test_surface_io_gwy.c and test_surface_io_bin.c), with
 * little-endian stores. Header-only; exits on out of memory (a test, not the library).
 */
#ifndef LWT_TEST_BYTE_BUF_H
#define LWT_TEST_BYTE_BUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/surface_file.h"

typedef struct {
    unsigned char *b;
    size_t n, cap;
} gb;

static inline void put(gb *g, const void *p, size_t n)
{
    if (g->n + n > g->cap) {
        size_t cap = (g->n + n) * 2 + 64;
        unsigned char *nb = realloc(g->b, cap);
        if (!nb)
            exit(1);
        g->b = nb;
        g->cap = cap;
    }
    if (n)
        memcpy(g->b + g->n, p, n);
    g->n += n;
}
static inline void put_u32(gb *g, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(g, b, 4);
}
static inline void put_f64(gb *g, double d)
{
    unsigned char b[8];
    lwt__put_lef64(b, d);
    put(g, b, 8);
}
static inline void put_u16(gb *g, uint16_t v)
{
    unsigned char b[2];
    lwt__put_le16(b, v);
    put(g, b, 2);
}
static inline void put_f32(gb *g, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(g, u);
}
static inline void put_zeros(gb *g, size_t n)
{
    while (n--)
        put(g, "", 1);
}
/* the little-endian uint32 at byte off of g, written over */
static inline void set_u32(gb *g, size_t off, uint32_t v)
{
    gb t = {g->b + off, 0, 4};
    put_u32(&t, v);
}
#endif
