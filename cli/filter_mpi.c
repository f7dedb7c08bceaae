/*
 * lwt filter --mpi: one surface bigger than a node, split over the MPI ranks of mpirun. Each rank
 * reads its slab of rows of a 2-D .npy height map (MPI-IO), the ranks run the forward transform
 * together (lwt_mpi.h), then per band an inverse of that band's coefficients alone (each rank
 * zeroes the other bands' pieces it holds), and each rank writes its rows of every band into
 * OUTDIR/NAME/BAND.npy. The ISO 25178-2 height and hybrid parameters of the input and of each
 * band are reduced across the ranks from per-row partial sums (src/surface/params_rows.h): every
 * rank computes its rows' partials (the row after its slab comes from the next rank), gathers
 * every row's partials and adds them in row order, so the values are those of lwt filter
 * on one process, bit for bit, for any rank count. report.json and the table are lwt filter's
 * (its writer and printer). The folder appears complete or not at all (outdir.h: rank 0
 * commits it after every rank succeeded).
 *
 * Not over ranks (refused with a message): invalid points (their harmonic fill, fill.c, is a
 * sequential coarse-to-fine sweep over the whole surface), form removal other than the plane (--plane:
 * reduced from per-row sums like the parameters, plane.h), the Gaussian filter,
 * the spatial family; the material-ratio family needs the whole surface sorted and is left out
 * (said in the report). Built only with MPI.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter_job.h"
#include "io/report_json.h"
#include "lwt_mpi.h"
#include "mpi_io.h"
#include "outdir.h"
#include "surface/params_rows.h"
#include "surface/plane.h"
#include "surface/bands.h"
#include "surface/split.h"

typedef struct fjob {
    const filter_opts *o;
    lwt_context *ctx;
    int rank, nranks;
    size_t nx, ny, r0, r1;
    double dx, dy;
    lwt_band_split split;
    double *z;                               /* this rank's heights (metres) */
    lwt_iso_params params[1 + LWT_BAND_COUNT]; /* input (levelled), then the bands */
    lwt_filter_result res;                   /* what lwt_filter_run reports, for report.json and the table */
    char band_file[LWT_BAND_COUNT][16];      /* "form.npy", ... */
    int levelled;                            /* --plane: res.plane removed first */
    int axes_differ;                         /* lwt filter would give each axis its own levels */
} fjob;

static int say(const fjob *j, const char *input, const char *msg)
{
    if (j->rank == 0)
        fprintf(stderr, "lwt filter --mpi: %s: %s\n", input, msg);
    return 0;
}

/* this rank's slab of the input, in metres; 0, or -1 (every rank agrees) */
static int read_slab(fjob *j, const char *input, size_t offset, lwt_dtype dt)
{
    const size_t n = (j->r1 - j->r0) * j->nx, es = dt == LWT_F64 ? 8 : 4;
    void *raw = malloc(n * es + 1);
    j->z = malloc(n * sizeof *j->z + 1);
    MPI_File fh = MPI_FILE_NULL;
    int ok = raw && j->z &&
             MPI_File_open(MPI_COMM_WORLD, input, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
    MPI_Offset size = 0;
    if (ok)
        MPI_File_get_size(fh, &size);
    ok = ok && (size_t)size >= offset + j->nx * j->ny * es &&
         mpi_read_at(fh, offset + j->r0 * j->nx * es, raw, n * es) == 0;
    if (fh != MPI_FILE_NULL)
        MPI_File_close(&fh);
    for (size_t i = 0; ok && i < n; i++)
        j->z[i] = (dt == LWT_F64 ? ((const double *)raw)[i] : (double)((const float *)raw)[i]) * j->o->z_unit;
    free(raw);
    if (!mpi_all_ok(ok))
        return say(j, input, "cannot read it (short, unreadable or out of memory)") - 1;
    unsigned long long bad = 0, all = 0;
    for (size_t i = 0; i < n; i++)
        bad += !isfinite(j->z[i]);
    MPI_Allreduce(&bad, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all && j->rank == 0)
        fprintf(stderr, "lwt filter --mpi: %s: %llu invalid points; --mpi filters surfaces without invalid points "
                        "(their fill runs on the whole surface: use lwt filter without --mpi)\n", input, all);
    return all ? -1 : 0;
}

/* the transform's type of the heights (float32: rounded once, as lwt filter's splitter does) */
static void *to_dtype(const double *z, size_t n, lwt_dtype dt)
{
    void *t = malloc(n * (dt == LWT_F64 ? 8 : 4) + 1);
    for (size_t i = 0; t && i < n; i++)
        if (dt == LWT_F64)
            ((double *)t)[i] = z[i];
        else
            ((float *)t)[i] = (float)z[i];
    return t;
}

/* forward once, then per band an inverse of the band's pieces alone; 0 or -1 (agreed) */
static int split_bands(fjob *j, lwt_mpi_plan *mp, const lwt_plan *whole, lwt_dtype dt)
{
    const size_t n = (j->r1 - j->r0) * j->nx, es = dt == LWT_F64 ? 8 : 4;
    size_t ncoef = 0;
    lwt_mpi_plan_local(mp, NULL, &ncoef);
    void *in = to_dtype(j->z, n, dt), *out = malloc(n * es + 1);
    char *c = malloc(ncoef * es + 1), *cb = malloc(ncoef * es + 1);
    int ok = mpi_all_ok(in && out && c && cb);
    ok = ok && lwt_mpi_forward(mp, in, c) == LWT_OK;
    for (int b = 0; ok && b < LWT_BAND_COUNT; b++) {
        const uint64_t keep = lwt_split_keep(&j->split, b); /* the packed levels of band b, as lwt filter */
        if (!keep)
            continue;
        memcpy(cb, c, ncoef * es);
        for (int level = 0; level <= j->split.levels; level++)
            for (unsigned mask = level ? 1 : 0; mask < (level ? 4u : 1u); mask++) {
                lwt_band bb;
                size_t r0, r1, off;
                lwt_plan_band(whole, level, mask, &bb);
                lwt_mpi_band_rows(mp, level, mask, &r0, &r1, &off);
                if (!(keep >> level & 1))
                    memset(cb + off * es, 0, (r1 - r0) * bb.shape[1] * es);
            }
        j->res.band[b] = malloc(n * sizeof *j->res.band[b] + 1);
        ok = mpi_all_ok(j->res.band[b] != NULL) && lwt_mpi_inverse(mp, cb, out) == LWT_OK;
        for (size_t i = 0; ok && i < n; i++)
            j->res.band[b][i] = dt == LWT_F64 ? ((const double *)out)[i] : (double)((const float *)out)[i];
    }
    free(in);
    free(out);
    free(c);
    free(cb);
    return ok ? 0 : -1;
}

/* every rank's per-row partials (F doubles a row, this rank's `mine` for its rows) into all, in
   row order, on every rank */
static void gather_rows(const fjob *j, const double *mine, size_t F, double *all, int *count, int *at)
{
    for (int q = 0; q < j->nranks; q++) {
        size_t a, b;
        mpi_slab_of(j->ny, q, j->nranks, &a, &b);
        count[q] = (int)((b - a) * F);
        at[q] = (int)(a * F);
    }
    MPI_Allgatherv(mine, count[j->rank], MPI_DOUBLE, all, count, at, MPI_DOUBLE, MPI_COMM_WORLD);
}

/* the parameters of one distributed surface (this rank's rows z) into *out on every rank:
   per-row partials, the row after the slab from the next rank, all rows added in row order */
static int reduce_params(const fjob *j, const double *z, lwt_iso_params *out)
{
    const size_t rows = j->r1 - j->r0, F = LWT_PARAMS_ROW_FIELDS;
    double *mine = malloc(rows * F * sizeof *mine + 1), *all = malloc(j->ny * F * sizeof *all + 1);
    double *next = malloc(j->nx * sizeof *next + 1);
    int *count = malloc((size_t)j->nranks * sizeof *count), *at = malloc((size_t)j->nranks * sizeof *at);
    int ok = mpi_all_ok(mine && all && next && count && at);
    if (ok) { /* my first row to the rank before, the next rank's first row to me */
        const int up = j->rank > 0 ? j->rank - 1 : MPI_PROC_NULL, down = j->rank + 1 < j->nranks ? j->rank + 1 : MPI_PROC_NULL;
        MPI_Sendrecv(z, (int)j->nx, MPI_DOUBLE, up, 7, next, (int)j->nx, MPI_DOUBLE, down, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        const int threads = j->o->spec.threads;
        lwt__params_rows_first(z, j->nx, 0, rows, j->r1 < j->ny ? next : NULL, j->dx, j->dy, threads, mine);
        gather_rows(j, mine, F, all, count, at);
        const double mean = lwt__params_rows_mean(all, j->ny);
        lwt__params_rows_second(z, j->nx, 0, rows, mean, threads, mine);
        gather_rows(j, mine, F, all, count, at);
        lwt__params_rows_finish(all, j->ny, out);
    }
    free(mine);
    free(all);
    free(next);
    free(count);
    free(at);
    return ok ? 0 : -1;
}

/* the least-squares plane of the whole map from every rank's rows (plane.h), subtracted from
   this rank's rows: lwt filter --plane's bits */
static int level(fjob *j)
{
    const size_t rows = j->r1 - j->r0, F = LWT_PLANE_ROW_FIELDS;
    double *mine = calloc(rows * F + 1, sizeof *mine), *all = calloc(j->ny * F + 1, sizeof *all), mean[3];
    int *count = malloc((size_t)j->nranks * sizeof *count), *at = malloc((size_t)j->nranks * sizeof *at);
    int ok = mpi_all_ok(mine && all && count && at);
    if (ok) {
        lwt__plane_rows_first(j->z, j->nx, rows, j->o->spec.threads, mine);
        gather_rows(j, mine, F, all, count, at);
        lwt__plane_rows_means(all, j->ny, mean); /* the points are all valid here */
        lwt__plane_rows_second(j->z, j->nx, j->r0, rows, mean, j->o->spec.threads, mine);
        gather_rows(j, mine, F, all, count, at);
        lwt__plane_rows_finish(all, j->ny, mean, j->dx, j->dy, &j->res.plane);
        lwt__plane_subtract_rows(j->z, j->nx, j->r0, rows, j->dx, j->dy, &j->res.plane, j->o->spec.threads);
        j->levelled = 1;
    }
    free(mine);
    free(all);
    free(count);
    free(at);
    return ok ? 0 : -1;
}

/* BAND.npy in the folder: every rank its rows, rank 0 the header; 0 or -1 (agreed) */
static int write_band(const fjob *j, const char *path, const double *rows)
{
    unsigned char hdr[NPY_HEADER_BUF];
    const size_t shape[2] = {j->ny, j->nx};
    const size_t hlen = lwt__npy_build_header(hdr, sizeof hdr, LWT_F64, 2, shape);
    MPI_File fh = MPI_FILE_NULL;
    int ok = hlen > 0 && MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL,
                                       &fh) == MPI_SUCCESS;
    if (mpi_all_ok(ok)) {
        ok = MPI_File_set_size(fh, (MPI_Offset)(hlen + j->nx * j->ny * 8)) == MPI_SUCCESS;
        if (ok && j->rank == 0)
            ok = mpi_write_at(fh, 0, hdr, hlen) == 0;
        ok = ok && mpi_write_at(fh, hlen + j->r0 * j->nx * 8, rows, (j->r1 - j->r0) * j->nx * 8) == 0;
        ok = MPI_File_sync(fh) == MPI_SUCCESS && ok;
    }
    if (fh != MPI_FILE_NULL)
        MPI_File_close(&fh);
    return mpi_all_ok(ok) ? 0 : -1;
}

/* rank 0: report.json by lwt filter's writer and its table on stdout, the same keys and lines;
   the form model's residual is not reduced over the ranks ("form" is null, "plane" holds the
   plane), nor are the material-ratio and spatial families (a note says so) */
static int write_report(fjob *j, const char *input, const char *path, double ms_total)
{
    lwt_report r;
    memset(&r, 0, sizeof r);
    r.input = input;
    r.input_format = "npy";
    r.nx = j->nx;
    r.ny = j->ny;
    r.dx = j->dx;
    r.dy = j->dy;
    r.n_valid = j->nx * j->ny;
    r.wavelet = j->o->wavelet_asked;
    r.mode = lwt_mode_name(j->o->spec.mode);
    r.dtype = j->o->spec.dtype == LWT_F64 ? "float64" : "float32";
    r.split = &j->split;
    r.lambda_s_req = j->o->req.lambda_s;
    r.lambda_c_req = j->o->req.lambda_c;
    r.result = &j->res;
    r.plane_removed = j->levelled;
    for (int s = 0; s <= LWT_BAND_COUNT; s++)
        if (!s || j->res.band[s - 1])
            r.params[s] = &j->params[s];
    r.ms_total = ms_total;
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        if (j->res.band[b])
            r.outputs[r.noutputs++] = j->band_file[b];
    r.outputs[r.noutputs++] = "report.json";
    char note[160];
    snprintf(note, sizeof note, "filtered over %d MPI ranks: the material-ratio and spatial families are not computed "
                                "(they need the whole surface on one process)", j->nranks);
    r.notes[r.nnotes++] = note;
    char aniso[240]; /* the ranks' split has the 2-D plan's levels, not levels per axis (lwt filter's) */
    if (j->axes_differ) {
        snprintf(aniso, sizeof aniso, "anisotropic spacing: --mpi splits with the levels of the smaller spacing on both "
                                      "axes, so the cutoffs along y are %.4g times those along x (lwt filter without "
                                      "--mpi has levels per axis)", j->dy / j->dx);
        r.notes[r.nnotes++] = aniso;
    }
    const lwt_status st = lwt_report_write_json(j->ctx, path, &r);
    filter_table_print(stdout, &r, j->o->outdir);
    return st == LWT_OK ? 0 : -1;
}

static int filter_one(fjob *j, const char *input)
{
    const filter_opts *o = j->o;
    const char *kind = lwt__not_regular(input);
    if (kind) {
        char m[96];
        snprintf(m, sizeof m, "%s (--mpi reads a regular file on every rank)", kind);
        return say(j, input, m) - 1;
    }
    npy_header_info hi;
    size_t offset = 0;
    char err[600];
    if (mpi_npy_header_at(input, &hi, &offset, err, sizeof err))
        return say(j, input, err) - 1;
    if (hi.ndim != 2)
        return say(j, input, "--mpi filters a 2-D height map (.npy)") - 1;
    j->ny = hi.shape[0];
    j->nx = hi.shape[1];
    if (j->ny < (size_t)j->nranks)
        return say(j, input, "fewer rows than ranks") - 1;
    mpi_slab_of(j->ny, j->rank, j->nranks, &j->r0, &j->r1);
    if (lwt_bands_resolve(j->ctx, &o->req, j->nx, j->ny, j->dx, j->dy, &j->split) != LWT_OK)
        return -1; /* the reason went through the log */
    lwt_band_split per_axis;
    lwt_band_axes a;
    j->axes_differ = lwt_bands_resolve_axes(NULL, &o->req, j->nx, j->ny, j->dx, j->dy, &per_axis, &a) == LWT_OK &&
                     !lwt__band_axes_uniform(&a, &per_axis);
    const double t0 = MPI_Wtime();
    if (read_slab(j, input, offset, hi.dtype))
        return -1;
    double t = MPI_Wtime();
    if ((o->spec.plane || o->spec.form == LWT_FORM_POLY) && level(j))
        return say(j, input, "out of memory fitting the plane") - 1;
    j->res.ms_fill = 1e3 * (MPI_Wtime() - t);
    lwt_wavelet *w = NULL;
    lwt_plan *whole = NULL;
    lwt_mpi_plan *mp = NULL;
    lwt_plan_desc d = lwt_plan_desc_default();
    int rc = -1;
    if (lwt_wavelet_create(j->ctx, o->spec.wavelet, &w) != LWT_OK)
        goto done;
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = j->ny;
    d.shape[1] = j->nx;
    d.levels = j->split.levels;
    d.mode = o->spec.mode;
    d.dtype = o->spec.dtype;
    d.algorithm = o->spec.algorithm;
    d.backend = LWT_BACKEND_CPU;
    lwt_stream_desc sd;
    if (lwt_plan_create(j->ctx, &d, &whole) != LWT_OK ||
        lwt_mpi_stream_desc_local(j->ctx, MPI_COMM_WORLD, o->spec.backend, o->spec.threads, &sd) != LWT_OK)
        goto done;
    int gpu = sd.workers[0].kind == LWT_WORKER_CUDA, any = 0;
    MPI_Allreduce(&gpu, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    lwt_plan_info pi;
    lwt_wavelet_info wi;
    lwt_plan_get_info(whole, &pi);
    lwt_wavelet_get_info(w, &wi);
    j->res.nx = j->nx;
    j->res.ny = j->ny;
    j->res.backend = any ? LWT_BACKEND_CUDA : LWT_BACKEND_CPU;
    j->res.path = pi.path;
    j->res.max_level = pi.max_level;
    snprintf(j->res.wavelet, sizeof j->res.wavelet, "%s", wi.name);
    t = MPI_Wtime();
    if (lwt_mpi_plan_create_weighted(j->ctx, &d, &sd, MPI_COMM_WORLD, j->r0, j->r1,
                                     any ? LWT_MPI_WEIGHT_MEASURE : LWT_MPI_WEIGHT_SLAB, &mp) != LWT_OK ||
        split_bands(j, mp, whole, d.dtype))
        goto done;
    j->res.ms_transform = 1e3 * (MPI_Wtime() - t);
    j->res.ms_total = j->res.ms_fill + j->res.ms_transform;
    int ok = reduce_params(j, j->z, &j->params[0]) == 0;
    for (int b = 0; ok && b < LWT_BAND_COUNT; b++)
        if (j->res.band[b])
            ok = reduce_params(j, j->res.band[b], &j->params[1 + b]) == 0;
    /* the folder: rank 0 makes it, every rank writes its rows, rank 0 commits */
    cli_outdir od;
    memset(&od, 0, sizeof od);
    char name[256];
    filter_stem(input, name, sizeof name);
    if (ok && j->rank == 0 && outdir_begin(&od, o->outdir, name, err, sizeof err)) {
        fprintf(stderr, "lwt filter --mpi: %s\n", err);
        ok = 0;
    }
    ok = mpi_all_ok(ok);
    if (ok)
        MPI_Bcast(od.tmp, (int)sizeof od.tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
    char path[4200];
    for (int b = 0; ok && b < LWT_BAND_COUNT; b++)
        if (j->res.band[b]) {
            snprintf(j->band_file[b], sizeof j->band_file[b], "%s.npy", lwt_filter_band_name(b));
            snprintf(path, sizeof path, "%s/%s", od.tmp, j->band_file[b]);
            ok = write_band(j, path, j->res.band[b]) == 0;
        }
    if (ok && j->rank == 0) {
        snprintf(path, sizeof path, "%s/report.json", od.tmp);
        ok = write_report(j, input, path, 1e3 * (MPI_Wtime() - t0)) == 0;
    }
    if (mpi_all_ok(ok)) {
        rc = j->rank == 0 && outdir_commit(&od, err, sizeof err) ? -1 : 0;
        if (rc)
            fprintf(stderr, "lwt filter --mpi: %s\n", err);
    } else if (j->rank == 0 && od.active) {
        fprintf(stderr, "lwt filter --mpi: %s: writing the outputs failed; nothing was left\n", input);
    }
    if (rc && j->rank == 0)
        outdir_abort(&od);
done:
    lwt_mpi_plan_destroy(mp);
    lwt_plan_destroy(whole);
    lwt_wavelet_destroy(w);
    return mpi_all_ok(rc == 0) ? 0 : -1;
}

int cmd_filter_mpi(const filter_opts *o, int ninputs, char *const *inputs)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fputs("lwt filter --mpi: MPI_Init failed\n", stderr);
        return LWT_EXIT_RUNTIME;
    }
    fjob j;
    memset(&j, 0, sizeof j);
    j.o = o;
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.nranks);
    const char *why = ninputs != 1                              ? "takes one input (a surface bigger than a node)"
                      : o->spec.filter != LWT_FILTER_WAVELET    ? "runs the wavelet split only (not --filter gaussian)"
                      : o->spec.form != LWT_FORM_NONE && !(o->spec.form == LWT_FORM_POLY && o->spec.form_degree == 1)
                          ? "removes a plane only (--plane), not another form yet"
                      : o->spatial                              ? "does not compute the spatial family (--spatial)"
                      : o->features                             ? "does not compute the feature family (--features)"
                      : !(o->spacing[0] > 0)                    ? "needs --spacing DX[,DY] (a .npy file has none)"
                      : strlen(inputs[0]) < 4 || strcmp(inputs[0] + strlen(inputs[0]) - 4, ".npy")
                          ? "reads a .npy height map"
                          : NULL;
    int rc = LWT_EXIT_USAGE;
    if (why) {
        if (j.rank == 0)
            fprintf(stderr, "lwt filter --mpi: %s\n", why);
    } else {
        j.dx = o->spacing[0];
        j.dy = o->spacing[1] > 0 ? o->spacing[1] : o->spacing[0];
        j.ctx = cli_context();
        rc = LWT_EXIT_RUNTIME;
        if (mpi_all_ok(j.ctx != NULL)) {
            lwt_context_set_threads(j.ctx, o->spec.threads);
            rc = filter_one(&j, inputs[0]) == 0 ? LWT_EXIT_OK : LWT_EXIT_RUNTIME;
        }
        lwt_context_destroy(j.ctx);
    }
    free(j.z);
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        free(j.res.band[b]);
    MPI_Finalize();
    return rc;
}
