/*
 * lwt forward|inverse --stream: the streamed engine (include/lwt_stream.h)
 * on memory-mapped files, so inputs and outputs larger than RAM work. The
 * output appears atomically when the whole transform succeeded.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/mapped_array.h"
#include "lwt_experimental.h" /* the optimization switches and test faults */
#include "lwt_stream.h"
#include "progress.h"

typedef struct stream_opts {
    cli_transform_opts t;
    lwt_stream_desc d;
    lwt_stream_tuning tune;
    int devices[LWT_STREAM_MAX_WORKERS], ndevices, all_devices;
    int cpu_workers;
    int raw;              /* input is raw native values of dtype raw_dtype (float16/32/64) */
    lwt_dtype raw_dtype;
    size_t shape[LWT_MAX_NDIM];
    int shape_nd;
    const char *scratch_dir;
    int report;
    int slow_worker, fail_worker, fail_after;
    double slowdown;
    const char *paths[2];
    int npaths;
} stream_opts;

static int parse_list(const char *s, int *out, int max, int *n)
{
    *n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 1024 || *n == max)
            return -1;
        out[(*n)++] = (int)v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return *n ? 0 : -1;
}

static int parse_pair(const char *s, int *idx, double *val)
{
    char *end;
    long i = strtol(s, &end, 10);
    if (end == s || *end != ':' || i < 0 || i >= LWT_STREAM_MAX_WORKERS)
        return -1;
    *idx = (int)i;
    *val = strtod(end + 1, &end);
    return *end || !(*val > 0) ? -1 : 0;
}

#define NEED_VALUE()                                                                 \
    do {                                                                             \
        if (i + 1 >= argc) {                                                         \
            fprintf(stderr, "lwt %s: %s needs a value\n", name, a);                  \
            return -1;                                                               \
        }                                                                            \
    } while (0)

static int parse(int argc, char **argv, const char *name, stream_opts *o)
{
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_common(argc, argv, &i, &o->t);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--stream")) {
            continue;
        } else if (!strcmp(a, "--chunk-rows")) {
            NEED_VALUE();
            if (cli_parse_size(argv[++i], &o->d.chunk_rows) || !o->d.chunk_rows) {
                fprintf(stderr, "lwt %s: --chunk-rows needs a positive integer\n", name);
                return -1;
            }
        } else if (!strcmp(a, "--devices")) {
            NEED_VALUE();
            if (!strcmp(argv[++i], "all"))
                o->all_devices = 1;
            else if (parse_list(argv[i], o->devices, LWT_STREAM_MAX_WORKERS, &o->ndevices)) {
                fprintf(stderr, "lwt %s: --devices needs 'all' or a list like 0,1\n", name);
                return -1;
            }
        } else if (!strcmp(a, "--cpu-worker")) {
            o->cpu_workers++;
        } else if (!strcmp(a, "--cpu-workers")) {
            size_t n;
            NEED_VALUE();
            if (cli_parse_size(argv[++i], &n) || n < 1 || n > LWT_STREAM_MAX_WORKERS) {
                fprintf(stderr, "lwt %s: --cpu-workers needs 1..%d\n", name, LWT_STREAM_MAX_WORKERS);
                return -1;
            }
            o->cpu_workers = (int)n;
        } else if (!strcmp(a, "--balance")) {
            NEED_VALUE();
            const char *v = argv[++i];
            if (!strcmp(v, "static")) o->d.balance = LWT_BALANCE_POLICY_STATIC;
            else if (!strcmp(v, "weighted")) o->d.balance = LWT_BALANCE_POLICY_WEIGHTED;
            else if (!strcmp(v, "queue")) o->d.balance = LWT_BALANCE_POLICY_QUEUE;
            else if (!strcmp(v, "fnn")) o->d.balance = LWT_BALANCE_POLICY_FNN;
            else {
                fprintf(stderr, "lwt %s: unknown balance policy '%s' (static, weighted, queue, fnn)\n", name, v);
                return -1;
            }
        } else if (!strcmp(a, "--raw")) {
            NEED_VALUE();
            const char *v = argv[++i];
            o->raw = 1;
            if (cli_parse_raw_dtype(v, &o->raw_dtype)) {
                fprintf(stderr, "lwt %s: --raw needs f16, f32 or f64\n", name);
                return -1;
            }
        } else if (!strcmp(a, "--shape")) {
            NEED_VALUE();
            if (cli_parse_shape(argv[++i], o->shape, &o->shape_nd)) {
                fprintf(stderr, "lwt: --shape needs D0[,D1[,D2]] with 1-3 positive integers\n");
                return -1;
            }
        } else if (!strcmp(a, "--scratch-dir")) {
            NEED_VALUE();
            o->scratch_dir = argv[++i];
        } else if (!strcmp(a, "--report")) {
            o->report = 1;
        } else if (!strcmp(a, "--no-pinned-pool")) {
            o->tune.pinned_pool = 0;
        } else if (!strcmp(a, "--no-overlap")) {
            o->tune.overlap = 0;
        } else if (!strcmp(a, "--naive-blocks")) {
            o->tune.tuned_blocks = 0;
        } else if (!strcmp(a, "--fuse-levels")) {
            size_t n;
            NEED_VALUE();
            if (cli_parse_size(argv[++i], &n) || n > 256) {
                fprintf(stderr, "lwt %s: --fuse-levels needs 0 (automatic) .. 256\n", name);
                return -1;
            }
            o->tune.fuse_levels = (int)n;
        } else if (!strcmp(a, "--slow-worker")) { /* test option: I:FACTOR */
            NEED_VALUE();
            if (parse_pair(argv[++i], &o->slow_worker, &o->slowdown) || o->slowdown < 1) {
                fprintf(stderr, "lwt %s: --slow-worker needs INDEX:FACTOR with FACTOR >= 1\n", name);
                return -1;
            }
        } else if (!strcmp(a, "--fail-worker")) { /* test option: I:N */
            double n;
            NEED_VALUE();
            if (parse_pair(argv[++i], &o->fail_worker, &n) || n != floor(n)) {
                fprintf(stderr, "lwt %s: --fail-worker needs INDEX:N (fail on its N-th chunk)\n", name);
                return -1;
            }
            o->fail_after = (int)n;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "lwt %s: unknown option '%s'\n", name, a);
            return -1;
        } else {
            if (o->npaths == 2) {
                fprintf(stderr, "lwt %s: too many arguments ('%s')\n", name, a);
                return -1;
            }
            o->paths[o->npaths++] = a;
        }
    }
    return 0;
}

/* workers: the devices asked for (or every GPU when the backend allows),
 * then the CPU workers; a lone CPU worker when there is nothing else */
static int make_workers(stream_opts *o, lwt_context *ctx, const char *name)
{
    int ndev = lwt_context_device_count(ctx);
    lwt_stream_desc *d = &o->d;
    if (o->all_devices || (!o->ndevices && !o->cpu_workers && o->t.backend != LWT_BACKEND_CPU)) {
        if (o->all_devices && ndev == 0) {
            fprintf(stderr, "lwt %s: --devices all: no CUDA device found\n", name);
            return -1;
        }
        for (int k = 0; k < ndev && k < LWT_STREAM_MAX_WORKERS; k++)
            o->devices[o->ndevices++] = k;
    }
    if (o->t.backend == LWT_BACKEND_CUDA && ndev == 0) {
        fprintf(stderr, "lwt %s: --backend cuda: no CUDA device found\n", name);
        return -1;
    }
    for (int k = 0; k < o->ndevices; k++) {
        if (o->devices[k] >= ndev) {
            fprintf(stderr, "lwt %s: CUDA device %d does not exist (%d present)\n", name, o->devices[k], ndev);
            return -1;
        }
        lwt_stream_worker *w = &d->workers[d->nworkers++];
        memset(w, 0, sizeof *w);
        w->kind = LWT_WORKER_CUDA;
        w->device = o->devices[k];
    }
    int ncpu = o->cpu_workers ? o->cpu_workers : (d->nworkers ? 0 : 1);
    for (int k = 0; k < ncpu; k++) {
        if (d->nworkers == LWT_STREAM_MAX_WORKERS) {
            fprintf(stderr, "lwt %s: at most %d workers\n", name, LWT_STREAM_MAX_WORKERS);
            return -1;
        }
        lwt_stream_worker *w = &d->workers[d->nworkers++];
        memset(w, 0, sizeof *w);
        w->kind = LWT_WORKER_CPU;
        w->threads = o->t.threads;
    }
    if (o->slowdown > 0) {
        if (o->slow_worker >= d->nworkers) {
            fprintf(stderr, "lwt %s: --slow-worker %d: there are %d workers\n", name, o->slow_worker, d->nworkers);
            return -1;
        }
        o->tune.slowdown[o->slow_worker] = o->slowdown;
    }
    if (o->fail_after > 0) {
        if (o->fail_worker >= d->nworkers) {
            fprintf(stderr, "lwt %s: --fail-worker %d: there are %d workers\n", name, o->fail_worker, d->nworkers);
            return -1;
        }
        o->tune.fail_after[o->fail_worker] = o->fail_after;
    }
    return 0;
}

static void on_progress(void *user, double f)
{
    progress_update((cli_progress *)user, f, "transforming");
}

static void print_report(const lwt_stream_report *r, const lwt_stream_desc *d)
{
    fprintf(stderr, "lwt: streamed in %.3f s, %ld chunks, policy %s\n", r->seconds, r->total_chunks,
            lwt_balance_policy_name(d->balance));
    for (int w = 0; w < r->nworkers; w++) {
        char who[32];
        if (d->workers[w].kind == LWT_WORKER_CUDA)
            snprintf(who, sizeof who, "cuda %d", d->workers[w].device);
        else
            snprintf(who, sizeof who, "cpu");
        fprintf(stderr, "lwt:   worker %d (%s): %ld chunks, busy %.3f s, share %.3f%s\n", w, who, r->chunks[w],
                r->busy_s[w], r->share[w], r->failed[w] ? ", FAILED" : "");
    }
    if (r->bytes_h2d || r->bytes_d2h)
        fprintf(stderr, "lwt:   GPU: H2D %.3f s (%.2f GB for windows of %.2f GB), kernels %.3f s, D2H %.3f s (%.2f GB)\n",
                r->h2d_s, (double)r->bytes_h2d / 1e9, (double)r->bytes_windows / 1e9, r->kernel_s, r->d2h_s,
                (double)r->bytes_d2h / 1e9);
    if (r->levels_fused || r->levels_passes)
        fprintf(stderr, "lwt:   GPU: %ld chunk levels in one kernel each, %ld as separable passes\n", r->levels_fused,
                r->levels_passes);
}

int cmd_transform_stream(int argc, char **argv, int inverse)
{
    const char *name = inverse ? "inverse" : "forward";
    stream_opts o;
    memset(&o, 0, sizeof o);
    o.t.levels = LWT_LEVELS_MAX;
    o.t.mode = LWT_MODE_SYMMETRIC;
    o.d = lwt_stream_desc_default();
    o.tune = lwt_stream_tuning_default();
    if (parse(argc, argv, name, &o))
        return LWT_EXIT_USAGE;
    if (o.npaths != 2 || !o.t.wavelet) {
        fprintf(stderr, "lwt %s: needs -w WAVELET, IN and OUT.npy (see lwt --help)\n", name);
        return LWT_EXIT_USAGE;
    }
    if (!o.shape_nd && (inverse || o.raw)) {
        fprintf(stderr, "lwt %s: needs --shape D0[,D1[,D2]] (the shape of the %s)\n", name,
                inverse ? "signal" : "raw input");
        return LWT_EXIT_USAGE;
    }
    int rc = LWT_EXIT_RUNTIME;
    lwt_context *ctx = cli_context();
    if (!ctx)
        return LWT_EXIT_RUNTIME;
    lwt_wavelet *w = NULL;
    lwt_plan *plan = NULL;
    lwt_mapped in, out, scratch;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    memset(&scratch, 0, sizeof scratch);
    in.fd = out.fd = scratch.fd = -1;
    char err[512];
    cli_progress prog;
    lwt_context_set_threads(ctx, o.t.threads);
    if (lwt_wavelet_create(ctx, o.t.wavelet, &w) != LWT_OK) {
        rc = LWT_EXIT_USAGE;
        goto done;
    }
    if (make_workers(&o, ctx, name)) {
        rc = LWT_EXIT_USAGE;
        goto done;
    }
    lwt_plan_desc pd = lwt_plan_desc_default();
    pd.wavelet = w;
    pd.levels = o.t.levels;
    pd.mode = o.t.mode;
    pd.backend = LWT_BACKEND_CPU; /* the plan only describes the transform; workers run it */
    pd.algorithm = o.t.algorithm;
    if (!inverse && !o.raw) {
        if (lwt_map_npy_read(o.paths[0], &in, err, sizeof err)) {
            fprintf(stderr, "lwt: %s\n", err);
            goto done;
        }
        if (in.ndim < 1 || in.ndim > LWT_MAX_NDIM || in.count == 0) {
            fprintf(stderr, "lwt: %s: needs a non-empty 1-, 2- or 3-dimensional array\n", o.paths[0]);
            goto done;
        }
        pd.ndim = in.ndim;
        for (int k = 0; k < in.ndim; k++)
            pd.shape[k] = in.shape[k];
        pd.dtype = in.dtype;
    } else {
        pd.ndim = o.shape_nd;
        for (int k = 0; k < o.shape_nd; k++)
            pd.shape[k] = o.shape[k];
        pd.dtype = o.raw ? o.raw_dtype : LWT_F64;
        if (inverse && !o.raw) {
            /* dtype from the coefficient file */
            if (lwt_map_npy_read(o.paths[0], &in, err, sizeof err)) {
                fprintf(stderr, "lwt: %s\n", err);
                goto done;
            }
            pd.dtype = in.dtype;
        }
    }
    if (lwt_plan_create(ctx, &pd, &plan) != LWT_OK)
        goto done;
    lwt_plan_info info;
    lwt_plan_get_info(plan, &info);
    cli_warn_levels(o.t.levels, info.max_level);
    const size_t *in_shape = inverse ? info.packed_shape : info.shape;
    if (o.raw) {
        if (lwt_map_raw_read(o.paths[0], pd.dtype, pd.ndim, in_shape, 0, &in, err, sizeof err)) {
            fprintf(stderr, "lwt: %s\n", err);
            goto done;
        }
    } else if (inverse) {
        int ok = in.ndim == pd.ndim;
        for (int k = 0; ok && k < pd.ndim; k++)
            ok = in.shape[k] == in_shape[k];
        if (!ok) {
            fprintf(stderr, "lwt: %s: the coefficient array does not have the packed shape that --shape with %d "
                            "levels of %s needs\n", o.paths[0], info.levels, o.t.wavelet);
            goto done;
        }
    }
    if (!cli_all_finite(o.paths[0], in.dtype, in.data, in.count))
        goto done;
    const size_t *out_shape = inverse ? info.shape : info.packed_shape;
    if (lwt_map_npy_create(o.paths[1], pd.dtype, pd.ndim, out_shape, &out, err, sizeof err)) {
        fprintf(stderr, "lwt: %s\n", err);
        goto done;
    }
    size_t sbytes = 0;
    lwt_stream_scratch_size(plan, &sbytes);
    if (sbytes && lwt_map_scratch(sbytes, o.scratch_dir, &scratch, err, sizeof err)) {
        fprintf(stderr, "lwt: %s\n", err);
        goto done;
    }
    lwt_map_advise_sequential(&in);
    progress_init(&prog, 1);
    progress_file(&prog, 0, o.paths[0]);
    o.d.progress = on_progress;
    o.d.progress_user = &prog;
    lwt_stream_report rep;
    memset(&rep, 0, sizeof rep);
    lwt_streamer *streamer = NULL;
    lwt_status st = lwt_streamer_create_tuned(plan, &o.d, &o.tune, &streamer);
    if (st == LWT_OK)
        st = inverse ? lwt_streamer_inverse(streamer, in.data, out.data, sbytes ? scratch.data : NULL, &rep)
                     : lwt_streamer_forward(streamer, in.data, out.data, sbytes ? scratch.data : NULL, &rep);
    lwt_streamer_destroy(streamer);
    progress_clear(&prog);
    if (o.report)
        print_report(&rep, &o.d);
    if (st != LWT_OK)
        goto done; /* the message went through the log; the temporary output is removed below */
    if (lwt_map_commit(&out, err, sizeof err)) {
        fprintf(stderr, "lwt: %s\n", err);
        goto done;
    }
    rc = LWT_EXIT_OK;
done:
    lwt_map_close(&out);
    lwt_map_close(&in);
    lwt_map_close(&scratch);
    lwt_plan_destroy(plan);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    return rc;
}
