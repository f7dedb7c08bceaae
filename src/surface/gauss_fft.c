/* gauss_fft.c - the Gaussian's line convolution through the FFT, for long kernels (gauss.h). */
#define _POSIX_C_SOURCE 200809L

#include "surface/gauss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lwt__gauss_fft {
    size_t n;        /* points per line */
    size_t N;        /* transform length: a power of two >= n + 2h, so no output wraps onto another */
    size_t *rev;     /* bit reversal of 0..N-1 */
    double *tw;      /* per stage of half length m, at m - 1: cos, -sin, +sin of pi k / m, k < m (N - 1 each) */
    double *W;       /* the kernel's spectrum (real: the kernel is even), divided by N */
};

void lwt__gauss_fft_free(lwt__gauss_fft *p)
{
    if (!p)
        return;
    free(p->rev);
    free(p->tw);
    free(p->W);
    free(p);
}

/* Radix-2 decimation in time on (re, im), in place; sign -1 forward, +1 backward (unscaled).
   Each stage's twiddles are contiguous, so the butterfly loop over k vectorizes; the first two
   stages (twiddles 1 and -+i) are one radix-4 pass without multiplications. Cloned per
   instruction set like conv_sym (gauss_conv.c), without contraction: the same bits on each. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void fft_run(const lwt__gauss_fft *p, double *restrict re, double *restrict im, int sign)
{
    const size_t N = p->N;
    for (size_t i = 0; i < N; i++) {
        const size_t j = p->rev[i];
        if (j > i) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    size_t m = 1;
    if (N >= 4) { /* stages m = 1 and 2 together: x0..x3 -> radix-4 butterfly, twiddle sign * i */
        for (size_t i = 0; i < N; i += 4) {
            const double a0r = re[i] + re[i + 1], a0i = im[i] + im[i + 1];
            const double a1r = re[i] - re[i + 1], a1i = im[i] - im[i + 1];
            const double b0r = re[i + 2] + re[i + 3], b0i = im[i + 2] + im[i + 3];
            const double b1r = re[i + 2] - re[i + 3], b1i = im[i + 2] - im[i + 3];
            /* b1 times the twiddle of k = 1 at m = 2: cos 0 - sign... = (0, sign) i.e. sign * i */
            const double tr = sign < 0 ? b1i : -b1i, ti = sign < 0 ? -b1r : b1r;
            re[i] = a0r + b0r, im[i] = a0i + b0i;
            re[i + 2] = a0r - b0r, im[i + 2] = a0i - b0i;
            re[i + 1] = a1r + tr, im[i + 1] = a1i + ti;
            re[i + 3] = a1r - tr, im[i + 3] = a1i - ti;
        }
        m = 4;
    }
    const double *tc = p->tw, *ts = p->tw + (sign < 0 ? N - 1 : 2 * (N - 1));
    for (; m < N; m <<= 1) {
        const double *restrict c = tc + (m - 1), *restrict s = ts + (m - 1);
        for (size_t i = 0; i < N; i += 2 * m) {
            double *restrict ar = re + i, *restrict ai = im + i, *restrict br = re + i + m, *restrict bi = im + i + m;
            for (size_t k = 0; k < m; k++) {
                const double sk = s[k];
                const double tr = br[k] * c[k] - bi[k] * sk, ti = br[k] * sk + bi[k] * c[k];
                br[k] = ar[k] - tr;
                bi[k] = ai[k] - ti;
                ar[k] += tr;
                ai[k] += ti;
            }
        }
    }
}

lwt__gauss_fft *lwt__gauss_fft_make(const double *w, int h, size_t n)
{
    lwt__gauss_fft *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    size_t N = 2, bits = 1;
    while (N < n + 2 * (size_t)h)
        N <<= 1, bits++;
    p->n = n;
    p->N = N;
    p->rev = malloc(N * sizeof *p->rev);
    p->tw = malloc(3 * (N - 1) * sizeof *p->tw);
    p->W = calloc(N, sizeof *p->W);
    double *im = calloc(N, sizeof *im);
    if (!p->rev || !p->tw || !p->W || !im) {
        free(im);
        lwt__gauss_fft_free(p);
        return NULL;
    }
    for (size_t i = 0; i < N; i++) {
        size_t r = 0;
        for (size_t b = 0; b < bits; b++)
            r |= ((i >> b) & 1) << (bits - 1 - b);
        p->rev[i] = r;
    }
    const double pi = acos(-1.0);
    for (size_t m = 1; m < N; m <<= 1)
        for (size_t k = 0; k < m; k++) {
            p->tw[m - 1 + k] = cos(pi * (double)k / (double)m);
            p->tw[N - 1 + m - 1 + k] = -sin(pi * (double)k / (double)m);
            p->tw[2 * (N - 1) + m - 1 + k] = sin(pi * (double)k / (double)m);
        }
    /* the even kernel wrapped around index 0: its transform is real */
    p->W[0] = w[0];
    for (int k = 1; k <= h; k++)
        p->W[k] = p->W[N - (size_t)k] = w[k];
    fft_run(p, p->W, im, -1);
    for (size_t i = 0; i < N; i++)
        p->W[i] /= (double)N;
    free(im);
    return p;
}

size_t lwt__gauss_fft_scratch(const lwt__gauss_fft *p)
{
    return 2 * p->N;
}

void lwt__gauss_fft_pair(const lwt__gauss_fft *p, const double *a0, const double *a1, size_t stride, double *o0,
                         double *o1, size_t ostride, double *scratch)
{
    const size_t n = p->n, N = p->N;
    double *re = scratch, *im = scratch + N;
    for (size_t i = 0; i < n; i++) {
        re[i] = a0[i * stride];
        im[i] = a1 ? a1[i * stride] : 0.0;
    }
    memset(re + n, 0, (N - n) * sizeof *re);
    memset(im + n, 0, (N - n) * sizeof *im);
    /* both lines at once: the kernel is real, so the real and imaginary parts stay apart */
    fft_run(p, re, im, -1);
    for (size_t i = 0; i < N; i++) {
        re[i] *= p->W[i];
        im[i] *= p->W[i];
    }
    fft_run(p, re, im, +1);
    for (size_t i = 0; i < n; i++) {
        o0[i * ostride] = re[i];
        if (o1)
            o1[i * ostride] = im[i];
    }
}
