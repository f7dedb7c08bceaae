/*
 * The C API's answers to what a caller gets wrong: NULL pointers and out-of-range fields get
 * LWT_ERR_INVALID_ARGUMENT (or the specific status lwt.h names), never LWT_OK, never
 * LWT_ERR_INTERNAL and never a crash; and the lifetimes lwt.h promises: a plan outlives its
 * wavelet, plans of two contexts do not disturb each other. Runs under ASan/UBSan in CI, which
 * is where a missing NULL check or a dangling pointer shows. test_api.c holds the positive
 * contracts (pinned values, catalog, layout, determinism, P/U/K); test_steps.c the desc's size
 * and lwt_plan_explain's buffer; test_slide.c the sliding-window tuning knobs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lwt.h"
#include "lwt_experimental.h"

static int messages;
static void count_log(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    (void)msg;
    messages += level >= LWT_LOG_WARNING;
}

/* PyWavelets' legacy names mean what they mean there; other spellings are unknown */
static void modes(void)
{
    const char *legacy[][2] = {{"zpd", "zero"},     {"cpd", "constant"}, {"sym", "symmetric"},
                               {"ppd", "periodic"}, {"sp1", "smooth"},   {"per", "periodization"}};
    for (int i = 0; i < 6; i++) {
        lwt_mode got, want;
        CHECK(lwt_mode_from_name(legacy[i][1], &want) == LWT_OK, "mode %s", legacy[i][1]);
        if (lwt_mode_from_name(legacy[i][0], &got) == LWT_OK)
            CHECK(got == want, "legacy mode %s = %d, PyWavelets means %s", legacy[i][0], (int)got, legacy[i][1]);
    }
    const char *bad[] = {"", "Symmetric ", "periodisation", "SYMMETRIC"};
    for (int i = 0; i < 4; i++) {
        lwt_mode m;
        CHECK(lwt_mode_from_name(bad[i], &m) == LWT_ERR_UNKNOWN_MODE, "mode name '%s' accepted", bad[i]);
    }
    lwt_mode m;
    CHECK(lwt_mode_from_name(NULL, &m) == LWT_ERR_INVALID_ARGUMENT, "lwt_mode_from_name(NULL name)");
    CHECK(lwt_mode_from_name("zero", NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_mode_from_name(NULL out)");
    CHECK(lwt_mode_name((lwt_mode)-1) == NULL && lwt_mode_name((lwt_mode)LWT_MODE_COUNT) == NULL,
          "lwt_mode_name outside [0, LWT_MODE_COUNT) is not NULL");
}

static void contexts(lwt_context *ctx)
{
    CHECK(lwt_context_create(NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_context_create(NULL)");
    CHECK(lwt_context_set_threads(ctx, -1) == LWT_ERR_INVALID_ARGUMENT, "lwt_context_set_threads(-1)");
    CHECK(lwt_context_set_threads(NULL, 1) == LWT_ERR_INVALID_ARGUMENT, "lwt_context_set_threads(NULL)");
    CHECK(lwt_context_device_count(ctx) >= 0, "lwt_context_device_count < 0");
    CHECK(lwt_context_set_memory_limit(NULL, 1) == LWT_ERR_INVALID_ARGUMENT, "lwt_context_set_memory_limit(NULL)");
    CHECK(lwt_context_memory_limit(NULL) == 0, "lwt_context_memory_limit(NULL) is not 0");
    CHECK(lwt_context_memory_limit(ctx) == 0, "a new context has a memory limit");
    CHECK(lwt_context_set_memory_limit(ctx, 12345) == LWT_OK && lwt_context_memory_limit(ctx) == 12345,
          "lwt_context_set_memory_limit(12345) not kept");
    lwt_context_set_memory_limit(ctx, 0);
}

static void wavelets(lwt_context *ctx)
{
    const char *bad[] = {"morl", "", "DB2", "db2 ", "bior4.5", "db0"};
    for (int i = 0; i < 6; i++) {
        lwt_wavelet *w = NULL;
        const int before = messages;
        CHECK(lwt_wavelet_create(ctx, bad[i], &w) == LWT_ERR_UNKNOWN_WAVELET && !w, "wavelet '%s' accepted", bad[i]);
        CHECK(messages > before, "no log message for unknown wavelet '%s'", bad[i]);
    }
    lwt_wavelet *w = NULL;
    CHECK(lwt_wavelet_create(ctx, NULL, &w) == LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_create(NULL name)");
    CHECK(lwt_wavelet_create(ctx, "db2", NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_create(NULL out)");
    /* no context: lwt.h does not say; whatever comes back, nothing may crash or leak */
    if (lwt_wavelet_create(NULL, "db2", &w) == LWT_OK)
        lwt_wavelet_destroy(w);
    CHECK(lwt_wavelet_create(ctx, "db2", &w) == LWT_OK, "db2");
    lwt_wavelet_info info;
    CHECK(lwt_wavelet_get_info(w, NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_get_info(NULL out)");
    CHECK(lwt_wavelet_get_info(NULL, &info) == LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_get_info(NULL wavelet)");
    const double *lo = NULL;
    CHECK(lwt_wavelet_filters(NULL, &lo, NULL, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT && !lo,
          "lwt_wavelet_filters(NULL wavelet)");
    CHECK(lwt_wavelet_filters(w, &lo, NULL, NULL, NULL) == LWT_OK && lo, "lwt_wavelet_filters(dec_lo only)");
    lwt_path path; /* test_paths.c: a mode out of range */
    CHECK(lwt_wavelet_path(NULL, LWT_MODE_ZERO, LWT_F64, &path) == LWT_ERR_INVALID_ARGUMENT,
          "lwt_wavelet_path(NULL wavelet)");
    CHECK(lwt_wavelet_path(w, LWT_MODE_ZERO, LWT_F64, NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_path(NULL out)");
    CHECK(lwt_wavelet_path(w, LWT_MODE_ZERO, (lwt_dtype)4, &path) == LWT_ERR_INVALID_ARGUMENT,
          "lwt_wavelet_path(dtype 4)"); /* 2 and 3 are float16 and bfloat16 */
    lwt_wavelet_destroy(w);
    CHECK(lwt_wavelet_from_puk(ctx, NULL, &w) == LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_from_puk(NULL scheme)");
}

/* a valid 2-D desc for w that each bad case below spoils in one field */
static lwt_plan_desc good_desc(const lwt_wavelet *w)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = 16;
    d.shape[1] = 12;
    d.levels = 1;
    return d;
}

/* lwt_plan_create(d) must fail, with `want` (or any error but LWT_ERR_INTERNAL when want is LWT_OK) */
static void refused(lwt_context *ctx, lwt_plan_desc d, lwt_status want, const char *what)
{
    lwt_plan *p = NULL;
    const lwt_status s = lwt_plan_create(ctx, &d, &p);
    if (want == LWT_OK)
        CHECK(s != LWT_OK && s != LWT_ERR_INTERNAL && !p, "lwt_plan_create(%s) = %s", what, lwt_status_string(s));
    else
        CHECK(s == want && !p, "lwt_plan_create(%s) = %s, want %s", what, lwt_status_string(s),
              lwt_status_string(want));
    lwt_plan_destroy(p);
}

static void plan_descs(lwt_context *ctx)
{
    const lwt_plan_desc def = lwt_plan_desc_default();
    CHECK(def.wavelet == NULL && def.ndim == 1 && def.levels == LWT_LEVELS_MAX && def.mode == LWT_MODE_SYMMETRIC &&
              def.dtype == LWT_F64 && def.backend == LWT_BACKEND_AUTO && def.batch == 1 &&
              def.algorithm == LWT_ALGO_AUTO,
          "lwt_plan_desc_default: ndim %d levels %d mode %d dtype %d backend %d batch %zu algorithm %d", def.ndim,
          def.levels, (int)def.mode, (int)def.dtype, (int)def.backend, def.batch, (int)def.algorithm);
    lwt_wavelet *w;
    lwt_wavelet_create(ctx, "db2", &w);
    lwt_plan_desc d;
    /* each field out of its range (test_api.c has ndim 0 and 4, a zero length, levels -2, mode 42) */
    d = good_desc(w);
    d.wavelet = NULL;
    refused(ctx, d, LWT_ERR_INVALID_ARGUMENT, "wavelet NULL");
    d = good_desc(w);
    d.ndim = -1;
    refused(ctx, d, LWT_ERR_INVALID_ARGUMENT, "ndim -1");
    d = good_desc(w);
    d.levels = -100;
    refused(ctx, d, LWT_ERR_INVALID_ARGUMENT, "levels -100");
    d = good_desc(w);
    d.mode = (lwt_mode)-1;
    refused(ctx, d, LWT_ERR_UNKNOWN_MODE, "mode -1");
    d = good_desc(w);
    d.mode = (lwt_mode)LWT_MODE_COUNT;
    refused(ctx, d, LWT_ERR_UNKNOWN_MODE, "mode 9");
    d = good_desc(w);
    d.dtype = (lwt_dtype)4; /* 2 and 3 are float16 and bfloat16 */
    refused(ctx, d, LWT_OK, "dtype 4");
    d = good_desc(w);
    d.dtype = (lwt_dtype)-1;
    refused(ctx, d, LWT_OK, "dtype -1");
    d = good_desc(w);
    d.backend = (lwt_backend)3;
    refused(ctx, d, LWT_OK, "backend 3");
    d = good_desc(w);
    d.algorithm = (lwt_algorithm)6;
    refused(ctx, d, LWT_OK, "algorithm 6");
    d = good_desc(w);
    d.algorithm = (lwt_algorithm)-1;
    refused(ctx, d, LWT_OK, "algorithm -1");
    d = good_desc(w);
    d.batch = 0;
    refused(ctx, d, LWT_OK, "batch 0");
    /* sizes whose products overflow size_t: refused before anything is allocated */
    d = good_desc(w);
    d.ndim = 3;
    d.shape[0] = d.shape[1] = d.shape[2] = (size_t)1 << 40;
    d.levels = 0;
    refused(ctx, d, LWT_OK, "2^40 x 2^40 x 2^40");
    d = good_desc(w);
    d.shape[0] = (size_t)1 << 63;
    d.shape[1] = 3;
    refused(ctx, d, LWT_OK, "2^63 x 3 (coefficient count overflows)");
    d = good_desc(w);
    d.batch = (size_t)-1 / 2; /* the batch's values overflow size_t */
    refused(ctx, d, LWT_ERR_INVALID_ARGUMENT, "batch SIZE_MAX / 2");

    lwt_plan *p = NULL;
    d = good_desc(w);
    CHECK(lwt_plan_create(ctx, NULL, &p) == LWT_ERR_INVALID_ARGUMENT && !p, "lwt_plan_create(NULL desc)");
    CHECK(lwt_plan_create(ctx, &d, NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_plan_create(NULL out)");
    if (lwt_plan_create(NULL, &d, &p) == LWT_OK) /* no context: lwt.h does not say; no crash, no leak */
        lwt_plan_destroy(p);
    /* the experimental knobs are checked too (test_slide.c: lbb_threads, lbb_cols, lifting) */
    lwt_plan_tuning t = lwt_plan_tuning_default();
    CHECK(t.lbb_threads == 0 && t.lbb_cols == 0 && t.lifting == 0 && t.fuse_levels == 0,
          "lwt_plan_tuning_default is not all automatic");
    t.fuse_levels = 2;
    p = NULL;
    CHECK(lwt_plan_create_tuned(ctx, &d, &t, &p) == LWT_ERR_INVALID_ARGUMENT && !p, "fuse_levels 2 accepted");
    lwt_plan_destroy(p);
    /* the GPU kernels' arrangements are lifting plans on the CPU too */
    const lwt_algorithm gpu[] = {LWT_ALGO_LIFTING_RC, LWT_ALGO_LIFTING_LBB, LWT_ALGO_LIFTING_RC_STEPS};
    for (int i = 0; i < 3; i++) {
        d.algorithm = gpu[i];
        p = NULL;
        CHECK(lwt_plan_create(ctx, &d, &p) == LWT_OK, "algorithm %d refused", (int)gpu[i]);
        lwt_plan_destroy(p);
    }
    lwt_wavelet_destroy(w);
}

/* forward, inverse, info and band with NULL plan, input, output or out */
static void plan_calls(lwt_context *ctx)
{
    lwt_wavelet *w;
    lwt_wavelet_create(ctx, "db2", &w);
    const lwt_plan_desc d = good_desc(w);
    lwt_plan *p = NULL;
    CHECK(lwt_plan_create(ctx, &d, &p) == LWT_OK, "db2 16 x 12");
    lwt_plan_info info;
    lwt_band b;
    CHECK(lwt_plan_get_info(p, NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_plan_get_info(NULL out)");
    CHECK(lwt_plan_get_info(NULL, &info) == LWT_ERR_INVALID_ARGUMENT, "lwt_plan_get_info(NULL plan)");
    CHECK(lwt_plan_band(p, 0, 0, NULL) == LWT_ERR_INVALID_ARGUMENT, "lwt_plan_band(NULL out)");
    CHECK(lwt_plan_band(NULL, 0, 0, &b) == LWT_ERR_INVALID_ARGUMENT, "lwt_plan_band(NULL plan)");
    CHECK(lwt_plan_get_info(p, &info) == LWT_OK, "lwt_plan_get_info");
    CHECK(info.backend == LWT_BACKEND_CPU || lwt_context_device_count(ctx) > 0,
          "backend auto resolved to %d without a CUDA device", (int)info.backend);
    double *x = calloc(info.input_count, sizeof *x), *c = calloc(info.coeff_count, sizeof *c);
    typedef lwt_status (*run_fn)(const lwt_plan *, const void *, void *, void *);
    const run_fn run[2] = {lwt_forward, lwt_inverse};
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "lwt_inverse" : "lwt_forward";
        CHECK(run[k](NULL, x, c, NULL) == LWT_ERR_INVALID_ARGUMENT, "%s(NULL plan)", name);
        CHECK(run[k](p, NULL, c, NULL) == LWT_ERR_INVALID_ARGUMENT, "%s(NULL input)", name);
        CHECK(run[k](p, x, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "%s(NULL output)", name);
    }
    free(x);
    free(c);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static lwt_plan *plan_of(lwt_context *ctx, const lwt_wavelet *w, size_t n0, size_t n1, lwt_dtype dt)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = 2;
    d.dtype = dt;
    lwt_plan *p = NULL;
    return lwt_plan_create(ctx, &d, &p) == LWT_OK ? p : NULL;
}

static void fill(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = sin(0.37 * (double)i) + 0.01 * (double)(i % 17);
}

/* lwt.h asks only that the context outlive its wavelets and plans: a plan keeps working after
 * its wavelet is destroyed, and a plan of one context after another context is destroyed */
static void lifetimes(void)
{
    lwt_context *c1, *c2;
    CHECK(lwt_context_create(&c1) == LWT_OK && lwt_context_create(&c2) == LWT_OK, "two contexts");
    lwt_context_set_threads(c1, 1);
    lwt_context_set_threads(c2, 2);
    lwt_wavelet *w1, *w2;
    CHECK(lwt_wavelet_create(c1, "db4", &w1) == LWT_OK && lwt_wavelet_create(c2, "db4", &w2) == LWT_OK, "db4");
    lwt_plan *p1 = plan_of(c1, w1, 64, 40, LWT_F64), *p2 = plan_of(c2, w2, 64, 40, LWT_F64);
    CHECK(p1 && p2, "plans of two contexts");
    if (!p1 || !p2)
        return;
    lwt_plan_info info;
    lwt_plan_get_info(p1, &info);
    double *x = malloc(info.input_count * sizeof *x), *ref = malloc(info.coeff_count * sizeof *ref);
    double *c = malloc(info.coeff_count * sizeof *c);
    fill(x, info.input_count);
    CHECK(lwt_forward(p1, x, ref, NULL) == LWT_OK, "forward");
    lwt_wavelet_destroy(w1);
    memset(c, 0xff, info.coeff_count * sizeof *c);
    CHECK(lwt_forward(p1, x, c, NULL) == LWT_OK && !memcmp(c, ref, info.coeff_count * sizeof *c),
          "a plan used after lwt_wavelet_destroy differs");
    lwt_plan_destroy(p1);
    lwt_context_destroy(c1);
    memset(c, 0xff, info.coeff_count * sizeof *c);
    CHECK(lwt_forward(p2, x, c, NULL) == LWT_OK && !memcmp(c, ref, info.coeff_count * sizeof *c),
          "a plan of a live context differs after another context was destroyed");
    lwt_plan_destroy(p2);
    lwt_wavelet_destroy(w2);
    lwt_context_destroy(c2);
    free(x);
    free(ref);
    free(c);
}

int main(void)
{
    lwt_context *ctx;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    lwt_context_set_log(ctx, count_log, NULL);
    modes();
    contexts(ctx);
    wavelets(ctx);
    plan_descs(ctx);
    plan_calls(ctx);
    lifetimes();
    lwt_context_destroy(ctx);
    return finish("test_api_args");
}
