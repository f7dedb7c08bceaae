/*
 * A whole 2-D level in one sweep (part of cpu_pass_tmpl.h; cpu_level.h): the column pipeline
 * (cpu_col_tmpl.h) runs on whole rows, and every row it finishes goes straight through the
 * line kernel (cpu_line_tmpl.h) to the bands (forward); the inverse makes each coefficient
 * row the pipeline loads with the line kernel from the band rows. The rows between the axes
 * are rounded to REAL as the separable passes store them, so the bits are theirs, but never
 * stored: the line kernel reads the pipeline's rows and writes its rows in the arithmetic type
 * (FN(line_io).win, .wout), one buffer fewer between L1 and L2 (inverse 3-6% faster on one
 * thread, forward within the noise; docs/PERFORMANCE.md). The level reads its
 * input once and writes its bands once, where the passes read and write it twice.
 * Threads take shares of the output rows of a plane, each starting its pipeline a halo of
 * rows early (those rows are computed twice, never stored twice).
 * A 16-bit plan's level (lv->half) converts its 16-bit rows as it reads and writes them: into
 * and out of float rows of the thread's own, so the row loops below stay as they are and every
 * value is the float32 level's, rounded once (the definition of docs/API.md, "16-bit storage").
 */

typedef struct FN(level_ctx) {
    const lwt_cpu_level *lv;
    const lwt_line_prog *p1;
    const REAL *in[4];   /* this plane's (16-bit bands: as uint16_t, see band16) */
    REAL *out[4];
    WREAL *line_work;
    float *row16[3];     /* a 16-bit level's float rows (two bands, or the signal) */
} FN(level_ctx);

/* whether band b (the signal when b < 0) of the level is a 16-bit array */
static inline int FN(band16)(const lwt_cpu_level *lv, int b)
{
    return lv->half && (lv->sixteen >> (b < 0 ? 4 : b) & 1u);
}

static void FN(line_forward)(const FN(line_io) *io, const lwt_cpu_level *lv, const lwt_line_prog *p, WREAL *work)
{
    if (p->direct)
        FN(line_forward_direct)(io, p, lv->fb, work);
    else
        FN(line_forward_lifting)(io, p, lv->scheme, work);
}

static void FN(line_inverse)(const FN(line_io) *io, const lwt_cpu_level *lv, const lwt_line_prog *p, WREAL *work)
{
    if (p->direct)
        FN(line_inverse_direct)(io, p, lv->fb, work);
    else
        FN(line_inverse_lifting)(io, p, lv->scheme, work);
}

/* forward: coefficient row k of column band b, then its row transform into bands b, b | 2 */
static void FN(level_store)(const FN(col) *c, int b, long k, WREAL scale, const WREAL *restrict v)
{
    const FN(level_ctx) *x = c->level;
    FN(line_io) io = {0};
    io.win = v;
    io.wscale = scale;
    const size_t row = (size_t)(k - x->lv->prog[0].out_lo); /* a chunk's level starts at its first output */
    const int h = FN(band16)(x->lv, b), h2 = FN(band16)(x->lv, b | 2);
    io.out = h ? (REAL *)(void *)x->row16[0] : x->out[b] + row * x->lv->out_stride[b];
    io.out2 = h2 ? (REAL *)(void *)x->row16[1] : x->out[b | 2] + row * x->lv->out_stride[b | 2];
    FN(line_forward)(&io, x->lv, x->p1, x->line_work);
    const size_t nc = (size_t)(x->p1->out_hi - x->p1->out_lo);
    if (h)
        lwt_half_narrow(x->lv->half, x->row16[0], (uint16_t *)(void *)x->out[b] + row * x->lv->out_stride[b], nc);
    if (h2)
        lwt_half_narrow(x->lv->half, x->row16[1],
                        (uint16_t *)(void *)x->out[b | 2] + row * x->lv->out_stride[b | 2], nc);
}

/* forward, a 16-bit signal: extended sample row idx as strip_load makes it from float rows */
static void FN(sig16_load)(const FN(col) *c, int b, long idx, WREAL scale, WREAL *restrict dst)
{
    (void)b;
    (void)scale;
    const FN(level_ctx) *x = c->level;
    const uint16_t *in = (const uint16_t *)(const void *)c->in;
    float *restrict r = x->row16[2];
    size_t at[3];
    double w[3];
    const int nt = lwt_cpu_sample_src(c->p, idx, at, w);
    if (nt < 0) {
        lwt_half_widen(x->lv->half, in + at[0] * c->stride, r, (size_t)c->nl);
        for (long l = 0; l < c->nl; l++)
            dst[l] = r[l];
        return;
    }
    for (long l = 0; l < c->nl; l++)
        dst[l] = 0;
    for (int t = 0; t < nt; t++) {
        lwt_half_widen(x->lv->half, in + at[t] * c->stride, r, (size_t)c->nl);
        const WREAL wt = (WREAL)w[t];
        for (long l = 0; l < c->nl; l++)
            dst[l] += wt * (REAL)r[l];
    }
}

/* inverse, a 16-bit signal: sample row idx as strip_store writes it, then rounded to 16 bits */
static void FN(sig16_store)(const FN(col) *c, int b, long idx, WREAL scale, const WREAL *restrict v)
{
    (void)b;
    const FN(level_ctx) *x = c->level;
    float *restrict r = x->row16[2];
    for (long l = 0; l < c->nl; l++)
        r[l] = (float)(REAL)(scale * v[l]);
    lwt_half_narrow(x->lv->half, r, (uint16_t *)(void *)c->out + (size_t)(idx - c->p->out_lo) * c->stride,
                    (size_t)c->nl);
}

/* inverse: coefficient row k of column band b, made from bands b and b | 2 by the row transform */
static void FN(level_load)(const FN(col) *c, int b, long k, WREAL scale, WREAL *restrict dst)
{
    const FN(level_ctx) *x = c->level;
    long pos;
    if (!lwt_cpu_coeff_run(c->p, k, &pos)) {
        for (long l = 0; l < c->nl; l++)
            dst[l] = (WREAL)0 * scale;
        return;
    }
    FN(line_io) io = {0};
    io.in = x->in[b] + (size_t)pos * x->lv->in_stride[b];
    io.in2 = x->in[b | 2] + (size_t)pos * x->lv->in_stride[b | 2];
    const size_t nc = (size_t)x->p1->nc;
    if (FN(band16)(x->lv, b)) {
        lwt_half_widen(x->lv->half, (const uint16_t *)(const void *)x->in[b] + (size_t)pos * x->lv->in_stride[b],
                       x->row16[0], nc);
        io.in = (const REAL *)(const void *)x->row16[0];
    }
    if (FN(band16)(x->lv, b | 2)) {
        lwt_half_widen(x->lv->half,
                       (const uint16_t *)(const void *)x->in[b | 2] + (size_t)pos * x->lv->in_stride[b | 2],
                       x->row16[1], nc);
        io.in2 = (const REAL *)(const void *)x->row16[1];
    }
    io.wout = dst;
    io.wscale = scale;
    FN(line_inverse)(&io, x->lv, x->p1, x->line_work);
}

#define FN_LEVEL_MIN_SHARE 32 /* output rows a thread's share has at least: its halo is recomputed */

static lwt_status FN(run_level)(const lwt_cpu_level *lv)
{
    const lwt_line_prog *p0 = &lv->prog[0], *p1 = &lv->prog[1];
    const int inverse = p0->inverse;
    const long n1 = inverse ? p1->out_hi - p1->out_lo : p1->n; /* the plane's full rows */
    const long rows_out = p0->out_hi - p0->out_lo;
    lwt_cpu_pipe pp = {{0}, 0, 1, 0};
    const long ring_rows = FN(col_ring_rows)(p0, lv->scheme, lv->fb, &pp);
    int nthreads = lv->threads > 0 ? lv->threads : omp_get_max_threads_or_1();
    const long rows_in = inverse ? 2 * p0->nc : p0->n;
    const size_t samples = lv->nbatch * (size_t)rows_in * (size_t)n1, by_work = samples / PASS_GRAIN;
    if ((size_t)nthreads > by_work)
        nthreads = by_work ? (int)by_work : 1;
    long shares = 1;
    if ((size_t)nthreads > lv->nbatch)
        shares = (long)(((size_t)nthreads + lv->nbatch - 1) / lv->nbatch);
    if (shares > rows_out / FN_LEVEL_MIN_SHARE)
        shares = rows_out / FN_LEVEL_MIN_SHARE > 0 ? rows_out / FN_LEVEL_MIN_SHARE : 1;
    const size_t units = lv->nbatch * (size_t)shares;
    if ((size_t)nthreads > units)
        nthreads = (int)units;
    const size_t ring_elems = 2 * (size_t)ring_rows * (size_t)n1;
    const size_t acc_elems = p0->direct ? 2 * (size_t)n1 : 0;
    const size_t line_elems = FN(line_work)(p1);
    /* a 16-bit level's three float rows (lv->half: REAL is float) */
    const size_t row16 = lv->half ? (size_t)(n1 > 2 * p1->nc ? n1 : 2 * p1->nc) + 16 : 0;
    const size_t row16_elems = 3 * row16 * sizeof(float) / sizeof(WREAL) + 3;
    int failed = 0;

#pragma omp parallel num_threads(nthreads) reduction(| : failed)
    {
        WREAL *work = malloc((ring_elems + acc_elems + line_elems + row16_elems) * sizeof(WREAL));
        if (!work)
            failed = 1;
        const long nu = (long)units;
#pragma omp for schedule(static)
        for (long ui = 0; ui < nu; ui++) {
            if (!work)
                continue;
            const size_t z = (size_t)ui / (size_t)shares;
            const long share = ui % shares;
            FN(level_ctx) x;
            x.lv = lv;
            x.p1 = p1;
            for (int b = 0; b < 4; b++) { /* 16-bit arrays: the forward's signal, the inverse's bands, ... */
                const size_t ei = FN(band16)(lv, inverse ? b : b == 0 ? -1 : 0) ? 2 : sizeof(REAL);
                const size_t eo = FN(band16)(lv, inverse ? (b == 0 ? -1 : 0) : b) ? 2 : sizeof(REAL);
                x.in[b] = lv->in[b] ? (const REAL *)(const void *)((const char *)lv->in[b] + z * lv->in_bstride[b] * ei)
                                    : NULL;
                x.out[b] = lv->out[b] ? (REAL *)(void *)((char *)lv->out[b] + z * lv->out_bstride[b] * eo) : NULL;
            }
            x.line_work = work + ring_elems + acc_elems;
            for (int r = 0; r < 3; r++)
                x.row16[r] = (float *)(void *)(work + ring_elems + acc_elems + line_elems) + (size_t)r * row16;
            FN(col) c;
            memset(&c, 0, sizeof c);
            c.p = p0;
            c.nl = n1;
            c.level = &x;
            const int sig16 = FN(band16)(lv, -1);
            if (inverse) {
                c.load = FN(level_load);
                c.store = sig16 ? FN(sig16_store) : FN(strip_store);
                c.out = x.out[0];
                c.stride = lv->out_stride[0];
            } else {
                c.load = sig16 ? FN(sig16_load) : FN(strip_load);
                c.store = FN(level_store);
                c.in = x.in[0];
                c.stride = lv->in_stride[0];
            }
            const long lo = p0->out_lo + rows_out * share / shares, hi = p0->out_lo + rows_out * (share + 1) / shares;
            if (p0->direct)
                FN(col_direct)(&c, lv->fb, ring_rows, work, work + ring_elems, work + ring_elems + n1, lo, hi);
            else
                FN(col_lifting)(&c, lv->scheme, &pp, work, lo, hi);
        }
        free(work);
    }
    return failed ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}

/* ---- a pass: the line kernel along the contiguous axis, strips of columns otherwise ---- */

#define FN_STRIP_LANES ((long)(STRIP_BYTES / sizeof(REAL)))

/* A 16-bit plan's line (ps->sixteen; REAL is float): the side pointers where they are, 16-bit
   sides counted in 16-bit values; then the 16-bit inputs widened into float rows of the thread
   (rows[0], rows[1]) and the 16-bit outputs sent to rows[2], rows[3], to be rounded into
   place by line16_store after the line kernel, in cache (core/half.h: each value rounded once) */
static void FN(line16_load)(const lwt_pass *ps, const lwt_line_prog *p, const void *in, const void *in2, void *out,
                            void *out2, float *rows, size_t row, FN(line_io) *io, void *dst16[2])
{
    const unsigned s16 = ps->sixteen;
    const size_t nc = (size_t)p->nc, n = (size_t)p->n;
    io->in = (const REAL *)in;
    io->in2 = (const REAL *)in2;
    io->out = (REAL *)out;
    io->out2 = (REAL *)out2;
    dst16[0] = dst16[1] = NULL;
    if (s16 & LWT_PASS16_IN) {
        lwt_half_widen(ps->half, (const uint16_t *)in, rows, p->inverse ? nc : n);
        io->in = (const REAL *)(const void *)rows;
    }
    if (s16 & LWT_PASS16_IN2) {
        lwt_half_widen(ps->half, (const uint16_t *)in2, rows + row, nc);
        io->in2 = (const REAL *)(const void *)(rows + row);
    }
    if (s16 & LWT_PASS16_OUT) {
        dst16[0] = out;
        io->out = (REAL *)(void *)(rows + 2 * row);
    }
    if (s16 & LWT_PASS16_OUT2) {
        dst16[1] = out2;
        io->out2 = (REAL *)(void *)(rows + 3 * row);
    }
}

static void FN(line16_store)(const lwt_pass *ps, const lwt_line_prog *p, const float *rows, size_t row,
                             void *const dst16[2])
{
    const size_t k = (size_t)(p->out_hi - p->out_lo); /* the signal's values, or each band's */
    for (int h = 0; h < 2; h++)
        if (dst16[h])
            lwt_half_narrow(ps->half, rows + (2 + h) * row, (uint16_t *)dst16[h], k);
}

static lwt_status FN(run_pass)(const lwt_pass *ps)
{
    const lwt_line_prog *p = ps->prog;
    const size_t inner = ps->inner, outer = ps->outer;
    const size_t n_in = (size_t)lwt_prog_in_extent(p), n_out = (size_t)lwt_prog_out_extent(p);
    const size_t band_in = (size_t)lwt_prog_in_band(p), band_out = (size_t)(p->out_hi - p->out_lo);
    const long S = FN_STRIP_LANES;
    const int strips = inner > 1;
    const size_t per_outer = strips ? (inner + (size_t)S - 1) / (size_t)S : 1;
    const size_t nunits = strips ? outer * per_outer : outer;
    lwt_cpu_pipe pp = {{0}, 0, 1, 0};
    long ring_rows = 1;
    size_t welems;
    if (strips) {
        ring_rows = FN(col_ring_rows)(p, ps->scheme, ps->fb, &pp);
        welems = 2 * (size_t)ring_rows * (size_t)S + 2 * (size_t)S;
    } else {
        welems = FN(line_work)(p);
    }
    /* a 16-bit plan's line: four float rows of the longest side (line16_load); its strip: one
       row of the strip's lanes (sig16_load, sig16_store); in WREAL units */
    const size_t row16 = ps->sixteen ? (strips ? (size_t)S : n_in > n_out ? n_in : n_out) + 16 : 0;
    const size_t row16_elems = (4 * row16 * sizeof(float) + sizeof(WREAL) - 1) / sizeof(WREAL);
    int failed = 0;
    int nthreads = ps->threads > 0 ? ps->threads : omp_get_max_threads_or_1();
    if ((size_t)nthreads > nunits)
        nthreads = nunits ? (int)nunits : 1;
    /* at least PASS_GRAIN samples a thread: waking a team costs more than a small pass (a 7 x 9
       wavedec2 through the Python package took 3.9 ms on all threads of a busy 2-core machine,
       0.11 ms on one). The bits do not depend on the thread count. */
    const size_t samples = outer * inner * n_in, by_work = samples / PASS_GRAIN;
    if ((size_t)nthreads > by_work)
        nthreads = by_work ? (int)by_work : 1;

#pragma omp parallel num_threads(nthreads) reduction(| : failed)
    {
        WREAL *work = malloc((welems + row16_elems) * sizeof(WREAL));
        if (!work)
            failed = 1;
        const long nu = (long)nunits;
#pragma omp for schedule(static)
        for (long ui = 0; ui < nu; ui++) {
            if (!work)
                continue;
            if (strips) {
                const size_t o = (size_t)ui / per_outer, c0 = ((size_t)ui % per_outer) * (size_t)S;
                FN(col) c;
                memset(&c, 0, sizeof c);
                c.p = p;
                c.load = FN(strip_load);
                c.store = FN(strip_store);
                c.stride = inner;
                c.nl = (long)(inner - c0 < (size_t)S ? inner - c0 : (size_t)S);
                c.in = (const REAL *)ps->in + o * n_in * inner + c0;
                c.out = (REAL *)ps->out + o * n_out * inner + c0;
                c.in2 = c.in + band_in * inner;
                c.out2 = c.out + band_out * inner;
                /* a 16-bit plan's 3-D level (ps->sixteen: the forward's signal, or the inverse's):
                   its rows through a float row of the thread, as the fused level's signal */
                lwt_cpu_level lv16;
                FN(level_ctx) x16;
                if (ps->sixteen) {
                    memset(&lv16, 0, sizeof lv16);
                    memset(&x16, 0, sizeof x16);
                    lv16.half = ps->half;
                    x16.lv = &lv16;
                    x16.row16[2] = (float *)(void *)(work + welems);
                    c.level = &x16;
                }
                if (ps->sixteen & LWT_PASS16_IN) {
                    c.load = FN(sig16_load);
                    c.in = (const REAL *)(const void *)((const uint16_t *)ps->in + o * n_in * inner + c0);
                }
                if (ps->sixteen & LWT_PASS16_OUT) {
                    c.store = FN(sig16_store);
                    c.out = (REAL *)(void *)((uint16_t *)ps->out + o * n_out * inner + c0);
                }
                WREAL *ring = work + 2 * S;
                if (p->direct)
                    FN(col_direct)(&c, ps->fb, ring_rows, ring, work, work + S, p->out_lo, p->out_hi);
                else
                    FN(col_lifting)(&c, ps->scheme, &pp, ring, p->out_lo, p->out_hi);
                continue;
            }
            const size_t o = (size_t)ui;
            /* each side's element size: 2 bytes where a 16-bit plan stores it (ps->sixteen) */
            const unsigned s16 = ps->sixteen;
            const size_t e_in = s16 & LWT_PASS16_IN ? 2 : sizeof(REAL), e_in2 = s16 & LWT_PASS16_IN2 ? 2 : sizeof(REAL);
            const size_t e_out = s16 & LWT_PASS16_OUT ? 2 : sizeof(REAL),
                         e_out2 = s16 & LWT_PASS16_OUT2 ? 2 : sizeof(REAL);
            const char *in = (const char *)ps->in + o * n_in * e_in, *in2 = in + band_in * e_in;
            char *out = (char *)ps->out + o * n_out * e_out, *out2 = out + band_out * e_out;
            if (ps->map) { /* bands in their places (last axis) */
                int rg;
                size_t a = lwt_dest_map_line(ps->map, o, 0, &rg), d = lwt_dest_map_line(ps->map, o, 1, &rg);
                if (p->inverse) {
                    in = (const char *)ps->map->dst[rg][0] + a * e_in;
                    in2 = (const char *)ps->map->dst[rg][1] + d * e_in2;
                } else {
                    out = (char *)ps->map->dst[rg][0] + a * e_out;
                    out2 = (char *)ps->map->dst[rg][1] + d * e_out2;
                }
            }
            FN(line_io) io = {0};
            void *dst16[2] = {NULL, NULL};
            float *const rows16 = (float *)(void *)(work + welems);
            if (s16)
                FN(line16_load)(ps, p, in, in2, out, out2, rows16, row16, &io, dst16);
            else {
                io.in = (const REAL *)(const void *)in;
                io.in2 = (const REAL *)(const void *)in2;
                io.out = (REAL *)(void *)out;
                io.out2 = (REAL *)(void *)out2;
            }
            if (p->direct) {
                if (p->inverse)
                    FN(line_inverse_direct)(&io, p, ps->fb, work);
                else
                    FN(line_forward_direct)(&io, p, ps->fb, work);
            } else {
                if (p->inverse)
                    FN(line_inverse_lifting)(&io, p, ps->scheme, work);
                else
                    FN(line_forward_lifting)(&io, p, ps->scheme, work);
            }
            if (s16)
                FN(line16_store)(ps, p, rows16, row16, dst16);
        }
        free(work);
    }
    return failed ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}

#undef FN_STRIP_LANES
