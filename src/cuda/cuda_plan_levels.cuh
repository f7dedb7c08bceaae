/* The 2-D levels a CUDA plan runs with the register kernel (made at plan
 * creation, cuda_backend.cu), for executors that launch them in parts
 * (stream/spread_job.cu: a level's tile rows shared out over several devices). */
#ifndef LWT_CUDA_PLAN_LEVELS_CUH
#define LWT_CUDA_PLAN_LEVELS_CUH

extern "C" {
#include "core/plan.h"
#include "core/slide.h"
#include "core/slide_pair.h"
}

/* level j (1-based) in direction `inverse`: its geometry, the kernel's shape and
   lifting variant (improved: seed 000's eq. 16); NULL where the level runs some
   other way (generic sliding kernel, separable passes) */
extern "C" const lwt_slide_geom *lwt_cuda_plan_level(const lwt_plan *p, int j, int inverse, int *shape,
                                                     int *improved);
/* the forward pair of levels j and j + 1 the plan runs in one pass (its PAIR2D step) and the
   kernel's shape; NULL where it has none */
extern "C" const lwt_slide_pair *lwt_cuda_plan_pair(const lwt_plan *p, int j, int *shape);

#endif
