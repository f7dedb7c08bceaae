/*
 * Lifting factorization of a two-channel filter bank (Daubechies & Sweldens,
 * "Factoring wavelet transforms into lifting steps", 1998).
 *
 * Laurent polynomials are held as operators on sequences:
 *     (P s)[m] = sum_k c[k] * s[m + lo + k]
 * so a product is a convolution of coefficient lists with the offsets added.
 *
 * With E[m] = y[2m], O[m] = y[2m+1], PyWavelets' analysis
 *     cA[k] = sum_j h[j] y[2k+1-j]
 * is cA = Ha E + Hb O, cD = Ga E + Gb O. Euclid's algorithm runs on the first
 * row (Ha, Hb) with column operations; each column operation is the inverse
 * of one lifting step, so the steps come out in the order they are applied.
 * When the row is reduced to one monomial, the determinant (a monomial for a
 * perfect-reconstruction bank) makes the other diagonal entry a monomial too,
 * and one last step clears the remaining off-diagonal entry.
 *
 * Laurent division is not unique: dividing a (length la) by b (length lb)
 * leaves a remainder of length < lb with the cancelled coefficients taken k
 * from the low end and la-lb+1-k from the high end, for any k. The naive
 * choice makes the coefficients of long filters explode, so a beam search
 * keeps the candidates whose steps stay small, and the finished candidates
 * are ranked by their measured error (lwt_scheme_measure).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/scheme.h"

#define LP_MAX 128      /* longest polynomial: PyWavelets filters have <= 102 taps */
#define BEAM_WIDTH 12
#define MAX_CHILDREN 8

typedef long double real_t;

typedef struct lpoly {
    int lo;
    int n;           /* 0 = zero polynomial */
    real_t c[LP_MAX];
} lpoly;

typedef struct cand {
    lpoly a, b, c, d;   /* current matrix [[a, b], [c, d]] */
    lwt_scheme scheme;  /* steps found so far */
    double cost;        /* log-size of the steps so far */
} cand;

static void lp_trim(lpoly *p, real_t tol)
{
    int s = 0, e = p->n;
    while (s < e && fabsl(p->c[s]) <= tol)
        s++;
    while (e > s && fabsl(p->c[e - 1]) <= tol)
        e--;
    if (s > 0)
        memmove(p->c, p->c + s, (size_t)(e - s) * sizeof(real_t));
    p->lo += s;
    p->n = e - s;
    if (p->n == 0)
        p->lo = 0;
}

static real_t lp_maxabs(const lpoly *p)
{
    real_t m = 0;
    for (int i = 0; i < p->n; i++)
        if (fabsl(p->c[i]) > m)
            m = fabsl(p->c[i]);
    return m;
}

/* r = a - q * b (lengths checked by the caller) */
static int lp_sub_mul(const lpoly *a, const lpoly *q, const lpoly *b, lpoly *r)
{
    if (q->n == 0 || b->n == 0) {
        *r = *a;
        return 0;
    }
    int lo = a->n ? a->lo : q->lo + b->lo;
    int qb_lo = q->lo + b->lo, qb_hi = q->lo + q->n + b->lo + b->n - 1;
    if (qb_lo < lo)
        lo = qb_lo;
    int hi = a->n ? a->lo + a->n : qb_hi;
    if (qb_hi > hi)
        hi = qb_hi;
    if (hi - lo > LP_MAX)
        return -1;
    lpoly t;
    t.lo = lo;
    t.n = hi - lo;
    memset(t.c, 0, sizeof t.c);
    for (int i = 0; i < a->n; i++)
        t.c[a->lo + i - lo] += a->c[i];
    for (int i = 0; i < q->n; i++)
        for (int j = 0; j < b->n; j++)
            t.c[q->lo + i + b->lo + j - lo] -= q->c[i] * b->c[j];
    *r = t;
    return 0;
}

/*
 * Quotient q of a / b cancelling the k lowest and (la - lb + 1 - k) highest
 * coefficients of a - q b (see the file comment).
 */
static void lp_divide(const lpoly *a, const lpoly *b, int k, lpoly *q)
{
    int nq = a->n - b->n + 1;
    q->lo = a->lo - b->lo;
    q->n = nq;
    memset(q->c, 0, sizeof q->c);
    /* low end: coefficient of power a->lo + t for t < k */
    for (int t = 0; t < k; t++) {
        real_t v = a->c[t];
        for (int i = 0; i < t; i++)
            if (t - i < b->n)
                v -= q->c[i] * b->c[t - i];
        q->c[t] = v / b->c[0];
    }
    /* high end: coefficient of power a->lo + a->n - 1 - t for t < nq - k */
    for (int t = 0; t < nq - k; t++) {
        int qi = nq - 1 - t;
        real_t v = a->c[a->n - 1 - t];
        for (int i = qi + 1; i < nq; i++) {
            int bj = b->n - 1 - (i - qi);
            if (bj >= 0)
                v -= q->c[i] * b->c[bj];
        }
        q->c[qi] = v / b->c[b->n - 1];
    }
}

/*
 * Monomial test with a tolerance: a filter table that is perfectly
 * reconstructing only to ~1e-11 leaves tiny terms next to the dominant one.
 * They are dropped here; the measured error of the finished scheme (against
 * the analysis filters) then decides whether lifting may be used.
 */
static int make_monomial(lpoly *p)
{
    if (p->n == 0)
        return 0;
    int imax = 0;
    for (int i = 1; i < p->n; i++)
        if (fabsl(p->c[i]) > fabsl(p->c[imax]))
            imax = i;
    for (int i = 0; i < p->n; i++)
        if (i != imax && fabsl(p->c[i]) > 1e-6L * fabsl(p->c[imax]))
            return 0;
    p->lo += imax;
    p->c[0] = p->c[imax];
    p->n = 1;
    return 1;
}

/* a monomial inverse exists: x^-1 = (1/c) at offset -lo */
static void lp_mul_monomial_inverse(const lpoly *p, const lpoly *mono, lpoly *r)
{
    *r = *p;
    r->lo = p->lo - mono->lo;
    for (int i = 0; i < r->n; i++)
        r->c[i] = p->c[i] / mono->c[0];
}

static int add_step_ld(lwt_scheme *s, int target, const lpoly *q)
{
    double taps[LP_MAX];
    for (int i = 0; i < q->n; i++)
        taps[i] = (double)q->c[i];
    return lwt_scheme_add_step(s, target, q->lo, q->n, taps);
}

int lwt_scheme_add_step(lwt_scheme *s, int target, int off, int ntaps, const double *taps)
{
    if (ntaps <= 0)
        return 0;
    if (s->nsteps >= LWT_SCHEME_MAX_STEPS || s->ntaps_total + ntaps > LWT_SCHEME_MAX_TAPS)
        return -1;
    lwt_step *st = &s->steps[s->nsteps++];
    st->target = target;
    st->off = off;
    st->ntaps = ntaps;
    st->first = s->ntaps_total;
    memcpy(s->taps + s->ntaps_total, taps, (size_t)ntaps * sizeof(double));
    s->ntaps_total += ntaps;
    return 0;
}

static double step_cost(const lpoly *q)
{
    real_t l1 = 0;
    for (int i = 0; i < q->n; i++)
        l1 += fabsl(q->c[i]);
    return log2((double)(1 + l1));
}

/*
 * Finish a candidate whose first row has one zero entry: returns 0 and fills
 * cd->scheme when the remaining structure is valid.
 */
static int finish(cand *cd, real_t tol)
{
    lpoly q;
    if (cd->b.n == 0) {
        /* [[x, 0], [c, d]]: d monomial; predict with q = c / d */
        if (!make_monomial(&cd->a) || !make_monomial(&cd->d))
            return -1;
        lp_mul_monomial_inverse(&cd->c, &cd->d, &q);
        lp_trim(&q, tol);
        if (q.n && add_step_ld(&cd->scheme, 1, &q))
            return -1;
        cd->scheme.ach = 0;
        cd->scheme.ka = (double)cd->a.c[0];
        cd->scheme.sa = cd->a.lo;
        cd->scheme.kd = (double)cd->d.c[0];
        cd->scheme.sd = cd->d.lo;
        cd->cost += step_cost(&q);
    } else {
        /* [[0, x], [c, d]]: c monomial; update with q = d / c */
        if (!make_monomial(&cd->b) || !make_monomial(&cd->c))
            return -1;
        lp_mul_monomial_inverse(&cd->d, &cd->c, &q);
        lp_trim(&q, tol);
        if (q.n && add_step_ld(&cd->scheme, 0, &q))
            return -1;
        cd->scheme.ach = 1;
        cd->scheme.ka = (double)cd->b.c[0];
        cd->scheme.sa = cd->b.lo;
        cd->scheme.kd = (double)cd->c.c[0];
        cd->scheme.sd = cd->c.lo;
        cd->cost += step_cost(&q);
    }
    return 0;
}

static int cmp_cost(const void *x, const void *y)
{
    double a = (*(cand *const *)x)->cost, b = (*(cand *const *)y)->cost;
    return (a > b) - (a < b);
}

/* One column operation: reduce a (or b) by the other with low-cancel count k. */
static int reduce(const cand *in, int reduce_a, int k, real_t tol, cand *out)
{
    *out = *in;
    lpoly q;
    if (reduce_a) {
        lp_divide(&in->a, &in->b, k, &q);
        lp_trim(&q, tol);
        if (lp_sub_mul(&in->a, &q, &in->b, &out->a) || lp_sub_mul(&in->c, &q, &in->d, &out->c))
            return -1;
        /* column op col0 -= q col1 is undone by the predict step O += q E */
        if (add_step_ld(&out->scheme, 1, &q))
            return -1;
    } else {
        lp_divide(&in->b, &in->a, k, &q);
        lp_trim(&q, tol);
        if (lp_sub_mul(&in->b, &q, &in->a, &out->b) || lp_sub_mul(&in->d, &q, &in->c, &out->d))
            return -1;
        if (add_step_ld(&out->scheme, 0, &q))
            return -1;
    }
    real_t scale = lp_maxabs(&in->a) + lp_maxabs(&in->b);
    lp_trim(&out->a, tol * scale);
    lp_trim(&out->b, tol * scale);
    lp_trim(&out->c, tol * scale);
    lp_trim(&out->d, tol * scale);
    out->cost += step_cost(&q);
    return 0;
}

static void polyphase(const double *f, int F, lpoly *odd_part, lpoly *even_part)
{
    /* cA[k] = sum_i f[2i+1] E[k-i] + sum_i f[2i] O[k-i] */
    int half = F / 2;
    odd_part->lo = even_part->lo = -(half - 1);
    odd_part->n = even_part->n = half;
    for (int t = 0; t < half; t++) {
        odd_part->c[t] = f[F - 1 - 2 * t];
        even_part->c[t] = f[F - 2 - 2 * t];
    }
}

int lwt_factor_filter_bank(const lwt_filter_bank *fb, lwt_scheme *out, double *err64, double *err32)
{
    const real_t tol = 1e-15L;
    int F = fb->length;
    if (F < 2 || F % 2 || F / 2 > LP_MAX)
        return -1;

    cand *beam = calloc(BEAM_WIDTH, sizeof *beam);
    cand *next = calloc((size_t)BEAM_WIDTH * MAX_CHILDREN, sizeof *next);
    cand **order = calloc((size_t)BEAM_WIDTH * MAX_CHILDREN, sizeof *order);
    cand *best = calloc(1, sizeof *best);
    lwt_scheme *trial = calloc(1, sizeof *trial);
    if (!beam || !next || !order || !best || !trial) {
        free(beam); free(next); free(order); free(best); free(trial);
        return -1;
    }

    polyphase(fb->dec_lo, F, &beam[0].a, &beam[0].b);
    polyphase(fb->dec_hi, F, &beam[0].c, &beam[0].d);
    real_t scale = lp_maxabs(&beam[0].a) + lp_maxabs(&beam[0].b);
    lp_trim(&beam[0].a, tol * scale);
    lp_trim(&beam[0].b, tol * scale);
    lp_trim(&beam[0].c, tol * scale);
    lp_trim(&beam[0].d, tol * scale);
    int nbeam = 1;
    double best_err = INFINITY, best_e32 = INFINITY;
    int found = 0;

    for (int iter = 0; iter < 4 * LP_MAX && nbeam > 0; iter++) {
        int nnext = 0;
        for (int bi = 0; bi < nbeam; bi++) {
            cand *cd = &beam[bi];
            if (cd->a.n == 0 || cd->b.n == 0) {
                /* finished row: complete and rank by measured error */
                cand fin = *cd;
                if (finish(&fin, tol) == 0) {
                    double e64, e32;
                    lwt_scheme_measure(&fin.scheme, fb, &e64, &e32);
                    double e = e64 > e32 * 1e-9 ? e64 : e32 * 1e-9; /* rank by f64, break ties by f32 */
                    if (!found || e < best_err || (e == best_err && e32 < best_e32)) {
                        *best = fin;
                        best_err = e;
                        best_e32 = e32;
                        found = 1;
                    }
                }
                continue;
            }
            for (int which = 0; which < 2; which++) {
                int reduce_a = which == 0;
                const lpoly *num = reduce_a ? &cd->a : &cd->b, *den = reduce_a ? &cd->b : &cd->a;
                if (num->n < den->n)
                    continue;
                int nq = num->n - den->n + 1;
                for (int k = 0; k <= nq && nnext < BEAM_WIDTH * MAX_CHILDREN; k++) {
                    if (reduce(cd, reduce_a, k, tol, &next[nnext]) == 0) {
                        /* the reduced entry must get shorter, or Euclid does not terminate */
                        const lpoly *r = reduce_a ? &next[nnext].a : &next[nnext].b;
                        if (r->n < den->n)
                            nnext++;
                    }
                }
            }
        }
        for (int i = 0; i < nnext; i++)
            order[i] = &next[i];
        qsort(order, (size_t)nnext, sizeof *order, cmp_cost);
        nbeam = nnext < BEAM_WIDTH ? nnext : BEAM_WIDTH;
        for (int i = 0; i < nbeam; i++)
            beam[i] = *order[i];
    }

    if (found) {
        *out = best->scheme;
        lwt_scheme_measure(out, fb, err64, err32);
    }
    free(beam); free(next); free(order); free(best); free(trial);
    return found ? 0 : -1;
}
