/* What a streamed chunk runs on a device (cuda_backend.cu, for the stream
 * worker of src/stream/worker_cuda.cu): one pass, or one forward 2-D level
 * with the register kernel. */
#ifndef LWT_CUDA_CHUNK_CUH
#define LWT_CUDA_CHUNK_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/backend.h"
#include "core/line.h"
#include "core/plan.h"
#include "core/slide.h"
}

/* A worker's plan computes float32 data in double, like the CPU backend, so that any mix
 * of CPU and GPU workers gives the same bits (its steps are resolved again). */
extern "C" void lwt_cuda_plan_exact_f32(lwt_plan *p);
/* doubles of scratch one pass needs (naive: the line kernel) */
extern "C" size_t lwt_cuda_pass_scratch(const lwt_plan *p, const lwt_pass *ps, int naive);

/* one pass on the stream (naive: the one-thread-per-line kernel) */
extern "C" lwt_status lwt_cuda_run_pass_on(const lwt_plan *p, const lwt_pass *ps, double *scratch,
                                           cudaStream_t stream, int naive);

/* The register kernel's geometries a worker has planned, by level shape and
 * rows (chunks mostly repeat a few; planning one takes the ring simulation of
 * core/slide.c). g NULL: the kernel does not apply there. */
#define LWT_CUDA_PART_GEOMS 8
typedef struct lwt_cuda_part_cache {
    struct {
        long n0, n1, rows;
        int shape;
        lwt_slide_geom *g;
    } e[LWT_CUDA_PART_GEOMS];
    int n, next;
} lwt_cuda_part_cache;

void lwt_cuda_part_cache_free(lwt_cuda_part_cache *c);

/*
 * A forward 2-D level of a chunk in one kernel (recipe.h: a pass marked
 * fuse_next and the pass after it): p0 the level's axis-0 pass, whose input
 * `in` holds the rows of its window (p1->n samples each), p1 the axis-1 pass;
 * `out` the array p1 writes ([2 rows, 2 nc1]). The same bits as the two
 * passes (lwt_cuda_slide2d_regs_part). First ask: lwt_cuda_level_part_geom
 * gives the kernel's geometry and shape (planned once per level shape in the
 * cache, pure host code), or NULL where the kernel does not apply and the
 * caller runs the two passes; then run it with them.
 */
extern "C" const lwt_slide_geom *lwt_cuda_level_part_geom(const lwt_plan *p, lwt_cuda_part_cache *c,
                                                          const lwt_line_prog *p0, const lwt_line_prog *p1,
                                                          int *shape);
extern "C" lwt_status lwt_cuda_run_level_part(const lwt_plan *p, const lwt_slide_geom *g, int shape,
                                              const lwt_line_prog *p0, const lwt_line_prog *p1, const void *in,
                                              void *out, cudaStream_t stream);

#endif
