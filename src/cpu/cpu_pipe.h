/*
 * What the CPU pass template (cpu_pass_tmpl.h) needs that does not depend on the element
 * type: where an input index of a line lives, and the schedule of the pipelined lifting that
 * the column kernel runs. Static inline: included by each instruction set's pass.
 */
#ifndef LWT_CPU_PIPE_H
#define LWT_CPU_PIPE_H

#include <stddef.h>

#include "core/extend.h"
#include "core/line.h"
#include "core/scheme.h"

/*
 * Buffer position of input index i (a sample, or a coefficient of one band) and how many
 * consecutive indices from i sit at consecutive positions: the rest of the window segment,
 * or of the line when the whole line is in memory. 0: i is not in memory.
 */
static inline long lwt_cpu_run_at(const lwt_window *w, long len, long i, long *pos)
{
    if (i < 0 || i >= len)
        return 0;
    if (!w->nseg) {
        *pos = i;
        return len - i;
    }
    for (int s = 0; s < w->nseg; s++)
        if (i >= w->lo[s] && i < w->hi[s]) {
            *pos = w->pos[s] + (i - w->lo[s]);
            return w->hi[s] - i;
        }
    return 0;
}

/*
 * Where extended sample n of a forward line comes from. Returns -1 when n is in the line:
 * the value is the sample at pos[0], taken as it is. Otherwise the value is
 * sum_k w[k] * sample(pos[k]) over the returned count of terms (0: the value is 0), summed
 * from 0 in that order, which is the arithmetic every CPU path shares.
 */
static inline int lwt_cpu_sample_src(const lwt_line_prog *p, long n, size_t pos[3], double w[3])
{
    long at;
    if (lwt_cpu_run_at(&p->win, p->n, n, &at)) {
        pos[0] = (size_t)at;
        return -1;
    }
    lwt_ext_terms t;
    lwt_extend(p->mode, p->n, n, &t);
    for (int k = 0; k < t.n; k++) {
        pos[k] = (size_t)lwt_window_pos(&p->win, t.idx[k]);
        w[k] = t.w[k];
    }
    return t.n;
}

/* Coefficient k of a band under the inverse's boundary rule (periodic for periodization,
   zero outside [0, nc) otherwise): its position in the band and how many consecutive
   coefficients from k follow it in memory; 0: the coefficient is zero. */
static inline long lwt_cpu_coeff_run(const lwt_line_prog *p, long k, long *pos)
{
    if (p->mode == LWT_MODE_PERIODIZATION)
        k = lwt_mod(k, p->nc);
    return lwt_cpu_run_at(&p->win, p->nc, k, pos);
}

/*
 * The pipelined lifting of the column kernel: rows of both channels enter a ring one index
 * per tick, step e (in execution order) computes index tick - lag[e], the outputs leave at
 * tick - store. The lags are the smallest that keep every read and write in the order of the
 * step-by-step sweeps (each step over its whole range before the next), so every element gets
 * the same operations on the same values and the bits equal the line kernel's:
 *   - a step reads its source window [m + off, m + off + ntaps) after the earlier steps that
 *     write that channel have written it (and after it was loaded),
 *   - writes its target after the earlier writers of that channel,
 *   - and after the earlier readers of that channel have read their last use of it.
 * Each constraint ties a step to earlier ones only, so one pass in execution order solves
 * them. Ring rows: more than the longest distance from a row's load to its last use.
 * Halo: a pipeline started at index t0 (a thread's share of a fused level) holds exact values
 * from t0 + halo on: a step's index is exact when its source window and its target were, so
 * each step pushes the first exact index of its target up by -off.
 */
typedef struct lwt_cpu_pipe {
    int lag[LWT_SCHEME_MAX_STEPS]; /* by execution order */
    int store;
    int ring;                      /* a power of two */
    int halo;
} lwt_cpu_pipe;

static inline const lwt_step *lwt_cpu_pipe_step(const lwt_scheme *s, int inverse, int e)
{
    return &s->steps[inverse ? s->nsteps - 1 - e : e];
}

static inline void lwt_cpu_pipe_plan(const lwt_scheme *s, int inverse, lwt_cpu_pipe *pp)
{
    int store = 0, use = 0, exact[2] = {0, 0};
    for (int e = 0; e < s->nsteps; e++) {
        const lwt_step *j = lwt_cpu_pipe_step(s, inverse, e);
        const int t = j->target, u = 1 - t, reach = j->off + j->ntaps - 1;
        int lag = reach > 0 ? reach : 0;
        for (int f = 0; f < e; f++) {
            const lwt_step *k = lwt_cpu_pipe_step(s, inverse, f);
            int need = 0;
            if (k->target == t)
                need = pp->lag[f];              /* earlier writer of my target */
            if (k->target == u && pp->lag[f] + reach > need)
                need = pp->lag[f] + reach;      /* earlier writer of my source */
            if (1 - k->target == t && pp->lag[f] - k->off > need)
                need = pp->lag[f] - k->off;     /* earlier reader of my target */
            if (need > lag)
                lag = need;
        }
        pp->lag[e] = lag;
        if (exact[u] - j->off > exact[t])
            exact[t] = exact[u] - j->off;
        if (lag > store)
            store = lag;
        if (lag - j->off > use)
            use = lag - j->off;
    }
    if (store > use)
        use = store;
    pp->store = store;
    pp->halo = exact[0] > exact[1] ? exact[0] : exact[1];
    pp->ring = 1;
    while (pp->ring <= use)
        pp->ring <<= 1;
}

#endif
