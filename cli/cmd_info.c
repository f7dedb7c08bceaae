/* lwt info: wavelets, modes, backends and devices (--explain: a plan's steps, cmd_explain.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *path_name(lwt_path p) { return p == LWT_PATH_LIFTING ? "lifting" : "convolution"; }

/* the modes (and dtypes) whose LWT_ALGO_AUTO plans take the filter bank although the
   wavelet lifts (lwt_wavelet_path): "-", "all", or e.g. "smooth (f64)" */
static void print_filter_bank_modes(const lwt_wavelet *w)
{
    int n[2] = {0, 0};
    lwt_path p;
    for (int d = 0; d < 2; d++)
        for (int m = 0; m < LWT_MODE_COUNT; m++)
            n[d] += lwt_wavelet_path(w, (lwt_mode)m, (lwt_dtype)d, &p) == LWT_OK && p == LWT_PATH_CONVOLUTION;
    if (!n[0] && !n[1]) {
        printf("-\n");
        return;
    }
    for (int d = 1, first = 1; d >= 0; d--) {
        if (!n[d])
            continue;
        printf("%s", first ? "" : " ");
        first = 0;
        if (n[d] == LWT_MODE_COUNT)
            printf("all");
        for (int m = 0, k = 0; m < LWT_MODE_COUNT && n[d] < LWT_MODE_COUNT; m++)
            if (lwt_wavelet_path(w, (lwt_mode)m, (lwt_dtype)d, &p) == LWT_OK && p == LWT_PATH_CONVOLUTION)
                printf("%s%s", k++ ? "," : "", lwt_mode_name((lwt_mode)m));
        printf(" (%s)", d == LWT_F64 ? "f64" : "f32");
    }
    printf("\n");
}

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--explain"))
        return cmd_info_explain(argc - 1, argv + 1);
    if (argc > 1) {
        fprintf(stderr, "lwt info: takes no arguments but --explain\n");
        return LWT_EXIT_USAGE;
    }
    lwt_context *ctx = cli_context();
    if (!ctx)
        return LWT_EXIT_RUNTIME;
    printf("lwt %s\n\nwavelets (%d; aliases cdf97=bior4.4 cdf53=bior2.2 d4=db2 d8=db4 d20=db10):\n",
           lwt_version_string(), lwt_wavelet_catalog_count());
    printf("  %-10s %-7s %6s %6s %-12s %-12s %10s %10s  %s\n", "name", "family", "length", "steps", "float64",
           "float32", "err_f64", "err_f32", "auto plans on the filter bank in (docs/ACCURACY.md)");
    for (int i = 0; i < lwt_wavelet_catalog_count(); i++) {
        lwt_wavelet *w;
        if (lwt_wavelet_create(ctx, lwt_wavelet_catalog_name(i), &w) != LWT_OK)
            continue;
        lwt_wavelet_info wi;
        lwt_wavelet_get_info(w, &wi);
        printf("  %-10s %-7s %6d %6d %-12s %-12s %10.2e %10.2e  ", wi.name, wi.family, wi.filter_length,
               wi.lifting_steps, path_name(wi.path_f64), path_name(wi.path_f32), wi.lifting_error_f64,
               wi.lifting_error_f32);
        print_filter_bank_modes(w);
        lwt_wavelet_destroy(w);
    }
    printf("\nmodes:");
    for (int m = 0; m < LWT_MODE_COUNT; m++)
        printf(" %s", lwt_mode_name((lwt_mode)m));
    printf("\n\nbackends: cpu (available)");
    int ndev = lwt_context_device_count(ctx);
    printf(", cuda (%s)\n", ndev > 0 ? "available" : "not available in this build or no device");
    printf("devices: %d CUDA device(s)\n", ndev);
    lwt_context_destroy(ctx);
    return LWT_EXIT_OK;
}
