/*
 * User wavelets from a P/U/K lifting scheme (seed 000, eqs. 12-15).
 *
 * The scheme is taken as given; its equivalent filter bank is derived from
 * impulse responses, and the output shifts are chosen so that the filters sit
 * where PyWavelets puts them (cA[k] = sum_j dec_lo[j] y[2k+1-j], j from 0).
 * From then on a user wavelet is treated exactly like a built-in one: same
 * output sizes, modes and packed layout as PyWavelets would give for that
 * filter bank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/wavelet.h"

static int add_operator(lwt_scheme *s, int target, const lwt_laurent *op)
{
    if (op->ntaps < 0 || (op->ntaps > 0 && !op->taps))
        return -1;
    double neg[LWT_MAX_FILTER];
    if (op->ntaps > LWT_MAX_FILTER)
        return -1;
    for (int i = 0; i < op->ntaps; i++) {
        if (!isfinite(op->taps[i]))
            return -1;
        neg[i] = -op->taps[i]; /* the P/U/K form subtracts */
    }
    return lwt_scheme_add_step(s, target, op->start, op->ntaps, neg);
}

/* response of channel values to a unit impulse; returns the support in [*lo, *hi] */
static void impulse_support(const double *v, long R, long *lo, long *hi)
{
    *lo = R + 1;
    *hi = -R - 1;
    for (long n = -R; n <= R; n++)
        if (v[n + R] != 0) {
            if (n < *lo) *lo = n;
            if (n > *hi) *hi = n;
        }
}

lwt_status lwt_wavelet_from_puk(lwt_context *ctx, const lwt_puk_scheme *p, lwt_wavelet **out)
{
    if (!p || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_from_puk: NULL argument");
    *out = NULL;
    if (p->nsteps < 0 || (p->nsteps > 0 && (!p->p || !p->u)) || !isfinite(p->K) || p->K == 0)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "P/U/K scheme: bad step count, operators or K");
    lwt_wavelet *w = calloc(1, sizeof *w);
    if (!w)
        return LWT_ERR_OUT_OF_MEMORY;
    lwt_scheme *s = &w->scheme;
    int bad = add_operator(s, 0, &p->u0);
    for (int k = 0; k < p->nsteps && !bad; k++)
        bad = add_operator(s, 1, &p->p[k]) || add_operator(s, 0, &p->u[k]);
    if (bad || s->nsteps == 0) {
        free(w);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT,
                        "P/U/K scheme: operators must have finite taps, fit the scheme limits, and at least one "
                        "must be non-empty");
    }
    s->ka = 1.0 / p->K;
    s->kd = p->K;
    s->ach = 0;

    /* reach of the scheme, in samples, bounds every impulse response */
    long R = 4;
    for (int k = 0; k < s->nsteps; k++)
        R += 2 * (labs((long)s->steps[k].off) + s->steps[k].ntaps);
    const long L = 4 * R + 16, half = L / 2;
    double *buf = calloc((size_t)(2 * half + 4 * (2 * R + 1)), sizeof *buf);
    if (!buf) {
        free(w);
        return LWT_ERR_OUT_OF_MEMORY;
    }
    double *e = buf, *o = buf + half;
    double *wa = o + half, *wd = wa + (2 * R + 1), *ra = wd + (2 * R + 1), *rd = ra + (2 * R + 1);
    double *ch[2] = {e, o};
    /* analysis: cA[0], cD[0] as functions of y[n] */
    for (long n = -R; n <= R; n++) {
        memset(e, 0, (size_t)L * sizeof *e);
        long m = ((n % L) + L) % L;
        ch[m & 1][m >> 1] = 1.0;
        lwt_scheme_lift_periodic(s, ch, (size_t)half, +1, 0);
        wa[n + R] = s->ka * e[0];
        wd[n + R] = s->kd * o[0];
    }
    long alo, ahi, dlo, dhi;
    impulse_support(wa, R, &alo, &ahi);
    impulse_support(wd, R, &dlo, &dhi);
    int ok = alo <= ahi && dlo <= dhi;
    if (ok) {
        /* shift k so that j = 1 - n starts at 0 or 1 */
        s->sa = (int)floor((1.0 - (double)ahi) / 2.0);
        s->sd = (int)floor((1.0 - (double)dhi) / 2.0);
        long jmax_a = 1 - alo - 2L * s->sa, jmax_d = 1 - dlo - 2L * s->sd;
        long F = (jmax_a > jmax_d ? jmax_a : jmax_d) + 1;
        F += F & 1;
        ok = F <= LWT_MAX_FILTER;
        if (ok) {
            w->length = (int)F;
            for (long j = 0; j < F; j++) {
                long na = 1 - j - 2L * s->sa, nd = 1 - j - 2L * s->sd;
                w->dec_lo[j] = na >= -R && na <= R ? wa[na + R] : 0;
                w->dec_hi[j] = nd >= -R && nd <= R ? wd[nd + R] : 0;
            }
            /* synthesis: response of y to cA = delta, cD = delta; rec[q] = y[q + 2 - F] */
            for (int band = 0; band < 2 && ok; band++) {
                memset(e, 0, (size_t)L * sizeof *e);
                if (band == 0)
                    e[((s->sa % half) + half) % half] = 1.0 / s->ka;
                else
                    o[((s->sd % half) + half) % half] = 1.0 / s->kd;
                lwt_scheme_lift_periodic(s, ch, (size_t)half, -1, 0);
                double *r = band == 0 ? ra : rd;
                for (long n = -R; n <= R; n++) {
                    long m = ((n % L) + L) % L;
                    r[n + R] = ch[m & 1][m >> 1];
                }
                long rlo, rhi;
                impulse_support(r, R, &rlo, &rhi);
                ok = rlo > rhi || (rlo >= 2 - F && rhi <= 1);
                for (long q = 0; q < F && ok; q++) {
                    long n = q + 2 - F;
                    (band == 0 ? w->rec_lo : w->rec_hi)[q] = n >= -R && n <= R ? r[n + R] : 0;
                }
            }
        }
    }
    free(buf);
    if (!ok) {
        free(w);
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT,
                        "P/U/K scheme: its filter bank cannot be placed in PyWavelets' convention "
                        "(degenerate or not perfectly reconstructing)");
    }
    snprintf(w->name, sizeof w->name, "%s", p->name ? p->name : "user");
    snprintf(w->family, sizeof w->family, "user");
    w->has_scheme = 1;
    lwt_filter_bank fb = lwt_wavelet_bank(w);
    lwt_scheme_measure(s, &fb, &w->err64, &w->err32);
    w->err32_arith = lwt_scheme_measure_f32_arith(s, &fb);
    /* the scheme defines the wavelet: lifting is exact by construction */
    w->path64 = w->path32 = LWT_PATH_LIFTING;
    w->table_pr_err = 0;
    *out = w;
    return LWT_OK;
}
