/*
 * Arrays in one address range whose parts live on different devices (CUDA
 * virtual memory management): each 2 MiB granule of the range is physical
 * memory of the device an owner function names, mapped readable and writable
 * by every device of the set. Kernels then reach their neighbours' rows over
 * NVLink and their own locally, through one pointer.
 *
 * The driver API is reached through the runtime's entry-point lookup: the
 * library does not link libcuda, so it still loads where no driver is
 * installed (CI without a GPU).
 */
#ifndef LWT_CUDA_SPREAD_MEM_CUH
#define LWT_CUDA_SPREAD_MEM_CUH

#include <cuda.h>
#include <stddef.h>

#include "core/fail.h"

/* the driver functions, looked up once per user (no process-wide state) */
typedef struct lwt_vmm {
    decltype(&cuMemGetAllocationGranularity) granularity;
    decltype(&cuMemAddressReserve) reserve;
    decltype(&cuMemAddressFree) address_free;
    decltype(&cuMemCreate) create;
    decltype(&cuMemRelease) release;
    decltype(&cuMemMap) map;
    decltype(&cuMemUnmap) unmap;
    decltype(&cuMemSetAccess) set_access;
} lwt_vmm;

typedef struct lwt_spread_seg {
    size_t off, bytes;
    int device;
    CUmemGenericAllocationHandle handle;
    int mapped;
} lwt_spread_seg;

typedef struct lwt_spread_mem {
    char *base;
    size_t reserved; /* bytes of address range (whole granules) */
    size_t bytes;    /* bytes asked for */
    lwt_spread_seg *seg;
    int nseg;
} lwt_spread_mem;

/* LWT_OK, or LWT_ERR_UNSUPPORTED logged (no driver entry points, old driver) */
lwt_status lwt_vmm_load(const lwt_context *ctx, lwt_vmm *v);

/* The device that holds byte b of the array. */
typedef int (*lwt_spread_owner_fn)(const void *user, size_t byte);

/*
 * `bytes` in one range over the devices devs[0..ndev) (repeats allowed), granule
 * by granule on owner(user, granule's first byte), a device of devs. Every
 * device of devs may read and write all of it. 0, or a CUDA driver error code
 * with a reason in err; m is then empty.
 */
int lwt_spread_mem_alloc(const lwt_vmm *v, const int *devs, int ndev, size_t bytes, lwt_spread_owner_fn owner,
                         const void *user, lwt_spread_mem *m, char *err, size_t errlen);
void lwt_spread_mem_free(const lwt_vmm *v, lwt_spread_mem *m);

/* the device holding byte b of m (-1 outside it) */
int lwt_spread_mem_device(const lwt_spread_mem *m, size_t b);

#endif
