/*
 * CUDA stream worker: one device, driven by one host thread, with seed 000's
 * three optimizations, each switchable (lwt_stream_tuning, lwt_experimental.h):
 *  - tuned_blocks: the tiled kernels (else the one-thread-per-line kernel);
 *  - pinned_pool: pinned staging buffers made once and reused by every chunk
 *    (else allocated and freed per chunk); host memory that is already pinned
 *    is copied directly, without staging;
 *  - overlap: several chunks in flight (slots), so one chunk's H2D, another's
 *    kernels and a third one's D2H run at once (else one chunk at a time).
 * Copies and kernels go on three streams by role (up: every H2D, comp: the
 * kernels, down: every D2H), chained per chunk by events. One stream per
 * chunk would put each chunk's H2D behind the previous chunk's D2H on the
 * same stream, and the copy engines take work in the order it is issued, so
 * the H2D of a new chunk waited for the D2H of the one before: the two bus
 * directions alternated instead of overlapping (measured, docs/PERFORMANCE.md).
 * A forward chunk's input window goes through a row cache (row_cache.h) on
 * the device, so the halo rows consecutive chunks share go up once.
 * A chunk's 2-D forward levels run as one sliding-window kernel each (the
 * register kernel in the CPU backend's arithmetic, lwt_cuda_level_part_geom and
 * lwt_cuda_run_level_part)
 * where the wavelet and mode have one, else as the recipe's two passes.
 * A chunk whose buffers do not fit in device memory is run in halves.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern "C" {
#include "core/backend.h"
#include "core/context.h"
#include "core/plan.h"
#include "stream/row_cache.h"
#include "stream/split_job.h"
#include "stream/worker.h"
}
#include "lwt_cuda.h"
#include "core/fail.h"
#include "cuda/cuda_chunk.cuh"
#include "stream/cvt_ring.cuh"

#define MAX_SLOTS 8
/* windows smaller than this go up directly: the ring saves little there */
#define RING_MIN_BYTES ((size_t)1 << 20)

namespace {

struct slot {
    cudaEvent_t ev[4];   /* start (up), after H2D (up), after kernels (comp), after D2H (down) */
    cudaEvent_t ev_read; /* comp: the chunk's ring bytes are copied into its window */
    int reads_ring;
    row_plan ring_plan;        /* what it uploads to and reads from the ring */
    size_t up_bytes;           /* bytes it moved host -> device */
    long fused, passes;        /* its 2-D levels run as one kernel, and as two passes */
    char *arena;
    size_t acap;               /* bytes */
    double *scratch;
    size_t scap;               /* bytes */
    char *pin_in, *pin_out;
    size_t pin_in_cap, pin_out_cap;
    /* the chunk in flight */
    int busy;
    long chunk;
    recipe r;
    int staged_out;            /* D2H went to pin_out: scatter on the host after */
    double t_launch;
};

struct cuda_worker {
    lwt_plan *plan;            /* this device's copy of the plan (device tables) */
    const lwt_context *ctx;
    int device, naive, pinned_pool, nslots;
    cudaStream_t up, comp, down;
    slot s[MAX_SLOTS];
    lwt_cuda_part_cache levels; /* geometries of the fused 2-D levels (lwt_cuda_run_level_part) */
    char *ring;                /* device ring of the row cache (NULL: not made, or no memory) */
    row_cache cache;
    /* the next chunk, fetched while every slot was busy, its new rows already going up */
    long ahead_c;              /* -1: none */
    int ahead_up;              /* 1: ahead_plan's uploads are issued */
    recipe ahead_r;
    row_plan ahead_plan;
    size_t es;
    const level_job *job;      /* the job in progress (its split plans) */
    cvt_ring up_ring;          /* converting uploads (made at first use: pin != NULL) */
    cvt_ring down_ring;        /* converting downloads (made with up_ring) */
    cudaStream_t cvt_down;     /* their copies */
    int host_threads;          /* OpenMP threads that pack and convert on the host */
    double last_done;          /* for busy time of overlapped chunks */
    /* host pointers known to be pinned (or not) */
    const void *known[8];
    int known_pinned[8], nknown;
};

/* lwt_cuda_fail with the worker's device in the message */
lwt_status cuda_fail(const cuda_worker *cw, cudaError_t e, const char *what)
{
    char where[160];
    snprintf(where, sizeof where, "stream worker on CUDA device %d: %s", cw->device, what);
    return lwt_cuda_fail(cw->ctx, e, where);
}

int host_pinned(cuda_worker *cw, const void *p)
{
    for (int i = 0; i < cw->nknown; i++)
        if (cw->known[i] == p)
            return cw->known_pinned[i];
    cudaPointerAttributes a;
    /* pinned host memory, device memory and managed memory (arrays spread
       over the GPUs) are copied directly (cudaMemcpyDefault finds the way:
       DMA, a device copy or NVLink); pageable memory goes through staging */
    int pinned = cudaPointerGetAttributes(&a, p) == cudaSuccess &&
                 (a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged);
    cudaGetLastError();
    if (cw->nknown < 8) {
        cw->known[cw->nknown] = p;
        cw->known_pinned[cw->nknown++] = pinned;
    }
    return pinned;
}

/* whether the host side of copy c (its destination when down, else its source) is page-locked
   from its first to its last element: the whole array (cached by base), or the piece of it a
   caller registered (the MPI ranks register the parts of their whole-size arrays they touch) */
static int host_side_pinned(cuda_worker *cw, const rcopy *c, int down)
{
    const rloc *h = down ? &c->dst : &c->src;
    if (host_pinned(cw, h->host))
        return 1;
    const size_t es = down ? rcopy_dst_es(c, cw->es) : rcopy_src_es(c, cw->es);
    const size_t *s = down ? c->ds : c->ss;
    const size_t last = h->off + (c->n[0] - 1) * s[0] + (c->n[1] - 1) * s[1] + c->n[2] - 1;
    cudaPointerAttributes a;
    int pinned = 1;
    for (int e = 0; e < 2 && pinned; e++) {
        pinned = cudaPointerGetAttributes(&a, h->host + (e ? last : h->off) * es) == cudaSuccess &&
                 a.type == cudaMemoryTypeHost;
        cudaGetLastError();
    }
    return pinned;
}

/* A host copy that goes through the converting rings (cvt_ring.cuh), piece by piece: one that
 * converts or masks, and a split job's run in pageable memory (a window or a band: a whole
 * surface when the split has one chunk, which staging would pin whole per call: lwt filter's
 * float64 12288^2 transforms took 2.5-3.4 s that way, H100, 2026-11-27). One contiguous run.
 * down: c is a download (its host side is the destination). */
int through_ring(cuda_worker *cw, const rcopy *c, int down)
{
    if (c->n[0] != 1 || c->n[1] != 1)
        return 0;
    if (c->cvt != RCVT_NONE || c->nan_mask)
        return 1;
    return cw->job && cw->job->split && !host_side_pinned(cw, c, down);
}

/* grow-only device buffer; cudaErrorMemoryAllocation tells the caller to split */
cudaError_t grow_dev(void **buf, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return cudaSuccess;
    cudaFree(*buf);
    *buf = NULL;
    *cap = 0;
    cudaError_t e = cudaMalloc(buf, bytes);
    if (e == cudaSuccess)
        *cap = bytes;
    return e;
}

cudaError_t grow_pin(char **buf, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return cudaSuccess;
    cudaFreeHost(*buf);
    *buf = NULL;
    *cap = 0;
    cudaError_t e = cudaHostAlloc((void **)buf, bytes, cudaHostAllocDefault);
    if (e == cudaSuccess)
        *cap = bytes;
    return e;
}

void free_pinned(slot *sl)
{
    cudaFreeHost(sl->pin_in);
    cudaFreeHost(sl->pin_out);
    sl->pin_in = sl->pin_out = NULL;
    sl->pin_in_cap = sl->pin_out_cap = 0;
}

void release_device(slot *sl)
{
    cudaFree(sl->arena);
    sl->arena = NULL;
    sl->acap = 0;
    cudaFree(sl->scratch);
    sl->scratch = NULL;
    sl->scap = 0;
}

/* a copy with both sides resolved to addresses, as 2-D copies */
cudaError_t copy_2d(const rcopy *c, const char *src, char *dst, size_t es, cudaMemcpyKind kind, cudaStream_t st)
{
    if (c->n[1] == 1) /* rows of n[2] along axis 0: one 2-D copy */
        return cudaMemcpy2DAsync(dst, c->ds[0] * es, src, c->ss[0] * es, c->n[2] * es, c->n[0], kind, st);
    for (size_t a = 0; a < c->n[0]; a++) {
        cudaError_t e = cudaMemcpy2DAsync(dst + a * c->ds[0] * es, c->ds[1] * es, src + a * c->ss[0] * es,
                                          c->ss[1] * es, c->n[2] * es, c->n[1], kind, st);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* zero a copy's destination view (device memory) */
cudaError_t zero_2d(const rcopy *c, char *dst, size_t es, cudaStream_t st)
{
    for (size_t a = 0; a < c->n[0]; a++) {
        cudaError_t e = cudaMemset2DAsync(dst + a * c->ds[0] * es, c->ds[1] * es, 0, c->n[2] * es, c->n[1], st);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* a split job's whole-window transform: the job's CUDA plan, on this device */
lwt_status run_plan(cuda_worker *cw, slot *sl, const rplan *t)
{
    const split_spec *sp = cw->job ? cw->job->split : NULL;
    const lwt_plan *p = sp ? sp->plan[t->plan] : NULL;
    if (!p || p->backend != LWT_BACKEND_CUDA || p->device != cw->device)
        return lwt_fail(cw->ctx, LWT_ERR_INVALID_ARGUMENT, "stream worker on CUDA device %d: a job plan not on it",
                        cw->device);
    const size_t es = cw->es;
    const void *in = sl->arena + t->in.off * es;
    void *out = sl->arena + t->out.off * es, *ws = sl->arena + t->ws.off * es;
    return t->inverse ? lwt_inverse_device(p, in, out, ws, cw->comp) : lwt_forward_device(p, in, out, ws, cw->comp);
}

size_t copy_elems(const rcopy *c)
{
    return c->n[0] * c->n[1] * c->n[2];
}

/* the same copy seen from a dense staging area: one side packed */
rcopy packed_side(const rcopy *c, int src_side, size_t at)
{
    rcopy d = *c;
    rloc *l = src_side ? &d.src : &d.dst;
    size_t *st = src_side ? d.ss : d.ds;
    l->buf = -1;
    l->off = at;
    st[1] = c->n[2];
    st[0] = c->n[1] * c->n[2];
    return d;
}

/* the pass a recipe op runs, its buffers left unset */
static void pass_of(const cuda_worker *cw, const rop *o, lwt_pass *ps)
{
    memset(ps, 0, sizeof *ps);
    ps->prog = &o->p.prog;
    ps->scheme = &cw->plan->wavelet.scheme;
    ps->fb = &cw->plan->fb;
    ps->dtype = cw->plan->desc.dtype;
    ps->outer = o->p.outer;
    ps->inner = o->p.inner;
}

/* scratch of every pass of a recipe (the line kernel's per-line buffers) */
size_t recipe_scratch(const cuda_worker *cw, const recipe *r)
{
    size_t best = 0;
    for (int i = 0; i < r->compute.n; i++) {
        const rop *o = &r->compute.v[i];
        if (o->kind != ROP_PASS)
            continue;
        lwt_pass ps;
        pass_of(cw, o, &ps);
        size_t n = lwt_cuda_pass_scratch(cw->plan, &ps, cw->naive);
        if (n > best)
            best = n;
    }
    return best * sizeof(double);
}

size_t list_elems(const rlist *l)
{
    size_t n = 0;
    for (int i = 0; i < l->n; i++)
        n += copy_elems(&l->v[i].c);
    return n;
}

/* a gather that is packed into pinned staging first: pageable, or converting in several runs */
int needs_stage_in(cuda_worker *cw, const recipe *r)
{
    for (int i = 0; i < r->gather.n; i++) {
        const rcopy *c = &r->gather.v[i].c;
        if (!through_ring(cw, c, 0) && (c->cvt != RCVT_NONE || !host_side_pinned(cw, c, 0)))
            return 1;
    }
    return 0;
}

/* The two converting rings and the downloads' stream (at a split's creation, else first use). */
cudaError_t cvt_ready(cuda_worker *cw)
{
    cudaError_t e = cw->cvt_down ? cudaSuccess : cudaStreamCreateWithFlags(&cw->cvt_down, cudaStreamNonBlocking);
    if (e == cudaSuccess && !cw->down_ring.pin)
        e = cvt_ring_init(&cw->down_ring, cw->host_threads, CVT_DOWN_PIECES, CVT_DOWN_PIECE_BYTES);
    if (e == cudaSuccess && !cw->up_ring.pin)
        e = cvt_ring_init(&cw->up_ring, cw->host_threads, CVT_UP_PIECES, CVT_UP_PIECE_BYTES);
    return e;
}

/* Gather c (host, converted) to dst on the device through the upload ring. */
cudaError_t cvt_upload(cuda_worker *cw, const rcopy *c, char *dst)
{
    cudaError_t e = cvt_ready(cw);
    return e == cudaSuccess ? cvt_ring_upload(&cw->up_ring, c, dst, cw->es, cw->up) : e;
}

/* The gather that goes through the row cache: the largest, when it is one
 * run of bytes on both sides, at least RING_MIN_BYTES, and the recipe's
 * input needs no staging (pageable input is packed on the host anyway). That
 * is a forward window's main run (a split chunk's window too, converted rows
 * included: the rows consecutive windows share are converted and go up
 * once); the far-end rows a mode pulls and the inverse's band blocks go up
 * directly. -1: none. */
int ring_gather(cuda_worker *cw, const recipe *r, int stage_in)
{
    if (stage_in)
        return -1;
    int best = -1;
    size_t most = 0;
    for (int i = 0; i < r->gather.n; i++) {
        rcopy c = r->gather.v[i].c;
        recipe_copy_normalize(&c);
        const size_t n = copy_elems(&c) * cw->es;
        if ((c.n[0] == 1 && c.n[1] == 1) && n > most) {
            most = n;
            best = i;
        }
    }
    return most >= RING_MIN_BYTES ? best : -1;
}

/* Ring bytes for windows of `bytes`: the chunks in flight, one fetched ahead
 * and one spare, so evictions rarely wait. Made or grown at level start
 * (reserve_level), only while no chunk is in flight (cudaFree synchronizes
 * and would drop bytes chunks in flight still read); without the memory the
 * worker goes on uploading whole windows. */
void ring_reserve(cuda_worker *cw, size_t bytes)
{
    const size_t want = (size_t)(cw->nslots + 3) * bytes;
    if (want <= cw->cache.cap)
        return;
    for (int k = 0; k < cw->nslots && cw->ring; k++)
        if (cw->s[k].busy)
            return;
    cudaFree(cw->ring);
    cw->ring = NULL;
    row_cache_init(&cw->cache, 0);
    if (cudaMalloc((void **)&cw->ring, want) == cudaSuccess)
        row_cache_init(&cw->cache, want);
    else
        cudaGetLastError();
}

/* Upload the part of gather c the ring lacks; the window is copied out of the
 * ring on the compute stream (ring_read). */
cudaError_t ring_upload(cuda_worker *cw, const rcopy *c, row_plan *rp)
{
    const size_t a = c->src.off * cw->es, b = a + copy_elems(c) * cw->es;
    row_cache_plan(&cw->cache, c->src.host, a, b, rp);
    if (!rp->cached)
        return cudaSuccess;
    /* wait for the chunks in flight that still have to copy out ring bytes this overwrites */
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < cw->nslots && e == cudaSuccess; k++) {
        const slot *o = &cw->s[k];
        if (o->busy && o->reads_ring && row_plan_overlaps(rp, &o->ring_plan))
            e = cudaStreamWaitEvent(cw->up, o->ev_read, 0);
    }
    for (int k = 0; k < rp->nup && e == cudaSuccess; k++) {
        if (through_ring(cw, c, 0)) {
            /* the cache counts in the transform's elements; the source holds another type (doubles,
               or a 16-bit plan's caller's array): the ring converts on the host */
            rcopy part = *c;
            part.src.off = rp->up[k].host / cw->es;
            part.n[2] = rp->up[k].bytes / cw->es;
            e = cvt_upload(cw, &part, cw->ring + rp->up[k].ring);
        } else {
            e = cudaMemcpyAsync(cw->ring + rp->up[k].ring, c->src.host + rp->up[k].host, rp->up[k].bytes,
                                cudaMemcpyDefault, cw->up);
        }
    }
    return e;
}

cudaError_t ring_read(cuda_worker *cw, slot *sl, const rcopy *c, const row_plan *rp)
{
    sl->reads_ring = 1;
    sl->ring_plan = *rp;
    char *dst = sl->arena + c->dst.off * cw->es;
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < rp->nread && e == cudaSuccess; k++)
        e = cudaMemcpyAsync(dst + (rp->read[k].host - rp->read[0].host), cw->ring + rp->read[k].ring, rp->read[k].bytes,
                            cudaMemcpyDeviceToDevice, cw->comp);
    if (e == cudaSuccess)
        e = cudaEventRecord(sl->ev_read, cw->comp);
    return e;
}

/* Enqueue a recipe: H2D on the up stream, passes on the compute stream, D2H
 * on the down stream, each waiting for the previous stage's event. pre: the
 * ring uploads already issued for it (fetch_ahead), or NULL. */
lwt_status enqueue(cuda_worker *cw, slot *sl, const row_plan *pre)
{
    const recipe *r = &sl->r;
    const size_t es = cw->es;
    const int stage_in = needs_stage_in(cw, r);
    int stage_out = 0;
    for (int i = 0; i < r->scatter.n; i++) {
        const rcopy *c = &r->scatter.v[i].c;
        if (!through_ring(cw, c, 1) && (c->cvt != RCVT_NONE || c->nan_mask || !host_side_pinned(cw, c, 1)))
            stage_out = 1; /* converted or masked on the host */
    }
    cudaError_t e = grow_dev((void **)&sl->arena, &sl->acap, r->arena_elems * es);
    if (e == cudaSuccess)
        e = grow_dev((void **)&sl->scratch, &sl->scap, recipe_scratch(cw, r));
    if (e == cudaSuccess && stage_in)
        e = grow_pin(&sl->pin_in, &sl->pin_in_cap, list_elems(&r->gather) * es);
    if (e == cudaSuccess && stage_out)
        e = grow_pin(&sl->pin_out, &sl->pin_out_cap, list_elems(&r->scatter) * es);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        return LWT_ERR_OUT_OF_MEMORY;
    }
    if (e != cudaSuccess)
        return cuda_fail(cw, e, "allocating chunk buffers");
    /* the window's main run through the row cache (sized at level start, reserve_level) */
    const int rg = ring_gather(cw, r, stage_in);
    row_plan rp;
    memset(&rp, 0, sizeof rp);
    sl->reads_ring = 0;
    sl->up_bytes = 0;
    e = cudaEventRecord(sl->ev[0], cw->up);
    if (pre)
        rp = *pre;
    else if (e == cudaSuccess && rg >= 0 && cw->ring)
        e = ring_upload(cw, &r->gather.v[rg].c, &rp);
    for (int k = 0; k < rp.nup; k++)
        sl->up_bytes += rp.up[k].bytes;
    /* the other gathers: straight from pinned memory, else packed into pinned staging first */
    size_t at = 0;
    for (int i = 0; i < r->gather.n && e == cudaSuccess; i++) {
        const rcopy *c = &r->gather.v[i].c;
        char *dst = sl->arena + c->dst.off * es;
        if (i == rg && rp.cached)
            continue;
        sl->up_bytes += copy_elems(c) * es;
        if (through_ring(cw, c, 0)) {
            e = cvt_upload(cw, c, dst);
        } else if (stage_in) {
            rcopy in = packed_side(c, 0, at), out = packed_side(c, 1, at);
            recipe_copy_host(&in, c->src.host + c->src.off * rcopy_src_es(c, es), sl->pin_in + at * es, es,
                             cw->host_threads);
            e = copy_2d(&out, sl->pin_in + at * es, dst, es, cudaMemcpyHostToDevice, cw->up);
            at += copy_elems(c);
        } else {
            e = copy_2d(c, c->src.host + c->src.off * es, dst, es, cudaMemcpyDefault, cw->up);
        }
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(sl->ev[1], cw->up);
    if (e != cudaSuccess)
        return cuda_fail(cw, e, "copying a chunk to the device");
    e = cudaStreamWaitEvent(cw->comp, sl->ev[1], 0);
    if (e == cudaSuccess && rp.cached)
        e = ring_read(cw, sl, &r->gather.v[rg].c, &rp);
    if (e != cudaSuccess)
        return cuda_fail(cw, e, "copying a window out of the row cache");
    sl->fused = sl->passes = 0;
    for (int i = 0; i < r->compute.n; i++) {
        const rop *o = &r->compute.v[i];
        if (o->kind == ROP_COPY || o->kind == ROP_ZERO) {
            e = o->kind == ROP_COPY ? copy_2d(&o->c, sl->arena + o->c.src.off * es, sl->arena + o->c.dst.off * es, es,
                                              cudaMemcpyDeviceToDevice, cw->comp)
                                    : zero_2d(&o->c, sl->arena + o->c.dst.off * es, es, cw->comp);
            if (e != cudaSuccess)
                return cuda_fail(cw, e, "assembling a window");
            continue;
        }
        if (o->kind == ROP_PLAN) {
            lwt_status s = run_plan(cw, sl, &o->t);
            if (s)
                return s;
            continue;
        }
        /* a whole 2-D level in one kernel, where it applies: one read and one write of the window */
        const rpass *p1 = i + 1 < r->compute.n && r->compute.v[i + 1].kind == ROP_PASS ? &r->compute.v[i + 1].p : NULL;
        int lshape = -1;
        const lwt_slide_geom *lg = o->p.fuse_next && !o->p.prog.inverse && !cw->naive && p1
                                       ? lwt_cuda_level_part_geom(cw->plan, &cw->levels, &o->p.prog, &p1->prog, &lshape)
                                       : NULL;
        if (lg) {
            lwt_status s = lwt_cuda_run_level_part(cw->plan, lg, lshape, &o->p.prog, &p1->prog,
                                                   sl->arena + o->p.in.off * es, sl->arena + p1->out.off * es,
                                                   cw->comp);
            if (s)
                return s;
            sl->fused++;
            i++;
            continue;
        }
        sl->passes += o->p.fuse_next && !o->p.prog.inverse;
        lwt_pass ps;
        pass_of(cw, o, &ps);
        ps.in = sl->arena + o->p.in.off * es;
        ps.out = sl->arena + o->p.out.off * es;
        lwt_status s = lwt_cuda_run_pass_on(cw->plan, &ps, sl->scratch, cw->comp, cw->naive);
        if (s)
            return s;
    }
    e = cudaEventRecord(sl->ev[2], cw->comp);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(cw->down, sl->ev[2], 0);
    /* D2H: straight to pinned destinations, else packed into staging (scattered after) */
    at = 0;
    for (int i = 0; i < r->scatter.n && e == cudaSuccess; i++) {
        const rcopy *c = &r->scatter.v[i].c;
        const char *src = sl->arena + c->src.off * es;
        if (through_ring(cw, c, 1))
            continue; /* when the chunk completes (complete) */
        if (stage_out) {
            rcopy out = packed_side(c, 0, at);
            e = copy_2d(&out, src, sl->pin_out + at * es, es, cudaMemcpyDeviceToHost, cw->down);
            at += copy_elems(c);
        } else {
            e = copy_2d(c, src, c->dst.host + c->dst.off * es, es, cudaMemcpyDefault, cw->down);
        }
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(sl->ev[3], cw->down);
    if (e != cudaSuccess)
        return cuda_fail(cw, e, "copying a chunk back");
    sl->staged_out = stage_out;
    return LWT_OK;
}

/* Wait for a slot's chunk, scatter staged results, account its times. */
lwt_status complete(cuda_worker *cw, slot *sl, stream_engine *e, int w, int report)
{
    cudaError_t ce = cudaEventSynchronize(sl->ev[3]);
    if (ce != cudaSuccess)
        return cuda_fail(cw, ce, "running a chunk");
    const recipe *r = &sl->r;
    const size_t es = cw->es;
    for (int i = 0; i < r->scatter.n && ce == cudaSuccess; i++) {
        const rcopy *c = &r->scatter.v[i].c;
        if (through_ring(cw, c, 1) && (ce = cvt_ready(cw)) == cudaSuccess)
            ce = cvt_ring_download(&cw->down_ring, c, sl->arena + c->src.off * es, es, sl->ev[2], cw->cvt_down);
    }
    if (ce != cudaSuccess)
        return cuda_fail(cw, ce, "copying a chunk back");
    if (sl->staged_out) {
        size_t at = 0;
        for (int i = 0; i < r->scatter.n; i++) {
            const rcopy *c = &r->scatter.v[i].c;
            if (through_ring(cw, c, 1))
                continue;
            rcopy in = packed_side(c, 1, at);
            recipe_copy_host(&in, sl->pin_out + at * es, c->dst.host + c->dst.off * rcopy_dst_es(c, es), es,
                             cw->host_threads);
            at += copy_elems(c);
        }
    }
    float t[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        cudaEventElapsedTime(&t[k], sl->ev[k], sl->ev[k + 1]);
    engine_add_gpu_times(e, 1e-3 * t[0], 1e-3 * t[1], 1e-3 * t[2], sl->up_bytes, r->out_elems * es,
                         r->in_elems * es, sl->fused, sl->passes);
    if (!cw->pinned_pool)
        free_pinned(sl);
    const double now = stream_now();
    const double start = sl->t_launch > cw->last_done ? sl->t_launch : cw->last_done;
    cw->last_done = now;
    sl->busy = 0;
    /* busy time: since this chunk's launch or the previous completion, but no more than the
       chunk's own span on the device (its first upload to its last D2H). The test-only slowdown
       sleeps (slowdown - 1) x this after each chunk; without the cap the next chunk, finished
       during that sleep, would count the sleep as its busy time, and at slowdown 4 the sleeps
       grew threefold per chunk (docs/STREAMING.md) */
    float span_ms = 0.0f;
    double busy = now - start;
    if (cudaEventElapsedTime(&span_ms, sl->ev[0], sl->ev[3]) == cudaSuccess && 1e-3 * span_ms < busy)
        busy = 1e-3 * span_ms;
    if (report)
        engine_done(e, w, sl->chunk, busy, 1.0, 1.0);
    return LWT_OK;
}

/* A chunk that does not fit: its output range in halves, one after the other. */
lwt_status run_split(cuda_worker *cw, slot *sl, const level_job *job, long lo, long hi, stream_engine *e, int w)
{
    if (hi - lo < 2)
        return lwt_fail(cw->ctx, LWT_ERR_OUT_OF_MEMORY,
                        "stream worker on CUDA device %d: one output row does not fit in device memory", cw->device);
    release_device(sl);
    const long mid = lo + (hi - lo) / 2;
    const long part[2][2] = {{lo, mid}, {mid, hi}};
    for (int h = 0; h < 2; h++) {
        if (recipe_build_range(job, part[h][0], part[h][1], &sl->r))
            return LWT_ERR_OUT_OF_MEMORY;
        lwt_status s = enqueue(cw, sl, NULL);
        if (s == LWT_ERR_OUT_OF_MEMORY)
            s = run_split(cw, sl, job, part[h][0], part[h][1], e, w);
        else if (s == LWT_OK)
            s = complete(cw, sl, e, w, 0);
        if (s)
            return s;
    }
    return LWT_OK;
}

/* Fetch this worker's next chunk while every slot is busy and send its
 * window's new rows up at once: the upload then runs while the host waits
 * for a slot, where it would otherwise be issued only after the oldest
 * chunk's D2H (measured: the last chunk's upload started late and its
 * compute and D2H drained the pipeline alone). */
void fetch_ahead(cuda_worker *cw, const level_job *job, stream_engine *e, int w)
{
    cw->ahead_c = -1;
    cw->ahead_up = 0;
    if (!cw->ring || cw->nslots < 2)
        return;
    const long c = engine_next(e, w, 0);
    if (c < 0)
        return;
    cw->ahead_c = c;
    if (recipe_build(job, c, &cw->ahead_r))
        return;
    const int rg = ring_gather(cw, &cw->ahead_r, needs_stage_in(cw, &cw->ahead_r));
    if (rg < 0 || ring_upload(cw, &cw->ahead_r.gather.v[rg].c, &cw->ahead_plan) != cudaSuccess)
        return;
    cw->ahead_up = cw->ahead_plan.cached;
}

/* Device buffers sized at level start, while nothing is in flight, for the
 * chunks that need the most: the first and the last (their windows hold the
 * far-end rows too) and a middle one. Growing a buffer later frees the old
 * one, and cudaFree waits for the whole device: measured, the last chunk's
 * larger arena held its upload until the chunks before it had finished, 1-2
 * ms of drained pipeline per level. The ring is sized for the largest of
 * their windows' main runs (the first window, cut short by the boundary, is
 * the smallest). Allocation failures are left to the chunks, which split when
 * their buffers do not fit. */
void reserve_level(cuda_worker *cw, const level_job *job)
{
    size_t arena = 0, scratch = 0, run = 0;
    /* the slots the level can use (they are taken in order): a one-chunk job, the surface
       filter's, holds one arena, where one per slot put 3 x 4.2 GB of cudaMalloc (12288^2)
       into the run */
    const int used = job->nchunks < cw->nslots ? (int)job->nchunks : cw->nslots;
    const long cs[3] = {0, job->nchunks / 2, job->nchunks - 1};
    for (int i = 0; i < 3; i++) {
        if (recipe_build(job, cs[i], &cw->ahead_r))
            continue;
        const size_t a = cw->ahead_r.arena_elems * cw->es, sc = recipe_scratch(cw, &cw->ahead_r);
        arena = a > arena ? a : arena;
        scratch = sc > scratch ? sc : scratch;
        const int rg = ring_gather(cw, &cw->ahead_r, needs_stage_in(cw, &cw->ahead_r));
        const size_t rb = rg >= 0 ? copy_elems(&cw->ahead_r.gather.v[rg].c) * cw->es : 0;
        run = rb > run ? rb : run;
    }
    if (run && job->nchunks > 1) /* one window shares its rows with no other: no row cache */
        ring_reserve(cw, run);
    for (int k = 0; k < used; k++) {
        slot *sl = &cw->s[k];
        if (grow_dev((void **)&sl->arena, &sl->acap, arena) != cudaSuccess ||
            grow_dev((void **)&sl->scratch, &sl->scap, scratch) != cudaSuccess)
            cudaGetLastError();
    }
}

/* Start chunk c on a free slot (synchronously when it has to be split);
 * ahead: c is the chunk fetch_ahead took. */
lwt_status launch(cuda_worker *cw, slot *sl, const level_job *job, long c, stream_engine *e, int w, int ahead)
{
    lwt_status s = engine_chunk_begin(e, w, c);
    if (s)
        return s;
    const row_plan *pre = NULL;
    if (ahead && cw->ahead_up) {
        /* its recipe was built with its uploads: take it */
        recipe t = sl->r;
        sl->r = cw->ahead_r;
        cw->ahead_r = t;
        pre = &cw->ahead_plan;
    } else if (recipe_build(job, c, &sl->r)) {
        return LWT_ERR_OUT_OF_MEMORY;
    }
    sl->chunk = c;
    sl->t_launch = stream_now();
    s = enqueue(cw, sl, pre);
    if (s == LWT_ERR_OUT_OF_MEMORY) {
        long lo, hi;
        recipe_chunk_range(job, c, &lo, &hi);
        s = run_split(cw, sl, job, lo, hi, e, w);
        if (s == LWT_OK) {
            const double now = stream_now();
            engine_done(e, w, c, now - sl->t_launch, 1.0, 1.0);
            cw->last_done = now;
        }
        return s;
    }
    if (s == LWT_OK)
        sl->busy = 1;
    return s;
}

lwt_status cuda_level(void *state, stream_engine *e, int w, const level_job *job)
{
    cuda_worker *cw = (cuda_worker *)state;
    cudaError_t ce = cudaSetDevice(cw->device);
    if (ce != cudaSuccess) {
        lwt_status s = cuda_fail(cw, ce, "selecting the device");
        engine_failed(e, w, -1, s);
        return s;
    }
    cw->last_done = 0;
    cw->job = job;
    row_cache_reset(&cw->cache); /* a new level reads a new array, or new data in the old one */
    cw->nknown = 0; /* a streamer's next call may pass buffers at the addresses of freed ones */
    cw->ahead_c = -1;
    reserve_level(cw, job);
    lwt_status st = LWT_OK;
    int next_slot = 0;
    for (;;) {
        slot *sl = &cw->s[next_slot];
        if (sl->busy && (st = complete(cw, sl, e, w, 1)) != LWT_OK)
            break;
        const int ahead = cw->ahead_c >= 0;
        long c = cw->ahead_c;
        cw->ahead_c = -1;
        if (!ahead) {
            int inflight = 0;
            for (int k = 0; k < cw->nslots; k++)
                inflight += cw->s[k].busy;
            c = engine_next(e, w, inflight == 0);
        }
        if (c == -2) {
            /* nothing now but chunks are out: finish the oldest in flight */
            int k = next_slot;
            for (int i = 0; i < cw->nslots && !cw->s[k].busy; i++)
                k = (k + 1) % cw->nslots;
            if ((st = complete(cw, &cw->s[k], e, w, 1)) != LWT_OK)
                break;
            continue;
        }
        if (c < 0)
            break;
        if ((st = launch(cw, sl, job, c, e, w, ahead)) != LWT_OK) {
            sl->chunk = c;
            sl->busy = 1; /* so that it is reported with the others */
            break;
        }
        next_slot = (next_slot + 1) % cw->nslots;
        if (cw->s[next_slot].busy)
            fetch_ahead(cw, job, e, w);
    }
    if (cw->ahead_c >= 0) { /* fetched, never started: it runs elsewhere */
        engine_failed(e, w, cw->ahead_c, st);
        cw->ahead_c = -1;
    }
    /* drain (success) or give every unfinished chunk back (failure) */
    for (int k = 0; k < cw->nslots; k++) {
        slot *sl = &cw->s[(next_slot + k) % cw->nslots];
        if (!sl->busy)
            continue;
        if (st == LWT_OK && (st = complete(cw, sl, e, w, 1)) == LWT_OK)
            continue;
        engine_failed(e, w, sl->chunk, st);
        sl->busy = 0;
    }
    if (st != LWT_OK)
        engine_failed(e, w, -1, st);
    return st;
}

void cuda_destroy(void *state)
{
    cuda_worker *cw = (cuda_worker *)state;
    if (!cw)
        return;
    cudaSetDevice(cw->device);
    cudaStream_t st[4] = {cw->up, cw->comp, cw->down, cw->cvt_down};
    for (int i = 0; i < 4; i++)
        if (st[i])
            cudaStreamSynchronize(st[i]);
    for (int k = 0; k < cw->nslots; k++) {
        slot *sl = &cw->s[k];
        release_device(sl);
        free_pinned(sl);
        for (int i = 0; i < 4; i++)
            if (sl->ev[i])
                cudaEventDestroy(sl->ev[i]);
        if (sl->ev_read)
            cudaEventDestroy(sl->ev_read);
        recipe_free(&sl->r);
    }
    recipe_free(&cw->ahead_r);
    cvt_ring_free(&cw->down_ring);
    cvt_ring_free(&cw->up_ring);
    lwt_cuda_part_cache_free(&cw->levels);
    cudaFree(cw->ring);
    for (int i = 0; i < 4; i++)
        if (st[i])
            cudaStreamDestroy(st[i]);
    lwt_plan_destroy(cw->plan);
    free(cw);
}

/* the buffers of runs of jobs like `job`, made when a split is created (reserve_level; a
   buffer it cannot have is left to the runs, which split chunks that do not fit), and the
   converting rings when its runs convert */
lwt_status cuda_prepare(void *state, const level_job *job)
{
    cuda_worker *cw = (cuda_worker *)state;
    int cur = 0;
    cudaError_t e = cudaGetDevice(&cur);
    if (e == cudaSuccess)
        e = cudaSetDevice(cw->device);
    if (e != cudaSuccess)
        return cuda_fail(cw, e, "selecting the device");
    cw->job = job;
    cw->nknown = 0;
    reserve_level(cw, job);
    cw->job = NULL;
    cw->nknown = 0; /* the job's NULL host pointers are no run's */
    if (job->split) /* a split's runs may convert, mask or read pageable memory (through_ring) */
        e = cvt_ready(cw);
    cudaSetDevice(cur);
    return e == cudaSuccess ? LWT_OK : cuda_fail(cw, e, "making the converting copies' pinned buffers");
}

const worker_ops cuda_ops = {cuda_level, cuda_destroy, cuda_prepare};

} // namespace

extern "C" lwt_status stream_cuda_worker_create(const lwt_plan *plan, const lwt_stream_tuning *tuning,
                                                const lwt_stream_worker *cfg, const worker_ops **ops, void **state,
                                                worker_caps *caps)
{
    const lwt_context *ctx = plan->ctx;
    int ndev = lwt_cuda_device_count();
    if (cfg->device < 0 || cfg->device >= ndev)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "stream worker: CUDA device %d does not exist (%d present)",
                        cfg->device, ndev);
    cuda_worker *cw = (cuda_worker *)calloc(1, sizeof *cw);
    if (!cw)
        return LWT_ERR_OUT_OF_MEMORY;
    cw->ctx = ctx;
    cw->device = cfg->device;
    cw->naive = !tuning->tuned_blocks;
    /* every thread for each ring, although uploads and downloads convert at once: splitting
       the 16 cores between the two (downloads 12 / uploads 4, 8/8, 14/2) made lwt_filter_run's
       transforms 276-337 ms where 16/16 took 210 (H200, 2026-11-26, docs/PERFORMANCE.md) */
    const long procs = sysconf(_SC_NPROCESSORS_ONLN);
    cw->host_threads = cfg->threads > 0   ? cfg->threads
                       : ctx->threads > 0 ? ctx->threads
                       : procs > 0        ? (int)procs
                                          : 1;
    cw->pinned_pool = tuning->pinned_pool;
    cw->nslots = tuning->overlap ? (tuning->streams > 0 ? tuning->streams : 3) : 1;
    if (cw->nslots > MAX_SLOTS)
        cw->nslots = MAX_SLOTS;
    cw->es = lwt_plan_elem_size(plan);
    /* this device's plan: same transform, device tables on cfg->device */
    lwt_plan_desc d = plan->desc;
    d.backend = LWT_BACKEND_CUDA;
    d.device = cfg->device;
    d.batch = 1;
    lwt_status s = lwt_plan_create_tuned((lwt_context *)ctx, &d, &plan->tune, &cw->plan);
    if (s) {
        free(cw);
        return s;
    }
    lwt_cuda_plan_exact_f32(cw->plan);
    cudaError_t e = cudaSetDevice(cw->device);
    cudaStream_t *st[3] = {&cw->up, &cw->comp, &cw->down};
    recipe_init(&cw->ahead_r);
    cw->ahead_c = -1;
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaStreamCreateWithFlags(st[i], cudaStreamNonBlocking);
    for (int k = 0; k < cw->nslots && e == cudaSuccess; k++) {
        slot *sl = &cw->s[k];
        recipe_init(&sl->r);
        for (int i = 0; i < 4 && e == cudaSuccess; i++)
            e = cudaEventCreate(&sl->ev[i]);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&sl->ev_read, cudaEventDisableTiming);
    }
    cudaDeviceProp prop;
    if (e == cudaSuccess)
        e = cudaGetDeviceProperties(&prop, cw->device);
    if (e != cudaSuccess) {
        s = cuda_fail(cw, e, "creating streams");
        cuda_destroy(cw);
        return s;
    }
    int clock_khz = 0, mem_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, cw->device);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, cw->device);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, cw->device);
    caps->parallel = (double)prop.multiProcessorCount * 128.0;
    caps->gflops = caps->parallel * 2.0 * (double)clock_khz * 1e-6;
    caps->mem_gib = (double)prop.totalGlobalMem / (double)(1u << 30);
    caps->mem_gbs = 2.0 * (double)mem_khz * 1e3 * (double)bus_bits / 8.0 / 1e9;
    /* host link: PCIe generation 5 x16 moves about 50 GB/s each way */
    caps->bus_gbs = 50.0;
    *ops = &cuda_ops;
    *state = cw;
    return LWT_OK;
}
