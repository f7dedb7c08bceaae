/*
 * float16 (IEEE binary16) and bfloat16 storage: the one conversion source of
 * the CPU and the GPU (nvcc compiles these same functions for the device), so
 * a 16-bit plan gives the same bits on both.
 *
 * Widening is exact: every float16 and bfloat16 value is a float32 value.
 * Narrowing rounds once to nearest, ties to even, the way IEEE 754 and numpy's
 * astype(float16) do: values past the largest finite one (or at its halfway
 * point to the next power of two) become +-inf, NaN stays NaN (quiet, sign
 * and high payload bits kept), subnormals are kept, not flushed. Done on the
 * bits rather than with the FPU so that no rounding mode, flush-to-zero flag
 * or compiler contraction can change the result.
 */
#ifndef LWT_CORE_HALF_H
#define LWT_CORE_HALF_H

#include <stdint.h>
#include <string.h>

#include "core/hd.h"

LWT_HD uint32_t lwt_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

LWT_HD float lwt_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Both directions are written as
   selects, not branches, so that loops over them vectorize and no branch depends on the data
   (with branches: 8 ns a value narrowing random data, x86; 2.3 ns branch-free per case). */
LWT_HD float lwt_f16_to_f32_soft(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t bits = (uint32_t)(h & 0x7fffu) << 13, e = bits & 0x0f800000u;
    /* normal: the exponent rebiased (127 - 15 = 112); inf and NaN: to 255, payload kept */
    const uint32_t o = bits + (112u << 23) + (e == 0x0f800000u ? 112u << 23 : 0u);
    /* zero and subnormal m 2^-24: (2^-14 + m 2^-24) - 2^-14, an exact subtraction of normal
       float32 values, so no rounding mode or flush-to-zero flag changes it */
    const float sub = lwt_f32_from_bits(o + (1u << 23)) - lwt_f32_from_bits(113u << 23);
    return lwt_f32_from_bits((e ? o : lwt_f32_bits(sub)) | sign);
}

/* m >> s rounded to nearest, ties to even (1 <= s <= 31, m + 2^(s-1) < 2^32): just under half a
   unit added, plus the kept lowest bit, so a tie carries only from an odd unit. Plain integer
   arithmetic (no comparison turned into a bool) so that a loop over it vectorizes. */
LWT_HD uint32_t lwt_shift_rne(uint32_t m, unsigned s)
{
    return (m + (1u << (s - 1)) - 1u + ((m >> s) & 1u)) >> s;
}

LWT_HD uint16_t lwt_f32_to_f16_soft(float f)
{
    const uint32_t x = lwt_f32_bits(f), a = x & 0x7fffffffu, e = a >> 23;
    /* normal (>= 2^-14): rebiased, and rounded by adding just under half a unit plus the kept
       lowest bit, so a tie carries only from an odd unit; a carry out of the mantissa bumps the
       exponent */
    const uint32_t normal = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
    /* subnormal or zero: the value (mantissa with its implicit bit) x 2^(e - 150) in units of
       2^-24 is that mantissa >> (126 - e); below 2^-25 (e < 102) a shift of 25 gives 0, as it
       must (the halfway point 2^-25 itself is a tie to 0); 2^-14 comes out of a carry as the
       first normal */
    const unsigned s = e < 102 ? 25u : e > 112 ? 14u : 126u - e;
    const uint32_t subnormal = lwt_shift_rne((a & 0x7fffffu) | 0x800000u, s);
    uint32_t r = a >= 0x38800000u ? normal : subnormal;
    r = a >= 0x477ff000u ? 0x7c00u : r; /* >= 65520, halfway from 65504 (odd) to 2^16: inf */
    /* NaN: the high payload bits kept, and quiet so that it cannot read as inf (as a mask: a
       third select in a row kept gcc from vectorizing the loop) */
    const uint32_t nan = 0u - (uint32_t)(a > 0x7f800000u);
    r = (r & ~nan) | ((0x7e00u | ((a >> 13) & 0x3ffu)) & nan);
    return (uint16_t)(((x >> 16) & 0x8000u) | r);
}

/* The float16 conversions every caller uses. On the GPU, the hardware's (one instruction each:
 * cvt.rn.f16.f32 rounds to nearest even, to inf past the range, keeps subnormals, as the soft
 * ones do; cvt.f32.f16 is exact), except for NaN, where the hardware's canonical NaN would lose
 * the payload: the soft result, written out. The same bits as the soft functions for all 2^32
 * float32 and 2^16 float16 values (tests/gpu/half_cvt_check.cu, on the device). Why: the fused
 * 16-bit kernels convert every value they load and store, and the soft narrowing's ~20 integer
 * instructions a value cost the float16 CDF 9/7 forward 0.26 ms of 1.38 against bfloat16 (H100,
 * 16384^2, 4 levels; docs/PERFORMANCE.md). Elsewhere (the host), the soft ones. */
LWT_HD float lwt_f16_to_f32(uint16_t h)
{
#if defined(__CUDA_ARCH__)
    float r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    /* a NaN keeps its sign and payload (the hardware gives its canonical NaN): the 16 bits
       moved to the top and shifted down 3 with their sign spread over bits 28-31, whose lower
       three the OR sets with the exponent's; tested on the NaN the conversion returns. Fewer
       instructions than the masks before (SASS: 9 a value); measured (H100, CDF 9/7 16384^2
       4 levels, float16): inverse 1.651 -> 1.632 ms, forward unchanged (1.088) */
    const uint32_t nan = (uint32_t)((int32_t)((uint32_t)h << 16) >> 3) | 0x70000000u;
    return r != r ? lwt_f32_from_bits(nan) : r;
#else
    return lwt_f16_to_f32_soft(h);
#endif
}

LWT_HD uint16_t lwt_f32_to_f16(float f)
{
#if defined(__CUDA_ARCH__)
    uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    const uint32_t x = lwt_f32_bits(f);
    const uint16_t nan = (uint16_t)(((x >> 16) & 0x8000u) | 0x7e00u | ((x >> 13) & 0x3ffu));
    return (x & 0x7fffffffu) > 0x7f800000u ? nan : h;
#else
    return lwt_f32_to_f16_soft(f);
#endif
}

/* bfloat16: the high half of a float32 (1 sign, 8 exponent, 7 mantissa bits) */
LWT_HD float lwt_bf16_to_f32(uint16_t b)
{
    return lwt_f32_from_bits((uint32_t)b << 16);
}

LWT_HD uint16_t lwt_f32_to_bf16_soft(float f)
{
    const uint32_t x = lwt_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet it, or dropping the low payload could leave inf */
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16); /* RNE on the dropped 16 bits; a carry
                                                                   bumps the exponent, up to inf */
}

/* On the device (sm_80 and later) the hardware's rounding, cvt.rn.bf16.f32, with NaN by hand as
   the soft one makes it; the same bits for all 2^32 inputs (tests/gpu/half_cvt_check.cu).
   Measured (H100, CDF 9/7 16384^2 4 levels, bfloat16): forward 0.980 -> 0.953 ms, inverse
   1.570 -> 1.543 (the soft rounding: 7 integer instructions a value) */
LWT_HD uint16_t lwt_f32_to_bf16(float f)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint16_t b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return f != f ? (uint16_t)((lwt_f32_bits(f) >> 16) | 0x40u) : b;
#else
    return lwt_f32_to_bf16_soft(f);
#endif
}

#endif
