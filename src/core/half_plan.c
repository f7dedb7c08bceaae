/*
 * float16 and bfloat16 plans, first version (docs/API.md, "16-bit storage"): the
 * float32 plan of the same description, run between two conversions. The 16-bit
 * input is widened (exactly) into a float32 buffer, the float32 plan transforms
 * it into a second one, and each result is rounded once to the 16-bit type
 * (core/half.h). So the result is the definition of a 16-bit transform by
 * construction; fused 16-bit kernels that halve the bytes moved come later and
 * must give the same bits.
 *
 * Workspace (host here, device in src/cuda/cuda_half.cu): the float32 input, the
 * float32 output (lwt_half_buf_bytes each), then the float32 plan's own.
 */
#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/context.h"
#include "core/half.h"
#include "core/plan.h"

lwt_status lwt_half_plan_create(lwt_context *ctx, const lwt_plan_desc *d, const lwt_plan_tuning *tuning,
                                lwt_plan **out)
{
    lwt_plan_desc d32 = *d;
    d32.dtype = LWT_F32;
    lwt_plan *f32;
    lwt_status st = lwt_plan_create_tuned(ctx, &d32, tuning, &f32);
    if (st)
        return st;
    lwt_plan *p = calloc(1, sizeof *p);
    if (!p) {
        lwt_plan_destroy(f32);
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_plan_create: out of memory");
    }
    lwt_ws_cache_init(&p->ws);
    p->ctx = ctx;
    p->desc = *d;
    p->desc.wavelet = &f32->wavelet;
    p->f32 = f32;
    *out = p;
    return LWT_OK;
}

/* float32 values of the larger side (input or coefficients) of the whole batch, in bytes,
   rounded up to 256 so that what follows stays aligned for any kernel */
size_t lwt_half_buf_bytes(const lwt_plan *p)
{
    const lwt_plan *q = p->f32;
    const size_t n = (q->input_count > q->coeff_count ? q->input_count : q->coeff_count) * q->desc.batch;
    return (n * sizeof(float) + 255) / 256 * 256;
}

size_t lwt_half_workspace_size(const lwt_plan *p)
{
    return 2 * lwt_half_buf_bytes(p) + p->f32->ops->workspace_size(p->f32);
}

/* threads of a conversion: the context's count (0 = all), one below 2^16 values; each value is
   converted on its own, so the bits do not depend on it */
static int conversion_threads(const lwt_plan *p, size_t n)
{
#ifdef _OPENMP
    if (n >= ((size_t)1 << 16))
        return p->ctx && p->ctx->threads > 0 ? p->ctx->threads : omp_get_max_threads();
#endif
    (void)p, (void)n;
    return 1;
}

static void widen(const lwt_plan *p, const uint16_t *in, float *out, size_t n)
{
    const int bf16 = p->desc.dtype == LWT_BF16;
    const long long m = (long long)n;
#pragma omp parallel for num_threads(conversion_threads(p, n)) schedule(static)
    for (long long i = 0; i < m; i++)
        out[i] = bf16 ? lwt_bf16_to_f32(in[i]) : lwt_f16_to_f32(in[i]);
}

static void narrow(const lwt_plan *p, const float *in, uint16_t *out, size_t n)
{
    const int bf16 = p->desc.dtype == LWT_BF16;
    const long long m = (long long)n;
#pragma omp parallel for num_threads(conversion_threads(p, n)) schedule(static)
    for (long long i = 0; i < m; i++)
        out[i] = bf16 ? lwt_f32_to_bf16(in[i]) : lwt_f32_to_f16(in[i]);
}

/* lwt_forward/lwt_inverse on host pointers, on either backend: the conversions run here
   and the float32 plan takes host pointers (a CUDA one copies through its device buffers) */
lwt_status lwt_half_execute(const lwt_plan *p, const void *in, void *out, void *workspace, int inverse)
{
    const lwt_plan *q = p->f32;
    const size_t B = q->desc.batch;
    const size_t nin = (inverse ? q->coeff_count : q->input_count) * B;
    const size_t nout = (inverse ? q->input_count : q->coeff_count) * B;
    const size_t bytes = lwt_half_workspace_size(p), buf = lwt_half_buf_bytes(p);
    int held = 0;
    char *ws = workspace ? workspace : lwt_ws_borrow(&((lwt_plan *)p)->ws, bytes, &held);
    if (!ws)
        return lwt_fail(p->ctx, LWT_ERR_OUT_OF_MEMORY, "cannot allocate a %zu-byte workspace", bytes);
    float *x = (float *)ws, *y = (float *)(ws + buf);
    void *inner_ws = q->ops->workspace_size(q) ? ws + 2 * buf : NULL;
    widen(p, in, x, nin);
    lwt_status st = inverse ? lwt_inverse(q, x, y, inner_ws) : lwt_forward(q, x, y, inner_ws);
    if (st == LWT_OK)
        narrow(p, y, out, nout);
    if (!workspace)
        lwt_ws_return(&((lwt_plan *)p)->ws, ws, held);
    return st;
}
