/* CPU backend operations for the driver: passes, block copies, zeroing. */
#include <string.h>

#include "core/backend.h"
#include "core/plan.h"
#include "cpu/cpu_slide.h"

static lwt_status cpu_run_pass(void *bctx, const lwt_pass *p)
{
    (void)bctx;
    if (p->map && p->inner != 1)
        return LWT_ERR_UNSUPPORTED; /* maps are for the last (contiguous) axis */
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

/* the sliding-window level only when the plan asks for it (LWT_ALGO_LIFTING_LBB),
   and only for 2-D plans: the separable passes stay the CPU's reference */
static lwt_status cpu_fused2d(void *bctx, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                              void *const out[4], const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                              const size_t out_bstride[4])
{
    const lwt_plan *p = bctx;
    (void)in_bstride;
    (void)out_bstride;
    if (!p || p->desc.algorithm != LWT_ALGO_LIFTING_LBB || p->ndim != 2 || nbatch != 1)
        return LWT_ERR_UNSUPPORTED;
    return lwt_cpu_slide2d(p, level, inverse, in, in_stride, out, out_stride);
}

const lwt_backend_ops lwt_cpu_ops = {cpu_run_pass, cpu_copy_block, cpu_zero_blocks, cpu_fused2d, NULL};
