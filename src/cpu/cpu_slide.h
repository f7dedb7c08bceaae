/* CPU runner of the sliding-window 2-D level (cpu_slide.c). */
#ifndef LWT_CPU_SLIDE_H
#define LWT_CPU_SLIDE_H

#include "core/plan.h"

lwt_status lwt_cpu_slide2d(const lwt_plan *p, int level, int inverse, const void *const in[4],
                           const size_t in_stride[4], void *const out[4], const size_t out_stride[4]);

#endif
