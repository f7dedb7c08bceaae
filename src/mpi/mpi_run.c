/*
 * The distributed plan's calls (lwt_mpi.h): before each group of levels the rows a rank's
 * share reads arrive from the ranks that hold them (exchange), then the rank runs its share on
 * its streamer; the planning (mpi_plan.c) decided both.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fail.h"
#include "mpi/mpi_internal.h"

/* one message's bytes at most: MPI counts are ints; a bigger transfer goes as several messages
   of one tag, which MPI delivers in the order they were posted */
#define MSG_MAX_BYTES ((size_t)1 << 30)

static size_t pieces_of(size_t bytes)
{
    return (bytes + MSG_MAX_BYTES - 1) / MSG_MAX_BYTES;
}

/* The messages of x on array arr of es-byte elements (this rank's holdings sent, its reads
 * received; a 16-bit plan's approximations are float32, so none is rounded on its way between
 * ranks); tag: the step, so that steps never match each other's messages. Each span goes straight from and into
 * the array, with no packing buffer: the sender's spans to a peer and the peer's spans from it
 * are the same normalized list, and MPI keeps the order of one pair's messages of one tag, so
 * they match one for one. (Packing through buffers malloc'd per call cost 21-23 ms a forward on
 * 4 GPU ranks at 32768^2, for 13.8 MB each way: the fresh pages' faults and single-threaded
 * copies, not the transfer; docs/PERFORMANCE.md, "Four GPUs".) */
static lwt_status exchange(const lwt_mpi_plan *mp, const xchg *x, char *arr, size_t es, int tag)
{
    const int size = mp->size;
    size_t nmsg = 0, sent = 0, received = 0;
    for (int q = 0; q < size; q++)
        for (int dir = 0; dir < 2; dir++) {
            const spans *s = dir ? &x->send[q] : &x->recv[q];
            for (size_t i = 0; i < s->n; i++)
                nmsg += pieces_of((s->v[i].hi - s->v[i].lo) * es);
            *(dir ? &sent : &received) += spans_count(s) * es;
        }
    MPI_Request *req = malloc((nmsg ? nmsg : 1) * sizeof(MPI_Request));
    lwt_status st = req ? LWT_OK : lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory");
    /* every rank can post its messages before any leaves: a rank that could not would
       otherwise leave its peers waiting */
    st = lwt__mpi_agree(mp, mp->comm, st);
    int nreq = 0;
    for (int q = 0; q < size && !st; q++)
        for (int dir = 0; dir < 2 && !st; dir++) {
            const spans *s = dir ? &x->send[q] : &x->recv[q];
            for (size_t i = 0; i < s->n && !st; i++) {
                char *base = arr + s->v[i].lo * es;
                const size_t bytes = (s->v[i].hi - s->v[i].lo) * es;
                for (size_t at = 0; at < bytes && !st; at += MSG_MAX_BYTES) {
                    const int n = (int)(bytes - at < MSG_MAX_BYTES ? bytes - at : MSG_MAX_BYTES);
                    const int rc = dir ? MPI_Isend(base + at, n, MPI_BYTE, q, tag, mp->comm, &req[nreq])
                                       : MPI_Irecv(base + at, n, MPI_BYTE, q, tag, mp->comm, &req[nreq]);
                    if (rc != MPI_SUCCESS)
                        st = lwt_fail(mp->ctx, LWT_ERR_IO, "lwt_mpi: posting a message to rank %d failed", q);
                    else
                        nreq++;
                }
            }
        }
    lwt_log(mp->ctx, LWT_LOG_DEBUG, "lwt_mpi: rank %d, step %d: %zu bytes sent, %zu received in %d messages", mp->rank,
            tag, sent, received, nreq);
    if (nreq && MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS && !st)
        st = lwt_fail(mp->ctx, LWT_ERR_IO, "lwt_mpi: a message failed");
    free(req);
    return lwt__mpi_agree(mp, mp->comm, st);
}

/* this rank's share of a group; then every rank learns whether all shares ran */
static lwt_status run_share(const lwt_mpi_plan *mp, const group *g, level_job *job)
{
    return lwt__mpi_agree(mp, mp->comm, lwt__mpi_run_chunks(mp, job, g->c0, g->c1));
}

/* a big copy over the threads: one core moves a fraction of what the memory bus can, and the
   slab in and the pieces out are each a pass over a rank's whole share */
static void copy_par(void *dst, const void *src, size_t bytes)
{
    const size_t block = (size_t)1 << 20;
    const long nb = (long)((bytes + block - 1) / block);
#pragma omp parallel for schedule(static) if (nb > 4)
    for (long i = 0; i < nb; i++) {
        const size_t o = (size_t)i * block;
        memcpy((char *)dst + o, (const char *)src + o, bytes - o < block ? bytes - o : block);
    }
}

/* between this rank's pieces and the packed array: to (1) or from (0) the packed; the rows of
   a piece over the threads */
static void move_pieces(const lwt_mpi_plan *mp, char *packed, char *local, int to_packed)
{
    const size_t es = mp->es;
    for (int i = 0; i < mp->npieces; i++) {
        const piece *pc = &mp->pieces[i];
        const long rows = (long)(pc->row1 - pc->row0);
#pragma omp parallel for schedule(static) if ((size_t)rows * pc->row_elems * es > ((size_t)4 << 20))
        for (long rr = 0; rr < rows; rr++) {
            const size_t r = pc->row0 + (size_t)rr;
            for (size_t k = 0; k < pc->runs; k++) {
                char *a = packed + (pc->band_first + r * pc->packed_row + k * pc->run_stride) * es;
                char *b = local + (pc->offset + (size_t)rr * pc->row_elems + k * pc->run) * es;
                if (to_packed)
                    memcpy(a, b, pc->run * es);
                else
                    memcpy(b, a, pc->run * es);
            }
        }
    }
}

static size_t bytes_of(const lwt_mpi_plan *mp, size_t elems)
{
    return elems * mp->es;
}

/* where a call's time went on this rank (logged at debug level): copying its slab or pieces
   in, the messages, its chunks (with the wait for the slowest rank's), copying out */
typedef struct phases {
    double t, in, msg, run, out;
} phases;

static void lap(phases *ph, double *into)
{
    const double now = MPI_Wtime();
    *into += now - ph->t;
    ph->t = now;
}

static void log_phases(const lwt_mpi_plan *mp, const phases *ph, const char *call)
{
    lwt_log(mp->ctx, LWT_LOG_DEBUG, "%s: rank %d: in %.2f ms, messages %.2f ms, chunks %.2f ms, out %.2f ms", call,
            mp->rank, 1e3 * ph->in, 1e3 * ph->msg, 1e3 * ph->run, 1e3 * ph->out);
}

/* mine: the bytes of this rank's slab (every rank agrees first, so a failure elsewhere stops
   all of them here) */
static lwt_status begin_call(const lwt_mpi_plan *mp, size_t *mine)
{
    *mine = bytes_of(mp, (mp->slab[mp->rank + 1] - mp->slab[mp->rank]) * mp->row_elems);
    return lwt__mpi_agree(mp, mp->comm, LWT_OK);
}

static char *my_signal(const lwt_mpi_plan *mp)
{
    return mp->sig + bytes_of(mp, mp->slab[mp->rank] * mp->row_elems);
}

/* no level: the coefficients are the signal (their pieces the slab) */
static void no_levels(const lwt_mpi_plan *mp, const void *in, void *out, size_t mine, int forward)
{
    char *at_sig = my_signal(mp), *at_coef = mp->coef + (at_sig - mp->sig);
    const void *from = in ? in : forward ? at_sig : at_coef;
    void *to = out ? out : forward ? at_coef : at_sig;
    if (mp->plan->f32) /* as the in-memory 16-bit plan: widened and rounded back */
        lwt_half_identity(mp->plan->desc.dtype, from, to, mine / mp->es);
    else
        copy_par(to, from, mine);
}

lwt_status lwt_mpi_forward(const lwt_mpi_plan *mp, const void *local_input, void *local_coeffs)
{
    if (!mp)
        return LWT_ERR_INVALID_ARGUMENT;
    size_t mine;
    lwt_status st = begin_call(mp, &mine);
    phases ph = {MPI_Wtime(), 0, 0, 0, 0};
    if (!st && mp->nfwd == 0) {
        no_levels(mp, local_input, local_coeffs, mine, 1);
        return LWT_OK;
    }
    if (!st && mine && local_input)
        copy_par(my_signal(mp), local_input, mine);
    lap(&ph, &ph.in);
    char *src = mp->sig;
    for (int g = 0; g < mp->nfwd && !st; g++) {
        const group *gr = &mp->fwd[g];
        level_job job = gr->job;
        st = exchange(mp, &gr->src, src, g ? mp->appr_es : mp->es, g);
        lap(&ph, &ph.msg);
        job.src = src;
        job.coeffs_out = mp->coef;
        job.dst = job.dst ? mp->appr[g & 1] : NULL;
        if (!st)
            st = run_share(mp, gr, &job);
        lap(&ph, &ph.run);
        src = job.dst;
    }
    if (!st && local_coeffs)
        move_pieces(mp, mp->coef, local_coeffs, 0);
    lap(&ph, &ph.out);
    log_phases(mp, &ph, "lwt_mpi_forward");
    return st;
}

lwt_status lwt_mpi_inverse(const lwt_mpi_plan *mp, const void *local_coeffs, void *local_output)
{
    if (!mp)
        return LWT_ERR_INVALID_ARGUMENT;
    size_t mine;
    lwt_status st = begin_call(mp, &mine);
    if (!st && mp->ninv == 0) {
        no_levels(mp, local_coeffs, local_output, mine, 0);
        return LWT_OK;
    }
    phases ph = {MPI_Wtime(), 0, 0, 0, 0};
    if (!st && local_coeffs)
        move_pieces(mp, mp->coef, (char *)local_coeffs, 1);
    lap(&ph, &ph.in);
    char *src = NULL;
    for (int g = 0; g < mp->ninv && !st; g++) {
        const group *gr = &mp->inv[g];
        level_job job = gr->job;
        st = exchange(mp, &gr->coef, mp->coef, mp->es, 2 * g);
        if (!st && src)
            st = exchange(mp, &gr->src, src, mp->appr_es, 2 * g + 1);
        lap(&ph, &ph.msg);
        job.coeffs_in = mp->coef;
        job.src = job.src ? src : NULL;
        job.dst = job.j0 == 1 ? mp->sig : mp->appr[g & 1];
        if (!st)
            st = run_share(mp, gr, &job);
        lap(&ph, &ph.run);
        src = job.dst;
    }
    if (!st)
        st = exchange(mp, &mp->out, mp->sig, mp->es, 2 * mp->ninv);
    lap(&ph, &ph.msg);
    if (!st && mine && local_output)
        copy_par(local_output, my_signal(mp), mine);
    lap(&ph, &ph.out);
    log_phases(mp, &ph, "lwt_mpi_inverse");
    return st;
}
