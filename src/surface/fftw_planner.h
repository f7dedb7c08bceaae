/* fftw_planner.h - the one lock around FFTW's planner, shared by every FFTW user in liblwt
 * (acf.c, gauss_fft.c).
 *
 * FFTW's planner keeps global state and is not thread-safe (FFTW manual, "Thread safety"): plans
 * are made and destroyed under this lock; fftw_execute and the new-array execute functions need
 * none. The one piece of process-wide state in liblwt, and it belongs to FFTW; one lock, so two
 * callers planning at once (a Gaussian filter and the spatial parameters on two threads) cannot
 * race. Only compiled with LWT_HAVE_FFTW. */
#ifndef LWT_SURFACE_FFTW_PLANNER_H
#define LWT_SURFACE_FFTW_PLANNER_H

#ifdef LWT_HAVE_FFTW
void lwt__fftw_planner_lock(void);
void lwt__fftw_planner_unlock(void);
#endif

#endif
