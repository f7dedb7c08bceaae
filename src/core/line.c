/* Line programs (see line.h): index ranges for lifting and the direct path. */
#include "core/line.h"

#include <stdlib.h>

#include "core/extend.h"

long lwt_coeff_len(long n, int F, lwt_mode mode)
{
    if (mode == LWT_MODE_PERIODIZATION)
        return (n + 1) / 2;
    return (n + F - 1) / 2;
}

long lwt_idwt_len(long nc, int F, lwt_mode mode)
{
    if (mode == LWT_MODE_PERIODIZATION)
        return 2 * nc;
    return 2 * nc - F + 2;
}

static lwt_range hull(lwt_range a, lwt_range b)
{
    if (a.hi <= a.lo)
        return b;
    if (b.hi <= b.lo)
        return a;
    lwt_range r = {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return r;
}

/* Walk the steps from the output back to the input, growing the source
 * ranges each step reads; order is the execution order reversed. */
static void propagate(lwt_line_prog *p, const lwt_scheme *s, int forward_exec)
{
    for (int k = 0; k < s->nsteps; k++) {
        int si = forward_exec ? s->nsteps - 1 - k : k;
        const lwt_step *st = &s->steps[si];
        int t = st->target, u = 1 - t;
        p->step[si] = p->ch[t];
        if (p->ch[t].hi > p->ch[t].lo) {
            lwt_range need = {p->ch[t].lo + st->off, p->ch[t].hi + st->off + st->ntaps - 1};
            p->ch[u] = hull(p->ch[u], need);
        }
    }
}

static void common(lwt_line_prog *p, int inverse, int direct, int F, lwt_mode mode)
{
    p->inverse = inverse;
    p->direct = direct;
    p->F = F;
    p->mode = mode;
    p->delta = mode == LWT_MODE_PERIODIZATION ? F / 2 - 1 : 0;
    p->win.nseg = 0;
    p->win.len = 0;
}

void lwt_line_ranges_forward(lwt_line_prog *p, const lwt_scheme *s, long k0, long k1)
{
    p->ch[s->ach].lo = k0 + s->sa;
    p->ch[s->ach].hi = k1 + s->sa;
    p->ch[1 - s->ach].lo = k0 + s->sd;
    p->ch[1 - s->ach].hi = k1 + s->sd;
    propagate(p, s, 1);
}

void lwt_line_prog_forward(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n)
{
    common(p, 0, direct, F, mode);
    p->n = n;
    p->nc = lwt_coeff_len(n, F, mode);
    p->span.lo = 2 - F;
    p->span.hi = 2 * p->nc;
    p->out_lo = 0;
    p->out_hi = p->nc;
    if (!direct)
        lwt_line_ranges_forward(p, s, 0, p->nc);
}

/* coefficients the direct inverse reads for samples m in [m0, m1) */
static void set_inverse_span(lwt_line_prog *p, int F, long m0, long m1)
{
    /* x[m], m - sigma = 2i + e -> i in [floor((m0-sigma)/2), floor((m1-1-sigma)/2)] */
    long ilo = lwt_floor_div(m0 - p->sigma, 2), ihi = lwt_floor_div(m1 - 1 - p->sigma, 2);
    p->span.lo = ilo - (F / 2 - 1);
    p->span.hi = ihi + 1;
}

void lwt_line_prog_inverse(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long nc,
                           long n_out)
{
    common(p, 1, direct, F, mode);
    p->n = n_out;
    p->nc = nc;
    if (mode == LWT_MODE_PERIODIZATION) {
        /* PyWavelets: start = F/4, output shifted by one when F/2 is even */
        long shift = (F / 2) % 2 == 0 ? 1 : 0;
        p->sigma = shift - 2 * (F / 4);
    } else {
        p->sigma = 2 - F;
    }
    p->out_lo = 0;
    p->out_hi = n_out;
    set_inverse_span(p, F, 0, n_out);
    if (!direct)
        lwt_line_ranges_inverse(p, s, 0, n_out);
}

void lwt_line_ranges_inverse(lwt_line_prog *p, const lwt_scheme *s, long m0, long m1)
{
    /* y[m - delta] for m in [m0, m1) */
    long ylo = m0 - p->delta, yhi = m1 - p->delta;
    p->ch[0].lo = -lwt_floor_div(-ylo, 2);            /* ceil(ylo/2) */
    p->ch[0].hi = -lwt_floor_div(-yhi, 2);
    p->ch[1].lo = -lwt_floor_div(-(ylo - 1), 2);
    p->ch[1].hi = -lwt_floor_div(-(yhi - 1), 2);
    propagate(p, s, 0);
}

/* ------------------------------------------------------- streamed passes */

/* Sorted disjoint index intervals, merged down to LWT_WINDOW_MAX_SEGS. */
typedef struct ivset {
    int n, cap;
    lwt_range *r;
} ivset;

static int iv_add(ivset *v, long lo, long hi)
{
    if (hi <= lo)
        return 0;
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 16;
        lwt_range *r = realloc(v->r, (size_t)cap * sizeof *r);
        if (!r)
            return -1;
        v->r = r;
        v->cap = cap;
    }
    v->r[v->n].lo = lo;
    v->r[v->n].hi = hi;
    v->n++;
    return 0;
}

static int iv_cmp(const void *a, const void *b)
{
    const lwt_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Merge touching intervals, then the closest neighbours until few enough
 * remain (a merge reads the rows in between: correct, just more traffic). */
static void iv_to_window(ivset *v, lwt_window *w)
{
    qsort(v->r, (size_t)v->n, sizeof *v->r, iv_cmp);
    int m = 0;
    for (int i = 0; i < v->n; i++) {
        if (m && v->r[i].lo <= v->r[m - 1].hi) {
            if (v->r[i].hi > v->r[m - 1].hi)
                v->r[m - 1].hi = v->r[i].hi;
        } else {
            v->r[m++] = v->r[i];
        }
    }
    while (m > LWT_WINDOW_MAX_SEGS) {
        int best = 0;
        for (int i = 1; i + 1 < m; i++)
            if (v->r[i + 1].lo - v->r[i].hi < v->r[best + 1].lo - v->r[best].hi)
                best = i;
        v->r[best].hi = v->r[best + 1].hi;
        for (int i = best + 1; i + 1 < m; i++)
            v->r[i] = v->r[i + 1];
        m--;
    }
    w->nseg = m;
    w->len = 0;
    for (int i = 0; i < m; i++) {
        w->lo[i] = v->r[i].lo;
        w->hi[i] = v->r[i].hi;
        w->pos[i] = w->len;
        w->len += v->r[i].hi - v->r[i].lo;
    }
}

/* every real sample behind the extended samples [lo, hi) of a length-N signal;
   nonzero_only: only those an extended sample takes with a weight other than 0 */
static int add_extended(ivset *v, int mode, long N, long lo, long hi, int nonzero_only)
{
    if (iv_add(v, lo > 0 ? lo : 0, hi < N ? hi : N))
        return -1;
    for (long n = lo; n < hi; n++) {
        if (n >= 0 && n < N) {
            n = N - 1; /* the in-range run was added whole */
            continue;
        }
        lwt_ext_terms t;
        lwt_extend(mode, N, n, &t);
        for (int k = 0; k < t.n; k++)
            if ((!nonzero_only || t.w[k] != 0.0) && iv_add(v, t.idx[k], t.idx[k] + 1))
                return -1;
    }
    return 0;
}

/* every stored coefficient behind coefficient indices [lo, hi) */
static int add_coeffs(ivset *v, const lwt_line_prog *p, long lo, long hi)
{
    if (p->mode != LWT_MODE_PERIODIZATION)
        return iv_add(v, lo > 0 ? lo : 0, hi < p->nc ? hi : p->nc);
    if (hi - lo >= p->nc)
        return iv_add(v, 0, p->nc);
    long a = lwt_mod(lo, p->nc), b = a + (hi - lo);
    if (b <= p->nc)
        return iv_add(v, a, b);
    return iv_add(v, a, p->nc) || iv_add(v, 0, b - p->nc);
}

static void finish_window(lwt_line_prog *p, ivset *v, int failed)
{
    if (failed) {
        p->win.nseg = 0;
        p->win.len = -1; /* out of memory for the interval list: callers check */
    } else if (v->n == 0) {
        p->win.nseg = 1; /* reads nothing (every coefficient it touches is zero) */
        p->win.lo[0] = p->win.hi[0] = p->win.pos[0] = 0;
        p->win.len = 0;
    } else {
        iv_to_window(v, &p->win);
    }
    free(v->r);
}

static void forward_part(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n, long k0,
                         long k1, int nonzero_only)
{
    lwt_line_prog_forward(p, s, direct, F, mode, n);
    p->out_lo = k0;
    p->out_hi = k1;
    ivset v = {0, 0, NULL};
    int failed = 0;
    if (direct) {
        p->span.lo = 2 * k0 + 2 - F;
        p->span.hi = 2 * k1;
        failed = add_extended(&v, mode, n, p->span.lo + p->delta, p->span.hi + p->delta, nonzero_only);
    } else {
        lwt_line_ranges_forward(p, s, k0, k1);
        for (int c = 0; c < 2 && !failed; c++)
            if (p->ch[c].hi > p->ch[c].lo)
                failed = add_extended(&v, mode, n, 2 * p->ch[c].lo + c + p->delta,
                                      2 * (p->ch[c].hi - 1) + c + p->delta + 1, nonzero_only);
    }
    finish_window(p, &v, failed);
}

void lwt_line_prog_forward_part(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n,
                                long k0, long k1)
{
    forward_part(p, s, direct, F, mode, n, k0, k1, 0);
}

void lwt_line_prog_forward_deps(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n,
                                long k0, long k1)
{
    forward_part(p, s, direct, F, mode, n, k0, k1, 1);
}

void lwt_line_prog_inverse_part(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long nc,
                                long n_out, long m0, long m1)
{
    lwt_line_prog_inverse(p, s, direct, F, mode, nc, n_out);
    p->out_lo = m0;
    p->out_hi = m1;
    ivset v = {0, 0, NULL};
    int failed = 0;
    if (direct) {
        set_inverse_span(p, F, m0, m1);
        failed = add_coeffs(&v, p, p->span.lo, p->span.hi);
    } else {
        lwt_line_ranges_inverse(p, s, m0, m1);
        const int a = s->ach, d = 1 - s->ach;
        failed = add_coeffs(&v, p, p->ch[a].lo - s->sa, p->ch[a].hi - s->sa) ||
                 add_coeffs(&v, p, p->ch[d].lo - s->sd, p->ch[d].hi - s->sd);
    }
    finish_window(p, &v, failed);
}
