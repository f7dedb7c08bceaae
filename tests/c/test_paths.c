/*
 * Lifting or the filter bank (core/path_table.h, docs/ACCURACY.md): every LWT_ALGO_AUTO plan of
 * every built-in wavelet, mode and dtype resolves to lwt_wavelet_path's answer and says so in
 * lwt_plan_explain; the cells the accuracy fixes rest on take the filter bank (db30 smooth,
 * the issue-24 case; sym20 smooth, PyWavelets' test_matlab_compatibility case) and common ones
 * keep lifting; LWT_ALGO_LIFTING and LWT_ALGO_CONVOLUTION still force their path; a user P/U/K
 * wavelet lifts in every mode. The agreement with PyWavelets that the table buys is checked
 * against PyWavelets itself in python/tests/test_pkg_exact.py.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lwt.h"

static lwt_status plan_path(lwt_context *ctx, const lwt_wavelet *w, lwt_mode mode, lwt_dtype dt, lwt_algorithm algo,
                            lwt_path *path, char *text, size_t len)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = 5;
    d.shape[1] = 9;
    d.levels = 2;
    d.mode = mode;
    d.dtype = dt;
    d.backend = LWT_BACKEND_CPU;
    d.algorithm = algo;
    lwt_plan *p = NULL;
    lwt_status s = lwt_plan_create(ctx, &d, &p);
    if (s != LWT_OK)
        return s;
    lwt_plan_info info;
    s = lwt_plan_get_info(p, &info);
    *path = info.path;
    if (s == LWT_OK && text)
        s = lwt_plan_explain(p, text, len, NULL);
    lwt_plan_destroy(p);
    return s;
}

static lwt_path auto_path(lwt_context *ctx, const char *name, lwt_mode mode, lwt_dtype dt)
{
    lwt_wavelet *w = NULL;
    lwt_path path = (lwt_path)-1;
    if (lwt_wavelet_create(ctx, name, &w) == LWT_OK)
        plan_path(ctx, w, mode, dt, LWT_ALGO_AUTO, &path, NULL, 0);
    lwt_wavelet_destroy(w);
    return path;
}

int main(void)
{
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    char text[4096];
    int fb_cells[2] = {0, 0};
    for (int i = 0; i < lwt_wavelet_catalog_count(); i++) {
        const char *name = lwt_wavelet_catalog_name(i);
        lwt_wavelet *w = NULL;
        CHECK(lwt_wavelet_create(ctx, name, &w) == LWT_OK, "%s: create", name);
        if (!w)
            continue;
        lwt_wavelet_info wi;
        lwt_wavelet_get_info(w, &wi);
        for (int m = 0; m < LWT_MODE_COUNT; m++)
            for (int dt = 0; dt < 2; dt++) {
                lwt_path want, got = (lwt_path)-1;
                CHECK(lwt_wavelet_path(w, (lwt_mode)m, (lwt_dtype)dt, &want) == LWT_OK, "%s: lwt_wavelet_path", name);
                fb_cells[dt] += want == LWT_PATH_CONVOLUTION;
                /* a wavelet without a scheme within its bound takes the filter bank everywhere */
                if ((dt ? wi.path_f64 : wi.path_f32) == LWT_PATH_CONVOLUTION)
                    CHECK(want == LWT_PATH_CONVOLUTION, "%s %s: no scheme, yet lifting", name, lwt_mode_name(m));
                lwt_status s = plan_path(ctx, w, (lwt_mode)m, (lwt_dtype)dt, LWT_ALGO_AUTO, &got, text, sizeof text);
                CHECK(s == LWT_OK, "%s %s: plan (%s)", name, lwt_mode_name(m), lwt_status_string(s));
                CHECK(got == want, "%s %s %s: plan path %d, lwt_wavelet_path %d", name, lwt_mode_name(m),
                      dt ? "f64" : "f32", (int)got, (int)want);
                const char *nl = strchr(text, '\n'), *at = strstr(text, "; path: ");
                CHECK(at && nl && at < nl &&
                          !strncmp(at + 8, want == LWT_PATH_LIFTING ? "lifting (auto" : "filter bank (auto", 13),
                      "%s %s: explain's first line does not show the path:\n%s", name, lwt_mode_name(m), text);
                /* explicit algorithms force their path */
                CHECK(plan_path(ctx, w, (lwt_mode)m, (lwt_dtype)dt, LWT_ALGO_CONVOLUTION, &got, NULL, 0) == LWT_OK &&
                          got == LWT_PATH_CONVOLUTION, "%s %s: LWT_ALGO_CONVOLUTION", name, lwt_mode_name(m));
                if ((dt ? wi.path_f64 : wi.path_f32) == LWT_PATH_LIFTING)
                    CHECK(plan_path(ctx, w, (lwt_mode)m, (lwt_dtype)dt, LWT_ALGO_LIFTING, &got, NULL, 0) == LWT_OK &&
                              got == LWT_PATH_LIFTING, "%s %s: LWT_ALGO_LIFTING", name, lwt_mode_name(m));
            }
        lwt_path dummy;
        CHECK(lwt_wavelet_path(w, (lwt_mode)LWT_MODE_COUNT, LWT_F64, &dummy) == LWT_ERR_INVALID_ARGUMENT,
              "%s: bad mode accepted", name);
        lwt_wavelet_destroy(w);
    }
    printf("filter-bank cells of AUTO plans: %d float64, %d float32 (of %d wavelets x %d modes)\n", fb_cells[1],
           fb_cells[0], lwt_wavelet_catalog_count(), LWT_MODE_COUNT);

    /* the cells the accuracy rests on (measured: docs/ACCURACY.md) */
    CHECK(auto_path(ctx, "db30", LWT_MODE_SMOOTH, LWT_F64) == LWT_PATH_CONVOLUTION, "db30 smooth f64 lifts");
    CHECK(auto_path(ctx, "sym20", LWT_MODE_SMOOTH, LWT_F64) == LWT_PATH_CONVOLUTION, "sym20 smooth f64 lifts");
    CHECK(auto_path(ctx, "dmey", LWT_MODE_SYMMETRIC, LWT_F64) == LWT_PATH_CONVOLUTION, "dmey lifts");
    const char *lifting[] = {"haar", "db2", "db4", "bior2.2", "bior4.4"};
    for (size_t i = 0; i < sizeof lifting / sizeof lifting[0]; i++)
        for (int m = 0; m < LWT_MODE_COUNT; m++)
            CHECK(auto_path(ctx, lifting[i], (lwt_mode)m, LWT_F64) == LWT_PATH_LIFTING &&
                      auto_path(ctx, lifting[i], (lwt_mode)m, LWT_F32) == LWT_PATH_LIFTING,
                  "%s %s: not lifting", lifting[i], lwt_mode_name(m));

    /* a user scheme (seed 000's Haar in P/U/K form, eq. 19) is its own definition: lifting
       everywhere */
    double p1[] = {1}, u1[] = {-0.5};
    lwt_laurent P[] = {{0, 1, p1}}, U[] = {{0, 1, u1}};
    lwt_puk_scheme puk = {"seed-haar", {0, 0, NULL}, 1, P, U, 0.7071067811865476};
    lwt_wavelet *uw = NULL;
    CHECK(lwt_wavelet_from_puk(ctx, &puk, &uw) == LWT_OK, "P/U/K wavelet");
    if (uw) {
        for (int m = 0; m < LWT_MODE_COUNT; m++) {
            lwt_path got;
            CHECK(lwt_wavelet_path(uw, (lwt_mode)m, LWT_F64, &got) == LWT_OK && got == LWT_PATH_LIFTING,
                  "P/U/K %s: not lifting", lwt_mode_name(m));
        }
    }
    lwt_wavelet_destroy(uw);
    lwt_context_destroy(ctx);
    return finish("test_paths");
}
