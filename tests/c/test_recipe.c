/* test_recipe.c - chunk recipes (stream/recipe.h): copies that continue each other on both sides
 * are merged. A middle chunk of a 2-D periodization forward scatters each level's two axis-0
 * detail bands as one copy (and, at the coarsest level, the approximation with its neighbour): 8
 * copies for 4 levels instead of 13; the inverse gathers its bands the same way. The merged
 * copies move exactly the elements the recipe counts, each destination element once. In
 * symmetric mode the packed bands of the finer levels have gaps between them (a level is not
 * twice the next): only the coarsest level's merge, 11 copies. (Bit-identity of streamed
 * results with merged copies is test_stream's.) The axis-0 pass of each 2-D level is marked as
 * fusable with the axis-1 pass that reads its output. Converting copies with a NaN mask
 * (recipe_copy_host): widened or narrowed values keep every bit (-0 included), NaN exactly where
 * the mask is not finite, the same for every thread count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/plan.h"
#include "stream/recipe.h"

/* every destination element of the list's host copies, once: counts per element of a host area */
static void cover(const rlist *l, int host_dst, const char *base, size_t area, unsigned char *hits, size_t *elems)
{
    for (int i = 0; i < l->n; i++) {
        const rcopy *c = &l->v[i].c;
        const rloc *side = host_dst ? &c->dst : &c->src;
        const size_t *st = host_dst ? c->ds : c->ss;
        if (side->buf >= 0 || side->host != base)
            continue;
        for (size_t a = 0; a < c->n[0]; a++)
            for (size_t b = 0; b < c->n[1]; b++)
                for (size_t k = 0; k < c->n[2]; k++) {
                    const size_t e = side->off + a * st[0] + b * st[1] + k;
                    if (e < area)
                        hits[e]++;
                    (*elems)++;
                }
    }
}

static void check_chunk(lwt_mode mode, int inverse, int expect_copies)
{
    lwt_context *ctx;
    lwt_context_create(&ctx);
    lwt_wavelet *w;
    lwt_wavelet_create(ctx, "cdf97", &w);
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = 512;
    d.shape[1] = 384;
    d.levels = 4;
    d.mode = mode;
    d.backend = LWT_BACKEND_CPU;
    lwt_plan *p;
    CHECK(lwt_plan_create(ctx, &d, &p) == LWT_OK, "plan");
    lwt_plan_info info;
    lwt_plan_get_info(p, &info);
    char *in = malloc(info.input_count * 4), *co = malloc(info.coeff_count * 4);
    level_job job;
    memset(&job, 0, sizeof job);
    job.plan = p;
    job.inverse = inverse;
    job.j0 = 1;
    job.j1 = 4;
    if (inverse) {
        job.coeffs_in = co;
        job.dst = in;
        job.nout = (long)p->sizes[0][0];
        job.per_chunk = 64;
    } else {
        job.src = in;
        job.coeffs_out = co;
        job.nout = (long)p->sizes[4][0];
        job.per_chunk = 4;
    }
    job.nchunks = (job.nout + job.per_chunk - 1) / job.per_chunk;
    recipe r;
    recipe_init(&r);
    CHECK(recipe_build(&job, job.nchunks / 2, &r) == 0, "build");
    const rlist *bands = inverse ? &r.gather : &r.scatter;
    int band_copies = 0;
    for (int i = 0; i < bands->n; i++)
        band_copies += (inverse ? bands->v[i].c.src.host : bands->v[i].c.dst.host) == co;
    CHECK(band_copies == expect_copies, "%s %s: %d band copies, expected %d", lwt_mode_name(mode),
          inverse ? "inverse gathers" : "forward scatters", band_copies, expect_copies);
    /* the copies move what the recipe counts, and write each host element at most once */
    unsigned char *hits = calloc(info.coeff_count, 1);
    size_t elems = 0;
    cover(bands, !inverse, co, info.coeff_count, hits, &elems);
    if (!inverse) {
        size_t twice = 0;
        for (size_t e = 0; e < info.coeff_count; e++)
            twice += hits[e] > 1;
        CHECK(twice == 0, "%zu coefficients written twice", twice);
        CHECK(elems == r.out_elems, "scatters move %zu elements, the recipe counts %zu", elems, r.out_elems);
        int fusable = 0;
        for (int i = 0; i < r.compute.n; i++)
            if (r.compute.v[i].kind == ROP_PASS && r.compute.v[i].p.fuse_next) {
                fusable++;
                CHECK(i + 1 < r.compute.n && r.compute.v[i + 1].kind == ROP_PASS &&
                          r.compute.v[i + 1].p.in.off == r.compute.v[i].p.out.off,
                      "a fusable pass not followed by the pass that reads its output");
            }
        CHECK(fusable >= 4, "%d fusable 2-D levels, expected one per level at least", fusable);
    }
    free(hits);
    recipe_free(&r);
    free(in);
    free(co);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
}

/* the bits of a widened or masked band: v where the mask is finite, NaN where it is not; with
   3 threads the run is converted in tasks of whole 2 MiB destination pages (the head before
   the first page boundary a task of its own), with 1 in pieces: both checked, the destination
   at the start of the band and 1001 elements into it (the mask is indexed by the band's) */
static void check_cvt_mask(void)
{
    enum { N = 1000003, OFF = 1001 }; /* several pages over the threads, an odd tail */
    float *f = malloc(N * sizeof *f);
    double *mask = malloc((N + OFF) * sizeof *mask), *d = malloc((N + OFF) * sizeof *d), *dd = malloc(N * sizeof *dd);
    for (size_t i = 0; i < N + OFF; i++)
        mask[i] = i % 97 == 3 ? NAN : i % 389 == 7 ? -INFINITY : (double)i;
    for (size_t i = 0; i < N; i++) {
        f[i] = i % 5 == 0 ? -0.0f : (float)((double)i * 1.25e-3 - 300.0);
        dd[i] = (double)f[i];
    }
    rcopy c;
    memset(&c, 0, sizeof c);
    c.n[0] = c.n[1] = 1;
    c.n[2] = N;
    c.ss[0] = c.ss[1] = c.ds[0] = c.ds[1] = N;
    c.cvt = RCVT_WIDEN;
    c.nan_mask = mask;
    for (size_t off = 0; off <= OFF; off += OFF)
        for (int threads = 1; threads <= 3; threads += 2) {
            memset(d, 0, (N + OFF) * sizeof *d);
            c.dst.off = off;
            recipe_copy_host(&c, (const char *)f, (char *)(d + off), sizeof(float), threads);
            size_t bad = 0;
            for (size_t i = 0; i < N; i++) {
                const int invalid = !isfinite(mask[off + i]);
                uint64_t a, b;
                const double want = (double)f[i];
                memcpy(&a, &d[off + i], 8);
                memcpy(&b, &want, 8);
                bad += invalid ? !isnan(d[off + i]) : a != b;
            }
            CHECK(bad == 0, "widen with mask, %d threads, offset %zu: %zu elements wrong", threads, off, bad);
        }
    c.dst.off = 0;
    /* a float64 transform's band: no conversion, the same rule */
    c.cvt = RCVT_NONE;
    recipe_copy_host(&c, (const char *)dd, (char *)d, sizeof(double), 2);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++)
        bad += !isfinite(mask[i]) ? !isnan(d[i]) : memcmp(&d[i], &dd[i], 8) != 0;
    CHECK(bad == 0, "masked double copy: %zu elements wrong", bad);
    CHECK(signbit(d[5]) && d[5] == 0.0, "-0 stays -0");
    /* a plain copy (a pageable band of a float64 split), by pages on 3 threads, off a page boundary */
    c.nan_mask = NULL;
    memset(d, 0, (N + OFF) * sizeof *d);
    recipe_copy_host(&c, (const char *)dd, (char *)(d + OFF), sizeof(double), 3);
    CHECK(memcmp(d + OFF, dd, N * sizeof *d) == 0 && d[OFF - 1] == 0.0, "plain copy by pages differs");
    free(f);
    free(mask);
    free(d);
    free(dd);
}

int main(void)
{
    check_cvt_mask();
    check_chunk(LWT_MODE_PERIODIZATION, 0, 8);
    check_chunk(LWT_MODE_SYMMETRIC, 0, 11);
    /* the inverse's level-1 chunk reads its bands (the coarser approximations it computes) */
    check_chunk(LWT_MODE_PERIODIZATION, 1, 8);
    check_chunk(LWT_MODE_SYMMETRIC, 1, 11);
    return finish("test_recipe");
}
