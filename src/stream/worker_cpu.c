/* CPU stream worker: recipes executed with memcpy and the CPU passes. */
#include <stdlib.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/plan.h"
#include "stream/worker.h"

typedef struct cpu_worker {
    const lwt_plan *plan;
    int threads;
    char *buf[RECIPE_BUFS];
    size_t cap[RECIPE_BUFS]; /* elements; buffers only grow */
} cpu_worker;

static lwt_status ensure_buffers(cpu_worker *cw, const recipe *r, size_t es)
{
    for (int b = 0; b < RECIPE_BUFS; b++) {
        if (r->buf_elems[b] <= cw->cap[b])
            continue;
        char *nb = realloc(cw->buf[b], r->buf_elems[b] * es);
        if (!nb)
            return LWT_ERR_OUT_OF_MEMORY;
        cw->buf[b] = nb;
        cw->cap[b] = r->buf_elems[b];
    }
    return LWT_OK;
}

static char *resolve(cpu_worker *cw, rloc l, size_t es)
{
    return (l.buf < 0 ? l.host : cw->buf[l.buf]) + l.off * es;
}

static lwt_status run_recipe(cpu_worker *cw, const recipe *r)
{
    const lwt_plan *p = cw->plan;
    const size_t es = lwt_plan_elem_size(p);
    lwt_status st = ensure_buffers(cw, r, es);
    if (st)
        return st;
    for (int i = 0; i < r->ncin; i++)
        recipe_copy_host(&r->cin[i], resolve(cw, r->cin[i].src, es), resolve(cw, r->cin[i].dst, es), es);
    for (int i = 0; i < r->npass; i++) {
        const rpass *rp = &r->pass[i];
        lwt_pass ps = {0};
        ps.prog = &rp->prog;
        ps.scheme = &p->wavelet.scheme;
        ps.fb = &p->fb;
        ps.dtype = p->desc.dtype;
        ps.in = resolve(cw, rp->in, es);
        ps.out = resolve(cw, rp->out, es);
        ps.outer = rp->outer;
        ps.inner = rp->inner;
        ps.threads = cw->threads;
        ps.map = NULL;
        st = lwt_cpu_run_pass(&ps);
        if (st)
            return st;
    }
    for (int i = 0; i < r->ncout; i++)
        recipe_copy_host(&r->cout[i], resolve(cw, r->cout[i].src, es), resolve(cw, r->cout[i].dst, es), es);
    return LWT_OK;
}

static lwt_status cpu_level(void *state, stream_engine *e, int w, const level_job *job)
{
    cpu_worker *cw = state;
    recipe *r = malloc(sizeof *r);
    if (!r) {
        engine_failed(e, w, -1, LWT_ERR_OUT_OF_MEMORY);
        return LWT_ERR_OUT_OF_MEMORY;
    }
    lwt_status st = LWT_OK;
    long c;
    while ((c = engine_next(e, w, 1)) >= 0) {
        double t0 = stream_now();
        st = engine_chunk_begin(e, w, c);
        if (!st && recipe_build(job, c, 1, r))
            st = LWT_ERR_OUT_OF_MEMORY;
        if (!st)
            st = run_recipe(cw, r);
        if (st) {
            engine_failed(e, w, c, st);
            break;
        }
        engine_done(e, w, c, stream_now() - t0, 1.0, 1.0);
    }
    free(r);
    return st;
}

static void cpu_destroy(void *state)
{
    cpu_worker *cw = state;
    if (!cw)
        return;
    for (int b = 0; b < RECIPE_BUFS; b++)
        free(cw->buf[b]);
    free(cw);
}

static const worker_ops cpu_ops = {cpu_level, cpu_destroy};

lwt_status stream_cpu_worker_create(const lwt_plan *plan, const lwt_stream_worker *cfg, const worker_ops **ops,
                                    void **state, worker_caps *caps)
{
    cpu_worker *cw = calloc(1, sizeof *cw);
    if (!cw)
        return LWT_ERR_OUT_OF_MEMORY;
    cw->plan = plan;
    cw->threads = cfg->threads > 0 ? cfg->threads : (plan->ctx ? plan->ctx->threads : 0);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double threads = cw->threads > 0 ? cw->threads : (ncpu > 0 ? (double)ncpu : 1.0);
    /* rough figures for the weighted and FNN policies: a core streams a few
       GB/s through the passes and does a few Gflop/s */
    caps->gflops = 8.0 * threads;
    caps->mem_gib = 8.0;
    caps->parallel = threads;
    caps->mem_gbs = 2.0 * threads;
    caps->bus_gbs = 2.0 * threads;
    *ops = &cpu_ops;
    *state = cw;
    return LWT_OK;
}
