/*
 * Band split jobs of the stream engine: a forward transform, then for each
 * output (a band) the inverse of the coefficients of a set of packed levels
 * alone, the others zero. Chunks own runs of rows along axis 0 of the output
 * and transform a window of input rows with a plan of the window's height:
 * the forward once, then per band a mask and an inverse, the coefficients
 * kept in the worker's arena (on a GPU worker: on the device) between the
 * inverses; the owned rows of each band go to its sink.
 *
 * Halos. A window holds exactly the input rows the owned rows depend on
 * through the J-level inverse and, under it, the forward (the recipes' own
 * dependency rule: lwt_line_prog_inverse_part / _forward_part, level by
 * level), its first row rounded down to a multiple of 2^J so that the
 * window's coefficients are the surface's shifted by whole indices. Every
 * value an owned row depends on is then computed by the window's transform
 * from the same inputs by the same operations as in the whole surface's
 * transform: the bands are bit-identical for every chunk size (tests/c/
 * test_surface_split.c), and on the GPU identical to the in-memory CUDA
 * plan's (tests/gpu/test_gpu_filter.c). The periodic modes wrap the edge
 * chunks' windows onto the whole surface: one chunk there.
 *
 * Internal to liblwt (src/surface/split.c is the user).
 */
#ifndef LWT_STREAM_SPLIT_JOB_H
#define LWT_STREAM_SPLIT_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "lwt.h"
#include "lwt_stream.h"
#include "core/plan.h"

#define SPLIT_MAX_OUT 4

/* Splits by levels per axis (stream_split_create_steps): the transform is a list of one-level
 * steps, each along axis 1 (x), axis 0 (y) or both, applied to the previous step's
 * approximation; a step's detail coefficients all go to one output. */
enum { SPLIT_AXIS_X = 1, SPLIT_AXIS_Y = 2, SPLIT_AXIS_XY = 3 };
#define SPLIT_MAX_STEPS (2 * 64)
typedef struct split_step {
    int axes; /* SPLIT_AXIS_* */
    int out;  /* the output its details belong to */
} split_step;

typedef struct split_chunk {
    long own0, own1; /* output rows it writes */
    long win0, win1; /* input rows it transforms */
    int plan;        /* index of its window's plan */
} split_chunk;

struct split_spec {
    const lwt_plan *whole;  /* the whole array's plan (shape, levels, mode, backend) */
    int nplans;
    lwt_plan **plan;        /* one per window height, on whole's backend and device */
    size_t ws_bytes;        /* workspace one plan op needs (largest over the plans) */
    long nchunks;
    split_chunk *chunk;
    long halo;              /* largest rows a window reads beyond its owned rows */
    int nout;
    uint64_t keep[SPLIT_MAX_OUT]; /* packed levels (lwt_plan_band numbering) of each output */
    /* the levels along axis 0, whose dependencies set the halos: row_levels, and rows[j] the
       length of axis 0 after j of them (rows[0] the whole array's) */
    int row_levels;
    long rows[LWT_LEVELS_LIMIT + 1];
    /* a split by steps (nsteps > 0; no window plans, keep unused): whole gives the wavelet,
       mode, dtype, backend and shape; its levels are not used */
    int nsteps;
    split_step step[SPLIT_MAX_STEPS];
    int form_out; /* the output of the last approximation */
};

typedef struct split_spec split_spec;
typedef struct stream_split stream_split;

/*
 * A split of arrays shaped like `whole` (its ndim, shape, levels, mode,
 * dtype, backend and device) into nout outputs: window plans, chunk layout
 * and a streamer whose one worker runs on whole's backend (threads: CPU
 * threads, 0 = the context's). chunk_rows: output rows per chunk (rounded up
 * to a multiple of 2^levels); 0 = automatic: one chunk on the CPU, about
 * eight on a GPU, so that uploads, transforms and downloads overlap.
 */
lwt_status stream_split_create(const lwt_plan *whole, size_t chunk_rows, int nout, const uint64_t *keep, int threads,
                               stream_split **out);
/* The same with levels per axis: the nsteps steps, output b of each step's details step[i].out,
   the last approximation output form_out (split_step). */
lwt_status stream_split_create_steps(const lwt_plan *whole, size_t chunk_rows, int nout, const split_step *steps,
                                     int nsteps, int form_out, int threads, stream_split **out);
void stream_split_destroy(stream_split *s);
/* Make now the workers' buffers for runs with io_f64 as given (device arenas and row cache;
   with io_f64 and float32 plans the converting rings too), so that no run allocates them.
   Runs of another kind grow what they lack. */
lwt_status stream_split_prepare(stream_split *s, int io_f64);
const split_spec *stream_split_spec(const stream_split *s);

/*
 * Run it: in (the whole input) to out[0 .. nout-1] (whole outputs), host or
 * device memory a worker can reach. io_f64: in and out hold doubles while
 * the plans are float32 (converted on the way); nan_mask (or NULL): outputs
 * are NaN wherever it is not finite. progress (or NULL) gets the fraction done.
 */
lwt_status stream_split_run(stream_split *s, const void *in, void *const out[], int io_f64, const double *nan_mask,
                            void (*progress)(void *user, double fraction), void *progress_user);

/* Chunk c's recipe (stream/recipe.c dispatches split jobs here). 0, or -1 when out of memory. */
struct recipe;
struct level_job;
int recipe_build_split(const struct level_job *job, long c, struct recipe *r);

#endif
