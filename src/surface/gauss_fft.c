/* gauss_fft.c - the Gaussian's line convolution through FFTW, for long kernels (gauss.h).
 *
 * One line per transform: a real-to-complex FFT of the zero-padded line, times the kernel's
 * spectrum (real: the kernel is even), complex-to-real back. The plans are FFTW_ESTIMATE (chosen
 * without timing: the same sizes always run the same codelets) and made once per axis on
 * fftw_malloc'ed arrays; every line runs them through the new-array execute functions on a
 * per-thread work area from lwt__gauss_fft_work_new (also fftw_malloc'ed, so aligned as the
 * plan's arrays and run by the same code): a line's bits do not depend on the thread that does
 * it. Without FFTW (LWT_WITH_FFTW=OFF or not found) lwt__gauss_fft_available() is 0 and
 * gauss_conv.c convolves every axis directly. */
#define _POSIX_C_SOURCE 200809L

#include "surface/gauss.h"

#ifndef LWT_HAVE_FFTW

int lwt__gauss_fft_available(void)
{
    return 0;
}

size_t lwt__gauss_fft_length(size_t n, int h)
{
    return n + (size_t)h;
}

lwt__gauss_fft *lwt__gauss_fft_make(const double *w, int h, size_t n)
{
    (void)w, (void)h, (void)n;
    return NULL;
}

void lwt__gauss_fft_free(lwt__gauss_fft *p)
{
    (void)p;
}

lwt__gauss_fft_work *lwt__gauss_fft_work_new(const lwt__gauss_fft *p)
{
    (void)p;
    return NULL;
}

void lwt__gauss_fft_work_free(lwt__gauss_fft_work *t)
{
    (void)t;
}

void lwt__gauss_fft_line(const lwt__gauss_fft *p, const double *a, size_t stride, double *o, size_t ostride,
                         lwt__gauss_fft_work *t)
{
    (void)p, (void)a, (void)stride, (void)o, (void)ostride, (void)t;
}

#else
#include "surface/fftw_planner.h"

#include <fftw3.h>
#include <stdlib.h>
#include <string.h>

struct lwt__gauss_fft {
    size_t n;       /* points per line */
    size_t N;       /* transform length (lwt__gauss_fft_length) */
    double *W;      /* the kernel's spectrum at 0..N/2, divided by N (fftw_malloc) */
    fftw_plan fwd;  /* r2c, N real -> N/2 + 1 complex */
    fftw_plan inv;  /* c2r, N/2 + 1 complex -> N real */
};

struct lwt__gauss_fft_work {
    double *x;       /* N reals (fftw_malloc) */
    fftw_complex *f; /* N/2 + 1 complex (fftw_malloc) */
};

int lwt__gauss_fft_available(void)
{
    return 1;
}

/* The smallest even N >= n + h with no prime factor above 7 (FFTW's codelets cover 2, 3, 5 and
   7; a larger factor takes its slower generic or Rader code). n + h: the kernel's taps at -h..h
   around output j < n meet the line's points j - h..j + h; circularly, index j + h <= n - 1 + h
   < N stays below the wrap and j - h >= -h lands on N - h >= n, in the zero padding. */
size_t lwt__gauss_fft_length(size_t n, int h)
{
    for (size_t N = n + (size_t)h + ((n + (size_t)h) & 1);; N += 2) {
        size_t m = N;
        for (size_t f = 2; f <= 7; f++)
            while (m % f == 0)
                m /= f;
        if (m == 1)
            return N;
    }
}

void lwt__gauss_fft_free(lwt__gauss_fft *p)
{
    if (!p)
        return;
    lwt__fftw_planner_lock();
    if (p->fwd)
        fftw_destroy_plan(p->fwd);
    if (p->inv)
        fftw_destroy_plan(p->inv);
    lwt__fftw_planner_unlock();
    fftw_free(p->W);
    free(p);
}

lwt__gauss_fft_work *lwt__gauss_fft_work_new(const lwt__gauss_fft *p)
{
    lwt__gauss_fft_work *t = malloc(sizeof *t);
    if (!t)
        return NULL;
    t->x = fftw_malloc(p->N * sizeof *t->x);
    t->f = fftw_malloc((p->N / 2 + 1) * sizeof *t->f);
    if (!t->x || !t->f) {
        lwt__gauss_fft_work_free(t);
        return NULL;
    }
    return t;
}

void lwt__gauss_fft_work_free(lwt__gauss_fft_work *t)
{
    if (!t)
        return;
    fftw_free(t->x);
    fftw_free(t->f);
    free(t);
}

lwt__gauss_fft *lwt__gauss_fft_make(const double *w, int h, size_t n)
{
    lwt__gauss_fft *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    const size_t N = lwt__gauss_fft_length(n, h), M = N / 2 + 1;
    p->n = n;
    p->N = N;
    p->W = fftw_malloc(M * sizeof *p->W);
    double *e = fftw_malloc(M * sizeof *e);
    lwt__gauss_fft_work *t = lwt__gauss_fft_work_new(p);
    if (!p->W || !e || !t) {
        fftw_free(e);
        lwt__gauss_fft_work_free(t);
        lwt__gauss_fft_free(p);
        return NULL;
    }
    /* the even kernel's spectrum, real by construction: REDFT00 of w[0..M-1] (zeros past h; h <
       N/2 since N >= n + h > 2h) is the DFT of length 2 (M - 1) = N of w wrapped around 0 */
    lwt__fftw_planner_lock();
    fftw_plan ev = fftw_plan_r2r_1d((int)M, e, p->W, FFTW_REDFT00, FFTW_ESTIMATE);
    p->fwd = fftw_plan_dft_r2c_1d((int)N, t->x, t->f, FFTW_ESTIMATE);
    p->inv = fftw_plan_dft_c2r_1d((int)N, t->f, t->x, FFTW_ESTIMATE);
    lwt__fftw_planner_unlock();
    int ok = ev && p->fwd && p->inv;
    if (ok) {
        memset(e, 0, M * sizeof *e);
        memcpy(e, w, ((size_t)h + 1) * sizeof *e);
        fftw_execute(ev);
        for (size_t k = 0; k < M; k++)
            p->W[k] /= (double)N;
    }
    lwt__fftw_planner_lock();
    if (ev)
        fftw_destroy_plan(ev);
    lwt__fftw_planner_unlock();
    fftw_free(e);
    lwt__gauss_fft_work_free(t);
    if (!ok) {
        lwt__gauss_fft_free(p);
        return NULL;
    }
    return p;
}

void lwt__gauss_fft_line(const lwt__gauss_fft *p, const double *a, size_t stride, double *o, size_t ostride,
                         lwt__gauss_fft_work *t)
{
    const size_t n = p->n, N = p->N, M = N / 2 + 1;
    double *x = t->x;
    fftw_complex *f = t->f;
    for (size_t i = 0; i < n; i++)
        x[i] = a[i * stride];
    memset(x + n, 0, (N - n) * sizeof *x);
    fftw_execute_dft_r2c(p->fwd, x, f);
    for (size_t k = 0; k < M; k++) {
        f[k][0] *= p->W[k];
        f[k][1] *= p->W[k];
    }
    fftw_execute_dft_c2r(p->inv, f, x); /* overwrites f: FFTW's c2r destroys its input */
    for (size_t i = 0; i < n; i++)
        o[i * ostride] = x[i];
}
#endif
