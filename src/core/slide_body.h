/*
 * One block of the sliding-window 2-D level (slide.h), written once for the
 * CUDA kernel and the CPU runner. Included with
 *   REAL, WREAL          element and working types,
 *   FN(name)             a suffixing macro,
 *   LWT_SLIDE_FN         the function qualifier (static / __device__),
 *   LWT_SLIDE_SYNC()     a block barrier (nothing on the CPU).
 * Threads split work two ways: warps over rows and lanes over columns
 * (lane/nlane, wrow/nwrow), or flat (tid/nth). The CPU runs one "thread"
 * per block: lane = wrow = tid = 0, nlane = nwrow = nth = 1.
 */

typedef struct FN(slide_thr) {
    int lane, nlane, wrow, nwrow, tid, nth;
} FN(slide_thr);

/* taps a step keeps in registers (longer steps read them from the table) */
#define SLIDE_MAXT 8
#if defined(__CUDACC__)
#define SLIDE_UNROLL _Pragma("unroll")
#else
#define SLIDE_UNROLL
#endif

/* ring slot of vertical channel row m */
#define SLIDE_ROW(ring, G, c, m) \
    ((ring) + ((size_t)(c) * (size_t)(G)->C + (size_t)(((m) - (G)->m_start) & ((G)->C - 1))) * (size_t)(G)->RW)

/* sample (y, x) of the input extended along both axes by the mode */
LWT_SLIDE_FN WREAL FN(slide_load2d)(const REAL *x, size_t stride, const lwt_slide_axis *ay, const lwt_slide_axis *ax,
                                    long yy, long xx)
{
    lwt_ext_terms ty, tx;
    lwt_extend(ay->mode, ay->n, yy, &ty);
    lwt_extend(ax->mode, ax->n, xx, &tx);
    WREAL v = 0;
    for (int a = 0; a < ty.n; a++) {
        WREAL row = 0;
        for (int b = 0; b < tx.n; b++)
            row += (WREAL)tx.w[b] * (WREAL)x[(size_t)ty.idx[a] * stride + (size_t)tx.idx[b]];
        v += (WREAL)ty.w[a] * row;
    }
    return v;
}

/* one lifting step along the rows of the ring: target rows [f, e) of channel t */
LWT_SLIDE_FN void FN(slide_vstep)(WREAL *ring, const lwt_slide_geom *G, const lwt_step *st, const WREAL *tq, long f,
                                  long e, int inverse, const FN(slide_thr) *th)
{
    const int t = st->target, u = 1 - t, nt = st->ntaps, RW = G->RW;
    for (long m = f + th->wrow; m < e; m += th->nwrow) {
        WREAL *dp = SLIDE_ROW(ring, G, t, m);
        const WREAL *s0 = SLIDE_ROW(ring, G, u, m + st->off);
        if (nt == 2) {
            const WREAL *s1 = SLIDE_ROW(ring, G, u, m + st->off + 1);
            const WREAL t0 = tq[0], t1 = tq[1];
            for (int col = th->lane; col < RW; col += th->nlane) {
                const WREAL acc = t0 * s0[col] + t1 * s1[col];
                dp[col] = inverse ? dp[col] - acc : dp[col] + acc;
            }
        } else if (nt <= SLIDE_MAXT) {
            /* the source rows' offsets and the taps in registers (unrolled) */
            const WREAL *ub = SLIDE_ROW(ring, G, u, G->m_start); /* channel u, slot 0 */
            int ro[SLIDE_MAXT];
            WREAL tv[SLIDE_MAXT];
            const int slot0 = (int)(m + st->off - G->m_start);
SLIDE_UNROLL
            for (int q = 0; q < SLIDE_MAXT; q++) {
                ro[q] = q < nt ? ((slot0 + q) & (G->C - 1)) * RW : 0;
                tv[q] = q < nt ? tq[q] : (WREAL)0;
            }
            for (int col = th->lane; col < RW; col += th->nlane) {
                WREAL acc = tv[0] * ub[ro[0] + col]; /* from the first product (cpu_pass_tmpl.h) */
SLIDE_UNROLL
                for (int q = 1; q < SLIDE_MAXT; q++)
                    if (q < nt)
                        acc += tv[q] * ub[ro[q] + col];
                dp[col] = inverse ? dp[col] - acc : dp[col] + acc;
            }
        } else {
            for (int col = th->lane; col < RW; col += th->nlane) {
                WREAL acc = tq[0] * SLIDE_ROW(ring, G, u, m + st->off)[col];
                for (int q = 1; q < nt; q++)
                    acc += tq[q] * SLIDE_ROW(ring, G, u, m + st->off + q)[col];
                dp[col] = inverse ? dp[col] - acc : dp[col] + acc;
            }
        }
    }
}

/* every vertical step's rows of one iteration (ti: its schedule row) */
LWT_SLIDE_FN void FN(slide_vsteps)(WREAL *ring, const lwt_slide_geom *G, const lwt_step *steps, const WREAL *taps,
                                   const int *ti, const FN(slide_thr) *th)
{
    for (int k = 0; k < G->nsteps; k++) {
        const long f = ti[8 + 2 * k], e = ti[9 + 2 * k];
        if (e <= f)
            continue; /* the same for every thread: no barrier needed */
        const lwt_step st = steps[lwt_slide_step_index(G, k)];
        FN(slide_vstep)(ring, G, &st, taps + st.first, f, e, G->inverse, th);
        LWT_SLIDE_SYNC();
    }
}

/* row r of a list of rows: [a0, a1) of channel 0, then [b0, b1) of channel 1;
 * its channel in *c and its row index in *m */
LWT_SLIDE_FN WREAL *FN(slide_list_row)(WREAL *ring, const lwt_slide_geom *G, long r, long a0, long a1, long b0,
                                       int *c, long *m)
{
    const long na = a1 - a0;
    *c = r < na ? 0 : 1;
    *m = r < na ? a0 + r : b0 + (r - na);
    return SLIDE_ROW(ring, G, *c, *m);
}

/* every lifting step along the columns of a list of ring rows */
LWT_SLIDE_FN void FN(slide_hsteps)(WREAL *ring, const lwt_slide_geom *G, const lwt_step *steps, const WREAL *taps,
                                   long a0, long a1, long b0, long b1, const FN(slide_thr) *th)
{
    const lwt_slide_axis *ax = &G->ax[1];
    const long nrows = (a1 - a0) + (b1 - b0);
    const int inverse = G->inverse;
    for (int k = 0; k < G->nsteps; k++) {
        const int si = lwt_slide_step_index(G, k);
        const lwt_step st = steps[si];
        const int t = st.target, u = 1 - t, nt = st.ntaps, len = ax->step_len[si];
        const int dbase = (t ? ax->len[0] : 0) + (int)(ax->step_lo[si] - ax->lo[t]);
        const int sbase = (u ? ax->len[0] : 0) + (int)(ax->step_lo[si] + st.off - ax->lo[u]);
        const WREAL *tq = taps + st.first;
        WREAL tv[SLIDE_MAXT];
SLIDE_UNROLL
        for (int q = 0; q < SLIDE_MAXT; q++)
            tv[q] = q < nt ? tq[q] : (WREAL)0;
        for (long r = th->wrow; r < nrows; r += th->nwrow) {
            int c;
            long mr;
            WREAL *row = FN(slide_list_row)(ring, G, r, a0, a1, b0, &c, &mr);
            for (int m = th->lane; m < len; m += th->nlane) {
                const WREAL *sp = row + sbase + m;
                WREAL acc;
                if (nt == 2) {
                    acc = tv[0] * sp[0] + tv[1] * sp[1];
                } else if (nt <= SLIDE_MAXT) {
                    acc = tv[0] * sp[0]; /* from the first product (cpu_pass_tmpl.h) */
SLIDE_UNROLL
                    for (int q = 1; q < SLIDE_MAXT; q++)
                        if (q < nt)
                            acc += tv[q] * sp[q];
                } else {
                    acc = tq[0] * sp[0];
                    for (int q = 1; q < nt; q++)
                        acc += tq[q] * sp[q];
                }
                row[dbase + m] = inverse ? row[dbase + m] - acc : row[dbase + m] + acc;
            }
        }
        LWT_SLIDE_SYNC();
    }
}

/*
 * Forward block blk: src is n0 x n1 (row stride src_stride); band mask b
 * (bit 0: detail along axis 0, bit 1: along axis 1) goes to dst[b] with row
 * stride dst_stride[b]. kk holds the scales {ka, kd} of the vertical
 * channels, then {ka, kd} of the horizontal ones.
 */
LWT_SLIDE_FN void FN(slide_forward)(const lwt_slide_geom *G, const lwt_step *steps, const WREAL *taps, int ach,
                                    long sa, long sd, const WREAL *kk, const REAL *src, size_t src_stride,
                                    REAL *const *dst, const size_t *dst_stride, WREAL *ring, const int *tab,
                                    long blk, const FN(slide_thr) *th)
{
    const lwt_slide_axis *ay = &G->ax[0], *ax = &G->ax[1];
    const long sy = (blk / G->tiles[1]) * ay->T, sx = (blk % G->tiles[1]) * ax->T;
    const long lox[2] = {ax->lo[0] + sx, ax->lo[1] + sx};
    long xlo; /* input columns of the strip: samples xlo .. xlo + NX - 1 before the shift delta */
    const int NX = lwt_slide_strip(G, sx, &xlo);
    const bool x_inside = xlo + ax->delta >= 0 && xlo + NX + ax->delta <= ax->n;
    const int a = ach, d = 1 - ach;
    const int acol = (a ? ax->len[0] : 0) + (int)(sa - ax->lo[a]); /* approximation of output column 0 */
    const int dcol = (d ? ax->len[0] : 0) + (int)(sd - ax->lo[d]);
    const int ncols = (int)(ax->nc - sx < ax->T ? ax->nc - sx : ax->T);
    /* column j of the strip (sample xlo + j): channel (j + xodd) & 1, at
       index (j + d) / 2 of it, d = d0 (even) or d1 (odd) */
    const int len0 = ax->len[0], len1 = ax->len[1];
    const int xodd = (int)(xlo & 1);
    const int d0 = (int)(xlo - 2 * lox[0]), d1 = (int)(xlo - 2 * lox[1] - 1);

    const int TW = LWT_SLIDE_TAB(G);
    for (int i = 0; i < G->iters; i++) {
        const int *ti = tab + i * TW;
        /* 1. load the new sample rows of both channels, split into column channels;
           a row of the strip is read in order (coalesced), 32-bit offsets inside it */
        for (int c = 0; c < 2; c++) {
            const long r0 = ti[2 * c], r1 = ti[2 * c + 1];
            for (long r = r0 + th->wrow; r < r1; r += th->nwrow) {
                const long yy = 2 * (r + sy) + c + ay->delta;
                WREAL *row = SLIDE_ROW(ring, G, c, r);
                if (x_inside && yy >= 0 && yy < ay->n) {
                    const REAL *g = src + (size_t)yy * src_stride + (xlo + ax->delta);
                    for (int j = th->lane; j < NX; j += th->nlane) {
                        const int odd = (j + xodd) & 1;
                        const int mx = (j + (odd ? d1 : d0)) >> 1;
                        if (mx >= 0 && mx < (odd ? len1 : len0))
                            row[odd ? len0 + mx : mx] = (WREAL)g[j];
                    }
                    continue;
                }
                for (int j = th->lane; j < NX; j += th->nlane) {
                    const int odd = (j + xodd) & 1;
                    const int mx = (j + (odd ? d1 : d0)) >> 1;
                    if (mx < 0 || mx >= (odd ? len1 : len0))
                        continue;
                    const long xx = xlo + j + ax->delta;
                    WREAL v;
                    if (G->late_ext && (xx < 0 || xx >= ax->n))
                        v = 0; /* extended after the vertical steps */
                    else
                        v = FN(slide_load2d)(src, src_stride, ay, ax, yy, xx);
                    row[odd ? len0 + mx : mx] = v;
                }
            }
        }
        LWT_SLIDE_SYNC();
        /* 2. vertical steps as far as the loaded rows allow */
        FN(slide_vsteps)(ring, G, steps, taps, ti, th);
        /* 3. rows no vertical step needs any more: along the row, then out */
        const long e0[2] = {ti[4], ti[6]}, e1[2] = {ti[5], ti[7]};
        const long nrows = (e1[0] - e0[0]) + (e1[1] - e0[1]);
        if (nrows == 0)
            continue;
        /* the vertical scale first, as the separable passes do (f64: the same bits) */
        for (long r = th->wrow; r < nrows; r += th->nwrow) {
            int c;
            long m;
            WREAL *row = FN(slide_list_row)(ring, G, r, e0[0], e1[0], e0[1], &c, &m);
            const WREAL kv = kk[c == a ? 0 : 1];
            for (int col = th->lane; col < G->RW; col += th->nlane)
                row[col] = kv * row[col];
        }
        LWT_SLIDE_SYNC();
        if (G->late_ext && !x_inside) {
            /* the columns outside the array, extended from the finished rows */
            for (long r = th->wrow; r < nrows; r += th->nwrow) {
                int c;
                long m;
                WREAL *row = FN(slide_list_row)(ring, G, r, e0[0], e1[0], e0[1], &c, &m);
                for (int j = th->lane; j < NX; j += th->nlane) {
                    const long n = xlo + j, xx = n + ax->delta;
                    const int cx = (int)(n & 1);
                    const long mx = (n - cx) / 2 - lox[cx];
                    if ((xx >= 0 && xx < ax->n) || mx < 0 || mx >= ax->len[cx])
                        continue;
                    lwt_ext_terms et;
                    lwt_extend(ax->mode, ax->n, xx, &et);
                    WREAL v = 0;
                    for (int q = 0; q < et.n; q++) {
                        if (et.w[q] == 0)
                            continue; /* antireflect lists its far anchor with weight 0 */
                        const long nq = et.idx[q] - ax->delta;
                        const int cq = (int)(nq & 1);
                        const long mq = (nq - cq) / 2 - lox[cq];
                        if (mq < 0 || mq >= ax->len[cq]) {
                            v = 0; /* feeds only outputs past the end (slide.c) */
                            break;
                        }
                        v += (WREAL)et.w[q] * row[(cq ? ax->len[0] : 0) + mq];
                    }
                    row[(cx ? ax->len[0] : 0) + mx] = v;
                }
            }
            LWT_SLIDE_SYNC();
        }
        FN(slide_hsteps)(ring, G, steps, taps, e0[0], e1[0], e0[1], e1[1], th);
        for (long r = th->wrow; r < nrows; r += th->nwrow) {
            int c;
            long m;
            const WREAL *row = FN(slide_list_row)(ring, G, r, e0[0], e1[0], e0[1], &c, &m);
            const long ky = m - (c == a ? sa : sd) + sy;
            if (ky >= ay->nc)
                continue;
            const int vb = c == a ? 0 : 1;
            REAL *oa = dst[vb] + (size_t)ky * dst_stride[vb] + sx;
            REAL *od = dst[vb | 2] + (size_t)ky * dst_stride[vb | 2] + sx;
            const WREAL ka = kk[2], kd = kk[3];
            for (int j = th->lane; j < ncols; j += th->nlane) {
                oa[j] = (REAL)(ka * row[acol + j]);
                od[j] = (REAL)(kd * row[dcol + j]);
            }
        }
        LWT_SLIDE_SYNC(); /* the next loads may reuse these rows' slots */
    }
}

/*
 * Inverse block blk: band b is src[b] (row stride src_stride[b], nc0 x nc1
 * coefficients), divided on loading by its scale (kinv[b] = 1 / k[b]); the
 * n0 x n1 output goes to dst (row stride dst_stride).
 */
LWT_SLIDE_FN void FN(slide_inverse)(const lwt_slide_geom *G, const lwt_step *steps, const WREAL *taps, int ach,
                                    long sa, long sd, const WREAL *kinv, const REAL *const *src,
                                    const size_t *src_stride, REAL *dst, size_t dst_stride, WREAL *ring,
                                    const int *tab, long blk, const FN(slide_thr) *th)
{
    const lwt_slide_axis *ay = &G->ax[0], *ax = &G->ax[1];
    const long sy = (blk / G->tiles[1]) * ay->T, sx = (blk % G->tiles[1]) * ax->T;
    const int a = ach;
    const bool periodic = ay->mode == LWT_MODE_PERIODIZATION;
    const long x0 = 2 * sx; /* first output column */
    const int ncols = (int)(ax->n - x0 < 2L * ax->T ? ax->n - x0 : 2L * ax->T);
    /* output column x0 + j is y[x0 + j - delta]: channel (j + yodd) & 1, at
       index (j + q) / 2 of it, q = q0 (even) or q1 (odd) */
    const int len0 = ax->len[0];
    const long yx0 = x0 - ax->delta;
    const int yodd = (int)(yx0 & 1);
    const int q0 = (int)(yx0 - 2 * (ax->lo[0] + sx)), q1 = (int)(yx0 - 1 - 2 * (ax->lo[1] + sx));

    const int TW = LWT_SLIDE_TAB(G);
    for (int i = 0; i < G->iters; i++) {
        const int *ti = tab + i * TW;
        /* 1. load the new coefficient rows: channel c row m is band row m - shift */
        const long r0[2] = {ti[0], ti[2]}, r1[2] = {ti[1], ti[3]};
        for (int c = 0; c < 2; c++) {
            const int vb = c == a ? 0 : 1;
            const long vsh = c == a ? sa : sd;
            for (long r = r0[c] + th->wrow; r < r1[c]; r += th->nwrow) {
                long ky = r + sy - vsh;
                if (periodic)
                    ky = lwt_mod(ky, ay->nc);
                WREAL *row = SLIDE_ROW(ring, G, c, r);
                const bool zero_row = ky < 0 || ky >= ay->nc;
                for (int cx = 0; cx < 2; cx++) {
                    const int b = vb | (cx == a ? 0 : 2);
                    const long k0 = ax->lo[cx] + sx - (cx == a ? sa : sd); /* band column of mx = 0 */
                    const int len = ax->len[cx];
                    const REAL *g = src[b] + (zero_row ? 0 : (size_t)ky * src_stride[b]);
                    const WREAL sc = kinv[b];
                    WREAL *out = row + (cx ? ax->len[0] : 0);
                    if (!zero_row && k0 >= 0 && k0 + len <= ax->nc) {
                        const REAL *gk = g + k0; /* the whole run inside the band */
                        for (int mx = th->lane; mx < len; mx += th->nlane)
                            out[mx] = (WREAL)gk[mx] * sc;
                        continue;
                    }
                    for (int mx = th->lane; mx < len; mx += th->nlane) {
                        long kx = k0 + mx;
                        if (periodic)
                            kx = lwt_mod(kx, ax->nc);
                        out[mx] = zero_row || kx < 0 || kx >= ax->nc ? (WREAL)0 : (WREAL)g[kx] * sc;
                    }
                }
            }
        }
        LWT_SLIDE_SYNC();
        /* 2. along the new rows (inverse), then 3. the vertical inverse steps */
        if (r1[0] > r0[0] || r1[1] > r0[1])
            FN(slide_hsteps)(ring, G, steps, taps, r0[0], r1[0], r0[1], r1[1], th);
        FN(slide_vsteps)(ring, G, steps, taps, ti, th);
        /* 4. finished sample rows out, columns back in order */
        const long e0[2] = {ti[4], ti[6]}, e1[2] = {ti[5], ti[7]};
        const long nrows = (e1[0] - e0[0]) + (e1[1] - e0[1]);
        if (nrows == 0)
            continue;
        for (long r = th->wrow; r < nrows; r += th->nwrow) {
            int c;
            long m;
            const WREAL *row = FN(slide_list_row)(ring, G, r, e0[0], e1[0], e0[1], &c, &m);
            const long y = 2 * (m + sy) + c + ay->delta; /* output row: x[m] = y[m - delta] */
            if (y < 0 || y >= ay->n)
                continue;
            REAL *o = dst + (size_t)y * dst_stride + x0;
            for (int j = th->lane; j < ncols; j += th->nlane) {
                const int odd = (j + yodd) & 1;
                o[j] = (REAL)row[odd ? len0 + ((j + q1) >> 1) : (j + q0) >> 1];
            }
        }
        LWT_SLIDE_SYNC();
    }
}

#undef SLIDE_ROW
#undef SLIDE_MAXT
#undef SLIDE_UNROLL
