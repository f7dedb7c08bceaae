/*
 * lwt-mpi-bench: a transform over MPI ranks (lwt_mpi.h) timed against one process.
 *   mpirun -np N lwt-mpi-bench [-w WAVELET] [-m MODE] [-l LEVELS] [--size N] [--f64] [--reps R] [--weak]
 *                              [--backend cpu|auto|cuda] [--weight slab|measure] [--no-single]
 * 2-D N x N (--weak: N x N per rank, rows stacked), equal slabs. Rank 0 prints, per direction,
 * the median over R calls of the slowest rank's time, the single-process lwt_forward /
 * lwt_inverse of the whole array (CPU backend, all of rank 0's threads; --no-single: left out)
 * and a memcpy of the array, all in the same run. The ranks share the machine's cores: give
 * each rank OMP_NUM_THREADS = cores / ranks for strong scaling on one host. --backend auto|cuda:
 * each rank streams its share through its node's GPU (lwt_mpi_stream_desc_local), host data in
 * and out; a build with CUDA then also prints the bus ceiling: every GPU rank copying its slab
 * to its GPU and its coefficients back, all ranks at once (pinned memory, both directions
 * together). The calls run in place (lwt_mpi_plan_signal: the slab written into the plan's own
 * array, the coefficients left there); --copies: through the caller's arrays, a copy each way.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "lwt_mpi.h"

#ifdef LWT_HAVE_CUDA
#include <cuda_runtime.h>

/* the slowest rank's time to copy in_bytes to its GPU and out_bytes back at once (median of
   reps), every GPU rank together; 0 where this rank has no GPU worker */
static double bus_ceiling(const lwt_stream_desc *sd, size_t in_bytes, size_t out_bytes, int reps)
{
    double best = 0;
    const int gpu = sd->workers[0].kind == LWT_WORKER_CUDA;
    void *h_in = NULL, *h_out = NULL, *d_in = NULL, *d_out = NULL;
    cudaStream_t s[2] = {0, 0};
    int ok = !gpu || (cudaSetDevice(sd->workers[0].device) == cudaSuccess &&
                      cudaHostAlloc(&h_in, in_bytes, cudaHostAllocDefault) == cudaSuccess &&
                      cudaHostAlloc(&h_out, out_bytes, cudaHostAllocDefault) == cudaSuccess &&
                      cudaMalloc(&d_in, in_bytes) == cudaSuccess && cudaMalloc(&d_out, out_bytes) == cudaSuccess &&
                      cudaStreamCreate(&s[0]) == cudaSuccess && cudaStreamCreate(&s[1]) == cudaSuccess);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int r = 0; all && r <= reps; r++) { /* r == 0: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (gpu) {
            cudaMemcpyAsync(d_in, h_in, in_bytes, cudaMemcpyHostToDevice, s[0]);
            cudaMemcpyAsync(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost, s[1]);
            cudaDeviceSynchronize();
        }
        double mine = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r && (best == 0 || slowest < best))
            best = slowest;
    }
    if (gpu) {
        cudaFreeHost(h_in);
        cudaFreeHost(h_out);
        cudaFree(d_in);
        cudaFree(d_out);
        if (s[0]) cudaStreamDestroy(s[0]);
        if (s[1]) cudaStreamDestroy(s[1]);
    }
    return all ? best : -1;
}
#endif

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void log_line(void *user, lwt_log_level level, const char *message)
{
    (void)user;
    (void)level;
    fprintf(stderr, "  [log] %s\n", message);
}

/* rank 0 alone: lwt_streamer_forward / inverse of the whole array on the same workers, host
   buffers pinned (1) or pageable (0); medians of reps in ms, or -1 */
static void streamer_alone(lwt_context *ctx, const lwt_plan_desc *d, const lwt_stream_desc *sd, int pinned, int reps, double ms[2])
{
    ms[0] = ms[1] = -1;
    lwt_plan *p = NULL;
    lwt_streamer *s = NULL;
    lwt_plan_info info;
    if (lwt_plan_create(ctx, d, &p) || lwt_plan_get_info(p, &info) || lwt_streamer_create(p, sd, &s)) {
        lwt_plan_destroy(p);
        return;
    }
    const size_t es = d->dtype == LWT_F64 ? 8 : 4, nin = info.input_count * es, nout = info.coeff_count * es;
    void *x = NULL, *c = NULL;
#ifdef LWT_HAVE_CUDA
    if (pinned && (cudaHostAlloc(&x, nin, 0) != cudaSuccess || cudaHostAlloc(&c, nout, 0) != cudaSuccess))
        x = c = NULL;
#endif
    if (!pinned) {
        x = malloc(nin);
        c = malloc(nout);
    }
    double *t = malloc((size_t)reps * sizeof *t);
    if (x && c && t) {
        memset(x, 0, nin);
        memset(c, 0, nout);
        for (int dir = 0; dir < 2; dir++) {
            if (dir ? lwt_streamer_inverse(s, c, x, NULL, NULL) : lwt_streamer_forward(s, x, c, NULL, NULL))
                break; /* warm-up */
            for (int r = 0; r < reps; r++) {
                const double t0 = MPI_Wtime();
                if (dir)
                    lwt_streamer_inverse(s, c, x, NULL, NULL);
                else
                    lwt_streamer_forward(s, x, c, NULL, NULL);
                t[r] = MPI_Wtime() - t0;
            }
            ms[dir] = 1e3 * median(t, reps);
        }
    }
#ifdef LWT_HAVE_CUDA
    if (pinned) {
        cudaFreeHost(x);
        cudaFreeHost(c);
    }
#endif
    if (!pinned) {
        free(x);
        free(c);
    }
    free(t);
    lwt_streamer_destroy(s);
    lwt_plan_destroy(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *wname = "cdf97", *mname = "periodization";
    int levels = 4, f64 = 0, reps = 10, weak = 0, single = 1, verbose = 0, baseline = 0, copies = 0;
    lwt_backend backend = LWT_BACKEND_CPU;
    double weight = LWT_MPI_WEIGHT_SLAB;
    size_t n = 4096;
    for (int i = 1; i < argc; i++) {
        const int more = i + 1 < argc;
        if (!strcmp(argv[i], "-w") && more) wname = argv[++i];
        else if (!strcmp(argv[i], "-m") && more) mname = argv[++i];
        else if (!strcmp(argv[i], "-l") && more) levels = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && more) n = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && more) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--f64")) f64 = 1;
        else if (!strcmp(argv[i], "--weak")) weak = 1;
        else if (!strcmp(argv[i], "--no-single")) single = 0;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strcmp(argv[i], "--baseline")) baseline = 1;
        else if (!strcmp(argv[i], "--copies")) copies = 1;
        else if (!strcmp(argv[i], "--backend") && more) {
            const char *v = argv[++i];
            backend = !strcmp(v, "cuda") ? LWT_BACKEND_CUDA : !strcmp(v, "auto") ? LWT_BACKEND_AUTO : LWT_BACKEND_CPU;
        } else if (!strcmp(argv[i], "--weight") && more)
            weight = !strcmp(argv[++i], "measure") ? LWT_MPI_WEIGHT_MEASURE : LWT_MPI_WEIGHT_SLAB;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np N lwt-mpi-bench [-w W] [-m M] [-l L] [--size N] [--f64] [--reps R] [--weak]"
                                " [--backend cpu|auto|cuda] [--weight slab|measure] [--no-single] [--verbose] [--baseline] [--copies]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    lwt_context *ctx;
    lwt_context_create(&ctx);
    if (verbose) {
        lwt_context_set_log(ctx, log_line, NULL);
    }
    lwt_wavelet *w = NULL;
    lwt_plan_desc d = lwt_plan_desc_default();
    if (lwt_wavelet_create(ctx, wname, &w) || lwt_mode_from_name(mname, &d.mode)) {
        if (rank == 0)
            fprintf(stderr, "lwt-mpi-bench: unknown wavelet or mode\n");
        MPI_Finalize();
        return 2;
    }
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = weak ? n * (size_t)nranks : n;
    d.shape[1] = n;
    d.levels = levels;
    d.dtype = f64 ? LWT_F64 : LWT_F32;
    d.backend = LWT_BACKEND_CPU;
    const size_t es = f64 ? 8 : 4, rows = d.shape[0];
    const size_t r0 = rows * (size_t)rank / (size_t)nranks, r1 = rows * (size_t)(rank + 1) / (size_t)nranks;
    lwt_mpi_plan *mp = NULL;
    lwt_stream_desc sd;
    if (lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, backend, 0, &sd) ||
        lwt_mpi_plan_create_weighted(ctx, &d, &sd, MPI_COMM_WORLD, r0, r1, weight, &mp)) {
        MPI_Finalize();
        return 1;
    }
    size_t nin, ncoef;
    lwt_mpi_plan_local(mp, &nin, &ncoef);
    char *x = malloc(nin * es + 1), *c = malloc(ncoef * es + 1);
    void *slab = NULL;
    lwt_mpi_plan_signal(mp, &slab);
    for (size_t i = 0; i < nin; i++) {
        const double v = (double)((i * 2654435761u) % 1000003) / 1000003.0;
        if (f64)
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
    }
    double *t[2] = {malloc((size_t)reps * sizeof(double)), malloc((size_t)reps * sizeof(double))};
    /* in place (the default): the input written into the plan's own array, the coefficients
       left in it; --copies: through the caller's arrays */
    void *in = copies ? x : NULL, *out = copies ? c : NULL;
    if (!copies)
        memcpy(slab, x, nin * es);
    int failed = (lwt_mpi_forward(mp, in, out) != LWT_OK) + (lwt_mpi_inverse(mp, out, in) != LWT_OK); /* warm-up */
    for (int dir = 0; dir < 2; dir++)
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            if (dir ? lwt_mpi_inverse(mp, out, in) : lwt_mpi_forward(mp, in, out))
                failed++;
            double mine = MPI_Wtime() - t0, slowest = 0;
            MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            t[dir][r] = slowest;
        }
    double wts[64] = {0};
    if (nranks <= 64)
        lwt_mpi_plan_weights(mp, wts);
#ifdef LWT_HAVE_CUDA
    const double bus = bus_ceiling(&sd, nin * es, ncoef * es, reps);
#else
    const double bus = 0;
#endif
    int all_failed = 0;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_failed)
        printf("lwt-mpi-bench: %d calls FAILED: the times below are not of transforms\n", all_failed);
    if (rank == 0) {
        printf("lwt-mpi-bench: %s %s %zux%zu %s, %d levels, %d ranks%s, median of %d\n", wname, mname, d.shape[0],
               d.shape[1], f64 ? "float64" : "float32", levels, nranks, weak ? " (weak: N x N a rank)" : "", reps);
        printf("  workers: %s; %s; shares", backend == LWT_BACKEND_CPU ? "CPU" : "each rank its node's GPU where it has one",
               copies ? "slab and coefficients copied in and out" : "in place");
        for (int q = 0; q < nranks && q < 64; q++)
            printf(" %.3f", wts[q]);
        printf("\n  forward: %.2f ms over the ranks; inverse: %.2f ms\n", 1e3 * median(t[0], reps),
               1e3 * median(t[1], reps));
        if (bus > 0)
            printf("  bus ceiling (every GPU rank: its slab up and its coefficients down at once): %.2f ms "
                   "(forward at %.0f%%, inverse at %.0f%%)\n", 1e3 * bus, 100 * bus / median(t[0], reps),
                   100 * bus / median(t[1], reps));
    }
    if (rank == 0 && baseline) {
        lwt_stream_desc whole = sd;
        whole.chunk_rows = 0;
        double ms[2];
        for (int pin = 1; pin >= 0; pin--) {
            streamer_alone(ctx, &d, &whole, pin, reps, ms);
            printf("  lwt_streamer on rank 0's workers alone, the whole array, %s host memory: forward %.2f ms, "
                   "inverse %.2f ms\n", pin ? "pinned" : "pageable", ms[0], ms[1]);
        }
    }
    if (rank == 0 && single) {
        /* one process, the whole array, in the same run */
        lwt_plan *p = NULL;
        lwt_plan_info info;
        lwt_plan_create(ctx, &d, &p);
        lwt_plan_get_info(p, &info);
        char *X = malloc(info.input_count * es), *C = malloc(info.coeff_count * es);
        memset(X, 0, info.input_count * es);
        void *ws = malloc(info.workspace_bytes + 1);
        double one[2], *s = malloc((size_t)reps * sizeof(double));
        lwt_forward(p, X, C, ws);
        for (int dir = 0; dir < 2; dir++) {
            for (int r = 0; r < reps; r++) {
                const double t0 = MPI_Wtime();
                if (dir)
                    lwt_inverse(p, C, X, ws);
                else
                    lwt_forward(p, X, C, ws);
                s[r] = MPI_Wtime() - t0;
            }
            one[dir] = median(s, reps);
        }
        for (int r = 0; r < reps; r++) {
            const double t0 = MPI_Wtime();
            memcpy(C, X, info.input_count * es);
            s[r] = MPI_Wtime() - t0;
        }
        const double copy = median(s, reps);
        printf("  one process (CPU): forward %.2f ms (%.2fx the ranks' time), inverse %.2f ms (%.2fx), memcpy %.2f ms\n",
               1e3 * one[0], one[0] / median(t[0], reps), 1e3 * one[1], one[1] / median(t[1], reps), 1e3 * copy);
        free(X);
        free(C);
        free(ws);
        free(s);
        lwt_plan_destroy(p);
    }
    free(t[0]);
    free(t[1]);
    free(x);
    free(c);
    lwt_mpi_plan_destroy(mp);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
    MPI_Finalize();
    return all_failed ? 1 : 0;
}
