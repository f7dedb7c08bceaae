/* bands.c - map level numbers or cutoff wavelengths onto noise/roughness/waviness/form. */
#include "surface/bands.h"
#include "core/fail.h"

#include <math.h>

/* every failure of a request is an invalid argument */
#define fail(ctx, ...) lwt_fail((ctx), LWT_ERR_INVALID_ARGUMENT, __VA_ARGS__)

double lwt_band_boundary(int j, double d)
{
    return ldexp(d, j);
}

/* nearest level boundary to a wavelength: round(log2(lambda / d)) */
int lwt__band_boundary_of(double lambda, double d)
{
    double b = log2(lambda / d);
    if (b < 0)
        return 0;
    if (b > LWT_BANDS_MAX_LEVELS + 2)
        return LWT_BANDS_MAX_LEVELS + 2;
    return (int)lround(b);
}

static lwt_status check_range(int lo, int hi, const char *what, lwt_context *ctx)
{
    if (lo < 1 || hi < lo || hi > LWT_BANDS_MAX_LEVELS)
        return fail(ctx, "%s levels %d-%d: need 1 <= first <= last <= %d", what, lo, hi,
                    LWT_BANDS_MAX_LEVELS);
    return LWT_OK;
}

lwt_status lwt__bands_levels(lwt_context *ctx, const lwt_band_request *req, size_t nx, size_t ny, double dx,
                             double dy, lwt_band_split *out)
{
    if (!req || !out || nx < 1 || ny < 1 || !(dx > 0) || !(dy > 0) || !isfinite(dx) || !isfinite(dy))
        return fail(ctx, "bad surface size or spacing");
    const double d = dx < dy ? dx : dy;
    int J = req->levels, A = 0, B = 0;
    if (J < 0 || J > LWT_BANDS_MAX_LEVELS)
        return fail(ctx, "levels must be 1..%d (got %d)", LWT_BANDS_MAX_LEVELS, J);
    if (req->rough_lo || req->rough_hi) {
        if (req->lambda_s > 0 || req->lambda_c > 0)
            return fail(ctx, "give either roughness levels or cutoffs (lambda-s, lambda-c), not both");
        LWT_FORWARD(check_range(req->rough_lo, req->rough_hi, "roughness", ctx));
        A = req->rough_lo;
        B = req->rough_hi;
    }
    if (req->lambda_s < 0 || req->lambda_c < 0 || !isfinite(req->lambda_s) || !isfinite(req->lambda_c))
        return fail(ctx, "cutoff wavelengths must be positive");
    if (req->lambda_s > 0 && req->lambda_c > 0 && req->lambda_s >= req->lambda_c)
        return fail(ctx, "lambda-s (%g um) must be shorter than lambda-c (%g um)", req->lambda_s * 1e6,
                    req->lambda_c * 1e6);
    if (req->lambda_s > 0) {
        A = lwt__band_boundary_of(req->lambda_s, d);
        if (A < 1)
            A = 1; /* below the Nyquist wavelength: nothing to cut */
    }
    if (req->lambda_c > 0) {
        B = lwt__band_boundary_of(req->lambda_c, d) - 1;
        if (B < 1)
            return fail(ctx,
                        "lambda-c = %g um is too short for a spacing of %g um: the shortest roughness band "
                        "ends at 4 spacings (%g um)",
                        req->lambda_c * 1e6, d * 1e6, 4 * d * 1e6);
        if (A > B)
            return fail(ctx,
                        "lambda-s = %g um and lambda-c = %g um map to the same level boundary (%g um) at a "
                        "spacing of %g um: no roughness level is left between them",
                        req->lambda_s * 1e6, req->lambda_c * 1e6, lwt_band_boundary(A, d) * 1e6, d * 1e6);
    }
    if (req->wavy_lo || req->wavy_hi) {
        LWT_FORWARD(check_range(req->wavy_lo, req->wavy_hi, "waviness", ctx));
        if (B && req->wavy_lo != B + 1)
            return fail(ctx,
                        "waviness levels %d-%d must start right after the roughness levels (at level %d)",
                        req->wavy_lo, req->wavy_hi, B + 1);
        if (req->wavy_lo < 2)
            return fail(ctx, "waviness levels %d-%d: level 1 is always roughness (or noise)",
                        req->wavy_lo, req->wavy_hi);
        if (J && req->wavy_hi != J)
            return fail(ctx,
                        "waviness levels %d-%d must end at the last level (%d): the form is the level-%d "
                        "approximation",
                        req->wavy_lo, req->wavy_hi, J, J);
        B = req->wavy_lo - 1;
        J = req->wavy_hi;
    }
    if (!J) {
        J = LWT_BANDS_DEFAULT_LEVELS;
        if (B + 1 > J)
            J = B + 1 > LWT_BANDS_MAX_LEVELS ? LWT_BANDS_MAX_LEVELS : B + 1;
    }
    if (!A)
        A = 1;
    if (!B)
        B = J / 2 > A ? J / 2 : A;
    if (B > J)
        return fail(ctx, "roughness levels up to %d need at least %d levels (got %d)", B, B, J);
    if (A > B)
        return fail(ctx, "lambda-s maps to level %d, above the last roughness level %d", A, B);

    out->levels = J;
    out->noise_hi = A - 1;
    out->rough_lo = A;
    out->rough_hi = B;
    out->wavy_lo = B + 1;
    out->wavy_hi = J;
    out->spacing = d;
    const double sp[2] = {dx, dy};
    for (int k = 0; k < 2; k++) {
        out->lambda_s[k] = lwt_band_boundary(A, sp[k]);
        out->lambda_c[k] = lwt_band_boundary(B + 1, sp[k]);
        out->lambda_f[k] = lwt_band_boundary(J + 1, sp[k]);
    }
    return LWT_OK;
}

lwt_status lwt__bands_check_size(lwt_context *ctx, int J, size_t n, int axis, int off, size_t nx, size_t ny)
{
    size_t need = (size_t)1 << (J + 1);
    if (n >= need)
        return LWT_OK;
    int jmax = -1;
    for (size_t m = n; m >= 2; m >>= 1)
        jmax++;
    if (jmax < 1)
        return fail(ctx,
                    "surface too small for %d levels: %zu x %zu points; a wavelet split needs at least 4 "
                    "points along each axis",
                    J, nx, ny);
    return fail(ctx,
                "surface too small for %d levels: %zu points along %s, %d levels need at least %zu "
                "(2^(J+1)); use --levels %d or fewer",
                J, n, axis ? "y" : "x", J, need, jmax + off);
}

lwt_status lwt_bands_resolve(lwt_context *ctx, const lwt_band_request *req, size_t nx, size_t ny, double dx, double dy,
                             lwt_band_split *out)
{
    lwt_band_split s;
    LWT_FORWARD(lwt__bands_levels(ctx, req, nx, ny, dx, dy, &s));
    LWT_FORWARD(lwt__bands_check_size(ctx, s.levels, nx < ny ? nx : ny, nx < ny ? 0 : 1, 0, nx, ny));
    *out = s;
    return LWT_OK;
}

char lwt_band_of_level(const lwt_band_split *s, int j)
{
    if (j <= s->noise_hi)
        return 'n';
    if (j <= s->rough_hi)
        return 'r';
    return 'w';
}
