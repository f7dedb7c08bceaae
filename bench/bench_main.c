/*
 * lwt-bench: the benchmark, its own program (never part of the lwt CLI). This file parses the
 * options and hands one run to its subject: the transform table (default), --filter, --stream,
 * --resident; --seed-experiments / --experiments FILE run a list of such runs kept as data in
 * bench/experiments/. Exit status: 0 success, 1 runtime error, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "harness.h"
#include "lwt_experimental.h"

#ifndef LWT_BENCH_EXPERIMENTS
#define LWT_BENCH_EXPERIMENTS "bench/experiments"
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: lwt-bench [-w W1,W2] [-m M1,M2] [--sizes N1,N2] [-l LEVELS] [--reps N] [--f64|--f16|--bf16] "
               "[--ndim 1|2|3] [--algo auto|rc|lbb|rc-steps|convolution] [--lbb-threads T1,T2] [--lbb-cols C1,C2]\n"
               "                 [--lifting auto,classic,improved] [--fuse-levels 0|1] [--volume-pass 0|1] [--cpu-simd auto|portable|avx2|avx512] [--cpu-passes 0|1]\n"
               "                 [--batch B [--batch-items 0|1]]\n"
               "       lwt-bench --filter N [--f64]\n"
               "       lwt-bench --stream [--stream-reps N] [--stream-size N] [--big GIB] [--slow F]\n"
               "       lwt-bench --resident|--resident-levels [--stream-reps N] [--stream-size N]\n"
               "       lwt-bench --zero-copy [-w W1,W2] [--sizes N1,N2] [-l LEVELS] [--reps N] [--f16|--bf16]\n"
               "       lwt-bench --peer [--reps N]\n"
               "       lwt-bench --seed-experiments | --experiments FILE\n"
               "\n"
               "Default: the transform table: median of --reps warm runs (CUDA events on device buffers; in a\n"
               "build without CUDA the CPU backend on host buffers and the monotonic clock), Gpixel/s and the\n"
               "ratio to a copy of the same array measured in the same run (device to device, or memcpy).\n"
               "--filter N: the GPU surface filter and band splitter on a synthetic N x N surface.\n"
               "--stream: the streamed engine on host-resident data (seed 000's Table 1 and experiment 5);\n"
               "--resident: device-resident data spread over the GPUs; --resident-levels: the same, then the\n"
               "  2N^2 array with 1, 2 and 3 levels (where the time of several GPUs goes, level by level) and\n"
               "  when each pass of the 2N^2 4-level call ran on each GPU (two GPUs: also given the other way round).\n"
               "--peer: copies between two GPUs by the copy engines (a block, rows), alone and beside a\n"
               "  transform on each (what the spread's remote rows would cost sent that way).\n"
               "--seed-experiments runs %s/seed000.txt; --experiments FILE runs FILE:\n"
               "one lwt-bench run per line (its options), lines starting with == printed, # comments.\n",
            LWT_BENCH_EXPERIMENTS);
}

static bench_opts defaults(void)
{
    bench_opts o;
    memset(&o, 0, sizeof o);
    snprintf(o.wavelets, sizeof o.wavelets, "haar,db2,cdf53,cdf97,db10");
    snprintf(o.modes, sizeof o.modes, "periodization,symmetric");
    snprintf(o.sizes, sizeof o.sizes, "4096,16384");
    snprintf(o.lbb_threads, sizeof o.lbb_threads, "0");
    snprintf(o.lbb_cols, sizeof o.lbb_cols, "0");
    snprintf(o.lifting, sizeof o.lifting, "auto");
    o.levels = 4;
    o.reps = 20;
    o.ndim = 2;
    o.algorithm = LWT_ALGO_AUTO;
    o.stream_n = 16384;
    o.stream_reps = 5;
    o.slow = 2.0;
    return o;
}

/* copy an option's value; a list longer than the buffer is a usage error, not a silent cut */
static int text(char *dst, size_t size, const char *val)
{
    if (strlen(val) >= size) {
        fprintf(stderr, "lwt-bench: option value too long: '%s'\n", val);
        return -1;
    }
    snprintf(dst, size, "%s", val);
    return 0;
}

typedef enum { RUN_ONE, RUN_HELP, RUN_FILE } run_what;

/* argv[0..argc) are options (no program name). 0, or BENCH_EXIT_USAGE with the message printed. */
/* --cpu-simd's value as an lwt_cpu_simd, or -1 */
static int simd_of(const char *v)
{
    static const char *const names[] = {"auto", "portable", "avx2", "avx512"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, names[i]))
            return i;
    return -1;
}

static int parse(int argc, char **argv, bench_opts *o, run_what *what, const char **file)
{
    *what = RUN_ONE;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, took = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) *what = RUN_HELP, took = 0;
        else if (!strcmp(a, "--f64")) o->f64 = 1, took = 0;
        else if (!strcmp(a, "--f16")) o->half = 1, took = 0;
        else if (!strcmp(a, "--bf16")) o->half = 2, took = 0;
        else if (!strcmp(a, "--stream")) o->stream = 1, took = 0;
        else if (!strcmp(a, "--resident")) o->stream = 2, took = 0;
        else if (!strcmp(a, "--resident-levels")) o->stream = 3, took = 0;
        else if (!strcmp(a, "--zero-copy")) o->zero_copy = 1, took = 0;
        else if (!strcmp(a, "--peer")) o->peer = 1, took = 0;
        else if (!strcmp(a, "--seed-experiments")) *what = RUN_FILE, *file = NULL, took = 0;
        else if (!v) bad = 1;
        else if (!strcmp(a, "-w")) bad = text(o->wavelets, sizeof o->wavelets, v);
        else if (!strcmp(a, "-m")) bad = text(o->modes, sizeof o->modes, v);
        else if (!strcmp(a, "--sizes")) bad = text(o->sizes, sizeof o->sizes, v);
        else if (!strcmp(a, "--lbb-threads")) bad = text(o->lbb_threads, sizeof o->lbb_threads, v);
        else if (!strcmp(a, "--lbb-cols")) bad = text(o->lbb_cols, sizeof o->lbb_cols, v);
        else if (!strcmp(a, "--lifting")) bad = text(o->lifting, sizeof o->lifting, v);
        else if (!strcmp(a, "-l")) o->levels = atoi(v);
        else if (!strcmp(a, "--reps")) o->reps = atoi(v);
        else if (!strcmp(a, "--ndim")) o->ndim = atoi(v);
        else if (!strcmp(a, "--fuse-levels")) o->fuse_levels = atoi(v);
        else if (!strcmp(a, "--cpu-simd")) bad = (o->cpu_simd = simd_of(v)) < 0;
        else if (!strcmp(a, "--cpu-passes")) o->cpu_passes = atoi(v);
        else if (!strcmp(a, "--batch")) o->batch = atoi(v);
        else if (!strcmp(a, "--batch-items")) o->batch_items = atoi(v);
        else if (!strcmp(a, "--volume-pass")) o->volume_pass = atoi(v);
        else if (!strcmp(a, "--filter")) o->filter_n = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--stream-reps")) o->stream_reps = atoi(v);
        else if (!strcmp(a, "--stream-size")) o->stream_n = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--big")) o->big_gib = atof(v);
        else if (!strcmp(a, "--slow")) o->slow = atof(v);
        else if (!strcmp(a, "--experiments")) *what = RUN_FILE, *file = v;
        else if (!strcmp(a, "--algo")) {
            if (!strcmp(v, "auto")) o->algorithm = LWT_ALGO_AUTO;
            else if (!strcmp(v, "rc")) o->algorithm = LWT_ALGO_LIFTING_RC;
            else if (!strcmp(v, "lbb")) o->algorithm = LWT_ALGO_LIFTING_LBB;
            else if (!strcmp(v, "rc-steps")) o->algorithm = LWT_ALGO_LIFTING_RC_STEPS;
            else if (!strcmp(v, "convolution")) o->algorithm = LWT_ALGO_CONVOLUTION;
            else {
                fprintf(stderr, "lwt-bench: --algo auto|rc|lbb|rc-steps|convolution\n");
                return BENCH_EXIT_USAGE;
            }
        } else
            bad = 1;
        if (bad) {
            fprintf(stderr, "lwt-bench: unknown option or missing value: '%s'\n", a);
            usage(stderr);
            return BENCH_EXIT_USAGE;
        }
        i += took;
    }
    if (o->reps < 20 || o->levels < 0 || o->ndim < 1 || o->ndim > 3) {
        fprintf(stderr, "lwt-bench: --reps must be >= 20, -l >= 0 and --ndim 1, 2 or 3\n");
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

/* one run with parsed options: its subject on a context of its own */
static int run(const bench_opts *o)
{
#ifndef LWT_HAVE_CUDA
    if (o->stream || o->filter_n || o->zero_copy || o->peer) {
        fprintf(stderr, "lwt-bench: --stream, --resident, --filter, --zero-copy and --peer need a build with the "
                        "CUDA backend\n");
        return BENCH_EXIT_RUNTIME;
    }
#endif
    lwt_context *ctx = bench_context();
    if (!ctx)
        return BENCH_EXIT_RUNTIME;
    int rc = BENCH_EXIT_RUNTIME;
#ifdef LWT_HAVE_CUDA
    const int have_device = lwt_context_device_count(ctx) > 0;
#else
    const int have_device = 1; /* the CPU */
#endif
    if (!have_device)
        fprintf(stderr, "lwt-bench: no CUDA device\n");
#ifdef LWT_HAVE_CUDA
    else if (o->stream)
        rc = bench_stream(ctx, o->stream_reps < 1 ? 1 : o->stream_reps, o->big_gib, o->slow, o->stream_n,
                          o->stream >= 2 ? o->stream - 1 : 0);
    else if (o->filter_n)
        rc = bench_filter(ctx, o->filter_n, o->f64);
    else if (o->zero_copy)
        rc = bench_zerocopy(ctx, o);
    else if (o->peer)
        rc = bench_peer(ctx, o);
#endif
    else
        rc = bench_transform(ctx, o);
    lwt_context_destroy(ctx);
    return rc;
}

static int run_args(int argc, char **argv, int nested);

/* Each line of an experiments file: "== heading" printed, "# ..." and blank lines skipped, any
 * other line the options of one run (from the defaults). Stops at the first failing run. */
static int run_file(const char *path)
{
    char def[1024];
    if (!path) {
        snprintf(def, sizeof def, "%s/seed000.txt", LWT_BENCH_EXPERIMENTS);
        path = def;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "lwt-bench: cannot read the experiments file %s (try --experiments FILE)\n", path);
        return BENCH_EXIT_RUNTIME;
    }
    char line[2048];
    int rc = 0, no = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        no++;
        line[strcspn(line, "\r\n")] = 0;
        const char *p = line + strspn(line, " \t");
        if (!*p || *p == '#')
            continue;
        if (!strncmp(p, "==", 2)) {
            printf("%s\n", p);
            fflush(stdout);
            continue;
        }
        char *args[64];
        int n = 0;
        for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
            if (n == 64) {
                fprintf(stderr, "lwt-bench: %s:%d: more than 64 words\n", path, no);
                rc = BENCH_EXIT_USAGE;
                break;
            }
            args[n++] = tok;
        }
        if (!rc)
            rc = run_args(n, args, 1);
    }
    fclose(f);
    return rc;
}

static int run_args(int argc, char **argv, int nested)
{
    bench_opts o = defaults();
    run_what what;
    const char *file = NULL;
    int rc = parse(argc, argv, &o, &what, &file);
    if (rc)
        return rc;
    if (what == RUN_HELP) {
        usage(stdout);
        return BENCH_EXIT_OK;
    }
    if (what == RUN_FILE) {
        if (nested) {
            fprintf(stderr, "lwt-bench: an experiments file cannot run another one\n");
            return BENCH_EXIT_USAGE;
        }
        return run_file(file);
    }
    return run(&o);
}

int main(int argc, char **argv) { return run_args(argc - 1, argv + 1, 0); }
