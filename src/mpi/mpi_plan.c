/*
 * A transform over MPI ranks (lwt_mpi.h) on the streamed engine: each group of levels that
 * lwt_stream would run (stream_groups) is cut into the same chunks, each rank runs a
 * contiguous share of them on its own streamer, and before a group runs the rows its share
 * reads beyond what the rank holds arrive from their holders. Every array a group reads or
 * writes lives on each rank as an anonymous mapping of the whole array's size, reserved but
 * not committed (MAP_NORESERVE): a rank touches only the pages of its rows and their halos, and
 * the recipes' host addresses stay those of the whole array, so the engine runs unchanged and
 * computes every coefficient as lwt_forward does (same bits).
 *
 * The messages are planned at creation: every rank builds the recipes of every share of every
 * group (cheap: they depend on the plan only, not on the data) and derives from them what each
 * rank reads (gathers) and holds (its input slab, then what its chunks wrote); what rank q sends
 * rank r before a group is then what q holds of what r reads.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/fail.h"
#include "mpi/mpi_internal.h"
#include "stream/recipe.h"

/* three distinct addresses for the arrays of a group while the recipes are planned (never
   dereferenced: the recipes are only read) */
static const char FAKE[3];
#define FAKE_SRC (FAKE + 0)
#define FAKE_COEF (FAKE + 1)
#define FAKE_DST (FAKE + 2)

/* ---- the arrays ---- */

/* an array of the whole size, reserved, pages made (zeroed) when first touched; NULL when the
   address space is short */
static char *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : (char *)p;
}

static void release(char *p, size_t bytes)
{
    if (p)
        munmap(p, bytes ? bytes : 1);
}

/* ---- collective status ---- */

lwt_status lwt__mpi_agree(const lwt_mpi_plan *mp, MPI_Comm comm, lwt_status st)
{
    int mine = (int)st, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return lwt_fail(mp ? mp->ctx : NULL, LWT_ERR_IO, "MPI_Allreduce failed");
    return (lwt_status)all;
}

/* ---- planning ---- */

static void xchg_free(xchg *x, int size)
{
    for (int q = 0; x->send && q < size; q++)
        spans_free(&x->send[q]);
    for (int q = 0; x->recv && q < size; q++)
        spans_free(&x->recv[q]);
    free(x->send);
    free(x->recv);
    x->send = x->recv = NULL;
}

static void spans_free_all(spans *s, int n)
{
    for (int q = 0; s && q < n; q++)
        spans_free(&s[q]);
    free(s);
}

/* chunks [c0, c1) of rank q: the share of the group's output rows proportional to q's slab,
   or to its weight (the same doubles and operations on every rank, so every rank derives the
   same shares) */
static void share_of(const lwt_mpi_plan *mp, const level_job *job, int q, long *c0, long *c1)
{
    const unsigned __int128 n0 = mp->slab[mp->size], nout = (unsigned __int128)job->nout;
    double total = 0, before[2] = {0, 0};
    for (int p = 0; mp->weight && p < mp->size; p++) {
        if (p < q)
            before[0] += mp->weight[p];
        if (p <= q)
            before[1] += mp->weight[p];
        total += mp->weight[p];
    }
    long c[2];
    for (int e = 0; e < 2; e++) {
        unsigned __int128 rows;
        if (mp->weight) {
            const double r = ceil(before[e] / total * (double)job->nout);
            rows = r < (double)job->nout ? (unsigned __int128)r : nout;
        } else {
            rows = ((unsigned __int128)mp->slab[q + e] * nout + n0 - 1) / n0;
        }
        const long ch = (long)((rows + (unsigned __int128)job->per_chunk - 1) / (unsigned __int128)job->per_chunk);
        c[e] = ch < job->nchunks ? ch : job->nchunks;
    }
    if (mp->weight && q == mp->size - 1)
        c[1] = job->nchunks; /* the last share ends with the group, whatever the rounding */
    *c0 = c[0];
    *c1 = c[1];
}

/* every rank's reads of src and coef and writes of dst and coef in one group; and what this
   rank's copies span of each array, first to last element (its GPU worker's DMA) */
typedef struct group_io {
    spans *read_src, *read_coef, *write_dst, *write_coef;
    spans ext_src, ext_coef, ext_dst;
} group_io;

static void group_io_free(group_io *g, int size)
{
    spans_free_all(g->read_src, size);
    spans_free_all(g->read_coef, size);
    spans_free_all(g->write_dst, size);
    spans_free_all(g->write_coef, size);
    spans_free(&g->ext_src);
    spans_free(&g->ext_coef);
    spans_free(&g->ext_dst);
    memset(g, 0, sizeof *g);
}

static lwt_status plan_group_io(const lwt_mpi_plan *mp, const level_job *tmpl, group_io *g)
{
    const int size = mp->size;
    g->read_src = calloc((size_t)size, sizeof(spans));
    g->read_coef = calloc((size_t)size, sizeof(spans));
    g->write_dst = calloc((size_t)size, sizeof(spans));
    g->write_coef = calloc((size_t)size, sizeof(spans));
    if (!g->read_src || !g->read_coef || !g->write_dst || !g->write_coef)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    level_job job = *tmpl;
    job.chunk0 = 0;
    recipe r;
    recipe_init(&r);
    lwt_status st = LWT_OK;
    for (int q = 0; q < size && !st; q++) {
        long c0, c1;
        share_of(mp, tmpl, q, &c0, &c1);
        for (long c = c0; c < c1 && !st; c++) {
            if (recipe_build(&job, c, &r)) {
                st = lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
                break;
            }
            for (int i = 0; i < r.gather.n && !st; i++) {
                const rop *o = &r.gather.v[i];
                if (o->kind == ROP_COPY && !spans_add_copy(&g->read_src[q], &o->c, 1, FAKE_SRC) &&
                    !spans_add_copy(&g->read_coef[q], &o->c, 1, FAKE_COEF))
                    st = lwt_fail(mp->ctx, LWT_ERR_INTERNAL, "lwt_mpi: a chunk reads an array the plan does not know");
                if (o->kind == ROP_COPY && q == mp->rank && !spans_add_extent(&g->ext_src, &o->c, 1, FAKE_SRC))
                    spans_add_extent(&g->ext_coef, &o->c, 1, FAKE_COEF);
            }
            for (int i = 0; i < r.scatter.n && !st; i++) {
                const rop *o = &r.scatter.v[i];
                if (o->kind == ROP_COPY && !spans_add_copy(&g->write_dst[q], &o->c, 0, FAKE_DST) &&
                    !spans_add_copy(&g->write_coef[q], &o->c, 0, FAKE_COEF))
                    st = lwt_fail(mp->ctx, LWT_ERR_INTERNAL, "lwt_mpi: a chunk writes an array the plan does not know");
                if (o->kind == ROP_COPY && q == mp->rank && !spans_add_extent(&g->ext_dst, &o->c, 0, FAKE_DST))
                    spans_add_extent(&g->ext_coef, &o->c, 0, FAKE_COEF);
            }
        }
    }
    recipe_free(&r);
    for (int q = 0; q < size; q++) {
        spans_normalize(&g->read_src[q]);
        spans_normalize(&g->read_coef[q]);
        spans_normalize(&g->write_dst[q]);
        spans_normalize(&g->write_coef[q]);
        if (g->read_src[q].failed || g->read_coef[q].failed || g->write_dst[q].failed || g->write_coef[q].failed)
            st = lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    }
    return st;
}

/* what this rank sends and receives so that every rank has what it reads (read[q]) of an
   array held as hold[q] */
static lwt_status plan_xchg(const lwt_mpi_plan *mp, const spans *read, const spans *hold, xchg *x)
{
    x->send = calloc((size_t)mp->size, sizeof(spans));
    x->recv = calloc((size_t)mp->size, sizeof(spans));
    if (!x->send || !x->recv)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    for (int q = 0; q < mp->size; q++) {
        if (q == mp->rank)
            continue;
        spans_intersect(&hold[mp->rank], &read[q], &x->send[q]);
        spans_intersect(&read[mp->rank], &hold[q], &x->recv[q]);
        if (x->send[q].failed || x->recv[q].failed)
            return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    }
    return LWT_OK;
}

static lwt_status slab_spans(const lwt_mpi_plan *mp, spans **out)
{
    spans *s = calloc((size_t)mp->size, sizeof(spans));
    if (!s)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    for (int q = 0; q < mp->size; q++)
        spans_add(&s[q], mp->slab[q] * mp->row_elems, mp->slab[q + 1] * mp->row_elems);
    *out = s;
    return LWT_OK;
}

/* add b's spans to a's (rank by rank) */
static void spans_merge_into(spans *a, const spans *b, int size)
{
    for (int q = 0; q < size; q++) {
        for (size_t i = 0; i < b[q].n; i++)
            spans_add(&a[q], b[q].v[i].lo, b[q].v[i].hi);
        spans_normalize(&a[q]);
    }
}

static size_t approx_elems(const lwt_plan *p, int j)
{
    size_t n = 1;
    for (int k = 0; k < p->ndim; k++)
        n *= p->sizes[j][k];
    return n;
}

/* what this rank's chunks read or write (s) of array a */
static void note_touched(lwt_mpi_plan *mp, int a, const spans *s)
{
    for (size_t i = 0; i < s->n; i++)
        spans_add(&mp->touched[a], s->v[i].lo, s->v[i].hi);
}

/* The forward's groups: shares, messages, and every rank's coefficients (coef_hold). */
static lwt_status plan_forward(lwt_mpi_plan *mp, spans *coef_hold)
{
    level_job jobs[LWT_LEVELS_LIMIT];
    const int J = mpi_compute(mp)->levels;
    mp->nfwd = J ? stream_groups(mp->streamer, 0, jobs) : 0;
    mp->fwd = calloc((size_t)(mp->nfwd ? mp->nfwd : 1), sizeof(group));
    if (!mp->fwd)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    spans *hold = NULL;
    lwt_status st = slab_spans(mp, &hold);
    for (int g = 0; g < mp->nfwd && !st; g++) {
        group *gr = &mp->fwd[g];
        gr->job = jobs[g];
        gr->job.src = FAKE_SRC;
        gr->job.coeffs_out = (char *)FAKE_COEF;
        gr->job.dst = gr->job.j1 == J ? NULL : (char *)FAKE_DST;
        share_of(mp, &gr->job, mp->rank, &gr->c0, &gr->c1);
        group_io io = {0};
        st = plan_group_io(mp, &gr->job, &io);
        if (!st)
            st = plan_xchg(mp, io.read_src, hold, &gr->src);
        if (!st) { /* the arrays as mpi_run.c passes them: the signal, then the two areas in turn */
            note_touched(mp, g ? ARR_APPR0 + ((g - 1) & 1) : ARR_SIG, &io.ext_src);
            note_touched(mp, ARR_APPR0 + (g & 1), &io.ext_dst);
            note_touched(mp, ARR_COEF, &io.ext_coef);
            spans_merge_into(coef_hold, io.write_coef, mp->size);
            spans_free_all(hold, mp->size);
            hold = io.write_dst; /* the next group's input */
            io.write_dst = NULL;
        }
        group_io_free(&io, mp->size);
    }
    if (!st && mp->nfwd == 0) /* no level: the coefficients are the signal */
        spans_merge_into(coef_hold, hold, mp->size);
    spans_free_all(hold, mp->size);
    return st;
}

static lwt_status plan_inverse(lwt_mpi_plan *mp, const spans *coef_hold)
{
    level_job jobs[LWT_LEVELS_LIMIT];
    const int J = mpi_compute(mp)->levels;
    mp->ninv = J ? stream_groups(mp->streamer, 1, jobs) : 0;
    mp->inv = calloc((size_t)(mp->ninv ? mp->ninv : 1), sizeof(group));
    if (!mp->inv)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    spans *hold = NULL; /* of the approximation the last group wrote */
    lwt_status st = LWT_OK;
    for (int g = 0; g < mp->ninv && !st; g++) {
        group *gr = &mp->inv[g];
        gr->job = jobs[g];
        gr->job.coeffs_in = FAKE_COEF;
        gr->job.src = gr->job.j1 == J ? NULL : FAKE_SRC;
        gr->job.dst = (char *)FAKE_DST;
        share_of(mp, &gr->job, mp->rank, &gr->c0, &gr->c1);
        group_io io = {0};
        st = plan_group_io(mp, &gr->job, &io);
        if (!st)
            st = plan_xchg(mp, io.read_coef, coef_hold, &gr->coef);
        if (!st && hold)
            st = plan_xchg(mp, io.read_src, hold, &gr->src);
        if (!st) {
            note_touched(mp, ARR_COEF, &io.ext_coef);
            if (g)
                note_touched(mp, ARR_APPR0 + ((g - 1) & 1), &io.ext_src);
            note_touched(mp, gr->job.j0 == 1 ? ARR_SIG : ARR_APPR0 + (g & 1), &io.ext_dst);
            spans_free_all(hold, mp->size);
            hold = io.write_dst;
            io.write_dst = NULL;
        }
        group_io_free(&io, mp->size);
    }
    spans *slabs = NULL;
    if (!st)
        st = slab_spans(mp, &slabs);
    if (!st && hold) /* the signal's rows to the ranks whose slabs they are */
        st = plan_xchg(mp, slabs, hold, &mp->out);
    spans_free_all(slabs, mp->size);
    spans_free_all(hold, mp->size);
    return st;
}

/* This rank's rows of every band, from the elements it holds of the packed array. */
static lwt_status plan_pieces(lwt_mpi_plan *mp, const spans *mine)
{
    const lwt_plan *p = mp->plan;
    lwt_plan_info info;
    LWT_FORWARD(lwt_plan_get_info(p, &info));
    const int nd = info.ndim, J = info.levels;
    const int nb = 1 + J * ((1 << nd) - 1);
    mp->pieces = calloc((size_t)nb, sizeof(piece));
    if (!mp->pieces)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    size_t stride[LWT_MAX_NDIM]; /* of the packed array, in elements */
    stride[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; k--)
        stride[k] = stride[k + 1] * info.packed_shape[k + 1];
    size_t offset = 0;
    for (int level = 0; level <= J; level++)
        for (unsigned mask = level ? 1 : 0; mask < (level ? 1u << nd : 1u); mask++) {
            lwt_band b;
            LWT_FORWARD(lwt_plan_band(p, level, mask, &b));
            piece *pc = &mp->pieces[mp->npieces++];
            pc->level = level;
            pc->mask = mask;
            pc->row_elems = 1;
            pc->band_first = 0;
            for (int k = 0; k < nd; k++)
                pc->band_first += b.offset[k] * stride[k];
            for (int k = 1; k < nd; k++)
                pc->row_elems *= b.shape[k];
            pc->packed_row = stride[0];
            pc->runs = nd == 3 ? b.shape[1] : 1;
            pc->run = nd == 3 ? b.shape[2] : pc->row_elems;
            pc->run_stride = nd == 3 ? stride[1] : 0;
            size_t r0 = b.shape[0], r1 = b.shape[0];
            for (size_t r = 0; r < b.shape[0]; r++)
                if (spans_has(mine, pc->band_first + r * stride[0])) {
                    if (r0 == b.shape[0])
                        r0 = r;
                    else if (r != r1)
                        return lwt_fail(mp->ctx, LWT_ERR_INTERNAL, "lwt_mpi: rows of band (%d, %u) not contiguous", level,
                                        mask);
                    r1 = r + 1;
                }
            if (r0 == b.shape[0])
                r0 = r1 = 0;
            pc->row0 = r0;
            pc->row1 = r1;
            pc->offset = offset;
            offset += (r1 - r0) * pc->row_elems;
        }
    mp->local_coeffs = offset;
    return LWT_OK;
}

static lwt_status read_slabs(lwt_mpi_plan *mp, size_t row0, size_t row1)
{
    unsigned long long mine[2] = {row0, row1};
    unsigned long long *all = malloc(2 * (size_t)mp->size * sizeof *all);
    mp->slab = malloc(((size_t)mp->size + 1) * sizeof *mp->slab);
    if (!all || !mp->slab) {
        free(all);
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory");
    }
    if (MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, mp->comm) != MPI_SUCCESS) {
        free(all);
        return lwt_fail(mp->ctx, LWT_ERR_IO, "lwt_mpi: MPI_Allgather failed");
    }
    lwt_status st = LWT_OK;
    for (int q = 0; q < mp->size && !st; q++) {
        mp->slab[q] = (size_t)all[2 * q];
        if (all[2 * q] > all[2 * q + 1] || all[2 * q] != (q ? all[2 * q - 1] : 0))
            st = lwt_fail(mp->ctx, LWT_ERR_INVALID_ARGUMENT,
                          "lwt_mpi: the slabs do not tile axis 0 in rank order: rank %d has rows [%llu, %llu)", q,
                          all[2 * q], all[2 * q + 1]);
    }
    mp->slab[mp->size] = (size_t)all[2 * mp->size - 1];
    if (!st && mp->slab[mp->size] != mp->plan->desc.shape[0])
        st = lwt_fail(mp->ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_mpi: the slabs end at row %zu, the array has %zu",
                      mp->slab[mp->size], (size_t)mp->plan->desc.shape[0]);
    free(all);
    return st;
}

/* every rank's weight: the same kind on every rank (mine: given, measured or by slab) */
static lwt_status read_weights(lwt_mpi_plan *mp, double mine)
{
    lwt_status st = LWT_OK;
    if (mine == LWT_MPI_WEIGHT_MEASURE)
        st = lwt__mpi_probe(mp, &mine);
    double *all = malloc((size_t)mp->size * sizeof *all);
    if (!all)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory");
    if (MPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, mp->comm) != MPI_SUCCESS) {
        free(all);
        return lwt_fail(mp->ctx, LWT_ERR_IO, "lwt_mpi: MPI_Allgather failed");
    }
    int slab = 0, given = 0;
    for (int q = 0; q < mp->size; q++) {
        slab += all[q] == LWT_MPI_WEIGHT_SLAB;
        given += all[q] > 0 && isfinite(all[q]);
    }
    if (!st && slab != mp->size && given != mp->size)
        st = lwt_fail(mp->ctx, LWT_ERR_INVALID_ARGUMENT,
                      "lwt_mpi: every rank needs a positive weight, or every rank LWT_MPI_WEIGHT_MEASURE or "
                      "LWT_MPI_WEIGHT_SLAB (this rank gave %g)", mine);
    if (st || slab == mp->size) {
        free(all);
        return st;
    }
    mp->weight = all;
    return LWT_OK;
}

static lwt_status make_plan(lwt_mpi_plan *mp, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                            const lwt_stream_tuning *tuning, size_t row0, size_t row1, double weight)
{
    if (!desc || desc->batch != 1)
        return lwt_fail(mp->ctx, LWT_ERR_UNSUPPORTED, "lwt_mpi: this version runs batch-1 plans");
    if (!(weight > 0 || weight == LWT_MPI_WEIGHT_SLAB || weight == LWT_MPI_WEIGHT_MEASURE))
        return lwt_fail(mp->ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_mpi: weight %g is not positive, "
                        "LWT_MPI_WEIGHT_MEASURE or LWT_MPI_WEIGHT_SLAB", weight);
    lwt_plan_desc d = *desc;
    d.backend = LWT_BACKEND_CPU; /* the description the streamer's workers follow */
    LWT_FORWARD(lwt_plan_create(mp->ctx, &d, &mp->plan));
    const lwt_plan *p = mpi_compute(mp);
    mp->es = lwt_plan_elem_size(mp->plan);
    mp->appr_es = lwt_plan_elem_size(p);
    mp->row_elems = 1;
    for (int k = 1; k < d.ndim; k++)
        mp->row_elems *= d.shape[k];
    LWT_FORWARD(read_slabs(mp, row0, row1));
    lwt_stream_desc sd = stream ? *stream : lwt_stream_desc_default();
    if (!sd.chunk_rows) { /* the engine's chunks of about 64 MiB, but at least one a rank (eight
                             when the shares follow weights, so that they can differ) */
        const size_t by_size = ((size_t)64 << 20) / (mp->row_elems * mp->es);
        const size_t by_ranks = d.shape[0] / ((size_t)mp->size * (weight == LWT_MPI_WEIGHT_SLAB ? 1 : 8)) + 1;
        sd.chunk_rows = by_ranks < by_size ? by_ranks : by_size > 2 ? by_size : 2;
    }
    for (int k = 0; k < sd.nworkers && k < LWT_STREAM_MAX_WORKERS; k++) /* nworkers 0: one CPU worker */
        mp->gpu |= sd.workers[k].kind == LWT_WORKER_CUDA;
    const lwt_stream_tuning tune = tuning ? *tuning : lwt_stream_tuning_default();
    LWT_FORWARD(lwt_streamer_create_tuned(mp->plan, &sd, &tune, &mp->streamer));
    mp->sig_bytes = p->input_count * mp->es;
    mp->coef_bytes = p->coeff_count * mp->es;
    for (int j = 1; j < p->levels; j++)
        if (approx_elems(p, j) * mp->appr_es > mp->appr_bytes)
            mp->appr_bytes = approx_elems(p, j) * mp->appr_es;
    mp->sig = reserve(mp->sig_bytes);
    mp->coef = reserve(mp->coef_bytes);
    mp->appr[0] = reserve(mp->appr_bytes);
    mp->appr[1] = reserve(mp->appr_bytes);
    mp->seen = calloc(1, sizeof *mp->seen);
    if (!mp->sig || !mp->coef || !mp->appr[0] || !mp->appr[1] || !mp->seen)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: cannot reserve %zu bytes of address space",
                        mp->sig_bytes + mp->coef_bytes + 2 * mp->appr_bytes);
    LWT_FORWARD(read_weights(mp, weight));
    return lwt__mpi_plan_shares(mp);
}

lwt_status lwt__mpi_plan_shares(lwt_mpi_plan *mp)
{
    spans *coef_hold = calloc((size_t)mp->size, sizeof(spans));
    if (!coef_hold)
        return lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    lwt_status st = plan_forward(mp, coef_hold);
    if (!st)
        st = plan_inverse(mp, coef_hold);
    if (!st)
        st = plan_pieces(mp, &coef_hold[mp->rank]);
    spans_free_all(coef_hold, mp->size);
    for (int a = 0; a < ARR_COUNT; a++) {
        spans_normalize(&mp->touched[a]);
        if (mp->touched[a].failed && !st)
            st = lwt_fail(mp->ctx, LWT_ERR_OUT_OF_MEMORY, "lwt_mpi: out of memory while planning");
    }
    if (!st)
        lwt__mpi_pin(mp);
    return st;
}

void lwt__mpi_free_shares(lwt_mpi_plan *mp)
{
    lwt__mpi_unpin(mp);
    for (int a = 0; a < ARR_COUNT; a++) {
        spans_free(&mp->touched[a]);
        memset(&mp->touched[a], 0, sizeof mp->touched[a]);
    }
    for (int g = 0; mp->fwd && g < mp->nfwd; g++)
        xchg_free(&mp->fwd[g].src, mp->size);
    for (int g = 0; mp->inv && g < mp->ninv; g++) {
        xchg_free(&mp->inv[g].src, mp->size);
        xchg_free(&mp->inv[g].coef, mp->size);
    }
    xchg_free(&mp->out, mp->size);
    free(mp->fwd);
    free(mp->inv);
    free(mp->pieces);
    mp->fwd = mp->inv = NULL;
    mp->pieces = NULL;
    mp->nfwd = mp->ninv = mp->npieces = 0;
    mp->local_coeffs = 0;
}

static lwt_status create(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                         const lwt_stream_tuning *tuning, MPI_Comm comm, size_t row0, size_t row1, double weight,
                         lwt_mpi_plan **out)
{
    if (!out)
        return LWT_ERR_INVALID_ARGUMENT;
    *out = NULL;
    lwt_mpi_plan *mp = calloc(1, sizeof *mp);
    lwt_status st = mp ? LWT_OK : LWT_ERR_OUT_OF_MEMORY;
    if (mp) {
        mp->ctx = ctx;
        mp->comm = comm;
        MPI_Comm_rank(comm, &mp->rank);
        MPI_Comm_size(comm, &mp->size);
        st = make_plan(mp, desc, stream, tuning, row0, row1, weight);
    }
    st = lwt__mpi_agree(mp, comm, st);
    if (st) {
        lwt_mpi_plan_destroy(mp);
        return st;
    }
    *out = mp;
    return LWT_OK;
}

lwt_status lwt_mpi_plan_create(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                               MPI_Comm comm, size_t row0, size_t row1, lwt_mpi_plan **out)
{
    return create(ctx, desc, stream, NULL, comm, row0, row1, LWT_MPI_WEIGHT_SLAB, out);
}

lwt_status lwt_mpi_plan_create_weighted(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                                        MPI_Comm comm, size_t row0, size_t row1, double weight, lwt_mpi_plan **out)
{
    return create(ctx, desc, stream, NULL, comm, row0, row1, weight, out);
}

lwt_status lwt_mpi_plan_create_tuned(lwt_context *ctx, const lwt_plan_desc *desc, const lwt_stream_desc *stream,
                                     const lwt_stream_tuning *tuning, MPI_Comm comm, size_t row0, size_t row1,
                                     lwt_mpi_plan **out)
{
    return create(ctx, desc, stream, tuning, comm, row0, row1, LWT_MPI_WEIGHT_SLAB, out);
}

void lwt_mpi_plan_destroy(lwt_mpi_plan *mp)
{
    if (!mp)
        return;
    lwt__mpi_free_shares(mp);
    free(mp->slab);
    free(mp->weight);
    free(mp->seen);
    release(mp->sig, mp->sig_bytes);
    release(mp->coef, mp->coef_bytes);
    release(mp->appr[0], mp->appr_bytes);
    release(mp->appr[1], mp->appr_bytes);
    lwt_streamer_destroy(mp->streamer);
    lwt_plan_destroy(mp->plan);
    free(mp);
}

lwt_status lwt_mpi_plan_local(const lwt_mpi_plan *mp, size_t *input_count, size_t *coeff_count)
{
    if (!mp)
        return LWT_ERR_INVALID_ARGUMENT;
    if (input_count)
        *input_count = (mp->slab[mp->rank + 1] - mp->slab[mp->rank]) * mp->row_elems;
    if (coeff_count)
        *coeff_count = mp->local_coeffs;
    return LWT_OK;
}

lwt_status lwt_mpi_plan_signal(const lwt_mpi_plan *mp, void **rows)
{
    if (!mp || !rows)
        return LWT_ERR_INVALID_ARGUMENT;
    *rows = mp->sig + mp->slab[mp->rank] * mp->row_elems * mp->es;
    return LWT_OK;
}

lwt_status lwt_mpi_band_view(const lwt_mpi_plan *mp, int level, unsigned band_mask, void **first, size_t *row0,
                             size_t *row1, size_t stride[LWT_MAX_NDIM])
{
    if (!mp || !first)
        return LWT_ERR_INVALID_ARGUMENT;
    size_t r0, r1;
    LWT_FORWARD(lwt_mpi_band_rows(mp, level, band_mask, &r0, &r1, NULL));
    for (int i = 0; i < mp->npieces; i++) {
        const piece *pc = &mp->pieces[i];
        if (pc->level != level || pc->mask != band_mask)
            continue;
        *first = mp->coef + (pc->band_first + r0 * pc->packed_row) * mp->es;
        if (row0)
            *row0 = r0;
        if (row1)
            *row1 = r1;
        if (stride) { /* the packed array's strides: axis 0 a packed row, axis 1 (3-D) a run */
            const int nd = mpi_compute(mp)->ndim;
            stride[0] = pc->packed_row;
            stride[nd - 1] = 1;
            if (nd == 3)
                stride[1] = pc->run_stride;
        }
    }
    return LWT_OK;
}

lwt_status lwt_mpi_band_rows(const lwt_mpi_plan *mp, int level, unsigned band_mask, size_t *row0, size_t *row1,
                             size_t *offset)
{
    if (!mp)
        return LWT_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < mp->npieces; i++)
        if (mp->pieces[i].level == level && mp->pieces[i].mask == band_mask) {
            if (row0)
                *row0 = mp->pieces[i].row0;
            if (row1)
                *row1 = mp->pieces[i].row1;
            if (offset)
                *offset = mp->pieces[i].offset;
            return LWT_OK;
        }
    return lwt_fail(mp->ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_mpi_band_rows: no band (%d, %u) in this plan", level,
                    band_mask);
}

