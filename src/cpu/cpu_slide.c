/*
 * CPU runner of the sliding-window 2-D level (core/slide_body.h, the same
 * code as the CUDA kernel): blocks in parallel, one ring per thread.
 * The CPU backend takes this path when a plan asks for LWT_ALGO_LIFTING_LBB;
 * its default stays the separable passes, the reference the streamed and
 * threaded results are compared with bit for bit.
 */
#include <stdbool.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/context.h"
#include "core/extend.h"
#include "core/plan.h"
#include "core/slide.h"
#include "cpu/cpu_slide.h"

#define LWT_SLIDE_FN static
#define LWT_SLIDE_SYNC() ((void)0)

#define REAL double
#define WREAL double
#define FN(name) name##_f64
#include "core/slide_body.h"
#undef REAL
#undef WREAL
#undef FN

#define REAL float
#define WREAL double
#define FN(name) name##_f32
#include "core/slide_body.h"
#undef REAL
#undef WREAL
#undef FN

lwt_status lwt_cpu_slide2d(const lwt_plan *p, int level, int inverse, const void *const in[4],
                           const size_t in_stride[4], void *const out[4], const size_t out_stride[4])
{
    const lwt_scheme *s = &p->wavelet.scheme;
    const size_t *shape = p->sizes[level - 1], *nc = p->sizes[level];
    lwt_slide_geom *g = malloc(sizeof *g);
    if (!g)
        return LWT_ERR_OUT_OF_MEMORY;
    if (!lwt_slide_plan(g, s, p->desc.mode, p->fb.length, inverse, (long)shape[0], (long)shape[1], (long)nc[0],
                        (long)nc[1], sizeof(double), 0, 64, p->desc.lbb_cols)) {
        free(g);
        return LWT_ERR_UNSUPPORTED;
    }
    double taps[LWT_SCHEME_MAX_TAPS], k[4];
    for (int i = 0; i < s->ntaps_total; i++)
        taps[i] = s->taps[i];
    for (int b = 0; b < 4; b++)
        k[b] = lwt_slide_scale(s->ka, s->kd, inverse, b);
    int *tab = malloc(sizeof(int) * (size_t)g->iters * LWT_SLIDE_TAB(g));
    if (!tab) {
        free(g);
        return LWT_ERR_OUT_OF_MEMORY;
    }
    lwt_slide_table(g, s->steps, tab);
    const long blocks = g->tiles[0] * g->tiles[1];
    const size_t ring_elems = (size_t)2 * (size_t)g->C * (size_t)g->RW;
    int nthreads = p->ctx && p->ctx->threads > 0 ? p->ctx->threads : 1;
#ifdef _OPENMP
    if (!(p->ctx && p->ctx->threads > 0))
        nthreads = omp_get_max_threads();
#endif
    if (nthreads > blocks)
        nthreads = (int)blocks;
    int failed = 0;
#pragma omp parallel num_threads(nthreads) reduction(| : failed)
    {
        double *ring = malloc(ring_elems * sizeof(double));
        if (!ring)
            failed = 1;
        const slide_thr_f64 th64 = {0, 1, 0, 1, 0, 1};
        const slide_thr_f32 th32 = {0, 1, 0, 1, 0, 1};
#pragma omp for schedule(dynamic, 1)
        for (long b = 0; b < blocks; b++) {
            if (!ring)
                continue;
            if (p->desc.dtype == LWT_F64) {
                if (inverse)
                    slide_inverse_f64(g, s->steps, taps, s->ach, s->sa, s->sd, k, (const double *const *)in,
                                      in_stride, (double *)out[0], out_stride[0], ring, tab, b, &th64);
                else
                    slide_forward_f64(g, s->steps, taps, s->ach, s->sa, s->sd, k, (const double *)in[0],
                                      in_stride[0], (double *const *)out, out_stride, ring, tab, b, &th64);
            } else {
                if (inverse)
                    slide_inverse_f32(g, s->steps, taps, s->ach, s->sa, s->sd, k, (const float *const *)in,
                                      in_stride, (float *)out[0], out_stride[0], ring, tab, b, &th32);
                else
                    slide_forward_f32(g, s->steps, taps, s->ach, s->sa, s->sd, k, (const float *)in[0],
                                      in_stride[0], (float *const *)out, out_stride, ring, tab, b, &th32);
            }
        }
        free(ring);
    }
    free(tab);
    free(g);
    return failed ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}
