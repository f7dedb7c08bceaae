/* The CPU backend's table: plan state, the planner's questions, and the driver's
   operations (passes, block copies, zeroing, sliding-window levels). */
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/context.h"
#include "core/plan.h"
#include "cpu/cpu_slide.h"

static lwt_status cpu_run_pass(void *bctx, const lwt_pass *p)
{
    (void)bctx;
    return lwt_cpu_run_pass(p);
}

static lwt_status cpu_copy_block(void *bctx, size_t es, const void *src, const size_t *sshape, const size_t *soff,
                                 void *dst, const size_t *dshape, const size_t *doff, const size_t *b)
{
    (void)bctx;
    const char *s = src;
    char *d = dst;
    for (size_t i0 = 0; i0 < b[0]; i0++)
        for (size_t i1 = 0; i1 < b[1]; i1++) {
            size_t so = (((soff[0] + i0) * sshape[1] + soff[1] + i1) * sshape[2] + soff[2]) * es;
            size_t dof = (((doff[0] + i0) * dshape[1] + doff[1] + i1) * dshape[2] + doff[2]) * es;
            memcpy(d + dof, s + so, b[2] * es);
        }
    return LWT_OK;
}

static lwt_status cpu_zero_blocks(void *bctx, size_t es, void *dst, const size_t *ds, const lwt_box *blocks, size_t n)
{
    (void)bctx;
    char *d = dst;
    for (size_t i = 0; i < n; i++) {
        const size_t *o = blocks[i].off, *b = blocks[i].ext;
        for (size_t i0 = 0; i0 < b[0]; i0++)
            for (size_t i1 = 0; i1 < b[1]; i1++)
                memset(d + (((o[0] + i0) * ds[1] + o[1] + i1) * ds[2] + o[2]) * es, 0, b[2] * es);
    }
    return LWT_OK;
}

static lwt_status cpu_fused2d(void *bctx, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                              void *const out[4], const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                              const size_t out_bstride[4])
{
    (void)nbatch; /* 1: the CPU takes no planes (cpu_level_kernel) */
    (void)in_bstride;
    (void)out_bstride;
    return lwt_cpu_slide2d(bctx, level, inverse, in, in_stride, out, out_stride);
}

static const char *cpu_level_kernel(const void *q, const lwt_plan *p, int level, int inverse, int planes)
{
    (void)q;
    return !planes && lwt_cpu_slide_has(p, level, inverse) ? "sliding-window level" : NULL;
}

static const char *cpu_pass_kernel(const void *q, const lwt_plan *p, const lwt_pass *ps)
{
    (void)q;
    if (ps->map && ps->inner != 1)
        return NULL; /* maps are for the last (contiguous) axis */
    return p->direct ? "filter-bank pass" : "lifting pass";
}

/* the driver's two ping-pong buffers */
static size_t cpu_workspace_size(const lwt_plan *p)
{
    return 2 * p->buf_elems * lwt_plan_elem_size(p);
}

static lwt_status cpu_execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    const size_t bytes = cpu_workspace_size(p);
    int held = 0;
    /* none given: the plan's own (ws_cache.h; the cache is the plan's one mutable part) */
    void *ws = workspace ? workspace : lwt_ws_borrow(&((lwt_plan *)p)->ws, bytes, &held);
    if (!ws)
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot allocate a %zu-byte workspace", bytes);
    lwt_status st = lwt_driver_run(p, &p->steps, &lwt_cpu_ops, (void *)p, in, out, ws, inverse);
    if (!workspace)
        lwt_ws_return(&((lwt_plan *)p)->ws, ws, held);
    return st;
}

const lwt_backend_ops lwt_cpu_ops = {
    .name = "cpu",
    .plan_init = lwt_cpu_slide_plan,
    .plan_free = lwt_cpu_slide_free,
    .workspace_size = cpu_workspace_size,
    .execute = cpu_execute,
    .level_kernel = cpu_level_kernel,
    .pass_kernel = cpu_pass_kernel,
    .run_pass = cpu_run_pass,
    .copy_block = cpu_copy_block,
    .zero_blocks = cpu_zero_blocks,
    .fused2d = cpu_fused2d,
};
