/*
 * A whole 2-D level on the CPU in one sweep (cpu_level_tmpl.h): the plan's fused2d step for
 * every 2-D plan and for the planes of a 3-D one. Bit for bit the two separable passes.
 */
#ifndef LWT_CPU_LEVEL_H
#define LWT_CPU_LEVEL_H

#include "core/backend.h"

typedef struct lwt_cpu_level {
    lwt_line_prog prog[2];     /* down the columns (axis 0 of the plane), along the rows */
    const lwt_scheme *scheme;
    const lwt_filter_bank *fb;
    lwt_dtype dtype;
    int threads;               /* 0: all */
    lwt_cpu_simd simd;         /* resolved */
    /* lwt_backend_ops.fused2d's arguments: forward, in[0] the level's input and out[b] band b
       (bit 0: axis 0 a detail axis, bit 1: axis 1); inverse, the other way round. Strides in
       elements; plane z of the batch at + z * bstride. */
    const void *const *in;
    const size_t *in_stride, *in_bstride;
    void *const *out;
    const size_t *out_stride, *out_bstride;
    size_t nbatch;
    /* A float16/bfloat16 plan's level (lwt_driver_run_half): LWT_F16 or LWT_BF16 (else 0); the
       bands b whose bit b is set in sixteen, and with bit 4 its signal side (the forward's
       input, the inverse's output), are arrays of that type (fused2d's mask), converted a row
       at a time in cache (core/half_plan.c's loops); the arithmetic is the float32 level's. */
    lwt_dtype half;
    unsigned sixteen;
} lwt_cpu_level;

/* on the instruction set lv->simd names (cpu_simd.c) */
lwt_status lwt_cpu_run_level(const lwt_cpu_level *lv);

#endif
