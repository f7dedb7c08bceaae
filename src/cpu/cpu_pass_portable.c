/* The CPU kernels on the compiler's baseline instruction set (cpu_pass_entry.h). */
#define LWT_CPU_ISA portable
#include "cpu/cpu_pass_entry.h"
