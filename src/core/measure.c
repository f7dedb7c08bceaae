/*
 * Accuracy of a lifting scheme against its filter bank.
 *
 * One level on a periodic pseudo-random signal: the exact coefficients come
 * from the filter bank in long double; the scheme runs in float64, and for
 * float32 the way the CPU backend runs it: float input, double arithmetic,
 * float output. (lwt_scheme_lift_periodic can also emulate float arithmetic,
 * rounding every operation, for backends that compute in float.) The inverse is checked the same way, from the exact
 * coefficients back to the signal. The result is the worst relative error
 * (max abs error / max abs value) of forward and inverse.
 */
#include <math.h>
#include <stdlib.h>

#include "core/scheme.h"

#define MEASURE_LEN 256

static double rnd(double v, int f32) { return f32 ? (double)(float)v : v; }

static size_t wrap(long i, size_t n)
{
    long m = i % (long)n;
    return (size_t)(m < 0 ? m + (long)n : m);
}

void lwt_scheme_lift_periodic(const lwt_scheme *s, double *ch[2], size_t half, int dir, int f32)
{
    double *tmp = malloc(half * sizeof *tmp);
    if (!tmp)
        return;
    for (int k = 0; k < s->nsteps; k++) {
        const lwt_step *st = &s->steps[dir > 0 ? k : s->nsteps - 1 - k];
        const double *src = ch[1 - st->target];
        double *dst = ch[st->target];
        for (size_t m = 0; m < half; m++) {
            double acc = 0;
            for (int i = 0; i < st->ntaps; i++)
                acc = rnd(acc + rnd(rnd(s->taps[st->first + i], f32) * src[wrap((long)m + st->off + i, half)], f32), f32);
            tmp[m] = acc;
        }
        for (size_t m = 0; m < half; m++)
            dst[m] = rnd(dir > 0 ? dst[m] + tmp[m] : dst[m] - tmp[m], f32);
    }
    free(tmp);
}

/* store: float input/output; arith: float arithmetic too */
static void measure_one(const lwt_scheme *s, const lwt_filter_bank *fb, int store, int arith, double *err)
{
    const size_t n = MEASURE_LEN, half = n / 2;
    double y[MEASURE_LEN], e[MEASURE_LEN / 2], o[MEASURE_LEN / 2];
    long double ca[MEASURE_LEN / 2], cd[MEASURE_LEN / 2];
    unsigned long long state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        y[i] = rnd((double)(state >> 11) / 9007199254740992.0 * 2.0 - 1.0, store);
    }
    double amax = 0, dmax = 0, ymax = 0;
    for (size_t k = 0; k < half; k++) {
        long double sa = 0, sd = 0;
        for (int j = 0; j < fb->length; j++) {
            long double v = y[wrap(2 * (long)k + 1 - j, n)];
            sa += (long double)fb->dec_lo[j] * v;
            sd += (long double)fb->dec_hi[j] * v;
        }
        ca[k] = sa;
        cd[k] = sd;
        if (fabsl(sa) > amax) amax = (double)fabsl(sa);
        if (fabsl(sd) > dmax) dmax = (double)fabsl(sd);
    }
    for (size_t i = 0; i < n; i++)
        if (fabs(y[i]) > ymax)
            ymax = fabs(y[i]);
    double cmax = amax > dmax ? amax : dmax;

    /* forward */
    for (size_t m = 0; m < half; m++) {
        e[m] = y[2 * m];
        o[m] = y[2 * m + 1];
    }
    double *ch[2] = {e, o};
    lwt_scheme_lift_periodic(s, ch, half, +1, arith);
    double fwd = 0;
    for (size_t k = 0; k < half; k++) {
        double a = rnd(s->ka * ch[s->ach][wrap((long)k + s->sa, half)], store);
        double d = rnd(s->kd * ch[1 - s->ach][wrap((long)k + s->sd, half)], store);
        double ea = fabs((double)((long double)a - ca[k])), ed = fabs((double)((long double)d - cd[k]));
        if (ea > fwd) fwd = ea;
        if (ed > fwd) fwd = ed;
    }
    fwd /= cmax;

    /* inverse from the exact coefficients */
    for (size_t k = 0; k < half; k++) {
        ch[s->ach][wrap((long)k + s->sa, half)] = rnd((double)ca[k], store) / s->ka;
        ch[1 - s->ach][wrap((long)k + s->sd, half)] = rnd((double)cd[k], store) / s->kd;
    }
    lwt_scheme_lift_periodic(s, ch, half, -1, arith);
    double inv = 0;
    for (size_t m = 0; m < half; m++) {
        double d0 = fabs(rnd(e[m], store) - y[2 * m]), d1 = fabs(rnd(o[m], store) - y[2 * m + 1]);
        if (d0 > inv) inv = d0;
        if (d1 > inv) inv = d1;
    }
    inv /= ymax;
    *err = fwd > inv ? fwd : inv;
    if (!(*err == *err))
        *err = INFINITY;
}

void lwt_scheme_measure(const lwt_scheme *s, const lwt_filter_bank *fb, double *err64, double *err32)
{
    measure_one(s, fb, 0, 0, err64);
    measure_one(s, fb, 1, 0, err32);
}

double lwt_scheme_measure_f32_arith(const lwt_scheme *s, const lwt_filter_bank *fb)
{
    double e;
    measure_one(s, fb, 1, 1, &e);
    return e;
}
