/*
 * lwt.h - public API of liblwt, a generic lifting wavelet transform library.
 *
 * liblwt computes the same discrete wavelet transforms as PyWavelets
 * (pywt.wavedecn / pywt.waverecn) for every discrete wavelet and every
 * signal-extension mode, in 1, 2 and 3 dimensions, in float32 and float64.
 *
 * Usage is plan-based (as in FFTW or cuFFT):
 *
 *   lwt_context *ctx;   lwt_context_create(&ctx);
 *   lwt_wavelet *w;     lwt_wavelet_create(ctx, "cdf97", &w);
 *   lwt_plan_desc d = lwt_plan_desc_default();
 *   d.wavelet = w; d.ndim = 2; d.shape[0] = 480; d.shape[1] = 640;
 *   d.levels = 3; d.mode = LWT_MODE_SYMMETRIC; d.dtype = LWT_F64;
 *   lwt_plan *p;        lwt_plan_create(ctx, &d, &p);
 *   lwt_forward(p, image, coeffs, NULL);    // coeffs: lwt_plan_coeff_count(p) values
 *   lwt_inverse(p, coeffs, image, NULL);
 *   lwt_plan_destroy(p); lwt_wavelet_destroy(w); lwt_context_destroy(ctx);
 *
 * Rules:
 *  - Every function returns an lwt_status (values are pinned, never renumbered).
 *    Details of a failure go to the context's log callback; liblwt never prints.
 *  - Objects are immutable after creation. A plan may be executed from several
 *    threads at once as long as each call has its own output and workspace.
 *  - No global state: everything hangs off a context. A context must outlive
 *    the wavelets and plans made from it.
 */
#ifndef LWT_H
#define LWT_H

#include <stddef.h>

#include "lwt_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one place the version is written: CMakeLists.txt reads these three
 * lines for project(VERSION), the shared library's VERSION/SOVERSION, lwt.pc
 * and lwtConfigVersion.cmake. */
#define LWT_VERSION_MAJOR 0
#define LWT_VERSION_MINOR 1
#define LWT_VERSION_PATCH 0

/** "MAJOR.MINOR.PATCH" of the library actually linked. */
LWT_API const char *lwt_version_string(void);

/* ------------------------------------------------------------------ status */

typedef enum lwt_status {
    LWT_OK = 0,
    LWT_ERR_INVALID_ARGUMENT = 1,   /* NULL pointer, bad shape, bad level... */
    LWT_ERR_UNKNOWN_WAVELET = 2,
    LWT_ERR_UNKNOWN_MODE = 3,
    LWT_ERR_UNSUPPORTED = 4,        /* valid request this build cannot do */
    LWT_ERR_OUT_OF_MEMORY = 5,
    LWT_ERR_BACKEND_UNAVAILABLE = 6,/* e.g. cuda asked for, none present */
    LWT_ERR_DEVICE = 7,             /* a device (CUDA) call failed */
    LWT_ERR_ACCURACY = 8,           /* a scheme cannot meet its accuracy bound */
    LWT_ERR_INTERNAL = 9,
    LWT_ERR_IO = 10,                /* cannot open, read, write or rename a file */
    LWT_ERR_FORMAT = 11,            /* a file is corrupt, truncated, inconsistent or of an unsupported kind */
    LWT_ERR_CHECKSUM = 12,          /* a file's checksum does not match its data */
    LWT_ERR_NOT_AREAL = 13,         /* a surface file holds a profile or a point cloud, not an areal map */
    LWT_ERR_NO_DATA = 14            /* every point of a surface is invalid (not measured) */
} lwt_status;

/** Short English description of a status ("invalid argument", ...). */
LWT_API const char *lwt_status_string(lwt_status s);

/* ---------------------------------------------------------------- context */

typedef enum lwt_log_level {
    LWT_LOG_DEBUG = 0,
    LWT_LOG_INFO = 1,
    LWT_LOG_WARNING = 2,
    LWT_LOG_ERROR = 3
} lwt_log_level;

typedef void (*lwt_log_fn)(void *user, lwt_log_level level, const char *message);

typedef struct lwt_context lwt_context;

LWT_API lwt_status lwt_context_create(lwt_context **out);
LWT_API void lwt_context_destroy(lwt_context *ctx); /* NULL is a no-op */
/** Messages (errors with details, warnings) go to fn; NULL drops them. */
LWT_API lwt_status lwt_context_set_log(lwt_context *ctx, lwt_log_fn fn, void *user);
/** Pass one message to the context's log callback (dropped when there is none or ctx is NULL),
 *  so that layers built on liblwt (the surface file readers, language bindings) report where
 *  liblwt itself reports. */
LWT_API void lwt_context_log(const lwt_context *ctx, lwt_log_level level, const char *message);
/** CPU threads used by plans of this context; 0 = all available (default).
 *  Results are bit-identical for every thread count. */
LWT_API lwt_status lwt_context_set_threads(lwt_context *ctx, int threads);
/** Memory ceiling in bytes for data whose size an input declares (a file's header, an array's
 *  shape): the surface readers (lwt_surface.h) refuse a file whose data would need more, with
 *  LWT_ERR_OUT_OF_MEMORY and a message, before allocating it. 0 = no ceiling (default). The
 *  library never picks one itself: a program decides (lwt --max-memory). */
LWT_API lwt_status lwt_context_set_memory_limit(lwt_context *ctx, size_t bytes);
/** The ceiling set by lwt_context_set_memory_limit (0 = none, and for ctx NULL). */
LWT_API size_t lwt_context_memory_limit(const lwt_context *ctx);
/** Number of CUDA devices usable by this build (0 without CUDA). */
LWT_API int lwt_context_device_count(const lwt_context *ctx);

/* ------------------------------------------------------------------ modes */

/* PyWavelets' nine signal-extension modes, with PyWavelets' meaning. */
typedef enum lwt_mode {
    LWT_MODE_ZERO = 0,
    LWT_MODE_CONSTANT = 1,
    LWT_MODE_SYMMETRIC = 2,      /* half-sample symmetric: x1 x0 | x0 x1 */
    LWT_MODE_REFLECT = 3,        /* whole-sample symmetric: x2 x1 | x0 x1 x2 */
    LWT_MODE_PERIODIC = 4,
    LWT_MODE_SMOOTH = 5,         /* first-order (linear) extrapolation */
    LWT_MODE_ANTISYMMETRIC = 6,
    LWT_MODE_ANTIREFLECT = 7,
    LWT_MODE_PERIODIZATION = 8   /* non-expansive periodic: ceil(n/2) outputs */
} lwt_mode;
#define LWT_MODE_COUNT 9

/** PyWavelets mode name ("symmetric", ...) to enum; LWT_ERR_UNKNOWN_MODE if none. */
LWT_API lwt_status lwt_mode_from_name(const char *name, lwt_mode *out);
LWT_API const char *lwt_mode_name(lwt_mode mode);

/* --------------------------------------------------------------- wavelets */

typedef struct lwt_wavelet lwt_wavelet;

/** How a wavelet is computed. */
typedef enum lwt_path {
    LWT_PATH_LIFTING = 0,     /* factored lifting scheme meets its bound */
    LWT_PATH_CONVOLUTION = 1  /* exact direct filter-bank fallback */
} lwt_path;

typedef struct lwt_wavelet_info {
    const char *name;          /* canonical PyWavelets name (or user name) */
    const char *family;        /* "haar", "db", "sym", "coif", "bior", "rbio", "dmey", "user" */
    int filter_length;         /* PyWavelets dec_len */
    int orthogonal;            /* 1 for orthogonal filter banks */
    int lifting_steps;         /* number of predict/update steps (0 if none) */
    lwt_path path_f64;         /* float64: lifting when the scheme meets its bound (then
                                  AUTO plans take it in every mode but those of
                                  lwt_wavelet_path), else the filter bank in every mode */
    lwt_path path_f32;         /* same for float32 */
    double lifting_error_f64;  /* measured max relative error of the lifting
                                  scheme vs the filter bank in float64 */
    double lifting_error_f32;  /* same for float32 arrays as the CPU runs them
                                  (float storage, double arithmetic) */
} lwt_wavelet_info;

/** Built-in catalog: every PyWavelets discrete wavelet plus the aliases
 *  cdf97 (bior4.4), cdf53 (bior2.2), d4 (db2), d8 (db4), d20 (db10). */
LWT_API int lwt_wavelet_catalog_count(void);
/** Name of catalog entry i (0 <= i < count), NULL outside. Aliases are not listed. */
LWT_API const char *lwt_wavelet_catalog_name(int i);

LWT_API lwt_status lwt_wavelet_create(lwt_context *ctx, const char *name, lwt_wavelet **out);
LWT_API void lwt_wavelet_destroy(lwt_wavelet *w); /* NULL is a no-op */
LWT_API lwt_status lwt_wavelet_get_info(const lwt_wavelet *w, lwt_wavelet_info *out);
/** The four PyWavelets filters, each filter_length taps (dec_lo, dec_hi, rec_lo, rec_hi). */
LWT_API lwt_status lwt_wavelet_filters(const lwt_wavelet *w, const double **dec_lo, const double **dec_hi,
                                       const double **rec_lo, const double **rec_hi);

/*
 * A user lifting scheme in the P/U/K form of seed 000 (GPCF-LWT, eqs. 12-15):
 *   split:      s[n] = x[2n], d[n] = x[2n+1]
 *   preprocess: s[n] -= sum_i u0.taps[i] * d[n + u0.start + i]       (if u0.ntaps)
 *   for k in 0..nsteps-1:
 *     predict:  d[n] -= sum_i p[k].taps[i] * s[n + p[k].start + i]
 *     update:   s[n] -= sum_i u[k].taps[i] * d[n + u[k].start + i]
 *   scale:      approximation = s / K, detail = K * d
 * An operator with ntaps = 0 is skipped. The equivalent filter bank is derived
 * from the scheme, and the transform follows PyWavelets' conventions for it
 * (output sizes, modes, packed layout) as if it were a PyWavelets wavelet.
 */
typedef struct lwt_laurent {
    int start;            /* index offset of taps[0] */
    int ntaps;
    const double *taps;
} lwt_laurent;

typedef struct lwt_puk_scheme {
    const char *name;     /* copied; may be NULL */
    lwt_laurent u0;
    int nsteps;
    const lwt_laurent *p; /* nsteps predict operators */
    const lwt_laurent *u; /* nsteps update operators */
    double K;
} lwt_puk_scheme;

LWT_API lwt_status lwt_wavelet_from_puk(lwt_context *ctx, const lwt_puk_scheme *scheme, lwt_wavelet **out);

/* ------------------------------------------------------------------ plans */

/* LWT_F16 (IEEE binary16) and LWT_BF16 (bfloat16): 16-bit storage of the input and the
   coefficients, computed in float32: the result is the float32 plan's on the input widened
   (exactly), each value rounded once to the 16-bit type, to nearest, ties to even (docs/API.md,
   "16-bit storage"); in memory, streamed (lwt_stream.h) and over MPI. Not yet by lwt_spread. */
typedef enum lwt_dtype { LWT_F32 = 0, LWT_F64 = 1, LWT_F16 = 2, LWT_BF16 = 3 } lwt_dtype;

/** The path LWT_ALGO_AUTO plans of w take in (mode, dtype): lifting where the scheme's
 *  measured error meets the wavelet's bound in that mode, else the filter bank (the table
 *  and the rule: docs/ACCURACY.md). User P/U/K wavelets: always lifting (the scheme is
 *  their definition). The same on every backend. */
LWT_API lwt_status lwt_wavelet_path(const lwt_wavelet *w, lwt_mode mode, lwt_dtype dtype, lwt_path *out);

typedef enum lwt_backend {
    LWT_BACKEND_AUTO = 0, /* CUDA when a device is present, else CPU */
    LWT_BACKEND_CPU = 1,
    LWT_BACKEND_CUDA = 2
} lwt_backend;

typedef enum lwt_algorithm {
    LWT_ALGO_AUTO = 0,        /* per wavelet, mode and dtype from a measured table: lifting
                                 where it meets the wavelet's bound, else convolution
                                 (lwt_wavelet_path; docs/ACCURACY.md) */
    LWT_ALGO_LIFTING = 1,     /* lifting; fails with LWT_ERR_ACCURACY if it cannot meet the bound */
    LWT_ALGO_CONVOLUTION = 2, /* direct filter bank (Mallat) */
    /* Lifting with a chosen kernel arrangement (seed 000's comparison; lwt_plan_explain
       shows what a plan runs). AUTO and LIFTING on the GPU run 2-D levels as LBB where
       its register kernel has the scheme's shape (Haar, D4, D8, D20, CDF 5/3, CDF 9/7
       and any scheme shaped like one; measured fastest), else the separable passes
       (RC); on the CPU they run RC. Value 5 is an experimental arrangement
       (lwt_experimental.h). */
    LWT_ALGO_LIFTING_RC = 3,  /* one pass per axis through global memory (row, then column kernel),
                                 each pass one kernel with its lines in on-chip memory: the seed's
                                 "RC&LB" (van der Laan et al. 2011) */
    LWT_ALGO_LIFTING_LBB = 4  /* 2-D levels in one sliding-window pass (seed 000's LBB model), on
                                 the GPU and the CPU; other plans run as LIFTING */
} lwt_algorithm;

#define LWT_LEVELS_MAX (-1)   /* plan_desc.levels: PyWavelets' dwtn_max_level */
#define LWT_MAX_NDIM 3

/*
 * What to plan. Fill it from lwt_plan_desc_default(), never from zeros: `size`
 * tells lwt_plan_create which version of this struct a program was built with,
 * so that fields added at the end in later versions get their defaults for
 * binaries built against an older header. Tuning knobs for experiments are not
 * here but in lwt_experimental.h.
 */
typedef struct lwt_plan_desc {
    size_t size;                  /* sizeof(lwt_plan_desc), set by lwt_plan_desc_default() */
    const lwt_wavelet *wavelet;
    int ndim;                     /* 1..3 */
    size_t shape[LWT_MAX_NDIM];   /* C order, every entry >= 1 */
    int levels;                   /* >= 0, or LWT_LEVELS_MAX */
    lwt_mode mode;
    lwt_dtype dtype;
    lwt_backend backend;
    int device;                   /* CUDA device ordinal */
    lwt_algorithm algorithm;
    size_t batch;                 /* independent arrays, stored one after another; >= 1 */
} lwt_plan_desc;

/** A desc with defaults: ndim 1, levels max, symmetric, f64, auto, batch 1. */
LWT_API lwt_plan_desc lwt_plan_desc_default(void);

typedef struct lwt_plan lwt_plan;

LWT_API lwt_status lwt_plan_create(lwt_context *ctx, const lwt_plan_desc *desc, lwt_plan **out);
LWT_API void lwt_plan_destroy(lwt_plan *plan); /* NULL is a no-op */

/** PyWavelets' dwt_max_level(n, filter_length) for one axis length. */
LWT_API int lwt_max_level(size_t n, int filter_length);

typedef struct lwt_plan_info {
    int ndim;
    size_t shape[LWT_MAX_NDIM];
    int levels;                  /* resolved level count */
    int max_level;               /* PyWavelets' dwtn_max_level for this shape */
    size_t packed_shape[LWT_MAX_NDIM]; /* shape of pywt.coeffs_to_array(...)[0] */
    size_t input_count;          /* values per batch item on the signal side */
    size_t coeff_count;          /* values per batch item on the coefficient side */
    lwt_backend backend;         /* resolved backend */
    lwt_path path;               /* resolved computation path */
    size_t workspace_bytes;      /* host workspace of lwt_forward/lwt_inverse (0 for float32/float64
                                    CUDA plans; a float16/bfloat16 plan's holds its float32 input and
                                    output as well, on either backend) */
} lwt_plan_info;

LWT_API lwt_status lwt_plan_get_info(const lwt_plan *plan, lwt_plan_info *out);

/*
 * A band of the packed layout: level 0 is the approximation cA_J, levels
 * 1..J are detail levels from coarsest (1 = level J) to finest (J = level 1),
 * i.e. the index into the list returned by pywt.wavedecn. band_mask has bit k
 * set when axis k is a detail ('d') axis ('da' in 2-D = mask 1); it must be 0
 * for level 0 and non-zero otherwise.
 */
typedef struct lwt_band {
    size_t offset[LWT_MAX_NDIM]; /* position in the packed array */
    size_t shape[LWT_MAX_NDIM];
} lwt_band;

LWT_API lwt_status lwt_plan_band(const lwt_plan *plan, int level, unsigned band_mask, lwt_band *out);

/*
 * Execute. Arrays are C-order, dtype as planned, batch items one after another
 * (input_count or coeff_count values each). The coefficient side holds the
 * PyWavelets packed layout, coeffs_to_array(wavedecn(x))[0], with zeros in
 * the gaps PyWavelets pads with. workspace: at least workspace_bytes, not
 * shared with a concurrent call; or NULL: the plan's own, made by the first
 * call without one and kept until lwt_plan_destroy (a call that finds it in
 * use by another thread allocates one for itself), so repeated calls on one
 * thread allocate nothing.
 * A CUDA plan called on host pointers copies in and out through device
 * buffers it allocates on its first such call and keeps until
 * lwt_plan_destroy (input, output and the device workspace of lwt_cuda.h),
 * so later calls allocate nothing; such calls to one CUDA plan run one at a
 * time and take no host workspace (workspace_bytes is 0; lwt_cuda.h runs on
 * device pointers with the caller's workspace and stream), except for the
 * float32 input and output of a float16/bfloat16 plan, converted on the host.
 */
LWT_API lwt_status lwt_forward(const lwt_plan *plan, const void *input, void *coeffs, void *workspace);
/** Inverse: output has input_count values per batch item (waverecn, cropped to shape). */
LWT_API lwt_status lwt_inverse(const lwt_plan *plan, const void *coeffs, void *output, void *workspace);

/*
 * What a plan runs, decided when it was made: one line per step, forward
 * levels first (1 to J), then the inverse (J to 1), each naming the level,
 * the axes, the kernel or pass and where the bands go, e.g.
 *   forward level 1 axes 0,1: sliding-window level (cpu) -> bands to the packed array, cA to the workspace
 * Writes at most len bytes (always NUL-terminated when len > 0) and stores in
 * *needed the length of the whole text plus 1 (NULL: not wanted), so a first
 * call with len 0 sizes the buffer. The text is for people; its wording may
 * change between versions.
 */
LWT_API lwt_status lwt_plan_explain(const lwt_plan *plan, char *buf, size_t len, size_t *needed);

#ifdef __cplusplus
}
#endif
#endif /* LWT_H */
