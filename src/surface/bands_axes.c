/* bands_axes.c - levels per axis for anisotropic spacing: their resolution, and the order of the
 * one-level steps that split a surface by them (bands.h; docs/SURFACE.md, "Bands", anisotropic spacing). */
#include "surface/bands.h"
#include "core/fail.h"

#include <math.h>
#include <string.h>

#define fail(ctx, ...) lwt_fail((ctx), LWT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* the wavelength a boundary of the finer axis stands for: the request's when it gave one that
   rounds to this boundary, else the boundary itself (levels given as numbers) */
static double boundary_wavelength(double asked, int level, double d)
{
    return asked > 0 && lwt__band_boundary_of(asked, d) == level ? asked : lwt_band_boundary(level, d);
}

lwt_status lwt_bands_resolve_axes(lwt_context *ctx, const lwt_band_request *req, size_t nx, size_t ny, double dx,
                                  double dy, lwt_band_split *split, lwt_band_axes *axes)
{
    if (!split || !axes)
        return fail(ctx, "lwt_bands_resolve_axes: no split or axes to fill");
    lwt_band_split s;
    LWT_FORWARD(lwt__bands_levels(ctx, req, nx, ny, dx, dy, &s));
    const int fine = dx <= dy ? 0 : 1, coarse = 1 - fine;
    const double sp[2] = {dx, dy}, d = s.spacing, D = sp[coarse];
    const size_t n[2] = {nx, ny};
    lwt_band_axes a;
    memset(&a, 0, sizeof a);
    a.levels[fine] = s.levels;
    a.rough_lo[fine] = s.rough_lo;
    a.rough_hi[fine] = s.rough_hi;
    /* the coarser axis: the nearest boundaries of its own spacing to the same wavelengths, each
       band possibly empty there (a wavelength below 2 D: nothing of it along that axis) */
    const double lam_s = boundary_wavelength(req->lambda_s, s.rough_lo, d);
    const double lam_c = boundary_wavelength(req->lambda_c, s.rough_hi + 1, d);
    const int J = clamp(lwt__band_boundary_of(lwt_band_boundary(s.levels + 1, d), D) - 1, 0, s.levels);
    const int A = s.noise_hi > 0 ? clamp(lwt__band_boundary_of(lam_s, D), 1, J + 1) : 1;
    a.levels[coarse] = J;
    a.rough_lo[coarse] = A;
    a.rough_hi[coarse] = clamp(lwt__band_boundary_of(lam_c, D) - 1, A - 1, J);
    for (int k = 0; k < 2; k++) {
        const int off = a.levels[fine] - a.levels[k]; /* --levels counts the finer axis's levels */
        if (a.levels[k] > 0)
            LWT_FORWARD(lwt__bands_check_size(ctx, a.levels[k], n[k], k, off, nx, ny));
        s.lambda_s[k] = lwt_band_boundary(a.rough_lo[k], sp[k]);
        s.lambda_c[k] = lwt_band_boundary(a.rough_hi[k] + 1, sp[k]);
        s.lambda_f[k] = lwt_band_boundary(a.levels[k] + 1, sp[k]);
    }
    *split = s;
    *axes = a;
    return LWT_OK;
}

int lwt__band_axes_uniform(const lwt_band_axes *a, const lwt_band_split *s)
{
    static const lwt_band_axes none;
    if (!memcmp(a, &none, sizeof none))
        return 1;
    for (int k = 0; k < 2; k++)
        if (a->levels[k] != s->levels || a->rough_lo[k] != s->rough_lo || a->rough_hi[k] != s->rough_hi)
            return 0;
    return 1;
}

/* the band (LWT_BAND_*) of level j along axis k, and its rank from the shortest wavelengths */
static int axis_band(const lwt_band_axes *a, int k, int j)
{
    return j < a->rough_lo[k] ? LWT_BAND_NOISE : j <= a->rough_hi[k] ? LWT_BAND_ROUGHNESS : LWT_BAND_WAVINESS;
}

static int band_rank(int band)
{
    return LWT_BAND_NOISE - band; /* noise 0, roughness 1, waviness 2 */
}

lwt_status lwt__band_axes_steps(lwt_context *ctx, const lwt_band_axes *a, split_step *steps, int *nsteps)
{
    for (int k = 0; k < 2; k++)
        if (a->levels[k] < 0 || a->levels[k] > LWT_BANDS_MAX_LEVELS || a->rough_lo[k] < 1 ||
            a->rough_hi[k] < a->rough_lo[k] - 1 || a->rough_hi[k] > a->levels[k])
            return fail(ctx, "per-axis levels along %s: J = %d, roughness %d-%d: need 0 <= J <= %d and 1 <= A <= B + 1 <= J + 1",
                        k ? "y" : "x", a->levels[k], a->rough_lo[k], a->rough_hi[k], LWT_BANDS_MAX_LEVELS);
    if (a->levels[0] + a->levels[1] < 1)
        return fail(ctx, "per-axis levels: no level along either axis");
    /* Levels in order of wavelength band: both axes' next levels in one 2-D step when they fall
       in the same band (the isotropic transform is all such steps), else the axis whose next
       level is in the shorter band alone, so that every detail of a step belongs to one band:
       the band of the level at which its axis split it. */
    int kx = 0, ky = 0, n = 0;
    while (kx < a->levels[0] || ky < a->levels[1]) {
        const int rx = kx < a->levels[0] ? band_rank(axis_band(a, 0, kx + 1)) : 9;
        const int ry = ky < a->levels[1] ? band_rank(axis_band(a, 1, ky + 1)) : 9;
        split_step *st = &steps[n++];
        if (rx == ry) {
            st->axes = SPLIT_AXIS_XY;
            st->out = axis_band(a, 0, ++kx);
            ky++;
        } else if (rx < ry) {
            st->axes = SPLIT_AXIS_X;
            st->out = axis_band(a, 0, ++kx);
        } else {
            st->axes = SPLIT_AXIS_Y;
            st->out = axis_band(a, 1, ++ky);
        }
    }
    *nsteps = n;
    return LWT_OK;
}
