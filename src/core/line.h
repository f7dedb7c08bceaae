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

#include "core/scheme.h"
#include "lwt.h"

typedef struct lwt_range {
    long lo, hi; /* [lo, hi) */
} lwt_range;

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
} lwt_line_prog;

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

#endif
