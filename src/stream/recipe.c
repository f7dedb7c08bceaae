/* Chunk recipes (see recipe.h). */
#include "stream/recipe.h"

#include <string.h>

static rloc hostloc(const char *base, size_t off)
{
    rloc l = {-1, (char *)base, off};
    return l;
}

static rloc bufloc(int b, size_t off)
{
    rloc l = {b, NULL, off};
    return l;
}

/* C-order strides (elements) of a padded 3-D shape: axes 0 and 1 */
static void strides_of(const size_t *shape, size_t *s)
{
    s[1] = shape[2];
    s[0] = shape[1] * shape[2];
}

static size_t prod3(const size_t *s)
{
    return s[0] * s[1] * s[2];
}

static int add_copy(rcopy *list, int *n, rloc src, const size_t *ss, rloc dst, const size_t *ds, const size_t *blk)
{
    if (*n >= RECIPE_MAX_COPIES)
        return -1;
    rcopy *c = &list[(*n)++];
    c->src = src;
    c->dst = dst;
    memcpy(c->n, blk, sizeof c->n);
    memcpy(c->ss, ss, sizeof c->ss);
    memcpy(c->ds, ds, sizeof c->ds);
    recipe_copy_normalize(c);
    return 0;
}

static size_t offset3(const size_t *off, const size_t *st)
{
    return off[0] * st[0] + off[1] * st[1] + off[2];
}

/* band (level j, mask) of the packed array: offset (elements) and strides */
static size_t band_off(const lwt_plan *p, int j, unsigned mask, const size_t *pst)
{
    size_t off[3] = {0, 0, 0};
    if (mask) {
        lwt_band b;
        lwt_plan_band(p, p->levels - j + 1, mask, &b);
        for (int k = 0; k < p->ndim; k++)
            off[k] = b.offset[k];
    }
    return offset3(off, pst);
}

static void pad3(const lwt_plan *p, const size_t *s, size_t *out)
{
    for (int k = 0; k < 3; k++)
        out[k] = k < p->ndim ? s[k] : 1;
}

/* whole-line passes along axes 1 .. ndim-1 (forward) of a chunk array of shape sh */
static void other_axes_forward(const lwt_plan *p, size_t *sh, int *cur, recipe *r)
{
    for (int k = 1; k < p->ndim; k++) {
        rpass *ps = &r->pass[r->npass++];
        lwt_line_prog_forward(&ps->prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)sh[k]);
        ps->outer = k == 1 ? sh[0] : sh[0] * sh[1];
        ps->inner = k == 1 ? sh[2] : 1;
        int nxt = *cur == 1 ? 2 : 1;
        ps->in = bufloc(*cur, 0);
        ps->out = bufloc(nxt, 0);
        sh[k] = 2 * (size_t)ps->prog.nc;
        if (prod3(sh) > r->buf_elems[nxt])
            r->buf_elems[nxt] = prod3(sh);
        *cur = nxt;
    }
}

static int build_forward(const level_job *job, long k0, long k1, recipe *r)
{
    const lwt_plan *p = job->plan;
    const int j = job->j, nd = p->ndim;
    size_t S[3], nc[3], P[3], pst[2];
    pad3(p, p->sizes[j - 1], S);
    pad3(p, p->sizes[j], nc);
    pad3(p, p->packed, P);
    strides_of(P, pst);
    const size_t rowlen = S[1] * S[2], kc = (size_t)(k1 - k0);

    rpass *p0 = &r->pass[r->npass++];
    lwt_line_prog_forward_part(&p0->prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)S[0],
                               k0, k1);
    const lwt_window *w = &p0->prog.win;
    if (w->len < 0)
        return -1;
    /* gather: each window segment is a run of whole rows */
    for (int s = 0; s < w->nseg; s++) {
        size_t blk[3] = {1, 1, (size_t)(w->hi[s] - w->lo[s]) * rowlen}, st[2] = {0, 0};
        if (!blk[2])
            continue;
        if (add_copy(r->cin, &r->ncin, hostloc(job->src, (size_t)w->lo[s] * rowlen), st,
                     bufloc(0, (size_t)w->pos[s] * rowlen), st, blk))
            return -1;
        r->in_elems += blk[2];
    }
    r->buf_elems[0] = (size_t)w->len * rowlen;
    p0->outer = 1;
    p0->inner = rowlen;
    p0->in = bufloc(0, 0);
    p0->out = bufloc(1, 0);
    size_t sh[3] = {2 * kc, S[1], S[2]};
    r->buf_elems[1] = prod3(sh);
    int cur = 1;
    other_axes_forward(p, sh, &cur, r);

    /* scatter the 2^nd band blocks of rows [k0, k1) */
    size_t cst[2];
    strides_of(sh, cst);
    for (unsigned mask = 0; mask < (1u << nd); mask++) {
        size_t soff[3], doff[3] = {(size_t)k0, 0, 0}, blk[3] = {kc, nc[1], nc[2]};
        for (int k = 0; k < 3; k++)
            soff[k] = (mask >> k) & 1 ? (k == 0 ? kc : nc[k]) : 0;
        rloc dst;
        const size_t *dstr;
        size_t ast[2];
        if (mask == 0 && job->dst) {
            strides_of(nc, ast);
            dst = hostloc(job->dst, offset3(doff, ast));
            dstr = ast;
        } else {
            dst = hostloc(job->coeffs_out, band_off(p, j, mask, pst) + offset3(doff, pst));
            dstr = pst;
        }
        if (add_copy(r->cout, &r->ncout, bufloc(cur, offset3(soff, cst)), cst, dst, dstr, blk))
            return -1;
        r->out_elems += kc * nc[1] * nc[2];
    }
    return 0;
}

static int build_inverse(const level_job *job, long m0, long m1, int host_out, recipe *r)
{
    const lwt_plan *p = job->plan;
    const int j = job->j, nd = p->ndim;
    size_t no[3], nc[3], P[3], pst[2], ast[2];
    pad3(p, p->sizes[j - 1], no);
    pad3(p, p->sizes[j], nc);
    pad3(p, p->packed, P);
    strides_of(P, pst);
    strides_of(nc, ast);

    /* the axis-0 pass comes last, but its window decides what to gather */
    rpass last;
    lwt_line_prog_inverse_part(&last.prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)nc[0],
                               (long)no[0], m0, m1);
    const lwt_window *w = &last.prog.win;
    if (w->len < 0)
        return -1;
    const size_t wl = (size_t)w->len;
    /* gathered: [2 wl, 2 nc1, 2 nc2] (unused axes stay 1) */
    size_t sh[3] = {2 * wl, nd > 1 ? 2 * nc[1] : 1, nd > 2 ? 2 * nc[2] : 1}, gst[2];
    strides_of(sh, gst);
    r->buf_elems[0] = prod3(sh);
    for (unsigned mask = 0; mask < (1u << nd); mask++) {
        const int h = mask & 1;
        rloc src;
        const size_t *sstr;
        for (int s = 0; s < w->nseg; s++) {
            size_t rows = (size_t)(w->hi[s] - w->lo[s]);
            if (!rows)
                continue;
            size_t so[3] = {(size_t)w->lo[s], 0, 0};
            size_t dof[3] = {(size_t)h * wl + (size_t)w->pos[s], (mask >> 1) & 1 ? nc[1] : 0,
                             (mask >> 2) & 1 ? nc[2] : 0};
            if (mask == 0 && job->src) {
                src = hostloc(job->src, offset3(so, ast));
                sstr = ast;
            } else {
                src = hostloc(job->coeffs_in, band_off(p, j, mask, pst) + offset3(so, pst));
                sstr = pst;
            }
            size_t blk[3] = {rows, nc[1], nc[2]};
            if (add_copy(r->cin, &r->ncin, src, sstr, bufloc(0, offset3(dof, gst)), gst, blk))
                return -1;
            r->in_elems += rows * nc[1] * nc[2];
        }
    }
    /* other axes, last first, whole lines */
    int cur = 0;
    for (int k = nd - 1; k >= 1; k--) {
        rpass *ps = &r->pass[r->npass++];
        lwt_line_prog_inverse(&ps->prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)nc[k],
                              (long)no[k]);
        ps->outer = k == 1 ? sh[0] : sh[0] * sh[1];
        ps->inner = k == 1 ? sh[2] : 1;
        int nxt = cur == 1 ? 2 : 1;
        ps->in = bufloc(cur, 0);
        ps->out = bufloc(nxt, 0);
        sh[k] = no[k];
        if (prod3(sh) > r->buf_elems[nxt])
            r->buf_elems[nxt] = prod3(sh);
        cur = nxt;
    }
    const size_t rowlen = no[1] * no[2], mc = (size_t)(m1 - m0);
    rpass *pl = &r->pass[r->npass++];
    *pl = last;
    pl->outer = 1;
    pl->inner = rowlen;
    pl->in = bufloc(cur, 0);
    if (host_out) {
        pl->out = hostloc(job->dst, (size_t)m0 * rowlen);
    } else {
        int nxt = cur == 1 ? 2 : 1;
        pl->out = bufloc(nxt, 0);
        if (mc * rowlen > r->buf_elems[nxt])
            r->buf_elems[nxt] = mc * rowlen;
        size_t blk[3] = {1, 1, mc * rowlen}, st[2] = {0, 0};
        if (add_copy(r->cout, &r->ncout, bufloc(nxt, 0), st, hostloc(job->dst, (size_t)m0 * rowlen), st, blk))
            return -1;
    }
    r->out_elems += mc * rowlen;
    return 0;
}

void recipe_chunk_range(const level_job *job, long c, long *lo, long *hi)
{
    *lo = c * job->per_chunk;
    *hi = *lo + job->per_chunk < job->nout ? *lo + job->per_chunk : job->nout;
}

int recipe_build_range(const level_job *job, long lo, long hi, int host_out, recipe *r)
{
    memset(r, 0, sizeof *r);
    return job->inverse ? build_inverse(job, lo, hi, host_out, r) : build_forward(job, lo, hi, r);
}

int recipe_build(const level_job *job, long c, int host_out, recipe *r)
{
    long lo, hi;
    recipe_chunk_range(job, c, &lo, &hi);
    return recipe_build_range(job, lo, hi, host_out, r);
}

void recipe_copy_normalize(rcopy *c)
{
    /* axes 1 and 2 contiguous on both sides: one axis */
    if (c->n[1] == 1 || (c->ss[1] == c->n[2] && c->ds[1] == c->n[2])) {
        c->n[2] *= c->n[1];
        c->n[1] = 1;
        c->ss[1] = c->ds[1] = c->n[2];
    }
    if (c->n[0] == 1 || (c->ss[0] == c->n[2] && c->ds[0] == c->n[2] && c->n[1] == 1)) {
        c->n[2] *= c->n[0];
        c->n[0] = 1;
        c->ss[0] = c->ds[0] = c->n[2];
    }
}

void recipe_copy_host(const rcopy *c, const char *src, char *dst, size_t es)
{
    /* big copies (GPU staging) in pieces over threads: one core moves a
       fraction of what the host bus can */
    const size_t rows = c->n[0] * c->n[1], bytes = rows * c->n[2] * es;
    const size_t piece = (size_t)1 << 20;
    if (rows == 1 && bytes >= 4 * piece) {
        const long np = (long)((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (np > 1)
        for (long i = 0; i < np; i++) {
            size_t o = (size_t)i * piece, len = bytes - o < piece ? bytes - o : piece;
            memcpy(dst + o, src + o, len);
        }
        return;
    }
#pragma omp parallel for schedule(static) if (bytes >= 4 * piece)
    for (long r = 0; r < (long)rows; r++) {
        size_t a = (size_t)r / c->n[1], b = (size_t)r % c->n[1];
        memcpy(dst + (a * c->ds[0] + b * c->ds[1]) * es, src + (a * c->ss[0] + b * c->ss[1]) * es, c->n[2] * es);
    }
}
