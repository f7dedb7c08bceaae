/*
 * lwt-bench --zero-copy: seed 003's zero-copy memory against copy-in / copy-out, for host
 * arrays in page-locked memory (cudaMallocHost). For each size x wavelet, lwt_forward and
 * lwt_inverse on the host arrays with a plan made with lwt_plan_tuning.zero_copy = 0 (input up,
 * transform on the device, result down) and = 1 (the kernels read and write the host arrays over
 * the bus), wall clock, median of --reps; beside them the bus floor of the same bytes (the input
 * up, then the result down, cudaMemcpy between the same pinned arrays and the device). The two
 * paths' results are compared bit for bit. With --f16 or --bf16, 16-bit plans: where their levels
 * are fused (src/cuda/cuda_half.cu) the arrays cross the bus in 16 bits; the zero-copy tuning does
 * not apply to them (both columns then time the copy path).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bench.h"
#include "harness.h"
#include "lwt_experimental.h"

#define WARMUP 2

typedef struct host_call {
    const lwt_plan *plan;
    const void *in;
    void *out;
    int inverse;
} host_call;

static int host_op(void *arg, void *stream)
{
    (void)stream;
    const host_call *h = arg;
    return h->inverse ? lwt_inverse(h->plan, h->in, h->out, NULL) : lwt_forward(h->plan, h->in, h->out, NULL);
}

typedef struct bus_arg {
    void *host_a, *host_b, *dev_a, *dev_b;
    size_t bytes_a, bytes_b;
    int inverse;
} bus_arg;

/* the floor: what the copy path moves, up then down, between pinned arrays of the same sizes
   (its own: the copy down would overwrite the paths' results) */
static int bus_op(void *arg, void *stream)
{
    (void)stream;
    const bus_arg *u = arg;
    const int inv = u->inverse;
    return cudaMemcpy(inv ? u->dev_b : u->dev_a, inv ? u->host_b : u->host_a, inv ? u->bytes_b : u->bytes_a,
                      cudaMemcpyHostToDevice) != cudaSuccess ||
           cudaMemcpy(inv ? u->host_a : u->host_b, inv ? u->dev_a : u->dev_b, inv ? u->bytes_a : u->bytes_b,
                      cudaMemcpyDeviceToHost) != cudaSuccess;
}

static const bench_col cols[] = {{"wavelet", -8, 's', 0}, {"size", 6, 'z', 0},    {"L", 3, 'd', 0},
                                 {"dir", -8, 's', 0},     {"copy_ms", 9, 'f', 2}, {"zero_ms", 9, 'f', 2},
                                 {"bus_ms", 9, 'f', 2},   {"zero/copy", 10, 'f', 2}, {"same", -5, 's', 0}};
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))

static lwt_plan *make_plan(lwt_context *ctx, const lwt_wavelet *w, size_t n, int levels, int zero, lwt_dtype dt)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = d.shape[1] = n;
    d.levels = levels;
    d.mode = LWT_MODE_PERIODIZATION;
    d.dtype = dt;
    d.backend = LWT_BACKEND_CUDA;
    lwt_plan_tuning k = lwt_plan_tuning_default();
    k.zero_copy = zero;
    lwt_plan *p = NULL;
    return lwt_plan_create_tuned(ctx, &d, &k, &p) == LWT_OK ? p : NULL;
}

/* dt: float32, or 16-bit (values in [1, 2) whatever the format) */
static int one_case(lwt_context *ctx, const char *wname, size_t n, int levels, int reps, lwt_dtype dt)
{
    lwt_wavelet *w = NULL;
    if (lwt_wavelet_create(ctx, wname, &w))
        return BENCH_EXIT_USAGE;
    lwt_plan *pc = make_plan(ctx, w, n, levels, 0, dt), *pz = make_plan(ctx, w, n, levels, 1, dt);
    lwt_plan_info info;
    int rc = BENCH_EXIT_RUNTIME;
    void *a = NULL, *b = NULL, *bz = NULL, *ya = NULL, *yz = NULL, *da = NULL, *db = NULL, *sa = NULL, *sb = NULL;
    if (!pc || !pz || lwt_plan_get_info(pc, &info))
        goto out;
    const size_t es = dt == LWT_F32 ? 4 : 2, na = info.input_count * es, nb = info.coeff_count * es;
    if (cudaMallocHost(&a, na) != cudaSuccess || cudaMallocHost(&b, nb) != cudaSuccess ||
        cudaMallocHost(&bz, nb) != cudaSuccess || cudaMallocHost(&ya, na) != cudaSuccess ||
        cudaMallocHost(&yz, na) != cudaSuccess || cudaMallocHost(&sa, na) != cudaSuccess ||
        cudaMallocHost(&sb, nb) != cudaSuccess || cudaMalloc(&da, na) != cudaSuccess || cudaMalloc(&db, nb) != cudaSuccess)
        goto out;
    for (size_t i = 0; i < info.input_count; i++) {
        const unsigned r = (unsigned)((i * 2654435761u) % 1000);
        if (dt == LWT_F32)
            ((float *)a)[i] = (float)r * 1e-3f;
        else /* 1 + r / 1024 in float16 (exponent 0x3c00), 1 + (r % 128) / 128 in bfloat16 */
            ((uint16_t *)a)[i] = (uint16_t)(dt == LWT_F16 ? 0x3c00u | r : 0x3f80u | (r % 128));
    }
    for (int dir = 0; dir < 2; dir++) { /* forward a -> b (copy path), a -> bz (zero-copy); inverse b -> ya, bz -> yz */
        host_call hc = {pc, dir ? b : a, dir ? ya : b, dir}, hz = {pz, dir ? bz : a, dir ? yz : bz, dir};
        bus_arg bus = {sa, sb, da, db, na, nb, dir};
        double tc, tz, tb;
        if (bench_wall_s(host_op, &hc, WARMUP, reps, &tc) || bench_wall_s(host_op, &hz, WARMUP, reps, &tz) ||
            bench_wall_s(bus_op, &bus, WARMUP, reps, &tb))
            goto out;
        const int same = dir ? !memcmp(ya, yz, na) : !memcmp(b, bz, nb);
        bench_table_row(cols, NCOLS, wname, n, info.levels, dir ? "inverse" : "forward", tc * 1e3, tz * 1e3,
                        tb * 1e3, tz / tc, same ? "yes" : "NO");
    }
    rc = BENCH_EXIT_OK;
out:
    if (rc)
        fprintf(stderr, "lwt-bench: --zero-copy %s %zu: the timed run failed\n", wname, n);
    cudaFreeHost(a);
    cudaFreeHost(b);
    cudaFreeHost(bz);
    cudaFreeHost(ya);
    cudaFreeHost(yz);
    cudaFreeHost(sa);
    cudaFreeHost(sb);
    cudaFree(da);
    cudaFree(db);
    lwt_plan_destroy(pc);
    lwt_plan_destroy(pz);
    lwt_wavelet_destroy(w);
    return rc;
}

int bench_zerocopy(lwt_context *ctx, const bench_opts *o)
{
    char wl[sizeof o->wavelets], sl[sizeof o->sizes];
    snprintf(wl, sizeof wl, "%s", o->wavelets);
    snprintf(sl, sizeof sl, "%s", o->sizes);
    char dev[256];
    bench_device_name(dev, sizeof dev);
    const lwt_dtype dt = o->half == 1 ? LWT_F16 : o->half == 2 ? LWT_BF16 : LWT_F32;
    printf("lwt bench --zero-copy on %s, %s, periodization, host arrays page-locked; copy: lwt_forward "
           "copying through device buffers; zero: the kernels on the host arrays (seed 003); bus: the same bytes "
           "up then down; wall clock, median of %d\n",
           dev, dt == LWT_F16 ? "float16" : dt == LWT_BF16 ? "bfloat16" : "float32", o->reps);
    bench_table_header(cols, NCOLS);
    int rc = BENCH_EXIT_OK;
    char *ssave = NULL;
    for (char *s = strtok_r(sl, ",", &ssave); s; s = strtok_r(NULL, ",", &ssave)) {
        char wcopy[sizeof wl], *wsave = NULL;
        snprintf(wcopy, sizeof wcopy, "%s", wl);
        for (char *w = strtok_r(wcopy, ",", &wsave); w; w = strtok_r(NULL, ",", &wsave)) {
            const int r = one_case(ctx, w, strtoull(s, NULL, 10), o->levels, o->reps, dt);
            if (r)
                rc = r;
        }
    }
    return rc;
}
