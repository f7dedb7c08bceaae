/*
 * float16 and bfloat16 plans (docs/API.md, "16-bit storage").
 *
 * The conversions of core/half.h against this test's own, written another way (frexp, ldexp
 * and nearbyint in double, not bit manipulation): all 65536 values of each type widened, every
 * midpoint between neighbours (ties to even) and its float neighbours, random float32 values,
 * overflow, NaN, signed zero, subnormals.
 *
 * Plans: a 16-bit plan's forward and inverse against "the 16-bit input widened, the float32
 * plan of the same description, each result rounded" computed here with this test's own
 * conversions, bit for bit, for many wavelets, every mode, 1-3-D, odd and even sizes, 1-3
 * levels, batches, the convolution path, a caller's workspace and the plan's own.
 *
 *   test_half          the CPU backend
 *   test_half --cuda   the CUDA backend (host pointers; exits 77 without a device)
 * On both, 2-D plans that must run fused 16-bit levels (the driver's lwt_driver_run_half: the
 * CPU's fused sweep converting its rows, the GPU's kernels with their arrays sent in 16 bits),
 * and on the CPU 1-D and 3-D ones (the line and column kernels converting their rows), besides
 * the cases above, which mix fused and converted plans.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/half.h"
#include "core/plan.h" /* lwt_half_widen, lwt_half_narrow: the array conversions */
#include "half_ref.h"
#include "lwt.h"

static uint16_t lib_narrow(const fmt *f, float v)
{
    return f->dt == LWT_F16 ? lwt_f32_to_f16(v) : lwt_f32_to_bf16(v);
}

static float lib_widen(const fmt *f, uint16_t b)
{
    return f->dt == LWT_F16 ? lwt_f16_to_f32(b) : lwt_bf16_to_f32(b);
}

/* what the library must give for float32 v: NaN stays NaN (any payload), else the reference */
static int narrow_ok(const fmt *f, float v)
{
    const uint16_t got = lib_narrow(f, v);
    if (isnan(v))
        return isnan(ref_decode(f, got)) && (got >> 15) == (signbit(v) ? 1 : 0);
    return got == ref_encode(f, ref_round(f, v));
}

static void test_conversions(const fmt *f)
{
    int bad_widen = 0, bad_narrow = 0, bad_tie = 0;
    for (uint32_t b = 0; b < 65536; b++) {
        const double r = ref_decode(f, (uint16_t)b);
        const float w = lib_widen(f, (uint16_t)b);
        if (isnan(r) ? !isnan(w) : ((double)w != r || !signbit(w) != !signbit(r)))
            bad_widen++;
        if (!isnan(r) && (lib_narrow(f, w) != b || ref_encode(f, r) != b))
            bad_narrow++;
        if (isnan(r) || isinf(r))
            continue;
        /* the midpoint to the next value up in magnitude (the largest finite: to 2^(bias+1)),
           exact in float32, and its two float32 neighbours */
        const double next = (b & 0x7fff) == (uint32_t)(((1 << f->ebits) - 1) << f->mant) - 1
                                ? copysign(ldexp(1.0, bias(f) + 1), r)
                                : ref_decode(f, (uint16_t)(b + 1));
        const float mid = (float)((r + next) / 2);
        if ((double)mid != (r + next) / 2) {
            bad_tie++;
            continue;
        }
        const uint16_t even = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;
        const int to_inf = isinf(ref_round(f, mid));
        if (!to_inf && lib_narrow(f, mid) != even)
            bad_tie++;
        if (!narrow_ok(f, mid) || !narrow_ok(f, nextafterf(mid, 0.0f)) || !narrow_ok(f, nextafterf(mid, 2 * mid)))
            bad_tie++;
    }
    CHECK(bad_widen == 0, "%s: %d of 65536 values widen wrongly", f->name, bad_widen);
    CHECK(bad_narrow == 0, "%s: %d of 65536 values do not round-trip", f->name, bad_narrow);
    CHECK(bad_tie == 0, "%s: %d midpoints (ties to even) or their neighbours round wrongly", f->name, bad_tie);
    /* random float32 bit patterns: every exponent, NaNs, infinities, float32 subnormals */
    uint64_t s = 0x9e3779b97f4a7c15ull;
    int bad_rand = 0;
    for (int i = 0; i < 1 << 21; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t u = (uint32_t)(s >> 32);
        float v;
        memcpy(&v, &u, sizeof v);
        bad_rand += !narrow_ok(f, v);
    }
    CHECK(bad_rand == 0, "%s: %d of 2^21 random float32 values round wrongly", f->name, bad_rand);
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 65504.0f, 65519.99f, 65520.0f,
                             -65520.0f, 1e-8f, 2.9802322e-8f, 3e-8f, 5.9604645e-8f, 6.1035156e-5f, 3.4028235e38f,
                             1e-45f, 1.1754942e-38f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        CHECK(narrow_ok(f, special[i]), "%s: %g rounds to 0x%04x", f->name, special[i], lib_narrow(f, special[i]));
    if (f->dt == LWT_F16) { /* the IEEE facts, stated apart from the reference */
        CHECK(lwt_f32_to_f16(65520.0f) == 0x7c00 && lwt_f32_to_f16(65519.99f) == 0x7bff, "float16 overflow");
        CHECK(lwt_f32_to_f16(2.9802322e-8f) == 0 && lwt_f32_to_f16(3e-8f) == 1, "float16 smallest subnormal");
        CHECK(lwt_f32_to_f16(1.00048828125f) == 0x3c00 && lwt_f32_to_f16(1.00146484375f) == 0x3c02,
              "float16 ties to even at 1");
    } else {
        CHECK(lwt_f32_to_bf16(1.00390625f) == 0x3f80 && lwt_f32_to_bf16(1.01171875f) == 0x3f82,
              "bfloat16 ties to even at 1");
        CHECK(lwt_f32_to_bf16(3.4028235e38f) == 0x7f80, "bfloat16 overflow");
    }
}

/* ------------------------------------------------------------------ plans */

static lwt_backend backend = LWT_BACKEND_CPU;
static lwt_context *ctx;
static int batch_items; /* lwt_plan_tuning.batch_items of the plans made here */

static lwt_plan *plan(const lwt_wavelet *w, int nd, const size_t *shape, int levels, lwt_mode mode, lwt_dtype dt,
                      size_t batch, lwt_algorithm algo)
{
    return half_test_plan(ctx, w, nd, shape, levels, mode, dt, batch, backend, algo, batch_items);
}

/* the reference: f32 (the float32 plan) on the widened 16-bit in, each result rounded */
static int reference(const fmt *f, const lwt_plan *f32, int inverse, const uint16_t *in, size_t nin, uint16_t *out,
                     size_t nout)
{
    float *x = malloc(nin * sizeof *x), *y = malloc(nout * sizeof *y);
    ref_widen(f, in, x, nin);
    const lwt_status st = inverse ? lwt_inverse(f32, x, y, NULL) : lwt_forward(f32, x, y, NULL);
    if (st == LWT_OK)
        ref_narrow(f, y, out, nout);
    free(x);
    free(y);
    return st == LWT_OK;
}

static int cases;

/* forward and inverse of one description, 16-bit plan against the reference */
static void check_case(const fmt *f, const lwt_wavelet *w, const char *wn, int nd, const size_t *shape, int levels,
                       lwt_mode mode, size_t batch, lwt_algorithm algo, int own_ws, uint64_t seed)
{
    lwt_plan *p = plan(w, nd, shape, levels, mode, f->dt, batch, algo);
    lwt_plan *q = plan(w, nd, shape, levels, mode, LWT_F32, batch, algo);
    CHECK(p && q, "%s %s %d-D mode %d: no plan", f->name, wn, nd, (int)mode);
    if (!p || !q) {
        lwt_plan_destroy(p);
        lwt_plan_destroy(q);
        return;
    }
    lwt_plan_info ip, iq;
    lwt_plan_get_info(p, &ip);
    lwt_plan_get_info(q, &iq);
    CHECK(ip.coeff_count == iq.coeff_count && ip.input_count == iq.input_count && ip.levels == iq.levels &&
              ip.path == iq.path,
          "%s %s: the 16-bit plan's info differs from the float32 plan's", f->name, wn);
    CHECK(ip.workspace_bytes >= iq.workspace_bytes + 2 * 4 * batch * ip.coeff_count,
          "%s %s: workspace %zu too small", f->name, wn, ip.workspace_bytes);
    const size_t nin = ip.input_count * batch, nc = ip.coeff_count * batch;
    uint16_t *x = malloc(nin * 2), *c = malloc(nc * 2), *cref = malloc(nc * 2), *y = malloc(nin * 2),
             *yref = malloc(nin * 2);
    ref_random(f, x, nin, seed);
    void *ws = own_ws ? NULL : malloc(ip.workspace_bytes ? ip.workspace_bytes : 1);
    CHECK(lwt_forward(p, x, c, ws) == LWT_OK, "%s %s forward failed", f->name, wn);
    CHECK(reference(f, q, 0, x, nin, cref, nc), "%s %s: reference forward failed", f->name, wn);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < nc; i++)
        if (!same_bits(f, c[i], cref[i]) && !bad++)
            first = i;
    CHECK(bad == 0, "%s %s %d-D %zux%zux%zu L%d mode %d batch %zu algo %d: %zu of %zu coefficients differ (first %zu: 0x%04x, want 0x%04x)",
          f->name, wn, nd, shape[0], shape[1], shape[2], levels, (int)mode, batch, (int)algo, bad, nc, first,
          c[first], cref[first]);
    /* the inverse of the 16-bit coefficients */
    CHECK(lwt_inverse(p, c, y, ws) == LWT_OK, "%s %s inverse failed", f->name, wn);
    CHECK(reference(f, q, 1, c, nc, yref, nin), "%s %s: reference inverse failed", f->name, wn);
    bad = 0;
    for (size_t i = 0; i < nin; i++)
        if (!same_bits(f, y[i], yref[i]) && !bad++)
            first = i;
    CHECK(bad == 0, "%s %s %d-D L%d mode %d batch %zu: %zu of %zu inverse values differ (first %zu: 0x%04x, want 0x%04x)",
          f->name, wn, nd, levels, (int)mode, batch, bad, nin, first, y[first], yref[first]);
    cases++;
    free(ws);
    free(x);
    free(c);
    free(cref);
    free(y);
    free(yref);
    lwt_plan_destroy(p);
    lwt_plan_destroy(q);
}

static void test_plans(const fmt *f)
{
    static const char *names[] = {"haar", "db4", "cdf97", "bior4.4", "sym8", "coif3", "db20", "rbio3.5", "dmey"};
    static const size_t sizes[][3] = {{37, 1, 1}, {64, 1, 1}, {19, 24, 1}, {32, 17, 1}, {9, 12, 11}, {8, 7, 6}};
    int k = 0;
    for (size_t wi = 0; wi < sizeof names / sizeof names[0]; wi++) {
        lwt_wavelet *w = NULL;
        CHECK(lwt_wavelet_create(ctx, names[wi], &w) == LWT_OK, "wavelet %s", names[wi]);
        if (!w)
            continue;
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++, k++) {
            const size_t *s = sizes[k % 6];
            const int nd = s[2] > 1 ? 3 : s[1] > 1 ? 2 : 1;
            const int levels = 1 + k % 3;
            /* every fourth case: the filter bank (the convolution path); every fifth: a batch */
            const lwt_algorithm algo = k % 4 == 3 ? LWT_ALGO_CONVOLUTION : LWT_ALGO_AUTO;
            const size_t batch = k % 5 == 4 && nd < 3 ? 3 : 1;
            check_case(f, w, names[wi], nd, s, levels, (lwt_mode)mode, batch, algo, k % 2, 1000u + (uint64_t)k);
        }
        lwt_wavelet_destroy(w);
    }
}

/* Plans with fused levels on host pointers (lwt_driver_run_half; CUDA: the 16-bit arrays go to
   the device as they are); each of these plans must say it runs fused levels, so the bits
   checked are those of that path */
static void test_fused_host(const fmt *f)
{
    static const char *names[] = {"haar", "db2", "cdf97", "db4"};
    static const lwt_mode modes[] = {LWT_MODE_PERIODIZATION, LWT_MODE_SYMMETRIC};
    const size_t shape[3] = {515, 1030, 1}; /* test_gpu_half finds these fused on the device */
    int k = 0;
    for (size_t wi = 0; wi < sizeof names / sizeof names[0]; wi++) {
        lwt_wavelet *w = NULL;
        CHECK(lwt_wavelet_create(ctx, names[wi], &w) == LWT_OK, "wavelet %s", names[wi]);
        for (size_t mi = 0; w && mi < sizeof modes / sizeof modes[0]; mi++, k++) {
            lwt_plan *p = plan(w, 2, shape, 3, modes[mi], f->dt, 1, LWT_ALGO_AUTO);
            char text[4096];
            CHECK(p && lwt_plan_explain(p, text, sizeof text, NULL) == LWT_OK && strstr(text, "storage, fused"),
                  "%s %s mode %d: the plan does not run fused levels", f->name, names[wi], (int)modes[mi]);
            lwt_plan_destroy(p);
            check_case(f, w, names[wi], 2, shape, 3, modes[mi], 1, LWT_ALGO_AUTO, k % 2, 5000u + (uint64_t)k);
            /* the CPU's fused levels take batches too, level by level (each level on every array:
               the approximations of all arrays in the float32 buffers, one corner each) */
            if (backend != LWT_BACKEND_CPU)
                continue;
            const size_t small[3] = {33 + (size_t)k, 70, 1};
            p = plan(w, 2, small, 2, modes[mi], f->dt, 3, LWT_ALGO_AUTO);
            CHECK(p && lwt_plan_explain(p, text, sizeof text, NULL) == LWT_OK && strstr(text, "storage, fused"),
                  "%s %s mode %d: the batch plan does not run fused levels", f->name, names[wi], (int)modes[mi]);
            lwt_plan_destroy(p);
            check_case(f, w, names[wi], 2, small, 2, modes[mi], 3, LWT_ALGO_AUTO, k % 2, 6000u + (uint64_t)k);
            batch_items = 1; /* and the arrays one after the other, through the same driver */
            check_case(f, w, names[wi], 2, small, 2, modes[mi], 3, LWT_ALGO_AUTO, k % 2, 7000u + (uint64_t)k);
            batch_items = 0;
            /* 1-D signals, one and a batch (as rows), every level through the line kernel's 16-bit
               sides; the convolution path too */
            const size_t line[3] = {1001 + 2 * (size_t)k, 1, 1};
            for (size_t batch = 1; batch <= 4; batch += 3)
                for (int conv = 0; conv < 2; conv++) {
                    const lwt_algorithm algo = conv ? LWT_ALGO_CONVOLUTION : LWT_ALGO_AUTO;
                    p = plan(w, 1, line, 3, modes[mi], f->dt, batch, algo);
                    CHECK(p && lwt_plan_explain(p, text, sizeof text, NULL) == LWT_OK && strstr(text, "storage, fused"),
                          "%s %s mode %d: the 1-D plan (batch %zu, %s) does not run fused levels", f->name,
                          names[wi], (int)modes[mi], batch, conv ? "convolution" : "lifting");
                    lwt_plan_destroy(p);
                    check_case(f, w, names[wi], 1, line, 3, modes[mi], batch, algo, k % 2,
                               8000u + 10u * (uint64_t)k + batch + (uint64_t)conv);
                }
            /* 3-D volumes: the pass along axis 0 with the 16-bit signal, the planes with 16-bit
               bands (every band of the detail half along axis 0, the corner at the last level) */
            const size_t vol[3] = {19 + (size_t)k, 22, 17};
            for (int levels = 1; levels <= 2; levels++) {
                p = plan(w, 3, vol, levels, modes[mi], f->dt, 1, LWT_ALGO_AUTO);
                CHECK(p && lwt_plan_explain(p, text, sizeof text, NULL) == LWT_OK && strstr(text, "storage, fused"),
                      "%s %s mode %d: the 3-D plan (%d levels) does not run fused levels", f->name, names[wi],
                      (int)modes[mi], levels);
                lwt_plan_destroy(p);
                check_case(f, w, names[wi], 3, vol, levels, modes[mi], 1, LWT_ALGO_AUTO, k % 2,
                           9000u + 10u * (uint64_t)k + (uint64_t)levels);
            }
        }
        lwt_wavelet_destroy(w);
    }
}

/* what a 16-bit plan answers apart from running */
static void test_plan_api(void)
{
    lwt_wavelet *w = NULL;
    lwt_wavelet_create(ctx, "db4", &w);
    const size_t shape[3] = {40, 30, 1};
    lwt_plan *p = plan(w, 2, shape, 2, LWT_MODE_SYMMETRIC, LWT_F16, 1, LWT_ALGO_AUTO);
    lwt_plan *q = plan(w, 2, shape, 2, LWT_MODE_SYMMETRIC, LWT_F32, 1, LWT_ALGO_AUTO);
    CHECK(p && q, "db4 plans");
    if (p && q) {
        for (int level = 0; level <= 2; level++)
            for (unsigned m = level ? 1 : 0; m < (level ? 4u : 1u); m++) {
                lwt_band a, b;
                CHECK(lwt_plan_band(p, level, m, &a) == LWT_OK && lwt_plan_band(q, level, m, &b) == LWT_OK &&
                          memcmp(&a, &b, sizeof a) == 0,
                      "band %d/%u of the float16 plan differs", level, m);
            }
        char text[4096];
        CHECK(lwt_plan_explain(p, text, sizeof text, NULL) == LWT_OK && strstr(text, "float16 storage"),
              "explain does not say float16 storage: %s", text);
    }
    lwt_path a, b;
    CHECK(lwt_wavelet_path(w, LWT_MODE_ZERO, LWT_BF16, &a) == LWT_OK &&
              lwt_wavelet_path(w, LWT_MODE_ZERO, LWT_F32, &b) == LWT_OK && a == b,
          "bfloat16 path is the float32 path");
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.shape[0] = 16;
    d.dtype = (lwt_dtype)4;
    lwt_plan *bad = NULL;
    CHECK(lwt_plan_create(ctx, &d, &bad) == LWT_ERR_INVALID_ARGUMENT && !bad, "dtype 4 accepted");
    lwt_plan_destroy(p);
    lwt_plan_destroy(q);
    lwt_wavelet_destroy(w);
}

/* The array conversions the CPU plans and the streamed engine use (core/half_plan.c: vector
 * loops, and the F16C instruction for float16 rounding where the CPU has it) against half.h's
 * portable ones, value by value: 2^20 float32 bit patterns spread over every exponent and sign,
 * NaNs with several payloads, infinities, zeros, float32 subnormals, float16 subnormals and
 * midpoints; an odd count from an odd offset, so every loop's tail runs. All 2^16 widened. */
static void test_array_conversions(const fmt *f)
{
    const size_t n = ((size_t)1 << 20) + 13;
    float *x = malloc((n + 1) * sizeof *x);
    uint16_t *h = malloc((n + 1) * sizeof *h), *all = malloc(65536 * sizeof *all);
    float *w = malloc(65536 * sizeof *w);
    if (!x || !h || !all || !w) {
        CHECK(0, "out of memory");
        free(x), free(h), free(all), free(w);
        return;
    }
    static const uint32_t special[] = {0x7fc00000u, 0x7f800001u, 0xffbfffffu, 0x7fa00000u, 0x7f800000u, 0xff800000u,
                                       0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x33800000u, 0x33000000u,
                                       0x33000001u, 0x387fe000u, 0x38800000u, 0x477fe000u, 0x477ff000u, 0x477fefffu};
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = i < sizeof special / sizeof *special ? special[i] : (uint32_t)(i * 4099u * 977u);
        memcpy(&x[i + 1], &u, sizeof u);
    }
    lwt_half_narrow(f->dt, x + 1, h + 1, n);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        const uint16_t want = f->dt == LWT_F16 ? lwt_f32_to_f16_soft(x[i + 1]) : lwt_f32_to_bf16_soft(x[i + 1]);
        if (h[i + 1] != want && !bad++)
            first = i;
    }
    CHECK(bad == 0, "%s: %zu of %zu values rounded by the array loop differ from half.h's (first: value %zu)", f->name,
          bad, n, first);
    for (uint32_t b = 0; b < 65536; b++)
        all[b] = (uint16_t)b;
    lwt_half_widen(f->dt, all, w, 65536);
    bad = 0;
    for (uint32_t b = 0; b < 65536; b++) {
        const float want = f->dt == LWT_F16 ? lwt_f16_to_f32_soft((uint16_t)b) : lwt_bf16_to_f32((uint16_t)b);
        bad += memcmp(&w[b], &want, sizeof want) != 0;
    }
    CHECK(bad == 0, "%s: %zu of 2^16 values widened by the array loop differ from half.h's", f->name, bad);
    free(x), free(h), free(all), free(w);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--cuda") == 0)
        backend = LWT_BACKEND_CUDA;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    if (backend == LWT_BACKEND_CUDA) {
        lwt_wavelet *w = NULL;
        lwt_wavelet_create(ctx, "haar", &w);
        const size_t s[3] = {8, 1, 1};
        lwt_plan *p = plan(w, 1, s, 1, LWT_MODE_ZERO, LWT_F32, 1, LWT_ALGO_AUTO);
        lwt_wavelet_destroy(w);
        if (!p) {
            printf("test_half --cuda: no CUDA device, skipped\n");
            lwt_context_destroy(ctx);
            return 77;
        }
        lwt_plan_destroy(p);
    }
    test_conversions(&F16);
    test_conversions(&BF16);
    test_array_conversions(&F16);
    test_array_conversions(&BF16);
    test_plans(&F16);
    test_plans(&BF16);
    test_fused_host(&F16);
    test_fused_host(&BF16);
    test_plan_api();
    printf("%d plan cases on the %s backend\n", cases, backend == LWT_BACKEND_CUDA ? "CUDA" : "CPU");
    lwt_context_destroy(ctx);
    return finish("test_half");
}
