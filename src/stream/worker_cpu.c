/* CPU stream worker: recipes executed with memcpy, the CPU passes and the fused 2-D level. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/plan.h"
#include "stream/split_job.h"
#include "stream/worker.h"

typedef struct cpu_worker {
    const lwt_plan *plan;
    int threads;
    char *arena;
    size_t cap;     /* elements; the arena only grows */
} cpu_worker;

static char *resolve(cpu_worker *cw, rloc l, size_t es)
{
    return (l.buf < 0 ? l.host : cw->arena) + l.off * es;
}

/* a split job's whole-window transform, on host memory */
static lwt_status run_plan(cpu_worker *cw, const level_job *job, const rplan *t, size_t es)
{
    const lwt_plan *p = job->split ? job->split->plan[t->plan] : NULL;
    if (!p || p->backend != LWT_BACKEND_CPU)
        return lwt_fail(cw->plan->ctx, LWT_ERR_INVALID_ARGUMENT, "stream CPU worker: a job plan not on the CPU");
    const void *in = resolve(cw, t->in, es);
    void *out = resolve(cw, t->out, es), *ws = resolve(cw, t->ws, es);
    return t->inverse ? lwt_inverse(p, in, out, ws) : lwt_forward(p, in, out, ws);
}

/* A chunk's 2-D level in one sweep (cpu_level.h): pass a and the pass b that reads its output,
   one read of the window and one write of b's output, the bits of the two passes (test_stream).
   Forward, a runs axis 0 and b axis 1, which writes each of a's 2 kc output rows as [cA | cD]:
   the four bands sit at the corners of b's output. Inverse, a runs axis 1 on the gathered
   [cA rows; cD rows] x [a | d] block, whose corners are the four bands, and b axis 0. */
static lwt_status run_fused(cpu_worker *cw, const rpass *a, const rpass *b, size_t es)
{
    const lwt_plan *p = cw->plan;
    const void *in[4] = {NULL, NULL, NULL, NULL};
    void *out[4] = {NULL, NULL, NULL, NULL};
    size_t in_stride[4] = {0, 0, 0, 0}, out_stride[4] = {0, 0, 0, 0};
    const size_t none[4] = {0, 0, 0, 0};
    lwt_line_prog prog[2];
    if (a->prog.inverse) {
        const size_t wl = a->outer / 2, half = (size_t)a->prog.nc, row = 2 * half;
        const char *g = resolve(cw, a->in, es);
        const void *bands[4] = {g, g + wl * row * es, g + half * es, g + (wl * row + half) * es};
        memcpy(in, bands, sizeof in);
        for (int k = 0; k < 4; k++)
            in_stride[k] = row;
        out[0] = resolve(cw, b->out, es);
        out_stride[0] = b->inner;
        prog[0] = b->prog;
        prog[1] = a->prog;
    } else {
        const size_t kc = (size_t)(a->prog.out_hi - a->prog.out_lo), row = (size_t)lwt_prog_out_extent(&b->prog);
        const size_t half = (size_t)(b->prog.out_hi - b->prog.out_lo);
        char *o = resolve(cw, b->out, es);
        void *bands[4] = {o, o + kc * row * es, o + half * es, o + (kc * row + half) * es};
        memcpy(out, bands, sizeof out);
        for (int k = 0; k < 4; k++)
            out_stride[k] = row;
        in[0] = resolve(cw, a->in, es);
        in_stride[0] = a->inner;
        prog[0] = a->prog;
        prog[1] = b->prog;
    }
    lwt_status st = lwt_cpu_fused_level(p, prog, cw->threads, in, in_stride, out, out_stride, 1, none, none);
    return st ? lwt_fail(p->ctx, st, "stream CPU worker: cannot allocate a fused level's rows") : LWT_OK;
}

static lwt_status run_list(cpu_worker *cw, const level_job *job, const rlist *l, size_t es)
{
    const lwt_plan *p = cw->plan;
    for (int i = 0; i < l->n; i++) {
        const rop *o = &l->v[i];
        if (o->kind == ROP_PASS && o->p.fuse_next && i + 1 < l->n && l->v[i + 1].kind == ROP_PASS &&
            lwt_cpu_fuses(p)) {
            lwt_status st = run_fused(cw, &o->p, &l->v[i + 1].p, es);
            if (st)
                return st;
            i++;
            continue;
        }
        if (o->kind == ROP_COPY) {
            recipe_copy_host(&o->c, resolve(cw, o->c.src, rcopy_src_es(&o->c, es)),
                             resolve(cw, o->c.dst, rcopy_dst_es(&o->c, es)), es, cw->threads);
            continue;
        }
        if (o->kind == ROP_ZERO) {
            recipe_zero_host(&o->c, resolve(cw, o->c.dst, es), es);
            continue;
        }
        if (o->kind == ROP_PLAN) {
            lwt_status st = run_plan(cw, job, &o->t, es);
            if (st)
                return st;
            continue;
        }
        lwt_pass ps = {0};
        ps.prog = &o->p.prog;
        ps.scheme = &p->wavelet.scheme;
        ps.fb = &p->fb;
        ps.dtype = p->desc.dtype;
        ps.in = resolve(cw, o->p.in, es);
        ps.out = resolve(cw, o->p.out, es);
        ps.outer = o->p.outer;
        ps.inner = o->p.inner;
        ps.threads = cw->threads;
        ps.simd = p->simd;
        lwt_status st = lwt_cpu_run_pass(&ps);
        if (st)
            return st;
    }
    return LWT_OK;
}

static lwt_status run_recipe(cpu_worker *cw, const level_job *job, const recipe *r)
{
    const size_t es = lwt_plan_elem_size(cw->plan);
    if (r->arena_elems > cw->cap) {
        char *a = realloc(cw->arena, r->arena_elems * es);
        if (!a)
            return lwt_fail(cw->plan->ctx, LWT_ERR_OUT_OF_MEMORY, "stream CPU worker: %zu bytes for a chunk",
                            r->arena_elems * es);
        cw->arena = a;
        cw->cap = r->arena_elems;
    }
    lwt_status st = run_list(cw, job, &r->gather, es);
    if (!st)
        st = run_list(cw, job, &r->compute, es);
    if (!st)
        st = run_list(cw, job, &r->scatter, es);
    return st;
}

static lwt_status cpu_level(void *state, stream_engine *e, int w, const level_job *job)
{
    cpu_worker *cw = state;
    recipe r;
    recipe_init(&r);
    lwt_status st = LWT_OK;
    long c;
    while ((c = engine_next(e, w, 1)) >= 0) {
        double t0 = stream_now();
        st = engine_chunk_begin(e, w, c);
        if (!st && recipe_build(job, c, &r))
            st = LWT_ERR_OUT_OF_MEMORY;
        if (!st)
            st = run_recipe(cw, job, &r);
        if (st) {
            engine_failed(e, w, c, st);
            break;
        }
        engine_done(e, w, c, stream_now() - t0, 1.0, 1.0);
    }
    recipe_free(&r);
    return st;
}

static void cpu_destroy(void *state)
{
    cpu_worker *cw = state;
    if (!cw)
        return;
    free(cw->arena);
    free(cw);
}

static const worker_ops cpu_ops = {cpu_level, cpu_destroy, NULL};

lwt_status stream_cpu_worker_create(const lwt_plan *plan, const lwt_stream_worker *cfg, const worker_ops **ops,
                                    void **state, worker_caps *caps)
{
    cpu_worker *cw = calloc(1, sizeof *cw);
    if (!cw)
        return lwt_fail(plan->ctx, LWT_ERR_OUT_OF_MEMORY, "stream CPU worker: out of memory");
    cw->plan = plan;
    cw->threads = cfg->threads > 0 ? cfg->threads : (plan->ctx ? plan->ctx->threads : 0);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double threads = cw->threads > 0 ? cw->threads : (ncpu > 0 ? (double)ncpu : 1.0);
    /* figures for the weighted, queue and FNN policies: the rate at which a
       CPU worker gets through its input. Measured (issue 26, the GPU machine's
       16-core Xeon, float32 CDF 9/7, one 4096^2 level): one thread 0.17 GB/s,
       16 threads 1.1 GB/s; 0.1 GB/s per thread lies between the two. Set at
       2 GB/s per thread (the earlier guess), a 16-thread CPU looked a third
       as fast as a GPU worker (50 GB/s bus) where it is 30-50 times slower,
       and the queue's first set gave it a chunk that finished last (2 GPUs +
       the CPU: 46.8 ms where the GPUs alone took 16.0 ms). */
    caps->gflops = 8.0 * threads;
    caps->mem_gib = 8.0;
    caps->parallel = threads;
    caps->mem_gbs = 0.1 * threads;
    caps->bus_gbs = 0.1 * threads;
    *ops = &cpu_ops;
    *state = cw;
    return LWT_OK;
}
