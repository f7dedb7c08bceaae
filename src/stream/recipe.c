/* Chunk recipes (see recipe.h). */
#ifdef _OPENMP
#include <omp.h>
#endif
#include "stream/recipe.h"
#include "stream/split_job.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- basics */

static rloc hostloc(const char *base, size_t off)
{
    rloc l = {-1, (char *)base, off};
    return l;
}


static rloc arena(size_t off)
{
    rloc l = {0, NULL, off};
    return l;
}

static size_t prod3(const size_t *s)
{
    return s[0] * s[1] * s[2];
}

/* C-order strides (elements) of a padded 3-D shape: axes 0 and 1 */
static void strides_of(const size_t *shape, size_t *s)
{
    s[1] = shape[2];
    s[0] = shape[1] * shape[2];
}

static size_t offset3(size_t a, size_t b, size_t c, const size_t *st)
{
    return a * st[0] + b * st[1] + c;
}

static void pad3(const lwt_plan *p, const size_t *s, size_t *out)
{
    for (int k = 0; k < 3; k++)
        out[k] = k < p->ndim ? s[k] : 1;
}

size_t recipe_alloc(recipe *r, size_t elems)
{
    size_t off = r->arena_elems;
    r->arena_elems += (elems + 63) & ~(size_t)63; /* 256-byte aligned regions for float32 */
    return off;
}

rop *recipe_push(recipe *r, rlist *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 32;
        rop *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            r->failed = 1;
            return NULL;
        }
        l->v = v;
        l->cap = cap;
    }
    rop *o = &l->v[l->n++];
    memset(o, 0, sizeof *o);
    return o;
}

static void add_copy(recipe *r, rlist *l, rloc src, const size_t *ss, rloc dst, const size_t *ds, size_t n0,
                     size_t n1, size_t n2, int cvt)
{
    if (!n0 || !n1 || !n2)
        return;
    rop *o = recipe_push(r, l);
    if (!o)
        return;
    o->c.src = src;
    o->c.dst = dst;
    o->c.n[0] = n0;
    o->c.n[1] = n1;
    o->c.n[2] = n2;
    memcpy(o->c.ss, ss, sizeof o->c.ss);
    memcpy(o->c.ds, ds, sizeof o->c.ds);
    o->c.cvt = cvt;
    recipe_copy_normalize(&o->c);
}

/* The conversion of a copy that reads (read = 1) or writes a host array of a job: for a 16-bit
   job (io16), the caller's arrays (caller = 1) hold 16 bits, widened on the way in and rounded
   once on the way out; the approximations between groups (caller = 0) stay float32, so that
   no value the next level computes on is rounded (the in-memory 16-bit plan's bits). */
static int host_cvt(const level_job *job, int caller, int read)
{
    if (!caller || !job->io16)
        return RCVT_NONE;
    if (job->io16 == LWT_BF16)
        return read ? RCVT_FROM_BF16 : RCVT_TO_BF16;
    return read ? RCVT_FROM_F16 : RCVT_TO_F16;
}

static rpass *add_pass(recipe *r, size_t outer, size_t inner, size_t in_off, size_t out_off)
{
    rop *o = recipe_push(r, &r->compute);
    if (!o)
        return NULL;
    o->kind = ROP_PASS;
    o->p.outer = outer;
    o->p.inner = inner;
    o->p.in = arena(in_off);
    o->p.out = arena(out_off);
    return &o->p;
}

/* band (level j, mask) of the packed array: offset (elements) */
static size_t band_off(const lwt_plan *p, int j, unsigned mask, const size_t *pst)
{
    size_t off[3] = {0, 0, 0};
    if (mask) {
        lwt_band b;
        lwt_plan_band(p, p->levels - j + 1, mask, &b);
        for (int k = 0; k < p->ndim; k++)
            off[k] = b.offset[k];
    }
    return offset3(off[0], off[1], off[2], pst);
}

/* sorted, merged intervals */
typedef struct ivl {
    long lo, hi;
    int main;
} ivl;

static int ivl_cmp(const void *a, const void *b)
{
    const ivl *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int merge_ivls(ivl *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, ivl_cmp);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (v[i].hi <= v[i].lo)
            continue;
        if (m && v[i].lo <= v[m - 1].hi) {
            if (v[i].hi > v[m - 1].hi)
                v[m - 1].hi = v[i].hi;
            v[m - 1].main |= v[i].main;
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

/* ------------------------------------------------------------ forward */

typedef struct fwd_ctx {
    const level_job *job;
    recipe *r;
    lwt_range own[LWT_LEVELS_LIMIT + 1]; /* rows the chunk owns at each level of the group */
} fwd_ctx;

/* Level j's outputs [lo, hi) along axis 0, everything after the last pass:
 * the chunk array [2 (hi-lo), 2 nc1, 2 nc2] at *off. main: this run holds
 * the chunk's own rows (it writes their details). */
static void fwd_level(fwd_ctx *f, int j, long lo, long hi, int main, size_t *off, size_t *sh)
{
    const level_job *job = f->job;
    const lwt_plan *p = job->plan;
    recipe *r = f->r;
    size_t S[3], nc[3];
    pad3(p, p->sizes[j - 1], S);
    pad3(p, p->sizes[j], nc);
    const size_t rowlen = S[1] * S[2], kc = (size_t)(hi - lo);
    const size_t dense[2] = {rowlen, S[2]};

    rpass p0;
    lwt_line_prog_forward_part(&p0.prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)S[0], lo,
                               hi);
    const lwt_window *w = &p0.prog.win;
    if (w->len < 0 || r->failed) {
        r->failed = 1;
        return;
    }
    const size_t in_off = recipe_alloc(r, (size_t)w->len * rowlen);
    if (j == job->j0) {
        /* the group's input: each window run is a run of whole rows */
        for (int s = 0; s < w->nseg; s++) {
            const size_t len = (size_t)(w->hi[s] - w->lo[s]) * rowlen, z[2] = {0, 0};
            add_copy(r, &r->gather, hostloc(job->src, (size_t)w->lo[s] * rowlen), z,
                     arena(in_off + (size_t)w->pos[s] * rowlen), z, 1, 1, len, host_cvt(job, job->j0 == 1, 1));
            r->in_elems += len;
        }
    } else {
        /* the runs of level j-1 to compute: the window's, and the rows the chunk owns there */
        ivl v[LWT_WINDOW_MAX_SEGS + 1];
        int n = 0;
        for (int s = 0; s < w->nseg; s++)
            v[n++] = (ivl){w->lo[s], w->hi[s], 0};
        if (main && f->own[j - 1].hi > f->own[j - 1].lo)
            v[n++] = (ivl){f->own[j - 1].lo, f->own[j - 1].hi, 1};
        n = merge_ivls(v, n);
        for (int i = 0; i < n; i++) {
            size_t sub_off, sub_sh[3], sst[2];
            fwd_level(f, j - 1, v[i].lo, v[i].hi, v[i].main, &sub_off, sub_sh);
            if (r->failed)
                return;
            strides_of(sub_sh, sst);
            /* its approximation block: rows [0, len) x [0, S1) x [0, S2) */
            for (int s = 0; s < w->nseg; s++) {
                if (w->lo[s] < v[i].lo || w->hi[s] > v[i].hi)
                    continue;
                add_copy(r, &r->compute, arena(sub_off + offset3((size_t)(w->lo[s] - v[i].lo), 0, 0, sst)), sst,
                         arena(in_off + (size_t)w->pos[s] * rowlen), dense, (size_t)(w->hi[s] - w->lo[s]), S[1],
                         S[2], RCVT_NONE);
            }
        }
    }
    /* axis 0 (this chunk's outputs only), then every other axis (whole lines) */
    size_t cur = recipe_alloc(r, 2 * kc * rowlen);
    rpass *ps = add_pass(r, 1, rowlen, in_off, cur);
    if (!ps)
        return;
    ps->prog = p0.prog;
    ps->fuse_next = p->ndim == 2;
    size_t cs[3] = {2 * kc, S[1], S[2]};
    for (int k = 1; k < p->ndim; k++) {
        lwt_line_prog prog;
        lwt_line_prog_forward(&prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)cs[k]);
        const size_t outer = k == 1 ? cs[0] : cs[0] * cs[1], inner = k == 1 ? cs[2] : 1;
        cs[k] = 2 * (size_t)prog.nc;
        const size_t nxt = recipe_alloc(r, prod3(cs));
        ps = add_pass(r, outer, inner, cur, nxt);
        if (!ps)
            return;
        ps->prog = prog;
        cur = nxt;
    }
    *off = cur;
    memcpy(sh, cs, sizeof cs);

    /* the rows this run owns: details of every level, the approximation at the last */
    if (!main)
        return;
    const lwt_range own = f->own[j];
    const long a = own.lo > lo ? own.lo : lo, b = own.hi < hi ? own.hi : hi;
    if (b <= a)
        return;
    size_t P[3], pst[2], cst[2], ast[2];
    pad3(p, p->packed, P);
    strides_of(P, pst);
    strides_of(cs, cst);
    strides_of(nc, ast);
    for (unsigned mask = 0; mask < (1u << p->ndim); mask++) {
        const size_t so = offset3((mask & 1 ? kc : 0) + (size_t)(a - lo), mask & 2 ? nc[1] : 0, mask & 4 ? nc[2] : 0,
                                  cst);
        if (mask == 0 && j != job->j1)
            continue; /* inner approximations stay in the chunk */
        if (mask == 0 && job->dst)
            add_copy(r, &r->scatter, arena(cur + so), cst, hostloc(job->dst, offset3((size_t)a, 0, 0, ast)), ast,
                     (size_t)(b - a), nc[1], nc[2], RCVT_NONE);
        else
            add_copy(r, &r->scatter, arena(cur + so), cst,
                     hostloc(job->coeffs_out, band_off(p, j, mask, pst) + offset3((size_t)a, 0, 0, pst)), pst,
                     (size_t)(b - a), nc[1], nc[2], host_cvt(job, 1, 0));
        r->out_elems += (size_t)(b - a) * nc[1] * nc[2];
    }
}

/* ------------------------------------------------------------ inverse */

/* Level j's output rows [m0, m1) of a_{j-1}, dense rows at *off. */
static size_t inv_level(const level_job *job, recipe *r, int j, long m0, long m1)
{
    const lwt_plan *p = job->plan;
    const int nd = p->ndim;
    size_t no[3], nc[3], P[3], pst[2], ast[2];
    pad3(p, p->sizes[j - 1], no);
    pad3(p, p->sizes[j], nc);
    pad3(p, p->packed, P);
    strides_of(P, pst);
    strides_of(nc, ast);

    rpass last;
    lwt_line_prog_inverse_part(&last.prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)nc[0],
                               (long)no[0], m0, m1);
    const lwt_window *w = &last.prog.win;
    if (w->len < 0 || r->failed) {
        r->failed = 1;
        return 0;
    }
    const size_t wl = (size_t)w->len;
    /* gathered: [2 wl, 2 nc1, 2 nc2] (unused axes stay 1), axis-0 halves one after the other */
    size_t sh[3] = {2 * wl, nd > 1 ? 2 * nc[1] : 1, nd > 2 ? 2 * nc[2] : 1}, gst[2];
    strides_of(sh, gst);
    const size_t g = recipe_alloc(r, prod3(sh));
    for (int s = 0; s < w->nseg; s++) {
        const size_t rows = (size_t)(w->hi[s] - w->lo[s]);
        if (!rows)
            continue;
        /* the approximation: from the host at the group's top level, else computed */
        if (j == job->j1) {
            if (job->src)
                add_copy(r, &r->gather, hostloc(job->src, offset3((size_t)w->lo[s], 0, 0, ast)), ast,
                         arena(g + offset3((size_t)w->pos[s], 0, 0, gst)), gst, rows, nc[1], nc[2], RCVT_NONE);
            else
                add_copy(r, &r->gather, hostloc(job->coeffs_in, offset3((size_t)w->lo[s], 0, 0, pst)), pst,
                         arena(g + offset3((size_t)w->pos[s], 0, 0, gst)), gst, rows, nc[1], nc[2],
                         host_cvt(job, 1, 1));
            r->in_elems += rows * nc[1] * nc[2];
        } else {
            const size_t sub = inv_level(job, r, j + 1, w->lo[s], w->hi[s]);
            if (r->failed)
                return 0;
            add_copy(r, &r->compute, arena(sub), ast, arena(g + offset3((size_t)w->pos[s], 0, 0, gst)), gst, rows,
                     nc[1], nc[2], RCVT_NONE);
        }
        for (unsigned mask = 1; mask < (1u << nd); mask++) {
            const size_t dof = offset3((mask & 1 ? wl : 0) + (size_t)w->pos[s], mask & 2 ? nc[1] : 0,
                                       mask & 4 ? nc[2] : 0, gst);
            add_copy(r, &r->gather,
                     hostloc(job->coeffs_in, band_off(p, j, mask, pst) + offset3((size_t)w->lo[s], 0, 0, pst)), pst,
                     arena(g + dof), gst, rows, nc[1], nc[2], host_cvt(job, 1, 1));
            r->in_elems += rows * nc[1] * nc[2];
        }
    }
    /* other axes, last first, whole lines; then axis 0 for this run's samples */
    size_t cur = g;
    for (int k = nd - 1; k >= 1; k--) {
        lwt_line_prog prog;
        lwt_line_prog_inverse(&prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)nc[k],
                              (long)no[k]);
        const size_t outer = k == 1 ? sh[0] : sh[0] * sh[1], inner = k == 1 ? sh[2] : 1;
        sh[k] = no[k];
        const size_t nxt = recipe_alloc(r, prod3(sh));
        rpass *ps = add_pass(r, outer, inner, cur, nxt);
        if (!ps)
            return 0;
        ps->prog = prog;
        ps->fuse_next = nd == 2; /* axis 1, then axis 0 below: one inverse level */
        cur = nxt;
    }
    const size_t rowlen = no[1] * no[2];
    const size_t out = recipe_alloc(r, (size_t)(m1 - m0) * rowlen);
    rpass *ps = add_pass(r, 1, rowlen, cur, out);
    if (!ps)
        return 0;
    ps->prog = last.prog;
    return out;
}

/* ---------------------------------------------------- merging copies */

/* whether copy b continues copy a along the contiguous axis on both sides:
 * the same rows, and each of b's rows starts where a's row ends */
static int copy_continues(const rcopy *a, const rcopy *b)
{
    if (a->src.buf != b->src.buf || a->dst.buf != b->dst.buf || a->src.host != b->src.host ||
        a->dst.host != b->dst.host || a->n[0] != b->n[0] || a->n[1] != b->n[1] || a->cvt != b->cvt ||
        a->nan_mask != b->nan_mask)
        return 0;
    for (int k = 0; k < 2; k++)
        if (a->n[k] > 1 && (a->ss[k] != b->ss[k] || a->ds[k] != b->ds[k]))
            return 0;
    return b->src.off == a->src.off + a->n[2] && b->dst.off == a->dst.off + a->n[2];
}

/*
 * Copies that continue each other become one. Bands next to each other in
 * the chunk and in the packed layout (a level's two axis-0 detail bands, and
 * at the coarsest level the approximation and its neighbour, where the
 * band sizes leave no gap, as in periodization) then move as one wider copy,
 * or as one contiguous run where they span whole packed rows. A GPU worker's
 * DMA moves few wide rows faster than many narrow ones, and more so while
 * kernels run (docs/PERFORMANCE.md: 13 band copies per chunk 40 GB/s, 9
 * merged 45 GB/s next to the chunk kernels). The bytes are the same.
 */
static void merge_copies(rlist *l)
{
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < l->n && !again; i++)
            for (int j = 0; j < l->n && !again; j++) {
                rcopy *a = &l->v[i].c, *b = &l->v[j].c;
                if (i == j || l->v[i].kind != ROP_COPY || l->v[j].kind != ROP_COPY || !copy_continues(a, b))
                    continue;
                a->n[2] += b->n[2];
                recipe_copy_normalize(a);
                l->v[j] = l->v[--l->n];
                again = 1;
            }
    }
}

/* -------------------------------------------------------------- chunks */

void recipe_init(recipe *r)
{
    memset(r, 0, sizeof *r);
}

void recipe_free(recipe *r)
{
    free(r->gather.v);
    free(r->compute.v);
    free(r->scatter.v);
    memset(r, 0, sizeof *r);
}

static void recipe_clear(recipe *r)
{
    r->gather.n = r->compute.n = r->scatter.n = 0;
    r->arena_elems = r->in_elems = r->out_elems = 0;
    r->failed = 0;
}

void recipe_chunk_range(const level_job *job, long c, long *lo, long *hi)
{
    *lo = (job->chunk0 + c) * job->per_chunk;
    *hi = *lo + job->per_chunk < job->nout ? *lo + job->per_chunk : job->nout;
}

int recipe_build_range(const level_job *job, long lo, long hi, recipe *r)
{
    recipe_clear(r);
    if (job->split) /* a split chunk's window has its own plan: it cannot be cut */
        return -1;
    const lwt_plan *p = job->plan;
    if (job->inverse) {
        size_t no[3];
        pad3(p, p->sizes[job->j0 - 1], no);
        const size_t out = inv_level(job, r, job->j0, lo, hi), rowlen = no[1] * no[2];
        const size_t z[2] = {0, 0};
        if (!r->failed)
            add_copy(r, &r->scatter, arena(out), z, hostloc(job->dst, (size_t)lo * rowlen), z, 1, 1,
                     (size_t)(hi - lo) * rowlen, host_cvt(job, job->j0 == 1, 0));
        r->out_elems += (size_t)(hi - lo) * rowlen;
        merge_copies(&r->gather);
        return r->failed ? -1 : 0;
    }
    fwd_ctx *f = malloc(sizeof *f);
    if (!f)
        return -1;
    f->job = job;
    f->r = r;
    /* own rows: [lo, hi) at the coarsest level, twice that at each finer one
       (clipped), the last chunk taking whatever remains */
    f->own[job->j1].lo = lo;
    f->own[job->j1].hi = hi;
    for (int j = job->j1 - 1; j >= job->j0; j--) {
        const long n = (long)p->sizes[j][0];
        const lwt_range up = f->own[j + 1];
        f->own[j].lo = 2 * up.lo < n ? 2 * up.lo : n;
        f->own[j].hi = up.hi == (long)p->sizes[j + 1][0] ? n : (2 * up.hi < n ? 2 * up.hi : n);
    }
    size_t off, sh[3];
    fwd_level(f, job->j1, lo, hi, 1, &off, sh);
    free(f);
    merge_copies(&r->scatter);
    return r->failed ? -1 : 0;
}

int recipe_build(const level_job *job, long c, recipe *r)
{
    if (job->split) {
        recipe_clear(r);
        return recipe_build_split(job, c, r);
    }
    long lo, hi;
    recipe_chunk_range(job, c, &lo, &hi);
    return recipe_build_range(job, lo, hi, r);
}

/* ------------------------------------------------------------- copies */

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

/* one row of n elements, converted and masked as c says; mask: the row's first
   destination element's mask value, or NULL. Conversion and mask in one pass the compiler
   vectorizes: m - m is +0 for a finite m and NaN otherwise, and v - (+0) is v exactly for
   every finite v (-0 included), so the subtraction puts NaN at the invalid points and keeps
   every other bit. A second pass with a branch per element (NaN where the mask was not
   finite; a select with NAN is not vectorized under -ftrapping-math) made the downloads of
   lwt_filter_run host-bound. */
#define CVT_ROW(DT, ST)                                                                            \
    do {                                                                                           \
        const ST *restrict s_ = (const ST *)src;                                                   \
        DT *restrict d_ = (DT *)dst;                                                               \
        if (mask)                                                                                  \
            for (size_t i = 0; i < n; i++)                                                         \
                d_[i] = (DT)s_[i] - (DT)(mask[i] - mask[i]);                                       \
        else                                                                                       \
            for (size_t i = 0; i < n; i++)                                                         \
                d_[i] = (DT)s_[i];                                                                 \
    } while (0)

static void copy_row_cvt(const rcopy *c, const char *src, char *dst, size_t n, size_t es, const double *mask)
{
    /* a 16-bit job's copies (never masked: masks come with split jobs) convert per value with
       the in-memory 16-bit plan's loops, so no row cut or thread count changes a bit */
    if (c->cvt == RCVT_FROM_F16 || c->cvt == RCVT_FROM_BF16)
        lwt_half_widen(c->cvt == RCVT_FROM_F16 ? LWT_F16 : LWT_BF16, (const uint16_t *)src, (float *)dst, n);
    else if (c->cvt == RCVT_TO_F16 || c->cvt == RCVT_TO_BF16)
        lwt_half_narrow(c->cvt == RCVT_TO_F16 ? LWT_F16 : LWT_BF16, (const float *)src, (uint16_t *)dst, n);
    else if (c->cvt == RCVT_WIDEN)
        CVT_ROW(double, float);
    else if (c->cvt == RCVT_NARROW)
        CVT_ROW(float, double);
    else if (!mask)
        memcpy(dst, src, n * es);
    else if (es == sizeof(double))
        CVT_ROW(double, double);
    else
        CVT_ROW(float, float);
}
#undef CVT_ROW

/* One converting run over threads in tasks of whole 2 MiB destination pages, when there are
   at least as many pages as threads. A GPU worker's downloads write a caller's fresh memory
   (lwt_filter_run's bands), where the first write to each (huge) page faults and the kernel
   zeroes the page while every other thread writing into it waits: tasks of 64 Ki elements put
   four threads on each page, and the two bands converted into fresh memory took 51-55 ms each
   where the band written into touched memory took 18-24 ms (12288^2, H200, 2026-11-27). */
static int copy_run_by_pages(const rcopy *c, const char *src, char *dst, size_t es, int nt)
{
    const size_t ses = rcopy_src_es(c, es), des = rcopy_dst_es(c, es), page = (size_t)2 << 20;
    const uintptr_t d0 = (uintptr_t)dst, d1 = d0 + c->n[2] * des;
    if (c->n[0] * c->n[1] != 1 || page % des || d0 % des)
        return 0;
    const uintptr_t first = (d0 + page - 1) / page * page; /* the first page boundary */
    if (d1 < first || (d1 - first) / page < (size_t)nt)
        return 0;
    const long tasks = (long)((d1 - first + page - 1) / page) + (first > d0);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (long t = 0; t < tasks; t++) {
        const long k = t - (first > d0); /* page index from `first`; -1: the head before it */
        const uintptr_t a = k < 0 ? d0 : first + (uintptr_t)k * page;
        const uintptr_t b = k < 0 ? first : (a + page < d1 ? a + page : d1);
        const size_t i = (size_t)(a - d0) / des, n = (size_t)(b - a) / des;
        copy_row_cvt(c, src + i * ses, dst + i * des, n, es, c->nan_mask ? c->nan_mask + c->dst.off + i : NULL);
    }
    return 1;
}

/* a copy that converts or masks: row by row over threads, in pieces of a
   row when there are few rows (a split chunk's band is one long run) */
static void copy_host_cvt(const rcopy *c, const char *src, char *dst, size_t es, int nt)
{
    if (nt > 1 && copy_run_by_pages(c, src, dst, es, nt))
        return;
    const size_t ses = rcopy_src_es(c, es), des = rcopy_dst_es(c, es);
    /* 64 Ki elements a task: a GPU worker's 8 MiB pinned piece of float32 is 32 tasks, so
       every core of a 16-core host converts part of each piece */
    const size_t piece = (size_t)1 << 16, pieces = (c->n[2] + piece - 1) / piece;
    const long total = (long)(c->n[0] * c->n[1] * pieces);
#pragma omp parallel for schedule(static) num_threads(nt) if (total > 1)
    for (long t = 0; t < total; t++) {
        const size_t r = (size_t)t / pieces, k0 = ((size_t)t % pieces) * piece;
        const size_t n = c->n[2] - k0 < piece ? c->n[2] - k0 : piece;
        const size_t a = r / c->n[1], b = r % c->n[1];
        const size_t so = a * c->ss[0] + b * c->ss[1] + k0, d = a * c->ds[0] + b * c->ds[1] + k0;
        copy_row_cvt(c, src + so * ses, dst + d * des, n, es, c->nan_mask ? c->nan_mask + c->dst.off + d : NULL);
    }
}

void recipe_zero_host(const rcopy *c, char *dst, size_t es)
{
    const size_t rows = c->n[0] * c->n[1];
#pragma omp parallel for schedule(static) if (rows * c->n[2] * es >= ((size_t)4 << 20))
    for (long r = 0; r < (long)rows; r++) {
        size_t a = (size_t)r / c->n[1], b = (size_t)r % c->n[1];
        memset(dst + (a * c->ds[0] + b * c->ds[1]) * es, 0, c->n[2] * es);
    }
}

void recipe_copy_host(const rcopy *c, const char *src, char *dst, size_t es, int threads)
{
#ifdef _OPENMP
    const int nt = threads > 0 ? threads : omp_get_max_threads();
#else
    const int nt = 1;
    (void)threads;
#endif
    if (c->cvt != RCVT_NONE || c->nan_mask) {
        copy_host_cvt(c, src, dst, es, nt);
        return;
    }
    /* big copies (GPU staging) in pieces over threads: one core moves a
       fraction of what the host bus can; into a caller's memory by whole pages */
    if (nt > 1 && copy_run_by_pages(c, src, dst, es, nt))
        return;
    const size_t rows = c->n[0] * c->n[1], bytes = rows * c->n[2] * es;
    const size_t piece = (size_t)1 << 20;
    if (rows == 1 && bytes >= 4 * piece) {
        const long np = (long)((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static) num_threads(nt) if (np > 1)
        for (long i = 0; i < np; i++) {
            size_t o = (size_t)i * piece, len = bytes - o < piece ? bytes - o : piece;
            memcpy(dst + o, src + o, len);
        }
        return;
    }
#pragma omp parallel for schedule(static) num_threads(nt) if (bytes >= 4 * piece)
    for (long r = 0; r < (long)rows; r++) {
        size_t a = (size_t)r / c->n[1], b = (size_t)r % c->n[1];
        memcpy(dst + (a * c->ds[0] + b * c->ds[1]) * es, src + (a * c->ss[0] + b * c->ss[1]) * es, c->n[2] * es);
    }
}
