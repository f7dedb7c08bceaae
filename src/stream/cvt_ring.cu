/* Converting copies through pinned pieces (cvt_ring.cuh). */

#include "stream/cvt_ring.cuh"

cudaError_t cvt_ring_init(cvt_ring *r, int threads, unsigned npieces, size_t piece_bytes)
{
    r->threads = threads;
    r->npieces = npieces < CVT_PIECES_MAX ? npieces : CVT_PIECES_MAX;
    r->piece_bytes = piece_bytes;
    cudaError_t e = cudaSuccess;
    for (unsigned k = 0; k < r->npieces && e == cudaSuccess; k++)
        e = cudaEventCreateWithFlags(&r->ev[k], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&r->pin, r->npieces * r->piece_bytes, cudaHostAllocDefault);
    return e;
}

void cvt_ring_free(cvt_ring *r)
{
    cudaFreeHost(r->pin);
    for (unsigned k = 0; k < CVT_PIECES_MAX; k++)
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
    const size_t per = r->piece_bytes / es, np = (c->n[2] + per - 1) / per;
    cudaError_t e = cudaSuccess;
    for (size_t k = 0; k < np && e == cudaSuccess; k++) {
        const unsigned s = r->next++ % r->npieces;
        char *pin = r->pin + s * r->piece_bytes;
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

cudaError_t cvt_ring_download(cvt_ring *r, const rcopy *c, const char *src, size_t es, cudaEvent_t after,
                              cudaStream_t down)
{
    const size_t per = r->piece_bytes / es, np = (c->n[2] + per - 1) / per;
    cudaError_t e = cudaStreamWaitEvent(down, after, 0);
    const unsigned base = r->next;
    size_t issued = 0;
    for (size_t done = 0; done < np && e == cudaSuccess; done++) {
        for (; issued < np && issued < done + r->npieces && e == cudaSuccess; issued++) {
            const unsigned s = (base + (unsigned)issued) % r->npieces;
            e = cudaEventSynchronize(r->ev[s]);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(r->pin + s * r->piece_bytes, src + issued * per * es,
                                    piece_of(c, issued, per).n[2] * es, cudaMemcpyDeviceToHost, down);
            if (e == cudaSuccess)
                e = cudaEventRecord(r->ev[s], down);
        }
        const unsigned s = (base + (unsigned)done) % r->npieces;
        if (e == cudaSuccess)
            e = cudaEventSynchronize(r->ev[s]);
        if (e != cudaSuccess)
            break;
        const rcopy pc = piece_of(c, done, per);
        recipe_copy_host(&pc, r->pin + s * r->piece_bytes, pc.dst.host + pc.dst.off * rcopy_dst_es(&pc, es), es,
                         r->threads);
    }
    r->next = base + (unsigned)np;
    return e;
}
