/*
 * lwt synth OUT.x3p|OUT.sdf|OUT.npy: a synthetic surface with known form, waviness and roughness
 * (src/surface/synth.h). --truth also writes OUT_form, OUT_waviness and OUT_roughness beside it
 * (same format), so that the separation error of lwt filter can be measured.
 * .npy files hold heights in metres, shape (ny, nx); their spacing is printed (give it to
 * lwt filter with --spacing).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/npy.h"
#include "lwt_surface.h"
#include "surface/synth.h"

static int bad(const char *fmt, const char *arg)
{
    fputs("lwt synth: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see lwt --help)\n", stderr);
    return LWT_EXIT_USAGE;
}

static int parse_double(const char *s, double *v, int positive)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x) || x < 0 || (positive && x == 0))
        return -1;
    *v = x;
    return 0;
}

/* "A" or "A,B" */
static int parse_two(const char *s, double *a, double *b, int positive)
{
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *c = strchr(buf, ',');
    if (c)
        *c = 0;
    if (parse_double(buf, a, positive))
        return -1;
    *b = *a;
    return c ? parse_double(c + 1, b, positive) : 0;
}

static int ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && !strcmp(s + n - m, ext);
}

/* the one stderr line of a failed write: the writer's message, logged through the context */
static void log_synth(void *user, lwt_log_level level, const char *msg)
{
    (void)user;
    if (level >= LWT_LOG_ERROR)
        fprintf(stderr, "lwt synth: %s\n", msg);
}

static int write_one(const char *path, const double *z, const lwt_synth_desc *d, const char *what)
{
    int rc;
    if (ends_with(path, ".npy")) {
        char err[1024];
        size_t shape[2] = {d->ny, d->nx};
        rc = npy_write(path, LWT_F64, 2, shape, z, err, sizeof err);
        if (rc)
            fprintf(stderr, "lwt synth: %s\n", err);
    } else {
        lwt_context *ctx = NULL;
        if (lwt_context_create(&ctx) != LWT_OK) {
            fputs("lwt synth: out of memory\n", stderr);
            return -1;
        }
        lwt_context_set_log(ctx, log_synth, NULL);
        lwt_surface s;
        lwt_surface_init(&s);
        s.nx = d->nx;
        s.ny = d->ny;
        s.dx = d->dx;
        s.dy = d->dy;
        s.z = (double *)z;
        snprintf(s.instrument, sizeof s.instrument, "lwt synth");
        snprintf(s.comment, sizeof s.comment, "synthetic surface (%s), seed %llu", what,
                 (unsigned long long)d->seed);
        rc = lwt_surface_write(ctx, path, &s) != LWT_OK;
        lwt_context_destroy(ctx);
    }
    return rc;
}

/* OUT with _part inserted before the extension */
static void part_name(const char *out, const char *part, char *buf, size_t n)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    if (!dot || (slash && dot < slash))
        dot = out + strlen(out);
    snprintf(buf, n, "%.*s_%s%s", (int)(dot - out), out, part, dot);
}

int cmd_synth(int argc, char **argv)
{
    const char *out = NULL, *preset = "milled", *form = NULL;
    double size[2] = {1024, 1024}, sp[2] = {1, 1}, sag = -1, wav = -1, feed = -1, rough = -1, invalid = 0, seed = 1;
    int truth = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int val = 1;
        if (!strcmp(a, "--truth")) {
            truth = 1;
            val = 0;
        } else if (a[0] == '-' && a[1] && !v) {
            return bad("option %s needs a value", a);
        } else if (!strcmp(a, "--size") || !strcmp(a, "--shape")) {
            if (parse_two(v, &size[0], &size[1], 1) || size[0] != floor(size[0]) || size[1] != floor(size[1]) ||
                size[0] < 4 || size[1] < 4 || size[0] > 1e6 || size[1] > 1e6)
                return bad("--size needs N or NX,NY (4..1000000 points, got '%s')", v);
        } else if (!strcmp(a, "--spacing")) {
            if (parse_two(v, &sp[0], &sp[1], 1))
                return bad("--spacing needs DX[,DY] in micrometres, positive (got '%s')", v);
        } else if (!strcmp(a, "--preset")) {
            preset = v;
        } else if (!strcmp(a, "--form")) {
            form = v;
        } else if (!strcmp(a, "--seed")) {
            if (parse_double(v, &seed, 0) || seed != floor(seed) || seed > 9e15)
                return bad("--seed needs a non-negative integer (got '%s')", v);
        } else if (!strcmp(a, "--sag") || !strcmp(a, "--waviness") || !strcmp(a, "--roughness")) {
            double *t = a[2] == 's' ? &sag : a[2] == 'w' ? &wav : &rough;
            if (parse_double(v, t, 0))
                return bad("%s needs a height in micrometres (>= 0)", a);
        } else if (!strcmp(a, "--feed")) {
            if (parse_double(v, &feed, 1))
                return bad("--feed needs a period in sample spacings (> 0, got '%s')", v);
        } else if (!strcmp(a, "--invalid")) {
            if (parse_double(v, &invalid, 0) || invalid >= 0.9)
                return bad("--invalid needs a fraction 0..0.9 (got '%s')", v);
        } else if (!strcmp(a, "--threads")) {
            size_t nt;
            if (cli_parse_size(v, &nt) || nt > 4096)
                return bad("invalid thread count '%s'", v);
            threads = (int)nt;
        } else if (a[0] == '-' && a[1]) {
            return bad("unknown option '%s'", a);
        } else {
            if (out)
                return bad("only one output file (got '%s' too)", a);
            out = a;
            val = 0;
        }
        i += val;
    }
    if (!out)
        return bad("needs an output file (.x3p, .sdf or .npy)%s", "");
    if (!ends_with(out, ".x3p") && !ends_with(out, ".sdf") && !ends_with(out, ".npy"))
        return bad("output '%s' must end in .x3p, .sdf or .npy", out);
    lwt_synth_desc d;
    if (lwt_synth_preset(preset, (size_t)size[0], (size_t)size[1], sp[0] * 1e-6, sp[1] * 1e-6, (uint64_t)seed, &d))
        return bad("unknown preset '%s' (milled, ground)", preset);
    if (form) {
        static const char *const names[] = {"flat", "tilt", "sphere", "cylinder"};
        int k = 0;
        while (k < 4 && strcmp(form, names[k]))
            k++;
        if (k == 4)
            return bad("unknown form '%s' (sphere, cylinder, tilt, flat)", form);
        d.form = (lwt_synth_form)k;
    }
    if (sag >= 0) d.form_sag = sag * 1e-6;
    if (wav >= 0) d.wav_amplitude = wav * 1e-6;
    if (rough >= 0) d.rough_rms = rough * 1e-6;
    if (feed > 0) d.wav_period = feed;
    d.invalid_fraction = invalid;
    d.threads = threads;

    size_t n = d.nx * d.ny;
    double *z[4] = {NULL, NULL, NULL, NULL};
    int parts = truth ? 4 : 1, rc = LWT_EXIT_RUNTIME;
    for (int k = 0; k < parts; k++)
        if (!(z[k] = malloc(n * sizeof(double)))) {
            fprintf(stderr, "lwt synth: out of memory for %zu x %zu points\n", d.nx, d.ny);
            goto done;
        }
    if (lwt_synth_generate(&d, z[0], z[1], z[2], z[3])) {
        fprintf(stderr, "lwt synth: cannot generate this surface (bad parameters or out of memory)\n");
        goto done;
    }
    if (write_one(out, z[0], &d, preset))
        goto done;
    static const char *const part[3] = {"form", "waviness", "roughness"};
    char names[3][4200];
    for (int k = 0; truth && k < 3; k++) {
        part_name(out, part[k], names[k], sizeof names[k]);
        if (write_one(names[k], z[k + 1], &d, part[k]))
            goto done;
    }
    static const char *const forms[] = {"flat", "tilt", "sphere", "cylinder"};
    printf("lwt synth: %s surface, %zu x %zu points, spacing %g x %g um, seed %llu -> %s\n", preset, d.nx, d.ny,
           d.dx * 1e6, d.dy * 1e6, (unsigned long long)d.seed, out);
    printf("  form %s (sag %g um); feed marks %g um every %g spacings; roughness RMS %g um, lay %g x %g spacings; "
           "%g%% invalid\n",
           forms[d.form], d.form_sag * 1e6, d.wav_amplitude * 1e6, d.wav_period, d.rough_rms * 1e6, d.lay_along,
           d.lay_across, 100 * invalid);
    if (truth)
        printf("  truth: %s %s %s\n", names[0], names[1], names[2]);
    rc = LWT_EXIT_OK;
done:
    for (int k = 0; k < 4; k++)
        free(z[k]);
    return rc;
}
