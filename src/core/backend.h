/*
 * The backend interface. Every n-D pass collapses to a 3-D strided problem
 * (outer, n, inner) with inner contiguous: a backend transforms all lines
 * along the middle axis. The driver (plan.c) owns levels, axes and bands.
 *
 * Forward: in (outer, n, inner) -> out (outer, 2 nc, inner), cA then cD.
 * Inverse: in (outer, 2 nc, inner), cA then cD -> out (outer, n, inner).
 */
#ifndef LWT_CORE_BACKEND_H
#define LWT_CORE_BACKEND_H

#include <stddef.h>

#include "core/boxes.h"
#include "core/hd.h"
#include "core/line.h"
#include "core/scheme.h"
#include "lwt.h"
#include "lwt_experimental.h"

/*
 * Where a forward pass along the last axis writes, instead of [cA | cD] in
 * `out`: line o of the pass is split into the indices of the axes before the
 * last one (nouter of them, each [a | d] of half[q] each); region r has bit q
 * set when axis q is in its d half; half h is the last axis' a (0) or d (1).
 * Element k of that half-line goes to
 *     dst[r][h] + (li0 * s0[r][h] + li1 * s1[r][h] + k) * elem_size
 * with li the indices local to their half. This puts every band of a level
 * straight into the packed layout (and cA into the next level's buffer); the
 * first inverse pass of a level reads its input through the same map.
 */
typedef struct lwt_dest_map {
    int nouter;
    long half[2];
    long extent1;            /* 2 * half[1]: splits o when nouter == 2 */
    char *dst[4][2];
    size_t s0[4][2], s1[4][2];
} lwt_dest_map;

/* Offset (elements) of half h of line o under a map, and its region. */
LWT_HD size_t lwt_dest_map_line(const lwt_dest_map *m, size_t o, int h, int *region)
{
    long i0 = (long)o, i1 = 0;
    int rg = 0;
    if (m->nouter == 2) {
        i0 = (long)o / m->extent1;
        i1 = (long)o - i0 * m->extent1;
        if (i1 >= m->half[1]) {
            rg |= 2;
            i1 -= m->half[1];
        }
    }
    if (m->nouter >= 1 && i0 >= m->half[0]) {
        rg |= 1;
        i0 -= m->half[0];
    }
    if (m->nouter == 0)
        i0 = 0;
    *region = rg;
    return (size_t)i0 * m->s0[rg][h] + (size_t)i1 * m->s1[rg][h];
}

typedef struct lwt_pass {
    const lwt_line_prog *prog;
    const lwt_scheme *scheme;
    const lwt_filter_bank *fb;
    lwt_dtype dtype;
    const void *in;
    void *out;
    size_t outer, inner;
    int threads;       /* 0 = all */
    int simd;          /* the CPU pass's instruction set, resolved (lwt_cpu_simd, never AUTO) */
    const lwt_dest_map *map; /* NULL: plain output; else see lwt_dest_map (only where the
                                backend's pass_kernel said yes at plan creation) */
    /* A 16-bit plan's pass (lwt_driver_run_half: a 1-D plan's levels, a 3-D plan's pass along
       axis 0; 0 otherwise): the sides stored in 16 bits (LWT_PASS16_*), the arithmetic the
       float32 plan's; a 16-bit side's element offsets count 16-bit values. half: their type,
       which the backend fills from its call context (one whose half_fused takes such plans). */
    unsigned sixteen;
    lwt_dtype half;
} lwt_pass;

#define LWT_PASS16_IN 1u   /* the first input: forward, the signal; inverse, the approximation */
#define LWT_PASS16_IN2 2u  /* inverse: the detail */
#define LWT_PASS16_OUT 4u  /* forward: the approximation; inverse: the signal */
#define LWT_PASS16_OUT2 8u /* forward: the detail */

/*
 * A backend: what a plan asks of it at creation, and what the driver asks of
 * it while walking the plan's steps (core/steps.h). Pointers are in the
 * backend's memory (host for the CPU, device for CUDA); calls may be
 * asynchronous as long as they run in order (CUDA: one stream).
 *
 * Plan time. plan_init makes the backend's per-plan state (p->bstate: device
 * tables, sliding-window geometries) and plan_free drops it. Then the planner
 * asks, for every level, what the backend can run; each answer is a kernel
 * name (recorded in the step, shown by lwt_plan_explain) or NULL for "no".
 * These are pure host code that only read the plan: q is the backend's query
 * context (NULL for the CPU and CUDA backends; the driver tests' backends use
 * it), so nothing the driver runs later is ever refused.
 */
typedef struct lwt_backend_ops {
    const char *name; /* "cpu", "cuda" */
    /* optional (NULL: no per-plan state) */
    lwt_status (*plan_init)(lwt_plan *p);
    void (*plan_free)(lwt_plan *p);
    /* bytes of host workspace execute takes (lwt_plan_info.workspace_bytes) */
    size_t (*workspace_size)(const lwt_plan *p);
    /* lwt_forward / lwt_inverse on host pointers; ws: NULL or workspace_size bytes. Also called
       with a 16-bit plan whose half_fused this backend answered 1 (p->f32: its float32 plan). */
    lwt_status (*execute)(const lwt_plan *p, const void *in, void *out, void *ws, int inverse);

    /* One whole level j (1-based) of a 2-D plan in one go (fused2d below); planes:
     * the 2-D levels on the planes of a 3-D plan, a batch of planes per call. */
    const char *(*level_kernel)(const void *q, const lwt_plan *p, int level, int inverse, int planes);
    /* forward levels j and j + 1 of a 2-D plan in one pass (fused2d_pair below) */
    const char *(*pair_kernel)(const void *q, const lwt_plan *p, int level);
    /* the kernel of one pass, buffers unset; with ps->map non-NULL: can it write (forward)
     * or read (inverse) the level's bands through a map. Every backend runs plain passes. */
    const char *(*pass_kernel)(const void *q, const lwt_plan *p, const lwt_pass *ps);

    /* The driver's operations. */
    lwt_status (*run_pass)(void *bctx, const lwt_pass *p);
    /* copy a block between two C-order 3-D arrays (shapes padded with 1s) */
    lwt_status (*copy_block)(void *bctx, size_t elem_size, const void *src, const size_t *src_shape,
                             const size_t *src_off, void *dst, const size_t *dst_shape, const size_t *dst_off,
                             const size_t *block);
    /* zero n blocks of a C-order 3-D array of dst_shape (the packed array's gaps) */
    lwt_status (*zero_blocks)(void *bctx, size_t elem_size, void *dst, const size_t *dst_shape, const lwt_box *blocks,
                              size_t n);
    /* One whole level j of a 2-D plan (core/slide.h), where level_kernel said so.
     * Forward: in[0] is the level's input (sizes[j-1], row stride in_stride[0])
     * and band mask b (bit k: axis k is a detail axis) goes to out[b] with row
     * stride out_stride[b]. Inverse: band b is in[b] (sizes[j]) and the level's
     * output (sizes[j-1]) goes to out[0].
     * 3-D plans: the planes of level j (axes 1 and 2, after or before the
     * pass along axis 0), nbatch of them at once: plane z's band b at in[b] +
     * z in_bstride[b] and out[b] + z out_bstride[b] (elements); bit 0 of b is
     * then axis 1, bit 1 axis 2. 2-D plans: nbatch 1. sixteen: a 16-bit plan's
     * (lwt_driver_run_half; 0 otherwise): bit b, band b is stored in 16 bits; bit 4, the
     * signal side (the forward's in[0], the inverse's out[0]); the type is the call
     * context's. */
    lwt_status (*fused2d)(void *bctx, int level, int inverse, const void *const in[4], const size_t in_stride[4],
                          void *const out[4], const size_t out_stride[4], size_t nbatch, const size_t in_bstride[4],
                          const size_t out_bstride[4], unsigned sixteen);
    /* Forward levels j and j + 1 of a 2-D plan in one pass, where pair_kernel said so.
     * in: level j's input (sizes[j-1], row stride in_stride); out1[b], b = 1..3: level
     * j's detail bands; out2[b], b = 0..3: level j + 1's bands (row strides alongside).
     * nbatch arrays at once (a batch of 2-D arrays): array z's input at in + z in_bstride,
     * its bands at out1[b] + z out1_bstride[b], out2[b] + z out2_bstride[b] (elements). */
    lwt_status (*fused2d_pair)(void *bctx, int level, const void *in, size_t in_stride, void *const out1[4],
                               const size_t out1_stride[4], void *const out2[4], const size_t out2_stride[4],
                               size_t nbatch, size_t in_bstride, const size_t out1_bstride[4],
                               const size_t out2_bstride[4]);
    /* optional: whether a float16/bfloat16 plan made of float32 plan f32 runs its levels with
     * 16-bit storage in the kernels themselves (1) rather than between two conversions (0);
     * asked once, when the 16-bit plan is made (core/half_plan.c); 1 also sends its host-pointer
     * calls to execute */
    int (*half_fused)(const lwt_plan *f32);
    /* with half_fused: a 16-bit plan's coarsest approximations, nbatch arrays of rows x cols
     * values, between its float32 buffer and the 16-bit packed arrays' corners (row and array
     * strides in values); narrow: the forward's end (float32 to 16 bits, rounded once), else the
     * inverse's start (2-D plans; 1-D and 3-D ones write and read theirs in 16 bits in place).
     * The 16-bit type is the call context's (lwt_driver_run_half), as it is for fused2d (which
     * stores the sides its sixteen names in 16 bits) and fused2d_pair (the detail bands, and
     * level 1's signal side). */
    lwt_status (*half_corner)(void *bctx, int narrow, const void *in, size_t in_stride, size_t in_bstride, void *out,
                              size_t out_stride, size_t out_bstride, size_t rows, size_t cols, size_t nbatch);
    /* optional: forward level j of a 3-D plan in one pass (the pass along axis 0 and the
     * planes' 2-D level fused), and the call that runs it where volume_kernel said so: in is
     * the level's input (sizes[j-1]), rows in_row and planes in_plane elements apart; band mask
     * b (bit k: a detail along axis k) goes to out[b], rows out_row[b] and planes out_plane[b]
     * elements apart. */
    const char *(*volume_kernel)(const void *q, const lwt_plan *p, int level);
    lwt_status (*fused3d)(void *bctx, int level, const void *in, size_t in_row, size_t in_plane, void *const out[8],
                          const size_t out_row[8], const size_t out_plane[8]);
} lwt_backend_ops;

extern const lwt_backend_ops lwt_cpu_ops;
/* The CUDA backend's table, or NULL in a build without CUDA (src/cuda/cuda_absent.c),
   and the number of devices it can use (0 without CUDA). */
const lwt_backend_ops *lwt_cuda_backend(void);
int lwt_cuda_device_count(void);
/* Page-lock host memory [p, p + bytes) for DMA (cudaHostRegister) and undo it: the MPI ranks'
   pieces of their whole-size arrays, so that their GPU workers copy them without staging.
   0 on success; -1 without CUDA or on failure. */
int lwt_cuda_host_register(void *p, size_t bytes);
void lwt_cuda_host_unregister(void *p);

/* a CPU pass on the instruction set p->simd names (cpu_simd.c) */
lwt_status lwt_cpu_run_pass(const lwt_pass *p);
/* whether the CPU runs p's 2-D levels (and 3-D planes) as one fused sweep (cpu_level.h) rather
   than two passes: where the plan lets the backend choose (cpu_ops.c) */
int lwt_cpu_fuses(const lwt_plan *p);
/* one 2-D level of p in one sweep from its two axes' line programs (cpu_level.h; in and out as
   lwt_backend_ops.fused2d's): the plan's levels, and a streamed chunk's (stream/worker_cpu.c);
   _level16 with a 16-bit plan's storage (lwt_cpu_level.half, .sixteen; 0, 0: none) */
lwt_status lwt_cpu_fused_level(const lwt_plan *p, const lwt_line_prog prog[2], int threads, const void *const in[4],
                               const size_t in_stride[4], void *const out[4], const size_t out_stride[4], size_t nbatch,
                               const size_t in_bstride[4], const size_t out_bstride[4]);
lwt_status lwt_cpu_fused_level16(const lwt_plan *p, const lwt_line_prog prog[2], int threads, const void *const in[4],
                                 const size_t in_stride[4], void *const out[4], const size_t out_stride[4],
                                 size_t nbatch, const size_t in_bstride[4], const size_t out_bstride[4], lwt_dtype half,
                                 unsigned sixteen);
/* the instruction set a plan asking for `want` gets: LWT_OK, or LWT_ERR_UNSUPPORTED when this
   CPU or build lacks it (cpu_simd.c) */
lwt_status lwt_cpu_simd_resolve(lwt_cpu_simd want, lwt_cpu_simd *got);
const char *lwt_cpu_simd_name(lwt_cpu_simd simd);

#endif
