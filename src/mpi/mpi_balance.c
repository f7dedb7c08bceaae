/*
 * What each rank computes: its workers (a GPU chosen by its place on its node, or the CPU),
 * its capability measured when the plan is made, and new shares from the times its calls took
 * (lwt_mpi.h). Cluster nodes differ (a GPU rank beside CPU ranks, older nodes beside newer),
 * and the slowest share sets the time of every group, so the shares follow speed, not slabs.
 */
#define _DEFAULT_SOURCE /* madvise */
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/fail.h"
#include "mpi/mpi_internal.h"

/* the elements of the group's finest approximation that chunks [c0, c1) own: the measure of
   work that makes speeds of different groups comparable */
static double work_of(const lwt_mpi_plan *mp, const level_job *job, long c0, long c1)
{
    const lwt_plan *p = mpi_compute(mp);
    long hi = c1 * job->per_chunk;
    if (hi > job->nout)
        hi = job->nout;
    const long rows = hi - c0 * job->per_chunk;
    double elems = 1;
    for (int k = 0; k < p->ndim; k++)
        elems *= (double)p->sizes[job->j0 - 1][k];
    return rows > 0 && job->nout > 0 ? elems * (double)rows / (double)job->nout : 0;
}

lwt_status lwt__mpi_run_chunks(const lwt_mpi_plan *mp, level_job *job, long c0, long c1)
{
    if (c1 <= c0)
        return LWT_OK;
    job->chunk0 = c0;
    job->nchunks = c1 - c0;
    const double t0 = MPI_Wtime();
    const lwt_status st = stream_run_job(mp->streamer, job);
    mp->seen->seconds += MPI_Wtime() - t0;
    mp->seen->elements += work_of(mp, job, c0, c1);
    return st;
}

/* the probe's pages given back: the arrays are zeros again, as reserved */
static void forget(char *p, size_t bytes)
{
    if (p && bytes)
        madvise(p, bytes, MADV_DONTNEED);
}

lwt_status lwt__mpi_probe(lwt_mpi_plan *mp, double *weight)
{
    *weight = 1;
    const int J = mpi_compute(mp)->levels;
    if (!J)
        return LWT_OK;
    level_job jobs[LWT_LEVELS_LIMIT];
    stream_groups(mp->streamer, 0, jobs);
    level_job job = jobs[0];
    job.src = mp->sig;
    job.coeffs_out = mp->coef;
    job.dst = job.j1 == J ? NULL : mp->appr[0];
    /* the first run makes the workers' buffers (and a GPU's context); the fastest of the next
       three is the speed (one run on the 2-core VM beside other work varied by 2x) */
    lwt_status st = lwt__mpi_run_chunks(mp, &job, 0, 1);
    double best = 0;
    for (int r = 0; r < 3 && !st; r++) {
        mp->seen->seconds = mp->seen->elements = 0;
        st = lwt__mpi_run_chunks(mp, &job, 0, 1);
        const double speed = mp->seen->seconds > 0 ? mp->seen->elements / mp->seen->seconds : 0;
        if (speed > best)
            best = speed;
    }
    if (!st && best > 0)
        *weight = best;
    mp->seen->seconds = mp->seen->elements = 0;
    forget(mp->sig, mp->sig_bytes);
    forget(mp->coef, mp->coef_bytes);
    forget(mp->appr[0], mp->appr_bytes);
    return st;
}

static char *array_of(const lwt_mpi_plan *mp, int a)
{
    return a == ARR_SIG ? mp->sig : a == ARR_COEF ? mp->coef : mp->appr[a - ARR_APPR0];
}

/* One registration per range of pages that copies share: each copy lies in one range (the
   spans are the copies' extents, merged where they overlap or touch), and ranges that round to
   a common page are merged too, since a DMA may not cross from one registration into the next
   and a page cannot be registered twice. */
void lwt__mpi_pin(lwt_mpi_plan *mp)
{
    if (!mp->gpu)
        return;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = 0, failed = 0, bytes = 0;
    for (int a = 0; a < ARR_COUNT; a++)
        n += mp->touched[a].n;
    mp->pinned = calloc(n ? n : 1, sizeof *mp->pinned);
    for (int a = 0; a < ARR_COUNT && mp->pinned; a++) {
        const spans *s = &mp->touched[a];
        char *base = array_of(mp, a);
        const size_t es = mpi_array_es(mp, a);
        for (size_t i = 0; i < s->n;) {
            const size_t lo = s->v[i].lo * es / page * page;
            size_t hi = (s->v[i].hi * es + page - 1) / page * page;
            for (i++; i < s->n && s->v[i].lo * es / page * page < hi; i++) {
                const size_t h = (s->v[i].hi * es + page - 1) / page * page;
                hi = h > hi ? h : hi;
            }
            if (lwt_cuda_host_register(base + lo, hi - lo) == 0) {
                mp->pinned[mp->npinned++] = base + lo;
                bytes += hi - lo;
            } else {
                failed++;
            }
        }
    }
    lwt_log(mp->ctx, LWT_LOG_DEBUG, "lwt_mpi: rank %d page-locked %zu pieces of its arrays, %zu bytes", mp->rank,
            mp->npinned, bytes);
    if (failed || !mp->pinned) /* still right, only slower: the worker stages what is not locked */
        lwt_log(mp->ctx, LWT_LOG_WARNING, "lwt_mpi: rank %d could not page-lock %zu pieces of its arrays (%zu bytes "
                "locked); its GPU worker stages them", mp->rank, failed, bytes);
}

void lwt__mpi_unpin(lwt_mpi_plan *mp)
{
    for (size_t i = 0; i < mp->npinned; i++)
        lwt_cuda_host_unregister(mp->pinned[i]);
    free(mp->pinned);
    mp->pinned = NULL;
    mp->npinned = 0;
}

lwt_status lwt_mpi_plan_weights(const lwt_mpi_plan *mp, double *weights)
{
    if (!mp || !weights)
        return LWT_ERR_INVALID_ARGUMENT;
    double total = 0;
    for (int q = 0; q < mp->size; q++)
        total += mp->weight ? mp->weight[q] : (double)(mp->slab[q + 1] - mp->slab[q]);
    for (int q = 0; q < mp->size; q++) {
        const double w = mp->weight ? mp->weight[q] : (double)(mp->slab[q + 1] - mp->slab[q]);
        weights[q] = total > 0 ? w / total : 1.0 / mp->size;
    }
    return LWT_OK;
}

lwt_status lwt_mpi_plan_rebalance(lwt_mpi_plan *mp)
{
    if (!mp)
        return LWT_ERR_INVALID_ARGUMENT;
    const int size = mp->size;
    double mine[2] = {mp->seen->seconds, mp->seen->elements};
    double *all = malloc(2 * (size_t)size * sizeof *all), *speed = malloc((size_t)size * sizeof *speed);
    lwt_status st = all && speed ? LWT_OK : lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory");
    st = lwt__mpi_agree(mp, mp->comm, st);
    if (!st && MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, mp->comm) != MPI_SUCCESS)
        st = lwt_fail(mp->ctx, LWT_ERR_IO, "lwt_mpi: MPI_Allgather failed");
    st = lwt__mpi_agree(mp, mp->comm, st);
    if (st) {
        free(all);
        free(speed);
        return st;
    }
    double known = 0;
    int nknown = 0;
    for (int q = 0; q < size; q++) {
        speed[q] = all[2 * q] > 0 && all[2 * q + 1] > 0 ? all[2 * q + 1] / all[2 * q] : 0;
        known += speed[q];
        nknown += speed[q] > 0;
    }
    free(all);
    if (!nknown) { /* nothing observed */
        free(speed);
        return LWT_OK;
    }
    for (int q = 0; q < size; q++)
        if (speed[q] <= 0)
            speed[q] = known / nknown;
    free(mp->weight);
    mp->weight = speed;
    mp->seen->seconds = mp->seen->elements = 0;
    lwt__mpi_free_shares(mp);
    return lwt__mpi_agree(mp, mp->comm, lwt__mpi_plan_shares(mp));
}

lwt_status lwt_mpi_stream_desc_local(lwt_context *ctx, MPI_Comm comm, lwt_backend backend, int threads,
                                     lwt_stream_desc *out)
{
    if (!out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_mpi_stream_desc_local: NULL argument");
    *out = lwt_stream_desc_default();
    out->nworkers = 1; /* 0 would mean one CPU worker whatever workers[0] says */
    out->workers[0].kind = LWT_WORKER_CPU;
    out->workers[0].threads = threads;
    int local = 0, devices = 0;
    lwt_status st = LWT_OK;
    if (backend != LWT_BACKEND_CPU) {
        MPI_Comm node;
        if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
            st = lwt_fail(ctx, LWT_ERR_IO, "lwt_mpi: cannot tell which ranks share this node");
        else {
            MPI_Comm_rank(node, &local);
            MPI_Comm_free(&node);
        }
        devices = lwt_context_device_count(ctx);
        if (!st && local < devices) {
            out->workers[0].kind = LWT_WORKER_CUDA;
            out->workers[0].device = local;
        } else if (!st && backend == LWT_BACKEND_CUDA) {
            st = lwt_fail(ctx, LWT_ERR_UNSUPPORTED, "lwt_mpi: rank %d of its node has no GPU of its own (%d here)",
                          local, devices);
        }
    }
    int worst = (int)st, all = 0;
    if (MPI_Allreduce(&worst, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return lwt_fail(ctx, LWT_ERR_IO, "MPI_Allreduce failed");
    return (lwt_status)all;
}
