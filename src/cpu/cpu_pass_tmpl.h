/*
 * CPU pass, written once for float and double: included by cpu_pass.c with
 * WREAL (the element type) and FN(name) (a suffixing macro) defined.
 *
 * Lines are processed in groups of up to LANES, interleaved in the work
 * buffers ([index][lane]) so that the innermost loops run across lanes and
 * vectorize, whether the axis is contiguous (lanes = neighbouring lines) or
 * strided (lanes = neighbouring columns). Each line's arithmetic is the same
 * whatever group or thread it lands in, so results do not depend on the
 * thread count.
 */

typedef struct FN(group) {
    const REAL *in[LANES], *in2[LANES];  /* inverse: cA and cD of each line */
    REAL *out[LANES], *out2[LANES];      /* forward: where cA and cD of each line go */
    int lanes;
    int contig;      /* 1: LANES neighbouring columns, so lane l of every pointer is lane 0's + l:
                        whole-vector loads and stores instead of a gather or scatter per sample */
    size_t stride;   /* element stride along the axis (= inner) */
} FN(group);

/* extended sample n of every lane into dst[lane] */
static void FN(load_ext)(const FN(group) *g, const lwt_line_prog *p, long N, long n, WREAL *dst)
{
    const size_t st = g->stride;
    if (n >= 0 && n < N) {
        const size_t i = (size_t)lwt_window_pos(&p->win, n) * st;
        if (g->contig) {
            const REAL *s = g->in[0] + i;
            for (int l = 0; l < LANES; l++)
                dst[l] = s[l];
            return;
        }
        for (int l = 0; l < g->lanes; l++)
            dst[l] = g->in[l][i];
        return;
    }
    lwt_ext_terms t;
    lwt_extend(p->mode, N, n, &t);
    size_t idx[3];
    for (int k = 0; k < t.n; k++)
        idx[k] = (size_t)lwt_window_pos(&p->win, t.idx[k]) * st;
    for (int l = 0; l < g->lanes; l++) {
        WREAL v = 0;
        for (int k = 0; k < t.n; k++)
            v += (WREAL)t.w[k] * g->in[l][idx[k]];
        dst[l] = v;
    }
}

/* coefficient k of band (0: cA, 1: cD) with the inverse's boundary rule */
static void FN(load_coeff)(const FN(group) *g, const lwt_line_prog *p, int band, long k, WREAL *dst)
{
    const long nc = p->nc;
    if (p->mode == LWT_MODE_PERIODIZATION)
        k = lwt_mod(k, nc);
    if (k < 0 || k >= nc) {
        for (int l = 0; l < g->lanes; l++)
            dst[l] = 0;
        return;
    }
    size_t i = (size_t)lwt_window_pos(&p->win, k) * g->stride;
    if (g->contig) {
        const REAL *s = (band ? g->in2[0] : g->in[0]) + i;
        for (int l = 0; l < LANES; l++)
            dst[l] = s[l];
        return;
    }
    for (int l = 0; l < g->lanes; l++)
        dst[l] = (band ? g->in2[l] : g->in[l])[i];
}

static void FN(run_steps)(const lwt_line_prog *p, const lwt_scheme *s, WREAL *ch[2], int inverse)
{
    WREAL acc[LANES];
    for (int k = 0; k < s->nsteps; k++) {
        int si = inverse ? s->nsteps - 1 - k : k;
        const lwt_step *st = &s->steps[si];
        const int t = st->target, u = 1 - t;
        WREAL *dst = ch[t];
        const WREAL *src = ch[u];
        const double *taps = s->taps + st->first;
        const lwt_range r = p->step[si];
        for (long m = r.lo; m < r.hi; m++) {
            for (int l = 0; l < LANES; l++)
                acc[l] = 0;
            const WREAL *sp = src + (size_t)(m + st->off - p->ch[u].lo) * LANES;
            for (int i = 0; i < st->ntaps; i++) {
                const WREAL c = (WREAL)taps[i];
                for (int l = 0; l < LANES; l++)
                    acc[l] += c * sp[(size_t)i * LANES + l];
            }
            WREAL *dp = dst + (size_t)(m - p->ch[t].lo) * LANES;
            if (inverse)
                for (int l = 0; l < LANES; l++)
                    dp[l] -= acc[l];
            else
                for (int l = 0; l < LANES; l++)
                    dp[l] += acc[l];
        }
    }
}

static void FN(forward_lifting)(const FN(group) *g, const lwt_line_prog *p, const lwt_scheme *s, WREAL *work)
{
    WREAL *ch[2] = {work, work + (size_t)(p->ch[0].hi - p->ch[0].lo) * LANES};
    for (int c = 0; c < 2; c++)
        for (long m = p->ch[c].lo; m < p->ch[c].hi; m++)
            FN(load_ext)(g, p, p->n, 2 * m + c + p->delta, ch[c] + (size_t)(m - p->ch[c].lo) * LANES);
    FN(run_steps)(p, s, ch, 0);
    const WREAL ka = (WREAL)s->ka, kd = (WREAL)s->kd;
    const int a = s->ach, d = 1 - s->ach;
    for (long k = p->out_lo; k < p->out_hi; k++) {
        const WREAL *pa = ch[a] + (size_t)(k + s->sa - p->ch[a].lo) * LANES;
        const WREAL *pd = ch[d] + (size_t)(k + s->sd - p->ch[d].lo) * LANES;
        const size_t o = (size_t)(k - p->out_lo) * g->stride;
        if (g->contig) {
            REAL *oa = g->out[0] + o, *od = g->out2[0] + o;
            for (int l = 0; l < LANES; l++) {
                oa[l] = (REAL)(ka * pa[l]);
                od[l] = (REAL)(kd * pd[l]);
            }
            continue;
        }
        for (int l = 0; l < g->lanes; l++) {
            g->out[l][o] = (REAL)(ka * pa[l]);
            g->out2[l][o] = (REAL)(kd * pd[l]);
        }
    }
}

static void FN(inverse_lifting)(const FN(group) *g, const lwt_line_prog *p, const lwt_scheme *s, WREAL *work)
{
    WREAL *ch[2] = {work, work + (size_t)(p->ch[0].hi - p->ch[0].lo) * LANES};
    const int a = s->ach, d = 1 - s->ach;
    const WREAL ka = (WREAL)s->ka, kd = (WREAL)s->kd;
    for (long m = p->ch[a].lo; m < p->ch[a].hi; m++) {
        WREAL *dst = ch[a] + (size_t)(m - p->ch[a].lo) * LANES;
        FN(load_coeff)(g, p, 0, m - s->sa, dst);
        for (int l = 0; l < g->lanes; l++)
            dst[l] /= ka;
    }
    for (long m = p->ch[d].lo; m < p->ch[d].hi; m++) {
        WREAL *dst = ch[d] + (size_t)(m - p->ch[d].lo) * LANES;
        FN(load_coeff)(g, p, 1, m - s->sd, dst);
        for (int l = 0; l < g->lanes; l++)
            dst[l] /= kd;
    }
    FN(run_steps)(p, s, ch, 1);
    for (long m = p->out_lo; m < p->out_hi; m++) {
        long y = m - p->delta;
        int c = (int)lwt_mod(y, 2);
        long idx = lwt_floor_div(y, 2);
        const WREAL *src = ch[c] + (size_t)(idx - p->ch[c].lo) * LANES;
        if (g->contig) {
            REAL *o = g->out[0] + (size_t)(m - p->out_lo) * g->stride;
            for (int l = 0; l < LANES; l++)
                o[l] = (REAL)(src[l]);
            continue;
        }
        for (int l = 0; l < g->lanes; l++)
            g->out[l][(size_t)(m - p->out_lo) * g->stride] = (REAL)(src[l]);
    }
}

static void FN(forward_direct)(const FN(group) *g, const lwt_line_prog *p, const lwt_filter_bank *fb, WREAL *work)
{
    WREAL *y = work; /* y[n] for n in span */
    for (long n = p->span.lo; n < p->span.hi; n++)
        FN(load_ext)(g, p, p->n, n + p->delta, y + (size_t)(n - p->span.lo) * LANES);
    const int F = fb->length;
    WREAL sa[LANES], sd[LANES];
    for (long k = p->out_lo; k < p->out_hi; k++) {
        for (int l = 0; l < LANES; l++)
            sa[l] = sd[l] = 0;
        for (int j = 0; j < F; j++) {
            const WREAL h = (WREAL)fb->dec_lo[j], gg = (WREAL)fb->dec_hi[j];
            const WREAL *yp = y + (size_t)(2 * k + 1 - j - p->span.lo) * LANES;
            for (int l = 0; l < LANES; l++) {
                sa[l] += h * yp[l];
                sd[l] += gg * yp[l];
            }
        }
        const size_t o = (size_t)(k - p->out_lo) * g->stride;
        if (g->contig) {
            REAL *oa = g->out[0] + o, *od = g->out2[0] + o;
            for (int l = 0; l < LANES; l++) {
                oa[l] = (REAL)(sa[l]);
                od[l] = (REAL)(sd[l]);
            }
            continue;
        }
        for (int l = 0; l < g->lanes; l++) {
            g->out[l][o] = (REAL)(sa[l]);
            g->out2[l][o] = (REAL)(sd[l]);
        }
    }
}

static void FN(inverse_direct)(const FN(group) *g, const lwt_line_prog *p, const lwt_filter_bank *fb, WREAL *work)
{
    const size_t len = (size_t)(p->span.hi - p->span.lo);
    WREAL *ca = work, *cd = work + len * LANES;
    for (long i = p->span.lo; i < p->span.hi; i++) {
        FN(load_coeff)(g, p, 0, i, ca + (size_t)(i - p->span.lo) * LANES);
        FN(load_coeff)(g, p, 1, i, cd + (size_t)(i - p->span.lo) * LANES);
    }
    const int half = fb->length / 2;
    WREAL acc[LANES];
    for (long m = p->out_lo; m < p->out_hi; m++) {
        long q = m - p->sigma;
        int e = (int)lwt_mod(q, 2);
        long i = lwt_floor_div(q, 2);
        for (int l = 0; l < LANES; l++)
            acc[l] = 0;
        for (int j = 0; j < half; j++) {
            const WREAL rl = (WREAL)fb->rec_lo[2 * j + e], rh = (WREAL)fb->rec_hi[2 * j + e];
            const size_t o = (size_t)(i - j - p->span.lo) * LANES;
            for (int l = 0; l < LANES; l++)
                acc[l] += rl * ca[o + l] + rh * cd[o + l];
        }
        if (g->contig) {
            REAL *o = g->out[0] + (size_t)(m - p->out_lo) * g->stride;
            for (int l = 0; l < LANES; l++)
                o[l] = (REAL)(acc[l]);
            continue;
        }
        for (int l = 0; l < g->lanes; l++)
            g->out[l][(size_t)(m - p->out_lo) * g->stride] = (REAL)(acc[l]);
    }
}

/* elements of work buffer one group needs */
static size_t FN(work_elems)(const lwt_line_prog *p)
{
    size_t n;
    if (p->direct)
        n = 2 * (size_t)(p->span.hi - p->span.lo);
    else
        n = (size_t)(p->ch[0].hi - p->ch[0].lo) + (size_t)(p->ch[1].hi - p->ch[1].lo);
    return (n + 1) * LANES;
}

static lwt_status FN(run_pass)(const lwt_pass *ps)
{
    const lwt_line_prog *p = ps->prog;
    const size_t inner = ps->inner, outer = ps->outer;
    const size_t n_in = (size_t)lwt_prog_in_extent(p), n_out = (size_t)lwt_prog_out_extent(p);
    const size_t band_in = (size_t)lwt_prog_in_band(p), band_out = (size_t)(p->out_hi - p->out_lo);
    /* groups: LANES neighbouring lines (inner == 1) or columns (inner > 1) */
    const size_t per_outer = inner == 1 ? 1 : (inner + LANES - 1) / LANES;
    const size_t ngroups = inner == 1 ? (outer + LANES - 1) / LANES : outer * per_outer;
    const size_t welems = FN(work_elems)(p);
    int failed = 0;
    int nthreads = ps->threads > 0 ? ps->threads : omp_get_max_threads_or_1();
    if ((size_t)nthreads > ngroups)
        nthreads = ngroups ? (int)ngroups : 1;
    /* at least PASS_GRAIN samples a thread: waking a team costs more than a small pass (a 7 x 9
       wavedec2 through the Python package took 3.9 ms on all threads of a busy 2-core machine,
       0.11 ms on one). The bits do not depend on the thread count. */
    const size_t samples = outer * inner * n_in, by_work = samples / PASS_GRAIN;
    if ((size_t)nthreads > by_work)
        nthreads = by_work ? (int)by_work : 1;

#pragma omp parallel num_threads(nthreads) reduction(| : failed)
    {
        WREAL *work = malloc(welems * sizeof(WREAL));
        if (!work)
            failed = 1;
        long ng = (long)ngroups;
#pragma omp for schedule(static)
        for (long gi = 0; gi < ng; gi++) {
            if (!work)
                continue;
            FN(group) g;
            g.stride = inner;
            g.lanes = 0;
            g.contig = 0;
            if (inner == 1) {
                size_t o0 = (size_t)gi * LANES;
                for (size_t o = o0; o < outer && o < o0 + LANES; o++) {
                    const int l = g.lanes++;
                    g.in[l] = (const REAL *)ps->in + o * n_in;
                    g.out[l] = (REAL *)ps->out + o * n_out;
                    g.in2[l] = g.in[l] + band_in;
                    g.out2[l] = g.out[l] + band_out;
                    if (ps->map) { /* bands in their places (last axis) */
                        int rg;
                        size_t a = lwt_dest_map_line(ps->map, o, 0, &rg), d = lwt_dest_map_line(ps->map, o, 1, &rg);
                        if (p->inverse) {
                            g.in[l] = (const REAL *)ps->map->dst[rg][0] + a;
                            g.in2[l] = (const REAL *)ps->map->dst[rg][1] + d;
                        } else {
                            g.out[l] = (REAL *)ps->map->dst[rg][0] + a;
                            g.out2[l] = (REAL *)ps->map->dst[rg][1] + d;
                        }
                    }
                }
            } else {
                size_t o = (size_t)gi / per_outer, c0 = ((size_t)gi % per_outer) * LANES;
                for (size_t c = c0; c < inner && c < c0 + LANES; c++) {
                    const int l = g.lanes++;
                    g.in[l] = (const REAL *)ps->in + o * n_in * inner + c;
                    g.out[l] = (REAL *)ps->out + o * n_out * inner + c;
                    g.in2[l] = g.in[l] + band_in * inner;
                    g.out2[l] = g.out[l] + band_out * inner;
                }
                g.contig = g.lanes == LANES;
            }
            /* A full group writes every lane of every work element it reads (the loads cover
               each channel's whole range), so only a partial group's unused lanes need zeros:
               they are computed (the lane loops stay branch-free) but never stored. Zeroing
               the buffer for every group cleared as many bytes as the pass moves (256 KiB per
               group of 8 lines of 4096). */
            if (g.lanes < LANES)
                memset(work, 0, welems * sizeof(WREAL));
            if (p->direct) {
                if (p->inverse)
                    FN(inverse_direct)(&g, p, ps->fb, work);
                else
                    FN(forward_direct)(&g, p, ps->fb, work);
            } else {
                if (p->inverse)
                    FN(inverse_lifting)(&g, p, ps->scheme, work);
                else
                    FN(forward_lifting)(&g, p, ps->scheme, work);
            }
        }
        free(work);
    }
    return failed ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}
