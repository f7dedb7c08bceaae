/* Arrays spread over devices by granules (cuda_spread_mem.cuh). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "cuda/cuda_spread_mem.cuh"

template <typename F> static lwt_status lookup(const lwt_context *ctx, const char *name, F *fn)
{
    void *p = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    /* the ABI of CUDA 12.0, which every function used here has kept */
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p) {
        cudaGetLastError();
        return lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "spread: the CUDA driver has no %s (%s)", name,
                        cudaGetErrorName(e));
    }
    *fn = (F)p;
    return LWT_OK;
}

lwt_status lwt_vmm_load(const lwt_context *ctx, lwt_vmm *v)
{
    memset(v, 0, sizeof *v);
    LWT_FORWARD(lookup(ctx, "cuMemGetAllocationGranularity", &v->granularity));
    LWT_FORWARD(lookup(ctx, "cuMemAddressReserve", &v->reserve));
    LWT_FORWARD(lookup(ctx, "cuMemAddressFree", &v->address_free));
    LWT_FORWARD(lookup(ctx, "cuMemCreate", &v->create));
    LWT_FORWARD(lookup(ctx, "cuMemRelease", &v->release));
    LWT_FORWARD(lookup(ctx, "cuMemMap", &v->map));
    LWT_FORWARD(lookup(ctx, "cuMemUnmap", &v->unmap));
    LWT_FORWARD(lookup(ctx, "cuMemSetAccess", &v->set_access));
    return LWT_OK;
}

static CUmemAllocationProp device_prop(int dev)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    return prop;
}

static int fail(CUresult r, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s failed (CUDA driver error %d)", what, (int)r);
    return (int)r;
}

void lwt_spread_mem_free(const lwt_vmm *v, lwt_spread_mem *m)
{
    for (int i = 0; i < m->nseg; i++) {
        if (m->seg[i].mapped)
            v->unmap((CUdeviceptr)(m->base + m->seg[i].off), m->seg[i].bytes);
        if (m->seg[i].handle)
            v->release(m->seg[i].handle);
    }
    if (m->base)
        v->address_free((CUdeviceptr)m->base, m->reserved);
    free(m->seg);
    memset(m, 0, sizeof *m);
}

int lwt_spread_mem_alloc(const lwt_vmm *v, const int *devs, int ndev, size_t bytes, lwt_spread_owner_fn owner,
                         const void *user, lwt_spread_mem *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    /* the largest minimum granularity of the devices, so every segment suits each */
    size_t gran = 0;
    for (int i = 0; i < ndev; i++) {
        CUmemAllocationProp prop = device_prop(devs[i]);
        size_t g = 0;
        CUresult r = v->granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        if (r != CUDA_SUCCESS)
            return fail(r, "cuMemGetAllocationGranularity", err, errlen);
        if (g > gran)
            gran = g;
    }
    const size_t ngran = (bytes ? bytes + gran - 1 : gran) / gran;
    m->bytes = bytes;
    m->reserved = ngran * gran;
    /* segments: runs of granules with one owner */
    m->seg = (lwt_spread_seg *)calloc(ngran, sizeof *m->seg);
    if (!m->seg) {
        snprintf(err, errlen, "out of host memory");
        return (int)CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t k = 0; k < ngran; k++) {
        const int d = owner(user, k * gran);
        if (m->nseg && m->seg[m->nseg - 1].device == d) {
            m->seg[m->nseg - 1].bytes += gran;
            continue;
        }
        m->seg[m->nseg].off = k * gran;
        m->seg[m->nseg].bytes = gran;
        m->seg[m->nseg].device = d;
        m->nseg++;
    }
    CUdeviceptr base = 0;
    CUresult r = v->reserve(&base, m->reserved, gran, 0, 0);
    if (r != CUDA_SUCCESS) {
        free(m->seg);
        memset(m, 0, sizeof *m);
        return fail(r, "cuMemAddressReserve", err, errlen);
    }
    m->base = (char *)base;
    for (int i = 0; i < m->nseg; i++) {
        lwt_spread_seg *s = &m->seg[i];
        CUmemAllocationProp prop = device_prop(s->device);
        r = v->create(&s->handle, s->bytes, &prop, 0);
        if (r != CUDA_SUCCESS) {
            s->handle = 0;
            lwt_spread_mem_free(v, m);
            return fail(r, "cuMemCreate", err, errlen);
        }
        r = v->map(base + s->off, s->bytes, 0, s->handle, 0);
        if (r != CUDA_SUCCESS) {
            lwt_spread_mem_free(v, m);
            return fail(r, "cuMemMap", err, errlen);
        }
        s->mapped = 1;
    }
    /* every device of the set reads and writes the whole range */
    CUmemAccessDesc acc[32];
    int nacc = 0;
    for (int i = 0; i < ndev && nacc < 32; i++) {
        int seen = 0;
        for (int k = 0; k < nacc; k++)
            seen |= acc[k].location.id == devs[i];
        if (seen)
            continue;
        acc[nacc].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        acc[nacc].location.id = devs[i];
        acc[nacc].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        nacc++;
    }
    r = v->set_access(base, m->reserved, acc, (size_t)nacc);
    if (r != CUDA_SUCCESS) {
        lwt_spread_mem_free(v, m);
        return fail(r, "cuMemSetAccess", err, errlen);
    }
    return 0;
}

int lwt_spread_mem_device(const lwt_spread_mem *m, size_t b)
{
    for (int i = 0; i < m->nseg; i++)
        if (b >= m->seg[i].off && b < m->seg[i].off + m->seg[i].bytes)
            return m->seg[i].device;
    return -1;
}
