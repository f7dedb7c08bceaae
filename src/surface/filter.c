/* filter.c - form / waviness / roughness / noise by band-limited inverse transforms (filter.h). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */

#include "surface/filter.h"
#include "surface/fill.h"
#include "surface/form.h"
#include "surface/gauss.h"
#include "surface/split_impl.h"
#include "core/fail.h"
#include "core/sized.h"
#include "surface/threads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const char *const BAND_NAMES[LWT_BAND_COUNT] = {"form", "waviness", "roughness", "noise"};

const char *lwt_filter_band_name(int band)
{
    return band >= 0 && band < LWT_BAND_COUNT ? BAND_NAMES[band] : NULL;
}

lwt_filter_spec lwt_filter_spec_default(void)
{
    lwt_filter_spec s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    s.wavelet = "cdf97";
    s.mode = LWT_MODE_SYMMETRIC;
    s.dtype = LWT_F64;
    s.backend = LWT_BACKEND_AUTO;
    s.algorithm = LWT_ALGO_AUTO;
    return s;
}

/* the caller's spec as this version's (core/sized.h); the first version ended at progress_user */
lwt_status lwt__filter_spec_read(const lwt_context *ctx, const lwt_filter_spec *in, lwt_filter_spec *out)
{
    *out = lwt_filter_spec_default();
    return lwt_sized_read(ctx, "lwt_filter_spec", in, LWT_SIZED_FIRST(lwt_filter_spec, progress_user), out,
                          sizeof *out);
}

double lwt_filter_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Arrays of a big surface: 2 MiB aligned and marked for transparent huge
 * pages, so the first write into them (the float32 -> double conversion of
 * each band, the fill copy) is not paced by one page fault per 4 KiB: on the
 * H200 host that write ran at 10.8 GB/s with small pages and 39 GB/s with
 * huge ones (tests/gpu/test_gpu_filter.c). Freed with free(). */
static void *big_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < 4 * huge)
        return malloc(bytes);
    void *p = NULL;
    if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge))
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
#endif
    return p;
}

void lwt_filter_result_free(lwt_filter_result *r)
{
    if (!r)
        return;
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(r->band[b]);
        r->band[b] = NULL;
    }
}

size_t lwt__count_invalid(const double *z, size_t n, int threads)
{
    const int nt = lwt__surf_threads(threads);
    size_t bad = 0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : bad)
    for (long long i = 0; i < (long long)n; i++)
        bad += !isfinite(z[i]);
    return bad;
}

/* dst = src (n values) on the threads, each writing (first-touching) its own part. */
static void copy_parallel(double *dst, const double *src, size_t n, int threads)
{
    const int nt = lwt__surf_threads(threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long long i = 0; i < (long long)n; i++)
        dst[i] = src[i];
}

typedef struct work {
    lwt_splitter *split;
    double *filled;
} work;

static void work_free(work *k)
{
    free(k->filled);
    lwt_splitter_destroy(k->split);
}

static void progress(const lwt_filter_spec *s, int step, int steps, const char *what)
{
    if (s->progress)
        s->progress(s->progress_user, step, steps, what);
}

lwt_status lwt_filter_run(lwt_context *ctx, const lwt_filter_spec *spec_in, const double *z, size_t nx, size_t ny,
                          double dx, double dy, lwt_filter_result *out)
{
    if (!out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_filter_run: no result");
    memset(out, 0, sizeof *out);
    if (!spec_in || !z || nx == 0 || ny == 0 || !(dx > 0) || !(dy > 0))
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the filter");
    lwt_filter_spec sv;
    LWT_FORWARD(lwt__filter_spec_read(ctx, spec_in, &sv));
    const lwt_filter_spec *spec = &sv;
    if (spec->form_out)
        memset(spec->form_out, 0, sizeof *spec->form_out);
    LWT_RETURN_IF(spec->form < LWT_FORM_NONE || spec->form > LWT_FORM_CYLINDER_Y, ctx, LWT_ERR_INVALID_ARGUMENT,
                  "unknown form model %d", (int)spec->form);
    if (spec->filter == LWT_FILTER_GAUSSIAN || spec->filter == LWT_FILTER_ROBUST_GAUSSIAN)
        return lwt__gauss_filter_run(ctx, spec, z, nx, ny, dx, dy, out);
    LWT_RETURN_IF(spec->filter != LWT_FILTER_WAVELET, ctx, LWT_ERR_INVALID_ARGUMENT, "unknown filter kind %d",
                  (int)spec->filter);
    const double t_start = lwt_filter_now_ms();
    const size_t n = nx * ny;
    lwt_status st;
    work k;
    memset(&k, 0, sizeof k);

    /* the split's plans and buffers first (split.h): they check the spec before the fill's work.
       One chunk unless asked for, so that the phases are timed. */
    lwt_filter_spec ss = *spec;
    if (!ss.chunk_rows)
        ss.chunk_rows = LWT_SPLIT_ONE_CHUNK;
    LWT_FORWARD_GOTO(st, lwt_splitter_create(ctx, &ss, nx, ny, &k.split), done);
    LWT_FORWARD_GOTO(st, lwt__splitter_prepare_f64(k.split), done);
    lwt_splitter_info si;
    lwt_splitter_get_info(k.split, &si);
    const int nbands = si.nbands, steps = 2 + nbands;
    snprintf(out->wavelet, sizeof out->wavelet, "%s", si.wavelet);
    out->backend = si.backend;
    out->path = si.path;
    out->max_level = si.max_level;

    /* 1-2: remove the form from a copy and fill it, when there is something to remove or fill;
       else the transform reads z itself: the copy into fresh memory was all of the fill step for
       a surface without invalid points (20-250 ms for 4096^2 on the 2-core development VM, most of it page faults) */
    progress(spec, 0, steps, "filling invalid points");
    const double t_fill = lwt_filter_now_ms();
    const size_t n_bad = lwt__count_invalid(z, n, spec->threads);
    const int copy = n_bad || lwt__filter_has_form(spec);
    if (copy) {
        k.filled = big_alloc(n * sizeof *k.filled);
        if (!k.filled) {
            st = lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for %zu x %zu points", nx, ny);
            goto done;
        }
        copy_parallel(k.filled, z, n, spec->threads);
        LWT_FORWARD_GOTO(st, lwt__filter_form(ctx, spec, z, nx, ny, dx, dy, k.filled, &out->plane), done);
        int fr = lwt_fill_invalid(k.filled, nx, ny, &out->n_filled);
        if (fr) {
            st = lwt_fail(ctx, fr == -2 ? LWT_ERR_INVALID_ARGUMENT : LWT_ERR_OUT_OF_MEMORY,
                                   fr == -2 ? "all points are invalid" : "out of memory filling invalid points");
            goto done;
        }
    }
    out->ms_fill = lwt_filter_now_ms() - t_fill;

    /* 3-5: forward and inverse transforms (split.h) */
    lwt_split_io io;
    memset(&io, 0, sizeof io);
    io.in = copy ? (const void *)k.filled : (const void *)z;
    io.host_f64 = 1;
    io.z = n_bad ? z : NULL; /* non-finite points of z: NaN in every band */
    const int form_in_copy = copy && si.chunks == 1;
    for (int b = 0; b < nbands; b++) {
        /* one chunk: the form overwrites the filled copy once it is consumed (split_impl.h) */
        if (b == LWT_BAND_FORM && form_in_copy)
            continue;
        if (!(out->band[b] = big_alloc(n * sizeof(double)))) {
            st = lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for the %s band", BAND_NAMES[b]);
            goto done;
        }
    }
    if (form_in_copy)
        out->band[LWT_BAND_FORM] = k.filled;
    for (int b = 0; b < nbands; b++)
        io.band[b] = out->band[b];
    lwt_split_times tm;
    st = lwt__splitter_run_io(k.split, &io, &tm);
    if (form_in_copy)
        k.filled = NULL; /* owned by out now */
    if (st != LWT_OK)
        goto done;
    out->ms_transform = tm.total;
    out->nx = nx;
    out->ny = ny;
    out->ms_total = lwt_filter_now_ms() - t_start;
    st = LWT_OK;
done:
    if (st != LWT_OK)
        lwt_filter_result_free(out);
    work_free(&k);
    return st;
}
