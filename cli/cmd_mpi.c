/*
 * lwt forward|inverse --mpi: one array spread over the MPI ranks of mpirun (lwt_mpi.h), read
 * and written with MPI-IO. Each rank reads its slab of rows of the input (forward: a .npy or
 * --raw array; inverse: its pieces of the packed coefficients), the ranks transform it
 * together, and each writes its part of the output into a temporary file beside the output
 * path; rank 0 renames it over the path only after every rank succeeded, and removes it
 * otherwise: the output appears whole or not at all. Slabs: equal shares of axis 0; the work:
 * shares by slab, or by speed measured when the plan is made (--weight; the default when a
 * rank has a GPU: --backend auto gives each rank its node's GPU by its place on the node).
 * Built only with MPI (CMakeLists.txt: LWT_HAVE_MPI).
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io/npy.h"
#include "io/npy_header.h"
#include "lwt_mpi.h"
#include "mpi_io.h"

typedef struct mpi_opts {
    cli_transform_opts t;
    int raw;
    lwt_dtype raw_dtype;
    size_t shape[LWT_MAX_NDIM];
    int shape_nd;
    size_t chunk_rows;
    int fail_rank; /* test option: this rank fails before it writes (-1: none) */
    double weight; /* the ranks' shares (lwt_mpi_plan_create_weighted) */
    int weight_set;
    const char *paths[2];
    int npaths;
} mpi_opts;

static int rank, nranks;

static int usage(const char *name, const char *msg, const char *arg)
{
    if (rank == 0)
        fprintf(stderr, "lwt %s --mpi: %s%s%s\n", name, msg, arg ? " " : "", arg ? arg : "");
    return -1;
}

static int parse(int argc, char **argv, const char *name, mpi_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const int common = cli_parse_common(argc, argv, &i, &o->t); /* -w, -l, -m, --threads, ... */
        if (common < 0)
            return -1;
        if (common) /* -w, -l, -m, --backend, ...: taken */
            continue;
        const char *a = argv[i];
        const int has_value = i + 1 < argc;
        if (!strcmp(a, "--mpi")) {
            continue;
        } else if (!strcmp(a, "--weight") && has_value) {
            const char *v = argv[++i];
            if (!strcmp(v, "slab"))
                o->weight = LWT_MPI_WEIGHT_SLAB;
            else if (!strcmp(v, "measure"))
                o->weight = LWT_MPI_WEIGHT_MEASURE;
            else
                return usage(name, "--weight needs slab or measure, not", v);
            o->weight_set = 1;
        } else if (!strcmp(a, "--raw") && has_value) {
            const char *v = argv[++i];
            o->raw = 1;
            if (cli_parse_raw_dtype(v, &o->raw_dtype))
                return usage(name, "--raw needs f16, f32 or f64, not", v);
        } else if (!strcmp(a, "--shape") && has_value) {
            if (cli_parse_shape(argv[++i], o->shape, &o->shape_nd))
                return usage(name, "--shape needs D0[,D1[,D2]] with 1-3 positive integers, not", argv[i]);
        } else if (!strcmp(a, "--chunk-rows") && has_value) {
            if (cli_parse_size(argv[++i], &o->chunk_rows) || !o->chunk_rows)
                return usage(name, "--chunk-rows needs a positive integer, not", argv[i]);
        } else if (!strcmp(a, "--fail-rank") && has_value) {
            size_t fr;
            if (cli_parse_size(argv[++i], &fr) || fr >= (size_t)nranks)
                return usage(name, "--fail-rank needs a rank of this job, not", argv[i]);
            o->fail_rank = (int)fr;
        } else if (a[0] == '-' && a[1]) {
            return usage(name, "unknown option (or one the MPI path does not take, or a missing value):", a);
        } else if (o->npaths == 2) {
            return usage(name, "too many arguments:", a);
        } else {
            o->paths[o->npaths++] = a;
        }
    }
    if (o->npaths != 2 || !o->t.wavelet)
        return usage(name, "needs -w WAVELET, IN and OUT.npy", NULL);
    if (o->raw && name[0] == 'i')
        return usage(name, "--raw is for the forward's input (the inverse reads the .npy lwt forward wrote)", NULL);
    if ((o->raw || name[0] == 'i') && !o->shape_nd)
        return usage(name, "needs --shape D0[,D1[,D2]] (the shape of the signal)", NULL);
    return 0;
}

/* the coefficient pieces of this rank, in the plan's own packed array (lwt_mpi_band_view):
   each band row's runs at their places in the packed array of the file (offset base); read
   (write 0) or write (1). A read notes the packed index of the first element that is not
   finite in *bad (ULLONG_MAX: none). */
typedef struct piece_io {
    const lwt_plan *whole;
    const lwt_mpi_plan *mp;
    lwt_dtype dtype;
    size_t es, base;
} piece_io;

static int move_pieces(const piece_io *io, MPI_File fh, int write, unsigned long long *bad)
{
    lwt_plan_info info;
    lwt_plan_get_info(io->whole, &info);
    const int nd = info.ndim;
    size_t stride[LWT_MAX_NDIM];
    stride[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; k--)
        stride[k] = stride[k + 1] * info.packed_shape[k + 1];
    for (int level = 0; level <= info.levels; level++)
        for (unsigned mask = level ? 1 : 0; mask < (level ? 1u << nd : 1u); mask++) {
            lwt_band b;
            void *first;
            size_t r0, r1, vs[LWT_MAX_NDIM];
            if (lwt_plan_band(io->whole, level, mask, &b) ||
                lwt_mpi_band_view(io->mp, level, mask, &first, &r0, &r1, vs))
                return -1;
            const size_t runs = nd == 3 ? b.shape[1] : 1, run = nd == 1 ? 1 : b.shape[nd - 1];
            for (size_t r = r0; r < r1; r++)
                for (size_t k = 0; k < runs; k++) {
                    size_t at = (b.offset[0] + r) * stride[0];
                    for (int d = 1; d < nd; d++)
                        at += b.offset[d] * stride[d];
                    at += k * (nd == 3 ? stride[1] : 0);
                    char *mem = (char *)first + ((r - r0) * vs[0] + (nd == 3 ? k * vs[1] : 0)) * io->es;
                    const size_t pos = io->base + at * io->es;
                    if (write ? mpi_write_at(fh, pos, mem, run * io->es) : mpi_read_at(fh, pos, mem, run * io->es))
                        return -1;
                    for (size_t i = 0; !write && i < run && *bad == ULLONG_MAX; i++) {
                        const double v = cli_value(io->dtype, mem, i);
                        if (!isfinite(v))
                            *bad = at + i;
                    }
                }
        }
    return 0;
}



static int run(mpi_opts *o, int inverse, lwt_context *ctx)
{
    lwt_plan_desc pd = lwt_plan_desc_default();
    char err[600] = "";
    size_t in_off = 0;
    int ok = 1;
    /* the input's header: every rank reads it (the same file, the same answer) */
    size_t packed_in[LWT_MAX_NDIM] = {0};
    int packed_nd = 0;
    const char *kind = lwt__not_regular(o->paths[0]); /* a FIFO would block MPI_File_open on every rank */
    if (kind) {
        snprintf(err, sizeof err, "%s: %s (--mpi reads a regular file on every rank)", o->paths[0], kind);
        ok = 0;
    } else if (o->raw) {
        pd.dtype = o->raw_dtype;
    } else {
        npy_header_info hi;
        ok = mpi_npy_header_at(o->paths[0], &hi, &in_off, err, sizeof err) == 0;
        if (ok && (hi.ndim < 1 || hi.ndim > LWT_MAX_NDIM)) {
            snprintf(err, sizeof err, "%s: needs a 1-, 2- or 3-dimensional array", o->paths[0]);
            ok = 0;
        }
        if (ok) {
            pd.dtype = hi.dtype;
            int *nd = inverse ? &packed_nd : &o->shape_nd;
            size_t *shape = inverse ? packed_in : o->shape;
            *nd = hi.ndim;
            for (int k = 0; k < hi.ndim; k++)
                shape[k] = hi.shape[k];
        }
    }
    if (!mpi_all_ok(ok)) {
        if (rank == 0)
            fprintf(stderr, "lwt: %s\n", err);
        return LWT_EXIT_RUNTIME;
    }
    lwt_wavelet *w = NULL;
    if (lwt_wavelet_create(ctx, o->t.wavelet, &w) != LWT_OK)
        return LWT_EXIT_USAGE;
    pd.wavelet = w;
    pd.ndim = o->shape_nd;
    for (int k = 0; k < o->shape_nd; k++)
        pd.shape[k] = o->shape[k];
    pd.levels = o->t.levels;
    pd.mode = o->t.mode;
    pd.backend = LWT_BACKEND_CPU; /* the whole array's plan: its layout; the ranks' workers compute */
    pd.algorithm = o->t.algorithm;
    int rc = LWT_EXIT_RUNTIME;
    lwt_plan *whole = NULL;
    lwt_mpi_plan *mp = NULL;
    MPI_File fh = MPI_FILE_NULL;
    char tmp[4096] = "";
    if (lwt_plan_create(ctx, &pd, &whole) != LWT_OK) /* the same answer on every rank */
        goto done;
    lwt_plan_info info;
    lwt_plan_get_info(whole, &info);
    if (rank == 0)
        cli_warn_levels(o->t.levels, info.max_level);
    if (inverse) {
        int same = packed_nd == info.ndim;
        for (int k = 0; same && k < info.ndim; k++)
            same = packed_in[k] == info.packed_shape[k];
        if (!same) {
            if (rank == 0)
                fprintf(stderr, "lwt: %s: the coefficient array does not have the packed shape that --shape with %d "
                                "levels of %s needs\n", o->paths[0], info.levels, o->t.wavelet);
            goto done;
        }
    }
    size_t r0, r1;
    mpi_slab_of(info.shape[0], rank, nranks, &r0, &r1);
    const size_t row = info.input_count / info.shape[0]; /* elements of a row of axis 0 */
    /* each rank's workers: its node's GPU by its place on the node, else the CPU; when some
       rank has a GPU the shares follow measured speed unless --weight says otherwise */
    lwt_stream_desc sd;
    if (lwt_mpi_stream_desc_local(ctx, MPI_COMM_WORLD, o->t.backend, o->t.threads, &sd) != LWT_OK)
        goto done;
    sd.chunk_rows = o->chunk_rows;
    if (!o->weight_set) {
        int gpu = sd.workers[0].kind == LWT_WORKER_CUDA, any = 0;
        MPI_Allreduce(&gpu, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        o->weight = any ? LWT_MPI_WEIGHT_MEASURE : LWT_MPI_WEIGHT_SLAB;
    }
    if (lwt_mpi_plan_create_weighted(ctx, &pd, &sd, MPI_COMM_WORLD, r0, r1, o->weight, &mp) != LWT_OK)
        goto done;
    /* the calls run in place: the slab read into the plan's own signal array, the pieces into
       (and out of) its packed array, so a rank holds its share once */
    size_t nin;
    lwt_mpi_plan_local(mp, &nin, NULL);
    void *slab = NULL;
    lwt_mpi_plan_signal(mp, &slab);
    const size_t es = npy_elem_size(pd.dtype);
    unsigned long long first = ULLONG_MAX, all_first = ULLONG_MAX;
    /* read: forward, the slab's rows; inverse, the pieces */
    ok = MPI_File_open(MPI_COMM_WORLD, o->paths[0], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
    MPI_Offset fsize = 0;
    if (ok)
        MPI_File_get_size(fh, &fsize);
    const size_t need = in_off + (inverse ? info.coeff_count : info.input_count) * es;
    if (ok && (size_t)fsize < need) {
        if (rank == 0)
            fprintf(stderr, "lwt: %s: %lld bytes, the array needs %zu\n", o->paths[0], (long long)fsize, need);
        ok = 0;
    } else if (ok) {
        piece_io io = {whole, mp, pd.dtype, es, in_off};
        ok = inverse ? move_pieces(&io, fh, 0, &first) == 0 : mpi_read_at(fh, in_off + r0 * row * es, slab, nin * es) == 0;
        if (!ok)
            fprintf(stderr, "lwt: %s: rank %d cannot read its part\n", o->paths[0], rank);
    } else if (rank == 0) {
        fprintf(stderr, "lwt: %s: cannot open\n", o->paths[0]);
    }
    if (fh != MPI_FILE_NULL)
        MPI_File_close(&fh);
    if (!mpi_all_ok(ok))
        goto done;
    /* finite input only: the first element that is not, over all ranks */
    for (size_t i = 0; !inverse && i < nin && first == ULLONG_MAX; i++) {
        const double v = cli_value(pd.dtype, slab, i);
        if (!isfinite(v))
            first = r0 * row + i;
    }
    MPI_Allreduce(&first, &all_first, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (all_first != ULLONG_MAX) {
        if (first == all_first)
            fprintf(stderr, "lwt: %s: %s %llu is not finite; lwt transforms finite data\n", o->paths[0],
                    inverse ? "a coefficient, at" : "element", all_first);
        goto done;
    }
    lwt_status st = inverse ? lwt_mpi_inverse(mp, NULL, NULL) : lwt_mpi_forward(mp, NULL, NULL);
    if (st != LWT_OK)
        goto done; /* the failing rank's message went through the log */
    /* write into a temporary file; rename when every rank has written its part */
    if (!mpi_temp_beside(o->paths[1], tmp, sizeof tmp))
        goto done;
    const size_t *oshape = inverse ? info.shape : info.packed_shape;
    unsigned char hdr[NPY_HEADER_BUF];
    const size_t hlen = lwt__npy_build_header(hdr, sizeof hdr, pd.dtype, info.ndim, oshape);
    ok = hlen > 0 && MPI_File_open(MPI_COMM_WORLD, tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
    if (mpi_all_ok(ok)) {
        const size_t total = hlen + (inverse ? info.input_count : info.coeff_count) * es;
        ok = MPI_File_set_size(fh, (MPI_Offset)total) == MPI_SUCCESS; /* the gaps of the packed layout: zeros */
        if (ok && rank == 0)
            ok = mpi_write_at(fh, 0, hdr, hlen) == 0;
        if (ok && o->fail_rank == rank) {
            fprintf(stderr, "lwt: rank %d: failing on purpose (--fail-rank)\n", rank);
            ok = 0;
        }
        if (ok) {
            piece_io io = {whole, mp, pd.dtype, es, hlen};
            ok = inverse ? mpi_write_at(fh, hlen + r0 * row * es, slab, nin * es) == 0 : move_pieces(&io, fh, 1, NULL) == 0;
            if (!ok)
                fprintf(stderr, "lwt: %s: rank %d cannot write its part\n", o->paths[1], rank);
        }
        if (MPI_File_sync(fh) != MPI_SUCCESS)
            ok = 0;
    }
    if (fh != MPI_FILE_NULL)
        MPI_File_close(&fh);
    ok = mpi_all_ok(ok);
    if (rank == 0 && ok) {
        if (rename(tmp, o->paths[1]) != 0) {
            fprintf(stderr, "lwt: %s: cannot rename the finished output into place\n", o->paths[1]);
            ok = 0;
        } else {
            tmp[0] = 0;
            lwt__npy_fsync_parent_dir(o->paths[1]);
        }
    }
    if (mpi_all_ok(ok))
        rc = LWT_EXIT_OK;
done:
    if (rank == 0 && tmp[0])
        remove(tmp); /* nothing is left of a failed run */
    lwt_mpi_plan_destroy(mp);
    lwt_plan_destroy(whole);
    lwt_wavelet_destroy(w);
    /* every rank leaves with the same status */
    int worst = rc, all = rc;
    MPI_Allreduce(&worst, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

int cmd_transform_mpi(int argc, char **argv, int inverse)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "lwt: MPI_Init failed\n");
        return LWT_EXIT_RUNTIME;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    mpi_opts o;
    memset(&o, 0, sizeof o);
    o.t.levels = LWT_LEVELS_MAX;
    o.t.mode = LWT_MODE_SYMMETRIC;
    o.fail_rank = -1;
    int rc = LWT_EXIT_USAGE;
    if (mpi_all_ok(parse(argc, argv, inverse ? "inverse" : "forward", &o) == 0)) {
        lwt_context *ctx = cli_context();
        if (mpi_all_ok(ctx != NULL)) {
            lwt_context_set_threads(ctx, o.t.threads);
            rc = run(&o, inverse, ctx);
        } else {
            rc = LWT_EXIT_RUNTIME;
        }
        lwt_context_destroy(ctx);
    }
    MPI_Finalize();
    return rc;
}
