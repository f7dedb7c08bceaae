/* The benchmark's harness: clocks and medians. */
#ifndef LWT_BENCH_HARNESS_H
#define LWT_BENCH_HARNESS_H

/* monotonic wall clock in seconds */
double bench_now_s(void);
/* qsort order of doubles */
int bench_cmp_double(const void *a, const void *b);

int cmd_bench(int argc, char **argv);

#endif
