/* The CPU pass on the compiler's baseline instruction set (cpu_pass_entry.h). */
#define LWT_CPU_PASS_ENTRY lwt_cpu_run_pass_portable
#include "cpu/cpu_pass_entry.h"
