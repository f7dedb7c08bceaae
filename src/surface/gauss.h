/*
 * gauss.h - the areal Gaussian filter of ISO 16610-61 (lwt_gauss_lowpass, public in
 * lwt_surface.h), the robust Gaussian regression filter of ISO 16610-71, and the Gaussian band
 * split behind lwt_filter_run (spec.filter = LWT_FILTER_GAUSSIAN, LWT_FILTER_ROBUST_GAUSSIAN).
 *
 * gauss_conv.c: one low-pass, a separable truncated convolution normalized by the weights of
 * the valid points under the kernel (so the field border and invalid points are handled by one
 * rule). The layout a GPU path can follow: pass 1 convolves each row (x) into a temporary, pass 2
 * each strip of columns (y). Short kernels directly: every output is w0 a[j] + sum_k w[k]
 * (a[j-k] + a[j+k]) with k ascending, so any decomposition that keeps that order gives the same
 * bits; long kernels through gauss_fft.c (FFTW, one line per real transform; without FFTW
 * long kernels are convolved directly too: the same result to rounding, slower).
 * gauss_filter.c: the cascade S -> L -> F and the bands. gauss_robust.c: the robust Gaussian
 * regression filter of ISO 16610-71 (LWT_FILTER_ROBUST_GAUSSIAN's L- and F-filters), its moments
 * by gauss_conv.c's direct correlation.
 *
 * Pure computation on arrays: no printing, no files, no global state.
 */
#ifndef LWT_SURFACE_GAUSS_H
#define LWT_SURFACE_GAUSS_H

#include <stddef.h>

#include "lwt_surface.h"

/* How an axis is convolved: AUTO picks by the cost model of gauss_conv.c (measured). FFT in a
   build without FFTW is DIRECT. */
typedef enum { LWT_GAUSS_AUTO = 0, LWT_GAUSS_DIRECT = 1, LWT_GAUSS_FFT = 2 } lwt_gauss_algo;

/* The low-pass of `in` (nx x ny, NaN = invalid) into out (not overlapping in). masked: in has
   non-finite points (then the weight sum is convolved too; else it is the product of the 1-D
   sums inside the field). Returns LWT_OK or LWT_ERR_OUT_OF_MEMORY; logs nothing. */
lwt_status lwt__gauss_smooth(const double *in, size_t nx, size_t ny, double dx, double dy, double lambda,
                             int masked, int threads, lwt_gauss_algo algo, double *out);

/* gauss_fft.c: the convolution of lines of n points with the even kernel w[0..h] (zeros beyond
   the line) through FFTW, one line per real transform of length lwt__gauss_fft_length(n, h).
   Without FFTW, available() is 0, make() returns NULL and the rest is never called. A work area
   (one per thread) serves any number of lines of its plan. */
typedef struct lwt__gauss_fft lwt__gauss_fft;
typedef struct lwt__gauss_fft_work lwt__gauss_fft_work;
int lwt__gauss_fft_available(void);
size_t lwt__gauss_fft_length(size_t n, int h);
lwt__gauss_fft *lwt__gauss_fft_make(const double *w, int h, size_t n); /* NULL: out of memory */
void lwt__gauss_fft_free(lwt__gauss_fft *p);
lwt__gauss_fft_work *lwt__gauss_fft_work_new(const lwt__gauss_fft *p); /* NULL: out of memory */
void lwt__gauss_fft_work_free(lwt__gauss_fft_work *t);
void lwt__gauss_fft_line(const lwt__gauss_fft *p, const double *a, size_t stride, double *o, size_t ostride,
                         lwt__gauss_fft_work *t);

/* Half width in samples of the kernel for nesting index lambda at spacing d, along an axis of n
   points: floor(LWT_GAUSS_TRUNCATION * lambda / d), at most n - 1 (taps beyond the field only
   ever meet its zero padding). */
int lwt__gauss_half_width(double lambda, double d, size_t n);

/* The kernel of one axis as both backends use it: the weights w[0..h] (w[0] + 2 sum w[k] = 1)
   and ws[i], the weights that fall inside the field seen from point i (the normalization when
   no point is invalid), for an axis of n points. 0, or -1 out of memory (k left freed). */
typedef struct lwt__gauss_kernel {
    double *w;
    int h;
    double *ws;
} lwt__gauss_kernel;
int lwt__gauss_kernel_make(lwt__gauss_kernel *k, double lambda, double d, size_t n);
void lwt__gauss_kernel_free(lwt__gauss_kernel *k);

/* The cascade on the GPU (src/cuda/cuda_gauss.cu; LWT_ERR_UNSUPPORTED in a build without CUDA).
   Device arrays of nx x ny doubles, row-major, NaN = invalid. k[0] the S-filter's kernels (x,
   y), used when noise != 0; k[1] the L-filter's; k[2] the F-filter's. d_lev is read only; the
   bands go to d_band[LWT_BAND_FORM], [LWT_BAND_WAVINESS], [LWT_BAND_ROUGHNESS] and, with noise,
   [LWT_BAND_NOISE]. d_work: lwt__cuda_gauss_work_bytes(nx, ny, masked) bytes. Every value is
   the CPU's direct convolution bit for bit (the same taps in the same order, no fused
   multiply-add); runs on the current device and its default stream, synchronously. */
size_t lwt__cuda_gauss_work_bytes(size_t nx, size_t ny, int masked);
/* the longest half width the GPU's convolution holds in shared memory (0: no GPU) */
int lwt__cuda_gauss_max_half(void);
lwt_status lwt__cuda_gauss_cascade(const lwt__gauss_kernel k[3][2], int noise, size_t nx, size_t ny, int masked,
                                   const double *d_lev, double *const d_band[4], void *d_work);
/* The same from host arrays (lwt_filter_run --backend cuda): lev up, the bands down into
   band[] (each nx * ny doubles, allocated by the caller). */
lwt_status lwt__cuda_gauss_cascade_host(const lwt__gauss_kernel k[3][2], int noise, size_t nx, size_t ny, int masked,
                                        const double *lev, double *const band[4]);

/* gauss_conv.c's direct correlation of one line, for other filters' kernels: out[j] = w[0] a[j]
   + sum_{k=1..h} w[k] (a[j + k s] + a[j - k s]), or (odd) w[k] (a[j + k s] - a[j - k s]); h * s
   readable values (zeros) before a[0] and after a[n - 1]. No fused multiply-add. */
void lwt__gauss_conv_line(const double *a, double *out, size_t n, size_t s, const double *w, int h, int odd);

/* gauss_robust.c: the robust Gaussian regression filter of ISO 16610-71, areal, second order.
   At every valid point the mean surface is the value at that point of the quadratic in (x, y)
   fitted by least squares to the valid points under the Gaussian weight
   s(u, v) = exp(-pi ((u^2 + v^2) / (gamma lambda)^2)) (cut at +-LWT_RGAUSS_TRUNCATION lambda per
   axis) times each point's robustness weight: 1 in iteration 0 (the linear second-order
   regression filter), then Tukey's biweight (1 - (r / c)^2)^2 (0 beyond c) of the residuals
   r = z - mean surface of the previous iteration, c = 4.4 median |r| over the valid points.
   Stops when the largest change of the mean surface at a valid point is at most LWT_RGAUSS_TOL
   median |r| or after LWT_RGAUSS_MAX_ITER reweightings (bench/experiments/rgauss_probe.c: with
   1e-3 the plateau, milled and ground test surfaces stop after 9, 23 and 35 within 5e-3 median
   |r| of the converged result; 50 caps the slow cases, where one pit or border point creeps). gamma = 0.7309134: the constant for
   which the second-order regression (untruncated) transmits 50 % of a sinusoid of wavelength
   lambda (solved numerically here; Seewig's published 0.7309). docs/SURFACE.md, "Robust
   Gaussian regression filter". */
#define LWT_RGAUSS_GAMMA 0.7309134
#define LWT_RGAUSS_TRUNCATION 1.5
#define LWT_RGAUSS_TOL 1e-3
#define LWT_RGAUSS_MAX_ITER 50
typedef struct lwt__rgauss_info {
    int iterations; /* reweightings run (0: the linear second-order regression was kept) */
    int converged;  /* the stopping rule was met (else MAX_ITER ran out) */
    double change;  /* the last max |change| / median |r| */
    double scale;   /* the last median |r| (metres) */
} lwt__rgauss_info;
/* out = the mean surface of in (nx x ny, NaN = invalid; NaN at invalid points); info may be NULL.
   max_iter: reweightings at most, < 0: LWT_RGAUSS_MAX_ITER (0: the linear second-order regression
   filter); tol: the stopping rule's, < 0: LWT_RGAUSS_TOL. LWT_OK, LWT_ERR_INVALID_ARGUMENT (no valid point), LWT_ERR_OUT_OF_MEMORY. */
lwt_status lwt__rgauss_smooth(const double *in, size_t nx, size_t ny, double dx, double dy, double lambda,
                              int threads, int max_iter, double tol, lwt__rgauss_info *info, double *out);

/* The Gaussian band split (lwt_filter_run with spec->filter = LWT_FILTER_GAUSSIAN or
   LWT_FILTER_ROBUST_GAUSSIAN): spec read and
   checked by the caller; out zeroed. */
lwt_status lwt__gauss_filter_run(lwt_context *ctx, const lwt_filter_spec *spec, const double *z, size_t nx,
                                 size_t ny, double dx, double dy, lwt_filter_result *out);

#endif /* LWT_SURFACE_GAUSS_H */
