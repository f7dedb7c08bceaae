/*
 * lwt info --explain: the steps a plan runs (lwt_plan_explain), so a user can
 * see which kernel or pass each level takes on this machine, and where its
 * bands go, without running a transform.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int explain_usage(void)
{
    fprintf(stderr, "usage: lwt info --explain -w WAVELET -l LEVELS|max -m MODE --shape D0[,D1[,D2]]\n"
                    "                [--dtype f32|f64|f16|bf16] [--batch N] [--backend auto|cpu|cuda] [--algorithm ...]\n");
    return LWT_EXIT_USAGE;
}

int cmd_info_explain(int argc, char **argv)
{
    cli_transform_opts o = {"cdf97", LWT_LEVELS_MAX, 0, LWT_MODE_SYMMETRIC, 0, LWT_BACKEND_AUTO, LWT_ALGO_AUTO, 0};
    size_t shape[LWT_MAX_NDIM] = {0, 0, 0}, batch = 1;
    int nd = 0;
    lwt_dtype dtype = LWT_F64;
    for (int i = 1; i < argc; i++) { /* argv[0] is "--explain" */
        int r = cli_parse_common(argc, argv, &i, &o);
        if (r < 0)
            return LWT_EXIT_USAGE;
        if (r > 0)
            continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--shape") && v && !cli_parse_shape(v, shape, &nd))
            i++;
        else if (!strcmp(a, "--dtype") && v && !cli_parse_dtype(v, &dtype))
            i++;
        else if (!strcmp(a, "--batch") && v && !cli_parse_size(v, &batch) && batch >= 1)
            i++;
        else {
            fprintf(stderr, "lwt info --explain: bad or unknown option '%s'\n", a);
            return explain_usage();
        }
    }
    if (!nd) {
        fprintf(stderr, "lwt info --explain: needs --shape D0[,D1[,D2]]\n");
        return explain_usage();
    }
    lwt_context *ctx = cli_context();
    if (!ctx)
        return LWT_EXIT_RUNTIME;
    if (o.threads)
        lwt_context_set_threads(ctx, o.threads);
    int rc = LWT_EXIT_RUNTIME;
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    lwt_plan_desc d = lwt_plan_desc_default();
    char *text = NULL;
    size_t need = 0;
    if (lwt_wavelet_create(ctx, o.wavelet, &w) != LWT_OK)
        goto done;
    d.wavelet = w;
    d.ndim = nd;
    memcpy(d.shape, shape, sizeof shape);
    d.levels = o.levels;
    d.mode = o.mode;
    d.dtype = dtype;
    d.backend = o.backend;
    d.algorithm = o.algorithm;
    d.batch = batch;
    if (lwt_plan_create(ctx, &d, &p) != LWT_OK || lwt_plan_explain(p, NULL, 0, &need) != LWT_OK)
        goto done;
    if (!(text = malloc(need))) {
        fprintf(stderr, "lwt: out of memory\n");
        goto done;
    }
    if (lwt_plan_explain(p, text, need, NULL) == LWT_OK) {
        fputs(text, stdout);
        rc = LWT_EXIT_OK;
    }
done:
    free(text);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    return rc;
}
