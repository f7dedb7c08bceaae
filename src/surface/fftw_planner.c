/* fftw_planner.c - the one lock around FFTW's planner (fftw_planner.h). */
#include "surface/fftw_planner.h"

#ifdef LWT_HAVE_FFTW
#include <pthread.h>

static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;

void lwt__fftw_planner_lock(void)
{
    pthread_mutex_lock(&planner);
}

void lwt__fftw_planner_unlock(void)
{
    pthread_mutex_unlock(&planner);
}
#else
typedef int lwt__fftw_planner_unused; /* ISO C: a translation unit declares something */
#endif
