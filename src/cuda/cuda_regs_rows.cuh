/*
 * The lifting along the rows of the register kernels (cuda_slide_regs.cu: one
 * 2-D level; cuda_slide_pair.cu: two levels in one pass): a warp holds a ring
 * row in registers, NP slots per lane and channel, and runs every horizontal
 * step on it with warp shuffles; the ring row's layout in shared memory.
 */
#ifndef LWT_CUDA_REGS_ROWS_CUH
#define LWT_CUDA_REGS_ROWS_CUH

#include "cuda/cuda_regs_pipe.cuh"

namespace {

/*
 * The steps along a ring row, by one warp, in registers. Lane l holds slots
 * p = 0 .. P - 1 of both channels (P = rs_slots): channel index A = base + l P + p of
 * each (base = the smaller of the two channels' first index), so a step that
 * reads channel u at A + off + q finds it in slot p + off + q, a constant:
 * in its own registers or, past its slots, in a neighbour lane's (a shuffle).
 *
 * The steps go in exchange rounds of GS steps (seed 000's classic lifting:
 * GS = 1, one exchange per step; its improved lifting of eq. 16: GS = 2, a
 * predict and the following update merged, so the update recomputes the
 * predicted values it needs from the neighbours' old ones and the pair needs
 * one exchange). A round fetches, at its start, every slot its steps read
 * (backwards from "all own slots done" over the round's steps), then runs the
 * steps on those slots with the same arithmetic in the same order, so every
 * variant gives the same bits. Steps also run on slots outside their lifting
 * range (garbage there is never read by a needed value), as the vertical
 * window does.
 */
static_assert(all_steps_short(), "a compiled-in step has more taps than hrounds unrolls");
constexpr int RS_THREADS = 256; /* threads per block of the register kernels: one per strip column */

/* slots per lane and channel: the forward's ring row is the strip's RS_THREADS samples, the
   inverse's RS_THREADS output columns and their halo (at most 145 per channel for D20) */
constexpr int rs_slots(bool inv) { return inv ? RS_THREADS / 64 + 1 : RS_THREADS / 64; }

constexpr int rs_fdiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
constexpr int rs_fmod(int a, int b) { return a - rs_fdiv(a, b) * b; }
constexpr int rs_min(int a, int b) { return a < b ? a : b; }

/* one exchange round: the steps at execution positions [k0, k1) */
struct rs_round {
    int lo[RS_MAXS], hi[RS_MAXS]; /* slots step k computes (by execution position) */
    int nlo[2], nhi[2];           /* slots of each channel read at the round's start */
    int HL, HR;                   /* slots beyond the lane's own, left and right */
};

constexpr rs_round make_round(rs_shape s, bool inv, int k0, int k1, int NP)
{
    rs_round g{};
    int lo[2] = {0, 0}, hi[2] = {NP - 1, NP - 1};
    for (int k = k1 - 1; k >= k0; k--) {
        const int si = inv ? s.n - 1 - k : k, t = s.t[si], u = 1 - t;
        g.lo[k] = lo[t];
        g.hi[k] = hi[t];
        lo[u] = rs_min(lo[u], lo[t] + s.off[si]);
        hi[u] = rs_max(hi[u], hi[t] + s.off[si] + s.nt[si] - 1);
    }
    for (int c = 0; c < 2; c++) {
        g.nlo[c] = lo[c];
        g.nhi[c] = hi[c];
    }
    g.HL = -rs_min(lo[0], lo[1]);
    g.HR = rs_max(hi[0], hi[1]) - (NP - 1);
    return g;
}

/* the rounds from execution position K0 on */
template <int ID, bool INV, int GS, int K0, typename WREAL, int NP>
__device__ __forceinline__ void hrounds(WREAL (&x)[2][NP], const WREAL *taps, int lane)
{
    constexpr rs_shape S = kShapes[ID];
    if constexpr (K0 < S.n) {
        constexpr int K1 = rs_min(K0 + GS, S.n);
        constexpr rs_pipe P = make_pipe(S, INV);
        constexpr rs_round H = make_round(S, INV, K0, K1, NP);
        /* every loop below runs over the constant slot span [-HL, NP + HR) and
           tests its own range inside, so that after unrolling each register
           index is a constant (ranges as trip counts left e in local memory) */
        constexpr int HL = H.HL, E = H.HL + NP + H.HR;
        WREAL e[2][E];
#pragma unroll
        for (int c = 0; c < 2; c++)
#pragma unroll
            for (int j = 0; j < E; j++) {
                const int s = j - HL;
                if (s < H.nlo[c] || s > H.nhi[c])
                    continue;
                const int dl = rs_fdiv(s, NP);
                const WREAL v = x[c][rs_fmod(s, NP)];
                /* lanes past the warp's ends get another lane's value: only
                   slots outside every lifting range read it */
                e[c][j] = dl == 0 ? v : __shfl_sync(0xffffffffu, v, lane + dl);
            }
#pragma unroll
        for (int k = K0; k < K1; k++) {
            const int si = INV ? S.n - 1 - k : k, t = S.t[si], u = 1 - t, o = S.off[si];
#pragma unroll
            for (int j = 0; j < E; j++) {
                const int s = j - HL;
                if (s < H.lo[k] || s > H.hi[k])
                    continue;
                e[t][j] = lift_step<INV>(e[t][j], taps + P.first[si], S.nt[si], &e[u][j + o], 1);
            }
        }
#pragma unroll
        for (int c = 0; c < 2; c++)
#pragma unroll
            for (int p = 0; p < NP; p++)
                x[c][p] = e[c][HL + p];
        hrounds<ID, INV, GS, K1>(x, taps, lane);
    }
}

/*
 * A ring row in shared memory: one region of rs_cw elements per horizontal
 * channel, position A - base of channel index A (base = the smaller of the two
 * channels' first index), so lane l's slots are the positions l P .. l P + P - 1
 * of each region, a constant offset from one lane address, and every lane
 * loads and stores all of its slots without bounds checks: positions past a
 * channel's data only hold values that no needed value reads (see hrounds).
 * With P even, a pad element after every 32 keeps the lanes' P-strided
 * accesses off each other's banks; the region length is 16 banks modulo 32,
 * so the vertical phase's threads (even columns in region 0, odd in region 1)
 * do not collide either.
 */
constexpr int rs_pad_np(int NP) { return NP % 2 == 0 ? 1 : 0; }
constexpr int rs_phys_np(int NP, int pos) { return pos + (rs_pad_np(NP) ? pos >> 5 : 0); }
constexpr int rs_cw_np(int NP)
{
    const int w = rs_phys_np(NP, 32 * NP);
    return w + (48 - w % 32) % 32;
}
constexpr int rs_ring_np(int NP) { return 2 * rs_cw_np(NP); }
/* the same for the one-level kernels' rows (rs_slots) */
constexpr int rs_pad(bool inv) { return rs_pad_np(rs_slots(inv)); }
constexpr int rs_phys(bool inv, int pos) { return rs_phys_np(rs_slots(inv), pos); }
constexpr int rs_cw(bool inv) { return rs_cw_np(rs_slots(inv)); }
constexpr int rs_ring(bool inv) { return rs_ring_np(rs_slots(inv)); }

/* channel index at position 0 of both regions: the smaller first index */
__host__ __device__ __forceinline__ long rs_base(const lwt_slide_axis &ax) { return ax.lo[0] < ax.lo[1] ? ax.lo[0] : ax.lo[1]; }

/* position of channel c's element i (ring index, from lo[c]) in a ring row of NP slots
   per lane; rs_pos: the one-level kernels' rows */
__device__ __forceinline__ int rs_pos_np(int NP, const lwt_slide_axis &ax, int c, int i)
{
    return c * rs_cw_np(NP) + rs_phys_np(NP, (int)(ax.lo[c] - rs_base(ax)) + i);
}
__device__ __forceinline__ int rs_pos(bool inv, const lwt_slide_axis &ax, int c, int i)
{
    return rs_pos_np(rs_slots(inv), ax, c, i);
}

/* The forward's thread j of a strip whose first coefficient column is sx and whose
   samples start at xlo (lwt_slide_strip): its sample column's place in a ring row
   (channel regions CW elements apart, NP slots per lane), or -1 where the column is
   outside the channel it belongs to */
__device__ __forceinline__ int rs_strip_col(int NP, int CW, const lwt_slide_axis &ax, long sx, long xlo, int nx, int j)
{
    if (j >= nx)
        return -1;
    const int odd = (int)((j + xlo) & 1);
    const int mx = (int)((j + (odd ? xlo - 2 * (ax.lo[1] + sx) - 1 : xlo - 2 * (ax.lo[0] + sx))) >> 1);
    return mx >= 0 && mx < ax.len[odd] ? odd * CW + rs_phys_np(NP, (int)(ax.lo[odd] - rs_base(ax)) + mx) : -1;
}

/* every lifting step along one ring row of NP slots per lane, by one warp: lrow
   is the row plus this lane's offset rs_phys_np(NP, lane * NP); the inverse's rows
   hold band coefficients as stored, each channel scaled here by k[c] as it is read */
template <int ID, bool INV, int GS, int NP, typename WREAL>
__device__ __forceinline__ void hlift_body(WREAL *lrow, const WREAL *taps, int lane, const WREAL *k)
{
    constexpr int CW = rs_cw_np(NP);
    WREAL x[2][NP];
#pragma unroll
    for (int c = 0; c < 2; c++)
#pragma unroll
        for (int p = 0; p < NP; p++)
            x[c][p] = INV ? lrow[c * CW + p] * k[c] : lrow[c * CW + p];
    hrounds<ID, INV, GS, 0>(x, taps, lane);
#pragma unroll
    for (int c = 0; c < 2; c++)
#pragma unroll
        for (int p = 0; p < NP; p++)
            lrow[c * CW + p] = x[c][p];
    __syncwarp();
}

/* A call, not inlined, for the forward of long schemes: inlined into the D20
   forward kernel, the unrolled rounds pushed the kernel's own unrolling past
   NVVM's limits and its vertical window into local memory (7.3 against 3.7 ms
   for 4 levels at 16384^2); everywhere else the call's register saves cost
   more than they save (CDF 9/7: 2.85 against 2.47 ms). */
template <int ID, bool INV, int GS, int NP, typename WREAL>
__device__ __noinline__ void hlift_call(WREAL *lrow, const WREAL *taps, int lane, const WREAL *k)
{
    hlift_body<ID, INV, GS, NP>(lrow, taps, lane, k);
}

/* NP slots per lane: the one-level kernels' rows by default */
template <int ID, bool INV, int GS, int NP = rs_slots(INV), typename WREAL>
__device__ __forceinline__ void hlift(WREAL *lrow, const WREAL *taps, int lane, const WREAL *k = nullptr)
{
    if constexpr (!INV && kShapes[ID].n > 8)
        hlift_call<ID, INV, GS, NP>(lrow, taps, lane, k);
    else
        hlift_body<ID, INV, GS, NP>(lrow, taps, lane, k);
}

} // namespace

#endif
