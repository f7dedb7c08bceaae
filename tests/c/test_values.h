/*
 * test_values.h - reference arrays and file contents shared by the .npy tests
 * (test_npy.c, test_mapped.c). Header-only.
 */
#ifndef LWT_TEST_VALUES_H
#define LWT_TEST_VALUES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lwt.h"
#include "io/npy.h" /* npy_elem_size */

/* Value of the element with C-order linear index i. Divisions are correctly
   rounded, so numpy computes exactly the same numbers. */
static double val64(size_t i) { return 1.0 / ((double)i + 3.0); }
static float val32(size_t i) { return (float)(1.0 / ((double)i + 3.0)); }
/* float16 bits of element i: finite values of either sign in [1, 2), their mantissas varied (for
   byte comparisons in C; no numpy file is compared with them) */
static unsigned short val16(size_t i) { return (unsigned short)(0x3c00u ^ ((i * 0x9e37u) & 0x83ffu)); }

static size_t prod(int ndim, const size_t *shape)
{
    size_t n = 1;
    for (int k = 0; k < ndim; k++)
        n *= shape[k];
    return n;
}

/* count values in C order, native byte order */
static void *make_values(lwt_dtype dt, size_t count)
{
    size_t es = npy_elem_size(dt);
    unsigned char *b = malloc(count * es + 1);
    for (size_t i = 0; i < count; i++) {
        if (dt == LWT_F16) {
            unsigned short v = val16(i);
            memcpy(b + i * es, &v, 2);
        } else if (dt == LWT_F32) {
            float v = val32(i);
            memcpy(b + i * es, &v, 4);
        } else {
            double v = val64(i);
            memcpy(b + i * es, &v, 8);
        }
    }
    return b;
}

/* the whole file, or NULL */
static unsigned char *slurp(const char *name, size_t *n)
{
    FILE *f = fopen(name, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, r;
    unsigned char *b = malloc(cap);
    while ((r = fread(b + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *n = len;
    return b;
}

#endif
