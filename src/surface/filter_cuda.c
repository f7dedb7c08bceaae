/*
 * filter_cuda.c - device-resident band split for CUDA plans (filter_cuda.h).
 *
 * Plain C on the CUDA runtime API and liblwt's device-pointer entry points (lwt_cuda.h): the
 * same plan, hence the same kernels, as the host-pointer lwt_forward / lwt_inverse calls that
 * filter.c made before, so the bands are the same bits. What changes is the data movement:
 *
 *   device: in (= out[0] after the forward), coef, mask, out[1], workspace; allocated once.
 *   host:   NSLOTS pinned staging slots of CHUNK_BYTES each (cudaHostAlloc), reused.
 *   streams: comp (upload, forward, per band: mask + inverse), copy (downloads).
 *
 *   upload   chunk by chunk: host converts double -> plan dtype into a free slot (OpenMP),
 *            cudaMemcpyAsync H2D on comp; the slot's event tells when it is free again.
 *   forward  lwt_forward_device(in -> coef) on comp.
 *   band b   on comp: mask = 0 (cudaMemsetAsync); the band's blocks of coef copied into mask
 *            (cudaMemcpy2DAsync D2D, one per (level, detail mask) block, positions from
 *            lwt_plan_band) - exactly the array the host path built with memset + memcpy;
 *            lwt_inverse_device(mask -> out[b % 2]); event inv[b].
 *   drain b  copy waits for inv[b]; out[b % 2] comes down chunk by chunk through the slots;
 *            the host converts each chunk to double into job->band[b] (OpenMP), NaN at the
 *            invalid points, while the next chunks are in flight.
 *
 * Order of the host: upload; enqueue forward, band 0, band 1; then for b = 0, 1, ...:
 * drain b, enqueue band b + 2. So band b + 1's GPU work runs during drain b, and band b + 2
 * reuses out[b % 2] only after the host has waited for every download of band b (no extra
 * event is needed for that). The mask buffer is only touched on comp, in order.
 */
#ifdef LWT_HAVE_CUDA

#define _POSIX_C_SOURCE 200809L

#include "surface/filter_cuda.h"
#include "surface/threads.h"

#include <cuda_runtime.h>

#include "lwt_cuda.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CHUNK_BYTES ((size_t)16 << 20) /* one pinned staging slot: 16 MiB, ~0.3 ms on PCIe 5 */
#define NSLOTS 4                       /* slots in flight (64 MiB pinned in all) */

/* Every CUDA runtime call goes through CK: on error, a message naming the call and the step,
 * status LWT_ERR_DEVICE, and a jump to the single cleanup path. */
#define CK(call, what)                                                                                   \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                         \
            st = lwt_filter_fail(err, errlen, LWT_ERR_DEVICE, "CUDA error %s (%s) %s [%s]", cudaGetErrorName(e_),   \
                      cudaGetErrorString(e_), what, #call);                                              \
            goto done;                                                                                   \
        }                                                                                                \
    } while (0)

static void progress(const lwt_filter_spec *s, int step, int steps, const char *what)
{
    if (s->progress)
        s->progress(s->progress_user, step, steps, what);
}

/* host double -> plan dtype (staging for the upload) */
static void to_plan_dtype(void *dst, const double *src, size_t count, int f32, int nt)
{
    if (f32) {
        float *d = (float *)dst;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long long i = 0; i < (long long)count; i++)
            d[i] = (float)src[i];
    } else {
        double *d = (double *)dst;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long long i = 0; i < (long long)count; i++)
            d[i] = src[i];
    }
}

/* plan dtype (staging, after the download) -> double band; z != NULL: NaN where z is not finite
 * (the host path's "convert, then o[i] = NAN where !isfinite(z[i])", fused) */
static void from_plan_dtype(double *o, const void *src, const double *z, size_t count, int f32, int nt)
{
    if (f32) {
        const float *s = (const float *)src;
        if (z) {
#pragma omp parallel for num_threads(nt) schedule(static)
            for (long long i = 0; i < (long long)count; i++)
                o[i] = isfinite(z[i]) ? (double)s[i] : NAN;
        } else {
#pragma omp parallel for num_threads(nt) schedule(static)
            for (long long i = 0; i < (long long)count; i++)
                o[i] = (double)s[i];
        }
    } else {
        const double *s = (const double *)src;
        if (z) {
#pragma omp parallel for num_threads(nt) schedule(static)
            for (long long i = 0; i < (long long)count; i++)
                o[i] = isfinite(z[i]) ? s[i] : NAN;
        } else {
#pragma omp parallel for num_threads(nt) schedule(static)
            for (long long i = 0; i < (long long)count; i++)
                o[i] = s[i];
        }
    }
}

/* an empty band: exactly zero, NaN at the invalid points */
static void zero_band(double *o, const double *z, size_t count, int nt)
{
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long i = 0; i < (long long)count; i++)
        o[i] = z && !isfinite(z[i]) ? NAN : 0.0;
}

typedef struct gpu {
    void *in, *coef, *mask, *out1, *ws; /* device; out[0] is `in` (free once the forward ran) */
    void *stage;                        /* pinned host: NSLOTS x CHUNK_BYTES */
    cudaStream_t comp, copy;
    cudaEvent_t slot[NSLOTS];           /* last copy through slot s (H2D or D2H) */
    cudaEvent_t inv[LWT_BAND_COUNT];    /* band b's inverse done (its out buffer is complete) */
    cudaEvent_t fwd;                    /* forward done */
} gpu;

static char *slot_ptr(const gpu *g, int s)
{
    return (char *)g->stage + (size_t)s * CHUNK_BYTES;
}

static void *out_buf(const gpu *g, int b)
{
    return b % 2 ? g->out1 : g->in;
}

/* band b's GPU work on comp: mask = its blocks of coef, zero elsewhere; inverse into out[b % 2] */
static lwt_status enqueue_band(const lwt_filter_cuda_job *job, const gpu *g, const lwt_plan_info *info, int b,
                               char *err, size_t errlen)
{
    lwt_status st = LWT_OK;
    const size_t esz = job->dtype == LWT_F32 ? sizeof(float) : sizeof(double);
    const size_t pitch = info->packed_shape[1] * esz;
    if (b >= job->nbands || !job->keep[b])
        return LWT_OK; /* nothing to do on the GPU (no such band, or an empty one) */
    CK(cudaMemsetAsync(g->mask, 0, info->coeff_count * esz, g->comp), "zeroing a band's coefficients");
    for (int lev = 0; lev <= info->levels; lev++) {
        if (!((job->keep[b] >> lev) & 1))
            continue;
        for (unsigned m = lev ? 1 : 0; m <= (lev ? 3u : 0u); m++) {
            lwt_band bd;
            lwt_status bs = lwt_plan_band(job->plan, lev, m, &bd);
            if (bs != LWT_OK)
                return lwt_filter_fail(err, errlen, LWT_ERR_INTERNAL, "no packed band for level %d mask %u: %s", lev, m,
                            lwt_status_string(bs));
            if (!bd.shape[0] || !bd.shape[1])
                continue;
            size_t at = (bd.offset[0] * info->packed_shape[1] + bd.offset[1]) * esz;
            CK(cudaMemcpy2DAsync((char *)g->mask + at, pitch, (const char *)g->coef + at, pitch, bd.shape[1] * esz,
                                 bd.shape[0], cudaMemcpyDeviceToDevice, g->comp),
               "copying a coefficient block");
        }
    }
    if ((st = lwt_inverse_device(job->plan, g->mask, out_buf(g, b), g->ws, g->comp)) != LWT_OK)
        return lwt_filter_fail(err, errlen, st, "inverse transform (%s) failed: %s", lwt_filter_band_name(b),
                    lwt_status_string(st));
    CK(cudaEventRecord(g->inv[b], g->comp), "recording the end of an inverse transform");
done:
    return st;
}

/* D2H of chunk c of out[b % 2] into slot c % NSLOTS, on copy */
static lwt_status enqueue_download(const lwt_filter_cuda_job *job, const gpu *g, int b, size_t c, size_t chunk,
                                   char *err, size_t errlen)
{
    lwt_status st = LWT_OK;
    const size_t esz = job->dtype == LWT_F32 ? sizeof(float) : sizeof(double);
    const size_t i0 = c * chunk, cnt = job->n - i0 < chunk ? job->n - i0 : chunk;
    const int s = (int)(c % NSLOTS);
    CK(cudaMemcpyAsync(slot_ptr(g, s), (const char *)out_buf(g, b) + i0 * esz, cnt * esz, cudaMemcpyDeviceToHost,
                       g->copy),
       "downloading a band");
    CK(cudaEventRecord(g->slot[s], g->copy), "recording a download");
done:
    return st;
}

/* band b into job->band[b]: its download overlaps the conversion of the chunks before it */
static lwt_status drain_band(const lwt_filter_cuda_job *job, const gpu *g, int b, int nt, char *err, size_t errlen)
{
    lwt_status st = LWT_OK;
    const int f32 = job->dtype == LWT_F32;
    const size_t chunk = CHUNK_BYTES / (f32 ? sizeof(float) : sizeof(double));
    const size_t nchunks = (job->n + chunk - 1) / chunk;
    const double *z = job->n_invalid ? job->z : NULL;
    double *o = job->band[b];
    if (!job->keep[b]) {
        zero_band(o, z, job->n, nt);
        return LWT_OK;
    }
    CK(cudaStreamWaitEvent(g->copy, g->inv[b], 0), "waiting for an inverse transform");
    /* every slot is free here: the host waited for each earlier copy through it */
    for (size_t c = 0; c < nchunks && c < NSLOTS; c++)
        if ((st = enqueue_download(job, g, b, c, chunk, err, errlen)) != LWT_OK)
            return st;
    for (size_t c = 0; c < nchunks; c++) {
        const int s = (int)(c % NSLOTS);
        const size_t i0 = c * chunk, cnt = job->n - i0 < chunk ? job->n - i0 : chunk;
        CK(cudaEventSynchronize(g->slot[s]), "downloading a band");
        from_plan_dtype(o + i0, slot_ptr(g, s), z ? z + i0 : NULL, cnt, f32, nt);
        if (c + NSLOTS < nchunks && (st = enqueue_download(job, g, b, c + NSLOTS, chunk, err, errlen)) != LWT_OK)
            return st; /* slot s is converted: reuse it */
    }
done:
    return st;
}

lwt_status lwt_filter_cuda_bands(const lwt_filter_cuda_job *job, double *ms_forward,
                                 double ms_inverse[LWT_BAND_COUNT], char *err, size_t errlen)
{
    static const char *const stage[LWT_BAND_COUNT] = {"inverse: form", "inverse: waviness", "inverse: roughness",
                                                       "inverse: noise"};
    lwt_status st = LWT_OK;
    gpu g;
    memset(&g, 0, sizeof g);
    int prev_device = -1;
    lwt_plan_info info;
    if (!job || !job->plan || !job->filled || !job->z || !job->spec || job->nbands < 1 ||
        job->nbands > LWT_BAND_COUNT || (job->dtype != LWT_F32 && job->dtype != LWT_F64) ||
        lwt_plan_get_info(job->plan, &info) != LWT_OK || info.backend != LWT_BACKEND_CUDA || info.ndim != 2 ||
        info.input_count != job->n || job->n == 0)
        return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "GPU filter: bad job");
    for (int b = 0; b < job->nbands; b++)
        if (!job->band[b])
            return lwt_filter_fail(err, errlen, LWT_ERR_INVALID_ARGUMENT, "GPU filter: no output for the %s band",
                        lwt_filter_band_name(b));
    const int f32 = job->dtype == LWT_F32, nt = lwt__surf_threads(job->spec->threads);
    const size_t esz = f32 ? sizeof(float) : sizeof(double);
    const size_t chunk = CHUNK_BYTES / esz;
    const size_t in_bytes = job->n * esz, coef_bytes = info.coeff_count * esz;
    size_t ws_bytes = 0;
    if ((st = lwt_plan_device_workspace_size(job->plan, &ws_bytes)) != LWT_OK)
        return lwt_filter_fail(err, errlen, st, "GPU filter: no device workspace size: %s", lwt_status_string(st));
    if (ws_bytes < 256)
        ws_bytes = 256; /* never a zero-byte (NULL) workspace */

    /* ---- set up: device, streams, events, buffers (freed at done: on every path) ---- */
    CK(cudaGetDevice(&prev_device), "reading the current device");
    CK(cudaSetDevice(job->device), "selecting the plan's device");
    CK(cudaStreamCreateWithFlags(&g.comp, cudaStreamNonBlocking), "creating a stream");
    CK(cudaStreamCreateWithFlags(&g.copy, cudaStreamNonBlocking), "creating a stream");
    for (int s = 0; s < NSLOTS; s++)
        CK(cudaEventCreateWithFlags(&g.slot[s], cudaEventDisableTiming), "creating an event");
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        CK(cudaEventCreateWithFlags(&g.inv[b], cudaEventDisableTiming), "creating an event");
    CK(cudaEventCreateWithFlags(&g.fwd, cudaEventDisableTiming), "creating an event");
    char what[160];
    snprintf(what, sizeof what, "allocating %.0f MB of device memory",
             (2.0 * in_bytes + 2.0 * coef_bytes + (double)ws_bytes) / 1e6);
    CK(cudaMalloc(&g.in, in_bytes), what);
    CK(cudaMalloc(&g.coef, coef_bytes), what);
    CK(cudaMalloc(&g.mask, coef_bytes), what);
    CK(cudaMalloc(&g.ws, ws_bytes), what);
    if (job->nbands > 1)
        CK(cudaMalloc(&g.out1, in_bytes), what);
    CK(cudaHostAlloc(&g.stage, NSLOTS * CHUNK_BYTES, cudaHostAllocDefault), "allocating pinned host memory");

    /* ---- upload + forward ---- */
    double t0 = lwt_filter_now_ms();
    for (size_t c = 0; c * chunk < job->n; c++) {
        const int s = (int)(c % NSLOTS);
        const size_t i0 = c * chunk, cnt = job->n - i0 < chunk ? job->n - i0 : chunk;
        CK(cudaEventSynchronize(g.slot[s]), "uploading the surface"); /* slot s's last upload is done */
        to_plan_dtype(slot_ptr(&g, s), job->filled + i0, cnt, f32, nt);
        CK(cudaMemcpyAsync((char *)g.in + i0 * esz, slot_ptr(&g, s), cnt * esz, cudaMemcpyHostToDevice, g.comp),
           "uploading the surface");
        CK(cudaEventRecord(g.slot[s], g.comp), "recording an upload");
    }
    if ((st = lwt_forward_device(job->plan, g.in, g.coef, g.ws, g.comp)) != LWT_OK) {
        lwt_filter_fail(err, errlen, st, "forward transform failed: %s", lwt_status_string(st));
        goto done;
    }
    CK(cudaEventRecord(g.fwd, g.comp), "recording the end of the forward transform");
    /* the first two bands go to the GPU now, so that it never waits for the host */
    if ((st = enqueue_band(job, &g, &info, 0, err, errlen)) != LWT_OK ||
        (st = enqueue_band(job, &g, &info, 1, err, errlen)) != LWT_OK)
        goto done;
    /* after this wait every upload is complete: job->filled (= band[0] maybe) may be written */
    CK(cudaEventSynchronize(g.fwd), "running the forward transform");
    double t1 = lwt_filter_now_ms();
    *ms_forward = t1 - t0;

    /* ---- bands: drain b while b + 1 computes; then b + 2 takes b's output buffer ---- */
    for (int b = 0; b < job->nbands; b++) {
        progress(job->spec, 2 + b, job->steps, stage[b]);
        if ((st = drain_band(job, &g, b, nt, err, errlen)) != LWT_OK)
            goto done;
        if ((st = enqueue_band(job, &g, &info, b + 2, err, errlen)) != LWT_OK)
            goto done;
        double t2 = lwt_filter_now_ms();
        ms_inverse[b] = t2 - t1;
        t1 = t2;
    }
    CK(cudaStreamSynchronize(g.comp), "finishing the transforms");
    CK(cudaStreamSynchronize(g.copy), "finishing the downloads");
    st = LWT_OK;
done:
    /* nothing may still read or write a buffer when it is freed: wait for both streams */
    if (g.comp)
        cudaStreamSynchronize(g.comp);
    if (g.copy)
        cudaStreamSynchronize(g.copy);
    cudaFree(g.in);
    cudaFree(g.coef);
    cudaFree(g.mask);
    cudaFree(g.out1);
    cudaFree(g.ws);
    if (g.stage)
        cudaFreeHost(g.stage);
    for (int s = 0; s < NSLOTS; s++)
        if (g.slot[s])
            cudaEventDestroy(g.slot[s]);
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        if (g.inv[b])
            cudaEventDestroy(g.inv[b]);
    if (g.fwd)
        cudaEventDestroy(g.fwd);
    if (g.comp)
        cudaStreamDestroy(g.comp);
    if (g.copy)
        cudaStreamDestroy(g.copy);
    if (st != LWT_OK)
        (void)cudaGetLastError(); /* clear a non-sticky error, so that later calls start clean */
    if (prev_device >= 0)
        cudaSetDevice(prev_device);
    return st;
}

#else
typedef int lwt_filter_cuda_unused; /* CPU-only build: nothing here (ISO C wants a declaration) */
#endif /* LWT_HAVE_CUDA */
