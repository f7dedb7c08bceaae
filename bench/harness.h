/*
 * The benchmark's harness, shared by every subject (bench_*.c) so that each table is measured
 * the same way (DESIGN.md section 8): one clock (CUDA events on a stream in a CUDA build, the
 * monotonic clock otherwise), medians of warm repeats, the floor of one read and one write
 * (a device-to-device copy, or memcpy in a CPU build) measured in the same run, buffers where
 * the transform runs, and the table printer. The benchmark may make CUDA runtime calls; the
 * CLI and the library's callers see none of this.
 */
#ifndef LWT_BENCH_HARNESS_H
#define LWT_BENCH_HARNESS_H

#include <stddef.h>

#include "lwt.h"

#define BENCH_EXIT_OK 0
#define BENCH_EXIT_RUNTIME 1
#define BENCH_EXIT_USAGE 2

/* Context whose log callback prints errors and warnings to stderr as "lwt-bench: ...". */
lwt_context *bench_context(void);

/* The name of device 0 ("CPU" in a build without CUDA). */
void bench_device_name(char *buf, size_t size);

/* Monotonic wall clock in seconds. */
double bench_now_s(void);
/* The median of v[0..n) (n >= 1); sorts v. */
double bench_median(double *v, int n);

/* One run of a timed operation: queued on `stream` (a cudaStream_t) in a CUDA build, done
 * before it returns otherwise; 0 on success. */
typedef int (*bench_op)(void *arg, void *stream);

/* Median milliseconds of `reps` runs of op after `warmup` runs: CUDA events recorded on stream
 * around each run in a CUDA build, the monotonic clock otherwise. 0 on success. */
int bench_time_ms(bench_op op, void *arg, void *stream, int warmup, int reps, double *ms);

/* The floor, timed as bench_time_ms: a copy of `bytes` from src to dst (device to device in a
 * CUDA build, memcpy otherwise). */
int bench_copy_ms(void *dst, const void *src, size_t bytes, void *stream, int warmup, int reps, double *ms);

/* Median seconds, wall clock, of `reps` synchronous calls of op (stream NULL) after `warmup`. */
int bench_wall_s(bench_op op, void *arg, int warmup, int reps, double *sec);

/* Buffers where the timed transform runs (device 0's memory in a CUDA build, host memory
 * otherwise), filled with `byte`; NULL on failure. bench_free(NULL) is a no-op. */
void *bench_alloc(size_t bytes, int byte);
void bench_free(void *p);

/* A stream to time on (NULL in a CPU build); 0 on success. */
int bench_stream_create(void **stream);
void bench_stream_destroy(void *stream);

/* The table printer: a header line of column names, then rows of values, each column
 * printf-formatted to its width (negative: left-aligned). */
typedef struct bench_col {
    const char *name;
    int width;
    char kind; /* 's': const char *, 'd': int, 'z': size_t, 'f': double */
    int prec;  /* digits after the point ('f') */
} bench_col;
void bench_table_header(const bench_col *cols, int n);
void bench_table_row(const bench_col *cols, int n, ...);

#endif
