/*
 * Internal lifting scheme: what the backends execute.
 *
 * The signal y is split into channels c[0][m] = y[2m] (even) and
 * c[1][m] = y[2m+1] (odd). Step s adds to its target channel t a filtered
 * copy of the other one:
 *     c[t][m] += sum_{i<ntaps} taps[first+i] * c[1-t][m + off + i]
 * After all steps the PyWavelets coefficients are
 *     cA[k] = ka * c[ach][k + sa],   cD[k] = kd * c[1-ach][k + sd]
 * where ach is 0, or 1 when the factorization ended with the channels swapped.
 * The inverse runs the steps backwards with the sign flipped.
 */
#ifndef LWT_CORE_SCHEME_H
#define LWT_CORE_SCHEME_H

#include <stddef.h>

#define LWT_SCHEME_MAX_STEPS 128
#define LWT_SCHEME_MAX_TAPS 1024

typedef struct lwt_step {
    int target;  /* 0: even channel (update), 1: odd channel (predict) */
    int off;     /* source index offset of taps[first] */
    int ntaps;
    int first;   /* index into lwt_scheme.taps */
} lwt_step;

typedef struct lwt_scheme {
    int nsteps;
    lwt_step steps[LWT_SCHEME_MAX_STEPS];
    int ntaps_total;
    double taps[LWT_SCHEME_MAX_TAPS];
    double ka, kd;   /* output scale of cA and cD */
    int ach;         /* channel that becomes cA */
    int sa, sd;      /* output index shifts */
} lwt_scheme;

/* Filter bank in PyWavelets' convention: cA[k] = sum_j dec_lo[j] y[2k+1-j]. */
typedef struct lwt_filter_bank {
    int length; /* even */
    const double *dec_lo, *dec_hi, *rec_lo, *rec_hi;
} lwt_filter_bank;

/*
 * Factor the analysis polyphase matrix of fb into lifting steps (Euclid on
 * Laurent polynomials, beam search over the quotient choices). Candidates are
 * ranked by their measured error; the best one is returned with its measured
 * relative error in float64 and float32 (forward and inverse, worst of both).
 * Returns 0 on success, -1 when no factorization was found.
 */
int lwt_factor_filter_bank(const lwt_filter_bank *fb, lwt_scheme *out, double *err64, double *err32);

/* Measured relative error of a scheme against the direct filter bank
 * (periodic signal, one level, forward and inverse). */
void lwt_scheme_measure(const lwt_scheme *s, const lwt_filter_bank *fb, double *err64, double *err32);

/* The same in float32 arithmetic throughout (for kernels that compute in float). */
double lwt_scheme_measure_f32_arith(const lwt_scheme *s, const lwt_filter_bank *fb);

/* Run the scheme forward (dir = +1) or backward (dir = -1) on periodic
 * channels of length half; f32 rounds every operation to float. */
void lwt_scheme_lift_periodic(const lwt_scheme *s, double *ch[2], size_t half, int dir, int f32);

/* Drop the taps of magnitude <= eps at the ends of each step, and steps left
   without taps (float32 plans, eps = LWT_F32_NEGLIGIBLE_TAP; scheme_trim.c). */
#define LWT_F32_NEGLIGIBLE_TAP 1e-9
void lwt_scheme_trim(lwt_scheme *s, double eps);

/* Append a step; returns 0, or -1 when the scheme is full. */
int lwt_scheme_add_step(lwt_scheme *s, int target, int off, int ntaps, const double *taps);

#endif
