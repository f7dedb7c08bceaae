/*
 * lwt-bench (default): the transform table. For each size x wavelet x mode (x sliding-window
 * threads and strip width, x lifting variant classic / improved of the register kernel, when
 * swept): forward and inverse, the median of --reps warm runs through the harness (CUDA events
 * on device buffers; the CPU backend on host buffers in a build without CUDA), Gpixel/s, and the
 * ratio to a copy of the same input array measured in the same run (the floor: one read and one
 * write). --ndim 3 times N^3 volumes, --ndim 1 N rows of N samples (a batch of 1-D transforms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "harness.h"
#include "lwt_experimental.h"
#ifdef LWT_HAVE_CUDA
#include "lwt_cuda.h"
#define BENCH_BACKEND LWT_BACKEND_CUDA
#define BENCH_CLOCK "CUDA events"
#define BENCH_FLOOR "device copy"
#else
#define BENCH_BACKEND LWT_BACKEND_CPU
#define BENCH_CLOCK "monotonic clock"
#define BENCH_FLOOR "memcpy"
#endif

#define WARMUP 3

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = tok;
    return n;
}

/* one timed transform: a forward from a to b, or an inverse from b to a */
typedef struct transform_arg {
    const lwt_plan *plan;
    void *a, *b, *ws;
    int inverse;
} transform_arg;

static int transform_op(void *arg, void *stream)
{
    const transform_arg *t = arg;
#ifdef LWT_HAVE_CUDA
    return t->inverse ? lwt_inverse_device(t->plan, t->b, t->a, t->ws, stream)
                      : lwt_forward_device(t->plan, t->a, t->b, t->ws, stream);
#else
    (void)stream;
    return t->inverse ? lwt_inverse(t->plan, t->b, t->a, t->ws) : lwt_forward(t->plan, t->a, t->b, t->ws);
#endif
}

static size_t workspace_bytes(const lwt_plan *p, const lwt_plan_info *info)
{
    size_t bytes = info->workspace_bytes;
#ifdef LWT_HAVE_CUDA
    lwt_plan_device_workspace_size(p, &bytes);
#else
    (void)p;
#endif
    return bytes;
}

static const char *const lift_names[] = {"auto", "classic", "improved"};

static const bench_col cols[] = {
    {"wavelet", -8, 's', 0}, {"mode", -13, 's', 0}, {"size", 6, 'z', 0},   {"L", 3, 'd', 0},
    {"dir", -8, 's', 0},     {"thr", 5, 'd', 0},    {"cols", 5, 'd', 0},   {"lift", -8, 's', 0},
    {"ms", 10, 'f', 3},      {"copy_ms", 10, 'f', 3}, {"Gpix/s", 9, 'f', 2}, {"ratio", 7, 'f', 2}};
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))

/* the two rows (forward, inverse) of one case; BENCH_EXIT_USAGE for a bad name */
static int one_case(lwt_context *ctx, const bench_opts *o, const char *wname, const char *mname, size_t n,
                    const lwt_plan_tuning *k)
{
    lwt_mode mode;
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    void *stream = NULL;
    transform_arg t = {0};
    if (lwt_mode_from_name(mname, &mode) || lwt_wavelet_create(ctx, wname, &w))
        return BENCH_EXIT_USAGE;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = o->ndim;
    for (int i = 0; i < d.ndim; i++)
        d.shape[i] = n;
    d.batch = o->ndim == 1 ? n : o->batch > 0 ? (size_t)o->batch : 1;
    d.levels = o->levels;
    d.mode = mode;
    d.dtype = o->half == 1 ? LWT_F16 : o->half == 2 ? LWT_BF16 : o->f64 ? LWT_F64 : LWT_F32;
    d.backend = BENCH_BACKEND;
    d.algorithm = o->algorithm;
    int rc = BENCH_EXIT_RUNTIME;
    lwt_plan_info info;
    if (lwt_plan_create_tuned(ctx, &d, k, &p) || lwt_plan_get_info(p, &info))
        goto out;
    const size_t es = o->half ? 2 : o->f64 ? 8 : 4, items = d.batch; /* lwt_plan_info counts one batch item */
    const size_t in_bytes = items * info.input_count * es;
    t.plan = p;
    t.a = bench_alloc(in_bytes, 0x3c); /* non-zero data */
    t.b = bench_alloc(items * info.coeff_count * es, 0);
    t.ws = bench_alloc(workspace_bytes(p, &info), 0);
    double tc = 0, tf = 0, ti = 0;
    if (!t.a || !t.b || !t.ws || bench_stream_create(&stream) ||
        bench_copy_ms(t.b, t.a, in_bytes, stream, WARMUP, o->reps, &tc) ||
        bench_time_ms(transform_op, &t, stream, WARMUP, o->reps, &tf))
        goto out;
    t.inverse = 1;
    if (bench_time_ms(transform_op, &t, stream, WARMUP, o->reps, &ti))
        goto out;
    const double pix = (double)items * (double)info.input_count;
    for (int dir = 0; dir < 2; dir++) {
        const double ms = dir ? ti : tf;
        bench_table_row(cols, NCOLS, wname, mname, n, info.levels, dir ? "inverse" : "forward", k->lbb_threads,
                        k->lbb_cols, lift_names[k->lifting], ms, tc, pix / (ms * 1e-3) / 1e9, ms / tc);
    }
    rc = BENCH_EXIT_OK;
out:
    if (rc)
        fprintf(stderr, "lwt-bench: %s %s %zu: the timed run failed\n", wname, mname, n);
    bench_free(t.a);
    bench_free(t.b);
    bench_free(t.ws);
    bench_stream_destroy(stream);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    return rc;
}

int bench_transform(lwt_context *ctx, const bench_opts *o)
{
    bench_opts c = *o; /* split() cuts the lists in place */
    char *wv[32], *mv[16], *sv[16], *tv[16], *cv[16], *lv[4];
    const int nw = split(c.wavelets, wv, 32), nm = split(c.modes, mv, 16), ns = split(c.sizes, sv, 16),
              nth = split(c.lbb_threads, tv, 16), ncl = split(c.lbb_cols, cv, 16), nli = split(c.lifting, lv, 4);
    lwt_lifting_variant lifts[4];
    for (int i = 0; i < nli; i++) {
        if (!strcmp(lv[i], "auto")) lifts[i] = LWT_LIFT_AUTO;
        else if (!strcmp(lv[i], "classic")) lifts[i] = LWT_LIFT_CLASSIC;
        else if (!strcmp(lv[i], "improved")) lifts[i] = LWT_LIFT_IMPROVED;
        else {
            fprintf(stderr, "lwt-bench: --lifting takes auto, classic, improved (got '%s')\n", lv[i]);
            return BENCH_EXIT_USAGE;
        }
    }
    char dev[256];
    bench_device_name(dev, sizeof dev);
    printf("lwt bench on %s, %s, %d-D%s, algorithm %s%s%s%s, median of %d runs (" BENCH_CLOCK "), ratio = time / "
           BENCH_FLOOR " time; thr/cols: LBB threads per block and ring width (0: the planner's); lift: lifting "
           "variant\n",
           dev, o->half == 1 ? "float16" : o->half == 2 ? "bfloat16" : o->f64 ? "float64" : "float32", o->ndim, o->ndim == 1 ? " (N rows of N)" : "",
           o->algorithm == LWT_ALGO_CONVOLUTION        ? "convolution (filter bank)"
           : o->algorithm == LWT_ALGO_LIFTING_RC       ? "rc"
           : o->algorithm == LWT_ALGO_LIFTING_LBB      ? "lbb"
           : o->algorithm == LWT_ALGO_LIFTING_RC_STEPS ? "rc-steps"
                                                       : "auto",
           o->fuse_levels == 1 ? ", one level per pass" : o->volume_pass == 1 ? ", 3-D levels in one pass" : "",
           o->cpu_simd == LWT_SIMD_PORTABLE ? ", portable CPU passes"
           : o->cpu_simd == LWT_SIMD_AVX2   ? ", AVX2 CPU passes"
           : o->cpu_simd == LWT_SIMD_AVX512 ? ", AVX-512 CPU passes"
                                            : "",
           o->cpu_passes ? ", CPU separable passes" : "", o->reps);
    bench_table_header(cols, NCOLS);
    int rc = BENCH_EXIT_OK;
    for (int si = 0; si < ns; si++)
        for (int wi = 0; wi < nw; wi++)
            for (int mi = 0; mi < nm; mi++)
                for (int tci = 0; tci < nth * ncl * nli; tci++) {
                    lwt_plan_tuning k = lwt_plan_tuning_default();
                    k.lbb_threads = atoi(tv[tci / (ncl * nli)]);
                    k.lbb_cols = atoi(cv[tci / nli % ncl]);
                    k.lifting = lifts[tci % nli];
                    k.fuse_levels = o->fuse_levels;
                    k.cpu_simd = (lwt_cpu_simd)o->cpu_simd;
                    k.cpu_passes = o->cpu_passes;
                    k.batch_items = o->batch_items;
                    k.volume_pass = o->volume_pass;
                    const int r = one_case(ctx, o, wv[wi], mv[mi], strtoull(sv[si], NULL, 10), &k);
                    if (r)
                        rc = r;
                }
    return rc;
}
