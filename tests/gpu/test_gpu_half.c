/*
 * float16 and bfloat16 plans on device pointers (lwt_forward_device / lwt_inverse_device,
 * src/cuda/cuda_half.cu; label gpu, run on the device machine): bit for bit the float32 CUDA
 * plan of the same description on the widened input, each result rounded, both done here with
 * the tests' own conversions (tests/c/half_ref.h), over wavelets, modes, 1-3-D, odd and even
 * sizes, levels and batches; the device workspace it asks for; a CPU plan refused. The fused
 * levels (2-D arrays whose levels all run on the register kernel, 16 bits read and written by
 * the kernels themselves) for every compiled-in shape, batches too, with the plan saying it runs them. The
 * device's float16 and bfloat16 conversions (the hardware's) equal the portable ones for every input
 * (half_cvt_check.cu). The host-pointer path of the same plans: test_half --cuda. Exits 77
 * without a CUDA device.
 *
 * Usage: test_gpu_half
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>

#include "check.h"
#include "half_ref.h"
#include "lwt_cuda.h"
#endif

#ifdef LWT_HAVE_CUDA
static int cases, fused_cases;
static lwt_context *ctx;
static int batch_items; /* lwt_plan_tuning.batch_items of the plans made here */

int half_cvt_check(unsigned long long mismatches[3], unsigned first[3]); /* half_cvt_check.cu */

static lwt_plan *plan(const lwt_wavelet *w, int nd, const size_t *shape, int levels, lwt_mode mode, lwt_dtype dt,
                      size_t batch, lwt_backend backend)
{
    return half_test_plan(ctx, w, nd, shape, levels, mode, dt, batch, backend, LWT_ALGO_AUTO, batch_items);
}

/* plan p on device copies of the n_in host values `in` (es bytes each) into n_out values; the
   device arrays start off values into their allocations (off 1: 16-bit arrays that are not
   4-byte aligned, which the fused inverse's paired band loads must leave to their one-value loop) */
static int on_device(const lwt_plan *p, int inverse, const void *in, size_t n_in, void *out, size_t n_out, size_t es,
                     size_t off)
{
    size_t wsb = 0;
    void *din = NULL, *dout = NULL, *dws = NULL;
    int ok = lwt_plan_device_workspace_size(p, &wsb) == LWT_OK && cudaMalloc(&din, (n_in + off) * es) == cudaSuccess &&
             cudaMalloc(&dout, (n_out + off) * es) == cudaSuccess && cudaMalloc(&dws, wsb ? wsb : 1) == cudaSuccess;
    char *di = (char *)din + off * es, *dou = (char *)dout + off * es;
    ok = ok && cudaMemcpy(di, in, n_in * es, cudaMemcpyHostToDevice) == cudaSuccess;
    ok = ok && (inverse ? lwt_inverse_device(p, di, dou, dws, 0) : lwt_forward_device(p, di, dou, dws, 0)) == LWT_OK;
    ok = ok && cudaMemcpy(out, dou, n_out * es, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dws);
    return ok;
}

/* one direction: the 16-bit plan on the device against the reference, bits compared */
static void direction(const fmt *f, const lwt_plan *p, const lwt_plan *q, int inverse, const uint16_t *in, size_t nin,
                      uint16_t *out, size_t nout, const char *what)
{
    uint16_t *want = malloc(nout * 2);
    float *x = malloc(nin * 4), *y = malloc(nout * 4);
    ref_widen(f, in, x, nin);
    const int ok = on_device(p, inverse, in, nin, out, nout, 2, (size_t)(cases % 2)) &&
                   on_device(q, inverse, x, nin, y, nout, 4, 0);
    CHECK(ok, "%s: a device run failed", what);
    ref_narrow(f, y, want, nout);
    size_t bad = 0, first = 0;
    for (size_t i = 0; ok && i < nout; i++)
        if (!same_bits(f, out[i], want[i]) && !bad++)
            first = i;
    CHECK(bad == 0, "%s %s: %zu of %zu values differ (first %zu: 0x%04x, want 0x%04x)", what,
          inverse ? "inverse" : "forward", bad, nout, first, out[first], want[first]);
    free(want);
    free(x);
    free(y);
}

/* whether 16-bit plan p runs fused levels on device arrays, as its explanation says */
static int says_fused(const lwt_plan *p)
{
    char text[4096];
    size_t need = 0;
    return lwt_plan_explain(p, text, sizeof text, &need) == LWT_OK && strstr(text, "storage, fused") != NULL;
}

/* want_fused: 1 the plan must run fused levels, -1 either way */
static void check_case(const fmt *f, const lwt_wavelet *w, const char *wn, int nd, const size_t *shape, int levels,
                       lwt_mode mode, size_t batch, unsigned long long seed, int want_fused)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s %d-D %zux%zux%zu L%d mode %d batch %zu", f->name, wn, nd, shape[0], shape[1],
             shape[2], levels, (int)mode, batch);
    lwt_plan *p = plan(w, nd, shape, levels, mode, f->dt, batch, LWT_BACKEND_CUDA);
    lwt_plan *q = plan(w, nd, shape, levels, mode, LWT_F32, batch, LWT_BACKEND_CUDA);
    CHECK(p && q, "%s: no plan", what);
    if (p && q) {
        lwt_plan_info info;
        lwt_plan_get_info(p, &info);
        size_t w16 = 0, w32 = 0;
        CHECK(lwt_plan_device_workspace_size(p, &w16) == LWT_OK && lwt_plan_device_workspace_size(q, &w32) == LWT_OK &&
                  w16 >= w32 + 2 * 4 * batch * info.coeff_count,
              "%s: device workspace %zu (float32 plan's %zu)", what, w16, w32);
        const int fused = says_fused(p);
        CHECK(fused || want_fused != 1, "%s: the plan does not run fused 16-bit levels", what);
        fused_cases += fused;
        const size_t nin = info.input_count * batch, nc = info.coeff_count * batch;
        uint16_t *x = malloc(nin * 2), *c = malloc(nc * 2), *y = malloc(nin * 2);
        ref_random(f, x, nin, seed);
        direction(f, p, q, 0, x, nin, c, nc, what);
        direction(f, p, q, 1, c, nc, y, nin, what);
        cases++;
        free(x);
        free(c);
        free(y);
    }
    lwt_plan_destroy(p);
    lwt_plan_destroy(q);
}

static void cpu_plan_refused(void)
{
    lwt_wavelet *w = NULL;
    lwt_wavelet_create(ctx, "haar", &w);
    const size_t s[3] = {16, 1, 1};
    lwt_plan *p = plan(w, 1, s, 1, LWT_MODE_ZERO, LWT_F16, 1, LWT_BACKEND_CPU);
    size_t bytes = 0;
    void *d = NULL;
    cudaMalloc(&d, 4096);
    CHECK(p && lwt_plan_device_workspace_size(p, &bytes) != LWT_OK, "a CPU float16 plan has no device workspace");
    CHECK(p && lwt_forward_device(p, d, d, d, 0) != LWT_OK, "a CPU float16 plan refused on device pointers");
    cudaFree(d);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}
#endif

int main(void)
{
#ifndef LWT_HAVE_CUDA
    printf("test_gpu_half: built without CUDA, skipped\n");
    return 77;
#else
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("test_gpu_half: no CUDA device, skipped\n");
        return 77;
    }
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    unsigned long long bad[3] = {1, 1, 1};
    unsigned first[3] = {0, 0, 0};
    CHECK(half_cvt_check(bad, first) == 0, "the conversion check did not run on the device");
    CHECK(bad[0] == 0, "device float16 narrowing: %llu of 2^32 float32 values differ from half.h's (first 0x%08x)",
          bad[0], first[0]);
    CHECK(bad[1] == 0, "device float16 widening: %llu of 2^16 values differ from half.h's (first 0x%04x)", bad[1],
          first[1]);
    CHECK(bad[2] == 0, "device bfloat16 narrowing: %llu of 2^32 float32 values differ from half.h's (first 0x%08x)",
          bad[2], first[2]);
    static const char *names[] = {"haar", "db4", "cdf97", "sym8", "coif3", "db20", "rbio3.5", "dmey"};
    static const size_t sizes[][3] = {{37, 1, 1}, {256, 1, 1}, {19, 24, 1}, {64, 33, 1}, {9, 12, 11}, {8, 7, 6}};
    const fmt *fmts[2] = {&F16, &BF16};
    int k = 0;
    for (size_t wi = 0; wi < sizeof names / sizeof names[0]; wi++) {
        lwt_wavelet *w = NULL;
        if (lwt_wavelet_create(ctx, names[wi], &w) != LWT_OK)
            continue;
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++, k++) {
            const size_t *s = sizes[k % 6];
            const int nd = s[2] > 1 ? 3 : s[1] > 1 ? 2 : 1;
            check_case(fmts[k % 2], w, names[wi], nd, s, nd == 3 ? 1 + k % 2 : 1 + k % 3, (lwt_mode)mode,
                       k % 5 == 4 && nd < 3 ? 3 : 1, 7u + (unsigned long long)k, -1);
        }
        lwt_wavelet_destroy(w);
    }
    /* the fused levels: every compiled-in shape of the register kernel (src/cuda/cuda_regs_pipe.cuh),
       even and odd sizes, the modes whose forward it runs; periodization and symmetric must fuse
       at the two large sizes, the rest may take the conversions (counted) */
    static const char *fused_names[] = {"haar", "db2", "bior2.2", "cdf97", "db4", "db10"};
    static const size_t fsizes[][3] = {{1024, 768, 1}, {515, 1030, 1}, {97, 64, 1}};
    static const lwt_mode fmodes[] = {LWT_MODE_PERIODIZATION, LWT_MODE_SYMMETRIC, LWT_MODE_ZERO, LWT_MODE_PERIODIC,
                                      LWT_MODE_REFLECT};
    for (size_t wi = 0; wi < sizeof fused_names / sizeof fused_names[0]; wi++) {
        lwt_wavelet *w = NULL;
        if (lwt_wavelet_create(ctx, fused_names[wi], &w) != LWT_OK) {
            CHECK(0, "no wavelet %s", fused_names[wi]);
            continue;
        }
        for (int si = 0; si < 3; si++)
            for (size_t mi = 0; mi < sizeof fmodes / sizeof fmodes[0]; mi++, k++)
                check_case(fmts[k % 2], w, fused_names[wi], 2, fsizes[si], si == 2 ? 1 : 4 - si, fmodes[mi], 1,
                           101u + (unsigned long long)k, si < 2 && mi < 2 ? 1 : -1);
        /* batches: each level on every array in one launch (pairs of levels where the float32
           plan pairs them: periodization, sizes multiples of 4), and the arrays one after the
           other (lwt_plan_tuning.batch_items); periodization and symmetric must fuse at 256 x 260 */
        static const size_t bsizes[][3] = {{256, 260, 1}, {67, 130, 1}};
        for (int si = 0; si < 2; si++)
            for (size_t mi = 0; mi < 2; mi++, k++)
                for (batch_items = 0; batch_items < 2; batch_items++)
                    check_case(fmts[k % 2], w, fused_names[wi], 2, bsizes[si], 3 - si, fmodes[mi], 5 - 2 * (size_t)si,
                               301u + (unsigned long long)k, si == 0 ? 1 : -1);
        batch_items = 0;
        lwt_wavelet_destroy(w);
    }
    cpu_plan_refused();
    printf("test_gpu_half: %d cases, %d of them fused\n", cases, fused_cases);
    lwt_context_destroy(ctx);
    return finish("test_gpu_half");
#endif
}
