/*
 * A build without nvcc: no CUDA backend. CMake compiles this file instead of
 * the .cu sources, so that the core asks lwt_cuda_backend() at run time and
 * never needs an #ifdef to know whether CUDA exists.
 */
#include <stddef.h>

#include "core/backend.h"
#include "surface/gauss.h"

const lwt_backend_ops *lwt_cuda_backend(void)
{
    return NULL;
}

int lwt_cuda_device_count(void)
{
    return 0;
}

int lwt_cuda_host_register(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    return -1;
}

void lwt_cuda_host_unregister(void *p)
{
    (void)p;
}

int lwt__cuda_gauss_max_half(void)
{
    return 0;
}

lwt_status lwt__cuda_gauss_cascade(const lwt__gauss_kernel k[3][2], int noise, size_t nx, size_t ny, int masked,
                                   const double *d_lev, double *const d_band[4], void *d_work)
{
    (void)k, (void)noise, (void)nx, (void)ny, (void)masked, (void)d_lev, (void)d_band, (void)d_work;
    return LWT_ERR_UNSUPPORTED;
}

lwt_status lwt__cuda_gauss_cascade_host(const lwt__gauss_kernel k[3][2], int noise, size_t nx, size_t ny, int masked,
                                        const double *lev, double *const band[4])
{
    (void)k, (void)noise, (void)nx, (void)ny, (void)masked, (void)lev, (void)band;
    return LWT_ERR_UNSUPPORTED;
}
