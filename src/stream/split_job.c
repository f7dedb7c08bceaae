/* Band split jobs: layout with exact halos, window plans, chunk recipes, runs (split_job.h). */
#include "stream/split_job.h"

#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/fail.h"
#include "core/line.h"
#include "core/plan.h"
#include "lwt_experimental.h"
#ifdef LWT_HAVE_CUDA
#include "lwt_cuda.h"
#endif
#include "stream/recipe.h"
#include "stream/split_steps.h"
#include "stream/worker.h"

/* ------------------------------------------------------------ halos */

/* a few sorted, merged row intervals; past the limit, their hull */
#define ROWSET_MAX 8
typedef struct rowset {
    int n;
    lwt_range r[ROWSET_MAX];
} rowset;

static void rowset_add(rowset *s, long lo, long hi)
{
    if (hi <= lo)
        return;
    int i = 0;
    while (i < s->n && s->r[i].hi < lo)
        i++;
    if (i < s->n && s->r[i].lo <= hi) { /* overlaps or touches r[i]: widen, then absorb followers */
        if (lo < s->r[i].lo)
            s->r[i].lo = lo;
        if (hi > s->r[i].hi)
            s->r[i].hi = hi;
        while (i + 1 < s->n && s->r[i + 1].lo <= s->r[i].hi) {
            if (s->r[i + 1].hi > s->r[i].hi)
                s->r[i].hi = s->r[i + 1].hi;
            memmove(&s->r[i + 1], &s->r[i + 2], (size_t)(s->n - i - 2) * sizeof s->r[0]);
            s->n--;
        }
        return;
    }
    if (s->n == ROWSET_MAX) { /* no room: keep the hull */
        s->r[0].lo = lo < s->r[0].lo ? lo : s->r[0].lo;
        s->r[0].hi = hi > s->r[s->n - 1].hi ? hi : s->r[s->n - 1].hi;
        s->n = 1;
        return;
    }
    memmove(&s->r[i + 1], &s->r[i], (size_t)(s->n - i) * sizeof s->r[0]);
    s->r[i].lo = lo;
    s->r[i].hi = hi;
    s->n++;
}

static void rowset_add_window(rowset *s, const lwt_window *w)
{
    for (int k = 0; k < w->nseg; k++)
        rowset_add(s, w->lo[k], w->hi[k]);
}

/* The input rows [lo, hi) that output rows [m0, m1) of any band depend on:
 * coefficient rows need[j] of every level through the inverse (the band's
 * approximation at level j - 1 is level j's output), then, forward, the
 * level j - 1 rows that level j's needed rows are computed from. */
static lwt_range input_rows(const split_spec *sp, long m0, long m1)
{
    const lwt_plan *p = sp->whole;
    const int J = sp->row_levels;
    const int F = p->fb.length;
    rowset need[LWT_LEVELS_LIMIT + 1];
    memset(need, 0, (size_t)(J + 1) * sizeof need[0]);
    rowset out = {1, {{m0, m1}}};
    for (int j = 1; j <= J; j++) { /* inverse: outputs at level j - 1 -> coefficients at level j */
        for (int i = 0; i < out.n; i++) {
            lwt_line_prog prog;
            lwt_line_prog_inverse_part(&prog, &p->wavelet.scheme, p->direct, F, p->desc.mode, sp->rows[j],
                                       sp->rows[j - 1], out.r[i].lo, out.r[i].hi);
            rowset_add_window(&need[j], &prog.win);
        }
        out = need[j];
    }
    for (int j = J; j >= 1; j--) { /* forward: coefficients at level j -> rows of level j - 1 */
        for (int i = 0; i < need[j].n; i++) {
            lwt_line_prog prog;
            lwt_line_prog_forward_deps(&prog, &p->wavelet.scheme, p->direct, F, p->desc.mode, sp->rows[j - 1],
                                       need[j].r[i].lo, need[j].r[i].hi);
            rowset_add_window(&need[j - 1], &prog.win);
        }
    }
    lwt_range in = {m0, m1};
    for (int i = 0; i < need[0].n; i++) {
        if (need[0].r[i].lo < in.lo)
            in.lo = need[0].r[i].lo;
        if (need[0].r[i].hi > in.hi)
            in.hi = need[0].r[i].hi;
    }
    return in;
}

/* chunk c of nchunks of rows per chunk (the last one takes the remainder, so that no
   window is much shorter than the others: a window a few rows tall can make its plan
   choose other kernels than the whole array's, whose float32 bits differ): its owned
   rows and its window */
static split_chunk chunk_of(const split_spec *sp, long rows, long c, long nchunks)
{
    const long ny = sp->rows[0], step = 1L << sp->row_levels;
    split_chunk k;
    k.own0 = c * rows;
    k.own1 = c + 1 < nchunks && k.own0 + rows < ny ? k.own0 + rows : ny;
    const lwt_range in = input_rows(sp, k.own0, k.own1);
    k.win0 = in.lo / step * step;
    k.win1 = in.hi < ny ? in.hi : ny;
    k.plan = -1;
    return k;
}

static int periodic_mode(lwt_mode m)
{
    return m == LWT_MODE_PERIODIC || m == LWT_MODE_PERIODIZATION;
}

/* The chunks: rows per chunk a multiple of 2^J; one chunk when the windows would
 * span the whole array anyway (periodic wrap) or the rows cover it. */
static lwt_status make_layout(split_spec *sp, size_t chunk_rows)
{
    const lwt_plan *p = sp->whole;
    const long ny = sp->rows[0], step = sp->row_levels < 30 ? 1L << sp->row_levels : 0;
    long rows = ny;
    if (step && !periodic_mode(p->desc.mode)) {
        if (chunk_rows == 0 && p->backend == LWT_BACKEND_CUDA) {
            /* automatic on a GPU: about eight chunks, each at least a halo tall (a window is then
               at most three times its owned rows; docs/PERFORMANCE.md, pipelined split) */
            const split_chunk mid = chunk_of(sp, step, ny / step / 2, ny / step);
            const long halo = mid.own0 - mid.win0 > mid.win1 - mid.own1 ? mid.own0 - mid.win0 : mid.win1 - mid.own1;
            rows = ny / 8 > halo ? ny / 8 : halo;
        } else if (chunk_rows > 0 && chunk_rows < (size_t)ny) {
            rows = (long)chunk_rows;
        }
        rows = (rows + step - 1) / step * step;
    }
    if (rows <= 0 || rows >= ny)
        rows = ny;
    sp->nchunks = ny / rows > 0 ? ny / rows : 1;
    sp->chunk = calloc((size_t)sp->nchunks, sizeof *sp->chunk);
    if (!sp->chunk)
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "split: out of memory for %ld chunks", sp->nchunks);
    for (long c = 0; c < sp->nchunks; c++) {
        sp->chunk[c] = chunk_of(sp, rows, c, sp->nchunks);
        if (sp->nchunks > 1 && sp->chunk[c].win0 == 0 && sp->chunk[c].win1 == ny) {
            sp->nchunks = 1; /* a window as big as the array: no gain in cutting */
            break;
        }
    }
    if (sp->nchunks == 1)
        sp->chunk[0] = (split_chunk){0, ny, 0, ny, -1};
    sp->halo = 0;
    for (long c = 0; c < sp->nchunks; c++) {
        const split_chunk *k = &sp->chunk[c];
        const long h = k->own0 - k->win0 > k->win1 - k->own1 ? k->own0 - k->win0 : k->win1 - k->own1;
        sp->halo = h > sp->halo ? h : sp->halo;
    }
    return LWT_OK;
}

/* ------------------------------------------------------------ plans */

static size_t plan_workspace(const lwt_plan *p)
{
#ifdef LWT_HAVE_CUDA
    if (p->backend == LWT_BACKEND_CUDA) {
        size_t b = 0;
        lwt_plan_device_workspace_size(p, &b);
        return b;
    }
#endif
    lwt_plan_info pi;
    lwt_plan_get_info(p, &pi);
    return pi.workspace_bytes;
}

/* one plan per window height, made at creation */
static lwt_status make_plans(split_spec *sp)
{
    const lwt_context *ctx = sp->whole->ctx;
    if (sp->nchunks < 1)
        return lwt_fail(ctx, LWT_ERR_INTERNAL, "split: no chunks");
    sp->plan = calloc((size_t)sp->nchunks, sizeof *sp->plan);
    if (!sp->plan)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "split: out of memory for %ld window plans", sp->nchunks);
    for (long c = 0; c < sp->nchunks; c++) {
        split_chunk *k = &sp->chunk[c];
        const size_t rows = (size_t)(k->win1 - k->win0);
        for (int i = 0; i < sp->nplans && k->plan < 0; i++)
            if (sp->plan[i]->shape[0] == rows)
                k->plan = i;
        if (k->plan >= 0)
            continue;
        lwt_plan_desc d = sp->whole->desc;
        d.shape[0] = rows;
        d.backend = sp->whole->backend;
        d.batch = 1;
        /* the whole plan's tuning too, so that every window runs the kernels it would */
        lwt_status st = lwt_plan_create_tuned((lwt_context *)sp->whole->ctx, &d, &sp->whole->tune, &sp->plan[sp->nplans]);
        if (st)
            return st;
        const size_t ws = plan_workspace(sp->plan[sp->nplans]);
        sp->ws_bytes = ws > sp->ws_bytes ? ws : sp->ws_bytes;
        k->plan = sp->nplans++;
    }
    return LWT_OK;
}

/* ------------------------------------------------------------ recipes */

static size_t row_elems(const lwt_plan *p)
{
    size_t n = 1;
    for (int k = 1; k < p->ndim; k++)
        n *= p->shape[k];
    return n;
}


static rop *push(recipe *r, rlist *l, int kind)
{
    rop *o = recipe_push(r, l);
    if (o)
        o->kind = kind;
    return o;
}

static rloc at_arena(size_t off)
{
    rloc l = {0, NULL, off};
    return l;
}

/* a run of n contiguous elements (or a 3-D block with strides) */
static rop *add_run(recipe *r, rlist *l, int kind, rloc src, rloc dst, size_t n)
{
    rop *o = push(r, l, kind);
    if (!o)
        return NULL;
    o->c.src = src;
    o->c.dst = dst;
    o->c.n[0] = o->c.n[1] = 1;
    o->c.n[2] = n;
    o->c.ss[0] = o->c.ss[1] = o->c.ds[0] = o->c.ds[1] = n;
    return o;
}

static void add_plan(recipe *r, int plan, int inverse, size_t in, size_t out, size_t ws)
{
    rop *o = push(r, &r->compute, ROP_PLAN);
    if (!o)
        return;
    o->t.plan = plan;
    o->t.inverse = inverse;
    o->t.in = at_arena(in);
    o->t.out = at_arena(out);
    o->t.ws = at_arena(ws);
}

/* t = the blocks of packed levels `keep` of c (window plan wp), zero elsewhere */
static void add_mask(recipe *r, const lwt_plan *wp, uint64_t keep, size_t c, size_t t)
{
    add_run(r, &r->compute, ROP_ZERO, at_arena(0), at_arena(t), wp->coeff_count);
    size_t P[3] = {1, 1, 1};
    for (int k = 0; k < wp->ndim; k++)
        P[3 - wp->ndim + k] = wp->packed[k];
    for (int lev = 0; lev <= wp->levels && lev < 64; lev++) {
        if (!((keep >> lev) & 1))
            continue;
        for (unsigned m = lev ? 1 : 0; m < (lev ? 1u << wp->ndim : 1u); m++) {
            lwt_band b;
            if (lwt_plan_band(wp, lev, m, &b) != LWT_OK) {
                r->failed = 1;
                return;
            }
            size_t off[3] = {0, 0, 0}, sh[3] = {1, 1, 1};
            for (int k = 0; k < wp->ndim; k++) {
                off[3 - wp->ndim + k] = b.offset[k];
                sh[3 - wp->ndim + k] = b.shape[k];
            }
            if (!sh[0] || !sh[1] || !sh[2])
                continue;
            const size_t at = (off[0] * P[1] + off[1]) * P[2] + off[2];
            rop *o = push(r, &r->compute, ROP_COPY);
            if (!o)
                return;
            o->c.src = at_arena(c + at);
            o->c.dst = at_arena(t + at);
            memcpy(o->c.n, sh, sizeof sh);
            o->c.ss[0] = o->c.ds[0] = P[1] * P[2];
            o->c.ss[1] = o->c.ds[1] = P[2];
            recipe_copy_normalize(&o->c);
        }
    }
}

int recipe_build_split(const level_job *job, long c, recipe *r)
{
    const split_spec *sp = job->split;
    const split_chunk *k = &sp->chunk[c];
    const lwt_plan *wp = sp->nsteps ? sp->whole : sp->plan[k->plan];
    const size_t es = lwt_plan_elem_size(wp), row = row_elems(sp->whole);
    const size_t win = (size_t)(k->win1 - k->win0) * row, own = (size_t)(k->own1 - k->own0) * row;
    const size_t skip = (size_t)(k->own0 - k->win0) * row;
    const int cvt_in = job->io_f64 && es != sizeof(double) ? RCVT_NARROW : RCVT_NONE;
    const int cvt_out = job->io_f64 && es != sizeof(double) ? RCVT_WIDEN : RCVT_NONE;

    const size_t x = recipe_alloc(r, win);
    size_t cf = 0, t = 0, ws = 0;
    split_steps_fwd steps;
    if (!sp->nsteps) {
        cf = recipe_alloc(r, wp->coeff_count);
        t = recipe_alloc(r, wp->coeff_count);
        ws = recipe_alloc(r, (sp->ws_bytes + es - 1) / es + 1);
    }
    rloc src = {-1, (char *)job->src, (size_t)k->win0 * row};
    rop *g = add_run(r, &r->gather, ROP_COPY, src, at_arena(x), win);
    if (g)
        g->c.cvt = cvt_in;
    r->in_elems += win;
    if (sp->nsteps)
        split_steps_forward(r, sp, (size_t)(k->win1 - k->win0), x, &steps);
    else
        add_plan(r, k->plan, 0, x, cf, ws);
    for (int b = 0; b < sp->nout && !r->failed; b++) {
        size_t y = SPLIT_STEPS_NONE;
        if (sp->nsteps) {
            y = split_steps_inverse(r, sp, &steps, b);
        } else if (sp->keep[b]) {
            y = recipe_alloc(r, win);
            add_mask(r, wp, sp->keep[b], cf, t);
            add_plan(r, k->plan, 1, t, y, ws);
        }
        if (y == SPLIT_STEPS_NONE) { /* an empty band: zero */
            y = recipe_alloc(r, win);
            add_run(r, &r->compute, ROP_ZERO, at_arena(0), at_arena(y + skip), own);
        }
        rloc dst = {-1, job->outs[b], (size_t)k->own0 * row};
        rop *s = add_run(r, &r->scatter, ROP_COPY, at_arena(y + skip), dst, own);
        if (s) {
            s->c.cvt = cvt_out;
            s->c.nan_mask = job->nan_mask;
        }
        r->out_elems += own;
    }
    return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------ objects */

struct stream_split {
    split_spec spec;
    lwt_streamer *streamer;
    lwt_stream_desc desc;
    void (*progress)(void *user, double fraction);
    void *progress_user;
};

static void split_progress(void *user, double fraction)
{
    stream_split *s = user;
    if (s->progress)
        s->progress(s->progress_user, fraction);
}

void stream_split_destroy(stream_split *s)
{
    if (!s)
        return;
    lwt_streamer_destroy(s->streamer);
    for (int i = 0; i < s->spec.nplans; i++)
        lwt_plan_destroy(s->spec.plan[i]);
    free(s->spec.plan);
    free(s->spec.chunk);
    free(s);
}

/* the job of a run (in, out: NULL when it only describes the run's shape, for stream_split_prepare) */
static void split_job_of(const stream_split *s, const void *in, void *const out[], int io_f64,
                         const double *nan_mask, level_job *job)
{
    memset(job, 0, sizeof *job);
    job->plan = s->spec.whole;
    job->split = &s->spec;
    job->src = in;
    for (int b = 0; b < s->spec.nout; b++)
        job->outs[b] = out ? out[b] : NULL;
    job->io_f64 = io_f64 && s->spec.whole->desc.dtype != LWT_F64;
    job->nan_mask = nan_mask;
    job->nout = (long)s->spec.whole->shape[0];
    job->nchunks = s->spec.nchunks;
    job->per_chunk = s->spec.chunk[0].own1 - s->spec.chunk[0].own0;
}

lwt_status stream_split_prepare(stream_split *s, int io_f64)
{
    level_job job;
    split_job_of(s, NULL, NULL, io_f64, NULL, &job);
    return stream_prepare_job(s->streamer, &job);
}

const split_spec *stream_split_spec(const stream_split *s)
{
    return &s->spec;
}

/* a split of arrays shaped like whole into nout outputs, its layout and plans still to make */
static lwt_status split_alloc(const lwt_plan *whole, int nout, stream_split **out)
{
    *out = NULL;
    if (!whole || nout < 1 || nout > SPLIT_MAX_OUT)
        return lwt_fail(whole ? whole->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "split: bad arguments");
    if (whole->desc.batch != 1)
        return lwt_fail(whole->ctx, LWT_ERR_INVALID_ARGUMENT, "split: batches are not supported");
    if (whole->f32) /* its host sides are float32 or float64 (io_f64), never the 16-bit kinds */
        return lwt_fail(whole->ctx, LWT_ERR_UNSUPPORTED, "split: float16 and bfloat16 plans are not split");
    stream_split *s = calloc(1, sizeof *s);
    if (!s)
        return lwt_fail(whole->ctx, LWT_ERR_OUT_OF_MEMORY, "split: out of memory");
    s->spec.whole = whole;
    s->spec.nout = nout;
    *out = s;
    return LWT_OK;
}

static lwt_status split_finish(stream_split *s, size_t chunk_rows, int threads, stream_split **out);

lwt_status stream_split_create(const lwt_plan *whole, size_t chunk_rows, int nout, const uint64_t *keep, int threads,
                               stream_split **out)
{
    if (!out)
        return LWT_ERR_INVALID_ARGUMENT;
    stream_split *s;
    LWT_FORWARD(split_alloc(keep ? whole : NULL, nout, &s));
    memcpy(s->spec.keep, keep, (size_t)nout * sizeof *keep);
    s->spec.row_levels = whole->levels;
    for (int j = 0; j <= whole->levels; j++)
        s->spec.rows[j] = (long)whole->sizes[j][0];
    return split_finish(s, chunk_rows, threads, out);
}

lwt_status stream_split_create_steps(const lwt_plan *whole, size_t chunk_rows, int nout, const split_step *steps,
                                     int nsteps, int form_out, int threads, stream_split **out)
{
    if (!out)
        return LWT_ERR_INVALID_ARGUMENT;
    stream_split *s;
    LWT_FORWARD(split_alloc(steps ? whole : NULL, nout, &s));
    int bad = nsteps < 1 || nsteps > SPLIT_MAX_STEPS || whole->ndim != 2 || form_out < 0 || form_out >= nout;
    for (int i = 0; i < nsteps && !bad; i++)
        bad = steps[i].axes < SPLIT_AXIS_X || steps[i].axes > SPLIT_AXIS_XY || steps[i].out < 0 ||
              steps[i].out >= nout;
    if (bad) {
        stream_split_destroy(s);
        return lwt_fail(whole->ctx, LWT_ERR_INVALID_ARGUMENT, "split: bad steps");
    }
    s->spec.nsteps = nsteps;
    memcpy(s->spec.step, steps, (size_t)nsteps * sizeof *steps);
    s->spec.form_out = form_out;
    s->spec.rows[0] = (long)whole->shape[0];
    for (int i = 0; i < nsteps; i++)
        if (steps[i].axes & SPLIT_AXIS_Y) {
            const long n = s->spec.rows[s->spec.row_levels];
            s->spec.rows[++s->spec.row_levels] = lwt_coeff_len(n, whole->fb.length, whole->desc.mode);
        }
    return split_finish(s, chunk_rows, threads, out);
}

/* the layout, the window plans (not for a split by steps: its recipes run passes) and the streamer */
static lwt_status split_finish(stream_split *s, size_t chunk_rows, int threads, stream_split **out)
{
    const lwt_plan *whole = s->spec.whole;
    lwt_status st = make_layout(&s->spec, chunk_rows);
    if (!st && !s->spec.nsteps)
        st = make_plans(&s->spec);
    if (!st) {
        s->desc = lwt_stream_desc_default();
        s->desc.nworkers = 1;
        s->desc.workers[0].kind = whole->backend == LWT_BACKEND_CUDA ? LWT_WORKER_CUDA : LWT_WORKER_CPU;
        s->desc.workers[0].device = whole->device;
        s->desc.workers[0].threads = threads;
        s->desc.progress = split_progress;
        s->desc.progress_user = s;
        st = lwt_streamer_create(whole, &s->desc, &s->streamer);
    }
    if (st) {
        stream_split_destroy(s);
        return st;
    }
    *out = s;
    return LWT_OK;
}

lwt_status stream_split_run(stream_split *s, const void *in, void *const out[], int io_f64, const double *nan_mask,
                            void (*progress)(void *user, double fraction), void *progress_user)
{
    if (!s || !in || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    for (int b = 0; b < s->spec.nout; b++)
        if (!out[b])
            return lwt_fail(s->spec.whole->ctx, LWT_ERR_INVALID_ARGUMENT, "split: no output %d", b);
    level_job job;
    split_job_of(s, in, out, io_f64, nan_mask, &job);
    s->progress = progress;
    s->progress_user = progress_user;
    lwt_status st = stream_run_job(s->streamer, &job);
    s->progress = NULL;
    return st;
}
