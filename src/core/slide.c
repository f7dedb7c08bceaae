/* Sliding-window 2-D level: host-side planning (see slide.h). */
#include "core/slide.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/extend.h"
#include "core/line.h"

void lwt_slide_fill_axis(lwt_slide_axis *a, lwt_line_prog *p, const lwt_scheme *s, lwt_mode mode, int F, int inverse,
                         long n, long nc, int T)
{
    if (inverse) {
        lwt_line_prog_inverse(p, s, 0, F, mode, nc, n);
        lwt_line_ranges_inverse(p, s, 0, 2L * T);
    } else {
        lwt_line_prog_forward(p, s, 0, F, mode, n);
        lwt_line_ranges_forward(p, s, 0, T);
    }
    a->n = n;
    a->nc = p->nc;
    a->delta = p->delta;
    a->mode = (int)mode;
    a->T = T;
    for (int c = 0; c < 2; c++) {
        a->lo[c] = p->ch[c].lo;
        a->len[c] = (int)(p->ch[c].hi > p->ch[c].lo ? p->ch[c].hi - p->ch[c].lo : 0);
    }
    for (int k = 0; k < s->nsteps; k++) {
        a->step_lo[k] = p->step[k].lo;
        a->step_len[k] = (int)(p->step[k].hi > p->step[k].lo ? p->step[k].hi - p->step[k].lo : 0);
    }
}

/* smallest lags that keep every dependency (slide.h) */
static void compute_lags(lwt_slide_geom *g, const lwt_scheme *s)
{
    int writer_lag[2] = {0, 0}; /* lag of the last step writing each channel (loads: 0) */
    for (int k = 0; k < g->nsteps; k++) {
        const lwt_step *st = &s->steps[lwt_slide_step_index(g, k)];
        const int t = st->target, u = 1 - t;
        int lag = writer_lag[t];
        if (writer_lag[u] + st->off + st->ntaps - 1 > lag)
            lag = writer_lag[u] + st->off + st->ntaps - 1;
        for (int j = 0; j < k; j++) { /* earlier steps reading t */
            const lwt_step *sj = &s->steps[lwt_slide_step_index(g, j)];
            if (sj->target != t && g->lag[j] - sj->off > lag)
                lag = g->lag[j] - sj->off;
        }
        g->lag[k] = lag;
        writer_lag[t] = lag;
    }
}

static long min_l(long a, long b) { return a < b ? a : b; }
static long max_l(long a, long b) { return a > b ? a : b; }

/*
 * Run the schedule of one block with S rows per iteration: the iteration
 * count and the ring rows it needs (the span from the oldest row any later
 * access touches to the newest row loaded). Returns -1 when it does not
 * finish or touches a row before it is loaded.
 */
static long simulate(lwt_slide_geom *g, const lwt_scheme *s, int S)
{
    g->S = S;
    const lwt_slide_axis *a = &g->ax[0];
    long hi_all = max_l(a->lo[0] + a->len[0], a->lo[1] + a->len[1]);
    int max_iters = (int)((hi_all - g->m_start) / S) + 4 + (g->lag[g->nsteps ? g->nsteps - 1 : 0] + S) / S * 4;
    long *minacc = malloc(sizeof(long) * 2 * (size_t)max_iters), *top = malloc(sizeof(long) * 2 * (size_t)max_iters);
    if (!minacc || !top) {
        free(minacc);
        free(top);
        return -1;
    }
    int iters = -1;
    long bad = 0;
    for (int i = 0; i < max_iters && iters < 0; i++) {
        const long L = g->m_start + (long)(i + 1) * S, Lp = L - S;
        for (int c = 0; c < 2; c++) {
            minacc[2 * i + c] = LONG_MAX;
            top[2 * i + c] = lwt_slide_loaded(g, c, L) - 1;
            long l0 = lwt_slide_loaded(g, c, Lp), l1 = lwt_slide_loaded(g, c, L);
            if (l1 > l0)
                minacc[2 * i + c] = l0;
        }
        for (int k = 0; k < g->nsteps; k++) {
            const lwt_step *st = &s->steps[lwt_slide_step_index(g, k)];
            long f = lwt_slide_front(g, k, Lp), e = lwt_slide_front(g, k, L);
            if (e <= f)
                continue;
            const int t = st->target, u = 1 - t;
            minacc[2 * i + t] = min_l(minacc[2 * i + t], f);
            minacc[2 * i + u] = min_l(minacc[2 * i + u], f + st->off);
            if (e - 1 > top[2 * i + t] || e + st->off + st->ntaps - 2 > top[2 * i + u])
                bad = 1;
        }
        int done = 1;
        for (int c = 0; c < 2; c++) {
            long e0, e1;
            lwt_slide_emitted(g, s->steps, c, i, &e0, &e1);
            if (e1 > e0) {
                minacc[2 * i + c] = min_l(minacc[2 * i + c], e0);
                if (e1 - 1 > top[2 * i + c])
                    bad = 1;
            }
            if (e1 < g->out_hi[c])
                done = 0;
        }
        for (int k = 0; k < g->nsteps && done; k++) {
            const int si = lwt_slide_step_index(g, k);
            if (lwt_slide_front(g, k, L) < a->step_lo[si] + a->step_len[si])
                done = 0;
        }
        if (done)
            iters = i + 1;
    }
    long need = 0;
    if (iters > 0 && !bad)
        for (int c = 0; c < 2; c++) {
            long sufmin = LONG_MAX;
            for (int i = iters - 1; i >= 0; i--) {
                sufmin = min_l(sufmin, minacc[2 * i + c]);
                if (sufmin != LONG_MAX)
                    need = max_l(need, top[2 * i + c] - sufmin + 1);
            }
        }
    free(minacc);
    free(top);
    if (iters < 0 || bad)
        return -1;
    g->iters = iters;
    return need;
}

/* In every strip, the columns outside the array that its real outputs
 * depend on are extended from columns the strip holds (late_ext; the kernel
 * leaves the others, which only feed outputs past the end, at zero). */
static int late_ext_fits(const lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, lwt_line_prog *p)
{
    const lwt_slide_axis *ax = &g->ax[1];
    lwt_line_prog_forward(p, s, 0, F, mode, ax->n);
    for (long t = 0; t < g->tiles[1]; t++) {
        const long sx = t * ax->T, lox[2] = {ax->lo[0] + sx, ax->lo[1] + sx};
        lwt_line_ranges_forward(p, s, sx, sx + ax->T < ax->nc ? sx + ax->T : ax->nc);
        for (int cx = 0; cx < 2; cx++)
            for (long m = p->ch[cx].lo; m < p->ch[cx].hi; m++) {
                const long xx = 2 * m + cx + ax->delta;
                if (xx >= 0 && xx < ax->n)
                    continue;
                lwt_ext_terms e;
                lwt_extend(ax->mode, ax->n, xx, &e);
                for (int k = 0; k < e.n; k++) {
                    if (e.w[k] == 0)
                        continue; /* antireflect lists its far anchor with weight 0 */
                    const long n = e.idx[k] - ax->delta;
                    const int c = (int)(n & 1);
                    const long mm = (n - c) / 2 - lox[c];
                    if (mm < 0 || mm >= ax->len[c])
                        return 0;
                }
            }
    }
    return 1;
}

/* g cleared, with the direction and the lags; a line program to plan the axes
   with (the caller frees it), or NULL: too many steps, or no memory */
static lwt_line_prog *plan_begin(lwt_slide_geom *g, const lwt_scheme *s, int inverse)
{
    if (s->nsteps > LWT_SLIDE_MAX_STEPS || s->nsteps < 1)
        return NULL;
    lwt_line_prog *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    memset(g, 0, sizeof *g);
    g->inverse = inverse;
    g->nsteps = s->nsteps;
    compute_lags(g, s);
    return p;
}

/* axis 0's segments (tiles of T0 coefficient rows, 256 or shorter while the
   blocks, strips times segments, are fewer than min_blocks), the first row
   and the output rows of tile 0; g->tiles[1] set */
static void plan_segments(lwt_slide_geom *g, lwt_line_prog *p, const lwt_scheme *s, lwt_mode mode, int F, int inverse,
                          long n0, long nc0, long rows, long min_blocks)
{
    lwt_slide_fill_axis(&g->ax[0], p, s, mode, F, inverse, n0, nc0, 1);
    long out0 = inverse ? (n0 + 1) / 2 : g->ax[0].nc;
    if (rows > 0 && rows < out0)
        out0 = rows;
    int T0 = 256;
    while (T0 > 16 && g->tiles[1] * ((out0 + T0 - 1) / T0) < min_blocks)
        T0 /= 2;
    if (T0 > out0)
        T0 = (int)out0;
    lwt_slide_fill_axis(&g->ax[0], p, s, mode, F, inverse, n0, g->ax[0].nc, T0);
    g->tiles[0] = (out0 + T0 - 1) / T0;
    const lwt_slide_axis *a = &g->ax[0];
    g->m_start = min_l(a->lo[0], a->lo[1]);
    for (int c = 0; c < 2; c++) {
        if (inverse) {
            /* sample rows m in [0, 2 T0): x[m] = y[m - delta], y[2 j + c] in channel c */
            g->out_lo[c] = -lwt_floor_div(-(-a->delta - c), 2);
            g->out_hi[c] = -lwt_floor_div(-(2L * T0 - a->delta - c), 2);
        } else {
            const long sh = c == s->ach ? s->sa : s->sd;
            g->out_lo[c] = sh;
            g->out_hi[c] = sh + T0;
        }
    }
}

size_t lwt_slide_plan(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0, long n1,
                      long nc0, long nc1, size_t es, size_t smem_limit, long min_blocks, int cols)
{
    return lwt_slide_plan_rows(g, s, mode, F, inverse, n0, n1, nc0, nc1, 0, es, smem_limit, min_blocks, cols);
}

size_t lwt_slide_plan_rows(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0,
                           long n1, long nc0, long nc1, long rows, size_t es, size_t smem_limit, long min_blocks,
                           int cols)
{
    lwt_line_prog *p = plan_begin(g, s, inverse);
    if (!p)
        return 0;
    /* strips: rows of 128 (float) or 64 (double) ring elements, the halo included */
    lwt_slide_fill_axis(&g->ax[1], p, s, mode, F, inverse, n1, nc1, 64);
    const int halo = g->ax[1].len[0] + g->ax[1].len[1] - 128;
    const int target = cols > 0 ? cols : es <= 4 ? 128 : 64;
    long out1 = inverse ? (n1 + 1) / 2 : g->ax[1].nc; /* coefficients (pairs of samples) across */
    int T1 = (target - halo) / 2;
    if (T1 < 8)
        T1 = 8;
    if (T1 > out1)
        T1 = (int)out1;
    /* Forward, smooth and antireflect: a strip must hold the columns its
       extension reads; strips at the ends get that by being wide enough */
    g->late_ext = !inverse && (mode == LWT_MODE_SMOOTH || mode == LWT_MODE_ANTIREFLECT);
    for (;;) {
        lwt_slide_fill_axis(&g->ax[1], p, s, mode, F, inverse, n1, g->ax[1].nc, T1);
        g->RW = g->ax[1].len[0] + g->ax[1].len[1];
        g->tiles[1] = (out1 + T1 - 1) / T1;
        if (!g->late_ext || late_ext_fits(g, s, mode, F, p))
            break;
        if (T1 == out1) {
            free(p);
            return 0;
        }
        T1 = 2L * T1 < out1 ? 2 * T1 : (int)out1;
    }
    plan_segments(g, p, s, mode, F, inverse, n0, nc0, rows, min_blocks);
    free(p);
    /* the ring: the smallest power of two (from 32) whose rows are at least
       three quarters new each iteration: work between barriers */
    size_t best = 0;
    for (int C = 32; C <= 512; C *= 2) {
        int S = C;
        long need = -1;
        for (; S >= 1; S--) {
            need = simulate(g, s, S);
            if (need >= 0 && need <= C)
                break;
        }
        if (S < 1)
            continue;
        size_t bytes = (size_t)2 * C * (size_t)g->RW * es;
        if (smem_limit && bytes > smem_limit)
            break;
        best = bytes;
        g->C = C;
        if (4 * S >= 3 * C)
            break;
    }
    if (!best)
        return 0;
    for (int S = g->C; S >= 1; S--) { /* leave g with the chosen C's schedule */
        long need = simulate(g, s, S);
        if (need >= 0 && need <= g->C)
            break;
    }
    return best;
}

void lwt_slide_table(const lwt_slide_geom *g, const lwt_step *steps, int *tab)
{
    for (int i = 0; i < g->iters; i++) {
        int *row = tab + (size_t)i * LWT_SLIDE_TAB(g);
        const long L = g->m_start + (long)(i + 1) * g->S, Lp = L - g->S;
        for (int c = 0; c < 2; c++) {
            long e0, e1;
            row[2 * c] = (int)lwt_slide_loaded(g, c, Lp);
            row[2 * c + 1] = (int)lwt_slide_loaded(g, c, L);
            lwt_slide_emitted(g, steps, c, i, &e0, &e1);
            row[4 + 2 * c] = (int)e0;
            row[5 + 2 * c] = (int)e1;
        }
        for (int k = 0; k < g->nsteps; k++) {
            row[8 + 2 * k] = (int)lwt_slide_front(g, k, Lp);
            row[9 + 2 * k] = (int)lwt_slide_front(g, k, L);
        }
    }
}

int lwt_slide_plan_column(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0, long nc0)
{
    lwt_line_prog *p = plan_begin(g, s, inverse);
    if (!p)
        return 0;
    g->tiles[1] = 1;
    plan_segments(g, p, s, mode, F, inverse, n0, nc0, 0, LONG_MAX); /* the shortest tiles: 16 rows */
    free(p);
    return 1;
}
