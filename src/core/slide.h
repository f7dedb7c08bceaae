/*
 * Sliding-window 2-D level (seed 000's LBB model): the geometry and schedule
 * shared by the CUDA kernel and the CPU runner of src/core/slide_body.h.
 *
 * A block owns a strip of T1 coefficient columns (axis 1) and a segment of
 * T0 coefficient rows (axis 0) of every band of one level. It walks down the
 * segment S rows of each vertical channel at a time, keeping the rows still
 * in use in a ring of C rows per channel (shared memory on the GPU):
 *
 *   forward: load sample rows (both axes extended by the mode), run the
 *            vertical lifting steps as far as the loaded rows allow, and
 *            every row that no vertical step needs any more is lifted along
 *            the row in place and written to its two bands;
 *   inverse: load coefficient rows of the four bands, lift them along the
 *            row (inverse), run the vertical inverse steps as far as they
 *            can go, and write every finished sample row.
 *
 * Vertical then horizontal in the forward and the reverse in the inverse is
 * PyWavelets' axis order, so every sample is read once and written once per
 * level, with only the halo rows of a segment and the halo columns of a strip
 * read twice. Lifting ranges come from core/line.c for tile 0 and are shifted
 * per tile (they are translation-invariant), so every wavelet and mode works.
 *
 * Schedule: after iteration i the rows below L_i = m_start + (i+1) S of each
 * channel are loaded, and the step at execution position k has computed its
 * target rows below clamp(L_i - lag[k], its range). The lags are the
 * smallest that respect every dependency: a step reads its source only where
 * the last step writing it is done (read after write), never passes rows an
 * earlier step still reads from its target (write after read), and follows
 * the previous writer of its target. Clamping to the ranges only ever holds
 * a step back or lets it finish, which keeps all three true.
 */
#ifndef LWT_CORE_SLIDE_H
#define LWT_CORE_SLIDE_H

#include <stddef.h>

#include "core/hd.h"
#include "core/scheme.h"
#include "lwt.h"

#define LWT_SLIDE_MAX_STEPS 48

/* one axis, relative to tile 0 (tile t adds t * T to every channel index) */
typedef struct lwt_slide_axis {
    long n;            /* samples: forward input, inverse output */
    long nc;           /* coefficients per band */
    long delta;        /* y[m] = x[m - delta] (periodization shift) */
    int mode;
    int T;             /* coefficients per tile (the inverse makes 2 T samples) */
    long lo[2];        /* channel indices the tile holds: [lo, lo + len) */
    int len[2];
    long step_lo[LWT_SLIDE_MAX_STEPS]; /* target range of each step (scheme index) */
    int step_len[LWT_SLIDE_MAX_STEPS];
} lwt_slide_axis;

typedef struct lwt_slide_geom {
    int inverse;
    int nsteps;
    int lag[LWT_SLIDE_MAX_STEPS]; /* by execution position */
    lwt_slide_axis ax[2];         /* 0: rows (segments slide), 1: columns (strips) */
    long tiles[2];                /* segments, strips */
    int S;                        /* rows of each channel loaded per iteration */
    int C;                        /* ring rows per channel, a power of two */
    int iters;                    /* iterations per block */
    int RW;                       /* ring row: ax[1].len[0] + ax[1].len[1] elements */
    long m_start;                 /* first vertical channel row of tile 0 */
    long out_lo[2], out_hi[2];    /* vertical channel rows that are outputs (tile 0) */
    int late_ext;                 /* forward, smooth and antireflect: columns outside the
                                     array are extended from the rows after the vertical
                                     steps, as PyWavelets does (extrapolation is not exact
                                     arithmetic, so the order matters) */
} lwt_slide_geom;

/* scheme index of the step at execution position k */
LWT_HD int lwt_slide_step_index(const lwt_slide_geom *g, int k)
{
    return g->inverse ? g->nsteps - 1 - k : k;
}

LWT_HD long lwt_slide_clamp(long v, long lo, long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* rows of vertical channel c loaded once L rows are in */
LWT_HD long lwt_slide_loaded(const lwt_slide_geom *g, int c, long L)
{
    return lwt_slide_clamp(L, g->ax[0].lo[c], g->ax[0].lo[c] + g->ax[0].len[c]);
}

/* frontier of the step at execution position k once L rows are in */
LWT_HD long lwt_slide_front(const lwt_slide_geom *g, int k, long L)
{
    const int si = lwt_slide_step_index(g, k);
    const long lo = g->ax[0].step_lo[si];
    return lwt_slide_clamp(L - g->lag[k], lo, lo + g->ax[0].step_len[si]);
}

/* Forward: the strip whose first coefficient column is sx reads the samples
 * *xlo .. *xlo + NX - 1 (before the shift delta) of every row; returns NX,
 * the same for every strip. */
LWT_HD int lwt_slide_strip(const lwt_slide_geom *g, long sx, long *xlo)
{
    const lwt_slide_axis *ax = &g->ax[1];
    const long lox0 = ax->lo[0] + sx, lox1 = ax->lo[1] + sx;
    *xlo = lox0 * 2 < lox1 * 2 + 1 ? 2 * lox0 : 2 * lox1 + 1;
    const long xe0 = 2 * (lox0 + ax->len[0]) - 1, xe1 = 2 * (lox1 + ax->len[1]);
    return (int)((xe0 > xe1 ? xe0 : xe1) - *xlo);
}

/*
 * Rows of vertical channel c below the returned index are final once L rows
 * are in: every step writing c is done with them and, in the forward (which
 * goes on to modify them in place), no step still reads them.
 */
LWT_HD long lwt_slide_final(const lwt_slide_geom *g, const lwt_step *steps, int c, long L)
{
    long e = lwt_slide_loaded(g, c, L);
    for (int k = 0; k < g->nsteps; k++)
        if (steps[lwt_slide_step_index(g, k)].target == c)
            e = lwt_slide_front(g, k, L);
    if (!g->inverse)
        for (int k = 0; k < g->nsteps; k++) {
            const int si = lwt_slide_step_index(g, k);
            const long f = lwt_slide_front(g, k, L);
            if (steps[si].target != c && f < g->ax[0].step_lo[si] + g->ax[0].step_len[si] && f + steps[si].off < e)
                e = f + steps[si].off;
        }
    return e;
}

/* output rows of channel c emitted by iteration i: [*e0, *e1) */
LWT_HD void lwt_slide_emitted(const lwt_slide_geom *g, const lwt_step *steps, int c, int i, long *e0, long *e1)
{
    const long L = g->m_start + (long)(i + 1) * g->S;
    const long prev = i == 0 ? g->out_lo[c] : lwt_slide_final(g, steps, c, L - g->S);
    *e0 = lwt_slide_clamp(prev, g->out_lo[c], g->out_hi[c]);
    *e1 = lwt_slide_clamp(lwt_slide_final(g, steps, c, L), *e0, g->out_hi[c]);
}

/* The scale the kernels apply for band b (bit 0: detail along axis 0, bit
 * 1: along axis 1): forward, the scale of one axis' channel, {ka, kd} for
 * b = 0, 1 (vertical) and again for b = 2, 3 (horizontal, applied second);
 * inverse, 1 / (the band's two scales), applied as its coefficients load. */
static inline double lwt_slide_scale(double ka, double kd, int inverse, int b)
{
    const double kb = ((b & 1) ? kd : ka) * ((b & 2) ? kd : ka);
    return inverse ? 1.0 / kb : (b & 1) ? kd : ka;
}

/*
 * The schedule of one block as a table (the same for every block, relative
 * to its tile): per iteration LWT_SLIDE_TAB(g) ints,
 *   [0..3]  rows loaded this iteration, channel 0 [r0, r1) then channel 1,
 *   [4..7]  output rows emitted, channel 0 [e0, e1) then channel 1,
 *   [8 + 2k, 9 + 2k]  rows [f, e) the step at execution position k computes.
 * Computed once on the host so that the kernel's threads do not each
 * re-derive it every iteration.
 */
#define LWT_SLIDE_TAB(g) (8 + 2 * (g)->nsteps)
void lwt_slide_table(const lwt_slide_geom *g, const lwt_step *steps, int *tab);

/*
 * Plan one level. Forward: input n0 x n1 samples -> bands of nc0 x nc1
 * (computed, the arguments are ignored); inverse: bands of nc0 x nc1 ->
 * output n0 x n1 samples. es: bytes of the
 * working type; smem_limit: bytes a block may use (0: no limit);
 * min_blocks: shorten segments until there are this many blocks (or they
 * reach 16 rows); cols: ring row width to aim for (0: 128 elements of 4
 * bytes, 64 of 8). Returns the ring bytes, or 0 when the scheme does not fit
 * (too many steps, or a ring over the limit).
 */
size_t lwt_slide_plan(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0, long n1,
                      long nc0, long nc1, size_t es, size_t smem_limit, long min_blocks, int cols);
/* The same for blocks covering only `rows` output rows along axis 0 (forward:
 * coefficient rows, inverse: pairs of sample rows; 0 or more than the axis
 * has: all of them), from any first row: tile t's rows start t T0 after it
 * (ranges are translation-invariant), which is how a streamed chunk runs the
 * rows it owns of a level. */
size_t lwt_slide_plan_rows(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0,
                           long n1, long nc0, long nc1, long rows, size_t es, size_t smem_limit, long min_blocks,
                           int cols);

/* One axis in tiles of T coefficients (tile 0's channel and step ranges), n samples
 * (the inverse's output), nc coefficients per band (the inverse's input; the
 * forward's is computed); p: scratch for the line program. Every plan above is
 * made of these; cuda_vol.cu plans its three axes with it. */
struct lwt_line_prog;
void lwt_slide_fill_axis(lwt_slide_axis *a, struct lwt_line_prog *p, const lwt_scheme *s, lwt_mode mode, int F,
                         int inverse, long n, long nc, int T);

/* Axis 0 alone, for a pass along a strided axis (cuda_columns.cu): the lags,
 * ax[0] in tiles of 16 coefficient rows (or the whole axis when shorter),
 * tiles[0], m_start, out_lo and out_hi; ax[1] zero and tiles[1] 1, no ring.
 * n0 samples (the inverse's output), nc0 coefficients per band (the
 * inverse's input; the forward's is computed). 0 on failure. */
int lwt_slide_plan_column(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, int inverse, long n0, long nc0);

#endif
