/*
 * Line programs: what one 1-D transform along an axis needs, computed once
 * per pass and shared by every line (and by every backend).
 *
 * Forward: x (length n) -> cA, cD (length nc each). The extended signal is
 * y[n] = ext(x, n + delta), delta = 0, or F/2 - 1 for periodization, so that
 * PyWavelets' cA[k] = sum_j dec_lo[j] y[2k+1-j] holds in every mode.
 * Inverse: cA, cD (length nc) -> x (length n_out <= PyWavelets' idwt length),
 * x[m] = y[m - delta], with coefficients zero outside [0, nc) (PyWavelets'
 * "valid" upsampling convolution) or periodic (periodization).
 */
#ifndef LWT_CORE_LINE_H
#define LWT_CORE_LINE_H

#include "core/hd.h"
#include "core/scheme.h"
#include "lwt.h"

typedef struct lwt_range {
    long lo, hi; /* [lo, hi) */
} lwt_range;

/*
 * Where the input of a line that is only partly in memory lives (streamed
 * passes): global index i (a sample for the forward, a coefficient for the
 * inverse) in [lo[s], hi[s]) is at buffer position pos[s] + (i - lo[s]).
 * nseg == 0: the whole line is in memory and index i is at i.
 */
#define LWT_WINDOW_MAX_SEGS 3
typedef struct lwt_window {
    int nseg;
    long lo[LWT_WINDOW_MAX_SEGS], hi[LWT_WINDOW_MAX_SEGS], pos[LWT_WINDOW_MAX_SEGS];
    long len;   /* buffer positions in all */
} lwt_window;

LWT_HD long lwt_window_pos(const lwt_window *w, long i)
{
    for (int s = 0; s < w->nseg; s++)
        if (i >= w->lo[s] && i < w->hi[s])
            return w->pos[s] + (i - w->lo[s]);
    return w->nseg ? -1 : i;
}

typedef struct lwt_line_prog {
    int inverse;
    int direct;         /* 1: filter bank, 0: lifting */
    lwt_mode mode;
    long n;             /* forward: signal length; inverse: output length */
    long nc;            /* coefficients per band */
    long delta;
    int F;
    /* lifting */
    lwt_range ch[2];                        /* channel ranges held in buffers */
    lwt_range step[LWT_SCHEME_MAX_STEPS];   /* where each step computes its target */
    /* direct filter bank */
    lwt_range span;     /* forward: y indices; inverse: coefficient indices */
    long sigma;         /* inverse alignment: x[2i+e+sigma] = sum_j rec[2j+e] c[i-j] */
    /* what this pass computes and reads: outputs [out_lo, out_hi) (forward:
       coefficients k, inverse: samples m; the whole line unless streamed),
       written from position 0 of the output line; input through win */
    long out_lo, out_hi;
    lwt_window win;
} lwt_line_prog;

/* Extent along the axis of a pass's input and output lines (the inverse
 * input holds cA then cD, each the window's length or nc). */
LWT_HD long lwt_prog_in_extent(const lwt_line_prog *p)
{
    long band = p->win.nseg ? p->win.len : (p->inverse ? p->nc : p->n);
    return p->inverse ? 2 * band : band;
}

LWT_HD long lwt_prog_out_extent(const lwt_line_prog *p)
{
    long k = p->out_hi - p->out_lo;
    return p->inverse ? k : 2 * k;
}

/* Offset of the cD band in an inverse input line (elements along the axis). */
LWT_HD long lwt_prog_in_band(const lwt_line_prog *p)
{
    return p->win.nseg ? p->win.len : p->nc;
}

/* PyWavelets' coefficient count for a signal of length n. */
long lwt_coeff_len(long n, int F, lwt_mode mode);
/* PyWavelets' idwt output length for nc coefficients. */
long lwt_idwt_len(long nc, int F, lwt_mode mode);

void lwt_line_prog_forward(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n);
void lwt_line_prog_inverse(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long nc,
                           long n_out);

/* Lifting ranges for part of a line only: outputs k in [k0, k1) (forward) or
 * samples m in [m0, m1) (inverse); p->delta (and so p->mode) must be set.
 * Ranges are translation-invariant (by 1 coefficient, 2 samples), which is
 * what lets tiled kernels compute them once and shift them per tile. */
void lwt_line_ranges_forward(lwt_line_prog *p, const lwt_scheme *s, long k0, long k1);
void lwt_line_ranges_inverse(lwt_line_prog *p, const lwt_scheme *s, long m0, long m1);

/*
 * Streamed passes: the program for outputs [k0, k1) (forward coefficients)
 * or [m0, m1) (inverse samples) only, reading the input through a window
 * of at most three segments (the main run plus the rows that the mode's
 * extension pulls from either end: periodic wrap, smooth and antireflect
 * anchors). The window lists every input index the pass reads, in
 * increasing order, at consecutive buffer positions.
 */
void lwt_line_prog_forward_part(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n,
                                long k0, long k1);
/* The samples whose values outputs [k0, k1) depend on: the window of _forward_part less
 * the samples an extension takes with weight 0 (antireflect's far end within its first
 * period), which a pass reads but which cannot change a bit of the result. */
void lwt_line_prog_forward_deps(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long n,
                                long k0, long k1);
void lwt_line_prog_inverse_part(lwt_line_prog *p, const lwt_scheme *s, int direct, int F, lwt_mode mode, long nc,
                                long n_out, long m0, long m1);

#endif
