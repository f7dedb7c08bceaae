/*
 * test_mpi: a transform spread over the ranks (lwt_mpi.h) gives, on every rank, the bits the
 * whole array's lwt_forward / lwt_inverse give (CPU backend) for its rows of every band and its
 * slab of the signal. Run under mpirun with any rank count (ctest: 1, 2, 3 and 5 ranks on two
 * cores): random wavelets, modes, float32 and float64 (and float16 and bfloat16: the ranks
 * stream the float32 plan, approximations float32 between them), 1-D to 3-D, odd shapes, levels up to
 * the maximum and beyond, uneven slabs (some empty), small chunks so that a share has several
 * and a halo crosses ranks. Every rank draws the same cases from one seed (LWT_SEED, else a
 * fresh one, printed by rank 0) and computes the reference itself. Rank 0 prints the summary;
 * the exit status is 1 on any rank's failure. LWT_MPI_BACKEND=auto: each rank streams through
 * its node's GPU (one rank per GPU; the GPU machine's check), the same bits as the CPU.
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lwt.h"
#include "lwt_experimental.h"
#include "lwt_mpi.h"

static int failures;
static int rank, nranks;
static lwt_backend workers = LWT_BACKEND_CPU; /* LWT_MPI_BACKEND=auto: each rank its node's GPU */

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            failures++;                                                                                                \
            fprintf(stderr, "rank %d FAIL: ", rank);                                                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

static uint64_t rng;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static long pick(long lo, long hi) /* [lo, hi] */
{
    return lo + (long)(next() % (uint64_t)(hi - lo + 1));
}

static size_t elem_size(lwt_dtype t)
{
    return t == LWT_F64 ? 8 : t == LWT_F32 ? 4 : 2;
}

static const char *dtype_name(lwt_dtype t)
{
    return t == LWT_F64 ? "f64" : t == LWT_F32 ? "f32" : t == LWT_F16 ? "f16" : "bf16";
}

/* random values; 16-bit: random bit patterns of any sign and mantissa, float16 exponents from
   subnormal up to just below the largest finite binade (so sums round, some to inf), bfloat16
   exponents from 2^-27 to 2^27 */
static void fill(void *x, size_t n, lwt_dtype t)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = next();
        const double v = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (t == LWT_F64)
            ((double *)x)[i] = v;
        else if (t == LWT_F32)
            ((float *)x)[i] = (float)v;
        else if (t == LWT_F16)
            ((uint16_t *)x)[i] = (uint16_t)((r & 0x83ffu) | ((r >> 20) % 30) << 10);
        else
            ((uint16_t *)x)[i] = (uint16_t)((r & 0x807fu) | (100 + (r >> 20) % 55) << 7);
    }
}

/* this rank's band rows between its local layout lc (lwt_mpi_band_rows' offsets) and the
   plan's own packed array (lwt_mpi_band_view): to the views (1) or from them (0); fill >= 0:
   set the views' bytes to it instead */
static int view_copy(const lwt_mpi_plan *mp, const lwt_plan *whole, int ndim, size_t es, char *lc, int to_view,
                     int fill)
{
    lwt_plan_info info;
    lwt_plan_get_info(whole, &info);
    for (int level = 0; level <= info.levels; level++)
        for (unsigned mask = level ? 1 : 0; mask < (level ? 1u << ndim : 1u); mask++) {
            lwt_band b;
            void *first;
            size_t r0, r1, off, v0, v1, stride[3] = {0, 0, 0};
            if (lwt_plan_band(whole, level, mask, &b) || lwt_mpi_band_rows(mp, level, mask, &r0, &r1, &off) ||
                lwt_mpi_band_view(mp, level, mask, &first, &v0, &v1, stride) || v0 != r0 || v1 != r1)
                return -1;
            const size_t n1 = ndim == 3 ? b.shape[1] : 1, n2 = ndim == 1 ? 1 : b.shape[ndim - 1];
            for (size_t r = r0; r < r1; r++)
                for (size_t i1 = 0; i1 < n1; i1++) {
                    char *v = (char *)first + ((r - r0) * stride[0] + (ndim == 3 ? i1 * stride[1] : 0)) * es;
                    char *l = lc + (off + ((r - r0) * n1 + i1) * n2) * es;
                    if (fill >= 0)
                        memset(v, fill, n2 * es);
                    else if (to_view)
                        memcpy(v, l, n2 * es);
                    else
                        memcpy(l, v, n2 * es);
                }
        }
    return 0;
}

/* the distributed forward and inverse of x on mp against the whole array's c and y; in place:
   through the plan's own arrays (lwt_mpi_plan_signal, lwt_mpi_band_view) instead of copies */
static void check_plan(const lwt_mpi_plan *mp, const lwt_plan *whole, const lwt_plan_info *pinfo,
                       const lwt_plan_desc *pd, const void *x, const void *c, const void *y, const size_t *cut,
                       const char *what, int in_place)
{
    const lwt_plan_info info = *pinfo;
    const lwt_plan_desc d = *pd;
    const int ndim = d.ndim;
    const size_t es = elem_size(d.dtype);
    lwt_status st;
    size_t nin = 0, ncoef = 0;
    lwt_mpi_plan_local(mp, &nin, &ncoef);
    const size_t row = info.input_count / d.shape[0];
    CHECK(nin == (cut[rank + 1] - cut[rank]) * row, "%s: %zu local inputs", what, nin);
    char *lin = malloc(nin * es + 1), *lc = malloc(ncoef * es + 1), *lout = malloc(nin * es + 1);
    memcpy(lin, (char *)x + cut[rank] * row * es, nin * es);
    void *slab = NULL;
    if (in_place) {
        CHECK(!lwt_mpi_plan_signal(mp, &slab), "%s: lwt_mpi_plan_signal", what);
        memcpy(slab, lin, nin * es);
        st = lwt_mpi_forward(mp, NULL, NULL);
        if (!st && d.levels)
            CHECK(!view_copy(mp, whole, ndim, es, lc, 0, -1), "%s: lwt_mpi_band_view", what);
        if (!st && !d.levels) /* no level: the pieces are the slab */
            CHECK(!lwt_mpi_inverse(mp, NULL, lc), "%s: the slab of a 0-level plan", what);
    } else {
        st = lwt_mpi_forward(mp, lin, lc);
    }
    CHECK(!st, "%s: lwt_mpi_forward%s: %s", what, in_place ? " in place" : "", lwt_status_string(st));
    /* every band's rows here are the whole transform's; and all ranks' rows cover each band */
    size_t packed_stride[3] = {1, 1, 1};
    for (int k = ndim - 2; k >= 0; k--)
        packed_stride[k] = packed_stride[k + 1] * info.packed_shape[k + 1];
    long bad = 0, rows_here = 0, rows_all = 0, rows_want = 0;
    for (int level = 0; level <= d.levels && !st; level++)
        for (unsigned mask = level ? 1 : 0; mask < (level ? 1u << ndim : 1u); mask++) {
            lwt_band b;
            size_t r0, r1, off;
            if (lwt_plan_band(whole, level, mask, &b) || lwt_mpi_band_rows(mp, level, mask, &r0, &r1, &off)) {
                bad++;
                continue;
            }
            size_t row_elems = 1;
            for (int k = 1; k < ndim; k++)
                row_elems *= b.shape[k];
            rows_want += (long)b.shape[0];
            rows_here += (long)(r1 - r0);
            for (size_t r = r0; r < r1; r++)
                for (size_t i1 = 0; i1 < (ndim > 1 ? b.shape[1] : 1); i1++) {
                    const size_t n2 = ndim > 2 ? b.shape[2] : 1;
                    const size_t at = (b.offset[0] + r) * packed_stride[0] +
                                      (ndim > 1 ? (b.offset[1] + i1) * packed_stride[1] : 0) +
                                      (ndim > 2 ? b.offset[2] * packed_stride[2] : 0);
                    const size_t lo = off + (r - r0) * row_elems + i1 * n2;
                    if (memcmp((char *)c + at * es, lc + lo * es, n2 * es))
                        bad++;
                }
        }
    MPI_Allreduce(&rows_here, &rows_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(!bad, "%s: %ld band rows differ from lwt_forward", what, bad);
    CHECK(st || rows_all == rows_want, "%s: the ranks hold %ld band rows of %ld", what, rows_all, rows_want);
    if (!st && in_place && d.levels) { /* the views overwritten, then the coefficients written back */
        CHECK(!view_copy(mp, whole, ndim, es, lc, 1, 0xff) && !view_copy(mp, whole, ndim, es, lc, 1, -1),
              "%s: writing through lwt_mpi_band_view", what);
        st = lwt_mpi_inverse(mp, NULL, NULL);
        memcpy(lout, slab, nin * es);
        CHECK(!st, "%s: lwt_mpi_inverse in place: %s", what, lwt_status_string(st));
        CHECK(st || !memcmp(lout, (char *)y + cut[rank] * row * es, nin * es),
              "%s: the inverse's slab in place differs from lwt_inverse", what);
    } else if (!st) {
        st = lwt_mpi_inverse(mp, lc, lout);
        CHECK(!st, "%s: lwt_mpi_inverse: %s", what, lwt_status_string(st));
        CHECK(st || !memcmp(lout, (char *)y + cut[rank] * row * es, nin * es),
              "%s: the inverse's slab differs from lwt_inverse", what);
    }
    free(lin);
    free(lc);
    free(lout);
}

/* one case: the whole transform here, the distributed one, compared piece by piece; half:
   LWT_F16 or LWT_BF16, else (LWT_F32) float32 or float64 at random */
static void run_case(lwt_context *ctx, int ci, lwt_dtype half)
{
    static const char *modes[] = {"zero", "constant", "symmetric", "reflect", "periodic",
                                  "smooth", "antisymmetric", "antireflect", "periodization"};
    const int nw = lwt_wavelet_catalog_count();
    const char *wname = lwt_wavelet_catalog_name((int)pick(0, nw - 1));
    const char *mname = modes[pick(0, 8)];
    const int ndim = (int)pick(1, 3), f64 = (int)pick(0, 1);
    lwt_plan_desc d = lwt_plan_desc_default();
    lwt_wavelet *w = NULL;
    if (lwt_wavelet_create(ctx, wname, &w) || lwt_mode_from_name(mname, &d.mode)) {
        CHECK(0, "case %d: wavelet %s or mode %s unknown", ci, wname, mname);
        return;
    }
    d.wavelet = w;
    d.ndim = ndim;
    d.dtype = half == LWT_F16 || half == LWT_BF16 ? half : f64 ? LWT_F64 : LWT_F32;
    d.backend = LWT_BACKEND_CPU;
    const long lim = ndim == 1 ? 3000 : ndim == 2 ? 90 : 24;
    for (int k = 0; k < ndim; k++)
        d.shape[k] = (size_t)pick(1, lim);
    d.shape[0] = (size_t)pick(nranks, ndim == 1 ? 3000 : 3 * lim); /* the axis the ranks cut */
    d.levels = 0;
    lwt_plan *whole = NULL;
    lwt_plan_info info;
    /* levels: 0 .. the maximum + 1 */
    d.levels = LWT_LEVELS_MAX;
    if (lwt_plan_create(ctx, &d, &whole) || lwt_plan_get_info(whole, &info)) {
        CHECK(0, "case %d: plan", ci);
        lwt_wavelet_destroy(w);
        return;
    }
    lwt_plan_destroy(whole);
    d.levels = (int)pick(0, info.max_level + 1);
    if (lwt_plan_create(ctx, &d, &whole) || lwt_plan_get_info(whole, &info)) {
        lwt_wavelet_destroy(w); /* more levels than the mode allows this shape: not a case */
        lwt_plan_destroy(whole);
        return;
    }
    /* uneven slabs, some empty */
    size_t *cut = malloc(((size_t)nranks + 1) * sizeof *cut);
    cut[0] = 0;
    cut[nranks] = d.shape[0];
    for (int q = 1; q < nranks; q++)
        cut[q] = (size_t)pick(0, (long)d.shape[0]);
    for (int q = 1; q < nranks; q++) /* sorted */
        for (int r = q + 1; r < nranks; r++)
            if (cut[r] < cut[q]) {
                size_t t = cut[q];
                cut[q] = cut[r];
                cut[r] = t;
            }
    lwt_stream_desc sd;
    if (lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, workers, 0, &sd))
        CHECK(0, "case %d: lwt_mpi_stream_desc_local", ci);
    sd.chunk_rows = (size_t)pick(2, 40);
    const size_t es = elem_size(d.dtype);
    void *x = malloc(info.input_count * es), *c = malloc(info.coeff_count * es), *y = malloc(info.input_count * es);
    fill(x, info.input_count, d.dtype);
    CHECK(!lwt_forward(whole, x, c, NULL) && !lwt_inverse(whole, c, y, NULL), "case %d: whole-array transform", ci);

    /* the shares: by slab, by weights given (random, different on each rank) or measured */
    const int how = (int)pick(0, 2);
    double wq = 1; /* every rank draws every rank's weight, in rank order, and keeps its own */
    for (int q = 0; q < nranks; q++) {
        const double v = 0.25 + (double)pick(0, 100) / 25.0;
        if (q == rank)
            wq = v;
    }
    const double weight = how == 0 ? LWT_MPI_WEIGHT_SLAB : how == 1 ? wq : LWT_MPI_WEIGHT_MEASURE;
    char what[300];
    snprintf(what, sizeof what, "case %d: %s %s %s %dD %zux%zux%zu levels %d chunk rows %zu weight %g", ci, wname,
             mname, dtype_name(d.dtype), ndim, d.shape[0], ndim > 1 ? d.shape[1] : 1, ndim > 2 ? d.shape[2] : 1,
             d.levels, sd.chunk_rows, weight);
    lwt_mpi_plan *mp = NULL;
    lwt_status st = lwt_mpi_plan_create_weighted(ctx, &d, &sd, MPI_COMM_WORLD, cut[rank], cut[rank + 1], weight, &mp);
    CHECK(!st, "%s: lwt_mpi_plan_create: %s", what, lwt_status_string(st));
    if (!st && how == 1) { /* the given weights, normalized */
        double *wts = malloc((size_t)nranks * sizeof *wts), sum = 0;
        MPI_Allreduce(&wq, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        lwt_mpi_plan_weights(mp, wts);
        CHECK(fabs(wts[rank] - wq / sum) < 1e-12, "%s: weight %g here, %g given of %g", what, wts[rank], wq, sum);
        free(wts);
    }
    if (!st)
        check_plan(mp, whole, &info, &d, x, c, y, cut, what, ci % 2);
    /* new shares from the calls' times: the same bits, another distribution */
    if (!st && how && !(st = lwt_mpi_plan_rebalance(mp))) {
        double *wts = malloc((size_t)nranks * sizeof *wts), sum = 0;
        lwt_mpi_plan_weights(mp, wts);
        for (int q = 0; q < nranks; q++)
            sum += wts[q];
        CHECK(fabs(sum - 1) < 1e-12, "%s: the weights after a rebalance sum to %.17g", what, sum);
        free(wts);
        check_plan(mp, whole, &info, &d, x, c, y, cut, what, 1 - ci % 2);
    }
    CHECK(!st, "%s: lwt_mpi_plan_rebalance: %s", what, lwt_status_string(st));
    lwt_mpi_plan_destroy(mp);
    free(x);
    free(c);
    free(y);
    free(cut);
    lwt_plan_destroy(whole);
    lwt_wavelet_destroy(w);
}

/* a CPU plan of n0 (x n1 when n1 > 0) samples */
static lwt_plan_desc small_desc(const lwt_wavelet *w, size_t n0, size_t n1, int levels)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = n1 ? 2 : 1;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = levels;
    d.backend = LWT_BACKEND_CPU;
    return d;
}

/* slabs that do not tile the array fail on every rank, and nothing hangs */
static void bad_slabs(lwt_context *ctx)
{
    lwt_wavelet *w = NULL;
    lwt_wavelet_create(ctx, "db2", &w);
    const lwt_plan_desc d = small_desc(w, 100, 0, 2);
    lwt_mpi_plan *mp = NULL;
    const size_t r0 = (size_t)rank * 10, r1 = r0 + (rank == nranks - 1 ? 9 : 10); /* a row short */
    const lwt_status st = lwt_mpi_plan_create(ctx, &d, NULL, MPI_COMM_WORLD, r0, r1, &mp);
    CHECK(st == LWT_ERR_INVALID_ARGUMENT && !mp, "slabs that do not tile the array: %s", lwt_status_string(st));
    lwt_mpi_plan_destroy(mp);
    lwt_wavelet_destroy(w);
}

/* weights of mixed kinds fail on every rank; the workers a rank gets with no GPU */
static void weights_and_workers(lwt_context *ctx)
{
    lwt_wavelet *w = NULL;
    lwt_wavelet_create(ctx, "db2", &w);
    const lwt_plan_desc d = small_desc(w, 10 * (size_t)nranks, 0, 2);
    lwt_mpi_plan *mp = NULL;
    const double weight = nranks > 1 && rank == 0 ? LWT_MPI_WEIGHT_SLAB : 2.0;
    lwt_status st = lwt_mpi_plan_create_weighted(ctx, &d, NULL, MPI_COMM_WORLD, 10 * (size_t)rank,
                                                 10 * (size_t)(rank + 1), weight, &mp);
    CHECK((nranks > 1 ? st == LWT_ERR_INVALID_ARGUMENT : !st) && (st ? !mp : 1), "weights of mixed kinds: %s",
          lwt_status_string(st));
    lwt_mpi_plan_destroy(mp);
    mp = NULL;
    st = lwt_mpi_plan_create_weighted(ctx, &d, NULL, MPI_COMM_WORLD, 10 * (size_t)rank, 10 * (size_t)(rank + 1), -3.0,
                                      &mp);
    CHECK(st == LWT_ERR_INVALID_ARGUMENT && !mp, "weight -3: %s", lwt_status_string(st));
    /* the shares follow the weights: rank r, weight r + 1, holds that part of the rows of a band
       (to a chunk: 4 input rows, 2 band rows) */
    lwt_plan_desc d2 = small_desc(w, 400, 8, 1);
    lwt_stream_desc chunks = lwt_stream_desc_default();
    chunks.chunk_rows = 4;
    st = lwt_mpi_plan_create_weighted(ctx, &d2, &chunks, MPI_COMM_WORLD, rank ? 400 : 0, 400, rank + 1.0, &mp);
    size_t r0 = 0, r1 = 0;
    CHECK(!st && !lwt_mpi_band_rows(mp, 1, 1, &r0, &r1, NULL), "weighted shares: %s", lwt_status_string(st));
    const double sum = nranks * (nranks + 1) / 2.0, want = 201.0 * (rank + 1) / sum; /* db2: 201 band rows */
    CHECK(fabs((double)(r1 - r0) - want) <= 2.0, "rank %d (weight %d of %g) holds %zu band rows, not about %.1f", rank,
          rank + 1, sum, r1 - r0, want);
    lwt_mpi_plan_destroy(mp);
    lwt_wavelet_destroy(w);
    lwt_stream_desc sd;
    st = lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, LWT_BACKEND_CPU, 3, &sd);
    CHECK(!st && sd.nworkers == 1 && sd.workers[0].kind == LWT_WORKER_CPU && sd.workers[0].threads == 3, "CPU workers: %s",
          lwt_status_string(st));
    const int ndev = lwt_context_device_count(ctx);
    if (ndev > 0 && nranks <= ndev) { /* one rank per GPU: rank r of this node gets GPU r */
        st = lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, LWT_BACKEND_AUTO, 0, &sd);
        CHECK(!st && sd.nworkers == 1 && sd.workers[0].kind == LWT_WORKER_CUDA && sd.workers[0].device == rank,
              "AUTO with %d GPUs: worker kind %d device %d", ndev, sd.workers[0].kind, sd.workers[0].device);
    }
    if (ndev == 0) {
        st = lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, LWT_BACKEND_AUTO, 0, &sd);
        CHECK(!st && sd.workers[0].kind == LWT_WORKER_CPU, "AUTO with no GPU: %s", lwt_status_string(st));
        st = lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, LWT_BACKEND_CUDA, 0, &sd);
        CHECK(st == LWT_ERR_UNSUPPORTED, "CUDA with no GPU: %s", lwt_status_string(st));
    }
}

/* a rank whose worker fails on its first chunk fails the call on every rank, with one status,
   and nothing hangs */
static void failing_rank(lwt_context *ctx)
{
    lwt_wavelet *w = NULL;
    lwt_wavelet_create(ctx, "cdf97", &w);
    const lwt_plan_desc d = small_desc(w, 16 * (size_t)nranks, 33, 2);
    lwt_stream_desc sd = lwt_stream_desc_default();
    sd.chunk_rows = 4;
    lwt_stream_tuning t = lwt_stream_tuning_default();
    if (rank == nranks - 1)
        t.fail_after[0] = 1;
    lwt_mpi_plan *mp = NULL;
    lwt_status st = lwt_mpi_plan_create_tuned(ctx, &d, &sd, &t, MPI_COMM_WORLD, 16 * (size_t)rank,
                                              16 * (size_t)(rank + 1), &mp);
    CHECK(!st, "failing rank: plan: %s", lwt_status_string(st));
    if (!st) {
        size_t nin, ncoef;
        lwt_mpi_plan_local(mp, &nin, &ncoef);
        double *x = calloc(nin + 1, sizeof *x), *c = calloc(ncoef + 1, sizeof *c);
        st = lwt_mpi_forward(mp, x, c);
        int mine = (int)st, lo = 0, hi = 0;
        MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(st != LWT_OK && lo == hi, "failing rank: forward gave %s here, statuses %d..%d over the ranks",
              lwt_status_string(st), lo, hi);
        free(x);
        free(c);
    }
    lwt_mpi_plan_destroy(mp);
    lwt_wavelet_destroy(w);
}

static void quiet(void *user, lwt_log_level level, const char *message)
{
    (void)user;
    (void)level;
    (void)message;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    unsigned long long seed = 0;
    if (rank == 0) {
        const char *s = getenv("LWT_SEED");
        seed = s ? strtoull(s, NULL, 10) : ((unsigned long long)time(NULL) * 2654435761u) % 2147483647u + 1;
        printf("test_mpi: %d ranks, seed %llu (rerun with LWT_SEED=%llu)\n", nranks, seed, seed);
        fflush(stdout);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    rng = seed * 0x9e3779b97f4a7c15ull + 1;
    const char *b = getenv("LWT_MPI_BACKEND");
    if (b && !strcmp(b, "auto"))
        workers = LWT_BACKEND_AUTO;
    lwt_context *ctx = NULL;
    lwt_context_create(&ctx);
    lwt_context_set_log(ctx, quiet, NULL);
    const char *q = getenv("LWT_QUICK");
    const int ncases = q && *q && *q != '0' ? 12 : 40;
    for (int ci = 0; ci < ncases; ci++)
        run_case(ctx, ci, LWT_F32);
    for (int ci = ncases; ci < ncases + ncases / 4; ci++) /* 16-bit: the caller's arrays, not the halos */
        run_case(ctx, ci, ci % 2 ? LWT_BF16 : LWT_F16);
    bad_slabs(ctx);
    weights_and_workers(ctx);
    failing_rank(ctx);
    lwt_context_destroy(ctx);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "test_mpi: %d failures\n" : "test_mpi: all checks passed (%d cases)\n",
               all ? all : ncases + ncases / 4);
    MPI_Finalize();
    return all ? 1 : 0;
}
