/*
 * The CPU kernels for one instruction set (LWT_CPU_ISA: portable, avx2 or avx512):
 * instantiates the kernel templates for float and double and defines lwt_cpu_run_pass_ISA and
 * lwt_cpu_run_level_ISA. Included by cpu_pass_portable.c, cpu_pass_avx2.c and
 * cpu_pass_avx512.c, each compiled with its own target flags (CMakeLists.txt), so one source
 * gives every SIMD path; cpu_simd.c picks one when a plan is made. The lane loops of the
 * template are what the compiler vectorizes: 2 doubles a vector on the x86-64 baseline (SSE2),
 * 4 with AVX2, 8 with AVX-512. No path contracts a multiply and an add (-ffp-contract=off
 * where the target has FMA), and each element's operations keep their order, so every path
 * gives the same bits (tests/c/test_simd.c).
 */
#ifndef LWT_CPU_ISA
#error "define LWT_CPU_ISA before including cpu_pass_entry.h"
#endif
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/backend.h"
#include "core/extend.h"
#include "core/plan.h"
#include "cpu/cpu_level.h"
#include "cpu/cpu_pipe.h"

#define STRIP_BYTES 512 /* of each row in a column strip (cpu_pass_tmpl.h) */
#define PASS_GRAIN ((size_t)1 << 15) /* samples per thread, at least (run_pass, run_level) */

static int omp_get_max_threads_or_1(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

#define LWT_TEMPLATE "cpu/cpu_pass_tmpl.h"
#include "core/for_dtypes.h"

#define LWT_CPU_NAME2(a, b) a##b
#define LWT_CPU_NAME(a, b) LWT_CPU_NAME2(a, b)

lwt_status LWT_CPU_NAME(lwt_cpu_run_pass_, LWT_CPU_ISA)(const lwt_pass *p);
lwt_status LWT_CPU_NAME(lwt_cpu_run_pass_, LWT_CPU_ISA)(const lwt_pass *p)
{
    return p->dtype == LWT_F32 ? run_pass_f32(p) : run_pass_f64(p);
}

lwt_status LWT_CPU_NAME(lwt_cpu_run_level_, LWT_CPU_ISA)(const lwt_cpu_level *lv);
lwt_status LWT_CPU_NAME(lwt_cpu_run_level_, LWT_CPU_ISA)(const lwt_cpu_level *lv)
{
    return lv->dtype == LWT_F32 ? run_level_f32(lv) : run_level_f64(lv);
}
