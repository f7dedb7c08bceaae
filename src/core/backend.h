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

#include "core/line.h"
#include "core/scheme.h"
#include "lwt.h"

typedef struct lwt_pass {
    const lwt_line_prog *prog;
    const lwt_scheme *scheme;
    const lwt_filter_bank *fb;
    lwt_dtype dtype;
    const void *in;
    void *out;
    size_t outer, inner;
    int threads;       /* 0 = all */
} lwt_pass;

lwt_status lwt_cpu_run_pass(const lwt_pass *p);

#endif
