/* synth.c - synthetic surfaces: presets, form, milling feed marks, drop-outs (synth.h). */
#include "surface/synth.h"
#include "surface/synth_parts.h"
#include "surface/threads.h"

#include <stdlib.h>
#include <string.h>

#define PI 3.141592653589793

enum { PURPOSE_INVALID = 4, PURPOSE_WAVINESS = 5 };

int lwt_synth_preset(const char *name, size_t nx, size_t ny, double dx, double dy, uint64_t seed,
                     lwt_synth_desc *out)
{
    memset(out, 0, sizeof *out);
    out->nx = nx;
    out->ny = ny;
    out->dx = dx;
    out->dy = dy;
    out->seed = seed;
    if (!name || !strcmp(name, "milled")) {
        /* milled workpiece: slightly warped plate, strong feed marks, fine texture */
        out->form = LWT_SYNTH_CYLINDER;
        out->form_sag = 6e-6;
        out->wav_amplitude = 1.5e-6;
        out->wav_period = 64;
        out->rough_rms = 0.35e-6;
        out->lay_across = 1.0;
        out->lay_along = 6.0;
        out->scratch_density = 3;
        out->pit_density = 0.5;
        return 0;
    }
    if (!strcmp(name, "ground")) {
        /* ceramic femoral head: sphere, weak waviness, grinding lay with scratches and deep valleys */
        out->form = LWT_SYNTH_SPHERE;
        out->form_sag = 2e-6; /* a 14-16 mm head over a 0.5 mm field */
        out->wav_amplitude = 0.15e-6;
        out->wav_period = 60;
        out->rough_rms = 0.03e-6;
        out->lay_across = 0.8;
        out->lay_along = 10.0;
        out->scratch_density = 8;
        out->pit_density = 1.0;
        return 0;
    }
    return -1;
}

/* form of the given kind, centred on the field; sag = height change from centre to the x edge */
static double form_at(const lwt_synth_desc *d, double x, double y)
{
    double a = 0.5 * (double)(d->nx - 1) * d->dx, b = 0.5 * (double)(d->ny - 1) * d->dy;
    double u = x - a, v = y - b, s = d->form_sag;
    if (a <= 0 || s == 0)
        return 0;
    double R = (a * a + s * s) / (2 * fabs(s)), sign = s > 0 ? 1 : -1, r2;
    switch (d->form) {
    case LWT_SYNTH_TILT: return s * u / a + 0.3 * s * (b > 0 ? v / b : 0);
    case LWT_SYNTH_SPHERE: r2 = u * u + v * v; break;
    case LWT_SYNTH_CYLINDER: r2 = u * u; break;
    default: return 0;
    }
    if (r2 > R * R)
        r2 = R * R;
    return sign * (sqrt(R * R - r2) - R);
}

/* face-milling feed marks: arcs of a tool of radius 1.5x the field moving along x */
static double waviness_at(const lwt_synth_desc *d, double i, double j, double phase, double drift)
{
    double side = (double)(d->nx > d->ny ? d->nx : d->ny), Rt = 1.5 * side, yc = 0.5 * (double)(d->ny - 1);
    double dy = j - yc;
    double s = i - (Rt - sqrt(Rt * Rt - dy * dy)); /* arc coordinate, spacings */
    double w = 2 * PI * s / d->wav_period + phase;
    double amp = 1 + 0.15 * sin(2 * PI * j / (0.7 * (double)d->ny) + drift);
    return d->wav_amplitude * amp * (cos(w) + 0.25 * cos(2 * w + 0.8)) / 1.25;
}

/* drop-outs: random discs of radius 2..12 spacings until about fraction*n points are covered */
static void make_invalid(const lwt_synth_desc *d, unsigned char *bad)
{
    size_t n = d->nx * d->ny, target = (size_t)(d->invalid_fraction * (double)n), count = 0;
    lwt__rng r = lwt__rng_stream(d->seed, PURPOSE_INVALID, 0);
    for (long guard = 0; count < target && guard < 10000000; guard++) {
        double xc = lwt__rng_uniform(&r) * d->nx, yc = lwt__rng_uniform(&r) * d->ny;
        double rad = 2 + 10 * lwt__rng_uniform(&r);
        long ia = (long)ceil(fmax(xc - rad, 0)), ib = (long)floor(fmin(xc + rad, (double)d->nx - 1));
        long ja = (long)ceil(fmax(yc - rad, 0)), jb = (long)floor(fmin(yc + rad, (double)d->ny - 1));
        for (long y = ja; y <= jb && count < target; y++)
            for (long x = ia; x <= ib && count < target; x++) {
                size_t p = (size_t)y * d->nx + (size_t)x;
                if (!bad[p] && (x - xc) * (x - xc) + (y - yc) * (y - yc) <= rad * rad) {
                    bad[p] = 1;
                    count++;
                }
            }
    }
}

int lwt_synth_generate(const lwt_synth_desc *d, double *total, double *form, double *waviness, double *roughness)
{
    if (!d || d->nx < 1 || d->ny < 1 || !(d->dx > 0) || !(d->dy > 0) || d->lay_along < 0 || d->lay_across < 0 ||
        (d->wav_amplitude != 0 && !(d->wav_period > 0)) || d->invalid_fraction < 0 || d->invalid_fraction >= 1 ||
        d->nx > ((size_t)1 << 31) || d->ny > ((size_t)1 << 31))
        return -1;
    const size_t nx = d->nx, ny = d->ny, n = nx * ny;
    const int nt = lwt__surf_threads(d->threads);
    double *rough = roughness ? roughness : malloc(n * sizeof *rough);
    unsigned char *bad = d->invalid_fraction > 0 ? calloc(n, 1) : NULL;
    int rc = -2;
    if (!rough || (d->invalid_fraction > 0 && !bad))
        goto done;
    if ((rc = lwt__synth_roughness(d, rough)) != 0)
        goto done;
    if (bad)
        make_invalid(d, bad);
    lwt__rng r = lwt__rng_stream(d->seed, PURPOSE_WAVINESS, 0);
    double phase = 2 * PI * lwt__rng_uniform(&r), drift = 2 * PI * lwt__rng_uniform(&r);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long jj = 0; jj < (long long)ny; jj++) {
        size_t j = (size_t)jj;
        for (size_t i = 0; i < nx; i++) {
            size_t p = j * nx + i;
            double f = form_at(d, (double)i * d->dx, (double)j * d->dy);
            double w = d->wav_amplitude != 0 ? waviness_at(d, (double)i, (double)j, phase, drift) : 0;
            double t = f + w + rough[p];
            if (bad && bad[p])
                f = w = t = rough[p] = NAN;
            if (form) form[p] = f;
            if (waviness) waviness[p] = w;
            if (total) total[p] = t;
        }
    }
    rc = 0;
done:
    if (rough != roughness)
        free(rough);
    free(bad);
    return rc;
}
