/* CPU backend: instantiates the pass template for float and double. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/backend.h"
#include "core/extend.h"

#define LANES 8

static int omp_get_max_threads_or_1(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

#define REAL double
#define WREAL double
#define FN(name) name##_f64
#include "cpu/cpu_pass_tmpl.h"
#undef REAL
#undef WREAL
#undef FN

#define REAL float
#define WREAL double
#define FN(name) name##_f32
#include "cpu/cpu_pass_tmpl.h"
#undef REAL
#undef WREAL
#undef FN

lwt_status lwt_cpu_run_pass(const lwt_pass *p)
{
    return p->dtype == LWT_F32 ? run_pass_f32(p) : run_pass_f64(p);
}
