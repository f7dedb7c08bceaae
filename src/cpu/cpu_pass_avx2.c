/* The CPU kernels compiled for AVX2 (cpu_pass_entry.h); empty where the compiler cannot target it. */
#ifdef LWT_CPU_AVX2
#define LWT_CPU_ISA avx2
#include "cpu/cpu_pass_entry.h"
#else
typedef int lwt_cpu_pass_avx2_absent; /* ISO C wants a declaration */
#endif
