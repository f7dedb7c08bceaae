/*
 * test_cpu_level: the CPU's fused 2-D level (src/cpu/cpu_level_tmpl.h, one sweep per level)
 * gives the bits of the separable passes (lwt_plan_tuning.cpu_passes = 1), forward and
 * inverse, on one thread and on several (each thread's share of the rows starts its pipeline a
 * halo early: a wrong halo changes the rows at the shares' seams). Every 7th catalog wavelet
 * (every 11th under LWT_QUICK, the sanitizer run, with three modes of the big shapes), every
 * mode, float32 and float64, lifting and the filter bank, 2-D shapes (odd, wide, tall, several
 * levels) and the planes of a 3-D level. Each plan's explanation must name the kernel it was
 * meant to run, so a silent fallback to the passes cannot make the comparison vacuous.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lwt.h"
#include "lwt_experimental.h"
#define TUNED_RUNS_SEED 0x2545f4914f6cdd1dull
#include "tuned_runs.h"


static const shape_case SHAPES[] = {
    {2, {37, 53, 1}, 2, 0},
    {2, {5, 90, 1}, 1, 0},
    {2, {64, 7, 1}, 3, 0},
    {3, {9, 14, 11}, 1, 0},
    {2, {331, 307, 1}, 3, 1},
    {3, {6, 131, 127}, 1, 1},
};

/* forward then inverse of x with one setting; coeffs and recon hold the results */
static lwt_status run(lwt_context *ctx, const lwt_plan_desc *d, int passes, int threads, const void *x,
                      void **coeffs, void **recon, size_t *ncoeffs, char *explain, size_t explain_len)
{
    lwt_plan_tuning t = lwt_plan_tuning_default();
    t.cpu_passes = passes;
    return tuned_run(ctx, d, &t, threads, x, coeffs, recon, ncoeffs, explain, explain_len);
}

int main(void)
{
    const int quick = getenv("LWT_QUICK") != NULL;
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx))
        return 1;
    size_t cases = 0;
    const int nw = lwt_wavelet_catalog_count();
    for (int wi = 0; wi < nw; wi += quick ? 11 : 7) {
        const char *name = lwt_wavelet_catalog_name(wi);
        lwt_wavelet *w = NULL;
        if (lwt_wavelet_create(ctx, name, &w)) {
            CHECK(0, "catalog wavelet %s cannot be made", name);
            continue;
        }
        for (int si = 0; si < (int)(sizeof SHAPES / sizeof SHAPES[0]); si++) {
            const shape_case *sc = &SHAPES[si];
            if (sc->big && wi % 35 != 0)
                continue;
            for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
                if (sc->big && quick && mode % 4 != 0) /* the sanitizer run: three modes of the big shapes */
                    continue;
                for (int dt = 0; dt < 2; dt++)
                    for (int conv = 0; conv < 2; conv++) {
                        const lwt_plan_desc d = case_desc(w, sc, mode, dt, conv);
                        const size_t n = sc->shape[0] * sc->shape[1] * sc->shape[2], es = dt ? 8 : 4;
                        void *x = random_input(n, dt);
                        char ex[8192];
                        void *c0 = NULL, *r0 = NULL;
                        size_t nc0 = 0;
                        lwt_status st = run(ctx, &d, 1, 1, x, &c0, &r0, &nc0, ex, sizeof ex);
                        if (st == LWT_ERR_INVALID_ARGUMENT) { /* too many levels for this shape and filter */
                            free(x);
                            free(c0);
                            free(r0);
                            continue;
                        }
                        CHECK(st == LWT_OK, "%s passes: %s", name, lwt_status_string(st));
                        CHECK(st || !strstr(ex, "fused level"), "%s: cpu_passes = 1 still fuses:\n%s", name, ex);
                        const int nthreads[] = {1, 3};
                        for (int k = 0; k < 2 && st == LWT_OK; k++) {
                            void *c = NULL, *r = NULL;
                            size_t nc = 0;
                            lwt_status s2 = run(ctx, &d, 0, nthreads[k], x, &c, &r, &nc, ex, sizeof ex);
                            CHECK(s2 == LWT_OK, "%s fused: %s", name, lwt_status_string(s2));
                            if (s2 == LWT_OK) {
                                CHECK(strstr(ex, "fused level") != NULL, "%s: the plan does not fuse:\n%s", name, ex);
                                CHECK(nc == nc0 && memcmp(c, c0, nc0 * es) == 0,
                                      "%s %s %dD %zux%zux%zu mode %d %s, %d threads: fused coefficients differ "
                                      "from the passes",
                                      name, dt ? "f64" : "f32", sc->ndim, sc->shape[0], sc->shape[1], sc->shape[2],
                                      mode, conv ? "convolution" : "auto", nthreads[k]);
                                CHECK(memcmp(r, r0, n * es) == 0,
                                      "%s %s %dD %zux%zux%zu mode %d %s, %d threads: fused reconstruction differs",
                                      name, dt ? "f64" : "f32", sc->ndim, sc->shape[0], sc->shape[1], sc->shape[2],
                                      mode, conv ? "convolution" : "auto", nthreads[k]);
                                cases++;
                            }
                            free(c);
                            free(r);
                        }
                        free(x);
                        free(c0);
                        free(r0);
                    }
            }
        }
        lwt_wavelet_destroy(w);
    }
    CHECK(cases > 0, "no case compared");
    printf("test_cpu_level: %zu comparisons with the separable passes\n", cases);
    lwt_context_destroy(ctx);
    return finish("test_cpu_level");
}
