/* threads.h - OpenMP thread count for the surface loops, taken from the caller, never global. */
#ifndef LWT_SURFACE_THREADS_H
#define LWT_SURFACE_THREADS_H

#ifdef _OPENMP
#include <omp.h>
#endif

/* threads > 0: that many; 0: OpenMP's default for this process. Always >= 1. */
static inline int lwt__surf_threads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

#endif
