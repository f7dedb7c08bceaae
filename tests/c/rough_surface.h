/*
 * rough_surface.h - a test surface with structure at every scale along both axes (a slope in y,
 * a slow wave along x, a faster one along y and uniform noise from a fixed xorshift), shared by
 * the per-axis split tests (tests/c/test_surface_axes.c, tests/gpu/test_gpu_axes.c). Header-only.
 */
#ifndef LWT_TEST_ROUGH_SURFACE_H
#define LWT_TEST_ROUGH_SURFACE_H

#include <math.h>
#include <stddef.h>

static void rough_surface(double *z, size_t nx, size_t ny)
{
    unsigned long long s = 88172645463325252ull;
    for (size_t r = 0; r < ny; r++)
        for (size_t c = 0; c < nx; c++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            const double u = (double)(s >> 11) / 9007199254740992.0 - 0.5;
            z[r * nx + c] = 0.003 * (double)r + 2 * sin(0.02 * (double)c) + sin(0.11 * (double)r) + u;
        }
}

#endif
