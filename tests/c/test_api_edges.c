/*
 * The public transform calls on the edges of their domain, for the sanitizer build: lengths
 * 1 and 2, axes of length 1 in 2-D and 3-D, levels 0, 1, the maximum and one past it, every
 * mode, both dtypes, the default and the sliding-window algorithm, a user P/U/K scheme, and
 * buffers aligned only to their element size. Every output value must be written (the output
 * is NaN-poisoned first: PyWavelets' packed array has zeros in its gaps, never garbage) and,
 * up to the maximum level, the inverse must give the input back.
 *
 * The values against PyWavelets, with their per-wavelet bounds, are python/tests'
 * (test_pkg_pywt_1d.py, test_pkg_pywt_nd.py) and run in the release build only: the
 * sanitizer build does not make the Python package. This sweep walks the same paths under
 * ASan/UBSan; its round-trip tolerance is coarse on purpose (a wrong band or an unwritten value
 * is O(1); accuracy is not this test's subject).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lwt.h"

#define NSHAPES 13
static const int shape_nd[NSHAPES] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
static const size_t shapes[NSHAPES][3] = {{1, 1, 1},  {2, 1, 1},  {5, 1, 1},  {7, 1, 1}, {64, 1, 1},
                                          {1, 7, 1},  {7, 1, 1},  {2, 3, 1},  {13, 8, 1}, {5, 6, 7},
                                          {1, 4, 9},  {16, 9, 3}, {8, 1, 5}};
static int cases, refusals;

static double value(size_t i) { return sin(0.61 * (double)i) + 0.05 * (double)(i % 7); }

/* a buffer of n elements of es bytes that starts es bytes past a 64-byte boundary */
static void *misaligned(void **block, size_t n, size_t es)
{
    *block = aligned_alloc(64, ((n + 1) * es + 63) / 64 * 64);
    return *block ? (char *)*block + es : NULL;
}

static double get(const void *a, size_t i, size_t es) { return es == 4 ? ((const float *)a)[i] : ((const double *)a)[i]; }

/* one plan: forward and inverse on misaligned, poisoned buffers */
static void run_case(lwt_context *ctx, const lwt_wavelet *w, const char *name, int s, int levels, lwt_mode mode,
                     lwt_dtype dt, lwt_algorithm algo)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = shape_nd[s];
    memcpy(d.shape, shapes[s], sizeof d.shape);
    d.levels = levels;
    d.mode = mode;
    d.dtype = dt;
    d.algorithm = algo;
    lwt_plan *p = NULL;
    const lwt_status st = lwt_plan_create(ctx, &d, &p);
    cases++;
    const char *what = lwt_mode_name(mode);
    if (st != LWT_OK) {
        /* PyWavelets refuses [anti]reflect where a transformed axis has one sample; the
           sliding window may be refused (no lifting scheme within the bound) but then cleanly */
        refusals++;
        CHECK(((mode == LWT_MODE_REFLECT || mode == LWT_MODE_ANTIREFLECT) && st == LWT_ERR_INVALID_ARGUMENT) ||
                  (algo == LWT_ALGO_LIFTING_LBB && st == LWT_ERR_ACCURACY),
              "%s %s shape #%d levels %d %s algorithm %d: refused with %s", name, what, s, levels,
              dt == LWT_F32 ? "f32" : "f64", (int)algo, lwt_status_string(st));
        return;
    }
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    const size_t es = dt == LWT_F32 ? 4 : 8, ni = info.input_count, nc = info.coeff_count;
    void *bx, *bc, *by;
    char *x = misaligned(&bx, ni, es), *c = misaligned(&bc, nc, es), *y = misaligned(&by, ni, es);
    double xmax = 0, cmax = 0, err = 0;
    for (size_t i = 0; i < ni; i++) {
        if (dt == LWT_F32)
            ((float *)x)[i] = (float)value(i);
        else
            ((double *)x)[i] = value(i);
        xmax = fmax(xmax, fabs(get(x, i, es)));
    }
    memset(c, 0xff, nc * es); /* NaN */
    memset(y, 0xff, ni * es);
    CHECK(lwt_forward(p, x, c, NULL) == LWT_OK && lwt_inverse(p, c, y, NULL) == LWT_OK, "%s %s shape #%d: run failed",
          name, what, s);
    size_t unwritten = 0;
    for (size_t i = 0; i < nc; i++) {
        unwritten += isnan(get(c, i, es));
        cmax = fmax(cmax, fabs(get(c, i, es)));
    }
    for (size_t i = 0; i < ni; i++) {
        unwritten += isnan(get(y, i, es));
        err = fmax(err, fabs(get(y, i, es) - get(x, i, es)));
    }
    CHECK(!unwritten, "%s %s shape #%d levels %d %s algorithm %d: %zu values not written", name, what, s, levels,
          dt == LWT_F32 ? "f32" : "f64", (int)algo, unwritten);
    /* dmey's bank is not perfectly reconstructing; past the maximum level the extrapolating
       modes amplify rounding, which is the Python tests' subject */
    const double tol = dt == LWT_F32 ? 1e-3 : 1e-9;
    if (strcmp(name, "dmey") && info.levels <= info.max_level)
        CHECK(err <= tol * fmax(xmax, cmax), "%s %s shape #%d levels %d %s algorithm %d: round trip error %.3g", name,
              what, s, levels, dt == LWT_F32 ? "f32" : "f64", (int)algo, err / fmax(xmax, cmax));
    free(bx);
    free(bc);
    free(by);
    lwt_plan_destroy(p);
}

/* the smallest dwt_max_level over the transformed axes of shape s */
static int max_level(const lwt_wavelet *w, int s)
{
    lwt_wavelet_info wi;
    lwt_wavelet_get_info(w, &wi);
    int max = lwt_max_level(shapes[s][0], wi.filter_length);
    for (int k = 1; k < shape_nd[s]; k++) {
        const int l = lwt_max_level(shapes[s][k], wi.filter_length);
        max = l < max ? l : max;
    }
    return max;
}

static void sweep(lwt_context *ctx, const lwt_wavelet *w, const char *name)
{
    lwt_wavelet_info wi;
    lwt_wavelet_get_info(w, &wi);
    for (int s = 0; s < NSHAPES; s++) {
        /* a level of db38 or dmey on a 3-D array has ~40^3 coefficients of 76 or 62 taps per
           axis: 46 s and 27 s under ASan for these shapes, the rest together 5 s; their long
           filters take the same paths in 1-D and 2-D */
        if (shape_nd[s] == 3 && wi.filter_length > 20)
            continue;
        const int levels[4] = {0, 1, LWT_LEVELS_MAX, max_level(w, s) + 1};
        for (int m = 0; m < LWT_MODE_COUNT; m++)
            for (int dt = 0; dt < 2; dt++)
                for (int l = 0; l < 4; l++) {
                    run_case(ctx, w, name, s, levels[l], (lwt_mode)m, (lwt_dtype)dt, LWT_ALGO_AUTO);
                    if (shape_nd[s] == 2)
                        run_case(ctx, w, name, s, levels[l], (lwt_mode)m, (lwt_dtype)dt, LWT_ALGO_LIFTING_LBB);
                }
    }
}

int main(void)
{
    lwt_context *ctx;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    lwt_context_set_threads(ctx, 1); /* thousands of tiny plans; thread counts are test_api.c's */
    /* every family, the longest filter (db38) and a wavelet without a lifting scheme (dmey) */
    const char *names[] = {"haar", "db2", "db10", "db38", "sym4", "coif2", "bior3.1", "cdf97", "rbio2.8", "dmey"};
    for (int i = 0; i < 10; i++) {
        lwt_wavelet *w;
        CHECK(lwt_wavelet_create(ctx, names[i], &w) == LWT_OK, "%s", names[i]);
        sweep(ctx, w, names[i]);
        lwt_wavelet_destroy(w);
    }
    /* a user scheme with a u0 step (lwt_puk_scheme) */
    double p1[] = {1}, u1[] = {-0.5}, u0[] = {0.25};
    lwt_laurent P[] = {{0, 1, p1}}, U[] = {{0, 1, u1}};
    lwt_puk_scheme scheme = {"puk-u0", {0, 1, u0}, 1, P, U, 1.0};
    lwt_wavelet *w;
    CHECK(lwt_wavelet_from_puk(ctx, &scheme, &w) == LWT_OK, "puk-u0");
    sweep(ctx, w, "puk-u0");
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    printf("test_api_edges: %d plans, %d refused\n", cases, refusals);
    return finish("test_api_edges");
}
