/* CPU runner of the sliding-window 2-D level (cpu_slide.c). */
#ifndef LWT_CPU_SLIDE_H
#define LWT_CPU_SLIDE_H

#include "core/plan.h"

/* plan creation: every level's geometry and schedule, for 2-D LWT_ALGO_LIFTING_LBB plans
   (p->bstate); free drops them */
lwt_status lwt_cpu_slide_plan(lwt_plan *p);
void lwt_cpu_slide_free(lwt_plan *p);
/* 1 where level j of direction `inverse` runs as a sliding window */
int lwt_cpu_slide_has(const lwt_plan *p, int level, int inverse);

lwt_status lwt_cpu_slide2d(const lwt_plan *p, int level, int inverse, const void *const in[4],
                           const size_t in_stride[4], void *const out[4], const size_t out_stride[4]);

#endif
