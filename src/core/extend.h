/*
 * Signal extension with PyWavelets' exact meaning, for any index n (also far
 * outside the signal, as long filters on short signals need).
 *
 * The extended value is a combination of at most three samples,
 *     y = w0 x[i0] + w1 x[i1] + w2 x[i2],
 * because smooth and antireflect extrapolate affinely. Periodization is the
 * periodic extension of x padded to even length with its last sample.
 * Verified against PyWavelets' convolution code by tests/py (delta filters).
 */
#ifndef LWT_CORE_EXTEND_H
#define LWT_CORE_EXTEND_H

#include "core/hd.h"
#include "lwt.h"

typedef struct lwt_ext_terms {
    int n;
    long idx[3];
    double w[3];
} lwt_ext_terms;

LWT_HD long lwt_floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

LWT_HD long lwt_mod(long a, long b)
{
    long m = a % b;
    return m < 0 ? m + b : m;
}

LWT_HD void lwt_ext_one(lwt_ext_terms *t, long i, double w)
{
    t->n = 1;
    t->idx[0] = i;
    t->w[0] = w;
}

/* Terms of the extended sample n of a signal of length N >= 1. */
LWT_HD void lwt_extend(int mode, long N, long n, lwt_ext_terms *t)
{
    if (n >= 0 && n < N) {
        lwt_ext_one(t, n, 1.0);
        return;
    }
    if (mode == LWT_MODE_SMOOTH && N < 2)
        mode = LWT_MODE_CONSTANT;
    switch (mode) {
    case LWT_MODE_ZERO:
        t->n = 0;
        return;
    case LWT_MODE_CONSTANT:
        lwt_ext_one(t, n < 0 ? 0 : N - 1, 1.0);
        return;
    case LWT_MODE_SYMMETRIC: {
        long r = lwt_mod(n, 2 * N);
        lwt_ext_one(t, r < N ? r : 2 * N - 1 - r, 1.0);
        return;
    }
    case LWT_MODE_REFLECT: {
        if (N == 1) { lwt_ext_one(t, 0, 1.0); return; } /* refused earlier; kept total */
        long r = lwt_mod(n, 2 * N - 2);
        lwt_ext_one(t, r < N ? r : 2 * N - 2 - r, 1.0);
        return;
    }
    case LWT_MODE_PERIODIC:
        lwt_ext_one(t, lwt_mod(n, N), 1.0);
        return;
    case LWT_MODE_SMOOTH: {
        /* x0 + k (x0 - x1) on the left, x[N-1] + k (x[N-1] - x[N-2]) on the right */
        t->n = 2;
        if (n < 0) {
            double k = (double)(-n);
            t->idx[0] = 0; t->w[0] = 1.0 + k;
            t->idx[1] = 1; t->w[1] = -k;
        } else {
            double k = (double)(n - (N - 1));
            t->idx[0] = N - 1; t->w[0] = 1.0 + k;
            t->idx[1] = N - 2; t->w[1] = -k;
        }
        return;
    }
    case LWT_MODE_ANTISYMMETRIC: {
        long r = lwt_mod(n, 2 * N);
        if (r < N)
            lwt_ext_one(t, r, 1.0);
        else
            lwt_ext_one(t, 2 * N - 1 - r, -1.0);
        return;
    }
    case LWT_MODE_ANTIREFLECT: {
        if (N == 1) { lwt_ext_one(t, 0, 1.0); return; }
        /* point-symmetric about both ends: period 2N-2 plus a trend of
           2 (x[N-1] - x[0]) per period */
        long P = 2 * N - 2;
        long q = lwt_floor_div(n, P), r = n - q * P;
        double tq = 2.0 * (double)q;
        t->n = 3;
        if (r < N) {
            t->idx[0] = r; t->w[0] = 1.0;
            t->idx[1] = N - 1; t->w[1] = tq;
        } else {
            t->idx[0] = P - r; t->w[0] = -1.0;
            t->idx[1] = N - 1; t->w[1] = 2.0 + tq;
        }
        t->idx[2] = 0; t->w[2] = -tq;
        /* no term of weight 0 (the first period on either side): PyWavelets' extension
           reads only the samples of nonzero weight, so a NaN or infinity elsewhere in x
           must not reach it through 0 * x (tests: python/tests/test_pkg_exact.py) */
        int m = 0;
        for (int k = 0; k < 3; k++)
            if (t->w[k] != 0.0) {
                t->idx[m] = t->idx[k];
                t->w[m++] = t->w[k];
            }
        t->n = m;
        return;
    }
    case LWT_MODE_PERIODIZATION: {
        long Np = N + (N & 1);
        long r = lwt_mod(n, Np);
        lwt_ext_one(t, r < N ? r : N - 1, 1.0);
        return;
    }
    default:
        t->n = 0;
        return;
    }
}

#endif
