/* mr_curve.c - the areal material ratio curve (lwt_material_curve: lwt_surface.h): the valid
 * heights sorted, and the height, ratio and volume queries on the piecewise linear curve. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */

#include "surface/mr_curve.h"
#include "core/fail.h"
#include "surface/threads.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

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
 * unique up to equal bits, so the result does not depend on nt at all. Alone it sorted the 16.7
 * million heights of a 4096^2 surface in 1.0-1.2 s of CPU on the (loaded) development VM, the
 * scatters with 2048 buckets each out of cache most of it (150-250 ms a pass, one with few
 * buckets 50 ms); now it only sorts a value bucket too large for the caches (sort_keys). tmp
 * holds n; returns the buffer holding the result, NULL without memory. */
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

/* A bucket of keys that fits the caches, sorted in place (tmp: as many): insertion when tiny, else
 * LSD radix by bytes with the histograms of all 8 digits from one read and the digits the bucket
 * shares skipped (its keys are heights within 1/BUCKETS of the range: sign, exponent and the top
 * mantissa bits are mostly one digit value, so 5-6 of the 8 passes run, each in cache). */
static void sort_bucket(uint64_t *k, uint64_t *tmp, size_t m)
{
    if (m <= 32) {
        for (size_t i = 1; i < m; i++) {
            const uint64_t v = k[i];
            size_t j = i;
            for (; j > 0 && k[j - 1] > v; j--)
                k[j] = k[j - 1];
            k[j] = v;
        }
        return;
    }
    size_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < m; i++) {
        const uint64_t v = k[i];
        for (int d = 0; d < 8; d++)
            cnt[d][(v >> (8 * d)) & 255]++;
    }
    uint64_t *src = k, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        size_t *c = cnt[d];
        if (c[(src[0] >> (8 * d)) & 255] == m)
            continue;
        size_t sum = 0;
        for (int r = 0; r < 256; r++) {
            const size_t t = c[r];
            c[r] = sum;
            sum += t;
        }
        for (size_t i = 0; i < m; i++)
            dst[c[(src[i] >> (8 * d)) & 255]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, m * sizeof *k);
}

/* Value buckets of the first pass: with the heights' range over 4096 buckets a Gaussian's
 * fullest bucket holds about 1e-3 of the points (16 Ki of a 4096^2 surface, 128 KiB: L2). */
#define BUCKETS 4096
/* A bucket beyond this many keys (8 MiB: a range stretched by far outliers) is sorted by
 * radix_sort, out of cache but with every thread. */
#define BUCKET_BIG ((size_t)1 << 20)

static inline size_t bucket_of(uint64_t key, double lo, double scale)
{
    const double b = (value_of(key) - lo) * scale; /* monotonic in the value, equal values alike */
    return b < BUCKETS - 1 ? (size_t)b : BUCKETS - 1;
}

/* The n keys of heights in [lo, hi] sorted: one stable pass into BUCKETS buckets by value (fixed
 * blocks as radix_sort's passes; a key's bucket never decreases with its value, and -0 and +0
 * share one), then each bucket by sort_bucket, in parallel, or by radix_sort when large. The
 * sorted keys are unique, so neither the blocks nor the threads change a bit of the result
 * (test_surface_mr.c compares thread counts and qsort). The curve of one 4096^2 surface (demo's
 * four: input, form, waviness, roughness), one thread, CPU time, same run, VM at a load of 2.5-4
 * (bench/experiments/mr_sort_probe.c): radix_sort alone 754-1201 ms, this 558-685 ms (505-626
 * with alloc_keys' huge pages). Returns the buffer holding the result (k or tmp), NULL without
 * memory. */
static uint64_t *sort_keys(uint64_t *k, uint64_t *tmp, size_t n, double lo, double hi, int nt)
{
    const double range = hi - lo, scale = (double)BUCKETS / range;
    if (n < 2 * BUCKETS || !(range > 0) || !isfinite(range) || !isfinite(scale) || !(scale > 0))
        return radix_sort(k, tmp, n, nt); /* few points, one value, or a range beyond the doubles */
    int nb = nt;
    if ((size_t)nb > n / 65536 + 1)
        nb = (int)(n / 65536 + 1);
    size_t *count = calloc((size_t)nb * BUCKETS + BUCKETS + 1, sizeof *count); /* [block][bucket], starts */
    if (!count)
        return NULL;
    size_t *start = count + (size_t)nb * BUCKETS;
#pragma omp parallel for num_threads(nb) schedule(static, 1)
    for (int b = 0; b < nb; b++) {
        size_t *c = count + (size_t)b * BUCKETS;
        for (size_t i = BLOCK_LO(n, b, nb); i < BLOCK_LO(n, b + 1, nb); i++)
            c[bucket_of(k[i], lo, scale)]++;
    }
    size_t sum = 0;
    for (size_t r = 0; r < BUCKETS; r++) {
        start[r] = sum;
        for (int b = 0; b < nb; b++) {
            const size_t t = count[(size_t)b * BUCKETS + r];
            count[(size_t)b * BUCKETS + r] = sum;
            sum += t;
        }
    }
    start[BUCKETS] = n;
#pragma omp parallel for num_threads(nb) schedule(static, 1)
    for (int b = 0; b < nb; b++) {
        size_t *c = count + (size_t)b * BUCKETS;
        for (size_t i = BLOCK_LO(n, b, nb); i < BLOCK_LO(n, b + 1, nb); i++)
            tmp[c[bucket_of(k[i], lo, scale)]++] = k[i];
    }
    /* tmp holds the buckets in order; each is sorted in place with k's same range as scratch */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 16)
    for (long long r = 0; r < BUCKETS; r++) {
        const size_t a = start[r], m = start[r + 1] - a;
        if (m <= BUCKET_BIG)
            sort_bucket(tmp + a, k + a, m);
    }
    int bad = 0;
    for (size_t r = 0; r < BUCKETS && !bad; r++) {
        const size_t a = start[r], m = start[r + 1] - a;
        if (m > BUCKET_BIG) {
            uint64_t *s = radix_sort(tmp + a, k + a, m, nt);
            if (!s)
                bad = 1;
            else if (s != tmp + a)
                memcpy(tmp + a, s, m * sizeof *s);
        }
    }
    free(count);
    return bad ? NULL : tmp;
}

/* n keys on 2 MiB boundaries, asked to be backed by huge pages where the kernel gives them on
 * request (transparent huge pages in "madvise" mode, as on the development VM): the two buffers
 * of a 4096^2 surface are 2 x 128 MiB, and with 4 KiB pages the kernel's zeroing of 65536 fresh
 * pages was 30 % of the curve's time (docs/PERFORMANCE.md) and the sort's scatters miss the TLB.
 * Same run as sort_keys' numbers: 505-626 ms a curve against 558-685 with malloc; the four
 * curves and parameters 3.0-4.7 s against 3.9-4.5 s in three alternating pairs (noisy: 2 of 3
 * faster). free() releases it. */
static uint64_t *alloc_keys(size_t n)
{
    void *p = NULL;
    const size_t bytes = n * sizeof(uint64_t), huge = (size_t)2 << 20;
    if (bytes < huge)
        return malloc(bytes);
    if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge))
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE); /* advice: no huge pages is fine */
#endif
    return p;
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
    double lo_b[64], hi_b[64]; /* the range of each block's valid heights (exact: no rounding) */
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int b = 0; b < nb; b++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = BLOCK_LO(ny, b, nb) * nx; i < BLOCK_LO(ny, b + 1, nb) * nx; i++)
            if (isfinite(z[i])) {
                cnt[b + 1]++;
                lo = z[i] < lo ? z[i] : lo;
                hi = z[i] > hi ? z[i] : hi;
            }
        lo_b[b] = lo;
        hi_b[b] = hi;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int b = 0; b < nb; b++) {
        cnt[b + 1] += cnt[b];
        lo = lo_b[b] < lo ? lo_b[b] : lo;
        hi = hi_b[b] > hi ? hi_b[b] : hi;
    }
    const size_t n = cnt[nb];
    if (n == 0)
        return lwt_fail(ctx, LWT_ERR_NO_DATA, "material ratio curve: no valid point");
    lwt_material_curve *c = calloc(1, sizeof *c);
    uint64_t *k = alloc_keys(n), *tmp = alloc_keys(n);
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
    uint64_t *s = sort_keys(k, tmp, n, lo, hi, nt);
    if (!s) {
        free(c), free(k), free(tmp);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the material ratio curve of %zu points", n);
    }
    if (s == tmp) { /* k: the sorted keys, tmp: the other buffer */
        tmp = k;
        k = s;
    }
    free(tmp);
    /* back to doubles in place (a key and a double have the same size), then about the mean:
       subtracting one number keeps the order (rounding is monotonic) */
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) {
        double v = value_of(k[i]);
        memcpy(&k[i], &v, sizeof v); /* the memory is a double from here on (no aliasing) */
    }
    double *a = (double *)(void *)k;
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
 * where the segment crosses h, or nothing. Summed from the far end inwards in fixed blocks
 * (MR_BLOCKS); the void is the peak material of the negated curve (negation is exact). */
static double beyond(const lwt_material_curve *c, double h, int up)
{
    const double *a = c->a, sg = up ? 1.0 : -1.0, t = sg * h;
    const size_t n = c->n;
    if (n < 2)
        return 0.0;
    /* the segments whose far point is beyond h: the points above h (up) or below it, found by
       bisection of the sorted heights (lo: the first point above h, or at or above it) */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (up ? a[mid] > h : a[mid] >= h)
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t cnt = up ? n - lo : lo;
    if (cnt > n - 1)
        cnt = n - 1;
    double part[MR_BLOCKS];
#pragma omp parallel for num_threads(lwt__surf_threads(0)) schedule(static)
    for (int b = 0; b < MR_BLOCKS; b++) {
        double s = 0;
        for (size_t i = MR_BLOCK_LO(cnt, b); i < MR_BLOCK_LO(cnt, b + 1); i++) {
            const size_t k = up ? n - 1 - i : i;
            const double far = sg * a[k], near = sg * a[up ? k - 1 : k + 1];
            s += near >= t ? 0.5 * (far + near) - t : 0.5 * (far - t) * (far - t) / (far - near);
        }
        part[b] = s;
    }
    double s = 0;
    for (int b = 0; b < MR_BLOCKS; b++)
        s += part[b];
    return s / (double)(n - 1);
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
