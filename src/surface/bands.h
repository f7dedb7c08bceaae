/*
 * bands.h - which wavelet detail levels make up noise, roughness and waviness (seed 000 eq. 25).
 *
 * A J-level 2-D transform splits a height map into the level-J approximation and the detail
 * levels 1..J (level 1 = finest). Level j details hold wavelengths of about 2^j..2^(j+1) sample
 * spacings, so the boundary between levels j-1 and j sits at 2^j spacings. The bands tile the
 * levels without gaps, so that the band surfaces add up to the input:
 *
 *   noise      levels 1 .. A-1      wavelengths below lambda-s   (absent when A = 1)
 *   roughness  levels A .. B        lambda-s .. lambda-c
 *   waviness   levels B+1 .. J      lambda-c .. lambda-f          (empty when B = J)
 *   form       the level-J approximation, wavelengths above lambda-f = 2^(J+1) spacings
 *
 * A cutoff wavelength lambda maps to the nearest level boundary on a log scale:
 * A = round(log2(lambda_s / d)), B + 1 = round(log2(lambda_c / d)), where d is the smaller of
 * the two spacings (so that neither axis is filtered coarser than asked). The effective cutoffs
 * per axis are then 2^A * (dx, dy), 2^(B+1) * (dx, dy) and 2^(J+1) * (dx, dy).
 *
 * Pure computation: no printing, no files, no global state.
 */
#ifndef LWT_SURFACE_BANDS_H
#define LWT_SURFACE_BANDS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LWT_BANDS_DEFAULT_LEVELS 6
#define LWT_BANDS_MAX_LEVELS 30

/* What the user asked for. Zero means "not given" for every field. */
typedef struct lwt_band_request {
    int levels;              /* J */
    int rough_lo, rough_hi;  /* A-B, level numbers, 1 = finest */
    int wavy_lo, wavy_hi;    /* C-D; C must be B+1 and D must be J */
    double lambda_s;         /* metres */
    double lambda_c;         /* metres */
} lwt_band_request;

/* The resolved split. */
typedef struct lwt_band_split {
    int levels;              /* J */
    int noise_hi;            /* noise = levels 1..noise_hi; 0 = no noise band */
    int rough_lo, rough_hi;  /* A..B */
    int wavy_lo, wavy_hi;    /* B+1..J; wavy_lo > wavy_hi = empty band */
    double spacing;          /* metres: min(dx, dy), the spacing the levels were computed from */
    double lambda_s[2];      /* effective cutoffs per axis (x, y) in metres: 2^A * d */
    double lambda_c[2];      /* 2^(B+1) * d */
    double lambda_f[2];      /* 2^(J+1) * d: longest wavelength of the waviness band */
} lwt_band_split;

/** Boundary wavelength (metres) between level j-1 and level j for spacing d: 2^j * d. */
double lwt_band_boundary(int j, double d);

/** Resolve a request for an nx x ny surface with spacing dx, dy (metres, > 0).
 *  Defaults: J = 6 (or D when --waviness-levels is given, or B+1 when lambda-c needs more),
 *  A = 1, B = J/2. Fails when the request is inconsistent or when the surface has fewer
 *  than 2^(J+1) points along an axis (the coarsest detail band would not fit).
 *  Returns 0, or -1 with a one-line reason in err. */
int lwt_bands_resolve(const lwt_band_request *req, size_t nx, size_t ny, double dx, double dy,
                      lwt_band_split *out, char *err, size_t errlen);

/** Band of a detail level j (1 = finest): 'n' noise, 'r' roughness, 'w' waviness. */
char lwt_band_of_level(const lwt_band_split *s, int j);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_BANDS_H */
