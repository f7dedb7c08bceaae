/* select.h - the k-th smallest value of an array (quickselect), header-only: the preview's colour
   range (io/png_preview.c) and the robust filter's median residual (surface/gauss_robust.c) share
   it, and io/ is a separate library that sees no internal symbol of liblwt. Deterministic: the
   same array gives the same value, whatever the thread count of the caller. */
#ifndef LWT_SURFACE_SELECT_H
#define LWT_SURFACE_SELECT_H

#include <stddef.h>

/* the k-th smallest of v[0..n) (partially reorders v): quickselect, median-of-three pivot */
static inline double lwt__select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p) i++;
            while (v[j] > p) j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

#endif
