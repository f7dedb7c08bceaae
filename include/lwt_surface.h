/*
 * lwt_surface.h - measured areal surfaces (height maps): the wavelet band split into form,
 * waviness, roughness (and noise), the ISO 25178-2 field parameters and the surface files.
 *
 * Two libraries: the band split, the filter and the parameters (LWT_API) are computation on
 * arrays and part of liblwt (-llwt, pkg-config lwt, CMake lwt::lwt); the surface struct and
 * its file readers and writers (LWT_IO_API) are liblwt_surface (-llwt_surface -llwt,
 * pkg-config lwt-surface, CMake lwt::surface), built where libzip, expat, libcrypto and
 * libpng are found, and a client of liblwt's public API only.
 *
 * Usage:
 *
 *   lwt_context *ctx;   lwt_context_create(&ctx);
 *   lwt_surface s;      lwt_surface_read(ctx, "part.x3p", &s);
 *   lwt_filter_spec f = lwt_filter_spec_default();
 *   lwt_band_request req = {0};            // zero: 6 levels, roughness 1-3
 *   lwt_bands_resolve(ctx, &req, s.nx, s.ny, s.dx, s.dy, &f.split);
 *   lwt_filter_result r; lwt_filter_run(ctx, &f, s.z, s.nx, s.ny, s.dx, s.dy, &r);
 *   lwt_iso_params p;   lwt_iso_params_compute(ctx, r.band[LWT_BAND_ROUGHNESS], s.nx, s.ny, s.dx, s.dy, 0, &p);
 *   lwt_filter_result_free(&r); lwt_surface_free(&s); lwt_context_destroy(ctx);
 *
 * Rules (those of lwt.h):
 *  - Every function that can fail returns an lwt_status (pinned values; the file and surface
 *    failures are LWT_ERR_IO, _FORMAT, _CHECKSUM, _NOT_AREAL, _NO_DATA). The context comes
 *    first; a failure sends exactly one line ("FILE: reason" for files) to its log callback.
 *    ctx may be NULL: the status still says what failed, the message is dropped. Functions on
 *    an object (lwt_splitter_run) log through the context the object was made with.
 *  - Nothing here prints, exits or keeps global state. Writers are atomic: the target file is
 *    replaced only on success, and a failure leaves neither it nor a temporary file behind.
 *  - Structs a program fills (lwt_filter_spec) start from their _default() function, whose
 *    `size` field tells the library which version of the struct the program was built with.
 *
 * Data model: nx points per profile along x (the fast axis), ny profiles along y,
 * z[iy*nx + ix] in metres as double, NaN = invalid (not measured) point, spacing dx, dy in
 * metres. docs/SURFACE.md and docs/FORMATS.md describe the method and the file formats.
 */
#ifndef LWT_SURFACE_H
#define LWT_SURFACE_H

#include <stddef.h>
#include <stdint.h>

#include "lwt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- surface */

typedef struct lwt_surface {
    size_t nx, ny;          /* nx points per profile (x, fast axis), ny profiles; z[iy*nx + ix] */
    double dx, dy;          /* spacing in metres (0 = unknown, .npy) */
    double *z;              /* heights in metres, NaN = invalid point, malloc'ed */
    char source_format[16]; /* "x3p", "sdf", "sur", "plu", "npy", "gwy", "al3d", "vk4" */
    double z_resolution;    /* metres, 0 = unknown (SDF Zresolution) */
    char date[40];          /* measurement date: ISO 8601 when the file allows it, else as stored */
    char instrument[128];   /* manufacturer and model, as stored */
    char creator[64];       /* operator / creator, as stored */
    char comment[256];      /* free comment, truncated */
} lwt_surface;

/** Zero every field (z = NULL). */
LWT_IO_API void lwt_surface_init(lwt_surface *s);
/** Initialise s and allocate z for nx*ny points (all NaN). LWT_ERR_OUT_OF_MEMORY when it cannot. */
LWT_IO_API lwt_status lwt_surface_alloc(lwt_context *ctx, lwt_surface *s, size_t nx, size_t ny);
/** Free z and re-initialise s. NULL is a no-op. */
LWT_IO_API void lwt_surface_free(lwt_surface *s);
/** Number of finite (valid) heights. */
LWT_IO_API size_t lwt_surface_count_valid(const lwt_surface *s);

/* ------------------------------------------------------------------ files */

/** Read X3P (ISO 25178-72), SDF (ISO 25178-71, ASCII and binary), Digital Surf .sur, Sensofar
 *  .plu, Gwyddion .gwy, Alicona .al3d, Keyence .vk4 or a 2-D float32/float64 .npy (no spacing: dx = dy = 0). The format is
 *  chosen by magic bytes, then by extension. out is initialised first; on failure it holds nothing to free.
 *  A surface whose every point is invalid is LWT_ERR_NO_DATA. */
LWT_IO_API lwt_status lwt_surface_read(lwt_context *ctx, const char *path, lwt_surface *out);
/** Readers for one format each (same contract as lwt_surface_read). */
LWT_IO_API lwt_status lwt_surface_read_x3p(lwt_context *ctx, const char *path, lwt_surface *out);
LWT_IO_API lwt_status lwt_surface_read_sdf(lwt_context *ctx, const char *path, lwt_surface *out);
LWT_IO_API lwt_status lwt_surface_read_sur(lwt_context *ctx, const char *path, lwt_surface *out);
LWT_IO_API lwt_status lwt_surface_read_plu(lwt_context *ctx, const char *path, lwt_surface *out);
LWT_IO_API lwt_status lwt_surface_read_npy(lwt_context *ctx, const char *path, lwt_surface *out);
/** Gwyddion native file ("GWYP"): the lowest-numbered channel (/N/data), heights and spacing
 *  scaled by its units' power of ten (a unit that is not a length, or none, is refused); the
 *  points its mask (/N/mask) marks (nonzero) are invalid (NaN); the title is the comment.
 *  docs/FORMATS.md has the details. */
LWT_IO_API lwt_status lwt_surface_read_gwy(lwt_context *ctx, const char *path, lwt_surface *out);

/** X3P: data.bin as float64 (D), valid.bin when there are NaN points, MD5 checksums.
 *  Needs dx > 0 and dy > 0. */
LWT_IO_API lwt_status lwt_surface_write_x3p(lwt_context *ctx, const char *path, const lwt_surface *s);
/** SDF (ISO 25178-71, "aISO-1.0"/"bISO-1.0"), DataType 7 (double), Zscale 1 (heights in metres,
 *  written exactly). binary != 0: binary (nx, ny <= 65535); else ASCII with "BAD" for invalid
 *  points. */
LWT_IO_API lwt_status lwt_surface_write_sdf(lwt_context *ctx, const char *path, const lwt_surface *s, int binary);
/** Write by extension: .x3p -> X3P, .sdf -> binary SDF. */
LWT_IO_API lwt_status lwt_surface_write(lwt_context *ctx, const char *path, const lwt_surface *s);

/* ------------------------------------------------------------- band split */

/*
 * A J-level 2-D transform splits a height map into the level-J approximation and the detail
 * levels 1..J (1 = finest; level j holds wavelengths of about 2^j..2^(j+1) spacings):
 *   noise      levels 1 .. A-1      wavelengths below lambda-s   (absent when A = 1)
 *   roughness  levels A .. B        lambda-s .. lambda-c
 *   waviness   levels B+1 .. J      lambda-c .. lambda-f          (empty when B = J)
 *   form       the level-J approximation
 * A cutoff lambda maps to the nearest level boundary on a log scale from the smaller spacing d:
 * A = round(log2(lambda_s / d)), B + 1 = round(log2(lambda_c / d)).
 */
#define LWT_BANDS_DEFAULT_LEVELS 6
#define LWT_BANDS_MAX_LEVELS 30

/** What the user asks for. Zero means "not given" for every field. */
typedef struct lwt_band_request {
    int levels;              /* J */
    int rough_lo, rough_hi;  /* A-B, level numbers, 1 = finest */
    int wavy_lo, wavy_hi;    /* C-D; C must be B+1 and D must be J */
    double lambda_s;         /* metres */
    double lambda_c;         /* metres */
} lwt_band_request;

/** The resolved split (lwt_bands_resolve fills it; lwt_filter_spec.split takes it). */
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

/*
 * Levels per axis (added in 0.x; lwt_bands_resolve_axes). With dx != dy a wavelength falls on
 * different level numbers along x and y (2^j dx against 2^j dy), so each axis has its own:
 * J, A and B along x at index 0 and along y at index 1 (noise = that axis's levels 1..A-1,
 * roughness A..B, waviness B+1..J; along the axis of the larger spacing a band may be empty).
 * All zero: the split's levels on both axes (the isotropic transform).
 */
typedef struct lwt_band_axes {
    int levels[2];
    int rough_lo[2];
    int rough_hi[2];
} lwt_band_axes;

/** Boundary wavelength (metres) between level j-1 and level j for spacing d: 2^j * d. */
LWT_API double lwt_band_boundary(int j, double d);
/** Resolve a request for an nx x ny surface with spacing dx, dy (metres, > 0).
 *  Defaults: J = 6 (or D when waviness levels are given, or B+1 when lambda-c needs more),
 *  A = 1, B = J/2. LWT_ERR_INVALID_ARGUMENT when the request is inconsistent or when the
 *  surface has fewer than 2^(J+1) points along an axis. */
LWT_API lwt_status lwt_bands_resolve(lwt_context *ctx, const lwt_band_request *req, size_t nx, size_t ny, double dx,
                                     double dy, lwt_band_split *out);
/** Band of a detail level j (1 = finest): 'n' noise, 'r' roughness, 'w' waviness. */
LWT_API char lwt_band_of_level(const lwt_band_split *s, int j);

/* ------------------------------------------------------------ plane (form) */

/** z(x, y) ~ z0 + sx * x + sy * y with x = ix * dx, y = iy * dy (metres, slopes dimensionless). */
typedef struct lwt_plane {
    double z0; /* height at ix = iy = 0 (metres) */
    double sx; /* dz/dx */
    double sy; /* dz/dy */
} lwt_plane;

/** Least-squares plane of the finite points (threads: CPU threads, 0 = default; the result does
 *  not depend on it). Valid points on one line only: the slope across it is 0.
 *  LWT_ERR_INVALID_ARGUMENT when no point is valid, LWT_ERR_OUT_OF_MEMORY. */
LWT_API lwt_status lwt_plane_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                 int threads, lwt_plane *out);
/** z -= plane at every finite point (non-finite points stay as they are). */
LWT_API void lwt_plane_subtract(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_plane *p,
                                int threads);

/* ------------------------------------------------- form (F-operators) */

/*
 * Least-squares form models of the valid points (docs/SURFACE.md, "Form removal"):
 *   LWT_FORM_POLY      z = sum c_pq P_p(u) P_q(v), p + q <= degree (1..LWT_FORM_MAX_DEGREE), P the
 *                      Legendre polynomials, u = (x - xc) / hx and v = (y - yc) / hy mapping the
 *                      field onto [-1, 1]: the scaled, nearly orthogonal basis keeps the normal
 *                      equations well conditioned up to degree 6 (solved by Cholesky after
 *                      scaling to a unit diagonal). Degree 1 is the plane of lwt_plane_fit.
 *   LWT_FORM_SPHERE    |(x, y, z) - (cx, cy, cz)| = R, fitted by geometric (orthogonal) distance
 *   LWT_FORM_CYLINDER_X, _Y  a circular cylinder whose axis is parallel to x (resp. y), fitted by
 *                      geometric distance to the axis ((y, z) resp. (x, z) circles)
 * Sphere and cylinder: Levenberg-Marquardt from the algebraic (Kasa) fit, in coordinates scaled by
 * the larger half-width of the field; converged when an accepted step moves no parameter by more
 * than 1e-10 max(1, R) (scaled) or when a step changes the sum of squares by no more than 1e-13
 * of it (its rounding); LWT_ERR_INVALID_ARGUMENT with a message when it does not converge in
 * LWT_FORM_MAX_ITERATIONS steps or when the shape does not cover the field (a point outside the
 * sphere's or cylinder's footprint has no height on it).
 * lwt_form_subtract removes the model's height at each point (the vertical residual
 * z - zmodel(x, y), what the band split then filters). Every sum runs per row, then over the
 * rows in order: the result does not depend on the thread count.
 */
typedef enum lwt_form_kind {
    LWT_FORM_NONE = 0,
    LWT_FORM_POLY = 1,
    LWT_FORM_SPHERE = 2,
    LWT_FORM_CYLINDER_X = 3, /* axis parallel to x: the profile across it (along y) is a circle */
    LWT_FORM_CYLINDER_Y = 4
} lwt_form_kind;

#define LWT_FORM_MAX_DEGREE 6
#define LWT_FORM_MAX_COEFFS 28 /* (D + 1)(D + 2) / 2 for D = 6 */
#define LWT_FORM_MAX_ITERATIONS 100

typedef struct lwt_form {
    lwt_form_kind kind;
    int degree;                       /* POLY: 1..LWT_FORM_MAX_DEGREE */
    /* POLY: coef[k] of P_p(u) P_q(v), k in the order (p, q) = (0,0), (1,0), (0,1), (2,0), (1,1),
       (0,2), ... (total degree, then falling p); metres. u = (x - xc) / hx, v = (y - yc) / hy. */
    int ncoef;
    double coef[LWT_FORM_MAX_COEFFS];
    double xc, yc, hx, hy;            /* metres */
    /* SPHERE: centre (cx, cy, cz) and radius; CYLINDER_X: axis at (y = cy, z = cz), cx unused;
       CYLINDER_Y: axis at (x = cx, z = cz), cy unused. convex = 1 when the surface lies above the
       centre (a cap), 0 below it (a bowl). Metres; x = ix dx, y = iy dy. */
    double cx, cy, cz, radius;
    int convex;
    int iterations;                   /* Levenberg-Marquardt steps taken (0 for POLY) */
    double rms;                       /* rms of the vertical residual over the valid points, metres */
    size_t n_valid;
} lwt_form;

/** Name of a form kind: "none", "poly", "sphere", "cylinder-x", "cylinder-y"; NULL outside. */
LWT_API const char *lwt_form_kind_name(lwt_form_kind kind);
/** Fit a form model (degree: POLY only) to the finite points of z (nx per row, ny rows, spacing
 *  dx, dy > 0, metres). threads: CPU threads, 0 = default; the result does not depend on it.
 *  LWT_ERR_INVALID_ARGUMENT (no valid point, too few for the model, points that do not determine
 *  it, no convergence), LWT_ERR_OUT_OF_MEMORY. */
LWT_API lwt_status lwt_form_fit(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                lwt_form_kind kind, int degree, int threads, lwt_form *out);
/** Height of the model at (x, y) metres; NaN where a sphere or cylinder has no point above it. */
LWT_API double lwt_form_eval(const lwt_form *f, double x, double y);
/** z -= model at every finite point (non-finite points stay as they are). */
LWT_API void lwt_form_subtract(double *z, size_t nx, size_t ny, double dx, double dy, const lwt_form *f,
                               int threads);

/* ----------------------------------------------------------------- filter */

/*
 * lwt_filter_run, spec.filter = LWT_FILTER_WAVELET (default): optional form removal (spec.plane,
 * spec.form: the model's vertical residual is what is split), invalid
 * points filled (harmonic inpainting), one
 * forward J-level 2-D transform, then per band an inverse of that band's coefficients alone;
 * invalid points are NaN again in every band. The transform is linear and perfectly
 * reconstructing: form + waviness + roughness (+ noise) equals the (levelled) input to rounding.
 * spec.filter = LWT_FILTER_GAUSSIAN: the same bands by the ISO 16610-61 Gaussian (see
 * lwt_filter_kind; spec.split is not used, no fill), on the CPU or a GPU;
 * LWT_FILTER_ROBUST_GAUSSIAN: with ISO 16610-71's robust regression as L- and form filter, on the
 * CPU (LWT_ERR_UNSUPPORTED with backend cuda).
 */
enum { LWT_BAND_FORM = 0, LWT_BAND_WAVINESS = 1, LWT_BAND_ROUGHNESS = 2, LWT_BAND_NOISE = 3, LWT_BAND_COUNT = 4 };

/** "form", "waviness", "roughness", "noise"; NULL outside. */
LWT_API const char *lwt_filter_band_name(int band);

/** Progress: called as each step starts with (step index 0.., steps, what starts). */
typedef void (*lwt_filter_progress_fn)(void *user, int step, int steps, const char *what);

#define LWT_SPLIT_ONE_CHUNK ((size_t)-1)

/*
 * What to split. Fill it from lwt_filter_spec_default(), never from zeros: `size` tells the
 * library which version of this struct a program was built with, so that fields added at the
 * end in later versions get their defaults for binaries built against an older header.
 */
/*
 * The filter that makes the bands. LWT_FILTER_WAVELET: the band split above (spec.split).
 * LWT_FILTER_GAUSSIAN: the areal Gaussian filter of ISO 16610-61 (lwt_gauss_lowpass below),
 * cascaded as the standard chains its operators, with the nesting indices of spec.gauss:
 *   s1 = G(lambda_s) z (the S-filter; s1 = z without lambda_s), s2 = G(lambda_c) s1 (the
 *   L-filter), s3 = G(lambda_f) s2;  noise = z - s1, roughness = s1 - s2, waviness = s2 - s3,
 *   form = s3; so the bands add up to the (levelled) input to rounding, as the wavelet's do.
 * Invalid points are weighted out (no fill) and are NaN in every band.
 */
/*
 * LWT_FILTER_ROBUST_GAUSSIAN: the same cascade with the L-filter (s2) and the form's filter (s3)
 * replaced by the robust Gaussian regression filter of ISO 16610-71 (areal, second order:
 * locally weighted quadratic fits, iteratively reweighted with Tukey's biweight), so that deep
 * valleys and scratches do not pull the mean surface down and a quadratic form passes
 * unchanged up to the border; the S-filter stays the linear Gaussian. CPU only.
 * docs/SURFACE.md, "Robust Gaussian regression filter".
 */
typedef enum lwt_filter_kind {
    LWT_FILTER_WAVELET = 0,
    LWT_FILTER_GAUSSIAN = 1,
    LWT_FILTER_ROBUST_GAUSSIAN = 2
} lwt_filter_kind;

/** Nesting indices (cut-off wavelengths, 50 % transmission) of the Gaussian split, metres. */
typedef struct lwt_gauss_nesting {
    double lambda_s; /* S-filter; 0 = none (no noise band) */
    double lambda_c; /* L-filter between roughness and waviness, > lambda_s */
    double lambda_f; /* between waviness and form, > lambda_c */
} lwt_gauss_nesting;

typedef struct lwt_filter_spec {
    size_t size;              /* sizeof(lwt_filter_spec), set by lwt_filter_spec_default() */
    const char *wavelet;      /* NULL = "cdf97" */
    lwt_mode mode;            /* LWT_MODE_SYMMETRIC by default (continuous at the border) */
    lwt_dtype dtype;          /* precision of the transform: LWT_F64 (default) or LWT_F32 */
    lwt_backend backend;      /* auto, cpu, cuda */
    lwt_algorithm algorithm;  /* auto by default */
    int plane;                /* 1: remove the least-squares plane first (= form POLY, degree 1) */
    int threads;              /* CPU threads of the fill/plane loops; 0 = default */
    size_t chunk_rows;        /* row chunks of the transform: 0 = lwt_filter_run's default (one
                                 chunk) or the splitter's (automatic); LWT_SPLIT_ONE_CHUNK = one
                                 chunk; else owned rows per chunk. Bands are the same bits. */
    lwt_band_split split;     /* from lwt_bands_resolve */
    lwt_filter_progress_fn progress;
    void *progress_user;
    /* added in 0.x (the Gaussian filter); older binaries get the defaults */
    lwt_filter_kind filter;   /* LWT_FILTER_WAVELET (default), LWT_FILTER_GAUSSIAN or _ROBUST_GAUSSIAN */
    lwt_gauss_nesting gauss;  /* the Gaussian's nesting indices (lwt_gauss_nesting_resolve) */
    /* added in 0.x (form models); older binaries get the defaults */
    lwt_form_kind form;       /* form removed before the split: LWT_FORM_NONE (default; plane = 1
                                 still removes the plane), or a model of lwt_form_fit */
    int form_degree;          /* LWT_FORM_POLY: 1..LWT_FORM_MAX_DEGREE */
    lwt_form *form_out;       /* NULL, or where lwt_filter_run stores the fitted model (kind NONE
                                 when none was removed); lwt_filter_result keeps its layout */
    /* added in 0.x (per-axis levels); older binaries get the defaults */
    lwt_band_axes axes;       /* from lwt_bands_resolve_axes; all zero (default): split's levels on
                                 both axes */
} lwt_filter_spec;

/** Defaults: cdf97, symmetric, f64, auto backend and algorithm, no plane; split zeroed;
 *  the wavelet filter (gauss zeroed). */
LWT_API lwt_filter_spec lwt_filter_spec_default(void);

/** The Gaussian's nesting indices for a request (lwt_band_request, spacing dx, dy in metres): a
 *  cutoff the request gives is used as given (not moved to a level boundary); one it does not
 *  give is the level boundary of the wavelet split the request describes (lwt_bands_resolve's
 *  rules, from the smaller spacing d), so that both filters split at the same wavelengths by
 *  default: lambda_s = 2^A d only when that split has a noise band, lambda_c = 2^(B+1) d,
 *  lambda_f = 2^(J+1) d. No size rule: the Gaussian needs no 2^(J+1) points.
 *  LWT_ERR_INVALID_ARGUMENT for an inconsistent request or unless lambda_s < lambda_c < lambda_f. */
LWT_API lwt_status lwt_gauss_nesting_resolve(lwt_context *ctx, const lwt_band_request *req, double dx, double dy,
                                             lwt_gauss_nesting *out);

typedef struct lwt_filter_result {
    size_t nx, ny;
    double *band[LWT_BAND_COUNT]; /* metres, NaN at invalid points; band[NOISE] NULL without noise band */
    lwt_plane plane;              /* removed plane (all 0 unless spec.plane, or spec.form is
                                     LWT_FORM_POLY of degree 1: the model is then in spec.form_out) */
    size_t n_filled;              /* invalid points filled before the transform */
    lwt_backend backend;          /* resolved backend */
    lwt_path path;                /* lifting or convolution */
    int max_level;                /* PyWavelets' dwtn_max_level for this shape and wavelet */
    char wavelet[32];             /* canonical name, e.g. "bior4.4" */
    /* Wall times in ms. ms_fill: copy, plane removal and fill. ms_transform: the forward
       transform and every band's inverse until the bands are complete in host memory.
       ms_total: the whole call, including the plans and buffers. */
    double ms_fill, ms_transform, ms_total;
} lwt_filter_result;

/** Split z (nx per row, ny rows, metres, NaN = invalid) with spacing dx, dy (metres).
 *  Needs at least one valid point. On failure every band is NULL. */
LWT_API lwt_status lwt_filter_run(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx,
                                  size_t ny, double dx, double dy, lwt_filter_result *out);
/** Free the bands; NULL is a no-op. */
LWT_API void lwt_filter_result_free(lwt_filter_result *r);

/* ------------------------------------------- Gaussian filter, ISO 16610-61 */

/*
 * The weighting function s(x, y) = 1 / (alpha^2 lc^2) exp(-pi (r / (alpha lc))^2), alpha =
 * sqrt(ln 2 / pi), as the product of its 1-D factors along x and y (separable), sampled at the
 * grid points and truncated at +-LWT_GAUSS_TRUNCATION * lc on each side: its transmission of a
 * sinusoid of wavelength w is exp(-pi (alpha lc / w)^2), 50 % at w = lc, within 2e-7.
 * End effects and invalid points: each output is the weighted mean of the valid points under
 * the truncated kernel (the weights renormalized to their sum inside the field, ISO 16610-28's
 * idea), so no point outside the field or not measured contributes, and a constant passes
 * unchanged everywhere. Direct convolution, each output summed in one fixed order: the result
 * does not depend on the thread count. docs/SURFACE.md, "Gaussian filter".
 */
#define LWT_GAUSS_TRUNCATION 1.0

/** The Gaussian low-pass (the mean surface) of z with nesting index lambda (metres > 0) into
 *  out (nx x ny, not overlapping z): NaN where z is not finite, and where no valid point lies
 *  under the kernel. threads: CPU threads, 0 = default. LWT_ERR_INVALID_ARGUMENT,
 *  LWT_ERR_OUT_OF_MEMORY. */
LWT_API lwt_status lwt_gauss_lowpass(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx, double dy,
                                     double lambda, int threads, double *out);

/* --------------------------------------------------------------- splitter */

/*
 * The split of lwt_filter_run (steps 3-4) planned once for a surface shape and run on many
 * surfaces whose heights are finite and already in the transform's precision: no fill, no
 * conversion; on a GPU the host buffers go straight to and from the device.
 */
typedef struct lwt_splitter lwt_splitter;

typedef struct lwt_splitter_info {
    lwt_backend backend;  /* resolved */
    lwt_path path;        /* lifting or convolution */
    int max_level;        /* PyWavelets' dwtn_max_level of the whole surface */
    int nbands;           /* 3, or 4 with a noise band */
    int chunks;           /* row chunks of a run */
    size_t halo;          /* most rows a chunk's window reads beyond its owned rows (0 with one chunk) */
    char wavelet[32];     /* canonical name */
} lwt_splitter_info;

/** Times of one run in ms: total is the whole call. */
typedef struct lwt_split_times {
    double total;
} lwt_split_times;

/** Plan the split of nx x ny surfaces (nx per row): spec's wavelet, mode, dtype, backend,
 *  algorithm, split, threads, progress and chunk_rows (0 = automatic: pipelined chunks on a
 *  GPU, one chunk on the CPU). ctx must outlive the splitter. */
LWT_API lwt_status lwt_splitter_create(lwt_context *ctx, const lwt_filter_spec *spec, size_t nx, size_t ny,
                                       lwt_splitter **out);
LWT_API void lwt_splitter_destroy(lwt_splitter *s); /* NULL is a no-op */
LWT_API lwt_status lwt_splitter_get_info(const lwt_splitter *s, lwt_splitter_info *info);
/** Split finite heights `in` (nx x ny, spec.dtype) into band[0 .. nbands-1] (same dtype, host
 *  memory, not overlapping `in`). Runs may follow each other on one splitter, not run at the
 *  same time. times may be NULL. */
LWT_API lwt_status lwt_splitter_run(lwt_splitter *s, const void *in, void *const band[LWT_BAND_COUNT],
                                    lwt_split_times *times);

/* ------------------------------------------------------ ISO 25178-2 params */

/*
 * Over the valid points, heights relative to their mean (d = z - mean):
 *   Sa = mean |d|, Sq = sqrt(mean d^2), Ssk = mean d^3 / Sq^3, Sku = mean d^4 / Sq^4,
 *   Sp = max d, Sv = -min d, Sz = Sp + Sv;
 * by ISO 25178-2:2021's discretization (docs/SURFACE.md): Sdq from forward differences,
 *   Sdq = sqrt(mean over x pairs (dz/dx)^2 + mean over y pairs (dz/dy)^2),
 * Sdr from the developed area of each grid cell whose 4 corners are valid, by triangles (the
 * mean of its two triangulations): Sdr = 100 % * mean over cells (area / (dx dy) - 1).
 * Undefined values are NaN (no valid point: all; Sq = 0: Ssk and Sku; no valid pair along x or
 * along y: Sdq; no valid cell: Sdr).
 */
typedef struct lwt_iso_params {
    double Sa, Sq, Ssk, Sku, Sp, Sv, Sz; /* heights in metres, Ssk and Sku dimensionless */
    double Sdq;                          /* dimensionless */
    double Sdr;                          /* percent */
    size_t n_valid;                      /* points used for the height parameters */
    size_t n_cells;                      /* cells used for Sdr */
} lwt_iso_params;

#define LWT_ISO_PARAM_COUNT 9
/** Name ("Sa", ...) of parameter k (0..8) in the order Sa Sq Ssk Sku Sp Sv Sz Sdq Sdr; NULL outside. */
LWT_API const char *lwt_iso_param_name(int k);
/** Value of parameter k; NaN outside 0..8. */
LWT_API double lwt_iso_param_value(const lwt_iso_params *p, int k);
/** 1 when parameter k is a height (metres), 0 when it is dimensionless or a percentage. */
LWT_API int lwt_iso_param_is_height(int k);
/** Compute over the finite points of z (nx per row, ny rows), spacing dx, dy > 0 (threads: CPU
 *  threads, 0 = default; the result does not depend on it). LWT_ERR_OUT_OF_MEMORY when it cannot. */
LWT_API lwt_status lwt_iso_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx,
                                          double dy, int threads, lwt_iso_params *out);

/* ------------------------------------- ISO 25178-2 material ratio (functional) */

/*
 * The areal material ratio curve (Abbott-Firestone curve) of the valid heights d = z - mean,
 * sorted d_0 >= d_1 >= ... >= d_(n-1): the points (100 k / (n - 1) %, d_k) joined by straight
 * lines (the height at material ratio mr is NumPy's linear quantile of the heights at 1 - mr/100).
 *   Smc(mr)  height of the curve at mr (%), metres about the mean
 *   Smr(c)   material ratio (%) where the curve comes down to height c (metres about the mean):
 *            100 at or below the lowest point, 0 above the highest
 *   Vm(p)    material volume per unit area above Smc(p): integral over 0..p of (curve - Smc(p))
 *   Vv(p)    void volume per unit area below Smc(p): integral over p..100 % of (Smc(p) - curve)
 *            (volumes in m^3/m^2 = m; 1 um = 1 ml/m^2)
 * and, from an lwt_mr_spec (ISO 25178-2 / -3 defaults: p = 10 %, q = 80 %, Sxp 2.5 % .. 50 %):
 *   Sxp = Smc(2.5) - Smc(50), Sdc = Smc(a) - Smc(b), Vmp = Vm(p), Vmc = Vm(q) - Vm(p),
 *   Vvv = Vv(q), Vvc = Vv(p) - Vv(q), and the Sk family (ISO 13565-2 as ISO 25178-2 takes it
 *   over): the 40 % wide central region is where the secant of the curve over 40 % of material
 *   ratio has the least slope (the first such region); the equivalent straight line is the least
 *   squares line of the curve (the polygon itself) over that region; Sk is its height
 *   difference between 0 % and 100 %, Smr1 and Smr2 the material ratios at those two heights,
 *   Spk and Svk the heights of the triangles whose areas equal the peak area above the line's
 *   0 % height and the dale area below its 100 % height (0 when that area is empty).
 *   docs/SURFACE.md gives the details.
 * The curve is built by sorting the valid heights (a radix sort on the doubles' bits: a total
 * order, the same result for any thread count).
 */
typedef struct lwt_material_curve lwt_material_curve;

/** Sort the finite points of z (nx per row, ny rows) into a material ratio curve.
 *  LWT_ERR_NO_DATA when no point is valid, LWT_ERR_OUT_OF_MEMORY. threads: CPU threads of the
 *  sort, 0 = default; the curve does not depend on it. */
LWT_API lwt_status lwt_material_curve_create(lwt_context *ctx, const double *z, size_t nx, size_t ny, int threads,
                                             lwt_material_curve **out);
LWT_API void lwt_material_curve_destroy(lwt_material_curve *c); /* NULL is a no-op */
/** Number of valid points; the mean they were taken about (metres). */
LWT_API size_t lwt_material_curve_count(const lwt_material_curve *c);
LWT_API double lwt_material_curve_mean(const lwt_material_curve *c);
/** Smc(mr): height (metres about the mean) at material ratio mr in % (clamped to 0..100). */
LWT_API double lwt_material_curve_smc(const lwt_material_curve *c, double mr);
/** Smr(c): material ratio in % at height c (metres about the mean). */
LWT_API double lwt_material_curve_smr(const lwt_material_curve *c, double height);
/** Vm(p), Vv(p): material and void volume per unit area (m^3/m^2) at material ratio p in %. */
LWT_API double lwt_material_curve_vm(const lwt_material_curve *c, double p);
LWT_API double lwt_material_curve_vv(const lwt_material_curve *c, double p);

/** Settings of the material ratio parameters. Fill from lwt_mr_spec_default(). */
typedef struct lwt_mr_spec {
    size_t size;        /* sizeof(lwt_mr_spec), set by lwt_mr_spec_default() */
    double smr_c;       /* Smr(c): c in metres about the mean; default 0 (the mean plane) */
    double smc_mr;      /* Smc(mr): mr in %; default 10 */
    double p, q;        /* Vmp, Vmc, Vvv, Vvc: p = 10 %, q = 80 % (ISO 25178-3) */
    double sxp_p, sxp_q; /* Sxp: 2.5 % and 50 % (ISO 25178-3) */
    double sdc_a, sdc_b; /* Sdc: 2 % and 98 % (lwt's choice; no standard default we know of) */
    double sk_width;    /* width of the Sk central region in %: 40 (ISO 13565-2) */
} lwt_mr_spec;

LWT_API lwt_mr_spec lwt_mr_spec_default(void);

typedef struct lwt_mr_params {
    double Smr;                    /* %, at spec.smr_c */
    double Smc;                    /* metres about the mean, at spec.smc_mr */
    double Sxp, Sdc;               /* metres */
    double Sk, Spk, Svk;           /* metres */
    double Smr1, Smr2;             /* % */
    double Vmp, Vmc, Vvv, Vvc;     /* m^3/m^2 (= metres; 1e-6 = 1 ml/m^2) */
    size_t n_valid;
} lwt_mr_params;

#define LWT_MR_PARAM_COUNT 13
/** Name ("Smr", "Smc", "Sxp", "Sdc", "Sk", "Spk", "Svk", "Smr1", "Smr2", "Vmp", "Vmc", "Vvv",
 *  "Vvc") of parameter k in the struct's order; NULL outside. */
LWT_API const char *lwt_mr_param_name(int k);
/** Value of parameter k; NaN outside 0..12. */
LWT_API double lwt_mr_param_value(const lwt_mr_params *p, int k);
/** Unit of parameter k: 'h' a height (metres), '%' a material ratio, 'v' a volume (m^3/m^2). */
LWT_API char lwt_mr_param_unit(int k);
/** The parameters of a curve with spec's settings (NULL: the defaults). Undefined values are NaN
 *  (Sk family with fewer than 3 points or all heights equal). */
LWT_API lwt_status lwt_mr_params_compute(lwt_context *ctx, const lwt_material_curve *c, const lwt_mr_spec *spec,
                                         lwt_mr_params *out);

/* ---------------------------------------------- ISO 25178-2 spatial family */

/*
 * From the autocorrelation function f(tx, ty) of the valid heights about their mean (the linear,
 * unbiased estimator: each lag's sum over the overlapping valid pairs divided by their number;
 * by FFT), with the threshold s f(0, 0):
 *   Sal  the shortest horizontal distance over which f falls to s f(0, 0): over every direction
 *        from the centre to the edge of the connected region where f > s f(0, 0)
 *   Str  Sal over the longest such distance (0..1); NaN when f stays above the threshold up to
 *        the field's border in some direction (the longest decay is not in the field)
 * (ISO 25178-2; s = 0.2 is ISO 25178-3's default), and from the DFT F of the heights about
 * their mean (invalid points 0):
 *   Std  the texture direction: the angle in [0, 180) degrees, counter-clockwise from +x with y
 *        up (row 0 of the map at the top), of the largest 0.5-degree bin of the angular
 *        amplitude density (the sum of |F| over the frequencies of each direction)
 * Needs a build with FFTW (libfftw3): LWT_ERR_UNSUPPORTED otherwise. The FFTs take about
 * 2 x 8 x nx x ny doubles of memory.
 */
typedef struct lwt_spatial_params {
    double Sal; /* metres; NaN when f does not fall to the threshold anywhere in the field */
    double Str; /* dimensionless */
    double Std; /* degrees; NaN for a flat surface */
} lwt_spatial_params;

/** Spatial parameters of the finite points of z (nx per row, ny rows), spacing dx, dy > 0,
 *  threshold 0 < s < 1 (0: 0.2). The result does not depend on threads (reserved, 0). */
LWT_API lwt_status lwt_spatial_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx,
                                              double dy, double s, int threads, lwt_spatial_params *out);

/* ------------------------------------------------------------------ more file readers */

/** Alicona .al3d ("AliconaImaging"): the depth image (float32, metres), spacing from
 *  PixelSizeXMeter/PixelSizeYMeter; depths at or above InvalidPixelValue are invalid (NaN). Same
 *  contract as lwt_surface_read; docs/FORMATS.md has the details. */
LWT_IO_API lwt_status lwt_surface_read_al3d(lwt_context *ctx, const char *path, lwt_surface *out);
/** Keyence .vk4 ("VK4_"): the first height image (16 or 32 bits) times the z length per digit,
 *  spacing from the x/y length per pixel (picometres in the file). Same contract as
 *  lwt_surface_read; docs/FORMATS.md has the details. */
LWT_IO_API lwt_status lwt_surface_read_vk4(lwt_context *ctx, const char *path, lwt_surface *out);
/* ------------------------------------------------------ checksums of files */

/** What the surface readers do with a file whose checksum does not match its data (X3P: the
 *  MD5 of main.xml in md5checksum.hex, MD5ChecksumPointData, MD5ChecksumValidPoints).
 *  ignore = 0 (the default): the file is refused, LWT_ERR_CHECKSUM. ignore = 1: it is read
 *  anyway and each mismatch is logged as a warning, "FILE: checksum mismatch ignored: ...";
 *  for published data sets whose checksum file is known to be wrong (lwt --ignore-checksum).
 *  Everything else is still checked (the zip's CRCs, sizes). A setting of the context, as the
 *  memory limit is, so that it reaches every reader a program calls. */
LWT_API lwt_status lwt_context_set_ignore_checksums(lwt_context *ctx, int ignore);
/** The setting of lwt_context_set_ignore_checksums (0 for ctx NULL). */
LWT_API int lwt_context_ignore_checksums(const lwt_context *ctx);

/* ------------------------------------------- more readers (appended; docs/FORMATS.md) */

/** Sensofar .plux (a zip: index.xml and the float32 heights of layer 0, micrometres; NaN not
 *  measured). Same contract as lwt_surface_read. */
LWT_IO_API lwt_status lwt_surface_read_plux(lwt_context *ctx, const char *path, lwt_surface *out);
/** Zygo .datx (HDF5: the surface dataset MetaData points to, its X/Y/Z converters and "No Data"
 *  value). Needs a build with libhdf5: LWT_ERR_UNSUPPORTED ("built without HDF5") otherwise.
 *  Same contract as lwt_surface_read. */
LWT_IO_API lwt_status lwt_surface_read_datx(lwt_context *ctx, const char *path, lwt_surface *out);

/* ------------------------------------------- per-axis levels (anisotropic) */

/** lwt_bands_resolve with levels per axis: `split` as lwt_bands_resolve makes it along the axis of
 *  the smaller spacing (its level numbers), and along the other axis the levels whose boundaries
 *  lie nearest (on a log scale) to the same wavelengths: lambda-s and lambda-c as requested (or
 *  the finer axis's boundaries when given as levels) and lambda-f = 2^(J+1) d. split.lambda_*
 *  are then the effective cutoffs of each axis, 2^A_k, 2^(B_k+1), 2^(J_k+1) times its spacing;
 *  each is within a factor sqrt(2) of the wavelength asked for unless a band is empty along an
 *  axis (a wavelength below twice that axis's spacing). Equal spacings give axes equal to the
 *  split's on both axes (the isotropic transform, the same bits). The size rule is per axis:
 *  2^(J_k+1) points along axis k. docs/SURFACE.md, "Bands" (anisotropic spacing). */
LWT_API lwt_status lwt_bands_resolve_axes(lwt_context *ctx, const lwt_band_request *req, size_t nx, size_t ny,
                                          double dx, double dy, lwt_band_split *split, lwt_band_axes *axes);

/* ---------------------------------------------- ISO 25178-2 feature family */

/*
 * Watershed segmentation of the valid heights into dales (every point drained to the pit its
 * steepest descent, 8 neighbours, reaches) and hills (the same on -z), merged by Wolf pruning
 * (ISO 25178-2 5.3, ISO 16610-85's change tree): a motif whose local height (its pit to the
 * lowest saddle on its boundary; for a hill, its peak down to the highest) is below the
 * threshold (0 < pruning < 100 % of Sz; 0: ISO 25178-3's 5 %) joins the motif across that
 * saddle, smallest first. From the significant motifs, heights about the mean of the valid points:
 *   Spd   significant peaks (all hills, open ones too) per unit area of valid points, 1/m^2
 *   Spc   mean over those peaks of -(d2z/dx2 + d2z/dy2) / 2 by central differences, 1/m
 *         (peaks on the border or next to an invalid point have no curvature and are left out)
 *   S5p   mean height of the 5 highest peaks (fewer: of all), S5v mean depth of the 5 deepest
 *         pits, S10z = S5p + S5v, metres
 *   Sda, Sha  mean area of the closed dales, hills (not touching the field's border nor an
 *         invalid point): their points times dx dy, m^2
 *   Sdv, Shv  mean volume of the closed dales, hills: the sum over their points of the depth
 *         below (height above) the level of their saddle, times dx dy, m^3
 * Every valid field has a significant hill and dale (the highest and lowest are never pruned).
 * Undefined values are NaN: Spc without a peak whose 4 axis neighbours are valid, Sda ... Shv
 * without a closed motif. Invalid points belong to no motif and open the motifs next to them.
 * Ties in height are broken by the point index, so the result does not depend on threads.
 * docs/SURFACE.md, "Feature family", has the details.
 */
typedef struct lwt_feature_params {
    double Spd;                        /* 1/m^2 */
    double Spc;                        /* 1/m */
    double S10z, S5p, S5v;             /* metres */
    double Sda, Sha;                   /* m^2 */
    double Sdv, Shv;                   /* m^3 */
    size_t n_peaks, n_pits;            /* significant hills, dales */
    size_t n_closed_hills, n_closed_dales;
    double threshold;                  /* the Wolf pruning height used, metres */
} lwt_feature_params;

#define LWT_FEATURE_PARAM_COUNT 9
/** Name ("Spd", "Spc", "S10z", "S5p", "S5v", "Sda", "Sha", "Sdv", "Shv") of parameter k in the
 *  struct's order; NULL outside. */
LWT_API const char *lwt_feature_param_name(int k);
/** Value of parameter k; NaN outside 0..8. */
LWT_API double lwt_feature_param_value(const lwt_feature_params *p, int k);
/** Unit of parameter k: 'd' a density (1/m^2), 'c' a curvature (1/m), 'h' a height (m), 'a' an
 *  area (m^2), 'v' a volume (m^3); 0 outside. */
LWT_API char lwt_feature_param_unit(int k);
/** Feature parameters of the finite points of z (nx per row, ny rows, fewer than 2^31 points),
 *  spacing dx, dy > 0 (metres), Wolf pruning at pruning % of Sz (0: 5). threads: CPU threads,
 *  0 = default; the result does not depend on it. LWT_ERR_INVALID_ARGUMENT, LWT_ERR_NO_DATA (no
 *  valid point), LWT_ERR_OUT_OF_MEMORY. */
LWT_API lwt_status lwt_feature_params_compute(lwt_context *ctx, const double *z, size_t nx, size_t ny, double dx,
                                              double dy, double pruning, int threads, lwt_feature_params *out);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_H */
