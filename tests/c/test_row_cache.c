/* test_row_cache.c - the GPU stream worker's row cache bookkeeping (stream/row_cache.h), run on
 * a simulated ring: every window read out of the ring equals the host bytes, also when windows
 * in flight are read late (after later uploads that row_plan_overlaps does not flag); a run of
 * adjacent windows uploads each byte once; windows the ring cannot hold are not cached and leave
 * what it holds valid; a reset makes the bytes go up again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stream/row_cache.h"

#define HOST 20000
#define INFLIGHT 3

static unsigned char host[HOST], other[HOST];

typedef struct sim {
    row_cache c;
    unsigned char *ring;
    size_t uploaded;
    /* windows planned and not yet read: what they will read from the ring */
    struct { const unsigned char *base; size_t a, b; row_plan p; int live; } fl[INFLIGHT];
    int next;
} sim;

static void sim_init(sim *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    row_cache_init(&s->c, cap);
    s->ring = calloc(cap ? cap : 1, 1);
}

/* Read window k out of the ring (as the compute stream does later) and check it. */
static void sim_read(sim *s, int k, const char *what)
{
    if (!s->fl[k].live)
        return;
    const row_plan *p = &s->fl[k].p;
    unsigned char *win = malloc(s->fl[k].b - s->fl[k].a);
    for (int i = 0; i < p->nread; i++)
        memcpy(win + (p->read[i].host - s->fl[k].a), s->ring + p->read[i].ring, p->read[i].bytes);
    CHECK(memcmp(win, s->fl[k].base + s->fl[k].a, s->fl[k].b - s->fl[k].a) == 0, "%s: window [%zu, %zu) read back wrong",
          what, s->fl[k].a, s->fl[k].b);
    free(win);
    s->fl[k].live = 0;
}

/* Plan window [a, b) of base; the oldest window in flight is read first (the ring keeps
 * INFLIGHT windows pending). A pending window that row_plan_overlaps flags is read before the
 * upload (the worker waits for its copy); the others are read as late as possible. */
static void sim_window(sim *s, const unsigned char *base, size_t a, size_t b, const char *what)
{
    const int k = s->next;
    sim_read(s, k, what);
    row_plan p;
    row_cache_plan(&s->c, (const char *)base, a, b, &p);
    if (!p.cached) {
        CHECK(b - a > s->c.cap, "%s: window [%zu, %zu) fits the ring (%zu) but was not cached", what, a, b, s->c.cap);
        return;
    }
    size_t covered = 0;
    for (int i = 0; i < p.nread; i++) {
        CHECK(p.read[i].ring + p.read[i].bytes <= s->c.cap, "%s: a read wraps the ring", what);
        covered += p.read[i].bytes;
    }
    CHECK(covered == b - a, "%s: reads cover %zu of %zu bytes", what, covered, b - a);
    for (int j = 0; j < INFLIGHT; j++)
        if (s->fl[j].live && row_plan_overlaps(&p, &s->fl[j].p))
            sim_read(s, j, what);
    for (int i = 0; i < p.nup; i++) {
        const row_span *u = &p.up[i];
        CHECK(u->ring + u->bytes <= s->c.cap, "%s: an upload wraps the ring", what);
        memcpy(s->ring + u->ring, base + u->host, u->bytes);
        s->uploaded += u->bytes;
    }
    s->fl[k].base = base;
    s->fl[k].a = a;
    s->fl[k].b = b;
    s->fl[k].p = p;
    s->fl[k].live = 1;
    s->next = (k + 1) % INFLIGHT;
}

static void sim_drain(sim *s, const char *what)
{
    for (int k = 0; k < INFLIGHT; k++)
        sim_read(s, (s->next + k) % INFLIGHT, what);
}

int main(void)
{
    for (int i = 0; i < HOST; i++) {
        host[i] = (unsigned char)(i * 131 + 7);
        other[i] = (unsigned char)(i * 17 + 3);
    }
    /* adjacent windows with halos: each byte goes up once */
    {
        const size_t own = 700, halo = 150;
        sim s;
        sim_init(&s, (INFLIGHT + 2) * (own + 2 * halo));
        size_t last = 0;
        for (size_t o = 0; o < HOST; o += own) {
            size_t a = o > halo ? o - halo : 0, b = o + own + halo < HOST ? o + own + halo : HOST;
            sim_window(&s, host, a, b, "sliding");
            last = b;
        }
        sim_drain(&s, "sliding");
        CHECK(s.uploaded == last, "sliding: %zu bytes uploaded for %zu distinct", s.uploaded, last);
        free(s.ring);
    }
    /* a small ring: windows just fit, evictions hit windows in flight */
    {
        const size_t own = 64, halo = 40;
        sim s;
        sim_init(&s, own + 2 * halo + 13);
        for (size_t o = 0; o < 4000; o += own)
            sim_window(&s, host, o > halo ? o - halo : 0, o + own + halo, "tight ring");
        sim_drain(&s, "tight ring");
        free(s.ring);
    }
    /* random windows: jumps back and forth, another array, oversize windows */
    {
        sim s;
        sim_init(&s, 3000);
        unsigned seed = 99;
        size_t pos = 0;
        for (int t = 0; t < 4000; t++) {
            seed = seed * 1103515245u + 12345u;
            const unsigned r = (seed >> 8) % 100;
            size_t len = 1 + (seed >> 12) % 1400;
            const unsigned char *base = host;
            if (r < 60) {
                /* the next window overlaps this one */
                pos += (seed >> 4) % 500;
            } else if (r < 80) {
                pos = (seed >> 3) % HOST;
            } else if (r < 90) {
                base = other;
                pos = (seed >> 5) % HOST;
            } else {
                len = 3001 + (seed >> 6) % 2000; /* bigger than the ring */
            }
            if (pos >= HOST - 1)
                pos = 0;
            size_t b = pos + len < HOST ? pos + len : HOST;
            sim_window(&s, base, pos, b, "random");
        }
        sim_drain(&s, "random");
        free(s.ring);
    }
    /* reset: the same bytes of a changed array must go up again */
    {
        sim s;
        sim_init(&s, 4096);
        row_plan p;
        row_cache_plan(&s.c, (const char *)host, 0, 1000, &p);
        CHECK(p.cached && p.nup == 1 && p.up[0].bytes == 1000, "first window uploads everything");
        row_cache_plan(&s.c, (const char *)host, 200, 900, &p);
        CHECK(p.cached && p.nup == 0, "a window inside what the ring holds uploads nothing (%d spans)", p.nup);
        row_cache_reset(&s.c);
        row_cache_plan(&s.c, (const char *)host, 200, 900, &p);
        CHECK(p.cached && p.nup == 1 && p.up[0].bytes == 700, "after a reset the window goes up again");
        free(s.ring);
    }
    /* going back: a window whose start the ring has dropped goes up again */
    {
        sim s;
        sim_init(&s, 1000);
        sim_window(&s, host, 0, 600, "back");
        sim_window(&s, host, 500, 1100, "back"); /* drops [0, 100) */
        sim_window(&s, host, 50, 700, "back");
        sim_window(&s, host, 120, 1000, "back");
        sim_drain(&s, "back");
        free(s.ring);
    }
    return finish("test_row_cache");
}
