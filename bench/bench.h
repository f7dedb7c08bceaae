/* lwt-bench's subjects: one file each, called by bench_main.c with the parsed options. */
#ifndef LWT_BENCH_H
#define LWT_BENCH_H

#include <stddef.h>

#include "lwt.h"

/* Every option of one lwt-bench run (bench_main.c parses them; an experiments file gives a run
 * per line). The lists stay comma-separated text: the transform table sweeps them. */
typedef struct bench_opts {
    char wavelets[512], modes[256], sizes[256];
    char lbb_threads[128], lbb_cols[128], lifting[64]; /* experimental kernel knobs */
    int levels, reps, f64, ndim, fuse_levels;
    int half; /* the transform table in 16-bit storage: 1 float16 (--f16), 2 bfloat16 (--bf16) */
    int cpu_simd; /* lwt_cpu_simd of the CPU passes (--cpu-simd) */
    int cpu_passes; /* 1: the CPU's separable passes, not the fused level (--cpu-passes) */
    int batch;       /* 2-D/3-D: arrays per batch, each of --sizes (--batch; 0 or 1: one) */
    int batch_items; /* 1: a batch's arrays one after the other, not level by level (--batch-items) */
    int volume_pass; /* 1: 3-D forward levels in one pass where the volume kernel applies (--volume-pass) */
    lwt_algorithm algorithm;
    size_t filter_n;   /* --filter N: the surface filter and the splitter (bench_filter.c) */
    int stream;        /* 1: --stream (bench_stream.c), 2: --resident, 3: --resident-levels (bench_spread.c) */
    int zero_copy;     /* --zero-copy (bench_zerocopy.c) */
    int peer;          /* --peer (bench_peer.c) */
    size_t stream_n;
    int stream_reps;
    double big_gib, slow;
} bench_opts;

/* The table of transform times against a copy of the same array (bench_transform.c). */
int bench_transform(lwt_context *ctx, const bench_opts *o);
/* The surface filter and the band splitter on a synthetic N x N surface (bench_filter.c). */
int bench_filter(lwt_context *ctx, size_t n, int f64);
/* The streamed engine on host-resident data (bench_stream.c); resident_only: bench_spread only
   (2: with the level breakdown). */
int bench_stream(lwt_context *ctx, int reps, double big_gib, double slow, size_t n16, int resident_only);
/* Device-resident data spread over the GPUs (bench_spread.c). */
int bench_spread(lwt_context *ctx, int reps, size_t n16, int levels_breakdown);
/* Seed 003's zero-copy memory against copy-in / copy-out on page-locked host arrays (bench_zerocopy.c). */
int bench_zerocopy(lwt_context *ctx, const bench_opts *o);
/* Copies between two GPUs by the copy engines, alone and beside a transform on each (bench_peer.c). */
int bench_peer(lwt_context *ctx, const bench_opts *o);

#endif
