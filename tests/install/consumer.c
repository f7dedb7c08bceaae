/* A program outside the tree that uses an installed liblwt (tests/install/run.sh builds it
 * through find_package(lwt) and through pkg-config): a 2-D CDF 9/7 plan, forward then
 * inverse on a random array, round trip to 1e-10 relative. Exit 0 when all is well. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwt.h>
#include <lwt_stream.h> /* only to check that the installed header compiles */

#define TRY(call)                                                                          \
    do {                                                                                   \
        lwt_status s_ = (call);                                                            \
        if (s_ != LWT_OK) {                                                                \
            fprintf(stderr, "consumer: %s: %s\n", #call, lwt_status_string(s_));          \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

static int run(lwt_context *ctx, lwt_wavelet **w, lwt_plan **p, double **x, double **c, double **y)
{
    char v[64];
    snprintf(v, sizeof v, "%d.%d.%d", LWT_VERSION_MAJOR, LWT_VERSION_MINOR, LWT_VERSION_PATCH);
    if (strcmp(v, lwt_version_string()) != 0) {
        fprintf(stderr, "consumer: header says %s, library says %s\n", v, lwt_version_string());
        return 1;
    }
    TRY(lwt_wavelet_create(ctx, "cdf97", w));
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = *w;
    d.ndim = 2;
    d.shape[0] = 67;
    d.shape[1] = 130;
    d.levels = 3;
    d.mode = LWT_MODE_SYMMETRIC;
    d.dtype = LWT_F64;
    d.backend = LWT_BACKEND_CPU;
    TRY(lwt_plan_create(ctx, &d, p));
    lwt_plan_info info;
    TRY(lwt_plan_get_info(*p, &info));
    *x = malloc(info.input_count * sizeof(double));
    *c = calloc(info.coeff_count, sizeof(double));
    *y = malloc(info.input_count * sizeof(double));
    if (!*x || !*c || !*y) {
        fprintf(stderr, "consumer: out of memory\n");
        return 1;
    }
    unsigned long long seed = 12345;
    double xmax = 0;
    for (size_t i = 0; i < info.input_count; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        (*x)[i] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        if (fabs((*x)[i]) > xmax) xmax = fabs((*x)[i]);
    }
    TRY(lwt_forward(*p, *x, *c, NULL));
    TRY(lwt_inverse(*p, *c, *y, NULL));
    double err = 0;
    for (size_t i = 0; i < info.input_count; i++)
        if (fabs((*y)[i] - (*x)[i]) > err) err = fabs((*y)[i] - (*x)[i]);
    if (!(err <= 1e-10 * xmax)) {
        fprintf(stderr, "consumer: round trip error %.3g (relative %.3g > 1e-10)\n", err, err / xmax);
        return 1;
    }
    printf("consumer: liblwt %s, cdf97 2-D %zux%zu, %d levels: round trip relative error %.2g\n",
           lwt_version_string(), d.shape[0], d.shape[1], info.levels, err / xmax);
    return 0;
}

int main(void)
{
    lwt_context *ctx = NULL;
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    double *x = NULL, *c = NULL, *y = NULL;
    if (lwt_context_create(&ctx) != LWT_OK) {
        fprintf(stderr, "consumer: lwt_context_create failed\n");
        return 1;
    }
    int rc = run(ctx, &w, &p, &x, &c, &y);
    free(x);
    free(c);
    free(y);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    return rc;
}
