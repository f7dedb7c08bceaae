/*
 * Wavelets: the built-in catalog (PyWavelets' discrete wavelets plus the seed
 * aliases) and user P/U/K schemes. Creating a wavelet factors its filter bank
 * into lifting steps and measures the scheme; lifting is used for a dtype only
 * when its measured error stays well inside the test bounds, otherwise the
 * exact direct filter bank is used ("fallback"), so no wavelet loses accuracy.
 * A wavelet that lifts may still take the filter bank in some modes: the
 * measured table core/path_table.h (lwt_wavelet_auto_path; docs/ACCURACY.md).
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/path_table.h"
#include "core/wavelet.h"
#include "core/wavelet_table.h"

/*
 * Acceptance of a lifting scheme, per dtype, as relative error of one level
 * (forward and inverse) against the filter bank. The end-to-end bounds are
 * 1e-12 (float64) and 1e-5 (float32) over up to three dimensions and many
 * levels, where errors add up; a 20x margin keeps lifting well inside them.
 * A filter table that is itself perfectly reconstructing only to e (some
 * PyWavelets tables, e ~ 1e-11) cannot be matched better than e by any
 * scheme, and its bound is 10x e, so 2e is accepted there.
 */
#define ACCEPT_F64 LWT_ACCEPT_F64
#define ACCEPT_F32 LWT_ACCEPT_F32

static const struct { const char *alias, *name; } aliases[] = {
    {"cdf97", "bior4.4"}, {"cdf53", "bior2.2"}, {"d4", "db2"}, {"d8", "db4"}, {"d20", "db10"},
};

int lwt_wavelet_catalog_count(void) { return lwt_table_wavelet_count; }

const char *lwt_wavelet_catalog_name(int i)
{
    if (i < 0 || i >= lwt_table_wavelet_count)
        return NULL;
    return lwt_table_wavelets[i].name;
}

static size_t wrap(long i, size_t n)
{
    long m = i % (long)n;
    return (size_t)(m < 0 ? m + (long)n : m);
}

/* PR error of dec/rec on a periodic signal, in long double (uniform alignment:
 * forward y[2k+1-j], inverse x[2i+e+2-F]). */
static double table_pr_error(const lwt_wavelet *w)
{
    enum { N = 512 };
    long double y[N], ca[N / 2], cd[N / 2];
    unsigned long long st = 12345;
    long double ymax = 0;
    for (int i = 0; i < N; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        y[i] = (long double)(st >> 11) / 9007199254740992.0L - 0.5L;
        if (fabsl(y[i]) > ymax) ymax = fabsl(y[i]);
    }
    int F = w->length;
    for (int k = 0; k < N / 2; k++) {
        long double a = 0, d = 0;
        for (int j = 0; j < F; j++) {
            a += w->dec_lo[j] * y[wrap(2L * k + 1 - j, N)];
            d += w->dec_hi[j] * y[wrap(2L * k + 1 - j, N)];
        }
        ca[k] = a;
        cd[k] = d;
    }
    long double err = 0;
    for (int i = 0; i < N / 2; i++)
        for (int e = 0; e < 2; e++) {
            long double x = 0;
            for (int j = 0; j < F / 2; j++)
                x += w->rec_lo[2 * j + e] * ca[wrap(i - j, N / 2)] + w->rec_hi[2 * j + e] * cd[wrap(i - j, N / 2)];
            long double d = fabsl(x - y[wrap(2L * i + e + 2 - F, N)]);
            if (d > err) err = d;
        }
    return (double)(err / ymax);
}

static void choose_paths(lwt_wavelet *w)
{
    w->table_pr_err = table_pr_error(w);
    double a64 = ACCEPT_F64, a32 = ACCEPT_F32;
    if (2 * w->table_pr_err > a64)
        a64 = 2 * w->table_pr_err;
    w->path64 = w->has_scheme && w->err64 <= a64 ? LWT_PATH_LIFTING : LWT_PATH_CONVOLUTION;
    /* float32 arrays are transformed in double precision and rounded on
       store (cpu_pass_tmpl.h); err32 is measured that way */
    w->path32 = w->path64 == LWT_PATH_LIFTING && w->err32 <= a32 ? LWT_PATH_LIFTING : LWT_PATH_CONVOLUTION;
}

/* the measured per-mode exceptions of a built-in wavelet (none for user schemes) */
static void mode_paths(lwt_wavelet *w)
{
    for (int i = 0; i < lwt_path_row_count; i++)
        if (strcmp(w->name, lwt_path_rows[i].name) == 0) {
            w->fb_modes64 = lwt_path_rows[i].f64;
            w->fb_modes32 = lwt_path_rows[i].f32;
        }
}

lwt_path lwt_wavelet_auto_path(const lwt_wavelet *w, lwt_mode mode, lwt_dtype dtype, lwt_path_reason *why)
{
    const int f32 = dtype == LWT_F32;
    lwt_path_reason r = LWT_PATH_WHY_LIFTING;
    if ((f32 ? w->path32 : w->path64) != LWT_PATH_LIFTING)
        r = LWT_PATH_WHY_NO_SCHEME;
    else if ((unsigned)mode < LWT_MODE_COUNT && ((f32 ? w->fb_modes32 : w->fb_modes64) & LWT_MODE_BIT(mode)))
        r = LWT_PATH_WHY_MODE;
    if (why)
        *why = r;
    return r == LWT_PATH_WHY_LIFTING ? LWT_PATH_LIFTING : LWT_PATH_CONVOLUTION;
}

lwt_status lwt_wavelet_path(const lwt_wavelet *w, lwt_mode mode, lwt_dtype dtype, lwt_path *out)
{
    if (!w || !out || (unsigned)mode >= LWT_MODE_COUNT || (unsigned)dtype > LWT_BF16)
        return LWT_ERR_INVALID_ARGUMENT;
    if (dtype == LWT_F16 || dtype == LWT_BF16) /* computed by the float32 plan (core/half_plan.c) */
        dtype = LWT_F32;
    *out = lwt_wavelet_auto_path(w, mode, dtype, NULL);
    return LWT_OK;
}

static const lwt_table_wavelet *find_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            name = aliases[i].name;
    for (int i = 0; i < lwt_table_wavelet_count; i++)
        if (strcmp(name, lwt_table_wavelets[i].name) == 0)
            return &lwt_table_wavelets[i];
    return NULL;
}

lwt_status lwt_wavelet_create(lwt_context *ctx, const char *name, lwt_wavelet **out)
{
    if (!name || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_create: NULL argument");
    *out = NULL;
    const lwt_table_wavelet *t = find_builtin(name);
    if (!t)
        return lwt_fail(ctx, LWT_ERR_UNKNOWN_WAVELET,
                        "unknown wavelet '%s' (see 'lwt info' for the list)", name);
    lwt_wavelet *w = calloc(1, sizeof *w);
    if (!w)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_wavelet_create: out of memory");
    snprintf(w->name, sizeof w->name, "%s", t->name);
    snprintf(w->family, sizeof w->family, "%s", t->family);
    w->orthogonal = t->orthogonal;
    w->length = t->length;
    memcpy(w->dec_lo, t->dec_lo, (size_t)t->length * sizeof(double));
    memcpy(w->dec_hi, t->dec_hi, (size_t)t->length * sizeof(double));
    memcpy(w->rec_lo, t->rec_lo, (size_t)t->length * sizeof(double));
    memcpy(w->rec_hi, t->rec_hi, (size_t)t->length * sizeof(double));
    lwt_filter_bank fb = lwt_wavelet_bank(w);
    w->has_scheme = lwt_factor_filter_bank(&fb, &w->scheme, &w->err64, &w->err32) == 0;
    if (!w->has_scheme)
        w->err64 = w->err32 = INFINITY;
    w->err32_arith = w->has_scheme ? lwt_scheme_measure_f32_arith(&w->scheme, &fb) : INFINITY;
    choose_paths(w);
    mode_paths(w);
    *out = w;
    return LWT_OK;
}

void lwt_wavelet_destroy(lwt_wavelet *w) { free(w); }

lwt_status lwt_wavelet_get_info(const lwt_wavelet *w, lwt_wavelet_info *out)
{
    if (!w || !out)
        return LWT_ERR_INVALID_ARGUMENT;
    out->name = w->name;
    out->family = w->family;
    out->filter_length = w->length;
    out->orthogonal = w->orthogonal;
    out->lifting_steps = w->has_scheme ? w->scheme.nsteps : 0;
    out->path_f64 = w->path64;
    out->path_f32 = w->path32;
    out->lifting_error_f64 = w->err64;
    out->lifting_error_f32 = w->err32;
    return LWT_OK;
}

lwt_status lwt_wavelet_filters(const lwt_wavelet *w, const double **dec_lo, const double **dec_hi,
                               const double **rec_lo, const double **rec_hi)
{
    if (!w)
        return LWT_ERR_INVALID_ARGUMENT;
    if (dec_lo) *dec_lo = w->dec_lo;
    if (dec_hi) *dec_hi = w->dec_hi;
    if (rec_lo) *rec_lo = w->rec_lo;
    if (rec_hi) *rec_hi = w->rec_hi;
    return LWT_OK;
}
