/* The CPU passes' instruction sets: which this CPU and build have, and the dispatch to the one
   a plan resolved when it was made (cpu_pass_entry.h has the why). */
#include "core/backend.h"
#include "core/fail.h"
#include "cpu/cpu_level.h"

lwt_status lwt_cpu_run_pass_portable(const lwt_pass *p);
lwt_status lwt_cpu_run_level_portable(const lwt_cpu_level *lv);
#ifdef LWT_CPU_AVX2
lwt_status lwt_cpu_run_pass_avx2(const lwt_pass *p);
lwt_status lwt_cpu_run_level_avx2(const lwt_cpu_level *lv);
#endif
#ifdef LWT_CPU_AVX512
lwt_status lwt_cpu_run_pass_avx512(const lwt_pass *p);
lwt_status lwt_cpu_run_level_avx512(const lwt_cpu_level *lv);
#endif

int lwt_cpu_simd_available(lwt_cpu_simd simd)
{
    switch (simd) {
    case LWT_SIMD_AUTO:
    case LWT_SIMD_PORTABLE: return 1;
#ifdef LWT_CPU_AVX2
    case LWT_SIMD_AVX2: return __builtin_cpu_supports("avx2");
#endif
#ifdef LWT_CPU_AVX512
    /* the flags cpu_pass_avx512.c is compiled with (CMakeLists.txt) */
    case LWT_SIMD_AVX512:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw");
#endif
    default: return 0;
    }
}

const char *lwt_cpu_simd_name(lwt_cpu_simd simd)
{
    switch (simd) {
    case LWT_SIMD_PORTABLE: return "portable";
    case LWT_SIMD_AVX2: return "avx2";
    case LWT_SIMD_AVX512: return "avx512";
    default: return "auto";
    }
}

lwt_status lwt_cpu_simd_resolve(lwt_cpu_simd want, lwt_cpu_simd *got)
{
    if (want == LWT_SIMD_AUTO) {
        *got = lwt_cpu_simd_available(LWT_SIMD_AVX512) ? LWT_SIMD_AVX512
               : lwt_cpu_simd_available(LWT_SIMD_AVX2) ? LWT_SIMD_AVX2
                                                       : LWT_SIMD_PORTABLE;
        return LWT_OK;
    }
    *got = want;
    return lwt_cpu_simd_available(want) ? LWT_OK : LWT_ERR_UNSUPPORTED;
}

lwt_status lwt_cpu_run_pass(const lwt_pass *p)
{
    switch (p->simd) {
#ifdef LWT_CPU_AVX512
    case LWT_SIMD_AVX512: return lwt_cpu_run_pass_avx512(p);
#endif
#ifdef LWT_CPU_AVX2
    case LWT_SIMD_AVX2: return lwt_cpu_run_pass_avx2(p);
#endif
    default: return lwt_cpu_run_pass_portable(p);
    }
}

lwt_status lwt_cpu_run_level(const lwt_cpu_level *lv)
{
    switch (lv->simd) {
#ifdef LWT_CPU_AVX512
    case LWT_SIMD_AVX512: return lwt_cpu_run_level_avx512(lv);
#endif
#ifdef LWT_CPU_AVX2
    case LWT_SIMD_AVX2: return lwt_cpu_run_level_avx2(lv);
#endif
    default: return lwt_cpu_run_level_portable(lv);
    }
}
