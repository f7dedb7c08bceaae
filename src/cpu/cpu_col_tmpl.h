/*
 * The column pipeline (part of cpu_pass_tmpl.h): lines along a strided axis, nl of them side
 * by side (a strip of neighbouring columns, or whole rows in a fused level), moving down the
 * axis one index per tick. Rows enter a ring, every lifting step runs a few rows behind the
 * previous one (cpu_pipe.h), and the finished rows leave, so each row is read once and
 * written once, the ring stays in cache, and the loops across the nl lanes vectorize. Where
 * the rows come from and go to is the caller's (load and store below): memory for a strided
 * pass, the line kernel for a fused level.
 */

/* [lo, hi) within the pass's outputs; 0 when nothing is left */
static inline int FN(clip)(const lwt_line_prog *p, long *lo, long *hi)
{
    if (*lo < p->out_lo)
        *lo = p->out_lo;
    if (*hi > p->out_hi)
        *hi = p->out_hi;
    return *lo < *hi;
}

typedef struct FN(col) FN(col);
struct FN(col) {
    const lwt_line_prog *p;
    long nl;              /* lanes: the length of every row */
    /* forward: extended sample row idx (b unused); inverse: coefficient row idx of band b
       (0: cA, 1: cD, the boundary rule not yet applied) times scale (the reciprocal of the
       band's) */
    void (*load)(const FN(col) *c, int b, long idx, WREAL scale, WREAL *dst);
    /* forward: coefficient row idx of band b = scale * v; inverse: sample row idx = v (b 0,
       scale 1) */
    void (*store)(const FN(col) *c, int b, long idx, WREAL scale, const WREAL *v);
    /* the strided pass's rows: input row i at in + i stride (inverse: cA; in2: cD), output row
       k at out + (k - out_lo) stride (forward: cA; out2: cD) */
    const REAL *in, *in2;
    REAL *out, *out2;
    size_t stride;
    const void *level;    /* a fused level's own state (cpu_level_tmpl.h) */
};

/* Lifting down the axis for outputs [lo, hi) (forward: coefficients; inverse: samples) of
   the pass's [out_lo, out_hi); ring: 2 pp->ring rows of nl */
static void FN(col_lifting)(const FN(col) *c, const lwt_scheme *s, const lwt_cpu_pipe *pp, WREAL *ring_mem, long lo,
                            long hi)
{
    const lwt_line_prog *p = c->p;
    const int inverse = p->inverse, a = s->ach, d = 1 - s->ach;
    const long nl = c->nl, mask = pp->ring - 1;
    const WREAL ka = (WREAL)s->ka, kd = (WREAL)s->kd, rka = (WREAL)(1.0 / s->ka), rkd = (WREAL)(1.0 / s->kd);
    if (!FN(clip)(p, &lo, &hi))
        return;
    /* the channel indices the outputs leave from */
    long qlo, qhi;
    if (inverse) {
        qlo = lwt_floor_div(lo - p->delta - 1, 2);
        qhi = lwt_floor_div(hi - 1 - p->delta, 2) + 1;
    } else {
        qlo = lo + (s->sa < s->sd ? s->sa : s->sd);
        qhi = hi + (s->sa > s->sd ? s->sa : s->sd);
    }
    const long t0 = p->ch[0].lo < p->ch[1].lo ? p->ch[0].lo : p->ch[1].lo;
    const long tmax = p->ch[0].hi > p->ch[1].hi ? p->ch[0].hi : p->ch[1].hi;
    const long start = qlo - pp->halo > t0 ? qlo - pp->halo : t0;
    const long end = (qhi < tmax ? qhi : tmax) + pp->store;
    WREAL *ring[2] = {ring_mem, ring_mem + (size_t)pp->ring * (size_t)nl};
    if (start > t0) /* a share of the line: the rows before start are read but never stored */
        memset(ring_mem, 0, 2 * (size_t)pp->ring * (size_t)nl * sizeof(WREAL));
#define ROW(ch, q) (ring[ch] + (size_t)((q) & mask) * (size_t)nl)
    const WREAL *rows[LWT_SCHEME_MAX_TAPS];
    WREAL taps[LWT_SCHEME_MAX_TAPS];
    for (long tick = start; tick < end; tick++) {
        for (int ch = 0; ch < 2; ch++) {
            if (tick < p->ch[ch].lo || tick >= p->ch[ch].hi)
                continue;
            if (inverse) {
                const int b = ch == a ? 0 : 1;
                c->load(c, b, tick - (b ? s->sd : s->sa), b ? rkd : rka, ROW(ch, tick));
            } else {
                c->load(c, 0, 2 * tick + ch + p->delta, 1, ROW(ch, tick));
            }
        }
        for (int e = 0; e < s->nsteps; e++) {
            const int si = inverse ? s->nsteps - 1 - e : e;
            const lwt_step *st = &s->steps[si];
            const long m = tick - pp->lag[e];
            if (m < p->step[si].lo || m >= p->step[si].hi)
                continue;
            for (int i = 0; i < st->ntaps; i++) {
                rows[i] = ROW(1 - st->target, m + st->off + i);
                taps[i] = (WREAL)s->taps[st->first + i];
            }
            FN(lift_lanes)(st->ntaps, rows, taps, ROW(st->target, m), nl, inverse);
        }
        const long q = tick - pp->store;
        if (q < qlo)
            continue;
        if (inverse) {
            for (int ch = 0; ch < 2; ch++) {
                const long m = 2 * q + ch + p->delta;
                if (m >= lo && m < hi)
                    c->store(c, 0, m, 1, ROW(ch, q));
            }
        } else {
            for (int b = 0; b < 2; b++) {
                const long k = q - (b ? s->sd : s->sa);
                if (k >= lo && k < hi)
                    c->store(c, b, k, b ? kd : ka, ROW(b ? d : a, q));
            }
        }
    }
#undef ROW
}

/* The filter bank down the axis for outputs [lo, hi): a ring of the last F rows of the
   extended signal (forward) or of the last F / 2 coefficient rows of both bands (inverse);
   ring_mem: 2 ring_rows rows of nl */
static void FN(col_direct)(const FN(col) *c, const lwt_filter_bank *fb, long ring_rows, WREAL *ring_mem,
                           WREAL *acc, WREAL *acc2, long lo, long hi)
{
    const lwt_line_prog *p = c->p;
    const long nl = c->nl, mask = ring_rows - 1;
    if (!FN(clip)(p, &lo, &hi))
        return;
#define ROW(base, i) ((base) + (size_t)((i) & mask) * (size_t)nl)
    if (!p->inverse) {
        const int F = fb->length;
        /* output k takes y[2 k + 2 - F .. 2 k + 1] */
        const long n0 = 2 * lo + 2 - F > p->span.lo ? 2 * lo + 2 - F : p->span.lo;
        const long n1 = 2 * hi < p->span.hi ? 2 * hi : p->span.hi;
        for (long n = n0; n < n1; n++) {
            c->load(c, 0, n + p->delta, 1, ROW(ring_mem, n));
            const long k = (n - 1) / 2;
            if (((n - 1) & 1) || k < lo || k >= hi)
                continue;
            for (long l = 0; l < nl; l++)
                acc[l] = acc2[l] = 0;
            for (int j = 0; j < F; j++) {
                const WREAL h = (WREAL)fb->dec_lo[j], g = (WREAL)fb->dec_hi[j];
                const WREAL *restrict y = ROW(ring_mem, n - j);
                for (long l = 0; l < nl; l++) {
                    acc[l] += h * y[l];
                    acc2[l] += g * y[l];
                }
            }
            c->store(c, 0, k, 1, acc);
            c->store(c, 1, k, 1, acc2);
        }
        return;
    }
    const int half = fb->length / 2;
    WREAL *ca = ring_mem, *cd = ring_mem + (size_t)ring_rows * (size_t)nl;
    /* output m, q = m - sigma = 2 i + e, takes coefficients i - half + 1 .. i */
    const long ilo = lwt_floor_div(lo - p->sigma, 2), ihi = lwt_floor_div(hi - 1 - p->sigma, 2) + 1;
    const long i0 = ilo - half + 1 > p->span.lo ? ilo - half + 1 : p->span.lo;
    const long i1 = ihi < p->span.hi ? ihi : p->span.hi;
    for (long i = i0; i < i1; i++) {
        c->load(c, 0, i, 1, ROW(ca, i));
        c->load(c, 1, i, 1, ROW(cd, i));
        for (int e = 0; e < 2; e++) {
            const long m = 2 * i + e + p->sigma;
            if (m < lo || m >= hi)
                continue;
            for (long l = 0; l < nl; l++)
                acc[l] = 0;
            for (int j = 0; j < half; j++) {
                const WREAL rl = (WREAL)fb->rec_lo[2 * j + e], rh = (WREAL)fb->rec_hi[2 * j + e];
                const WREAL *restrict pa = ROW(ca, i - j), *restrict pd = ROW(cd, i - j);
                for (long l = 0; l < nl; l++)
                    acc[l] += rl * pa[l] + rh * pd[l];
            }
            c->store(c, 0, m, 1, acc);
        }
    }
#undef ROW
}

/* rows of a ring for a pass: lifting pipeline, or the filter bank's window */
static long FN(col_ring_rows)(const lwt_line_prog *p, const lwt_scheme *s, const lwt_filter_bank *fb,
                              lwt_cpu_pipe *pp)
{
    if (!p->direct) {
        lwt_cpu_pipe_plan(s, p->inverse, pp);
        return pp->ring;
    }
    const long need = p->inverse ? fb->length / 2 : fb->length;
    long r = 1;
    while (r < need)
        r <<= 1;
    return r;
}

/* ---- a strided pass: strips of neighbouring columns, rows in memory ---- */

#define FN_PREFETCH_TICKS 16 /* rows ahead: the rows are a page apart, where the hardware
                                prefetchers do not follow */

static void FN(strip_prefetch)(const FN(col) *c, const REAL *base, long i, long len)
{
    long pos;
    if (!lwt_cpu_run_at(&c->p->win, len, i, &pos))
        return;
    const char *r = (const char *)(base + (size_t)pos * c->stride);
    for (size_t b = 0; b < (size_t)c->nl * sizeof(REAL); b += 64)
        __builtin_prefetch(r + b);
}

static void FN(strip_load)(const FN(col) *c, int b, long idx, WREAL scale, WREAL *restrict dst)
{
    const lwt_line_prog *p = c->p;
    const long nl = c->nl;
    if (p->inverse) {
        const REAL *base = b ? c->in2 : c->in;
        long pos;
        FN(strip_prefetch)(c, base, idx + FN_PREFETCH_TICKS, p->nc);
        if (!lwt_cpu_coeff_run(p, idx, &pos)) {
            for (long l = 0; l < nl; l++)
                dst[l] = (WREAL)0 * scale;
            return;
        }
        const REAL *restrict s = base + (size_t)pos * c->stride;
        for (long l = 0; l < nl; l++)
            dst[l] = (WREAL)s[l] * scale;
        return;
    }
    FN(strip_prefetch)(c, c->in, idx + FN_PREFETCH_TICKS, p->n);
    size_t at[3];
    double w[3];
    const int nt = lwt_cpu_sample_src(p, idx, at, w);
    if (nt < 0) {
        const REAL *restrict s = c->in + at[0] * c->stride;
        for (long l = 0; l < nl; l++)
            dst[l] = s[l];
        return;
    }
    for (long l = 0; l < nl; l++)
        dst[l] = 0;
    for (int t = 0; t < nt; t++) {
        const REAL *restrict s = c->in + at[t] * c->stride;
        const WREAL wt = (WREAL)w[t];
        for (long l = 0; l < nl; l++)
            dst[l] += wt * s[l];
    }
}

static void FN(strip_store)(const FN(col) *c, int b, long idx, WREAL scale, const WREAL *restrict v)
{
    REAL *restrict o = (b ? c->out2 : c->out) + (size_t)(idx - c->p->out_lo) * c->stride;
    for (long l = 0; l < c->nl; l++)
        o[l] = (REAL)(scale * v[l]);
}
