/*
 * lwt_cuda.h - device-pointer entry points of liblwt (CUDA builds).
 *
 * A plan made with backend LWT_BACKEND_CUDA (or AUTO on a machine with a GPU)
 * is bound to desc.device. lwt_forward / lwt_inverse accept host pointers and
 * copy in and out; the functions below run on device pointers, asynchronously
 * on the caller's stream, with no host synchronization and no allocation.
 */
#ifndef LWT_CUDA_H
#define LWT_CUDA_H

#include <cuda_runtime.h>

#include "lwt.h"
#include "lwt_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of device workspace one lwt_*_device call needs for this plan (a float16/bfloat16
 *  plan's holds its float32 input and output as well: docs/API.md, "16-bit storage"). */
LWT_API lwt_status lwt_plan_device_workspace_size(const lwt_plan *plan, size_t *bytes);

/** Forward on device memory: in (input_count x batch), out (coeff_count x batch),
 *  workspace of lwt_plan_device_workspace_size bytes, all on the plan's device. */
LWT_API lwt_status lwt_forward_device(const lwt_plan *plan, const void *d_in, void *d_out, void *d_workspace,
                                      cudaStream_t stream);
LWT_API lwt_status lwt_inverse_device(const lwt_plan *plan, const void *d_in, void *d_out, void *d_workspace,
                                      cudaStream_t stream);

/*
 * Device-resident transforms spread over several GPUs of one host.
 *
 * A spread holds a CUDA plan's work for a set of devices. Its arrays
 * (lwt_spread_alloc) are one pointer each, valid on every device of the set,
 * whose rows live on the device that computes them (CUDA virtual memory:
 * 2 MiB granules placed by rows, mapped for every device; a packed coefficient
 * row, which holds bands of several levels, on the device of its coarsest
 * band). Each 2-D level
 * runs as one register-kernel launch per device over that device's share of
 * the level's tiles: a device writes its own rows, reads the halo rows of its
 * neighbours over NVLink, and waits for the others between levels.
 *
 * The result has the bits of lwt_forward_device / lwt_inverse_device on one
 * device for any number of devices (the same tiles run the same kernel).
 * Plans some of whose levels do not run the register kernel (other lifting
 * shapes, the forward of smooth and antireflect, 1-D and 3-D plans, batches)
 * run whole on the plan's device, on the same arrays (lwt_spread_split says
 * which). Devices may repeat in the list (one GPU then plays several).
 */
typedef struct lwt_spread lwt_spread;

typedef enum lwt_spread_array {
    LWT_SPREAD_SAMPLES = 0, /* the plan's input_count values: the image a forward reads */
    LWT_SPREAD_COEFFS = 1   /* coeff_count values, the packed layout */
} lwt_spread_array;

/** A spread of a CUDA plan (which must outlive it) over devices[0..ndevices), at most 16,
 *  the plan's device among them; every pair must have peer access. */
LWT_API lwt_status lwt_spread_create(const lwt_plan *plan, int ndevices, const int *devices, lwt_spread **out);
/** An array of the plan's samples or coefficients, its rows on the devices that compute them. */
LWT_API lwt_status lwt_spread_alloc(lwt_spread *s, lwt_spread_array what, void **ptr);
LWT_API lwt_status lwt_spread_free(lwt_spread *s, void *ptr);
/** The device holding byte `byte` of an array from lwt_spread_alloc. */
LWT_API lwt_status lwt_spread_device_of(const lwt_spread *s, const void *ptr, size_t byte, int *device);
/** 1 where the direction's levels are shared out over the devices, 0 where the whole
 *  transform runs on the plan's device. */
LWT_API int lwt_spread_split(const lwt_spread *s, int inverse);
/** Forward / inverse on arrays every device of the set can reach (lwt_spread_alloc's).
 *  Waits first for the work already issued to those devices, returns when the result is
 *  complete; one call at a time. */
LWT_API lwt_status lwt_spread_forward(lwt_spread *s, const void *in, void *coeffs);
LWT_API lwt_status lwt_spread_inverse(lwt_spread *s, const void *coeffs, void *out);
LWT_API void lwt_spread_destroy(lwt_spread *s); /* frees its arrays too; NULL is a no-op */

#ifdef __cplusplus
}
#endif
#endif
