/* Line programs (see line.h): index ranges for lifting and the direct path. */
#include "core/line.h"

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
    if (!direct)
        lwt_line_ranges_forward(p, s, 0, p->nc);
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
    /* x[m], m in [0, n_out): m - sigma = 2i + e -> i in [floor(-sigma/2), floor((n_out-1-sigma)/2)] */
    long ilo = lwt_floor_div(-p->sigma, 2), ihi = lwt_floor_div(n_out - 1 - p->sigma, 2);
    p->span.lo = ilo - (F / 2 - 1);
    p->span.hi = ihi + 1;
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
