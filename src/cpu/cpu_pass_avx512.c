/* The CPU kernels compiled for AVX-512 (cpu_pass_entry.h); empty where the compiler cannot target it. */
#ifdef LWT_CPU_AVX512
#define LWT_CPU_ISA avx512
#include "cpu/cpu_pass_entry.h"
#else
typedef int lwt_cpu_pass_avx512_absent; /* ISO C wants a declaration */
#endif
