#include "mpi/spans.h"

#include <stdlib.h>

void spans_free(spans *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

void spans_add(spans *s, size_t lo, size_t hi)
{
    if (lo >= hi || s->failed)
        return;
    if (s->n && s->v[s->n - 1].hi == lo) { /* a recipe's runs come mostly in order */
        s->v[s->n - 1].hi = hi;
        return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        span *v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            s->failed = 1;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n].lo = lo;
    s->v[s->n].hi = hi;
    s->n++;
}

static int by_lo(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void spans_normalize(spans *s)
{
    if (s->n < 2)
        return;
    qsort(s->v, s->n, sizeof *s->v, by_lo);
    size_t k = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->v[i].lo <= s->v[k].hi) {
            if (s->v[i].hi > s->v[k].hi)
                s->v[k].hi = s->v[i].hi;
        } else {
            s->v[++k] = s->v[i];
        }
    }
    s->n = k + 1;
}

void spans_intersect(const spans *a, const spans *b, spans *out)
{
    out->n = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        const size_t lo = a->v[i].lo > b->v[j].lo ? a->v[i].lo : b->v[j].lo;
        const size_t hi = a->v[i].hi < b->v[j].hi ? a->v[i].hi : b->v[j].hi;
        spans_add(out, lo, hi);
        if (a->v[i].hi < b->v[j].hi)
            i++;
        else
            j++;
    }
}

size_t spans_count(const spans *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->v[i].hi - s->v[i].lo;
    return n;
}

int spans_has(const spans *s, size_t i)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        const size_t m = lo + (hi - lo) / 2;
        if (s->v[m].hi <= i)
            lo = m + 1;
        else if (s->v[m].lo > i)
            hi = m;
        else
            return 1;
    }
    return 0;
}

int spans_add_copy(spans *s, const rcopy *c, int src, const char *base)
{
    const rloc *l = src ? &c->src : &c->dst;
    if (l->buf >= 0 || l->host != base)
        return 0;
    const size_t *st = src ? c->ss : c->ds;
    for (size_t i0 = 0; i0 < c->n[0]; i0++)
        for (size_t i1 = 0; i1 < c->n[1]; i1++) {
            const size_t lo = l->off + i0 * st[0] + i1 * st[1];
            spans_add(s, lo, lo + c->n[2]);
        }
    return 1;
}

int spans_add_extent(spans *s, const rcopy *c, int src, const char *base)
{
    const rloc *l = src ? &c->src : &c->dst;
    if (l->buf >= 0 || l->host != base)
        return 0;
    if (c->n[0] && c->n[1] && c->n[2]) {
        const size_t *st = src ? c->ss : c->ds;
        spans_add(s, l->off, l->off + (c->n[0] - 1) * st[0] + (c->n[1] - 1) * st[1] + c->n[2]);
    }
    return 1;
}
