/*
 * lwt filter INPUT... -o OUTDIR: split measured surfaces into form, waviness and roughness, by
 * the wavelet split (default) or the ISO 16610-61 Gaussian (--filter gaussian).
 * For each input: OUTDIR/<name without extension>/ with form.x3p, waviness.x3p, roughness.x3p
 * (noise.x3p with --lambda-s or a roughness band above level 1), report.json and PNG previews,
 * written atomically. --form MODEL removes a least-squares form first (--plane = --form poly:1).
 * Every adjustment of a requested cutoff is a note in report.json and a warning line on stderr.
 * --bands-format sdf|npy writes the bands as binary SDF or .npy instead of X3P.
 * A bad input gets one line on stderr and no folder; the batch goes on;
 * the exit status is 1 when any input failed (2 for usage errors).
 * A batch is pipelined (filter_batch.c) unless --no-pipeline.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter_job.h"

static int parse_range(const char *s, int *lo, int *hi)
{
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10), b = a;
    if (errno || end == s)
        return -1;
    if (*end == '-') {
        const char *t = end + 1;
        b = strtol(t, &end, 10);
        if (errno || end == t)
            return -1;
    }
    if (*end || a < 1 || b < a || b > LWT_BANDS_MAX_LEVELS)
        return -1;
    *lo = (int)a;
    *hi = (int)b;
    return 0;
}

static int parse_um(const char *s, double *metres)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || !isfinite(v))
        return -1;
    *metres = v * 1e-6;
    return 0;
}

/* a cutoff or nesting index: micrometres, or with a unit: 800um, 0.8mm. The metres are the
   decimal's nearest double (the number is read with the unit's exponent appended), so that
   0.02mm, 20um and Python's 20e-6 are the same nesting index to the bit. */
static int parse_wavelength(const char *s, double *metres)
{
    char buf[64];
    size_t n = strlen(s);
    if (n + 4 >= sizeof buf || n == 0)
        return -1;
    strcpy(buf, s);
    int exp10 = -6;
    if (n > 2 && (!strcmp(buf + n - 2, "mm") || !strcmp(buf + n - 2, "um"))) {
        exp10 = buf[n - 2] == 'm' ? -3 : -6;
        buf[n -= 2] = 0;
    }
    if (parse_um(buf, metres))
        return -1;
    if (strpbrk(buf, "eExXpP")) /* a number with its own exponent: scaled */
        *metres *= exp10 == -3 ? 1e3 : 1;
    else
        *metres = (snprintf(buf + n, sizeof buf - n, "e%d", exp10), strtod(buf, NULL));
    return 0;
}

static int parse_spacing(const char *s, double *sp)
{
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma = 0;
    if (parse_um(buf, &sp[0]))
        return -1;
    sp[1] = sp[0];
    return comma ? parse_um(comma + 1, &sp[1]) : 0;
}

/* --form MODEL: none, plane (= poly:1), poly:N, sphere, cylinder-x, cylinder-y */
static int parse_form(const char *v, lwt_filter_spec *spec)
{
    static const char *const names[] = {"none", "plane", "sphere", "cylinder-x", "cylinder-y"};
    static const lwt_form_kind kinds[] = {LWT_FORM_NONE, LWT_FORM_POLY, LWT_FORM_SPHERE, LWT_FORM_CYLINDER_X,
                                          LWT_FORM_CYLINDER_Y};
    for (int k = 0; k < 5; k++)
        if (!strcmp(v, names[k])) {
            spec->form = kinds[k];
            spec->form_degree = kinds[k] == LWT_FORM_POLY;
            return 0;
        }
    if (strncmp(v, "poly:", 5) || v[5] < '1' || v[5] > '0' + LWT_FORM_MAX_DEGREE || v[6])
        return -1;
    spec->form = LWT_FORM_POLY;
    spec->form_degree = v[5] - '0';
    return 0;
}

void filter_stem(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("lwt filter: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see lwt --help)\n", stderr);
    return LWT_EXIT_USAGE;
}

static int bad_value(const char *fmt, const char *arg)
{
    usage_error(fmt, arg);
    return -1;
}

/* options of lwt filter that cli_parse_common does not know; 1 consumed, 0 unknown, -1 bad */
static int parse_filter_option(int argc, char **argv, int *i, filter_opts *o)
{
    const char *a = argv[*i];
    static const char *const with_value[] = {"-o", "--output", "--roughness-levels", "--waviness-levels",
                                             "--lambda-s", "--lambda-c", "--spacing", "--z-unit", "--dtype",
                                             "--preview-size", "--filter", "--form", "--bands-format"};
    int needs = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        needs |= !strcmp(a, with_value[k]);
    if (needs && *i + 1 >= argc)
        return bad_value("option %s needs a value", a);
    const char *v = needs ? argv[++*i] : NULL;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        o->outdir = v;
    } else if (!strcmp(a, "--roughness-levels")) {
        if (parse_range(v, &o->req.rough_lo, &o->req.rough_hi))
            return bad_value("--roughness-levels needs A-B with 1 <= A <= B (got '%s')", v);
    } else if (!strcmp(a, "--waviness-levels")) {
        if (parse_range(v, &o->req.wavy_lo, &o->req.wavy_hi))
            return bad_value("--waviness-levels needs C-D with 1 <= C <= D (got '%s')", v);
    } else if (!strcmp(a, "--lambda-s")) {
        if (parse_wavelength(v, &o->req.lambda_s))
            return bad_value("--lambda-s needs a positive wavelength in micrometres, or with a unit: 2.5um, "
                             "0.0025mm (got '%s')", v);
    } else if (!strcmp(a, "--lambda-c")) {
        if (parse_wavelength(v, &o->req.lambda_c))
            return bad_value("--lambda-c needs a positive wavelength in micrometres, or with a unit: 800um, 0.8mm "
                             "(got '%s')", v);
    } else if (!strcmp(a, "--filter")) {
        if (strcmp(v, "wavelet") && strcmp(v, "gaussian") && strcmp(v, "robust-gaussian"))
            return bad_value("--filter needs wavelet, gaussian or robust-gaussian (got '%s')", v);
        o->spec.filter = !strcmp(v, "gaussian")          ? LWT_FILTER_GAUSSIAN
                         : !strcmp(v, "robust-gaussian") ? LWT_FILTER_ROBUST_GAUSSIAN
                                                         : LWT_FILTER_WAVELET;
    } else if (!strcmp(a, "--spacing")) {
        if (parse_spacing(v, o->spacing))
            return bad_value("--spacing needs DX[,DY] in micrometres, positive (got '%s')", v);
    } else if (!strcmp(a, "--z-unit")) {
        static const char *const names[] = {"m", "mm", "um", "nm"};
        static const double scale[] = {1, 1e-3, 1e-6, 1e-9};
        o->z_unit = 0;
        for (int k = 0; k < 4; k++)
            if (!strcmp(v, names[k]))
                o->z_unit = scale[k];
        if (o->z_unit == 0)
            return bad_value("--z-unit needs m, mm, um or nm (got '%s')", v);
    } else if (!strcmp(a, "--dtype")) {
        if (strcmp(v, "f32") && strcmp(v, "f64"))
            return bad_value("--dtype needs f32 or f64 (got '%s')", v);
        o->spec.dtype = !strcmp(v, "f32") ? LWT_F32 : LWT_F64;
    } else if (!strcmp(a, "--preview-size")) {
        size_t px;
        if (cli_parse_size(v, &px) || px < 32 || px > 8192)
            return bad_value("--preview-size needs 32..8192 pixels (got '%s')", v);
        o->preview_px = (int)px;
    } else if (!strcmp(a, "--no-png")) {
        o->preview_px = 0;
    } else if (!strcmp(a, "--form")) {
        if (parse_form(v, &o->spec))
            return bad_value("--form needs none, plane, poly:N (N = 1..6), sphere, cylinder-x or cylinder-y "
                             "(got '%s')", v);
        o->form_asked = v;
    } else if (!strcmp(a, "--plane")) { /* --form poly:1 */
        o->plane_asked = 1;
    } else if (!strcmp(a, "--spatial")) {
        o->spatial = 1;
    } else if (!strcmp(a, "--no-material")) {
        o->no_material = 1;
    } else if (!strcmp(a, "--features")) {
        o->features = 1;
    } else if (!strcmp(a, "--mpi")) {
        o->mpi = 1;
    } else if (!strcmp(a, "--no-pipeline")) {
        o->no_pipeline = 1;
    } else if (!strcmp(a, "--bands-format")) {
        static const char *const names[] = {"x3p", "sdf", "npy"};
        static const int formats[] = {FILTER_BANDS_X3P, FILTER_BANDS_SDF, FILTER_BANDS_NPY};
        o->bands_format = -1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(v, names[k]))
                o->bands_format = formats[k];
        if (o->bands_format < 0)
            return bad_value("--bands-format needs x3p, sdf or npy (got '%s')", v);
    } else {
        return 0;
    }
    return 1;
}

int cmd_filter(int argc, char **argv)
{
    filter_opts o;
    memset(&o, 0, sizeof o);
    o.spec = lwt_filter_spec_default();
    o.z_unit = 1;
    o.preview_px = 1024;
    cli_transform_opts t = {0};
    t.wavelet = "cdf97";
    t.mode = LWT_MODE_SYMMETRIC;
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int ninputs = 0;
    if (!inputs)
        return LWT_EXIT_RUNTIME;
    for (int i = 1; i < argc; i++) {
        int r = cli_parse_common(argc, argv, &i, &t);
        if (r == 0)
            r = parse_filter_option(argc, argv, &i, &o);
        if (r < 0) {
            free(inputs);
            return LWT_EXIT_USAGE;
        }
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            free(inputs);
            return usage_error("unknown option '%s'", argv[i]);
        }
        inputs[ninputs++] = argv[i];
    }
    if (!ninputs || !o.outdir) {
        free(inputs);
        return usage_error("needs INPUT... and -o OUTDIR%s", "");
    }
    if (o.plane_asked) {
        if (o.form_asked && !(o.spec.form == LWT_FORM_POLY && o.spec.form_degree == 1)) {
            free(inputs);
            return usage_error("--plane is --form poly:1; it cannot go with --form %s", o.form_asked);
        }
        o.spec.form = LWT_FORM_POLY;
        o.spec.form_degree = 1;
    }
    if (t.levels_given && t.levels == 0) {
        free(inputs);
        return usage_error("--levels must be at least 1%s", "");
    }
    o.req.levels = t.levels_given ? (t.levels == LWT_LEVELS_MAX ? -1 : t.levels) : 0;
    o.spec.wavelet = o.wavelet_asked = t.wavelet;
    o.spec.mode = t.mode;
    o.spec.backend = t.backend;
    o.spec.algorithm = t.algorithm;
    o.spec.threads = t.threads;

    if (o.mpi && o.bands_format != FILTER_BANDS_X3P) { /* filter_mpi.c writes X3P bands */
        free(inputs);
        return usage_error("--mpi writes the bands as X3P only (not --bands-format %s)",
                           o.bands_format == FILTER_BANDS_SDF ? "sdf" : "npy");
    }
    if (o.mpi) { /* one surface over the ranks of mpirun */
#ifdef LWT_CLI_MPI
        const int rc = cmd_filter_mpi(&o, ninputs, inputs);
#else
        const int rc = usage_error("--mpi needs a build with MPI (CMake found none)%s", "");
#endif
        free(inputs);
        return rc;
    }

    filter_log log = {{0}, {0}};
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK) {
        free(inputs);
        fputs("lwt filter: out of memory\n", stderr);
        return LWT_EXIT_RUNTIME;
    }
    lwt_context_set_log(ctx, filter_log_fn, &log);
    lwt_context_set_threads(ctx, t.threads);
    cli_apply_read_options(ctx);
    lwt_wavelet *w = NULL;
    if (lwt_wavelet_create(ctx, t.wavelet, &w) != LWT_OK) {
        fprintf(stderr, "lwt filter: unknown wavelet '%s' (see lwt info)\n", t.wavelet);
        lwt_context_destroy(ctx);
        free(inputs);
        return LWT_EXIT_USAGE;
    }
    lwt_wavelet_destroy(w);
    if (t.backend == LWT_BACKEND_CUDA && lwt_context_device_count(ctx) == 0) {
        fputs("lwt filter: --backend cuda: no CUDA device (or this build has no CUDA backend)\n", stderr);
        lwt_context_destroy(ctx);
        free(inputs);
        return LWT_EXIT_RUNTIME;
    }

    const int rc = filter_batch_run(ctx, &log, &o, ninputs, inputs);
    free(inputs);
    lwt_context_destroy(ctx);
    return rc;
}
