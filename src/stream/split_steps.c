/* The transform of a band split by levels per axis: passes and copies of a chunk's recipe (split_steps.h). */
#include "stream/split_steps.h"

#include "core/line.h"

/* rows x cols elements, rows `ss` and `ds` elements apart: a copy from the arena at src to
   the arena at dst, or (kind ROP_ZERO) dst zeroed */
static void add_block(recipe *r, int kind, size_t src, size_t ss, size_t dst, size_t ds, size_t rows, size_t cols)
{
    if (!rows || !cols)
        return;
    rop *o = recipe_push(r, &r->compute);
    if (!o)
        return;
    o->kind = kind;
    o->c.src = (rloc){0, NULL, src};
    o->c.dst = (rloc){0, NULL, dst};
    o->c.n[0] = 1;
    o->c.n[1] = rows;
    o->c.n[2] = cols;
    o->c.ss[0] = rows * ss;
    o->c.ss[1] = ss;
    o->c.ds[0] = rows * ds;
    o->c.ds[1] = ds;
    recipe_copy_normalize(&o->c);
}

/* one level along an axis of an (outer, n, inner) array: axis 0 of rows of C elements is
   (1, rows, C), axis 1 is (rows, C, 1) */
static void add_pass(recipe *r, const lwt_line_prog *prog, size_t outer, size_t inner, size_t in, size_t out,
                     int fuse_next)
{
    rop *o = recipe_push(r, &r->compute);
    if (!o)
        return;
    o->kind = ROP_PASS;
    o->p.prog = *prog;
    o->p.outer = outer;
    o->p.inner = inner;
    o->p.in = (rloc){0, NULL, in};
    o->p.out = (rloc){0, NULL, out};
    o->p.fuse_next = fuse_next;
}

static void prog_forward(const lwt_plan *p, size_t n, lwt_line_prog *prog)
{
    lwt_line_prog_forward(prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)n);
}

static void prog_inverse(const lwt_plan *p, size_t nc, size_t n, lwt_line_prog *prog)
{
    lwt_line_prog_inverse(prog, &p->wavelet.scheme, p->direct, p->fb.length, p->desc.mode, (long)nc, (long)n);
}

/* Step i's block: [cA | cD] along each axis it splits (the 2-D driver's quadrants), the
   approximation in its first rows[i+1] rows and cols[i+1] columns. */
static size_t block_rows(const split_spec *sp, const split_steps_fwd *f, int i)
{
    return sp->step[i].axes & SPLIT_AXIS_Y ? 2 * f->rows[i + 1] : f->rows[i];
}

static size_t block_cols(const split_spec *sp, const split_steps_fwd *f, int i)
{
    return sp->step[i].axes & SPLIT_AXIS_X ? 2 * f->cols[i + 1] : f->cols[i];
}

void split_steps_forward(recipe *r, const split_spec *sp, size_t rows, size_t x, split_steps_fwd *f)
{
    const lwt_plan *p = sp->whole;
    size_t cur = x;
    f->rows[0] = rows;
    f->cols[0] = p->shape[1];
    for (int i = 0; i < sp->nsteps && !r->failed; i++) {
        const int ax = sp->step[i].axes;
        const size_t R = f->rows[i], C = f->cols[i];
        lwt_line_prog py, px;
        f->rows[i + 1] = R;
        f->cols[i + 1] = C;
        if (ax & SPLIT_AXIS_Y) {
            prog_forward(p, R, &py);
            f->rows[i + 1] = (size_t)py.nc;
        }
        if (ax & SPLIT_AXIS_X) {
            prog_forward(p, C, &px);
            f->cols[i + 1] = (size_t)px.nc;
        }
        const size_t br = block_rows(sp, f, i), bc = block_cols(sp, f, i);
        const size_t co = recipe_alloc(r, br * bc);
        if (ax == SPLIT_AXIS_XY) { /* axis 0, then axis 1: one 2-D level (a worker may fuse them) */
            const size_t mid = recipe_alloc(r, br * C);
            add_pass(r, &py, 1, C, cur, mid, 1);
            add_pass(r, &px, br, 1, mid, co, 0);
        } else if (ax == SPLIT_AXIS_Y) {
            add_pass(r, &py, 1, C, cur, co, 0);
        } else {
            add_pass(r, &px, R, 1, cur, co, 0);
        }
        f->coeffs[i] = co;
        if (ax & SPLIT_AXIS_X) { /* the approximation's columns, dense for the next step */
            cur = recipe_alloc(r, f->rows[i + 1] * f->cols[i + 1]);
            add_block(r, ROP_COPY, co, bc, cur, f->cols[i + 1], f->rows[i + 1], f->cols[i + 1]);
        } else {
            cur = co; /* the first rows[i + 1] rows: dense already */
        }
    }
    f->last = cur;
}

size_t split_steps_inverse(recipe *r, const split_spec *sp, const split_steps_fwd *f, int out)
{
    const lwt_plan *p = sp->whole;
    size_t rec = SPLIT_STEPS_NONE;
    int start = -1;
    if (out == sp->form_out) {
        start = sp->nsteps - 1;
        rec = f->last;
    } else {
        for (int i = 0; i < sp->nsteps; i++)
            if (sp->step[i].out == out)
                start = i; /* coarser steps hold nothing of it: their rebuilt approximation is zero */
    }
    for (int i = start; i >= 0 && !r->failed; i--) {
        const int ax = sp->step[i].axes, mine = sp->step[i].out == out;
        const size_t R = f->rows[i], C = f->cols[i], nr = f->rows[i + 1], nc = f->cols[i + 1];
        const size_t br = block_rows(sp, f, i), bc = block_cols(sp, f, i);
        const size_t t = recipe_alloc(r, br * bc);
        add_block(r, mine ? ROP_COPY : ROP_ZERO, f->coeffs[i], bc, t, bc, br, bc);
        if (rec != SPLIT_STEPS_NONE)
            add_block(r, ROP_COPY, rec, nc, t, bc, nr, nc);
        else
            add_block(r, ROP_ZERO, 0, 0, t, bc, nr, nc);
        const size_t o = recipe_alloc(r, R * C);
        lwt_line_prog py, px;
        if (ax & SPLIT_AXIS_Y)
            prog_inverse(p, nr, R, &py);
        if (ax & SPLIT_AXIS_X)
            prog_inverse(p, nc, C, &px);
        if (ax == SPLIT_AXIS_XY) { /* axis 1, then axis 0: the 2-D driver's inverse order */
            const size_t mid = recipe_alloc(r, br * C);
            add_pass(r, &px, br, 1, t, mid, 1);
            add_pass(r, &py, 1, C, mid, o, 0);
        } else if (ax == SPLIT_AXIS_Y) {
            add_pass(r, &py, 1, C, t, o, 0);
        } else {
            add_pass(r, &px, R, 1, t, o, 0);
        }
        rec = o;
    }
    return rec;
}
