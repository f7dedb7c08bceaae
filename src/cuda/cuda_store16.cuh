/* 16-bit storage in the register kernels (cuda_slide_regs.cu, cuda_slide_pair.cu): which
 * arrays of a launch hold float16/bfloat16 values, and their loads and stores. The 16-bit
 * plans' levels (cuda_half.cu) compute in float32 and store 16 bits where a value is final;
 * the approximation band stays float32 between levels, so the levels after it compute on the
 * float32 values and the result is the float32 transform rounded once (docs/API.md, "16-bit
 * storage"). The conversions are core/half.h's, the host's. */
#ifndef LWT_CUDA_STORE16_CUH
#define LWT_CUDA_STORE16_CUH

#include <stddef.h>
#include <stdint.h>
#include <type_traits>

extern "C" {
#include "core/half.h"
}

/* RS_PLAIN: every array in the kernel's element type REAL. RS_D16: the detail bands in 16 bits,
   the approximation and the signal side (the forward's input, the inverse's output) in REAL
   (float32); RS_XD16: the signal side in 16 bits too (level 1). */
enum { RS_PLAIN, RS_D16, RS_XD16 };
template <typename REAL, int ST> using rs_sig_t = std::conditional_t<ST == RS_XD16, uint16_t, REAL>;
template <typename REAL, int ST> using rs_det_t = std::conditional_t<ST == RS_PLAIN, REAL, uint16_t>;

/* a stored value as the kernel computes with it: 16 bits widened (bfloat16 when bf16, else
   float16), any other type converted */
template <typename WREAL, typename T> __device__ __forceinline__ WREAL rs_widen(T v, int bf16)
{
    if constexpr (std::is_same<T, uint16_t>::value)
        return bf16 ? lwt_bf16_to_f32(v) : lwt_f16_to_f32(v);
    else
        return (WREAL)v;
}

/* a computed value as type T stores it: 16 bits rounded once (to nearest, ties to even) */
template <typename T, typename WREAL> __device__ __forceinline__ T rs_narrow(WREAL v, int bf16)
{
    if constexpr (std::is_same<T, uint16_t>::value)
        return bf16 ? lwt_f32_to_bf16((float)v) : lwt_f32_to_f16((float)v);
    else
        return (T)v;
}

/* A band of a 16-bit level: REAL values (the approximation), or DT ones where det (details). */
template <typename REAL, typename DT> struct rs_band {
    const void *p;
    bool det;
    rs_band() = default;
    __device__ __forceinline__ rs_band(const void *p_, bool det_) : p(p_), det(det_) {}
    /* the band from element i on */
    __device__ __forceinline__ rs_band at(size_t i) const
    {
        return {(const char *)p + i * (det ? sizeof(DT) : sizeof(REAL)), det};
    }
    template <typename WREAL> __device__ __forceinline__ WREAL get(long i, int bf16) const
    {
        return det ? rs_widen<WREAL>(((const DT *)p)[i], bf16) : (WREAL)((const REAL *)p)[i];
    }
    template <typename WREAL> __device__ __forceinline__ void put(long i, WREAL v, int bf16) const
    {
        if (det)
            ((DT *)p)[i] = rs_narrow<DT>(v, bf16);
        else
            ((REAL *)p)[i] = (REAL)v;
    }
    /* f(typed pointer): the element type fixed for a whole loop, one branch a call rather than a
       value (what the hot loops use: get and put leave a branch per value) */
    template <typename F> __device__ __forceinline__ void visit(F &&f) const
    {
        if (det)
            f((DT *)p);
        else
            f((REAL *)p);
    }
};
/* A band of a plain launch: a pointer, nothing else held (the kernels' registers as before) */
template <typename REAL> struct rs_band<REAL, REAL> {
    const REAL *p;
    rs_band() = default;
    __device__ __forceinline__ rs_band(const void *p_, bool) : p((const REAL *)p_) {}
    __device__ __forceinline__ rs_band at(size_t i) const { return {p + i, false}; }
    template <typename WREAL> __device__ __forceinline__ WREAL get(long i, int) const { return (WREAL)p[i]; }
    template <typename WREAL> __device__ __forceinline__ void put(long i, WREAL v, int) const
    {
        ((REAL *)p)[i] = (REAL)v;
    }
    template <typename F> __device__ __forceinline__ void visit(F &&f) const { f((REAL *)p); }
};

/* 16-bit values h[0..N) widened into f: one branch on the format for all of them, after the
   loads that produced h (bits 0 widen to +0 in both formats, so a slot left 0 reads as 0) */
template <int N> __device__ __forceinline__ void rs_widen_all(const uint16_t (&h)[N], float (&f)[N], int bf16)
{
    if (bf16) {
#pragma unroll
        for (int i = 0; i < N; i++)
            f[i] = lwt_bf16_to_f32(h[i]);
    } else {
#pragma unroll
        for (int i = 0; i < N; i++)
            f[i] = lwt_f16_to_f32(h[i]);
    }
}

/* Slots [0, 32 NP) of an inverse ring row from 16-bit band values: slot s holds e[s] where
 * s - off is in [0, len), else 0. Every load of the row is issued before the first value is
 * widened. Written value by value (load, then widen behind a branch on the format), the
 * compiler kept each load's branch and the loads ran one after the other: ncu on the bfloat16
 * CDF 9/7 inverse (one level, 16384^2, H100) put 48% of the stall samples on the widening
 * after each of the five loads of a row, the kernel at 1.55 ms against 1.00 for float32
 * (docs/PERFORMANCE.md, "16-bit storage on one GPU: the loads"). PAIRS: lane l reads slots
 * 64 p + 2 l and 64 p + 2 l + 1 with one 4-byte load and stores them with one 8-byte shared
 * store, where e and out are aligned for that (e's parity is the band row's and the strip's,
 * the same for a whole warp); which shapes pair: rs_inv_pairs. */
template <int NP, bool PAIRS>
__device__ __forceinline__ void rs_row16(const uint16_t *e, float *out, int lane, int off, int len, int bf16)
{
    if (PAIRS && !(((uintptr_t)e) & 3) && !(((uintptr_t)out) & 7)) {
        constexpr int NPAIR = NP / 2; /* slots [0, 64 NPAIR) in pairs, an odd last one alone */
        uint16_t h[NP];
#pragma unroll
        for (int p = 0; p < NPAIR; p++) {
            const int s = 64 * p + 2 * lane, mx = s - off;
            const bool in0 = mx >= 0 && mx < len, in1 = mx + 1 >= 0 && mx + 1 < len;
            uint32_t w;
            if (in0 && in1)
                w = *(const uint32_t *)(e + s);
            else
                w = (in0 ? (uint32_t)e[s] : 0u) | (in1 ? (uint32_t)e[s + 1] << 16 : 0u);
            h[2 * p] = (uint16_t)(w & 0xffffu);
            h[2 * p + 1] = (uint16_t)(w >> 16);
        }
        if constexpr (NP % 2) {
            const int s = 64 * NPAIR + lane, mx = s - off;
            h[NP - 1] = mx >= 0 && mx < len ? e[s] : (uint16_t)0;
        }
        float f[NP];
        rs_widen_all<NP>(h, f, bf16);
#pragma unroll
        for (int p = 0; p < NPAIR; p++)
            *(float2 *)(out + 64 * p + 2 * lane) = make_float2(f[2 * p], f[2 * p + 1]);
        if constexpr (NP % 2)
            out[64 * NPAIR + lane] = f[NP - 1];
        return;
    }
    uint16_t h[NP];
#pragma unroll
    for (int q = 0; q < NP; q++) {
        const int mx = lane + 32 * q - off;
        h[q] = mx >= 0 && mx < len ? e[lane + 32 * q] : (uint16_t)0;
    }
    float f[NP];
    rs_widen_all<NP>(h, f, bf16);
#pragma unroll
    for (int q = 0; q < NP; q++)
        out[lane + 32 * q] = f[q];
}

/* the element type a visit's pointer points to */
template <typename PTR> using rs_elem_t = std::remove_const_t<std::remove_pointer_t<PTR>>;

#endif
