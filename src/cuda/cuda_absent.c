/*
 * A build without nvcc: no CUDA backend. CMake compiles this file instead of
 * the .cu sources, so that the core asks lwt_cuda_backend() at run time and
 * never needs an #ifdef to know whether CUDA exists.
 */
#include <stddef.h>

#include "core/backend.h"

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
