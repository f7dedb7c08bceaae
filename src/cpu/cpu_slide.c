/*
 * CPU runner of the sliding-window 2-D level (core/slide_body.h, the same
 * code as the CUDA kernel): blocks in parallel, one ring per thread.
 * The CPU backend takes this path when a plan asks for LWT_ALGO_LIFTING_LBB;
 * its default stays the separable passes, the reference the streamed and
 * threaded results are compared with bit for bit. Geometries and schedules
 * are made once per plan (lwt_cpu_slide_plan), the rings per call.
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

#define LWT_TEMPLATE "core/slide_body.h"
#include "core/for_dtypes.h"

/* the CPU backend's per-plan state: each level's sliding-window geometry and schedule,
   index 2 (j - 1) + inverse, NULL where the level does not fit */
typedef struct cpu_slides {
    lwt_slide_geom **g;
    int **tab;
} cpu_slides;

void lwt_cpu_slide_free(lwt_plan *p)
{
    cpu_slides *cs = p->bstate;
    if (!cs)
        return;
    for (int i = 0; cs->g && i < 2 * p->levels; i++) {
        free(cs->g[i]);
        free(cs->tab[i]);
    }
    free(cs->g);
    free(cs->tab);
    free(cs);
    p->bstate = NULL;
}

/* one level's geometry and schedule; 0 (nothing allocated) where the level does not fit */
static int plan_level(const lwt_plan *p, int level, int inverse, lwt_slide_geom **gout, int **tout)
{
    const size_t *shape = p->sizes[level - 1], *nc = p->sizes[level];
    lwt_slide_geom *g = malloc(sizeof *g);
    if (!g)
        return -1;
    if (!lwt_slide_plan(g, &p->wavelet.scheme, p->desc.mode, p->fb.length, inverse, (long)shape[0], (long)shape[1],
                        (long)nc[0], (long)nc[1], sizeof(double), 0, 64, p->tune.lbb_cols)) {
        free(g);
        return 0;
    }
    int *tab = malloc(sizeof(int) * (size_t)g->iters * LWT_SLIDE_TAB(g));
    if (!tab) {
        free(g);
        return -1;
    }
    lwt_slide_table(g, p->wavelet.scheme.steps, tab);
    *gout = g;
    *tout = tab;
    return 1;
}

/* The sliding-window level only when the plan asks for it (LWT_ALGO_LIFTING_LBB), and
   only for 2-D lifting plans: the separable passes stay the CPU's reference. Planned
   here once, for every level and both directions. */
lwt_status lwt_cpu_slide_plan(lwt_plan *p)
{
    if (p->desc.algorithm != LWT_ALGO_LIFTING_LBB || p->ndim != 2 || p->direct || p->levels < 1)
        return LWT_OK;
    cpu_slides *cs = calloc(1, sizeof *cs);
    if (!cs)
        return LWT_ERR_OUT_OF_MEMORY;
    p->bstate = cs;
    cs->g = calloc(2 * (size_t)p->levels, sizeof *cs->g);
    cs->tab = calloc(2 * (size_t)p->levels, sizeof *cs->tab);
    if (!cs->g || !cs->tab)
        return LWT_ERR_OUT_OF_MEMORY;
    for (int j = 1; j <= p->levels; j++)
        for (int inv = 0; inv < 2; inv++)
            if (plan_level(p, j, inv, &cs->g[2 * (j - 1) + inv], &cs->tab[2 * (j - 1) + inv]) < 0)
                return LWT_ERR_OUT_OF_MEMORY;
    return LWT_OK;
}

int lwt_cpu_slide_has(const lwt_plan *p, int level, int inverse)
{
    const cpu_slides *cs = p->bstate;
    return cs && level >= 1 && level <= p->levels && cs->g[2 * (level - 1) + (inverse ? 1 : 0)];
}

lwt_status lwt_cpu_slide2d(const lwt_plan *p, int level, int inverse, const void *const in[4],
                           const size_t in_stride[4], void *const out[4], const size_t out_stride[4])
{
    if (!lwt_cpu_slide_has(p, level, inverse))
        return lwt_fail(p->ctx, LWT_ERR_INTERNAL, "level %d has no sliding-window plan", level);
    const cpu_slides *cs = p->bstate;
    const lwt_scheme *s = &p->wavelet.scheme;
    const lwt_slide_geom *g = cs->g[2 * (level - 1) + inverse];
    const int *tab = cs->tab[2 * (level - 1) + inverse];
    double taps[LWT_SCHEME_MAX_TAPS], k[4];
    for (int i = 0; i < s->ntaps_total; i++)
        taps[i] = s->taps[i];
    for (int b = 0; b < 4; b++)
        k[b] = lwt_slide_scale(s->ka, s->kd, inverse, b);
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
    return failed ? LWT_ERR_OUT_OF_MEMORY : LWT_OK;
}
