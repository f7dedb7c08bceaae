/* Shared pieces of the lwt command-line tool. */
#ifndef LWT_CLI_H
#define LWT_CLI_H

#include <stddef.h>

#include "lwt.h"

#define LWT_EXIT_OK 0
#define LWT_EXIT_RUNTIME 1
#define LWT_EXIT_USAGE 2

int cmd_transform(int argc, char **argv, int inverse);
int cmd_transform_stream(int argc, char **argv, int inverse);
int cmd_transform_mpi(int argc, char **argv, int inverse); /* builds with MPI only (cmd_mpi.c) */
int cmd_info(int argc, char **argv);
int cmd_info_explain(int argc, char **argv); /* lwt info --explain ... */
int cmd_demo(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_synth(int argc, char **argv);

/* The options every transform command shares, parsed from the command line. */
typedef struct cli_transform_opts {
    const char *wavelet;
    int levels;          /* LWT_LEVELS_MAX for "max" */
    int levels_given;
    lwt_mode mode;
    int mode_given;
    lwt_backend backend;
    lwt_algorithm algorithm;
    int threads;
} cli_transform_opts;

/* Parse "-w/-l/-m/--backend/--algorithm/--threads" at argv[*i] (advancing *i).
 * Returns 1 if consumed, 0 if not one of these, -1 on a bad value (message printed). */
int cli_parse_common(int argc, char **argv, int *i, cli_transform_opts *o);

/* lwt --max-memory SIZE (memory_limit.c): take the option (anywhere on the line) out of argv,
 * argv[argc] included; -1 on a bad value (message printed). */
int cli_take_max_memory(int *argc, char **argv);
/* The ceiling for every context the CLI makes: --max-memory, else 3/4 of the usable RAM. */
size_t cli_memory_limit(void);
/* "64M", "1.5G", "4096" (K M G T P: powers of 1024, optional "iB" or "B") to bytes; 0 ok. */
int cli_parse_bytes(const char *s, size_t *out);

/* lwt --ignore-checksum (ignore_checksum.c): take the option (anywhere on the line) out of argv. */
void cli_take_ignore_checksum(int *argc, char **argv);
/* What every context the CLI makes gets for reading files: the memory ceiling (cli_memory_limit)
 * and --ignore-checksum. */
void cli_apply_read_options(lwt_context *ctx);

/* Context whose log callback prints errors and warnings to stderr as "lwt: ...", with the
 * read options of cli_apply_read_options. */
lwt_context *cli_context(void);

/* The warning PyWavelets gives for levels above the maximum useful one. */
void cli_warn_levels(int levels, int max_level);

/* Parse a non-negative integer; 0 on success. */
int cli_parse_size(const char *s, size_t *out);

/* Parse a dtype name: f32, f64, f16 (IEEE binary16), bf16 (bfloat16); 0 on success. */
int cli_parse_dtype(const char *s, lwt_dtype *out);
/* Parse --raw's element type: f16, f32, f64 or numpy's float16, float32, float64 (the dtypes
   the .npy output can carry, so not bf16); 0 on success. */
int cli_parse_raw_dtype(const char *s, lwt_dtype *out);

/* Element i of an array of dtype dt (float16, float32 or float64: what .npy files carry) as a
   double, for the finite-input checks. */
double cli_value(lwt_dtype dt, const void *data, size_t i);
/* 1 when the count elements of data are all finite; else 0 after printing
   "lwt: PATH: element I is NaN|infinite; ..." (the in-memory and the streamed transforms' check). */
int cli_all_finite(const char *path, lwt_dtype dt, const void *data, size_t count);

/* Parse "D0[,D1[,D2]]" (1-3 positive integers); 0 on success. */
int cli_parse_shape(const char *s, size_t *shape, int *ndim);

#endif
