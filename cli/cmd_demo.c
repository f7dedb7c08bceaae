/* lwt demo: forward/inverse round trip on a generated 2-D array. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int cmd_demo(int argc, char **argv)
{
    cli_transform_opts o = {0};
    o.wavelet = "cdf97";
    o.levels = 4;
    o.mode = LWT_MODE_SYMMETRIC;
    size_t n = 2048;
    int f32 = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_common(argc, argv, &i, &o);
        if (r < 0)
            return LWT_EXIT_USAGE;
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "--size") && i + 1 < argc && !cli_parse_size(argv[i + 1], &n) && n > 0) {
            i++;
        } else if (!strcmp(argv[i], "--dtype") && i + 1 < argc &&
                   (!strcmp(argv[i + 1], "f32") || !strcmp(argv[i + 1], "f64"))) {
            f32 = !strcmp(argv[++i], "f32");
        } else {
            fprintf(stderr, "lwt demo: unknown or incomplete option '%s'\n", argv[i]);
            return LWT_EXIT_USAGE;
        }
    }
    lwt_context *ctx = cli_context();
    lwt_wavelet *w = NULL;
    lwt_plan *plan = NULL;
    int rc = LWT_EXIT_RUNTIME;
    double *x = NULL, *c = NULL, *y = NULL;
    if (!ctx)
        return rc;
    lwt_context_set_threads(ctx, o.threads);
    if (lwt_wavelet_create(ctx, o.wavelet, &w) != LWT_OK) {
        rc = LWT_EXIT_USAGE;
        goto done;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = n;
    d.shape[1] = n;
    d.levels = o.levels;
    d.mode = o.mode;
    d.dtype = f32 ? LWT_F32 : LWT_F64;
    d.backend = o.backend;
    d.algorithm = o.algorithm;
    if (lwt_plan_create(ctx, &d, &plan) != LWT_OK)
        goto done;
    lwt_plan_info info;
    lwt_plan_get_info(plan, &info);
    x = malloc(info.input_count * sizeof *x);
    c = malloc(info.coeff_count * sizeof *c);
    y = malloc(info.input_count * sizeof *y);
    if (!x || !c || !y) {
        fprintf(stderr, "lwt: out of memory\n");
        goto done;
    }
    /* a smooth surface with a texture: a tilted bowl plus two waves and noise */
    unsigned long long s = 42;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)i / n - 0.5, v = (double)j / n - 0.5;
            double z = 3 * (u * u + v * v) + 0.2 * u + 0.3 * sin(40 * v) + 0.05 * sin(300 * u + 2 * v) +
                       0.01 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
            if (f32)
                ((float *)x)[i * n + j] = (float)z;
            else
                x[i * n + j] = z;
        }
    double t0 = now_ms();
    if (lwt_forward(plan, x, c, NULL) != LWT_OK)
        goto done;
    double t1 = now_ms();
    if (lwt_inverse(plan, c, y, NULL) != LWT_OK)
        goto done;
    double t2 = now_ms();
    double err = 0, mx = 0;
    for (size_t i = 0; i < info.input_count; i++) {
        double a = f32 ? ((float *)x)[i] : x[i], b = f32 ? ((float *)y)[i] : y[i];
        if (fabs(a - b) > err) err = fabs(a - b);
        if (fabs(a) > mx) mx = fabs(a);
    }
    lwt_wavelet_info wi;
    lwt_wavelet_get_info(w, &wi);
    printf("lwt demo: round trip on a generated %zux%zu %s surface\n", n, n, f32 ? "float32" : "float64");
    printf("  wavelet   %s (%s, filter length %d, %s)\n", wi.name, wi.family, wi.filter_length,
           info.path == LWT_PATH_LIFTING ? "lifting" : "convolution");
    printf("  levels    %d (max %d), mode %s\n", info.levels, info.max_level, lwt_mode_name(o.mode));
    printf("  backend   %s\n", info.backend == LWT_BACKEND_CUDA ? "cuda" : "cpu");
    printf("  forward   %.1f ms\n  inverse   %.1f ms\n", t1 - t0, t2 - t1);
    printf("  max |x - inverse(forward(x))| / max|x| = %.3g\n", err / mx);
    rc = err / mx < (f32 ? 1e-5 : 1e-12) ? LWT_EXIT_OK : LWT_EXIT_RUNTIME;
    if (rc)
        fprintf(stderr, "lwt demo: round-trip error above the bound\n");
done:
    free(x);
    free(c);
    free(y);
    lwt_plan_destroy(plan);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    return rc;
}
