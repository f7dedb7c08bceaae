/* Plan internals, shared by the driver (plan.c) and the backends. */
#ifndef LWT_CORE_PLAN_H
#define LWT_CORE_PLAN_H

#include "core/backend.h"
#include "core/boxes.h"
#include "core/wavelet.h"
#include "lwt.h"

#define LWT_LEVELS_LIMIT 256

struct lwt_plan {
    const lwt_context *ctx;
    lwt_plan_desc desc;
    lwt_wavelet wavelet;            /* private copy: the plan outlives nothing */
    lwt_filter_bank fb;
    int ndim, levels, max_level, direct;
    lwt_backend backend;
    size_t shape[LWT_MAX_NDIM];
    /* sizes[j][k]: axis k length of the approximation after j levels (sizes[0] = shape) */
    size_t (*sizes)[LWT_MAX_NDIM];
    size_t packed[LWT_MAX_NDIM];
    size_t input_count, coeff_count;
    size_t buf_elems;               /* per ping-pong buffer */
    int tight;                      /* bands tile the packed array: no gaps to zero */
    lwt_box *gaps;                  /* else the parts no band covers, as blocks of the packed */
    size_t ngaps;                   /* array seen as gap_shape: 3-D, unit axes first, so the */
    size_t gap_shape[3];            /* last axis is a contiguous run */
    int device;                     /* CUDA device of a CUDA plan */
    void *cuda;                     /* the CUDA backend's per-plan state (device tables) */
};

static inline size_t lwt_plan_elem_size(const lwt_plan *p)
{
    return p->desc.dtype == LWT_F32 ? sizeof(float) : sizeof(double);
}


/* Runs the whole batch through a backend: in/out/workspace live in the
 * backend's memory; workspace holds 2 * buf_elems elements. */
lwt_status lwt_driver_run(const lwt_plan *p, const lwt_backend_ops *ops, void *bctx, const void *in, void *out,
                          void *workspace, int inverse);

#ifdef LWT_HAVE_CUDA
/* CUDA backend (src/cuda): device count, per-plan tables, host-pointer execution. */
int lwt_cuda_device_count(void);
lwt_status lwt_cuda_plan_init(lwt_plan *p);
void lwt_cuda_plan_free(lwt_plan *p);
lwt_status lwt_cuda_execute_host(const lwt_plan *p, const void *in, void *out, int inverse);
/* stream workers (src/stream/worker_cuda.cu) */
void lwt_cuda_plan_exact_f32(lwt_plan *p);
size_t lwt_cuda_pass_scratch(const lwt_plan *p, const lwt_pass *ps, int naive);
#endif

#endif


