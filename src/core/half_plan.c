/*
 * float16 and bfloat16 plans, first version (docs/API.md, "16-bit storage"): the
 * float32 plan of the same description, run between two conversions. The 16-bit
 * input is widened (exactly) into a float32 buffer, the float32 plan transforms
 * it into a second one, and each result is rounded once to the 16-bit type
 * (core/half.h). So the result is the definition of a 16-bit transform by
 * construction; fused 16-bit kernels that halve the bytes moved come later and
 * must give the same bits.
 *
 * Workspace (host here, device in src/cuda/cuda_half.cu): the float32 input, the
 * float32 output (lwt_half_buf_bytes each), then the float32 plan's own.
 */
#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/context.h"
#include "core/half.h"
#include "core/plan.h"

lwt_status lwt_half_plan_create(lwt_context *ctx, const lwt_plan_desc *d, const lwt_plan_tuning *tuning,
                                lwt_plan **out)
{
    lwt_plan_desc d32 = *d;
    d32.dtype = LWT_F32;
    lwt_plan *f32;
    lwt_status st = lwt_plan_create_tuned(ctx, &d32, tuning, &f32);
    if (st)
        return st;
    lwt_plan *p = calloc(1, sizeof *p);
    if (!p) {
        lwt_plan_destroy(f32);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_plan_create: out of memory");
    }
    lwt_ws_cache_init(&p->ws);
    p->ctx = ctx;
    p->desc = *d;
    p->desc.wavelet = &f32->wavelet;
    p->f32 = f32;
    p->half_fused = f32->ops->half_fused ? f32->ops->half_fused(f32) : 0;
    *out = p;
    return LWT_OK;
}

/* float32 values of the larger side (input or coefficients) of the whole batch, in bytes,
   rounded up to 256 so that what follows stays aligned for any kernel */
size_t lwt_half_buf_bytes(const lwt_plan *p)
{
    const lwt_plan *q = p->f32;
    const size_t n = (q->input_count > q->coeff_count ? q->input_count : q->coeff_count) * q->desc.batch;
    return (n * sizeof(float) + 255) / 256 * 256;
}

size_t lwt_half_workspace_size(const lwt_plan *p)
{
    return 2 * lwt_half_buf_bytes(p) + p->f32->ops->workspace_size(p->f32);
}

/* threads of a conversion: the context's count (0 = all), one below 2^16 values; each value is
   converted on its own, so the bits do not depend on it */
static int conversion_threads(const lwt_plan *p, size_t n)
{
#ifdef _OPENMP
    if (n >= ((size_t)1 << 16))
        return p->ctx && p->ctx->threads > 0 ? p->ctx->threads : omp_get_max_threads();
#endif
    (void)p, (void)n;
    return 1;
}

/* The conversion loops, one per type so that each is a straight loop the compiler vectorizes
 * (half.h's functions are branch-free; this file is compiled with -fno-trapping-math, which
 * lets the float16 widening's select compute both sides: it changes no value, only what the
 * compiler may assume about floating-point traps). Cloned per instruction set: the float16
 * narrowing's subnormal shifts vary per value, which only AVX2 has in vector form. Each value
 * is converted on its own, so every clone and thread count gives the same bits. Measured on
 * the 2-core development VM (x86, AVX2), one thread, per value: float16 widening 2.3 -> 0.52
 * ns (the loop vectorizes now), narrowing 1.74 -> 1.47 ns (AVX2 clone; half.h's rounding
 * shift and NaN mask written so that it vectorizes); bfloat16 ~0.6 ns both ways, as before.
 * The new narrowing gives the old one's bits for all 2^32 float32 values (checked once). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define LWT_HALF_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LWT_HALF_CLONES
#endif

/* one straight loop per conversion (in and out never overlap) */
#define CONVERT_LOOP(name, from_t, to_t, convert)                                                      \
    LWT_HALF_CLONES static void name(const void *in, void *out, long long n)                         \
    {                                                                                                 \
        const from_t *restrict x = in;                                                                \
        to_t *restrict y = out;                                                                       \
        for (long long i = 0; i < n; i++)                                                             \
            y[i] = convert(x[i]);                                                                     \
    }
CONVERT_LOOP(widen_f16, uint16_t, float, lwt_f16_to_f32)
CONVERT_LOOP(widen_bf16, uint16_t, float, lwt_bf16_to_f32)
CONVERT_LOOP(narrow_f16_loop, float, uint16_t, lwt_f32_to_f16)
CONVERT_LOOP(narrow_bf16, float, uint16_t, lwt_f32_to_bf16)

/* The float16 rounding by the x86 F16C instruction where the CPU has it: vcvtps2ph with the
 * rounding in the instruction (to nearest even; not MXCSR's mode), 8 values an instruction. It
 * gives half.h's bits for all 2^32 float32 values, NaN included (quieted, the top payload bits
 * kept, as half.h does; checked once, 2026-11-27, with the default MXCSR). Measured on the 2-core
 * development VM (AMD EPYC), float16 CDF 9/7 4096^2 4 levels on the CPU, both threads: see
 * docs/PERFORMANCE.md, "16-bit storage on the CPU". The widening stays the loop above: the
 * hardware's would quiet signalling NaNs, which the definition keeps. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#include <immintrin.h>
__attribute__((target("avx,f16c"))) static void narrow_f16_f16c(const void *in, void *out, long long n)
{
    const float *x = in;
    uint16_t *y = out;
    long long i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(y + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++)
        y[i] = lwt_f32_to_f16(x[i]);
}

static void narrow_f16(const void *in, void *out, long long n)
{
    if (__builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx"))
        narrow_f16_f16c(in, out, n);
    else
        narrow_f16_loop(in, out, n);
}
#else
#define narrow_f16 narrow_f16_loop
#endif

/* where thread k of t starts among n values: a multiple of 64 values, so the vector loops see
   long aligned runs, and never past n */
static long long part(size_t n, int t, int k)
{
    const long long at = ((long long)n * k / t + 63) & ~63LL;
    return at < (long long)n ? at : (long long)n;
}

/* n values from in (in_es bytes each) to out (out_es bytes each) by loop, over the threads */
static void convert(const lwt_plan *p, void (*loop)(const void *, void *, long long), const void *in, size_t in_es,
                    void *out, size_t out_es, size_t n)
{
    const int t = conversion_threads(p, n);
#pragma omp parallel for num_threads(t) schedule(static)
    for (int k = 0; k < t; k++) {
        const long long a = part(n, t, k), b = k + 1 < t ? part(n, t, k + 1) : (long long)n;
        if (a < b)
            loop((const char *)in + (size_t)a * in_es, (char *)out + (size_t)a * out_es, b - a);
    }
}

void lwt_half_widen(lwt_dtype dt, const uint16_t *in, float *out, size_t n)
{
    (dt == LWT_BF16 ? widen_bf16 : widen_f16)(in, out, (long long)n);
}

void lwt_half_narrow(lwt_dtype dt, const float *in, uint16_t *out, size_t n)
{
    (dt == LWT_BF16 ? narrow_bf16 : narrow_f16)(in, out, (long long)n);
}

void lwt_half_identity(lwt_dtype dt, const uint16_t *in, uint16_t *out, size_t n)
{
    float buf[1024];
    for (size_t at = 0; at < n; at += 1024) {
        const size_t k = n - at < 1024 ? n - at : 1024;
        lwt_half_widen(dt, in + at, buf, k);
        lwt_half_narrow(dt, buf, out + at, k);
    }
}

static void widen(const lwt_plan *p, const uint16_t *in, float *out, size_t n)
{
    convert(p, p->desc.dtype == LWT_BF16 ? widen_bf16 : widen_f16, in, 2, out, 4, n);
}

static void narrow(const lwt_plan *p, const float *in, uint16_t *out, size_t n)
{
    convert(p, p->desc.dtype == LWT_BF16 ? narrow_bf16 : narrow_f16, in, 4, out, 2, n);
}

/* lwt_forward/lwt_inverse on host pointers, on either backend: the conversions run here
   and the float32 plan takes host pointers (a CUDA one copies through its device buffers) */
lwt_status lwt_half_execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    const lwt_plan *q = p->f32;
    /* fused levels (a CUDA plan, backend_ops.half_fused): the backend takes the 16-bit arrays
       as they are, half the bytes over the bus, and runs the fused levels on them */
    if (p->half_fused)
        return q->ops->execute(p, in, out, workspace, inverse);
    const size_t B = q->desc.batch;
    const size_t nin = (inverse ? q->coeff_count : q->input_count) * B;
    const size_t nout = (inverse ? q->input_count : q->coeff_count) * B;
    const size_t bytes = lwt_half_workspace_size(p), buf = lwt_half_buf_bytes(p);
    int held = 0;
    char *ws = workspace ? workspace : lwt_ws_borrow(&((lwt_plan *)p)->ws, bytes, &held);
    if (!ws)
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot allocate a %zu-byte workspace", bytes);
    float *x = (float *)ws, *y = (float *)(ws + buf);
    void *inner_ws = q->ops->workspace_size(q) ? ws + 2 * buf : NULL;
    widen(p, in, x, nin);
    lwt_status st = inverse ? lwt_inverse(q, x, y, inner_ws) : lwt_forward(q, x, y, inner_ws);
    if (st == LWT_OK)
        narrow(p, y, out, nout);
    if (!workspace)
        lwt_ws_return(&((lwt_plan *)p)->ws, ws, held);
    return st;
}
