/*
 * half_ref.h - the 16-bit tests' own float16/bfloat16 conversions (test_half.c,
 * tests/gpu/test_gpu_half.c), written apart from the library's core/half.h: with
 * frexp, ldexp and nearbyint in double instead of bit manipulation. Header-only.
 */
#ifndef LWT_TEST_HALF_REF_H
#define LWT_TEST_HALF_REF_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "lwt.h"
#include "lwt_experimental.h"

/* a binary format: significand bits after the point, exponent bits */
typedef struct fmt {
    const char *name;
    lwt_dtype dt;
    int mant, ebits;
} fmt;

static const fmt F16 = {"float16", LWT_F16, 10, 5}, BF16 = {"bfloat16", LWT_BF16, 7, 8};

static int bias(const fmt *f)
{
    return (1 << (f->ebits - 1)) - 1;
}

static double max_finite(const fmt *f)
{
    return ldexp(2.0 - ldexp(1.0, -f->mant), bias(f));
}

/* v rounded to the format, to nearest, ties to even (the default rounding mode of nearbyint) */
static double ref_round(const fmt *f, double v)
{
    if (isnan(v) || isinf(v) || v == 0)
        return v;
    int e;
    frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
    int lead = e - 1;
    if (lead < 1 - bias(f))
        lead = 1 - bias(f); /* subnormal: the spacing of the first normal binade */
    const double ulp = ldexp(1.0, lead - f->mant);
    const double q = nearbyint(v / ulp) * ulp;
    return fabs(q) > max_finite(f) ? copysign(INFINITY, v) : q;
}

static double ref_decode(const fmt *f, uint16_t b)
{
    const int e = (b >> f->mant) & ((1 << f->ebits) - 1);
    const int m = b & ((1 << f->mant) - 1);
    const double s = (b >> 15) ? -1.0 : 1.0;
    if (e == (1 << f->ebits) - 1)
        return m ? NAN : s * INFINITY;
    if (e == 0)
        return s * ldexp(m, 1 - bias(f) - f->mant);
    return s * ldexp(1.0 + ldexp(m, -f->mant), e - bias(f));
}

/* q must be representable (ref_round's result); NaN: a quiet NaN (same_bits takes any NaN) */
static uint16_t ref_encode(const fmt *f, double q)
{
    const uint16_t s = signbit(q) ? 0x8000 : 0;
    const uint16_t inf = (uint16_t)(((1 << f->ebits) - 1) << f->mant);
    if (isnan(q))
        return s | inf | (uint16_t)(1 << (f->mant - 1));
    if (isinf(q))
        return s | inf;
    q = fabs(q);
    if (q == 0)
        return s;
    int e;
    frexp(q, &e);
    const int lead = e - 1;
    if (lead < 1 - bias(f))
        return s | (uint16_t)ldexp(q, bias(f) - 1 + f->mant);
    return s | (uint16_t)((lead + bias(f)) << f->mant) | (uint16_t)ldexp(q / ldexp(1.0, lead) - 1.0, f->mant);
}

/* the same value bits, any NaN for a NaN (the definition keeps NaN a NaN, not its payload) */
static int same_bits(const fmt *f, uint16_t a, uint16_t b)
{
    return a == b || (isnan(ref_decode(f, a)) && isnan(ref_decode(f, b)));
}

/* the definition's two ends: 16-bit values widened to float32; float32 results rounded */
static void ref_widen(const fmt *f, const uint16_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (float)ref_decode(f, in[i]);
}

static void ref_narrow(const fmt *f, const float *in, uint16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = ref_encode(f, ref_round(f, in[i]));
}

/* n random 16-bit values in [-8, 8) with every exponent down to 2^-20 */
static void ref_random(const fmt *f, uint16_t *x, size_t n, unsigned long long seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(seed >> 11) / 9007199254740992.0;
        x[i] = ref_encode(f, ref_round(f, ldexp(u - 0.5, 4 - (int)((seed >> 3) % 24))));
    }
}

/* a plan of the tests' cases; NULL when refused */
static lwt_plan *half_test_plan(lwt_context *ctx, const lwt_wavelet *w, int nd, const size_t *shape, int levels,
                                lwt_mode mode, lwt_dtype dt, size_t batch, lwt_backend backend, lwt_algorithm algo,
                                int batch_items)
{
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = nd;
    for (int k = 0; k < LWT_MAX_NDIM; k++)
        d.shape[k] = shape[k];
    d.levels = levels;
    d.mode = mode;
    d.dtype = dt;
    d.batch = batch;
    d.backend = backend;
    d.algorithm = algo;
    lwt_plan_tuning t = lwt_plan_tuning_default();
    t.batch_items = batch_items; /* 1: a batch's arrays one after the other */
    lwt_plan *p = NULL;
    return lwt_plan_create_tuned(ctx, &d, &t, &p) == LWT_OK ? p : NULL;
}

#endif
