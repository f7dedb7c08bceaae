/*
 * lwt_experimental.h - knobs for experiments, benchmarks and tests.
 *
 * Nothing here is part of the stable API: names, fields and values may change
 * from one release to the next, and binaries that use them must be rebuilt
 * with the matching header (zstd's ZSTD_STATIC_LINKING_ONLY, in a header of
 * its own). Results never depend on these knobs: every setting gives the same
 * bits as the default, only speed changes. Users who just transform arrays
 * need only lwt.h.
 *
 *   lwt_plan_tuning t = lwt_plan_tuning_default();
 *   t.lbb_threads = 512; t.fuse_levels = 1;
 *   lwt_plan_create_tuned(ctx, &desc, &t, &plan);
 *
 * Why a separate struct and not fields (or setters) on lwt_plan_desc: the
 * stable description then never changes with an experiment, and a tuning
 * struct can gain or lose a field without a version check in every program
 * that only makes plans (FFTW keeps its planner flags apart in the same way).
 */
#ifndef LWT_EXPERIMENTAL_H
#define LWT_EXPERIMENTAL_H

#include "lwt.h"
#include "lwt_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seed 000's plain "RC" (an lwt_algorithm value, pinned): on the GPU every lifting step
   of every axis is a kernel over the whole array, the channels in global memory (a
   device-wide synchronization per step); the CPU runs it as LWT_ALGO_LIFTING_RC. Only
   for reproducing the seed's comparison: it is never faster. */
#define LWT_ALGO_LIFTING_RC_STEPS ((lwt_algorithm)5)

/* How the register sliding-window kernel (GPU, 2-D, LBB/AUTO) runs the lifting steps along
   the rows, where one warp holds a row in registers and lanes exchange neighbours' values
   (seed 000's experiment 2). Both give the same bits; other kernels and the CPU ignore it. */
typedef enum lwt_lifting_variant {
    LWT_LIFT_AUTO = 0,     /* the planner's choice: the faster one as measured (docs/PERFORMANCE.md) */
    LWT_LIFT_CLASSIC = 1,  /* one exchange (and dependency round) per lifting step */
    LWT_LIFT_IMPROVED = 2  /* seed 000's improved lifting, eq. 16: each step merged with the next,
                              which recomputes the values it needs, so one exchange per pair */
} lwt_lifting_variant;

/* The CPU backend's instruction set for its lifting and filter-bank passes. Every path gives
   the same bits (tests/c/test_simd.c compares them), so this only changes speed. */
typedef enum lwt_cpu_simd {
    LWT_SIMD_AUTO = 0,     /* the widest this CPU and build have (AVX-512, AVX2, portable) */
    LWT_SIMD_PORTABLE = 1, /* the compiler's baseline for the target (SSE2 on x86-64) */
    LWT_SIMD_AVX2 = 2,
    LWT_SIMD_AVX512 = 3
} lwt_cpu_simd;

/** 1 where this CPU and this build can run `simd` (LWT_SIMD_AUTO and _PORTABLE: always). */
LWT_API int lwt_cpu_simd_available(lwt_cpu_simd simd);

typedef struct lwt_plan_tuning {
    /* Tuning of the sliding-window 2-D kernel (LWT_ALGO_LIFTING_LBB), for benchmarks such as
       seed 000's block-size sweep; 0 = the planner's choice.
       lbb_threads: CUDA threads per block, a multiple of 32 in 32..1024 (default 256);
       lbb_cols: ring row width in elements, the strip's columns with their halo, 16..1024
       (default 128 for float32, 64 for float64 work; widened where the halo needs it). */
    int lbb_threads, lbb_cols;
    lwt_lifting_variant lifting;  /* LWT_LIFT_AUTO by default */
    /* Levels per pass of the GPU's 2-D forward: 0 = the planner's choice (levels 1 and 2,
       3 and 4, ... in one pass where the register kernel can: periodization, sizes
       multiples of 4, classic lifting); 1 = one level per pass. */
    int fuse_levels;
    /* The CPU passes' instruction set (LWT_SIMD_AUTO: the widest available); a plan made with
       one this CPU or build lacks fails with LWT_ERR_UNSUPPORTED. */
    lwt_cpu_simd cpu_simd;
    /* The CPU's 2-D levels (and the planes of 3-D ones): 0 = the planner's choice (one fused
       sweep per level where the algorithm leaves the choice to the library: AUTO, LIFTING,
       CONVOLUTION); 1 = the separable passes, one per axis. Both give the same bits. */
    int cpu_passes;
    /* A batch of 2-D arrays: 0 = the planner's choice (each level on the whole batch in one
       call where the backend can: the GPU's register kernel, the CPU's fused level); 1 = the
       arrays one after the other, every level of one before the next (to measure the
       difference). Both give the same bits. */
    int batch_items;
    /* lwt_forward / lwt_inverse of a CUDA plan on host arrays (seed 003's zero-copy memory):
       0 = the planner's choice (copy the input up, transform on the device, copy the result
       down); 1 = where both arrays are page-locked (cudaMallocHost, cudaHostRegister), the
       kernels read the input and write the result over the bus in place, only the workspace on
       the device (unpinned arrays are copied as with 0). The same bits either way. */
    int zero_copy;
    /* The GPU's 3-D forward levels: 0 = the planner's choice (by planes: the pass along axis 0,
       then the planes' 2-D level, measured faster, docs/PERFORMANCE.md "3-D levels in one pass");
       1 = in one pass where the volume kernel applies (float32 Haar, D4, CDF 5/3 and CDF 9/7,
       every mode but smooth and antireflect), which reads and writes the level once. Both give
       the same bits. */
    int volume_pass;
} lwt_plan_tuning;

/** The planner's choices everywhere (all zero). */
LWT_API lwt_plan_tuning lwt_plan_tuning_default(void);

/** lwt_plan_create with tuning (NULL: lwt_plan_tuning_default()); LWT_ERR_INVALID_ARGUMENT
 *  for a value outside the ranges above. */
LWT_API lwt_status lwt_plan_create_tuned(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_plan_tuning *tuning,
                                         lwt_plan **out);

/** The tuning a plan was made with. */
LWT_API lwt_status lwt_plan_get_tuning(const lwt_plan *plan, lwt_plan_tuning *out);

/* Streaming (lwt_stream.h): seed 000's three single-GPU optimizations, each switchable so
   its effect can be measured (1 = on, the default), the pipeline's depth, level fusion,
   and faults a test injects into given workers. */
typedef struct lwt_stream_tuning {
    int tuned_blocks;  /* 1: the tuned kernels; 0: one thread per line, 128-thread blocks */
    int pinned_pool;   /* 1: pinned staging buffers allocated once, reused by every chunk */
    int overlap;       /* 1: H2D, kernels and D2H of different chunks overlap on several streams */
    int streams;       /* chunks in flight per GPU worker when overlapping, 1..8;
                          0 = 3 (docs/PERFORMANCE.md, "Pipeline depth") */
    int fuse_levels;   /* levels one pass over the data may cover: 0 = as many as the halos
                          allow (automatic), 1 = one level per pass */
    /* test faults of worker k (desc.workers[k]): */
    double slowdown[LWT_STREAM_MAX_WORKERS]; /* >= 1: idles (slowdown - 1) x its busy time after each
                                                chunk; 0 = none */
    int fail_after[LWT_STREAM_MAX_WORKERS];  /* > 0: fails (LWT_ERR_DEVICE) on its n-th chunk */
} lwt_stream_tuning;

/** Every optimization on, automatic depth and fusion, no faults. */
LWT_API lwt_stream_tuning lwt_stream_tuning_default(void);

/** lwt_streamer_create with tuning (NULL: lwt_stream_tuning_default()); LWT_ERR_INVALID_ARGUMENT
 *  for a value outside the ranges above. */
LWT_API lwt_status lwt_streamer_create_tuned(const lwt_plan *plan, const lwt_stream_desc *desc,
                                             const lwt_stream_tuning *tuning, lwt_streamer **out);

#ifdef __cplusplus
}
#endif
#endif /* LWT_EXPERIMENTAL_H */
