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

/* binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits */
LWT_HD float lwt_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) /* inf, NaN: the payload moves up unchanged */
        return lwt_f32_from_bits(sign | 0x7f800000u | m << 13);
    if (e) /* normal: rebias the exponent (127 - 15 = 112) */
        return lwt_f32_from_bits(sign | (e + 112) << 23 | m << 13);
    if (!m)
        return lwt_f32_from_bits(sign);
    /* subnormal m * 2^-24: normalize m so its leading bit becomes the implicit one */
    uint32_t ex = 113; /* the exponent field of 2^-14, the first normal binade */
    uint32_t mm = m;
    while (!(mm & 0x400u)) {
        mm <<= 1;
        ex--;
    }
    return lwt_f32_from_bits(sign | ex << 23 | (mm & 0x3ffu) << 13);
}

/* m >> s rounded to nearest, ties to even (1 <= s <= 31) */
LWT_HD uint32_t lwt_shift_rne(uint32_t m, unsigned s)
{
    const uint32_t q = m >> s, rem = m & ((1u << s) - 1), half = 1u << (s - 1);
    return q + (rem > half || (rem == half && (q & 1u)));
}

LWT_HD uint16_t lwt_f32_to_f16(float f)
{
    const uint32_t x = lwt_f32_bits(f), a = x & 0x7fffffffu;
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    if (a > 0x7f800000u) { /* NaN: keep the high payload bits, and quiet so it cannot read as inf */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    }
    if (a >= 0x477ff000u) /* >= 65520, halfway from 65504 (odd mantissa) to 2^16: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) /* >= 2^-14: normal; a carry out of the mantissa bumps the exponent */
        return (uint16_t)(sign | lwt_shift_rne(a - 0x38000000u, 13));
    /* subnormal or zero: value (a's mantissa with its implicit bit) * 2^(e - 150) in units of
       2^-24 is that mantissa >> (126 - e); 2^-14 itself comes out of a carry as the first normal */
    const uint32_t e = a >> 23;
    if (e < 102) /* below 2^-25: rounds to zero (the halfway point 2^-25 has e = 102) */
        return sign;
    return (uint16_t)(sign | lwt_shift_rne((a & 0x7fffffu) | 0x800000u, 126 - e));
}

/* bfloat16: the high half of a float32 (1 sign, 8 exponent, 7 mantissa bits) */
LWT_HD float lwt_bf16_to_f32(uint16_t b)
{
    return lwt_f32_from_bits((uint32_t)b << 16);
}

LWT_HD uint16_t lwt_f32_to_bf16(float f)
{
    const uint32_t x = lwt_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet it, or dropping the low payload could leave inf */
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16); /* RNE on the dropped 16 bits; a carry
                                                                   bumps the exponent, up to inf */
}

#endif
