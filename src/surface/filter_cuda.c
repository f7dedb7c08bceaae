/*
 * filter_cuda.c - the splitter's GPU runs (split.h, split_impl.h).
 *
 * Plain C on the CUDA runtime API and liblwt's device-pointer entry points (lwt_cuda.h), with
 * the splitter's plans: the kernels of lwt_forward / lwt_inverse, the same bits.
 *
 *   device:  in (the whole surface), band[b] (the whole bands), and for one window: coef, mask,
 *            scratch (the window's band before its owned rows are copied out), workspace.
 *   host:    NSLOTS pinned staging slots of SLOT_BYTES (used when the host converts: double
 *            I/O with a float32 transform, or a NaN restore).
 *   streams: up (uploads), comp (transforms, band coefficients, row copies), down (downloads).
 *
 * A run is one host loop over the chunks: put chunk k's new rows (up to its window's end) on
 * the up stream and record rows_up[k]; enqueue chunk k on comp (wait for rows_up[k]; forward
 * of the window; per band: mask = the band's blocks of coef, inverse into scratch, its owned
 * rows copied into band[b], done[k][b]); then take chunk k - 1's bands home on the down stream
 * (each waits for its done event). So chunk k + 1's upload, chunk k's transforms and chunk
 * k - 1's downloads overlap. With I/O in the transform's dtype nothing blocks the host until
 * the end; with conversion the host converts each slot as it arrives (upload: before it goes
 * up; download: after it came down), blocking only on its slot. With one chunk the window is
 * the surface: inverses go straight into band[b], no scratch.
 */
#ifdef LWT_HAVE_CUDA

#define _POSIX_C_SOURCE 200809L

#include "surface/split_impl.h"

#include <cuda_runtime.h>

#include "lwt_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BYTES ((size_t)16 << 20) /* one pinned staging slot: 16 MiB, ~0.3 ms on PCIe 5 */
#define NSLOTS 4                      /* slots in flight (64 MiB pinned in all) */

struct lwt_split_gpu {
    void *in, *band[LWT_BAND_COUNT];  /* device, whole surface */
    void *coef, *mask, *scratch, *ws; /* device, one window */
    void *stage;                      /* pinned host: NSLOTS x SLOT_BYTES */
    cudaStream_t up, comp, down;
    cudaEvent_t slot[NSLOTS];         /* last copy through slot s */
    cudaEvent_t rows_up[LWT_SPLIT_MAX_CHUNKS];
    cudaEvent_t done[LWT_SPLIT_MAX_CHUNKS][LWT_BAND_COUNT];
    cudaEvent_t home[LWT_BAND_COUNT]; /* band b's last download (one-chunk phase times, NaN pass) */
    cudaEvent_t fwd;                  /* one chunk: forward done */
    unsigned next_slot;
};

/* Every CUDA runtime call goes through CK: on error, a message naming the call and the step,
 * status LWT_ERR_DEVICE, and a jump to the function's cleanup label. */
#define CK(call, what)                                                                                   \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                         \
            st = lwt_filter_fail(err, errlen, LWT_ERR_DEVICE, "CUDA error %s (%s) %s [%s]",              \
                                 cudaGetErrorName(e_), cudaGetErrorString(e_), what, #call);             \
            goto done;                                                                                   \
        }                                                                                                \
    } while (0)

void lwt__split_gpu_destroy(lwt_split_gpu *g)
{
    if (!g)
        return;
    /* nothing may still read or write a buffer when it is freed */
    cudaStream_t st[3] = {g->up, g->comp, g->down};
    for (int k = 0; k < 3; k++)
        if (st[k])
            cudaStreamSynchronize(st[k]);
    cudaFree(g->in);
    for (int b = 0; b < LWT_BAND_COUNT; b++)
        cudaFree(g->band[b]);
    cudaFree(g->coef);
    cudaFree(g->mask);
    cudaFree(g->scratch);
    cudaFree(g->ws);
    if (g->stage)
        cudaFreeHost(g->stage);
    cudaEvent_t *ev[] = {g->slot, g->rows_up, &g->done[0][0], g->home, &g->fwd};
    const int nev[] = {NSLOTS, LWT_SPLIT_MAX_CHUNKS, LWT_SPLIT_MAX_CHUNKS * LWT_BAND_COUNT, LWT_BAND_COUNT, 1};
    for (int a = 0; a < 5; a++)
        for (int i = 0; i < nev[a]; i++)
            if (ev[a][i])
                cudaEventDestroy(ev[a][i]);
    for (int k = 0; k < 3; k++)
        if (st[k])
            cudaStreamDestroy(st[k]);
    (void)cudaGetLastError(); /* clear a non-sticky error, so that later calls start clean */
    free(g);
}

lwt_status lwt__split_gpu_create(lwt_splitter *s, char *err, size_t errlen)
{
    lwt_status st = LWT_OK;
    int prev = -1;
    lwt_split_gpu *g = (lwt_split_gpu *)calloc(1, sizeof *g);
    if (!g)
        return lwt_filter_fail(err, errlen, LWT_ERR_OUT_OF_MEMORY, "out of memory");
    size_t ws = 256; /* never a zero-byte (NULL) workspace */
    for (int p = 0; p < s->nplans; p++) {
        size_t b = 0;
        if ((st = lwt_plan_device_workspace_size(s->plan[p], &b)) != LWT_OK) {
            lwt_filter_fail(err, errlen, st, "GPU split: no device workspace size: %s", lwt_status_string(st));
            goto done;
        }
        if (b > ws)
            ws = b;
    }
    const size_t n_bytes = s->nx * s->ny * s->esz, coef_bytes = s->max_coeffs * s->esz;
    const size_t scratch_bytes = s->nchunks > 1 ? s->max_win_rows * s->nx * s->esz : 0;
    CK(cudaGetDevice(&prev), "reading the current device");
    CK(cudaSetDevice(s->device), "selecting the plan's device");
    CK(cudaStreamCreateWithFlags(&g->up, cudaStreamNonBlocking), "creating a stream");
    CK(cudaStreamCreateWithFlags(&g->comp, cudaStreamNonBlocking), "creating a stream");
    CK(cudaStreamCreateWithFlags(&g->down, cudaStreamNonBlocking), "creating a stream");
    for (int i = 0; i < NSLOTS; i++)
        CK(cudaEventCreateWithFlags(&g->slot[i], cudaEventDisableTiming), "creating an event");
    for (int k = 0; k < s->nchunks; k++) {
        CK(cudaEventCreateWithFlags(&g->rows_up[k], cudaEventDisableTiming), "creating an event");
        for (int b = 0; b < s->nbands; b++)
            CK(cudaEventCreateWithFlags(&g->done[k][b], cudaEventDisableTiming), "creating an event");
    }
    for (int b = 0; b < s->nbands; b++)
        CK(cudaEventCreateWithFlags(&g->home[b], cudaEventDisableTiming), "creating an event");
    CK(cudaEventCreateWithFlags(&g->fwd, cudaEventDisableTiming), "creating an event");
    char what[160];
    snprintf(what, sizeof what, "allocating %.0f MB of device memory",
             ((1.0 + s->nbands) * n_bytes + 2.0 * coef_bytes + (double)scratch_bytes + (double)ws) / 1e6);
    CK(cudaMalloc(&g->in, n_bytes), what);
    for (int b = 0; b < s->nbands; b++)
        CK(cudaMalloc(&g->band[b], n_bytes), what);
    CK(cudaMalloc(&g->coef, coef_bytes), what);
    CK(cudaMalloc(&g->mask, coef_bytes), what);
    CK(cudaMalloc(&g->ws, ws), what);
    if (scratch_bytes)
        CK(cudaMalloc(&g->scratch, scratch_bytes), what);
    CK(cudaHostAlloc(&g->stage, NSLOTS * SLOT_BYTES, cudaHostAllocDefault), "allocating pinned host memory");
done:
    if (prev >= 0)
        cudaSetDevice(prev);
    if (st != LWT_OK) {
        lwt__split_gpu_destroy(g);
        return st;
    }
    s->gpu = g;
    return LWT_OK;
}

/* does the host convert (or restore NaN) on this run? then transfers go through the slots */
static int staged(const lwt_splitter *s, const lwt_split_io *io)
{
    return (io->host_f64 && s->dtype == LWT_F32) || io->z;
}

static char *slot_ptr(const lwt_split_gpu *g, unsigned i)
{
    return (char *)g->stage + (size_t)(i % NSLOTS) * SLOT_BYTES;
}

/* rows [r0, r1) of the surface to the device on up */
static lwt_status put_rows(const lwt_splitter *s, lwt_split_gpu *g, const lwt_split_io *io, size_t r0, size_t r1,
                           char *err, size_t errlen)
{
    lwt_status st = LWT_OK;
    const size_t i0 = r0 * s->nx, n = (r1 - r0) * s->nx;
    if (!n)
        return LWT_OK;
    if (!staged(s, io)) {
        CK(cudaMemcpyAsync((char *)g->in + i0 * s->esz, (const char *)io->in + i0 * s->esz, n * s->esz,
                           cudaMemcpyHostToDevice, g->up),
           "uploading the surface");
        return LWT_OK;
    }
    const size_t per = SLOT_BYTES / s->esz;
    for (size_t a = 0; a < n; a += per) {
        const size_t cnt = n - a < per ? n - a : per;
        const unsigned i = g->next_slot++;
        CK(cudaEventSynchronize(g->slot[i % NSLOTS]), "uploading the surface"); /* the slot's last copy */
        lwt__split_load(s, io, i0 + a, cnt, slot_ptr(g, i));
        CK(cudaMemcpyAsync((char *)g->in + (i0 + a) * s->esz, slot_ptr(g, i), cnt * s->esz, cudaMemcpyHostToDevice,
                           g->up),
           "uploading the surface");
        CK(cudaEventRecord(g->slot[i % NSLOTS], g->up), "recording an upload");
    }
done:
    return st;
}

/* mask = the blocks of coef in packed levels `keep` (plan p), zero elsewhere; on comp */
static lwt_status band_coeffs(const lwt_plan *p, const lwt_split_gpu *g, size_t esz, uint64_t keep, char *err,
                              size_t errlen)
{
    lwt_status st = LWT_OK;
    lwt_plan_info pi;
    lwt_plan_get_info(p, &pi);
    const size_t pitch = pi.packed_shape[1] * esz;
    lwt_band bd[LWT_SPLIT_MAX_BLOCKS];
    const int nb = lwt__split_blocks(p, keep, bd);
    if (nb < 0)
        return lwt_filter_fail(err, errlen, LWT_ERR_INTERNAL, "no packed blocks for a band");
    CK(cudaMemsetAsync(g->mask, 0, pi.coeff_count * esz, g->comp), "zeroing a band's coefficients");
    for (int i = 0; i < nb; i++) {
        const size_t at = (bd[i].offset[0] * pi.packed_shape[1] + bd[i].offset[1]) * esz;
        CK(cudaMemcpy2DAsync((char *)g->mask + at, pitch, (const char *)g->coef + at, pitch, bd[i].shape[1] * esz,
                             bd[i].shape[0], cudaMemcpyDeviceToDevice, g->comp),
           "copying a coefficient block");
    }
done:
    return st;
}

/* chunk k's transforms on comp */
static lwt_status enqueue_chunk(const lwt_splitter *s, lwt_split_gpu *g, int k, char *err, size_t errlen)
{
    static const char *const names[LWT_BAND_COUNT] = {"form", "waviness", "roughness", "noise"};
    lwt_status st = LWT_OK;
    const lwt_split_chunk *c = &s->chunk[k];
    const lwt_plan *p = s->plan[s->chunk_plan[k]];
    const size_t nx = s->nx, row = nx * s->esz;
    const int one = s->nchunks == 1;
    CK(cudaStreamWaitEvent(g->comp, g->rows_up[k], 0), "waiting for an upload");
    if ((st = lwt_forward_device(p, (const char *)g->in + c->win0 * row, g->coef, g->ws, g->comp)) != LWT_OK)
        return lwt_filter_fail(err, errlen, st, "forward transform failed: %s", lwt_status_string(st));
    if (one)
        CK(cudaEventRecord(g->fwd, g->comp), "recording the end of the forward transform");
    for (int b = 0; b < s->nbands; b++) {
        char *own = (char *)g->band[b] + c->own0 * row;
        const size_t own_bytes = (c->own1 - c->own0) * row;
        if (!s->keep[b]) {
            CK(cudaMemsetAsync(own, 0, own_bytes, g->comp), "zeroing an empty band"); /* exactly zero */
        } else {
            if ((st = band_coeffs(p, g, s->esz, s->keep[b], err, errlen)) != LWT_OK)
                return st;
            if ((st = lwt_inverse_device(p, g->mask, one ? g->band[b] : g->scratch, g->ws, g->comp)) != LWT_OK)
                return lwt_filter_fail(err, errlen, st, "inverse transform (%s) failed: %s", names[b],
                                       lwt_status_string(st));
            if (!one)
                CK(cudaMemcpyAsync(own, (const char *)g->scratch + (c->own0 - c->win0) * row, own_bytes,
                                   cudaMemcpyDeviceToDevice, g->comp),
                   "copying a chunk's band rows");
        }
        CK(cudaEventRecord(g->done[k][b], g->comp), "recording a band");
    }
done:
    return st;
}

/* chunk k's band b to the host */
static lwt_status get_band(const lwt_splitter *s, lwt_split_gpu *g, const lwt_split_io *io, int k, int b,
                           char *err, size_t errlen)
{
    lwt_status st = LWT_OK;
    const lwt_split_chunk *c = &s->chunk[k];
    const size_t i0 = c->own0 * s->nx, n = (c->own1 - c->own0) * s->nx;
    const char *src = (const char *)g->band[b] + i0 * s->esz;
    CK(cudaStreamWaitEvent(g->down, g->done[k][b], 0), "waiting for a band");
    if (!staged(s, io)) {
        CK(cudaMemcpyAsync((char *)io->band[b] + i0 * s->esz, src, n * s->esz, cudaMemcpyDeviceToHost, g->down),
           "downloading a band");
        CK(cudaEventRecord(g->home[b], g->down), "recording a download");
        return LWT_OK;
    }
    /* through the slots: NSLOTS pieces in flight, each converted as it arrives */
    const size_t per = SLOT_BYTES / s->esz, pieces = (n + per - 1) / per;
    const unsigned base = g->next_slot;
    for (size_t q = 0; q < pieces + NSLOTS; q++) {
        if (q >= NSLOTS) { /* piece q - NSLOTS is home: convert it, its slot is free again */
            const size_t a = (q - NSLOTS) * per, cnt = n - a < per ? n - a : per;
            const unsigned i = base + (unsigned)(q - NSLOTS);
            CK(cudaEventSynchronize(g->slot[i % NSLOTS]), "downloading a band");
            lwt__split_store(s, io, b, i0 + a, cnt, slot_ptr(g, i));
        }
        if (q < pieces) {
            const size_t a = q * per, cnt = n - a < per ? n - a : per;
            const unsigned i = base + (unsigned)q;
            CK(cudaEventSynchronize(g->slot[i % NSLOTS]), "downloading a band"); /* an upload may use it */
            CK(cudaMemcpyAsync(slot_ptr(g, i), src + a * s->esz, cnt * s->esz, cudaMemcpyDeviceToHost, g->down),
               "downloading a band");
            CK(cudaEventRecord(g->slot[i % NSLOTS], g->down), "recording a download");
        }
    }
    g->next_slot = base + (unsigned)pieces;
done:
    return st;
}

lwt_status lwt__split_gpu_run(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *tm, char *err,
                              size_t errlen)
{
    lwt_status st = LWT_OK;
    lwt_split_gpu *g = s->gpu;
    int prev = -1;
    const int one = s->nchunks == 1;
    CK(cudaGetDevice(&prev), "reading the current device");
    CK(cudaSetDevice(s->device), "selecting the plan's device");
    double t0 = lwt_filter_now_ms();
    size_t uploaded = 0;
    for (int k = 0; k <= s->nchunks; k++) {
        if (k < s->nchunks) {
            lwt__split_progress(s, k, -1);
            if ((st = put_rows(s, g, io, uploaded, s->chunk[k].win1, err, errlen)) != LWT_OK)
                goto done;
            if (s->chunk[k].win1 > uploaded)
                uploaded = s->chunk[k].win1;
            CK(cudaEventRecord(g->rows_up[k], g->up), "recording an upload");
            if ((st = enqueue_chunk(s, g, k, err, errlen)) != LWT_OK)
                goto done;
            if (one) { /* phase times: the forward (with the upload) ... */
                CK(cudaEventSynchronize(g->fwd), "running the forward transform");
                const double t1 = lwt_filter_now_ms();
                tm->forward = t1 - t0;
                t0 = t1;
            }
        }
        if (k == 0)
            continue;
        for (int b = 0; b < s->nbands; b++) {
            if (one)
                lwt__split_progress(s, 0, b);
            if ((st = get_band(s, g, io, k - 1, b, err, errlen)) != LWT_OK)
                goto done;
            if (one) { /* ... and each band until it is in host memory */
                CK(cudaEventSynchronize(g->home[b]), "downloading a band");
                const double t1 = lwt_filter_now_ms();
                tm->inverse[b] = t1 - t0;
                t0 = t1;
            }
        }
    }
    CK(cudaStreamSynchronize(g->comp), "finishing the transforms");
    CK(cudaStreamSynchronize(g->down), "finishing the downloads");
    CK(cudaStreamSynchronize(g->up), "finishing the uploads");
done:
    if (st != LWT_OK) { /* leave nothing in flight on the caller's buffers */
        cudaStreamSynchronize(g->up);
        cudaStreamSynchronize(g->comp);
        cudaStreamSynchronize(g->down);
        (void)cudaGetLastError();
    }
    if (prev >= 0)
        cudaSetDevice(prev);
    return st;
}

#else
typedef int lwt_filter_cuda_unused; /* CPU-only build: nothing here (ISO C wants a declaration) */
#endif /* LWT_HAVE_CUDA */
