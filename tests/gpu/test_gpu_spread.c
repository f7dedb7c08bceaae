/*
 * Device-resident transforms spread over several devices (lwt_spread_*;
 * label gpu, run on the device machine): forward and inverse give the bits of
 * lwt_forward_device / lwt_inverse_device on one device, for every device
 * list - one GPU playing 2, 3 and 5 parts, and every GPU of the machine when
 * there are several - over wavelets, modes, odd sizes, levels and dtypes.
 * Checks too that the levels really are shared out where the register kernel
 * runs them (else a silent fallback would pass), that rows are placed on the
 * devices that write them, and that bad arguments are refused.
 * Exits 77 (skipped) without a CUDA device.
 *
 * Usage: test_gpu_spread [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>

#include "lwt_cuda.h"
#endif

static int failures, cases, n_split; /* n_split: directions that ran shared out */

#define CHECK(cond, ...)                                                                               \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            failures++;                                                                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                \
            printf(__VA_ARGS__);                                                                       \
            printf("\n");                                                                              \
        }                                                                                              \
    } while (0)

#ifdef LWT_HAVE_CUDA
static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

static lwt_context *ctx;

/* a 2-D plan on device 0 (backend CUDA) or the CPU; *w made here unless given */
static lwt_plan *make_plan_on(const char *wname, lwt_mode mode, size_t n0, size_t n1, int levels, lwt_dtype dt,
                              lwt_backend backend, lwt_wavelet **w)
{
    const int made = !*w;
    if (made && lwt_wavelet_create(ctx, wname, w))
        return NULL;
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = *w;
    d.ndim = 2;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = levels;
    d.mode = mode;
    d.dtype = dt;
    d.backend = backend;
    d.device = 0;
    lwt_plan *p = NULL;
    if (lwt_plan_create(ctx, &d, &p) && made) {
        lwt_wavelet_destroy(*w);
        *w = NULL;
    }
    return p;
}

static lwt_plan *make_plan(const char *wname, lwt_mode mode, size_t n0, size_t n1, int levels, lwt_dtype dt,
                           lwt_wavelet **w)
{
    return make_plan_on(wname, mode, n0, n1, levels, dt, LWT_BACKEND_CUDA, w);
}

/* spread results on device list devs == the one-device transform, both directions */
static void check_case(const char *wname, lwt_mode mode, size_t n0, size_t n1, int levels, lwt_dtype dt,
                       const int *devs, int ndev, int expect_fwd, int expect_inv)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = make_plan(wname, mode, n0, n1, levels, dt, &w);
    cases++;
    if (!p) {
        CHECK(0, "%s %s %zux%zu L%d: no plan", wname, lwt_mode_name(mode), n0, n1, levels);
        return;
    }
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    const size_t es = dt == LWT_F32 ? 4 : 8, nin = info.input_count * es, nco = info.coeff_count * es;
    char *h_in = malloc(nin), *h_ref = malloc(nco), *h_got = malloc(nco), *h_back = malloc(nin),
         *h_bref = malloc(nin);
    for (size_t i = 0; i < info.input_count; i++) {
        if (dt == LWT_F32)
            ((float *)h_in)[i] = (float)rnd();
        else
            ((double *)h_in)[i] = rnd();
    }
    /* one device, in memory */
    void *d_in = NULL, *d_co = NULL, *d_back = NULL, *d_ws = NULL;
    size_t wsb = 0;
    lwt_plan_device_workspace_size(p, &wsb);
    cudaSetDevice(0);
    int ok = cudaMalloc(&d_in, nin) == cudaSuccess && cudaMalloc(&d_co, nco) == cudaSuccess &&
             cudaMalloc(&d_back, nin) == cudaSuccess && cudaMalloc(&d_ws, wsb ? wsb : 1) == cudaSuccess;
    ok = ok && cudaMemcpy(d_in, h_in, nin, cudaMemcpyHostToDevice) == cudaSuccess;
    ok = ok && !lwt_forward_device(p, d_in, d_co, d_ws, 0) && !lwt_inverse_device(p, d_co, d_back, d_ws, 0);
    ok = ok && cudaMemcpy(h_ref, d_co, nco, cudaMemcpyDeviceToHost) == cudaSuccess &&
         cudaMemcpy(h_bref, d_back, nin, cudaMemcpyDeviceToHost) == cudaSuccess;
    CHECK(ok, "%s: the one-device reference failed", wname);
    /* spread */
    lwt_spread *s = NULL;
    void *s_in = NULL, *s_co = NULL, *s_back = NULL;
    lwt_status st = lwt_spread_create(p, ndev, devs, &s);
    CHECK(st == LWT_OK, "%s: lwt_spread_create: %s", wname, lwt_status_string(st));
    if (ok && s) {
        const int sf = lwt_spread_split(s, 0), si = lwt_spread_split(s, 1);
        CHECK((expect_fwd < 0 || sf == expect_fwd) && (expect_inv < 0 || si == expect_inv),
              "%s %s %zux%zu L%d %s: split forward %d inverse %d, expected %d %d", wname, lwt_mode_name(mode), n0, n1,
              levels, dt == LWT_F32 ? "f32" : "f64", sf, si, expect_fwd, expect_inv);
        n_split += sf + si;
        ok = !lwt_spread_alloc(s, LWT_SPREAD_SAMPLES, &s_in) && !lwt_spread_alloc(s, LWT_SPREAD_COEFFS, &s_co) &&
             !lwt_spread_alloc(s, LWT_SPREAD_SAMPLES, &s_back);
        CHECK(ok, "%s: lwt_spread_alloc failed", wname);
        ok = ok && cudaMemcpy(s_in, h_in, nin, cudaMemcpyHostToDevice) == cudaSuccess;
        /* poison the outputs: every value must be written */
        ok = ok && cudaMemset(s_co, 0x7f, nco) == cudaSuccess && cudaMemset(s_back, 0x7f, nin) == cudaSuccess;
        st = ok ? lwt_spread_forward(s, s_in, s_co) : LWT_ERR_DEVICE;
        CHECK(st == LWT_OK, "%s: lwt_spread_forward: %s", wname, lwt_status_string(st));
        ok = ok && !st && cudaMemcpy(h_got, s_co, nco, cudaMemcpyDeviceToHost) == cudaSuccess;
        CHECK(ok && !memcmp(h_got, h_ref, nco), "%s %s %zux%zu L%d %s on %d parts: forward differs from one device",
              wname, lwt_mode_name(mode), n0, n1, levels, dt == LWT_F32 ? "f32" : "f64", ndev);
        /* the inverse from the reference coefficients */
        ok = ok && cudaMemcpy(s_co, h_ref, nco, cudaMemcpyHostToDevice) == cudaSuccess;
        st = ok ? lwt_spread_inverse(s, s_co, s_back) : LWT_ERR_DEVICE;
        CHECK(st == LWT_OK, "%s: lwt_spread_inverse: %s", wname, lwt_status_string(st));
        ok = ok && !st && cudaMemcpy(h_back, s_back, nin, cudaMemcpyDeviceToHost) == cudaSuccess;
        CHECK(ok && !memcmp(h_back, h_bref, nin), "%s %s %zux%zu L%d %s on %d parts: inverse differs from one device",
              wname, lwt_mode_name(mode), n0, n1, levels, dt == LWT_F32 ? "f32" : "f64", ndev);
    }
    CHECK(lwt_spread_free(s, s_in) == LWT_OK && lwt_spread_free(s, s_co) == LWT_OK &&
              lwt_spread_free(s, s_back) == LWT_OK,
          "%s: lwt_spread_free", wname);
    lwt_spread_destroy(s);
    cudaFree(d_in);
    cudaFree(d_co);
    cudaFree(d_back);
    cudaFree(d_ws);
    free(h_in);
    free(h_ref);
    free(h_got);
    free(h_back);
    free(h_bref);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

/* rows are placed where they are written: the first samples on the first device, the last on the last */
static void check_placement(int ndev_real)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = make_plan("cdf97", LWT_MODE_PERIODIZATION, 2048, 2048, 3, LWT_F32, &w);
    cases++;
    if (!p) {
        CHECK(0, "placement: no plan");
        return;
    }
    int devs[2] = {0, ndev_real > 1 ? 1 : 0};
    lwt_spread *s = NULL;
    void *a = NULL, *c = NULL;
    CHECK(lwt_spread_create(p, 2, devs, &s) == LWT_OK, "placement: create");
    if (s && !lwt_spread_alloc(s, LWT_SPREAD_SAMPLES, &a) && !lwt_spread_alloc(s, LWT_SPREAD_COEFFS, &c)) {
        const size_t bytes = (size_t)2048 * 2048 * 4;
        int d0 = -1, d1 = -1, c0 = -1, c1 = -1, cm = -1;
        lwt_spread_device_of(s, a, 0, &d0);
        lwt_spread_device_of(s, a, bytes - 1, &d1);
        lwt_spread_device_of(s, c, 0, &c0);
        lwt_spread_device_of(s, c, bytes / 2 - 1, &c1);    /* last row of the top half: level-2 row 511 */
        lwt_spread_device_of(s, c, bytes / 2 + 4096, &cm); /* first rows of the lower half: level-1 row 0 */
        /* packed row 600 holds level-1 row 600 (the second device's) beside level-2 row 88 (the
           first's): the coarser band decides (spread_layout.c) */
        int cl = -1;
        lwt_spread_device_of(s, c, (size_t)600 * 2048 * 4, &cl);
        CHECK(cl == devs[0], "placement: packed row 600 on %d, expected %d (its level-2 band's device)", cl, devs[0]);
        CHECK(d0 == devs[0] && d1 == devs[1], "placement: samples on %d .. %d, expected %d .. %d", d0, d1, devs[0],
              devs[1]);
        CHECK(c0 == devs[0] && c1 == devs[1] && cm == devs[0],
              "placement: packed rows on %d, %d, %d; expected %d, %d, %d", c0, c1, cm, devs[0], devs[1], devs[0]);
        int dx = 0;
        CHECK(lwt_spread_device_of(s, a, bytes, &dx) == LWT_ERR_INVALID_ARGUMENT, "placement: past the end accepted");
    } else {
        CHECK(0, "placement: no arrays");
    }
    lwt_spread_destroy(s); /* frees a and c */
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static void check_bad_arguments(void)
{
    lwt_wavelet *w = NULL;
    lwt_plan *p = make_plan("db2", LWT_MODE_SYMMETRIC, 64, 64, 2, LWT_F64, &w);
    cases++;
    lwt_spread *s = NULL;
    const int none[1] = {99}, other[1] = {0};
    int count = 0;
    cudaGetDeviceCount(&count);
    CHECK(lwt_spread_create(p, 1, none, &s) == LWT_ERR_INVALID_ARGUMENT && !s, "a missing device accepted");
    CHECK(lwt_spread_create(p, 0, other, &s) == LWT_ERR_INVALID_ARGUMENT && !s, "no devices accepted");
    CHECK(lwt_spread_create(NULL, 1, other, &s) == LWT_ERR_INVALID_ARGUMENT && !s, "no plan accepted");
    if (count > 1) {
        const int not_plans[1] = {1};
        CHECK(lwt_spread_create(p, 1, not_plans, &s) == LWT_ERR_INVALID_ARGUMENT && !s,
              "a list without the plan's device accepted");
    }
    /* a CPU plan (the same wavelet) */
    lwt_plan *cpu = make_plan_on("db2", LWT_MODE_SYMMETRIC, 64, 64, 2, LWT_F64, LWT_BACKEND_CPU, &w);
    CHECK(cpu && lwt_spread_create(cpu, 1, other, &s) == LWT_ERR_INVALID_ARGUMENT && !s, "a CPU plan accepted");
    CHECK(lwt_spread_create(p, 1, other, &s) == LWT_OK && s, "a good spread refused");
    CHECK(lwt_spread_forward(s, NULL, NULL) == LWT_ERR_INVALID_ARGUMENT, "NULL arrays accepted");
    int x = 0;
    CHECK(lwt_spread_free(s, &x) == LWT_ERR_INVALID_ARGUMENT, "a foreign pointer freed");
    lwt_spread_destroy(s);
    lwt_plan_destroy(cpu);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}
#endif

int main(int argc, char **argv)
{
#ifndef LWT_HAVE_CUDA
    (void)argc;
    (void)argv;
    printf("test_gpu_spread: built without CUDA, skipped\n");
    return 77;
#else
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    lwt_context_create(&ctx);
    const int ndev = lwt_context_device_count(ctx);
    if (ndev < 1) {
        printf("test_gpu_spread: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    /* device lists: one GPU playing several parts, every GPU, and the GPUs repeated */
    int lists[6][8], nlist[6], nl = 0;
    const int parts[3] = {2, 3, 5};
    for (int i = 0; i < 3; i++) {
        nlist[nl] = parts[i];
        for (int k = 0; k < parts[i]; k++)
            lists[nl][k] = 0;
        nl++;
    }
    if (ndev > 1) {
        nlist[nl] = ndev < 8 ? ndev : 8;
        for (int k = 0; k < nlist[nl]; k++)
            lists[nl][k] = k;
        nl++;
        nlist[nl] = 2 * (ndev < 4 ? ndev : 4);
        for (int k = 0; k < nlist[nl]; k++)
            lists[nl][k] = k % (ndev < 4 ? ndev : 4);
        nl++;
    }
    /* the register kernel's shapes (split) and one that is not (db3: the plan's device alone) */
    const char *split_w[] = {"haar", "db2", "bior2.2", "cdf97", "db4", "db10"};
    const lwt_mode modes[] = {LWT_MODE_PERIODIZATION, LWT_MODE_SYMMETRIC, LWT_MODE_ZERO, LWT_MODE_REFLECT,
                              LWT_MODE_PERIODIC, LWT_MODE_ANTISYMMETRIC, LWT_MODE_CONSTANT};
    const size_t sizes[][2] = {{512, 768}, {301, 517}, {1030, 257}};
    const int nw = quick ? 3 : 6, nm = quick ? 3 : 7, ns = quick ? 2 : 3;
    /* levels beyond a size's maximum, and float32 schemes whose float arithmetic is not
       accepted, run on the plan's device: whether a case splits is not asserted in the
       loop, but most must (a split path that always fell back would pass the bits) */
    for (int li = 0; li < nl; li++)
        for (int wi = 0; wi < nw; wi++)
            for (int mi = 0; mi < nm; mi++)
                for (int si = 0; si < ns; si++) {
                    const int levels = 1 + (wi + mi + si) % 4;
                    const lwt_dtype dt = (wi + mi + si + li) % 2 ? LWT_F64 : LWT_F32;
                    check_case(split_w[wi], modes[mi], sizes[si][0], sizes[si][1], levels, dt, lists[li], nlist[li],
                               -1, -1);
                }
    const int loop_cases = cases;
    CHECK(n_split >= loop_cases, "only %d of %d directions ran shared out", n_split, 2 * loop_cases);
    /* these must split: register shapes within their maximum level */
    for (int wi = 0; wi < 4; wi++) {
        check_case(split_w[wi], LWT_MODE_PERIODIZATION, 512, 768, 3, LWT_F32, lists[0], nlist[0], 1, 1);
        check_case(split_w[wi], LWT_MODE_SYMMETRIC, 301, 517, 2, LWT_F64, lists[1], nlist[1], 1, 1);
    }
    /* not split: a shape without a register kernel, and the forward of smooth (no kernel there) */
    check_case("sym5", LWT_MODE_SYMMETRIC, 301, 517, 3, LWT_F32, lists[0], nlist[0], 0, 0);
    check_case("cdf97", LWT_MODE_SMOOTH, 256, 300, 2, LWT_F64, lists[0], nlist[0], 0, -1);
    /* big enough for several granules per part */
    check_case("cdf97", LWT_MODE_PERIODIZATION, 2048, 2048, 4, LWT_F32, lists[nl - 1], nlist[nl - 1], 1, 1);
    check_case("db4", LWT_MODE_SYMMETRIC, 2053, 1999, 3, LWT_F64, lists[nl - 1], nlist[nl - 1], 1, 1);
    /* big: many granules per part, so the placement of every level's rows matters (packed rows
       go to their coarsest band's device, spread_layout.c), at sizes where a level's share on a
       device runs many waves of blocks; the outputs are poisoned first */
    const int all = ndev > 1 ? 3 : 0; /* every GPU, or two parts of one */
    check_case("cdf97", LWT_MODE_PERIODIZATION, 16384, 16384, 4, LWT_F32, lists[all], nlist[all], 1, 1);
    check_case("cdf97", LWT_MODE_SYMMETRIC, 12289, 16383, 3, LWT_F32, lists[1], nlist[1], 1, 1);
    if (!quick)
        check_case("db2", LWT_MODE_PERIODIC, 9001, 12000, 4, LWT_F64, lists[all], nlist[all], 1, 1);
    check_placement(ndev);
    check_bad_arguments();
    printf("test_gpu_spread: %d cases (%d GPU%s), %d failures; spread results match one device bit for bit\n", cases,
           ndev, ndev > 1 ? "s" : "", failures);
    lwt_context_destroy(ctx);
    return failures ? 1 : 0;
#endif
}
