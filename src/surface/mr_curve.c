/* mr_curve.c - the areal material ratio curve (lwt_material_curve: lwt_surface.h): the valid
 * heights sorted, and the height, ratio and volume queries on the piecewise linear curve. */
#include "surface/mr_curve.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A double's bits as an unsigned key in the order of the values (sign flipped for positives, all
 * bits for negatives): a total order, -0 before +0, so the sorted bits are unique whatever the
 * method. */
static uint64_t key_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 63 ? ~u : u | (1ull << 63);
}

static double value_of(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~(1ull << 63) : ~k;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* LSD radix sort of n keys, 11-bit digits (6 passes; a digit all keys share is skipped: the high
 * digits of heights of one sign and scale mostly are), O(n) against qsort's O(n log n). Each
 * pass is split into nt fixed blocks of keys: every block counts its digits, a block's keys go
 * after those of the same digit in earlier blocks, so the pass is stable for any nt. Keys are
 * unique up to equal bits, so the result does not depend on nt at all. One core sorts the 16.7
 * million heights of a 4096^2 surface in about 1 s on the (loaded) development VM; the passes
 * scale with the cores. tmp holds n; returns the buffer holding the result, NULL without memory. */
#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define DIGITS ((64 + RADIX_BITS - 1) / RADIX_BITS)

static inline size_t digit(uint64_t k, int d)
{
    return (size_t)((k >> (d * RADIX_BITS)) & (RADIX - 1));
}

/* block b of nt over n items: [lo, hi) */
#define BLOCK_LO(n, b, nt) ((n) * (size_t)(b) / (size_t)(nt))

static uint64_t *radix_sort(uint64_t *k, uint64_t *tmp, size_t n, int nt)
{
    if ((size_t)nt > n / 65536 + 1)
        nt = (int)(n / 65536 + 1); /* at least 64 Ki keys a block */
    size_t *count = calloc((size_t)nt * RADIX, sizeof *count); /* [block][bucket] of one pass */
    if (!count)
        return NULL;
    for (int d = 0; d < DIGITS; d++) {
#pragma omp parallel for num_threads(nt) schedule(static, 1)
        for (int b = 0; b < nt; b++) {
            size_t *c = count + (size_t)b * RADIX;
            memset(c, 0, RADIX * sizeof *c);
            for (size_t i = BLOCK_LO(n, b, nt); i < BLOCK_LO(n, b + 1, nt); i++)
                c[digit(k[i], d)]++;
        }
        size_t same = 0; /* keys with the first key's digit: all of them, and the pass is skipped */
        for (int b = 0; b < nt; b++)
            same += count[(size_t)b * RADIX + digit(k[0], d)];
        if (same == n)
            continue;
        size_t sum = 0; /* each block's start per bucket: buckets in order, blocks in order within */
        for (size_t r = 0; r < RADIX; r++)
            for (int b = 0; b < nt; b++) {
                size_t t = count[(size_t)b * RADIX + r];
                count[(size_t)b * RADIX + r] = sum;
                sum += t;
            }
#pragma omp parallel for num_threads(nt) schedule(static, 1)
        for (int b = 0; b < nt; b++) {
            size_t *c = count + (size_t)b * RADIX;
            for (size_t i = BLOCK_LO(n, b, nt); i < BLOCK_LO(n, b + 1, nt); i++)
                tmp[c[digit(k[i], d)]++] = k[i];
        }
        uint64_t *t = k;
        k = tmp;
        tmp = t;
    }
    free(count);
    return k;
}

/* Sum of v[0..n) by halves: a fixed order whose error grows with log n, not n. */
static double pairwise_sum(const double *v, size_t n)
{
    if (n <= 32) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += v[i];
        return s;
    }
    return pairwise_sum(v, n / 2) + pairwise_sum(v + n / 2, n - n / 2);
}

lwt_status lwt_material_curve_create(lwt_context *ctx, const double *z, size_t nx, size_t ny, int threads,
                                     lwt_material_curve **out)
{
    if (!z || !out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_material_curve_create: NULL argument");
    *out = NULL;
    /* the valid points of fixed blocks of rows, counted, then copied as keys block after block
       (their order does not matter: the sorted keys are unique) */
    const int nt = lwt__surf_threads(threads);
    const int nb = ny < 64 ? 1 : 64;
    size_t cnt[65] = {0};
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int b = 0; b < nb; b++)
        for (size_t i = BLOCK_LO(ny, b, nb) * nx; i < BLOCK_LO(ny, b + 1, nb) * nx; i++)
            cnt[b + 1] += isfinite(z[i]) != 0;
    for (int b = 0; b < nb; b++)
        cnt[b + 1] += cnt[b];
    const size_t n = cnt[nb];
    if (n == 0)
        return lwt_fail(ctx, LWT_ERR_NO_DATA, "material ratio curve: no valid point");
    lwt_material_curve *c = calloc(1, sizeof *c);
    uint64_t *k = malloc(n * sizeof *k), *tmp = malloc(n * sizeof *tmp);
    if (!c || !k || !tmp) {
        free(c), free(k), free(tmp);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the material ratio curve of %zu points", n);
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int b = 0; b < nb; b++) {
        size_t m = cnt[b];
        for (size_t i = BLOCK_LO(ny, b, nb) * nx; i < BLOCK_LO(ny, b + 1, nb) * nx; i++)
            if (isfinite(z[i]))
                k[m++] = key_of(z[i]);
    }
    uint64_t *s = radix_sort(k, tmp, n, nt);
    if (!s) {
        free(c), free(k), free(tmp);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the material ratio curve of %zu points", n);
    }
    free(s == k ? tmp : k);
    /* back to doubles in place (a key and a double have the same size), then about the mean:
       subtracting one number keeps the order (rounding is monotonic) */
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) {
        double v = value_of(s[i]);
        memcpy(&s[i], &v, sizeof v); /* the memory is a double from here on (no aliasing) */
    }
    double *a = (double *)(void *)s;
    c->mean = pairwise_sum(a, n) / (double)n;
    const double mean = c->mean;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] -= mean;
    c->a = a;
    c->n = n;
    *out = c;
    return LWT_OK;
}

void lwt_material_curve_destroy(lwt_material_curve *c)
{
    if (c) {
        free(c->a);
        free(c);
    }
}

size_t lwt_material_curve_count(const lwt_material_curve *c)
{
    return c ? c->n : 0;
}

double lwt_material_curve_mean(const lwt_material_curve *c)
{
    return c ? c->mean : NAN;
}

double lwt_material_curve_smc(const lwt_material_curve *c, double mr)
{
    if (!c || isnan(mr))
        return NAN;
    mr = mr < 0 ? 0 : mr > 100 ? 100 : mr;
    return lwt__mr_at(c, (1.0 - mr / 100.0) * (double)(c->n - 1));
}

double lwt_material_curve_smr(const lwt_material_curve *c, double h)
{
    if (!c || isnan(h))
        return NAN;
    const double *a = c->a;
    const size_t n = c->n;
    if (h <= a[0])
        return 100.0;
    if (h > a[n - 1])
        return 0.0;
    /* the first point at or above h (a[0] < h <= a[n-1]): k >= 1 */
    size_t lo = 0, hi = n - 1; /* a[lo] < h <= a[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < h)
            lo = mid;
        else
            hi = mid;
    }
    double x = (double)lo + (h - a[lo]) / (a[hi] - a[lo]);
    return 100.0 * (1.0 - x / (double)(n - 1));
}

/* Each segment between neighbouring points spans 1 / (n - 1) of material ratio; the part of it
 * beyond h (above it for the peak material, below it for the void) is a trapezoid, a triangle
 * where the segment crosses h, or nothing. Summed from the far end inwards (a fixed order); the
 * void is the peak material of the negated curve (negation is exact). */
static double beyond(const lwt_material_curve *c, double h, int up)
{
    const double *a = c->a, sg = up ? 1.0 : -1.0, t = sg * h;
    const size_t n = c->n;
    double s = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t k = up ? n - 1 - i : i;
        double far = sg * a[k], near = sg * a[up ? k - 1 : k + 1];
        if (far <= t)
            break;
        s += near >= t ? 0.5 * (far + near) - t : 0.5 * (far - t) * (far - t) / (far - near);
    }
    return n > 1 ? s / (double)(n - 1) : 0.0;
}

double lwt__mr_above(const lwt_material_curve *c, double h)
{
    return beyond(c, h, 1);
}

double lwt__mr_below(const lwt_material_curve *c, double h)
{
    return beyond(c, h, 0);
}

double lwt_material_curve_vm(const lwt_material_curve *c, double p)
{
    return c && !isnan(p) ? lwt__mr_above(c, lwt_material_curve_smc(c, p)) : NAN;
}

double lwt_material_curve_vv(const lwt_material_curve *c, double p)
{
    return c && !isnan(p) ? lwt__mr_below(c, lwt_material_curve_smc(c, p)) : NAN;
}
