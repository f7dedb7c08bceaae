/* Converting copies through pinned pieces, and the downloads' own host thread (cvt_ring.cuh). */
#include <pthread.h>
#include <stdlib.h>

#include "stream/cvt_ring.cuh"

cudaError_t cvt_ring_init(cvt_ring *r, int threads)
{
    r->threads = threads;
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < CVT_PIECES && e == cudaSuccess; k++)
        e = cudaEventCreateWithFlags(&r->ev[k], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&r->pin, CVT_PIECES * CVT_PIECE_BYTES, cudaHostAllocDefault);
    return e;
}

void cvt_ring_free(cvt_ring *r)
{
    cudaFreeHost(r->pin);
    for (int k = 0; k < CVT_PIECES; k++)
        if (r->ev[k])
            cudaEventDestroy(r->ev[k]);
    r->pin = NULL;
}

/* piece k of copy c: its element range */
static rcopy piece_of(const rcopy *c, size_t k, size_t per)
{
    rcopy p = *c;
    p.n[2] = c->n[2] - k * per < per ? c->n[2] - k * per : per;
    p.src.off = c->src.off + k * per;
    p.dst.off = c->dst.off + k * per;
    return p;
}

cudaError_t cvt_ring_upload(cvt_ring *r, const rcopy *c, char *dst, size_t es, cudaStream_t up)
{
    const size_t per = CVT_PIECE_BYTES / es, np = (c->n[2] + per - 1) / per;
    cudaError_t e = cudaSuccess;
    for (size_t k = 0; k < np && e == cudaSuccess; k++) {
        const unsigned s = r->next++ % CVT_PIECES;
        char *pin = r->pin + s * CVT_PIECE_BYTES;
        const rcopy pc = piece_of(c, k, per);
        e = cudaEventSynchronize(r->ev[s]); /* its last copy is done */
        if (e != cudaSuccess)
            break;
        recipe_copy_host(&pc, pc.src.host + pc.src.off * rcopy_src_es(&pc, es), pin, es, r->threads);
        e = cudaMemcpyAsync(dst + k * per * es, pin, pc.n[2] * es, cudaMemcpyHostToDevice, up);
        if (e == cudaSuccess)
            e = cudaEventRecord(r->ev[s], up);
    }
    return e;
}

/* Copy c from src on the device (ready after `after`) to the host, converted: up to
 * CVT_PIECES pieces in flight on `down`, each converted as it arrives. */
static cudaError_t ring_download(cvt_ring *r, const rcopy *c, const char *src, size_t es, cudaEvent_t after,
                                 cudaStream_t down)
{
    const size_t per = CVT_PIECE_BYTES / es, np = (c->n[2] + per - 1) / per;
    cudaError_t e = cudaStreamWaitEvent(down, after, 0);
    const unsigned base = r->next;
    size_t issued = 0;
    for (size_t done = 0; done < np && e == cudaSuccess; done++) {
        for (; issued < np && issued < done + CVT_PIECES && e == cudaSuccess; issued++) {
            const unsigned s = (base + (unsigned)issued) % CVT_PIECES;
            e = cudaEventSynchronize(r->ev[s]);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(r->pin + s * CVT_PIECE_BYTES, src + issued * per * es,
                                    piece_of(c, issued, per).n[2] * es, cudaMemcpyDeviceToHost, down);
            if (e == cudaSuccess)
                e = cudaEventRecord(r->ev[s], down);
        }
        const unsigned s = (base + (unsigned)done) % CVT_PIECES;
        if (e == cudaSuccess)
            e = cudaEventSynchronize(r->ev[s]);
        if (e != cudaSuccess)
            break;
        const rcopy pc = piece_of(c, done, per);
        recipe_copy_host(&pc, r->pin + s * CVT_PIECE_BYTES, pc.dst.host + pc.dst.off * rcopy_dst_es(&pc, es), es,
                         r->threads);
    }
    r->next = base + (unsigned)np;
    return e;
}

struct cvt_downloader {
    int device;
    cvt_ring ring;
    cudaStream_t down;
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* work queued, or a ticket done */
    cvt_ticket *head, *tail;
    int quit;
};

static void *downloader_main(void *arg)
{
    cvt_downloader *d = (cvt_downloader *)arg;
    cudaError_t dev = cudaSetDevice(d->device);
    pthread_mutex_lock(&d->mu);
    for (;;) {
        while (!d->head && !d->quit)
            pthread_cond_wait(&d->cv, &d->mu);
        cvt_ticket *t = d->head;
        if (!t)
            break; /* quit, and nothing left */
        d->head = t->next;
        if (!d->head)
            d->tail = NULL;
        pthread_mutex_unlock(&d->mu);
        cudaError_t e = dev;
        for (int i = 0; i < t->r->scatter.n && e == cudaSuccess; i++) {
            const rcopy *c = &t->r->scatter.v[i].c;
            if (cvt_through_ring(c))
                e = ring_download(&d->ring, c, t->arena + c->src.off * t->es, t->es, t->after, d->down);
        }
        pthread_mutex_lock(&d->mu);
        t->err = e;
        t->pending = 0;
        pthread_cond_broadcast(&d->cv);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

cudaError_t cvt_downloader_start(int device, int threads, cvt_downloader **out)
{
    *out = NULL;
    cvt_downloader *d = (cvt_downloader *)calloc(1, sizeof *d);
    if (!d)
        return cudaErrorMemoryAllocation;
    d->device = device;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->cv, NULL);
    cudaError_t e = cudaStreamCreateWithFlags(&d->down, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cvt_ring_init(&d->ring, threads);
    if (e == cudaSuccess && pthread_create(&d->thread, NULL, downloader_main, d) != 0)
        e = cudaErrorMemoryAllocation; /* no thread: out of resources */
    d->started = e == cudaSuccess;
    if (e != cudaSuccess) {
        cvt_downloader_stop(d);
        return e;
    }
    *out = d;
    return cudaSuccess;
}

void cvt_downloader_submit(cvt_downloader *d, cvt_ticket *t)
{
    pthread_mutex_lock(&d->mu);
    t->pending = 1;
    t->err = cudaSuccess;
    t->next = NULL;
    if (d->tail)
        d->tail->next = t;
    else
        d->head = t;
    d->tail = t;
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->mu);
}

cudaError_t cvt_downloader_wait(cvt_downloader *d, cvt_ticket *t)
{
    if (!d)
        return cudaSuccess;
    pthread_mutex_lock(&d->mu);
    while (t->pending)
        pthread_cond_wait(&d->cv, &d->mu);
    cudaError_t e = t->err;
    t->err = cudaSuccess;
    pthread_mutex_unlock(&d->mu);
    return e;
}

void cvt_downloader_stop(cvt_downloader *d)
{
    if (!d)
        return;
    if (d->started) {
        pthread_mutex_lock(&d->mu);
        d->quit = 1;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
        pthread_join(d->thread, NULL);
    }
    if (d->down) {
        cudaStreamSynchronize(d->down);
        cudaStreamDestroy(d->down);
    }
    cvt_ring_free(&d->ring);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
}
