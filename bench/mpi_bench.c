/*
 * lwt-mpi-bench: a transform over MPI ranks (lwt_mpi.h) timed against one process.
 *   mpirun -np N lwt-mpi-bench [-w WAVELET] [-m MODE] [-l LEVELS] [--size N] [--f64] [--reps R] [--weak]
 * 2-D N x N (--weak: N x N per rank, rows stacked), equal slabs. Rank 0 prints, per direction,
 * the median over R calls of the slowest rank's time, the single-process lwt_forward /
 * lwt_inverse of the whole array (CPU backend, all of rank 0's threads) and a memcpy of the
 * array, all in the same run. The ranks share the machine's cores: give each rank
 * OMP_NUM_THREADS = cores / ranks for strong scaling on one host.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "lwt_mpi.h"

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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *wname = "cdf97", *mname = "periodization";
    int levels = 4, f64 = 0, reps = 10, weak = 0;
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
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np N lwt-mpi-bench [-w W] [-m M] [-l L] [--size N] [--f64] [--reps R] [--weak]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    lwt_context *ctx;
    lwt_context_create(&ctx);
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
    if (lwt_mpi_plan_create(ctx, &d, NULL, MPI_COMM_WORLD, r0, r1, &mp)) {
        MPI_Finalize();
        return 1;
    }
    size_t nin, ncoef;
    lwt_mpi_plan_local(mp, &nin, &ncoef);
    char *x = malloc(nin * es + 1), *c = malloc(ncoef * es + 1);
    for (size_t i = 0; i < nin; i++) {
        const double v = (double)((i * 2654435761u) % 1000003) / 1000003.0;
        if (f64)
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
    }
    double *t[2] = {malloc((size_t)reps * sizeof(double)), malloc((size_t)reps * sizeof(double))};
    lwt_mpi_forward(mp, x, c); /* warm-up */
    lwt_mpi_inverse(mp, c, x);
    for (int dir = 0; dir < 2; dir++)
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            if (dir ? lwt_mpi_inverse(mp, c, x) : lwt_mpi_forward(mp, x, c))
                fprintf(stderr, "lwt-mpi-bench: rank %d: a call failed\n", rank);
            double mine = MPI_Wtime() - t0, slowest = 0;
            MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            t[dir][r] = slowest;
        }
    if (rank == 0) {
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
        printf("lwt-mpi-bench: %s %s %zux%zu %s, %d levels, %d ranks%s, median of %d\n", wname, mname, d.shape[0],
               d.shape[1], f64 ? "float64" : "float32", levels, nranks, weak ? " (weak: N x N a rank)" : "", reps);
        printf("  forward: %.2f ms over the ranks, %.2f ms one process (%.2fx), memcpy %.2f ms\n",
               1e3 * median(t[0], reps), 1e3 * one[0], one[0] / median(t[0], reps), 1e3 * copy);
        printf("  inverse: %.2f ms over the ranks, %.2f ms one process (%.2fx)\n", 1e3 * median(t[1], reps),
               1e3 * one[1], one[1] / median(t[1], reps));
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
    return 0;
}
