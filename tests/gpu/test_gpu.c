/*
 * GPU == CPU: every plan the CPU accepts, run on the CUDA backend, matches
 * the CPU backend within the per-wavelet bounds (float64 <= max(1e-12,
 * 10 x the filter table's own reconstruction error, see docs/ACCURACY.md),
 * float32 <= 1e-5), on random data, forward and inverse, over wavelets x
 * modes x dims x odd sizes x levels x batches. Also the device-pointer API.
 * Exits 77 (skipped) when no CUDA device is present (CI).
 *
 * Usage: test_gpu [--quick] [--small] [--seed N]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "lwt_experimental.h"
#ifdef LWT_HAVE_CUDA
#include "lwt_cuda.h"
#endif

static unsigned long long rng_state;
static double rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

static int failures = 0, checks = 0;
static double worst_ratio = 0;

static double rel_err(const void *a, const void *b, size_t n, lwt_dtype dt)
{
    double e = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double x = dt == LWT_F32 ? ((const float *)a)[i] : ((const double *)a)[i];
        double y = dt == LWT_F32 ? ((const float *)b)[i] : ((const double *)b)[i];
        if (!(fabs(x - y) <= e)) e = fabs(x - y); /* NaN propagates as failure */
        if (fabs(y) > m) m = fabs(y);
    }
    return m > 0 ? e / m : e;
}

static lwt_algorithm gpu_algo = LWT_ALGO_AUTO; /* algorithm of the CUDA plan (the CPU plan uses AUTO) */
static int gpu_threads, gpu_cols;              /* its lbb_threads and lbb_cols (0: the planner's) */
/* 1: the CUDA plan runs improved lifting, and a second CUDA plan with classic lifting must give
   the same bits (the register kernel's two variants, lwt_plan_tuning.lifting) */
static int compare_lifting;
/* 1: a second CUDA plan with one level per pass (lwt_plan_tuning.fuse_levels) must give the
   same bits as the first, which runs levels in pairs where it can */
static int compare_fuse;
/* 1: a second CUDA plan with its 3-D forward levels in one pass where the volume kernel applies
   (lwt_plan_tuning.volume_pass) must give the same bits as the first, by planes */
static int compare_volume;

static void run_case(lwt_context *ctx, const char *wname, int ndim, const size_t *shape, int levels, lwt_mode mode,
                     lwt_dtype dt, size_t batch)
{
    lwt_wavelet *w;
    if (lwt_wavelet_create(ctx, wname, &w) != LWT_OK) {
        failures++;
        return;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = ndim;
    for (int k = 0; k < ndim; k++)
        d.shape[k] = shape[k];
    d.levels = levels;
    d.mode = mode;
    d.dtype = dt;
    d.batch = batch;
    lwt_plan *pc = NULL, *pg = NULL;
    d.backend = LWT_BACKEND_CPU;
    lwt_status sc = lwt_plan_create(ctx, &d, &pc);
    d.backend = LWT_BACKEND_CUDA;
    d.algorithm = gpu_algo;
    lwt_plan_tuning t = lwt_plan_tuning_default();
    t.lbb_threads = gpu_threads;
    t.lbb_cols = gpu_cols;
    t.lifting = compare_lifting ? LWT_LIFT_IMPROVED : LWT_LIFT_AUTO;
    lwt_status sg = lwt_plan_create_tuned(ctx, &d, &t, &pg);
    lwt_plan *pk = NULL; /* classic lifting, or one level per pass, when comparing */
    t.lifting = LWT_LIFT_CLASSIC;
    if (compare_fuse) {
        t.lifting = LWT_LIFT_AUTO;
        t.fuse_levels = 1;
    }
    if (compare_volume) {
        t.lifting = LWT_LIFT_AUTO;
        t.volume_pass = 1;
    }
    if ((compare_lifting || compare_fuse || compare_volume) && sg == LWT_OK && lwt_plan_create_tuned(ctx, &d, &t, &pk) != LWT_OK) {
        fprintf(stderr, "FAIL %s %s: no second plan\n", wname, lwt_mode_name(mode));
        failures++;
    }
    if (sc != sg) {
        fprintf(stderr, "FAIL %s %s: plan status cpu %d cuda %d\n", wname, lwt_mode_name(mode), sc, sg);
        failures++;
    }
    if (sc == LWT_OK && sg == LWT_OK) {
        lwt_plan_info info;
        lwt_plan_get_info(pc, &info);
        size_t es = dt == LWT_F32 ? 4 : 8;
        size_t ni = info.input_count * batch, nc = info.coeff_count * batch;
        void *x = malloc(ni * es), *cc = malloc(nc * es), *cg = malloc(nc * es);
        void *yc = malloc(ni * es), *yg = malloc(ni * es);
        for (size_t i = 0; i < ni; i++) {
            double v = rnd();
            if (dt == LWT_F32) ((float *)x)[i] = (float)v; else ((double *)x)[i] = v;
        }
        memset(cg, 0xff, nc * es); /* poison: every element must be written */
        memset(yg, 0xff, ni * es);
        lwt_status f1 = lwt_forward(pc, x, cc, NULL), f2 = lwt_forward(pg, x, cg, NULL);
        lwt_status i1 = lwt_inverse(pc, cc, yc, NULL), i2 = lwt_inverse(pg, cc, yg, NULL);
        lwt_wavelet_info wi;
        lwt_wavelet_get_info(w, &wi);
        double bound = dt == LWT_F32 ? 1e-5 : 1e-12;
        double ef = rel_err(cg, cc, nc, dt), ei = rel_err(yg, yc, ni, dt);
        double r = fmax(ef, ei) / bound;
        if (r > worst_ratio) worst_ratio = r;
        checks++;
        if (f1 || f2 || i1 || i2 || !(ef <= bound) || !(ei <= bound)) {
            fprintf(stderr, "FAIL %s %s ndim=%d shape=%zu,%zu,%zu L=%d %s batch=%zu: fwd %.2e inv %.2e (st %d %d %d %d)\n",
                    wname, lwt_mode_name(mode), ndim, shape[0], ndim > 1 ? shape[1] : 1, ndim > 2 ? shape[2] : 1,
                    levels, dt == LWT_F32 ? "f32" : "f64", batch, ef, ei, f1, f2, i1, i2);
            failures++;
        }
        if (pk) {
            void *ck = malloc(nc * es), *yk = malloc(ni * es);
            checks++;
            if (lwt_forward(pk, x, ck, NULL) || lwt_inverse(pk, cc, yk, NULL) || memcmp(ck, cg, nc * es) ||
                memcmp(yk, yg, ni * es)) {
                fprintf(stderr, "FAIL %s %s %zux%zu L=%d %s: %s\n", wname, lwt_mode_name(mode), shape[0],
                        ndim > 1 ? shape[1] : 1, levels, dt == LWT_F32 ? "f32" : "f64",
                        compare_fuse     ? "levels in pairs and one by one differ"
                        : compare_volume ? "3-D levels in one pass and by planes differ"
                                         : "classic and improved lifting differ");
                failures++;
            }
            free(ck); free(yk);
        }
        free(x); free(cc); free(cg); free(yc); free(yg);
    }
    lwt_plan_destroy(pk);
    lwt_plan_destroy(pc);
    lwt_plan_destroy(pg);
    lwt_wavelet_destroy(w);
}

#ifdef LWT_HAVE_CUDA
/* the device-pointer API on a caller's stream gives what the host API gives */
static void test_device_api(lwt_context *ctx)
{
    lwt_wavelet *w;
    lwt_wavelet_create(ctx, "cdf97", &w);
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = 301;
    d.shape[1] = 257;
    d.levels = 3;
    d.dtype = LWT_F32;
    d.backend = LWT_BACKEND_CUDA;
    lwt_plan *p;
    if (lwt_plan_create(ctx, &d, &p) != LWT_OK) {
        failures++;
        return;
    }
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    size_t wsb = 0;
    lwt_plan_device_workspace_size(p, &wsb);
    float *x = malloc(info.input_count * 4), *c1 = malloc(info.coeff_count * 4), *c2 = malloc(info.coeff_count * 4);
    for (size_t i = 0; i < info.input_count; i++)
        x[i] = (float)rnd();
    void *dx, *dc, *dws;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMalloc(&dx, info.input_count * 4);
    cudaMalloc(&dc, info.coeff_count * 4);
    cudaMalloc(&dws, wsb);
    cudaMemcpy(dx, x, info.input_count * 4, cudaMemcpyHostToDevice);
    lwt_status st = lwt_forward_device(p, dx, dc, dws, s);
    cudaMemcpyAsync(c2, dc, info.coeff_count * 4, cudaMemcpyDeviceToHost, s);
    cudaError_t e = cudaStreamSynchronize(s);
    lwt_forward(p, x, c1, NULL);
    checks++;
    if (st || e || memcmp(c1, c2, info.coeff_count * 4)) {
        fprintf(stderr, "FAIL device-pointer API (status %d, cuda %d)\n", st, (int)e);
        failures++;
    }
    /* the plan's steps, resolved at creation: on the CUDA backend, every step with a kernel,
       and a second host call (the plan's device buffers are kept) gives the same bits */
    char text[8192];
    size_t need = 0;
    checks++;
    if (lwt_plan_explain(p, text, sizeof text, &need) || need > sizeof text || !strstr(text, "cuda backend") ||
        strstr(text, "(null)") || !strstr(text, "forward level 3") || !strstr(text, "inverse level 1")) {
        fprintf(stderr, "FAIL lwt_plan_explain of a CUDA plan:\n%s\n", text);
        failures++;
    }
    printf("%s", text);
    lwt_forward(p, x, c2, NULL);
    checks++;
    if (memcmp(c1, c2, info.coeff_count * 4)) {
        fprintf(stderr, "FAIL a second lwt_forward on host pointers differs\n");
        failures++;
    }
    cudaFree(dx); cudaFree(dc); cudaFree(dws);
    cudaStreamDestroy(s);
    free(x); free(c1); free(c2);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}
#endif

/* plan-creation messages: which 2-D levels took the register pipeline, which pairs of levels
   and which 3-D levels one pass */
static int regs_levels, pair_levels, volume_levels;
static void count_log(void *user, lwt_log_level level, const char *message)
{
    (void)user;
    (void)level;
    if (strstr(message, "register pipeline"))
        regs_levels++;
    if (strstr(message, "forward: one pass"))
        pair_levels++;
    if (strstr(message, "forward: the volume kernel"))
        volume_levels++;
}

int main(int argc, char **argv)
{
    int quick = 0, small = 0;
    unsigned long long seed = 20261122;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--small")) small = quick = 1; /* for compute-sanitizer */
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    }
    rng_state = seed;
    printf("test_gpu: seed %llu%s\n", seed, quick ? " (quick)" : "");
    lwt_context *ctx;
    lwt_context_create(&ctx);
    lwt_context_set_log(ctx, count_log, NULL);
    if (lwt_context_device_count(ctx) == 0) {
        printf("test_gpu: no CUDA device, skipped\n");
        lwt_context_destroy(ctx);
        return 77;
    }
    const char *all_quick[] = {"haar", "db2", "cdf97", "sym7", "coif3", "rbio3.5", "dmey", "db35"};
    int nw = quick ? 8 : lwt_wavelet_catalog_count();
    for (int wi = 0; wi < nw; wi++) {
        const char *name = quick ? all_quick[wi] : lwt_wavelet_catalog_name(wi);
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            size_t s1[1] = {97 + (size_t)wi};
            run_case(ctx, name, 1, s1, LWT_LEVELS_MAX, (lwt_mode)mode, LWT_F64, 3);
            size_t s2[2] = {33 + (size_t)(wi % 5), 20 + (size_t)mode};
            run_case(ctx, name, 2, s2, 2, (lwt_mode)mode, wi % 2 ? LWT_F32 : LWT_F64, 1);
            if (quick || wi % 7 == 0) {
                size_t s3[3] = {9, 14, 11 + (size_t)mode};
                run_case(ctx, name, 3, s3, 1, (lwt_mode)mode, LWT_F32, 2);
                size_t s4[2] = {1, 7};
                run_case(ctx, name, 2, s4, 1, (lwt_mode)mode, LWT_F64, 1);
            }
        }
    }
    /* big enough to fill the GPU: the fast paths */
    const char *big[] = {"haar", "db2", "cdf53", "cdf97", "db10"};
    for (int i = 0; i < 5; i++) {
        /* sanitizer runs keep these small but past one tile: interior tiles included */
        size_t s[2] = {small ? 67 : 1031, 2053};
        run_case(ctx, big[i], 2, s, 4, LWT_MODE_PERIODIZATION, LWT_F32, 1);
        run_case(ctx, big[i], 2, s, 4, LWT_MODE_SYMMETRIC, LWT_F32, 1);
        run_case(ctx, big[i], 2, s, 3, LWT_MODE_SYMMETRIC, LWT_F64, 1);
        size_t v[3] = {small ? 5 : 67, 130, 129};
        run_case(ctx, big[i], 3, v, 2, LWT_MODE_SYMMETRIC, LWT_F32, 1);
    }
    /* the sliding-window 2-D kernel (LBB; AUTO runs the separable passes) and the row/column
       kernels (RC) forced, in every mode, within the maximum level */
    const char *lbb[] = {"cdf97", "db4", "sym5", "coif2", "bior3.5", "haar"};
    for (int i = 0; i < 6; i++)
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            size_t s2[2] = {small ? 45 : 131, 70 + (size_t)mode};
            gpu_algo = LWT_ALGO_LIFTING_LBB;
            run_case(ctx, lbb[i], 2, s2, 2, (lwt_mode)mode, mode % 2 ? LWT_F32 : LWT_F64, 1);
            gpu_algo = LWT_ALGO_LIFTING_RC;
            run_case(ctx, lbb[i], 2, s2, 2, (lwt_mode)mode, mode % 2 ? LWT_F64 : LWT_F32, 1);
            /* seed 000's plain RC: a kernel per lifting step (cuda_steps.cu); 1-D and 3-D too */
            gpu_algo = LWT_ALGO_LIFTING_RC_STEPS;
            run_case(ctx, lbb[i], 2, s2, 2, (lwt_mode)mode, mode % 2 ? LWT_F32 : LWT_F64, 1);
            if (mode % 3 == 0) {
                size_t s1[1] = {small ? 41 : 203}, s3[3] = {9, 14, 11 + (size_t)mode};
                run_case(ctx, lbb[i], 1, s1, 3, (lwt_mode)mode, LWT_F64, 2);
                run_case(ctx, lbb[i], 3, s3, 1, (lwt_mode)mode, LWT_F32, 1);
            }
        }
    /* the sliding window with the vertical window in registers (cuda_slide_regs.cu) for every
       shape it compiles in, every mode, float32 and float64: several strips and segments, so
       tiles inside the array and tiles at all four edges run; the plans must have chosen it;
       its classic and improved lifting along the rows give the same bits */
    const char *regs[] = {"haar", "db2", "cdf53", "cdf97", "db4", "db10"};
    gpu_algo = LWT_ALGO_LIFTING_LBB;
    compare_lifting = 1;
    for (int i = 0; i < 6; i++) {
        regs_levels = 0;
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            size_t s2[2] = {small ? 150 : 531 + (size_t)i, small ? 300 : 1100 + 3 * (size_t)mode};
            run_case(ctx, regs[i], 2, s2, small ? 2 : 3, (lwt_mode)mode, (i + mode) % 2 ? LWT_F32 : LWT_F64, 1);
            run_case(ctx, regs[i], 2, s2, 1, (lwt_mode)mode, (i + mode) % 2 ? LWT_F64 : LWT_F32, 1);
        }
        checks++;
        printf("%s: register pipeline in %d planned levels\n", regs[i], regs_levels);
        if (regs_levels < LWT_MODE_COUNT) { /* at least one level a mode */
            fprintf(stderr, "FAIL %s: the register pipeline was chosen for only %d levels\n", regs[i], regs_levels);
            failures++;
        }
    }
    /* 3-D volumes: the register kernel on the planes of every level (axes 1 and 2, a batch of
       planes per launch) around the pass along axis 0, each shape, mode and dtype; planes of
       several strips and tile rows */
    for (int i = 0; i < 6; i++) {
        regs_levels = 0;
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            size_t s3[3] = {small ? 7 : 21, small ? 40 : 67 + (size_t)i, small ? 300 : 530 + (size_t)mode};
            run_case(ctx, regs[i], 3, s3, small ? 1 : 2, (lwt_mode)mode, (i + mode) % 2 ? LWT_F32 : LWT_F64, 1);
            /* a long axis 0: the pass along it (cuda_columns.cu) slides runs of many tiles */
            size_t t3[3] = {small ? 70 : 517, 5 + (size_t)i, 19 + (size_t)mode};
            run_case(ctx, regs[i], 3, t3, 3, (lwt_mode)mode, (i + mode) % 2 ? LWT_F64 : LWT_F32, 1);
        }
        checks++;
        printf("%s 3-D: register pipeline in %d planned levels\n", regs[i], regs_levels);
        if (regs_levels < LWT_MODE_COUNT) {
            fprintf(stderr, "FAIL %s 3-D: the register pipeline was chosen for only %d levels\n", regs[i],
                    regs_levels);
            failures++;
        }
    }
    /* more planes than one launch takes (65535 along gridDim.y): the batch in two launches */
    if (!small) {
        size_t v[3] = {131075, 3, 67};
        run_case(ctx, "haar", 3, v, 1, LWT_MODE_PERIODIZATION, LWT_F32, 1);
        run_case(ctx, "cdf97", 3, v, 1, LWT_MODE_SYMMETRIC, LWT_F32, 1);
    }
    compare_lifting = 0;
    /* 3-D forward levels in one pass (cuda_vol.cu: float32 Haar, D4, CDF 5/3 and CDF 9/7, every
       mode but smooth and antireflect): against the CPU and, bit for bit, against the level by
       planes. Odd sizes with several tiles each way (tiles inside the array and at all its
       edges), axis 0 long or short (segments, rows extended past both ends), 2 and 3 levels;
       the plans must have chosen it for every level of the first shape in the seven modes it
       takes */
    gpu_algo = LWT_ALGO_AUTO;
    compare_volume = 1;
    const char *vols[] = {"haar", "db2", "cdf53", "cdf97"};
    for (int i = 0; i < 4; i++) {
        volume_levels = 0;
        for (int mode = 0; mode < LWT_MODE_COUNT; mode++) {
            /* within the maximum level, where float32 plans compute in float (the kernel's
               arithmetic); the long axis 0 below goes past it, where they compute in double */
            size_t s3[3] = {small ? 36 : 37 + (size_t)i, small ? 40 : 70 + (size_t)mode, small ? 70 : 131 + 2 * (size_t)mode};
            run_case(ctx, vols[i], 3, s3, 2, (lwt_mode)mode, LWT_F32, 1);
            size_t t3[3] = {small ? 70 : 300, 20 + (size_t)i, 33 + (size_t)mode};
            run_case(ctx, vols[i], 3, t3, 3, (lwt_mode)mode, LWT_F32, 1);
        }
        checks++;
        printf("%s 3-D: the volume kernel in %d planned levels\n", vols[i], volume_levels);
        if (volume_levels < 2 * (LWT_MODE_COUNT - 2)) {
            fprintf(stderr, "FAIL %s 3-D: the volume kernel was chosen for only %d levels\n", vols[i],
                    volume_levels);
            failures++;
        }
    }
    if (!small) { /* a volume of many tiles and whole-axis segments, and a batch of volumes */
        size_t v[3] = {130, 256, 260};
        run_case(ctx, "cdf97", 3, v, 3, LWT_MODE_PERIODIZATION, LWT_F32, 1);
        run_case(ctx, "cdf97", 3, v, 3, LWT_MODE_SYMMETRIC, LWT_F32, 1);
        size_t b[3] = {16, 33, 64};
        run_case(ctx, "db2", 3, b, 2, LWT_MODE_REFLECT, LWT_F32, 3);
    }
    compare_volume = 0;
    /* two forward levels in one pass (cuda_slide_pair.cu; float32 Haar, D4, CDF 5/3 and CDF 9/7,
       periodization, sizes multiples of 4): against the CPU and, bit for bit, against one
       level per pass. Sizes with several level-2 strips and runs of tiles, a short axis 0
       (rows wrapping past both edges), and a strip most of the level wide; 2 levels (one
       pair), 3 (a pair and a level), 5 (two pairs and a level). The other shapes and
       float64 keep one level per pass (checked: no pair planned) */
    gpu_algo = LWT_ALGO_AUTO;
    compare_fuse = 1;
    const char *pairs[] = {"haar", "db2", "cdf53", "cdf97", "db10"};
    for (int i = 0; i < 5; i++) {
        pair_levels = 0;
        const size_t sz[][2] = {{small ? 132 : 1028, small ? 260 : 1340 + 4 * (size_t)i}, {36, 300}, {260, 244}};
        const int lv[] = {2, 3, 5};
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++)
                run_case(ctx, pairs[i], 2, sz[k], lv[l], LWT_MODE_PERIODIZATION, LWT_F32, 1);
        run_case(ctx, pairs[i], 2, sz[0], 4, LWT_MODE_PERIODIZATION, LWT_F64, 1);
        checks++;
        printf("%s: levels in pairs in %d planned pairs\n", pairs[i], pair_levels);
        if (i < 4 ? pair_levels < 5 : pair_levels != 0) {
            fprintf(stderr, "FAIL %s: levels planned in pairs %d times\n", pairs[i], pair_levels);
            failures++;
        }
    }
    compare_fuse = 0;
    /* the block-size sweep's knobs (lwt-bench --lbb-threads / --lbb-cols): every thread count
       from one warp to 1024 and strips from the narrowest to wider than the array */
    const int th[] = {32, 64, 512, 1024}, co[] = {16, 64, 256, 1024};
    gpu_algo = LWT_ALGO_LIFTING_LBB;
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++) {
            size_t s2[2] = {small ? 37 : 263, 300 + (size_t)(17 * i)};
            gpu_threads = th[i];
            gpu_cols = co[(i + k) % 4];
            run_case(ctx, lbb[2 * k], 2, s2, 3, (lwt_mode)((i + 3 * k) % LWT_MODE_COUNT), (i + k) % 2 ? LWT_F64 : LWT_F32,
                     1);
        }
    gpu_threads = gpu_cols = 0;
    gpu_algo = LWT_ALGO_AUTO;
#ifdef LWT_HAVE_CUDA
    test_device_api(ctx);
#endif
    lwt_context_destroy(ctx);
    printf("test_gpu: %d cases, %d failures, worst error/bound %.3g\n", checks, failures, worst_ratio);
    return failures ? 1 : 0;
}
