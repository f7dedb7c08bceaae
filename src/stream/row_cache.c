/* row_cache.c - which bytes of a chunk's window go up, which come from the ring (row_cache.h) */
#include "stream/row_cache.h"

#include <string.h>

void row_cache_init(row_cache *c, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->cap = cap;
}

void row_cache_reset(row_cache *c)
{
    c->base = NULL;
    c->lo = c->hi = 0;
}

/* [x, x + n) of the host array as at most two ring runs (split where the ring wraps) */
static int spans(const row_cache *c, size_t x, size_t n, row_span *out)
{
    int k = 0;
    while (n > 0) {
        const size_t r = x % c->cap, run = c->cap - r < n ? c->cap - r : n;
        out[k].host = x;
        out[k].ring = r;
        out[k].bytes = run;
        k++;
        x += run;
        n -= run;
    }
    return k;
}

void row_cache_plan(row_cache *c, const char *base, size_t a, size_t b, row_plan *p)
{
    memset(p, 0, sizeof *p);
    if (b <= a || b - a > c->cap) {
        return; /* not cached; what the ring holds stays valid */
    }
    p->cached = 1;
    if (c->base != base || a < c->lo || a > c->hi) {
        /* not a continuation: start over at a */
        c->base = base;
        c->lo = c->hi = a;
    }
    if (b > c->hi) {
        /* [hi, b) goes up onto the ring bytes of [lo, b - cap), which are dropped */
        p->nup = spans(c, c->hi, b - c->hi, p->up);
        c->lo = b - c->lo > c->cap ? b - c->cap : c->lo;
        c->hi = b;
    }
    p->nread = spans(c, a, b - a, p->read);
}

int row_plan_overlaps(const row_plan *writer, const row_plan *reader)
{
    for (int i = 0; i < writer->nup; i++)
        for (int j = 0; j < reader->nread; j++) {
            const row_span *u = &writer->up[i], *r = &reader->read[j];
            if (u->ring < r->ring + r->bytes && r->ring < u->ring + u->bytes)
                return 1;
        }
    return 0;
}
