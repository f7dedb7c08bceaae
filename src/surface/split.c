/* split.c - the band split as a planned object (split.h): a split job of the stream engine. */
#include "surface/split_impl.h"

#include "stream/split_job.h"
#include "surface/bands.h"
#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int level_in_band(const lwt_band_split *s, int band, int j)
{
    char c = lwt_band_of_level(s, j);
    return (band == LWT_BAND_NOISE && c == 'n') || (band == LWT_BAND_ROUGHNESS && c == 'r') ||
           (band == LWT_BAND_WAVINESS && c == 'w');
}

uint64_t lwt_split_keep(const lwt_band_split *split, int band)
{
    uint64_t keep = band == LWT_BAND_FORM ? 1 : 0; /* the approximation, packed level 0 */
    for (int j = 1; j <= split->levels; j++)
        if (level_in_band(split, band, j))
            keep |= (uint64_t)1 << (split->levels - j + 1);
    return keep;
}

struct lwt_splitter {
    lwt_context *ctx;
    lwt_wavelet *w;
    lwt_plan *whole;                 /* the surface's plan (backend, shape, levels) */
    stream_split *job;               /* the stream engine's split job: windows, their plans, a worker */
    size_t nx, ny;
    int nbands;
    lwt_filter_progress_fn progress; /* spec's: step 1 the start, 2 + nbands the end */
    void *progress_user;
    lwt_splitter_info info;
};

static void split_progress(void *user, double fraction)
{
    const lwt_splitter *s = user;
    const int steps = 2 + s->nbands;
    s->progress(s->progress_user, 1 + (int)(fraction * (steps - 1)), steps, "forward and inverse transforms");
}

void lwt_splitter_destroy(lwt_splitter *s)
{
    if (!s)
        return;
    stream_split_destroy(s->job);
    lwt_plan_destroy(s->whole);
    lwt_wavelet_destroy(s->w);
    free(s);
}

lwt_status lwt_splitter_create(lwt_context *ctx, const lwt_filter_spec *spec_in, size_t nx, size_t ny,
                               lwt_splitter **out)
{
    if (!out)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "lwt_splitter_create: no splitter to create");
    *out = NULL;
    if (!spec_in || nx == 0 || ny == 0)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the splitter");
    lwt_filter_spec sv;
    LWT_FORWARD(lwt__filter_spec_read(ctx, spec_in, &sv));
    const lwt_filter_spec *spec = &sv;
    const lwt_band_split *sp = &spec->split;
    if (sp->levels < 1 || sp->levels > LWT_BANDS_MAX_LEVELS || sp->rough_lo != sp->noise_hi + 1 ||
        sp->rough_hi < sp->rough_lo || sp->wavy_lo != sp->rough_hi + 1 || sp->wavy_hi != sp->levels)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "band split not resolved (use lwt_bands_resolve)");
    if (spec->dtype != LWT_F32 && spec->dtype != LWT_F64)
        return lwt_fail(ctx, LWT_ERR_INVALID_ARGUMENT, "dtype must be float32 or float64");
    /* levels per axis (anisotropic spacing): one-level steps; else the 2-D plan's levels */
    split_step steps[SPLIT_MAX_STEPS];
    int nsteps = 0, noise_steps = 0;
    if (!lwt__band_axes_uniform(&spec->axes, sp))
        LWT_FORWARD(lwt__band_axes_steps(ctx, &spec->axes, steps, &nsteps));
    for (int i = 0; i < nsteps; i++)
        noise_steps += steps[i].out == LWT_BAND_NOISE;
    lwt_splitter *s = (lwt_splitter *)calloc(1, sizeof *s);
    if (!s)
        return lwt_fail(ctx, LWT_ERR_OUT_OF_MEMORY, "out of memory for a splitter");
    s->ctx = ctx;
    s->nx = nx;
    s->ny = ny;
    s->progress = spec->progress;
    s->progress_user = spec->progress_user;
    s->nbands = sp->noise_hi > 0 || noise_steps ? 4 : 3;
    uint64_t keep[LWT_BAND_COUNT];
    for (int b = 0; b < s->nbands; b++)
        keep[b] = lwt_split_keep(sp, b);
    /* liblwt logs its own failures (wavelet, plan, split job): forwarded, not logged again */
    lwt_status st;
    LWT_FORWARD_GOTO(st, lwt_wavelet_create(ctx, spec->wavelet ? spec->wavelet : "cdf97", &s->w), fail);
    lwt_wavelet_info wi;
    lwt_wavelet_get_info(s->w, &wi);
    snprintf(s->info.wavelet, sizeof s->info.wavelet, "%s", wi.name);

    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = s->w;
    d.ndim = 2;
    d.shape[0] = ny;
    d.shape[1] = nx;
    d.levels = nsteps ? 1 : sp->levels; /* by steps: the plan gives the wavelet, path and backend */
    d.mode = spec->mode;
    d.dtype = spec->dtype;
    d.backend = spec->backend;
    d.algorithm = spec->algorithm;
    LWT_FORWARD_GOTO(st, lwt_plan_create(ctx, &d, &s->whole), fail);
    lwt_plan_info pi;
    lwt_plan_get_info(s->whole, &pi);
    s->info.backend = pi.backend;
    s->info.path = pi.path;
    s->info.max_level = pi.max_level;
    s->info.nbands = s->nbands;
    const size_t rows = spec->chunk_rows == LWT_SPLIT_ONE_CHUNK ? ny : spec->chunk_rows;
    if (nsteps)
        LWT_FORWARD_GOTO(st, stream_split_create_steps(s->whole, rows, s->nbands, steps, nsteps, LWT_BAND_FORM,
                                                       spec->threads, &s->job),
                         fail);
    else
        LWT_FORWARD_GOTO(st, stream_split_create(s->whole, rows, s->nbands, keep, spec->threads, &s->job), fail);
    /* a plan's buffers are made with it: runs (lwt_splitter_run: I/O in the dtype) allocate nothing */
    LWT_FORWARD_GOTO(st, stream_split_prepare(s->job, 0), fail);
    const split_spec *layout = stream_split_spec(s->job);
    s->info.chunks = (int)layout->nchunks;
    s->info.halo = (size_t)layout->halo;
    *out = s;
    return LWT_OK;
fail:
    lwt_splitter_destroy(s);
    return st;
}

lwt_status lwt_splitter_get_info(const lwt_splitter *s, lwt_splitter_info *info)
{
    if (!s || !info) /* without a splitter there is no context to log to */
        return lwt_fail(s ? s->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "lwt_splitter_get_info: NULL argument");
    *info = s->info;
    return LWT_OK;
}

/* ---- runs ---- */

lwt_status lwt__splitter_prepare_f64(lwt_splitter *s)
{
    return stream_split_prepare(s->job, 1);
}

lwt_status lwt__splitter_run_io(lwt_splitter *s, const lwt_split_io *io, lwt_split_times *times)
{
    lwt_split_times tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !io || !io->in)
        return lwt_fail(s ? s->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the split");
    for (int b = 0; b < s->nbands; b++)
        if (!io->band[b])
            return lwt_fail(s->ctx, LWT_ERR_INVALID_ARGUMENT, "no output for the %s band",
                                     lwt_filter_band_name(b));
    const double t0 = lwt_filter_now_ms();
    /* the engine logs its own failures through the plan's context: forwarded as they are */
    lwt_status st = stream_split_run(s->job, io->in, io->band, io->host_f64, io->z, s->progress ? split_progress : NULL, s);
    tm.total = lwt_filter_now_ms() - t0;
    if (times)
        *times = tm;
    return st;
}

lwt_status lwt_splitter_run(lwt_splitter *s, const void *in, void *const band[LWT_BAND_COUNT],
                            lwt_split_times *times)
{
    if (!s || !in || !band)
        return lwt_fail(s ? s->ctx : NULL, LWT_ERR_INVALID_ARGUMENT, "bad arguments to the split");
    lwt_split_io io;
    memset(&io, 0, sizeof io);
    io.in = in;
    for (int b = 0; b < s->nbands; b++) {
        io.band[b] = band[b];
        if (band[b] == in)
            return lwt_fail(s->ctx, LWT_ERR_INVALID_ARGUMENT, "the %s band overlaps the input",
                                     lwt_filter_band_name(b));
    }
    return lwt__splitter_run_io(s, &io, times);
}
