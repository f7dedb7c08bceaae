/*
 * Streamed execution (include/lwt_stream.h) on CPU workers is bit-identical
 * to the in-memory transform: every wavelet, every mode, 1-D/2-D/3-D, odd
 * sizes, levels up to past the maximum, chunk sizes down to one row (hundreds
 * of seams), one level per pass or several fused, float32 and float64, forward and inverse, several workers under
 * every policy, a failing worker and a slowed one; a streamer's workers reused
 * over several calls. float16 and bfloat16 plans (their float32 plan streamed, the caller's
 * arrays in 16 bits) against the in-memory 16-bit plan, bit for bit, with values that round
 * and values at the ends of float16's range.
 * LWT_QUICK=1 runs a subset (sanitizer builds), LWT_QUICK=2 a smaller one still (the ThreadSanitizer
 * build, make test-tsan: every thread path with fewer wavelets). Random data from a fixed seed
 * (LWT_SEED overrides; the seed is printed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/half.h"
#include "lwt.h"
#include "stream_setup.h"

static uint64_t rng;

static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static lwt_context *ctx;
static long cases;

typedef struct scase {
    const char *wavelet;
    lwt_mode mode;
    int ndim;
    size_t shape[3];
    int levels;
    lwt_dtype dtype;
} scase;

/* Element i of a random input. 16-bit: random values of a few magnitudes rounded to the type,
   and every 7th one from the edges of float16's range (near its largest finite value, which
   sums overflow into inf, its smallest normal and subnormals, which products round away), so
   that the coefficients round in every way and some overflow. */
static void fill_value(lwt_dtype t, char *x, size_t i)
{
    static const float edge[] = {65504.0f, -65000.0f, 6.1035156e-5f, -5.9604645e-8f, 3.1e-6f, 40000.0f, -1e-7f};
    double v = urand();
    if (t == LWT_F64) {
        ((double *)x)[i] = v;
        return;
    }
    if (t == LWT_F32) {
        ((float *)x)[i] = (float)v;
        return;
    }
    float f = (float)(v * (i % 3 == 0 ? 1000.0 : i % 3 == 1 ? 1.0 : 0.01));
    if (i % 7 == 3)
        f = edge[(i / 7) % (sizeof edge / sizeof *edge)];
    ((uint16_t *)x)[i] = t == LWT_F16 ? lwt_f32_to_f16(f) : lwt_f32_to_bf16(f);
}

/* forward and inverse of one case, in memory and streamed: equal bits. With the default tuning
   through the one-shot calls, else through a tuned streamer. */
static lwt_status stream_both(const lwt_plan *p, const stream_setup *su, const void *in, void *out,
                              lwt_stream_report *rep, int inverse)
{
    const lwt_stream_tuning def = lwt_stream_tuning_default();
    if (!memcmp(&def, &su->t, sizeof def))
        return inverse ? lwt_stream_inverse(p, &su->d, in, out, NULL, rep) : lwt_stream_forward(p, &su->d, in, out, NULL, rep);
    return stream_tuned_call(p, su, in, out, rep, inverse);
}

static void run_case(const scase *c, const stream_setup *su, const char *what)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    if (lwt_wavelet_create(ctx, c->wavelet, &w)) {
        CHECK(0, "wavelet %s", c->wavelet);
        return;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = c->ndim;
    for (int k = 0; k < c->ndim; k++)
        d.shape[k] = c->shape[k];
    d.levels = c->levels;
    d.mode = c->mode;
    d.dtype = c->dtype;
    d.backend = LWT_BACKEND_CPU;
    if (lwt_plan_create(ctx, &d, &p)) {
        lwt_wavelet_destroy(w);
        return; /* e.g. reflect on a length-1 level: refused in memory too */
    }
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    const size_t es = elem_size(c->dtype);
    char *x = malloc(info.input_count * es), *c1 = malloc(info.coeff_count * es), *c2 = malloc(info.coeff_count * es);
    char *y1 = malloc(info.input_count * es), *y2 = malloc(info.input_count * es);
    for (size_t i = 0; i < info.input_count; i++)
        fill_value(c->dtype, x, i);
    memset(c2, 0x5a, info.coeff_count * es); /* gaps must be zeroed by the stream */
    lwt_stream_report rep;
    CHECK(lwt_forward(p, x, c1, NULL) == LWT_OK, "in-memory forward");
    lwt_status st = stream_both(p, su, x, c2, &rep, 0);
    CHECK(st == LWT_OK, "%s: stream forward failed (%s)", what, lwt_status_string(st));
    CHECK(!memcmp(c1, c2, info.coeff_count * es),
          "%s: forward %s %s %dD %zux%zux%zu L%d %s: streamed != in memory", what, c->wavelet, lwt_mode_name(c->mode),
          c->ndim, c->shape[0], c->shape[1], c->shape[2], c->levels, dtype_name(c->dtype));
    CHECK(lwt_inverse(p, c1, y1, NULL) == LWT_OK, "in-memory inverse");
    st = stream_both(p, su, c1, y2, &rep, 1);
    CHECK(st == LWT_OK, "%s: stream inverse failed (%s)", what, lwt_status_string(st));
    CHECK(!memcmp(y1, y2, info.input_count * es),
          "%s: inverse %s %s %dD %zux%zux%zu L%d %s: streamed != in memory", what, c->wavelet, lwt_mode_name(c->mode),
          c->ndim, c->shape[0], c->shape[1], c->shape[2], c->levels, dtype_name(c->dtype));
    cases++;
    free(x);
    free(c1);
    free(c2);
    free(y1);
    free(y2);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static stream_setup cpu_desc(int nworkers, size_t chunk_rows, lwt_balance_policy b)
{
    stream_setup su;
    su.d = lwt_stream_desc_default();
    su.t = lwt_stream_tuning_default();
    su.d.chunk_rows = chunk_rows;
    su.d.nworkers = nworkers;
    su.d.balance = b;
    su.t.fuse_levels = (int)(chunk_rows % 3); /* automatic, one level per pass, or two */
    for (int k = 0; k < nworkers; k++) {
        su.d.workers[k].kind = LWT_WORKER_CPU;
        su.d.workers[k].threads = 1;
    }
    return su;
}

/* every wavelet x every mode, 1-D, 2-D and 3-D, tiny chunks */
static void sweep_wavelets(int quick)
{
    /* LWT_QUICK=2: short filters of each family (the long ones cost seconds under TSan, and
       the threads do the same for every wavelet) */
    static const char *const few[] = {"haar", "db3", "sym4", "coif1", "bior2.4", "rbio3.3"};
    const int nw = quick > 1 ? (int)(sizeof few / sizeof *few) : lwt_wavelet_catalog_count();
    for (int i = 0; i < nw; i += quick == 1 ? 9 : 1) {
        const char *name = quick > 1 ? few[i] : lwt_wavelet_catalog_name(i);
        for (int m = 0; m < LWT_MODE_COUNT; m++) {
            const int v = i * LWT_MODE_COUNT + m;
            scase c = {name, (lwt_mode)m, 1, {61 + (size_t)(v % 7), 1, 1}, 1 + v % 4, v % 2 ? LWT_F32 : LWT_F64};
            stream_setup d = cpu_desc(1, 1 + (size_t)(v % 3), LWT_BALANCE_POLICY_QUEUE);
            run_case(&c, &d, "1-D");
            scase c2 = {name, (lwt_mode)m, 2, {23 + (size_t)(v % 5), 9 + (size_t)(v % 4), 1}, 1 + v % 3,
                        v % 3 ? LWT_F64 : LWT_F32};
            d = cpu_desc(1 + v % 2, 2 + (size_t)(v % 4), (lwt_balance_policy)(v % 4));
            run_case(&c2, &d, "2-D");
            if (v % 5 == 0) {
                scase c3 = {name, (lwt_mode)m, 3, {13 + (size_t)(v % 3), 6, 5 + (size_t)(v % 2)}, 1 + v % 2,
                            LWT_F64};
                d = cpu_desc(2, 3, LWT_BALANCE_POLICY_QUEUE);
                run_case(&c3, &d, "3-D");
            }
        }
    }
}

/* long signals, many levels, many seams */
static void many_seams(int quick)
{
    const char *ws[] = {"cdf97", "db4", "haar", "sym8", "coif3", "bior6.8", "db20"};
    const lwt_mode ms[] = {LWT_MODE_PERIODIZATION, LWT_MODE_SYMMETRIC, LWT_MODE_SMOOTH, LWT_MODE_ANTIREFLECT,
                           LWT_MODE_PERIODIC, LWT_MODE_ZERO};
    for (size_t a = 0; a < sizeof ws / sizeof *ws; a += quick > 1 ? 2 : 1)
        for (size_t b = 0; b < sizeof ms / sizeof *ms; b += quick > 1 ? 3 : quick ? 2 : 1) {
            scase c = {ws[a], ms[b], 2, {257 + a * 13, 37, 1}, 4 + (int)(a % 3), a % 2 ? LWT_F32 : LWT_F64};
            size_t rows[] = {1, 2, 7, 64};
            for (int r = 0; r < 4; r++) {
                stream_setup d = cpu_desc(1 + r % 3, rows[r], (lwt_balance_policy)(r % 4));
                run_case(&c, &d, "seams");
            }
            scase c1 = {ws[a], ms[b], 1, {1000 + a * 77, 1, 1}, -1, LWT_F64}; /* max levels */
            c1.levels = LWT_LEVELS_MAX;
            stream_setup d = cpu_desc(3, 5, LWT_BALANCE_POLICY_FNN);
            run_case(&c1, &d, "1-D max levels");
        }
    /* batch of two, beyond the maximum level */
    scase c = {"db3", LWT_MODE_REFLECT, 2, {40, 33, 1}, 6, LWT_F64};
    stream_setup d = cpu_desc(2, 4, LWT_BALANCE_POLICY_STATIC);
    run_case(&c, &d, "beyond max level");
}

/* float16 and bfloat16: short and long wavelets, several modes, 1-D, 2-D and 3-D of odd
   sizes, 1-3 levels, one level per pass (the approximations through the float32 scratch) or
   fused, chunks of 1-5 rows, one or two workers of one or two threads */
static void sweep_half(int quick)
{
    static const char *const ws[] = {"haar", "db2", "bior4.4", "db10", "sym5", "coif2"};
    static const lwt_mode ms[] = {LWT_MODE_PERIODIZATION, LWT_MODE_SYMMETRIC, LWT_MODE_ZERO, LWT_MODE_SMOOTH,
                                  LWT_MODE_REFLECT, LWT_MODE_PERIODIC, LWT_MODE_ANTISYMMETRIC};
    const size_t shapes[3][3] = {{77, 1, 1}, {23, 19, 1}, {11, 9, 7}};
    for (int t = 0; t < 2; t++)
        for (int a = 0; a < 6; a += quick > 1 ? 2 : 1)
            for (int nd = 1; nd <= 3; nd++) {
                const int v = t * 18 + a * 3 + nd;
                scase c = {ws[a], ms[v % 7], nd, {shapes[nd - 1][0], shapes[nd - 1][1], shapes[nd - 1][2]},
                           1 + v % 3, t ? LWT_BF16 : LWT_F16};
                stream_setup d = cpu_desc(1 + v % 2, 1 + (size_t)(v % 5), LWT_BALANCE_POLICY_QUEUE);
                d.d.workers[0].threads = 1 + v % 2;
                run_case(&c, &d, "16-bit");
            }
}

static lwt_plan *plan_1d(const char *wavelet, size_t n, int levels, lwt_dtype dt, size_t batch)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    if (lwt_wavelet_create(ctx, wavelet, &w))
        return NULL;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.shape[0] = n;
    d.levels = levels;
    d.mode = LWT_MODE_PERIODIZATION;
    d.dtype = dt;
    d.batch = batch;
    d.backend = LWT_BACKEND_CPU;
    lwt_plan_create(ctx, &d, &p);
    lwt_wavelet_destroy(w);
    return p;
}

/* What the 16-bit sweep's bit equality rules out: the approximation between levels rounded to
   16 bits (two one-level plans in a row) gives other coarse bands than the streamed two-level
   plan, here one level per pass (through the scratch). And the scratch a 16-bit plan asks for
   is the float32 plan's (a caller's buffer of exactly that size, batches of two). */
static void half_between_levels(void)
{
    for (int t = 0; t < 2; t++) {
        const lwt_dtype dt = t ? LWT_BF16 : LWT_F16;
        const size_t n = 64, B = 2;
        lwt_plan *p2 = plan_1d("db2", n, 2, dt, B), *p1 = plan_1d("db2", n, 1, dt, 1);
        lwt_plan *p1h = plan_1d("db2", n / 2, 1, dt, 1), *q = plan_1d("db2", n, 2, LWT_F32, B);
        CHECK(p2 && p1 && p1h && q, "%s plans", dtype_name(dt));
        if (!p2 || !p1 || !p1h || !q)
            return;
        uint16_t x[2 * 64], got[2 * 64], mem[2 * 64], one[64], ref[64];
        for (size_t i = 0; i < B * n; i++)
            fill_value(dt, (char *)x, i);
        size_t bytes = 0, bytes32 = 1;
        CHECK(lwt_stream_scratch_size(p2, &bytes) == LWT_OK && lwt_stream_scratch_size(q, &bytes32) == LWT_OK &&
                  bytes == bytes32 && bytes > 0,
              "%s: scratch %zu bytes, the float32 plan's %zu", dtype_name(dt), bytes, bytes32);
        void *scratch = malloc(bytes);
        stream_setup su = cpu_desc(1, 1, LWT_BALANCE_POLICY_QUEUE); /* one level per pass */
        CHECK(stream_tuned_call_scratch(p2, &su, x, got, scratch, NULL, 0) == LWT_OK, "%s: streamed forward", dtype_name(dt));
        CHECK(lwt_forward(p2, x, mem, NULL) == LWT_OK && !memcmp(got, mem, sizeof got),
              "%s: streamed forward with a caller's scratch != in memory", dtype_name(dt));
        /* rounded between the levels: level 1, then level 1 of its rounded approximation */
        CHECK(lwt_forward(p1, x, one, NULL) == LWT_OK && lwt_forward(p1h, one, ref, NULL) == LWT_OK, "one level");
        memcpy(ref + n / 2, one + n / 2, n / 2 * sizeof *ref);
        CHECK(!memcmp(ref + n / 2, got + n / 2, n / 2 * sizeof *ref), "%s: finest details differ", dtype_name(dt));
        CHECK(memcmp(ref, got, n / 2 * sizeof *ref), "%s: rounding the approximation between levels changed no bit "
              "of the coarse bands: the data cannot tell", dtype_name(dt));
        CHECK(stream_tuned_call_scratch(p2, &su, mem, got, scratch, NULL, 1) == LWT_OK, "%s: streamed inverse",
              dtype_name(dt));
        CHECK(lwt_inverse(p2, mem, x, NULL) == LWT_OK && !memcmp(got, x, sizeof got),
              "%s: streamed inverse with a caller's scratch != in memory", dtype_name(dt));
        /* no level: widened and rounded back as in memory, which quiets a signalling NaN */
        lwt_plan *p0 = plan_1d("db2", 4, 0, dt, 1);
        const uint16_t snan[4] = {t ? 0x7f81 : 0x7d00, 1, 0x8001, t ? 0x7f80 : 0x7c00};
        uint16_t s0[4], m0[4];
        CHECK(p0 && stream_tuned_call_scratch(p0, &su, snan, s0, NULL, NULL, 0) == LWT_OK &&
                  lwt_forward(p0, snan, m0, NULL) == LWT_OK && !memcmp(s0, m0, sizeof s0) && s0[0] != snan[0],
              "%s: 0 levels: streamed %04x, in memory %04x, input %04x", dtype_name(dt), s0[0], m0[0], snan[0]);
        lwt_plan_destroy(p0);
        cases += 3;
        free(scratch);
        lwt_plan_destroy(p2);
        lwt_plan_destroy(p1);
        lwt_plan_destroy(p1h);
        lwt_plan_destroy(q);
    }
}

/* a worker that fails, one that is slow, every worker failing */
static void faults(void)
{
    const lwt_balance_policy pol[] = {LWT_BALANCE_POLICY_STATIC, LWT_BALANCE_POLICY_WEIGHTED,
                                      LWT_BALANCE_POLICY_QUEUE, LWT_BALANCE_POLICY_FNN};
    scase c = {"cdf97", LWT_MODE_SYMMETRIC, 2, {200, 31, 1}, 3, LWT_F32};
    for (int k = 0; k < 4; k++) {
        stream_setup d = cpu_desc(3, 4, pol[k]);
        d.t.fail_after[1] = 3;
        run_case(&c, &d, "worker 1 fails");
        d.t.fail_after[1] = 0;
        d.t.slowdown[2] = 3.0;
        run_case(&c, &d, "worker 2 slowed");
    }
    /* all fail: a clean error, never a hang */
    lwt_wavelet *w;
    lwt_plan *p;
    lwt_wavelet_create(ctx, "db2", &w);
    lwt_plan_desc pd = lwt_plan_desc_default();
    pd.wavelet = w;
    pd.ndim = 2;
    pd.shape[0] = 64;
    pd.shape[1] = 8;
    pd.levels = 2;
    pd.backend = LWT_BACKEND_CPU;
    lwt_plan_create(ctx, &pd, &p);
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    double *x = calloc(info.input_count, sizeof *x), *y = calloc(info.coeff_count, sizeof *y);
    stream_setup d = cpu_desc(2, 2, LWT_BALANCE_POLICY_QUEUE);
    d.t.fail_after[0] = 1;
    d.t.fail_after[1] = 2;
    lwt_stream_report rep;
    lwt_status st = stream_both(p, &d, x, y, &rep, 0);
    CHECK(st == LWT_ERR_DEVICE, "every worker failing: status %d (%s), expected a device error", (int)st,
          lwt_status_string(st));
    CHECK(rep.failed[0] && rep.failed[1], "both workers reported failed");
    /* bad descriptions */
    lwt_stream_desc bad = lwt_stream_desc_default();
    bad.balance = (lwt_balance_policy)9;
    CHECK(lwt_stream_forward(p, &bad, x, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "unknown policy refused");
    bad = lwt_stream_desc_default();
    bad.nworkers = 1;
    bad.workers[0].kind = (lwt_worker_kind)7;
    CHECK(lwt_stream_forward(p, &bad, x, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "unknown worker kind refused");
    bad.nworkers = LWT_STREAM_MAX_WORKERS + 1;
    CHECK(lwt_stream_forward(p, &bad, x, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "too many workers refused");
    /* the struct's version: zero (not from lwt_stream_desc_default) or larger than this library
       knows is refused */
    bad = lwt_stream_desc_default();
    bad.size = 0;
    CHECK(lwt_stream_forward(p, &bad, x, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "desc.size 0 refused");
    bad.size = sizeof bad + 8;
    CHECK(lwt_stream_forward(p, &bad, x, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "desc.size too large refused");
    /* bad tuning */
    lwt_streamer *sr = NULL;
    d = cpu_desc(1, 2, LWT_BALANCE_POLICY_QUEUE);
    d.t.streams = 9;
    CHECK(lwt_streamer_create_tuned(p, &d.d, &d.t, &sr) == LWT_ERR_INVALID_ARGUMENT && !sr, "9 streams refused");
    d = cpu_desc(1, 2, LWT_BALANCE_POLICY_QUEUE);
    d.t.slowdown[3] = 0.5;
    CHECK(lwt_streamer_create_tuned(p, &d.d, &d.t, &sr) == LWT_ERR_INVALID_ARGUMENT && !sr, "slowdown 0.5 refused");
    d.t.slowdown[3] = 0;
    d.t.fail_after[0] = -1;
    CHECK(lwt_streamer_create_tuned(p, &d.d, &d.t, &sr) == LWT_ERR_INVALID_ARGUMENT && !sr, "fail_after -1 refused");
    CHECK(lwt_stream_forward(p, NULL, NULL, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "NULL input refused");
    size_t sb = 0;
    CHECK(lwt_stream_scratch_size(p, &sb) == LWT_OK && sb == 2 * 33 * 5 * 8, "scratch size %zu (two areas of a_1, 33x5 doubles)",
          sb);
    free(x);
    free(y);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

/* A streamer's workers serve several calls: forward of two inputs and their inverses, each equal
 * to the in-memory result; a worker that fails in the first call stays retired and the others
 * finish the second; once none is left a call fails cleanly. */
static void streamer_reuse(void)
{
    lwt_wavelet *w;
    lwt_plan *p;
    lwt_wavelet_create(ctx, "bior3.5", &w);
    lwt_plan_desc pd = lwt_plan_desc_default();
    pd.wavelet = w;
    pd.ndim = 2;
    pd.shape[0] = 157;
    pd.shape[1] = 43;
    pd.levels = 3;
    pd.mode = LWT_MODE_REFLECT;
    pd.backend = LWT_BACKEND_CPU;
    lwt_plan_create(ctx, &pd, &p);
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    const size_t ni = info.input_count, nc = info.coeff_count;
    double *x = malloc(2 * ni * sizeof *x), *ref = malloc(2 * nc * sizeof *ref), *back = malloc(2 * ni * sizeof *back);
    double *y = malloc(nc * sizeof *y), *z = malloc(ni * sizeof *z);
    for (size_t i = 0; i < 2 * ni; i++)
        x[i] = urand();
    for (int k = 0; k < 2; k++) {
        lwt_forward(p, x + k * ni, ref + k * nc, NULL);
        lwt_inverse(p, ref + k * nc, back + k * ni, NULL);
    }
    /* static: worker 1 runs its own share one chunk at a time, so it finishes exactly one chunk
       and fails on its second whatever the timing (a dynamic policy may give it none) */
    stream_setup d = cpu_desc(3, 6, LWT_BALANCE_POLICY_STATIC);
    d.t.fail_after[1] = 2;
    lwt_streamer *s;
    CHECK(lwt_streamer_create_tuned(p, &d.d, &d.t, &s) == LWT_OK, "streamer made");
    lwt_stream_report rep;
    for (int k = 0; k < 2; k++) {
        CHECK(lwt_streamer_forward(s, x + k * ni, y, NULL, &rep) == LWT_OK &&
                  !memcmp(y, ref + k * nc, nc * sizeof *y),
              "streamer call %d: forward equals the in-memory one", 2 * k + 1);
        CHECK(rep.failed[1] && !rep.failed[0] && !rep.failed[2] && rep.chunks[1] == (k == 0 ? 1 : 0),
              "call %d: worker 1 failed on its 2nd chunk and stays retired (%ld chunks)", 2 * k + 1, rep.chunks[1]);
        CHECK(lwt_streamer_inverse(s, ref + k * nc, z, NULL, &rep) == LWT_OK &&
                  !memcmp(z, back + k * ni, ni * sizeof *z),
              "streamer call %d: inverse equals the in-memory one", 2 * k + 2);
        cases += 2;
    }
    lwt_streamer_destroy(s);
    /* every worker gone in the first call: the second fails at once, with a clear status */
    d = cpu_desc(1, 6, LWT_BALANCE_POLICY_QUEUE);
    d.t.fail_after[0] = 2;
    CHECK(lwt_streamer_create_tuned(p, &d.d, &d.t, &s) == LWT_OK, "streamer made");
    CHECK(lwt_streamer_forward(s, x, y, NULL, NULL) == LWT_ERR_DEVICE, "its only worker fails");
    CHECK(lwt_streamer_forward(s, x, y, NULL, &rep) == LWT_ERR_DEVICE && rep.failed[0] == 1,
          "the next call is refused (none left)");
    lwt_streamer_destroy(s);
    lwt_streamer_destroy(NULL);
    CHECK(lwt_streamer_create(p, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "NULL out refused");
    CHECK(lwt_streamer_forward(NULL, x, y, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "NULL streamer refused");
    free(x);
    free(ref);
    free(back);
    free(y);
    free(z);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static void quiet(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    (void)level;
    (void)msg;
}

int main(void)
{
    const char *q = getenv("LWT_QUICK");
    const int quick = q && *q ? atoi(q) : 0;
    const char *s = getenv("LWT_SEED");
    rng = s ? strtoull(s, NULL, 0) : 0x9e3779b97f4a7c15ull;
    if (!rng)
        rng = 1;
    printf("test_stream: seed 0x%llx%s\n", (unsigned long long)rng, quick ? " (quick)" : "");
    lwt_context_create(&ctx);
    lwt_context_set_log(ctx, quiet, NULL);
    lwt_context_set_threads(ctx, 1);
    sweep_wavelets(quick);
    many_seams(quick);
    sweep_half(quick);
    half_between_levels();
    faults();
    streamer_reuse();
    printf("test_stream: %ld streamed cases compared bit for bit\n", cases);
    lwt_context_destroy(ctx);
    return finish("test_stream");
}
