/* filter_job.c - lwt filter on one input (see filter_job.h). */
#define _POSIX_C_SOURCE 200809L

#include "filter_job.h"
#include "outdir.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/curve_csv.h"
#include "io/npy.h"
#include "io/png_preview.h"
#include "io/surface_file.h"
#include "surface/threads.h"
#include "lwt_surface.h"
#include "surface/bands.h"

#define NOTES 12
/* the Abbott-Firestone curves of material_ratio.csv: every 0.1 % */
#define CURVE_POINTS 1001

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void filter_log_fn(void *user, lwt_log_level level, const char *msg)
{
    filter_log *l = (filter_log *)user;
    if (level >= LWT_LOG_ERROR) {
#pragma omp critical(lwt_filter_log) /* the outputs are written by several threads */
        snprintf(l->last, sizeof l->last, "%s", msg);
    } else if (level == LWT_LOG_WARNING) {
#pragma omp critical(lwt_filter_log)
        snprintf(l->warning, sizeof l->warning, "%s", msg);
    }
}

struct filter_job {
    const char *input, *name; /* the file, its output folder's name */
    lwt_surface s;
    lwt_filter_result res;
    lwt_iso_params prm[1 + LWT_BAND_COUNT];
    lwt_gauss_nesting gauss; /* --filter gaussian: the nesting indices used */
    lwt_mr_params mrp[1 + LWT_BAND_COUNT];
    lwt_spatial_params spp[1 + LWT_BAND_COUNT];
    lwt_feature_params ftp[1 + LWT_BAND_COUNT];
    double *curve[1 + LWT_BAND_COUNT]; /* CURVE_POINTS heights (metres about the mean) each */
    lwt_form form;           /* the form removed (kind NONE: none) */
    lwt_report rep;
    char notes[NOTES][320];
    int warned[NOTES];       /* notes that adjust a request: also a warning line on stderr */
    cli_outdir od;
    cli_progress *pg;
    lwt_context *ctx;
    filter_log *log; /* the context's sink: the message of the call that failed */
    lwt_band_split split;
    lwt_band_axes axes; /* the wavelet split's levels per axis (report.json's levels_per_axis) */
    double ms_compute; /* the split and the parameters */
    int bands_format;  /* FILTER_BANDS_*, for write_task */
};
typedef struct filter_job job;

static int failf(char *err, size_t errlen, const char *input, const char *fmt, ...)
{
    int k = snprintf(err, errlen, "%s: ", input);
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A library call failed: its one logged message, or (should it have logged none) its status, as
   the job's line "INPUT: reason"; input NULL for the reader, whose message starts with the file. */
static int lib_fail(job *j, lwt_status st, const char *input, char *err, size_t errlen)
{
    const char *why = j->log->last[0] ? j->log->last : lwt_status_string(st);
    if (!input)
        return snprintf(err, errlen, "%s", why), -1;
    return failf(err, errlen, input, "%s", why);
}

/* before each library call: the message of a failure is the one it logs */
#define LIB_CALL(j, call) ((j)->log->last[0] = 0, (call))

static void note(job *j, const char *fmt, ...)
{
    if (j->rep.nnotes >= NOTES)
        return;
    char *b = j->notes[j->rep.nnotes];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof j->notes[0], fmt, ap);
    va_end(ap);
    j->rep.notes[j->rep.nnotes++] = b;
}

/* a note that changes what the user asked for: the report's note and a warning on stderr */
static void warn_note(job *j, const char *fmt, ...)
{
    if (j->rep.nnotes >= NOTES)
        return;
    char *b = j->notes[j->rep.nnotes];
    j->warned[j->rep.nnotes] = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof j->notes[0], fmt, ap);
    va_end(ap);
    j->rep.notes[j->rep.nnotes++] = b;
}

static void on_progress(void *user, int step, int steps, const char *what)
{
    progress_update((cli_progress *)user, 0.05 + 0.65 * step / steps, what);
}

/* read the file and give .npy files their spacing and height unit: 0, -1 or FILTER_JOB_NO_MEMORY */
static int load(job *j, const filter_opts *o, const char *input, char *err, size_t errlen)
{
    j->log->warning[0] = 0;
    lwt_status st = LIB_CALL(j, lwt_surface_read(j->ctx, input, &j->s));
    if (st != LWT_OK)
        return lib_fail(j, st, NULL, err, errlen), st == LWT_ERR_OUT_OF_MEMORY ? FILTER_JOB_NO_MEMORY : -1;
    if (j->log->warning[0]) { /* --ignore-checksum let a mismatch through: the report says so too */
        const size_t k = strlen(input);
        const char *w = j->log->warning;
        warn_note(j, "%s", !strncmp(w, input, k) && !strncmp(w + k, ": ", 2) ? w + k + 2 : w);
    }
    if (!(j->s.dx > 0) || !(j->s.dy > 0)) {
        if (!(o->spacing[0] > 0))
            return failf(err, errlen, input, "no spacing in a .npy file: give --spacing DX[,DY] (micrometres)");
        j->s.dx = o->spacing[0];
        j->s.dy = o->spacing[1] > 0 ? o->spacing[1] : o->spacing[0];
        for (size_t i = 0; i < j->s.nx * j->s.ny; i++)
            j->s.z[i] *= o->z_unit;
    }
    return 0;
}

/* One output file of the job: an X3P of a band or a PNG preview of some maps. */
typedef struct out_task {
    const char *file;
    const double *z;            /* X3P: the band */
    const char *what;           /* X3P: the band's name, for the comment */
    lwt_preview_map maps[4];    /* PNG */
    int nmaps, px;              /* PNG: nmaps > 0 */
} out_task;

/* a band as .npy: float64 heights in metres, rows along y, no spacing (report.json has it); the
   writer's failure "PATH: reason" logged as the other writers log theirs */
static lwt_status write_npy(lwt_context *ctx, const char *path, const lwt_surface *v)
{
    char msg[600];
    const size_t shape[2] = {v->ny, v->nx};
    if (!npy_write_sync(path, LWT_F64, 2, shape, v->z, 0, msg, sizeof msg)) /* no fsync: see write_task */
        return LWT_OK;
    const size_t n = strlen(path);
    const char *why = strncmp(msg, path, n) || strncmp(msg + n, ": ", 2) ? msg : msg + n + 2;
    return lwt__file_fail(ctx, LWT_ERR_IO, path, "%s", why);
}

static lwt_status write_task(job *j, const out_task *t)
{
    char path[4200];
    outdir_file(&j->od, t->file, path, sizeof path);
    if (t->nmaps)
        return lwt_png_write_maps(j->ctx, path, t->maps, t->nmaps, j->s.nx, j->s.ny, j->s.dx, j->s.dy, t->px);
    lwt_surface v = j->s;
    v.z = (double *)t->z;
    const lwt_gauss_nesting *g = j->rep.gauss;
    if (g)
        snprintf(v.comment, sizeof v.comment,
                 "lwt filter: %s of %s, ISO 16610-%s Gaussian, nesting indices lambda-s %g um, lambda-c %g um, "
                 "lambda-f %g um",
                 t->what, j->rep.input, j->rep.robust ? "71 robust" : "61", g->lambda_s * 1e6, g->lambda_c * 1e6, g->lambda_f * 1e6);
    else
        snprintf(v.comment, sizeof v.comment, "lwt filter: %s of %s, %s %d levels, mode %s", t->what, j->rep.input,
                 j->res.wavelet, j->rep.split->levels, j->rep.mode);
    /* No fsync: the files go into the job's temporary folder, which appears whole or not at all
       (outdir.h); we promise that atomicity, not durability across a power loss (the outputs can
       be made again from the input). The fsync cost 50-140 ms per 128 MiB X3P on the development
       VM (docs/PERFORMANCE.md, "Surface filtration (CPU)"). */
    if (j->bands_format == FILTER_BANDS_SDF)
        return lwt__surface_write_sdf_sync(j->ctx, path, &v, 1, 0);
    if (j->bands_format == FILTER_BANDS_NPY)
        return write_npy(j->ctx, path, &v);
    return lwt__surface_write_x3p_sync(j->ctx, path, &v, 0);
}

/* The band files and previews, written side by side on the job's threads (each file is one
 * thread's work: the MD5 of a 128 MiB X3P is one sequential pass of ~0.2 s, so two files at once
 * is what two cores can do); the longest (the X3P files) first. */
static int write_outputs(job *j, const filter_opts *o, char *err, size_t errlen)
{
    static const char *const files[3][LWT_BAND_COUNT] = {
        [FILTER_BANDS_X3P] = {"form.x3p", "waviness.x3p", "roughness.x3p", "noise.x3p"},
        [FILTER_BANDS_SDF] = {"form.sdf", "waviness.sdf", "roughness.sdf", "noise.sdf"},
        [FILTER_BANDS_NPY] = {"form.npy", "waviness.npy", "roughness.npy", "noise.npy"}};
    static const char *const pngs[LWT_BAND_COUNT] = {"form.png", "waviness.png", "roughness.png", "noise.png"};
    const lwt_surface *s = &j->s;
    out_task t[2 * LWT_BAND_COUNT + 2];
    int nt = 0;
    memset(t, 0, sizeof t);
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        if (j->res.band[b]) {
            t[nt].file = files[o->bands_format][b];
            t[nt].z = j->res.band[b];
            t[nt++].what = lwt_filter_band_name(b);
        }
    if (o->preview_px > 0) {
        lwt_preview_map panel[4] = {{"input", s->z}};
        t[nt].file = "input.png";
        t[nt].maps[0] = panel[0];
        t[nt].nmaps = 1;
        t[nt++].px = o->preview_px;
        for (int b = 0; b < LWT_BAND_COUNT; b++)
            if (j->res.band[b]) {
                lwt_preview_map mb = {lwt_filter_band_name(b), j->res.band[b]};
                if (b < 3)
                    panel[b + 1] = mb;
                t[nt].file = pngs[b];
                t[nt].maps[0] = mb;
                t[nt].nmaps = 1;
                t[nt++].px = o->preview_px;
            }
        t[nt].file = "panel.png";
        memcpy(t[nt].maps, panel, sizeof panel);
        t[nt].nmaps = 4;
        t[nt++].px = o->preview_px / 2 < 16 ? 16 : o->preview_px / 2;
    }
    progress_update(j->pg, 0.8, "writing the outputs");
    lwt_status st[2 * LWT_BAND_COUNT + 2];
    j->log->last[0] = 0;
    const int threads = lwt__surf_threads(o->spec.threads);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int k = 0; k < nt; k++)
        st[k] = write_task(j, &t[k]);
    for (int k = 0; k < nt; k++) {
        if (st[k] != LWT_OK) /* the line logged last: one of the failures, whole (filter_log_fn) */
            return lib_fail(j, st[k], j->rep.input, err, errlen);
        j->rep.outputs[j->rep.noutputs++] = t[k].file;
    }
    return 0;
}

/* the Gaussian's notes: invalid points, short nesting indices, kernels longer than the field */
static void add_gauss_notes(job *j)
{
    const lwt_surface *s = &j->s;
    const lwt_gauss_nesting *g = j->rep.gauss;
    const size_t n_bad = s->nx * s->ny - j->rep.n_valid;
    if (n_bad)
        note(j, "%zu invalid points weighted out by the Gaussian (no fill); NaN in every output", n_bad);
    const double d = s->dx > s->dy ? s->dx : s->dy;
    const double shortest = g->lambda_s > 0 ? g->lambda_s : g->lambda_c;
    if (shortest < 8 * d)
        note(j, "nesting index %g um is %.3g spacings: below 8 spacings the sampled Gaussian's transmission departs "
                "from ISO 16610-61's (1.5e-5 at 8, 1.3%% at 5, 6%% at 4 spacings)",
             shortest * 1e6, shortest / d);
    const double field = fmin(s->nx * s->dx, s->ny * s->dy);
    if (g->lambda_f > field)
        note(j, "lambda-f %g um exceeds the field (%g um): the form is a weighted mean under a kernel the field cuts",
             g->lambda_f * 1e6, field * 1e6);
}

/* One requested cutoff of the wavelet split against the level boundary it was moved to. The
 * level j holds wavelengths 2^j .. 2^(j+1) spacings, so a cutoff can only fall on 2^k d (d the
 * smaller spacing), the nearest on a log scale (bands.h); below 2 d (the Nyquist wavelength) there
 * is nothing to cut and lambda-s becomes 2 d. */
static void cutoff_note(job *j, const char *name, double req, double eff, double d)
{
    if (!(req > 0) || fabs(eff - req) <= 1e-9 * req)
        return;
    if (req < eff && eff == 2 * d)
        warn_note(j, "%s %g um is below twice the spacing (%g um): raised to %g um, the shortest wavelength the "
                     "grid holds",
                  name, req * 1e6, d * 1e6, eff * 1e6);
    else
        warn_note(j, "%s %g um moved to %g um (x %.4g): the wavelet split's cutoffs fall on octaves of the spacing, "
                     "2^k x %g um; --filter gaussian uses it as given",
                  name, req * 1e6, eff * 1e6, eff / req, d * 1e6);
}

/* the adjustments of the requested cutoffs (octaves, lambda-s below 2 spacings), per axis when
   the spacing is anisotropic: each axis has its own levels (lwt_bands_resolve_axes), so each
   cutoff moves to the nearest octave of that axis's spacing */
static void add_cutoff_notes(job *j, const filter_opts *o)
{
    const lwt_surface *s = &j->s;
    const lwt_band_split *sp = j->rep.split;
    const int own_levels = j->rep.axes && !lwt__band_axes_uniform(j->rep.axes, sp);
    if (!own_levels && !(fabs(s->dx - s->dy) > 1e-3 * (s->dx + s->dy))) { /* one note each, along the smaller spacing */
        const int ax = s->dx <= s->dy ? 0 : 1;
        cutoff_note(j, "lambda-s", o->req.lambda_s, sp->lambda_s[ax], sp->spacing);
        cutoff_note(j, "lambda-c", o->req.lambda_c, sp->lambda_c[ax], sp->spacing);
        return;
    }
    const double d[2] = {s->dx, s->dy};
    for (int k = 0; k < 2; k++) {
        cutoff_note(j, k ? "lambda-s along y" : "lambda-s along x", o->req.lambda_s, sp->lambda_s[k], d[k]);
        cutoff_note(j, k ? "lambda-c along y" : "lambda-c along x", o->req.lambda_c, sp->lambda_c[k], d[k]);
    }
}

/* the wavelet split's notes: fill, levels beyond PyWavelets' maximum, empty band, anisotropy */
static void add_wavelet_notes(job *j, const filter_opts *o)
{
    const lwt_surface *s = &j->s;
    const lwt_band_split *sp = j->rep.split;
    if (j->res.n_filled)
        note(j, "%zu invalid points filled by harmonic inpainting before the transform; NaN again in every output",
             j->res.n_filled);
    if (sp->levels > j->res.max_level)
        note(j, "%d levels exceed PyWavelets' dwt_max_level (%d) for %zu x %zu points: the coarsest bands are "
                "shaped by the border extension",
             sp->levels, j->res.max_level, s->nx, s->ny);
    if (sp->wavy_lo > sp->wavy_hi)
        note(j, "the waviness band is empty: roughness reaches the last level");
    add_cutoff_notes(j, o);
}

static void add_notes(job *j, const filter_opts *o)
{
    if (j->rep.gauss)
        add_gauss_notes(j);
    else
        add_wavelet_notes(j, o);
    const lwt_form *f = &j->form;
    if (f->kind == LWT_FORM_POLY && f->degree == 1)
        note(j, "least-squares plane removed first (slopes %.4g, %.4g); input parameters are of the levelled "
                "surface; form excludes the plane",
             j->res.plane.sx, j->res.plane.sy);
    else if (f->kind == LWT_FORM_POLY)
        note(j, "least-squares polynomial of degree %d removed first (rms residual %g um); input parameters are of "
                "the residual; form excludes the polynomial",
             f->degree, f->rms * 1e6);
    else if (f->kind != LWT_FORM_NONE)
        note(j, "least-squares %s (radius %g mm, %d iterations, rms residual %g um) removed first; input "
                "parameters are of the residual; form excludes it",
             lwt_form_kind_name(f->kind), f->radius * 1e3, f->iterations, f->rms * 1e6);
}

/* The material ratio family of surface k and its Abbott-Firestone curve sampled for
 * material_ratio.csv. */
static lwt_status material(job *j, lwt_context *ctx, const filter_opts *o, const double *z, int k)
{
    const lwt_surface *s = &j->s;
    lwt_material_curve *c = NULL;
    lwt_status st = LIB_CALL(j, lwt_material_curve_create(ctx, z, s->nx, s->ny, o->spec.threads, &c));
    if (st == LWT_OK)
        st = LIB_CALL(j, lwt_mr_params_compute(ctx, c, NULL, &j->mrp[k]));
    if (st == LWT_OK && !(j->curve[k] = malloc(CURVE_POINTS * sizeof *j->curve[k])))
        st = LWT_ERR_OUT_OF_MEMORY; /* reported by its status string */
    for (int i = 0; st == LWT_OK && i < CURVE_POINTS; i++)
        j->curve[k][i] = lwt_material_curve_smc(c, 100.0 * i / (CURVE_POINTS - 1));
    lwt_material_curve_destroy(c);
    if (st == LWT_OK)
        j->rep.mr[k] = &j->mrp[k];
    return st;
}

/* The parameters of surface k (0 the input, b + 1 band b): height and hybrid, the material ratio
 * family (unless --no-material: the sort of every height is most of the parameters' time), the
 * spatial family with --spatial, the feature family with --features. */
static lwt_status surface_params(job *j, lwt_context *ctx, const filter_opts *o, const double *z, int k)
{
    const lwt_surface *s = &j->s;
    lwt_status st =
        LIB_CALL(j, lwt_iso_params_compute(ctx, z, s->nx, s->ny, s->dx, s->dy, o->spec.threads, &j->prm[k]));
    if (st != LWT_OK)
        return st;
    j->rep.params[k] = &j->prm[k];
    if (!o->no_material && (st = material(j, ctx, o, z, k)) != LWT_OK)
        return st;
    if (o->spatial) {
        st = LIB_CALL(j, lwt_spatial_params_compute(ctx, z, s->nx, s->ny, s->dx, s->dy, 0.2, o->spec.threads,
                                                    &j->spp[k]));
        if (st == LWT_OK)
            j->rep.spatial[k] = &j->spp[k];
    }
    if (st == LWT_OK && o->features) {
        st = LIB_CALL(j, lwt_feature_params_compute(ctx, z, s->nx, s->ny, s->dx, s->dy, 0, o->spec.threads,
                                                    &j->ftp[k]));
        if (st == LWT_OK)
            j->rep.feature[k] = &j->ftp[k];
    }
    return st;
}

/* material_ratio.csv: the material ratio in % and the curve's height in um of each surface */
static lwt_status write_curves(job *j, lwt_context *ctx)
{
    static const char *const who[1 + LWT_BAND_COUNT] = {"input_um", "form_um", "waviness_um", "roughness_um",
                                                        "noise_um"};
    double *x = malloc(CURVE_POINTS * sizeof *x);
    const char *names[1 + LWT_BAND_COUNT];
    const double *cols[1 + LWT_BAND_COUNT];
    int n = 0;
    if (!x)
        return LWT_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < CURVE_POINTS; i++)
        x[i] = 100.0 * i / (CURVE_POINTS - 1);
    for (int k = 0; k <= LWT_BAND_COUNT; k++)
        if (j->curve[k]) {
            for (int i = 0; i < CURVE_POINTS; i++)
                j->curve[k][i] *= 1e6;
            names[n] = who[k];
            cols[n++] = j->curve[k];
        }
    char path[4200];
    lwt_status st = LIB_CALL(j, lwt_curve_csv_write(ctx, outdir_file(&j->od, "material_ratio.csv", path, sizeof path),
                                                    "material_ratio_percent", x, CURVE_POINTS, n, names, cols));
    free(x);
    return st;
}

/* the context and log sink of the thread that runs a stage of the job (one per thread in a
   pipelined batch: the failure message of a call is the one its own context logged) */
static void on_thread(job *j, lwt_context *ctx, filter_log *log)
{
    j->ctx = ctx;
    j->log = log;
}

filter_job *filter_job_new(const char *input, const char *name)
{
    job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    lwt_surface_init(&j->s);
    j->input = input;
    j->name = name;
    return j;
}

int filter_job_read(filter_job *j, lwt_context *ctx, filter_log *log, const filter_opts *o, char *err,
                    size_t errlen)
{
    on_thread(j, ctx, log);
    lwt_surface_free(&j->s); /* a read again (a pipelined batch's retry, filter_batch.c) starts afresh */
    const double t0 = now_ms();
    int rc = load(j, o, j->input, err, errlen);
    if (rc)
        return rc;
    j->rep.ms_read = now_ms() - t0;
    return 0;
}

size_t filter_job_points(const filter_job *j) { return j->s.nx * j->s.ny; }

int filter_job_compute(filter_job *j, lwt_context *ctx, filter_log *log, const filter_opts *o, cli_progress *pg,
                       char *err, size_t errlen)
{
    on_thread(j, ctx, log);
    j->pg = pg;
    const char *input = j->input;
    const double t0 = now_ms();
    lwt_report *r = &j->rep;
    const lwt_surface *s = &j->s;
    lwt_band_request req = o->req;
    if (req.levels < 0) { /* "max": the most levels the size allows */
        size_t m = s->nx < s->ny ? s->nx : s->ny;
        req.levels = 0;
        while (req.levels < LWT_BANDS_MAX_LEVELS && ((size_t)1 << (req.levels + 2)) <= m)
            req.levels++;
        if (req.levels == 0)
            req.levels = 1;
    }
    lwt_filter_spec spec = o->spec;
    lwt_status st;
    if (spec.filter == LWT_FILTER_GAUSSIAN || spec.filter == LWT_FILTER_ROBUST_GAUSSIAN) { /* no levels: the split keeps only the spacing */
        memset(&j->split, 0, sizeof j->split);
        j->split.spacing = fmin(s->dx, s->dy);
        st = LIB_CALL(j, lwt_gauss_nesting_resolve(ctx, &req, s->dx, s->dy, &spec.gauss));
        j->gauss = spec.gauss;
        r->gauss = &j->gauss;
        r->robust = spec.filter == LWT_FILTER_ROBUST_GAUSSIAN;
    } else {
        /* levels per axis: each axis cut at the octaves of its own spacing (docs/SURFACE.md) */
        st = LIB_CALL(j, lwt_bands_resolve_axes(ctx, &req, s->nx, s->ny, s->dx, s->dy, &j->split, &j->axes));
        spec.axes = j->axes;
        r->axes = &j->axes;
    }
    if (st != LWT_OK)
        return lib_fail(j, st, input, err, errlen);
    spec.split = j->split;
    spec.progress = on_progress;
    spec.progress_user = j->pg;
    spec.form_out = &j->form;
    j->log->warning[0] = 0;
    st = LIB_CALL(j, lwt_filter_run(ctx, &spec, s->z, s->nx, s->ny, s->dx, s->dy, &j->res));
    if (st != LWT_OK)
        return lib_fail(j, st, input, err, errlen);
    if (j->log->warning[0] && spec.filter == LWT_FILTER_ROBUST_GAUSSIAN) /* its stopping rule not met */
        warn_note(j, "%s", j->log->warning);
    double t1 = now_ms();
    progress_update(j->pg, 0.72, "parameters");
    if (j->form.kind == LWT_FORM_POLY && j->form.degree == 1) /* the library's plane, the same bits */
        lwt_plane_subtract(j->s.z, s->nx, s->ny, s->dx, s->dy, &j->res.plane, o->spec.threads);
    else
        lwt_form_subtract(j->s.z, s->nx, s->ny, s->dx, s->dy, &j->form, o->spec.threads);
    for (int b = -1; b < LWT_BAND_COUNT; b++) /* the input, then each band */
        if (b < 0 || j->res.band[b]) {
            st = surface_params(j, ctx, o, b < 0 ? s->z : j->res.band[b], b + 1);
            if (st != LWT_OK)
                return lib_fail(j, st, input, err, errlen);
        }
    double t2 = now_ms();
    r->ms_params = t2 - t1;
    j->ms_compute = t2 - t0;
    r->input = input;
    r->input_format = s->source_format;
    r->nx = s->nx;
    r->ny = s->ny;
    r->dx = s->dx;
    r->dy = s->dy;
    r->n_valid = lwt_surface_count_valid(s);
    r->wavelet = o->wavelet_asked;
    r->mode = lwt_mode_name(o->spec.mode);
    r->dtype = o->spec.dtype == LWT_F32 ? "float32" : "float64";
    r->split = &j->split;
    r->lambda_s_req = o->req.lambda_s;
    r->lambda_c_req = o->req.lambda_c;
    r->result = &j->res;
    r->plane_removed = j->form.kind == LWT_FORM_POLY && j->form.degree == 1;
    r->form = &j->form;
    add_notes(j, o);
    progress_clear(j->pg);
    return 0;
}

int filter_job_write(filter_job *j, lwt_context *ctx, filter_log *log, const filter_opts *o, cli_progress *pg,
                     FILE *out, char *err, size_t errlen)
{
    on_thread(j, ctx, log);
    j->pg = pg;
    const char *input = j->input;
    j->bands_format = o->bands_format;
    const double t0 = now_ms();
    lwt_report *r = &j->rep;
    char msg[400];
    lwt_status st;
    progress_clear(j->pg);
    for (int k = 0; k < r->nnotes; k++)
        if (j->warned[k])
            fprintf(stderr, "lwt filter: warning: %s: %s\n", input, r->notes[k]);
    if (outdir_begin(&j->od, o->outdir, j->name, msg, sizeof msg))
        return failf(err, errlen, input, "%s", msg);
    if (write_outputs(j, o, err, errlen)) /* its line names the input */
        return -1;
    if (!o->no_material) {
        st = write_curves(j, ctx);
        if (st != LWT_OK)
            return lib_fail(j, st, input, err, errlen);
        r->outputs[r->noutputs++] = "material_ratio.csv";
    }
    r->outputs[r->noutputs++] = "report.json";
    r->ms_write = now_ms() - t0;
    /* the job's own work, without the time it waited in a pipelined batch for its turn */
    r->ms_total = r->ms_read + j->ms_compute + r->ms_write;
    char path[4200];
    st = LIB_CALL(j, lwt_report_write_json(ctx, outdir_file(&j->od, "report.json", path, sizeof path), r));
    if (st != LWT_OK)
        return lib_fail(j, st, input, err, errlen);
    if (outdir_commit(&j->od, msg, sizeof msg))
        return failf(err, errlen, input, "%s", msg);
    progress_clear(j->pg);
    filter_table_print(out, r, j->od.final);
    return 0;
}

void filter_job_free(filter_job *j)
{
    if (!j)
        return;
    outdir_abort(&j->od); /* no-op after a commit */
    lwt_filter_result_free(&j->res);
    lwt_surface_free(&j->s);
    for (int k = 0; k <= LWT_BAND_COUNT; k++)
        free(j->curve[k]);
    free(j);
}
