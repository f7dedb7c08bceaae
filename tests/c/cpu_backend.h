/*
 * cpu_backend.h - what the driver tests' backends (test_planes.c, test_pairs.c) take from
 * the CPU backend unchanged: its passes, block copies and gap zeroing, so that each test
 * replaces only the operation it is about; and their random inputs. Header-only.
 */
#ifndef LWT_TEST_CPU_BACKEND_H
#define LWT_TEST_CPU_BACKEND_H

#include "core/backend.h"

static lwt_status cpu_run_pass(void *b, const lwt_pass *ps)
{
    (void)b;
    return lwt_cpu_ops.run_pass(NULL, ps);
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

/* uniform in [-0.5, 0.5): xorshift64 on the caller's state */
static double xs_rnd(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

#endif
