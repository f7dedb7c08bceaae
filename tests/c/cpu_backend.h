/*
 * cpu_backend.h - what the driver tests' backends (test_planes.c, test_pairs.c) take from
 * the CPU backend unchanged: its passes (and its answer on them), block copies and gap
 * zeroing, so that each test replaces only the operation it is about; the one-level plan
 * they run; a plan run on a test backend; their random inputs. Header-only.
 */
#ifndef LWT_TEST_CPU_BACKEND_H
#define LWT_TEST_CPU_BACKEND_H

#include "core/backend.h"
#include "core/plan.h"

static lwt_status cpu_run_pass(void *b, const lwt_pass *ps)
{
    (void)b;
    return lwt_cpu_ops.run_pass(NULL, ps);
}

static const char *cpu_pass_kernel(const void *q, const lwt_plan *p, const lwt_pass *ps)
{
    (void)q;
    return lwt_cpu_ops.pass_kernel(NULL, p, ps);
}

static lwt_status cpu_copy_block(void *b, size_t es, const void *src, const size_t *ss, const size_t *so, void *dst,
                                 const size_t *ds, const size_t *dof, const size_t *blk)
{
    (void)b;
    return lwt_cpu_ops.copy_block(NULL, es, src, ss, so, dst, ds, dof, blk);
}

static lwt_status cpu_zero_blocks(void *b, size_t es, void *dst, const size_t *ds, const lwt_box *blocks, size_t n)
{
    (void)b;
    return lwt_cpu_ops.zero_blocks(NULL, es, dst, ds, blocks, n);
}

/* a one-level 2-D plan with p's settings for an n0 x n1 input, on the CPU's sliding
   window (LWT_ALGO_LIFTING_LBB): the level the test backends run with lwt_cpu_slide2d */
static lwt_status cpu_level_plan(lwt_context *ctx, const lwt_plan *p, size_t n0, size_t n1, lwt_plan **q)
{
    lwt_plan_desc d = p->desc;
    d.ndim = 2;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = 1;
    d.batch = 1;
    d.backend = LWT_BACKEND_CPU;
    d.algorithm = LWT_ALGO_LIFTING_LBB;
    return lwt_plan_create(ctx, &d, q);
}

/* plan p's steps on a test backend (q: its state, which its answers read) and run them */
static lwt_status run_on(const lwt_plan *p, const lwt_backend_ops *ops, void *q, const void *in, void *out, void *ws,
                         int inverse)
{
    lwt_steps steps;
    lwt_status st = lwt_steps_plan(p, ops, q, &steps);
    if (st)
        return st;
    st = lwt_driver_run(p, &steps, ops, q, in, out, ws, inverse);
    lwt_steps_free(&steps);
    return st;
}

/* uniform in [-0.5, 0.5): xorshift64 on the caller's state */
static double xs_rnd(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

#endif
