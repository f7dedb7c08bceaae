/*
 * The line kernel (part of cpu_pass_tmpl.h): lines along the contiguous axis, one at a time.
 * Both channels of a line sit in a small buffer (16 KiB a channel for a line of 4096), each
 * lifting step is one sweep along m, and the loops along the line are what the compiler
 * vectorizes: contiguous loads, no gathers. The fused 2-D level (cpu_level_tmpl.h) runs the
 * same functions on the rows it makes.
 */

/* where one line's input and output are */
typedef struct FN(line_io) {
    const REAL *in, *in2;  /* input; inverse: cA and cD */
    REAL *out, *out2;      /* output; forward: cA and cD */
    /* a fused level's row in the arithmetic type instead of in (forward) or out (inverse):
       its sample i is (REAL)(wscale * win[i]) (forward) and wout[i] = (WREAL)sample * wscale
       (inverse), the values the row would have been stored as and loaded from */
    const WREAL *win;
    WREAL *wout;
    WREAL wscale;
} FN(line_io);

/* sample i of the forward line's input */
static inline __attribute__((always_inline)) WREAL FN(line_sample)(const FN(line_io) *io, int wide, size_t i)
{
    return wide ? (WREAL)(REAL)(io->wscale * io->win[i]) : (WREAL)io->in[i];
}

/* dst[j] = extended sample n0 + 2 j of the line (stride 1), j < cnt */
static inline __attribute__((always_inline)) void FN(load_samples_from)(const lwt_line_prog *p, const FN(line_io) *io,
                                                                         int wide, long n0, long cnt, WREAL *dst)
{
    long j = 0;
    while (j < cnt) {
        const long n = n0 + 2 * j;
        long pos, run = lwt_cpu_run_at(&p->win, p->n, n, &pos);
        if (run) {
            long k = (run + 1) / 2;
            if (k > cnt - j)
                k = cnt - j;
            WREAL *d = dst + j;
            for (long i = 0; i < k; i++)
                d[i] = FN(line_sample)(io, wide, (size_t)(pos + 2 * i));
            j += k;
            continue;
        }
        size_t at[3];
        double w[3];
        const int nt = lwt_cpu_sample_src(p, n, at, w);
        WREAL v = 0;
        for (int t = 0; t < nt; t++)
            v += (WREAL)w[t] * FN(line_sample)(io, wide, at[t]);
        dst[j++] = v;
    }
}

static void FN(load_samples)(const lwt_line_prog *p, const FN(line_io) *io, long n0, long cnt, WREAL *dst)
{
    if (io->win)
        FN(load_samples_from)(p, io, 1, n0, cnt, dst);
    else
        FN(load_samples_from)(p, io, 0, n0, cnt, dst);
}

/* dst[j] = coefficient k0 + j of the band at c times rscale (the reciprocal of the band's scale),
   j < cnt */
static void FN(load_coeffs)(const lwt_line_prog *p, const REAL *c, long k0, long cnt, WREAL rscale, WREAL *dst)
{
    long j = 0;
    while (j < cnt) {
        long pos, run = lwt_cpu_coeff_run(p, k0 + j, &pos);
        if (!run) {
            dst[j++] = (WREAL)0 * rscale;
            continue;
        }
        if (run > cnt - j)
            run = cnt - j;
        const REAL *s = c + pos;
        WREAL *d = dst + j;
        for (long i = 0; i < run; i++)
            d[i] = (WREAL)s[i] * rscale;
        j += run;
    }
}

#define FN_LINE_BLOCK 16 /* lanes of the generic step loop: two AVX-512 vectors of doubles */

/* dp[l] += (or -=) sum_i c[i] * rows[i][l] for l < nl, the sum from the first product in the
   order of i (cpu_pass_tmpl.h). Inlined
   with nt a constant for the common tap counts, so the sum stays in registers along l */
static inline __attribute__((always_inline)) void FN(lift_lanes_n)(int nt, const WREAL *const *rows,
                                                                    const WREAL *c, WREAL *dp, long nl,
                                                                    int inverse)
{
    if (inverse) {
#pragma GCC ivdep
        for (long l = 0; l < nl; l++) {
            WREAL acc = c[0] * rows[0][l];
            for (int i = 1; i < nt; i++)
                acc += c[i] * rows[i][l];
            dp[l] -= acc;
        }
    } else {
#pragma GCC ivdep
        for (long l = 0; l < nl; l++) {
            WREAL acc = c[0] * rows[0][l];
            for (int i = 1; i < nt; i++)
                acc += c[i] * rows[i][l];
            dp[l] += acc;
        }
    }
}

/* the same for any tap count: blocks of lanes, the sums in a small array */
static void FN(lift_lanes_any)(int nt, const WREAL *const *rows, const WREAL *c, WREAL *dp, long nl, int inverse)
{
    for (long l0 = 0; l0 < nl; l0 += FN_LINE_BLOCK) {
        const int nb = nl - l0 < FN_LINE_BLOCK ? (int)(nl - l0) : FN_LINE_BLOCK;
        WREAL acc[FN_LINE_BLOCK];
        for (int l = 0; l < nb; l++)
            acc[l] = c[0] * rows[0][l0 + l];
        for (int i = 1; i < nt; i++) {
            const WREAL ci = c[i], *sp = rows[i] + l0;
            for (int l = 0; l < nb; l++)
                acc[l] += ci * sp[l];
        }
        WREAL *d = dp + l0;
        if (inverse)
            for (int l = 0; l < nb; l++)
                d[l] -= acc[l];
        else
            for (int l = 0; l < nb; l++)
                d[l] += acc[l];
    }
}

static void FN(lift_lanes)(int nt, const WREAL *const *rows, const WREAL *c, WREAL *dp, long nl, int inverse)
{
    switch (nt) {
    case 1: FN(lift_lanes_n)(1, rows, c, dp, nl, inverse); break;
    case 2: FN(lift_lanes_n)(2, rows, c, dp, nl, inverse); break;
    case 3: FN(lift_lanes_n)(3, rows, c, dp, nl, inverse); break;
    case 4: FN(lift_lanes_n)(4, rows, c, dp, nl, inverse); break;
    default: FN(lift_lanes_any)(nt, rows, c, dp, nl, inverse); break;
    }
}

/* the lifting steps over whole channels, in execution order */
static void FN(line_steps)(const lwt_line_prog *p, const lwt_scheme *s, WREAL *ch[2], int inverse)
{
    const WREAL *rows[LWT_SCHEME_MAX_TAPS];
    WREAL c[LWT_SCHEME_MAX_TAPS];
    for (int e = 0; e < s->nsteps; e++) {
        const int si = inverse ? s->nsteps - 1 - e : e;
        const lwt_step *st = &s->steps[si];
        const int t = st->target, u = 1 - t;
        const lwt_range r = p->step[si];
        if (r.hi <= r.lo)
            continue;
        for (int i = 0; i < st->ntaps; i++) {
            rows[i] = ch[u] + (r.lo + st->off + i - p->ch[u].lo);
            c[i] = (WREAL)s->taps[st->first + i];
        }
        FN(lift_lanes)(st->ntaps, rows, c, ch[t] + (r.lo - p->ch[t].lo), r.hi - r.lo, inverse);
    }
}

static void FN(line_forward_lifting)(const FN(line_io) *io, const lwt_line_prog *p, const lwt_scheme *s, WREAL *work)
{
    WREAL *ch[2] = {work, work + (p->ch[0].hi - p->ch[0].lo)};
    for (int c = 0; c < 2; c++)
        FN(load_samples)(p, io, 2 * p->ch[c].lo + c + p->delta, p->ch[c].hi - p->ch[c].lo, ch[c]);
    FN(line_steps)(p, s, ch, 0);
    const WREAL ka = (WREAL)s->ka, kd = (WREAL)s->kd;
    const int a = s->ach, d = 1 - s->ach;
    const long nk = p->out_hi - p->out_lo;
    const WREAL *pa = ch[a] + (p->out_lo + s->sa - p->ch[a].lo), *pd = ch[d] + (p->out_lo + s->sd - p->ch[d].lo);
    REAL *oa = io->out, *od = io->out2;
    for (long k = 0; k < nk; k++)
        oa[k] = (REAL)(ka * pa[k]);
    for (long k = 0; k < nk; k++)
        od[k] = (REAL)(kd * pd[k]);
}

/* the inverse line's output: x[m] = channel (m - delta) mod 2 at index (m - delta) div 2, as
   REAL, or in the arithmetic type for a fused level (wide) */
static inline __attribute__((always_inline)) void FN(interleave)(const lwt_line_prog *p, const FN(line_io) *io,
                                                                  int wide, WREAL *ch[2])
{
    const WREAL *c0 = ch[0] - p->ch[0].lo, *c1 = ch[1] - p->ch[1].lo;
    REAL *o = wide ? NULL : io->out - p->out_lo;
    WREAL *wo = wide ? io->wout - p->out_lo : NULL;
    const WREAL sc = io->wscale;
#define FN_PUT(m, v) (wide ? (void)(wo[m] = (WREAL)(REAL)(v) * sc) : (void)(o[m] = (REAL)(v)))
    long m = p->out_lo;
    if (m < p->out_hi && lwt_mod(m - p->delta, 2)) {
        FN_PUT(m, c1[lwt_floor_div(m - p->delta, 2)]);
        m++;
    }
    const long i0 = lwt_floor_div(m - p->delta, 2), npair = (p->out_hi - m) / 2;
#pragma GCC ivdep
    for (long i = 0; i < npair; i++) {
        FN_PUT(m + 2 * i, c0[i0 + i]);
        FN_PUT(m + 2 * i + 1, c1[i0 + i]);
    }
    if (m + 2 * npair < p->out_hi)
        FN_PUT(p->out_hi - 1, c0[i0 + npair]);
#undef FN_PUT
}

static void FN(line_inverse_lifting)(const FN(line_io) *io, const lwt_line_prog *p, const lwt_scheme *s, WREAL *work)
{
    WREAL *ch[2] = {work, work + (p->ch[0].hi - p->ch[0].lo)};
    const int a = s->ach, d = 1 - s->ach;
    FN(load_coeffs)(p, io->in, p->ch[a].lo - s->sa, p->ch[a].hi - p->ch[a].lo, (WREAL)(1.0 / s->ka), ch[a]);
    FN(load_coeffs)(p, io->in2, p->ch[d].lo - s->sd, p->ch[d].hi - p->ch[d].lo, (WREAL)(1.0 / s->kd), ch[d]);
    FN(line_steps)(p, s, ch, 1);
    /* x[m] = channel (m - delta) mod 2 at index (m - delta) div 2: pairs (even, odd) */
    if (io->wout)
        FN(interleave)(p, io, 1, ch);
    else
        FN(interleave)(p, io, 0, ch);
}

static void FN(line_forward_direct)(const FN(line_io) *io, const lwt_line_prog *p, const lwt_filter_bank *fb,
                                    WREAL *work)
{
    /* the extended line y[span] split by parity (y index - span.lo), so that every tap's
       samples are contiguous along k */
    const long len = p->span.hi - p->span.lo, half = (len + 1) / 2;
    WREAL *yp[2] = {work, work + half};
    FN(load_samples)(p, io, p->span.lo + p->delta, half, yp[0]);
    FN(load_samples)(p, io, p->span.lo + 1 + p->delta, len / 2, yp[1]);
    const int F = fb->length;
    const long nk = p->out_hi - p->out_lo;
    REAL *oa = io->out, *od = io->out2;
    long k = 0;
    for (; k < nk; k += FN_LINE_BLOCK) {
        const int nl = nk - k < FN_LINE_BLOCK ? (int)(nk - k) : FN_LINE_BLOCK;
        WREAL sa[FN_LINE_BLOCK], sd[FN_LINE_BLOCK];
        for (int l = 0; l < FN_LINE_BLOCK; l++)
            sa[l] = sd[l] = 0;
        for (int j = 0; j < F; j++) {
            const WREAL h = (WREAL)fb->dec_lo[j], g = (WREAL)fb->dec_hi[j];
            const long rel = 2 * (p->out_lo + k) + 1 - j - p->span.lo; /* y index of lane 0 */
            const WREAL *y = yp[rel & 1] + (rel >> 1);
            if (nl == FN_LINE_BLOCK)
                for (int l = 0; l < FN_LINE_BLOCK; l++) {
                    sa[l] += h * y[l];
                    sd[l] += g * y[l];
                }
            else
                for (int l = 0; l < nl; l++) {
                    sa[l] += h * y[l];
                    sd[l] += g * y[l];
                }
        }
        for (int l = 0; l < nl; l++) {
            oa[k + l] = (REAL)sa[l];
            od[k + l] = (REAL)sd[l];
        }
    }
}

static void FN(line_inverse_direct)(const FN(line_io) *io, const lwt_line_prog *p, const lwt_filter_bank *fb,
                                    WREAL *work)
{
    const long len = p->span.hi - p->span.lo;
    WREAL *ca = work, *cd = work + len;
    FN(load_coeffs)(p, io->in, p->span.lo, len, (WREAL)1, ca);
    FN(load_coeffs)(p, io->in2, p->span.lo, len, (WREAL)1, cd);
    const int half = fb->length / 2;
    /* x[m], q = m - sigma = 2 i + e: sum_j rec[2 j + e] c[i - j]; outputs of one parity e
       are consecutive in i */
    for (int e = 0; e < 2; e++) {
        const long i0 = lwt_floor_div(p->out_lo - p->sigma - e + 1, 2);
        const long i1 = lwt_floor_div(p->out_hi - 1 - p->sigma - e, 2) + 1;
        const long at = e + p->sigma - p->out_lo;
        for (long i = i0; i < i1; i += FN_LINE_BLOCK) {
            const int nl = i1 - i < FN_LINE_BLOCK ? (int)(i1 - i) : FN_LINE_BLOCK;
            WREAL acc[FN_LINE_BLOCK];
            for (int l = 0; l < FN_LINE_BLOCK; l++)
                acc[l] = 0;
            for (int j = 0; j < half; j++) {
                const WREAL rl = (WREAL)fb->rec_lo[2 * j + e], rh = (WREAL)fb->rec_hi[2 * j + e];
                const WREAL *pa = ca + (i - j - p->span.lo), *pd = cd + (i - j - p->span.lo);
                if (nl == FN_LINE_BLOCK)
                    for (int l = 0; l < FN_LINE_BLOCK; l++)
                        acc[l] += rl * pa[l] + rh * pd[l];
                else
                    for (int l = 0; l < nl; l++)
                        acc[l] += rl * pa[l] + rh * pd[l];
            }
            if (io->wout)
                for (int l = 0; l < nl; l++)
                    io->wout[at + 2 * (i + l)] = (WREAL)(REAL)acc[l] * io->wscale;
            else
                for (int l = 0; l < nl; l++)
                    io->out[at + 2 * (i + l)] = (REAL)acc[l];
        }
    }
}

/* work elements of one line */
static size_t FN(line_work)(const lwt_line_prog *p)
{
    if (!p->direct)
        return (size_t)(p->ch[0].hi - p->ch[0].lo) + (size_t)(p->ch[1].hi - p->ch[1].lo) + 1;
    return 2 * (size_t)(p->span.hi - p->span.lo) + 2;
}

