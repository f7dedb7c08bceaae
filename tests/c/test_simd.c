/*
 * test_simd: the CPU passes give the same bits on every instruction set (lwt_plan_tuning.cpu_simd:
 * portable, AVX2, AVX-512) and every thread count. Every third catalog wavelet (every 9th under
 * LWT_QUICK, the sanitizer run), every mode, float32 and float64, 1-D, 2-D and 3-D, lifting and
 * filter bank (the convolution algorithm forced too, in float64), forward and inverse: AVX2 on
 * one thread, AVX-512 and the automatic choice on two, each against the portable path
 * on one thread, bit for bit.
 * Instruction sets this CPU or build lacks are skipped with a message (a plan asking for one
 * must fail with LWT_ERR_UNSUPPORTED), and the plan's explanation must name the one it runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lwt.h"
#include "lwt_experimental.h"
#define TUNED_RUNS_SEED 0x9e3779b97f4a7c15ull
#include "tuned_runs.h"


static const shape_case SHAPES[] = {
    {1, {257, 1, 1}, 3, 0},
    {2, {37, 53, 1}, 2, 0},
    {3, {9, 11, 13}, 1, 0},
    /* big enough for two threads (a pass takes at least 32 Ki samples a thread: cpu_pass_entry.h);
       every 9th wavelet only */
    {2, {301, 229, 1}, 3, 0},
};
#define BIG_SHAPE 3

/* forward then inverse of x with one setting; coeffs and recon hold the results */
static lwt_status run(lwt_context *ctx, const lwt_plan_desc *d, lwt_cpu_simd simd, int threads, const void *x,
                      void **coeffs, void **recon, size_t *ncoeffs, char *explain, size_t explain_len)
{
    lwt_plan_tuning t = lwt_plan_tuning_default();
    t.cpu_simd = simd;
    return tuned_run(ctx, d, &t, threads, x, coeffs, recon, ncoeffs, explain, explain_len);
}

int main(void)
{
    const int quick = getenv("LWT_QUICK") != NULL;
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx))
        return 1;
    CHECK(lwt_cpu_simd_available(LWT_SIMD_AUTO) && lwt_cpu_simd_available(LWT_SIMD_PORTABLE),
          "the portable path is always there");
    const lwt_cpu_simd paths[] = {LWT_SIMD_AVX2, LWT_SIMD_AVX512};
    int have[2];
    for (int i = 0; i < 2; i++) {
        have[i] = lwt_cpu_simd_available(paths[i]);
        if (!have[i])
            printf("test_simd: %s is not available on this CPU or build: skipped\n",
                   paths[i] == LWT_SIMD_AVX2 ? "AVX2" : "AVX-512");
    }
    size_t cases = 0;
    const int nw = lwt_wavelet_catalog_count();
    for (int wi = 0; wi < nw; wi += quick ? 9 : 3) {
        const char *name = lwt_wavelet_catalog_name(wi);
        lwt_wavelet *w = NULL;
        if (lwt_wavelet_create(ctx, name, &w)) {
            CHECK(0, "catalog wavelet %s cannot be made", name);
            continue;
        }
        for (int si = 0; si < (int)(sizeof SHAPES / sizeof SHAPES[0]) && (si < BIG_SHAPE || wi % 9 == 0); si++)
            for (int mode = 0; mode < LWT_MODE_COUNT; mode++)
                for (int dt = 0; dt < 2; dt++)
                    for (int conv = 0; conv < 1 + dt; conv++) {
                        const shape_case *sc = &SHAPES[si];
                        const lwt_plan_desc d = case_desc(w, sc, mode, dt, conv);
                        const size_t n = sc->shape[0] * sc->shape[1] * sc->shape[2], es = dt ? 8 : 4;
                        void *x = random_input(n, dt);
                        void *c0 = NULL, *r0 = NULL;
                        size_t ncoeffs = 0;
                        lwt_status st = run(ctx, &d, LWT_SIMD_PORTABLE, 1, x, &c0, &r0, &ncoeffs, NULL, 0);
                        if (st == LWT_ERR_INVALID_ARGUMENT) { /* too many levels for this shape and filter */
                            free(x);
                            free(c0);
                            free(r0);
                            continue;
                        }
                        CHECK(st == LWT_OK, "%s portable: %s", name, lwt_status_string(st));
                        /* AVX2 on one thread, AVX-512 and the automatic choice on two */
                        const lwt_cpu_simd tries[] = {LWT_SIMD_AVX2, LWT_SIMD_AVX512, LWT_SIMD_AUTO};
                        const int nthreads[] = {1, 2, 2};
                        for (int k = 0; k < 3 && st == LWT_OK; k++) {
                                const int threads = nthreads[k];
                                if (k < 2 && !have[k]) {
                                    void *c = NULL, *r = NULL;
                                    lwt_status s2 = run(ctx, &d, tries[k], threads, x, &c, &r, NULL, NULL, 0);
                                    CHECK(s2 == LWT_ERR_UNSUPPORTED, "an absent instruction set gave %s",
                                          lwt_status_string(s2));
                                    free(c);
                                    free(r);
                                    continue;
                                }
                                char ex[4096];
                                void *c = NULL, *r = NULL;
                                lwt_status s2 = run(ctx, &d, tries[k], threads, x, &c, &r, NULL, ex, sizeof ex);
                                CHECK(s2 == LWT_OK, "%s %d: %s", name, (int)tries[k], lwt_status_string(s2));
                                if (s2 == LWT_OK) {
                                    const char *want = tries[k] == LWT_SIMD_AVX2     ? "(avx2 passes)"
                                                       : tries[k] == LWT_SIMD_AVX512 ? "(avx512 passes)"
                                                       : have[1]                     ? "(avx512 passes)"
                                                       : have[0]                     ? "(avx2 passes)"
                                                                                     : "(portable passes)";
                                    CHECK(strstr(ex, want) != NULL, "%s: explanation lacks %s: %.120s", name, want,
                                          ex);
                                    CHECK(memcmp(c, c0, ncoeffs * es) == 0,
                                          "%s %s %dD mode %d %s, set %d, %d threads: coefficients differ from "
                                          "the portable path",
                                          name, dt ? "f64" : "f32", sc->ndim, mode, conv ? "convolution" : "auto",
                                          (int)tries[k], threads);
                                    CHECK(memcmp(r, r0, n * es) == 0,
                                          "%s %s %dD mode %d %s, set %d, %d threads: reconstruction differs", name,
                                          dt ? "f64" : "f32", sc->ndim, mode, conv ? "convolution" : "auto",
                                          (int)tries[k], threads);
                                    cases++;
                                }
                                free(c);
                                free(r);
                            }
                        free(x);
                        free(c0);
                        free(r0);
                    }
        lwt_wavelet_destroy(w);
    }
    CHECK(cases > 0, "no case compared");
    printf("test_simd: %zu comparisons with the portable path\n", cases);
    lwt_context_destroy(ctx);
    return finish("test_simd");
}
