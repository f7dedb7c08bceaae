/*
 * test_surface_split.c - the splitter (src/surface/split.h) on the CPU:
 *
 *   [layout]  the engine's split layout (stream/split_job.h): chunks tile the rows, windows start
 *             on multiples of 2^J and hold their owned rows plus the exact halo (the same on
 *             every interior chunk, below the former formula's bound), periodic modes and
 *             oversized chunks give one chunk;
 *   [chunks]  bands cut into row chunks equal the one-chunk bands bit for bit, over every mode
 *             but the periodic ones, wavelets of every family and filter length (2 .. 62),
 *             float32 and float64, 3 or 4 bands, an empty band, several chunk sizes (LWT_QUICK=1:
 *             a subset, for the sanitizer builds);
 *   [filter]  lwt_filter_run's bands (finite input, no plane) equal the splitter's bit for bit,
 *             and lwt_filter_run cut into chunks (invalid points too) equals it in one chunk;
 *   [errors]  a band that overlaps the input, an unresolved split, a bad dtype.
 */
#include "check.h"
#include "test_log.h"
#include "surface/bands.h"
#include "surface/filter.h"
#include "surface/split.h"
#include "stream/split_job.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static lwt_context *ctx;
static test_log tlog; /* ctx logs here */

/* a surface with structure at every scale: a tilt, a slow wave, and uniform noise */
static void surface(double *z, size_t nx, size_t ny, uint64_t seed)
{
    uint64_t s = seed * 2862933555777941757ull + 3037000493ull;
    for (size_t r = 0; r < ny; r++)
        for (size_t c = 0; c < nx; c++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const double u = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            z[r * nx + c] = 0.01 * (double)r - 0.02 * (double)c + 3.0 * sin(0.013 * (double)r) + u;
        }
}

static lwt_band_split split_of(int levels, int rough_lo, int rough_hi, size_t nx, size_t ny)
{
    lwt_band_request q;
    memset(&q, 0, sizeof q);
    q.levels = levels;
    q.rough_lo = rough_lo;
    q.rough_hi = rough_hi;
    lwt_band_split s;
    const char *err = tlog.last;
    int r = lwt_bands_resolve(ctx, &q, nx, ny, 1e-6, 1e-6, &s);
    CHECK(r == 0, "resolve J%d r%d-%d: %s", levels, rough_lo, rough_hi, err);
    return s;
}

/* the engine's split layout of an ny x 64 float32 CPU plan with wavelet w, J levels, mode m */
static stream_split *layout_of(const char *w, int J, lwt_mode m, size_t ny, size_t chunk_rows, lwt_plan **plan,
                               lwt_wavelet **wv)
{
    CHECK(lwt_wavelet_create(ctx, w, wv) == LWT_OK, "wavelet %s", w);
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = *wv;
    d.ndim = 2;
    d.shape[0] = ny;
    d.shape[1] = 64;
    d.levels = J;
    d.mode = m;
    d.dtype = LWT_F32;
    d.backend = LWT_BACKEND_CPU;
    CHECK(lwt_plan_create(ctx, &d, plan) == LWT_OK, "plan %s J%d", w, J);
    const uint64_t keep[3] = {1, 2, 4};
    stream_split *s = NULL;
    CHECK(stream_split_create(*plan, chunk_rows, 3, keep, 1, &s) == LWT_OK, "split layout %s J%d", w, J);
    return s;
}

static void free_layout(stream_split *s, lwt_plan *p, lwt_wavelet *w)
{
    stream_split_destroy(s);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
}

static void test_layout(void)
{
    lwt_plan *p;
    lwt_wavelet *w;
    /* seed 000's case: CDF 9/7, 6 levels, 12288 rows in chunks of 1536 */
    const long ny = 12288;
    stream_split *s = layout_of("cdf97", 6, LWT_MODE_SYMMETRIC, (size_t)ny, 1536, &p, &w);
    const split_spec *sp = stream_split_spec(s);
    CHECK(sp->nchunks == 8, "12288 rows by 1536: %ld chunks", sp->nchunks);
    long next = 0;
    for (long i = 0; i < sp->nchunks; i++) {
        const split_chunk *c = &sp->chunk[i];
        CHECK(c->own0 == next && c->own1 > c->own0, "chunk %ld owns [%ld, %ld)", i, c->own0, c->own1);
        CHECK(c->win0 % 64 == 0 && c->win0 <= c->own0 && c->win1 >= c->own1 && c->win1 <= ny,
              "chunk %ld window [%ld, %ld)", i, c->win0, c->win1);
        /* interior chunks: the same halo on every one (translation invariance) */
        if (i > 0 && i + 1 < sp->nchunks)
            CHECK(c->own0 - c->win0 == sp->chunk[1].own0 - sp->chunk[1].win0 &&
                      c->win1 - c->own1 == sp->chunk[1].win1 - sp->chunk[1].own1,
                  "chunk %ld halo %ld + %ld", i, c->own0 - c->win0, c->win1 - c->own1);
        next = c->own1;
    }
    CHECK(next == ny, "chunks end at %ld", next);
    /* exact halos: within the former bound (the split's own formula: 1280 rows here, each level
       counting a filter length where the dependency is shorter), and wider than the filters alone */
    CHECK(sp->halo > 2 * 9 && sp->halo < 1280, "halo J6 CDF 9/7 = %ld rows", sp->halo);
    printf("test_surface_split: CDF 9/7 6 levels symmetric: halo %ld rows (the former formula: 1280)\n", sp->halo);
    free_layout(s, p, w);
    /* a chunk size that is not a multiple of 2^J is rounded up */
    s = layout_of("cdf97", 6, LWT_MODE_ZERO, (size_t)ny, 1500, &p, &w);
    sp = stream_split_spec(s);
    CHECK(sp->nchunks == 8 && sp->chunk[1].own0 == 1536, "1500 rows: %ld chunks, second at %ld", sp->nchunks,
          sp->chunk[1].own0);
    free_layout(s, p, w);
    /* small chunks: as many as it takes (no cap) */
    s = layout_of("db2", 2, LWT_MODE_ZERO, (size_t)ny, 4, &p, &w);
    CHECK(stream_split_spec(s)->nchunks == ny / 4, "4-row chunks of 12288 rows: %ld", stream_split_spec(s)->nchunks);
    free_layout(s, p, w);
    /* one chunk: periodic modes, no chunk size on the CPU, a chunk as big as the surface, windows that are */
    const struct {
        lwt_mode m;
        long ny;
        size_t rows;
        const char *what;
    } one[] = {{LWT_MODE_PERIODIZATION, ny, 1536, "periodization"},
               {LWT_MODE_PERIODIC, ny, 1536, "periodic"},
               {LWT_MODE_SYMMETRIC, ny, 0, "automatic on the CPU"},
               {LWT_MODE_SYMMETRIC, ny, (size_t)ny, "whole"},
               {LWT_MODE_SYMMETRIC, 700, 256, "windows as big as the surface"}};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        s = layout_of("cdf97", 6, one[i].m, (size_t)one[i].ny, one[i].rows, &p, &w);
        sp = stream_split_spec(s);
        CHECK(sp->nchunks == 1 && sp->chunk[0].win0 == 0 && sp->chunk[0].win1 == one[i].ny && sp->halo == 0,
              "%s: %ld chunks", one[i].what, sp->nchunks);
        free_layout(s, p, w);
    }
}

/* bands of `in` through a splitter with chunk_rows; returns the chunk count, 0 on failure */
static int run_split(const lwt_filter_spec *spec, size_t nx, size_t ny, const void *in, void *band[LWT_BAND_COUNT])
{
    lwt_splitter *s = NULL;
    const char *err = tlog.last;
    lwt_status st = lwt_splitter_create(ctx, spec, nx, ny, &s);
    CHECK(st == LWT_OK, "splitter %s mode %d chunk %zu: %s", spec->wavelet, (int)spec->mode, spec->chunk_rows, err);
    if (st != LWT_OK)
        return 0;
    lwt_splitter_info info;
    lwt_splitter_get_info(s, &info);
    st = lwt_splitter_run(s, in, band, NULL);
    CHECK(st == LWT_OK, "split %s: %s", spec->wavelet, err);
    lwt_splitter_destroy(s);
    return st == LWT_OK ? info.chunks : 0;
}

static int cases, chunked_cases;

/* every band of a chunked split equals the one-chunk split, bit for bit */
static void check_chunks(const char *wavelet, lwt_mode mode, lwt_dtype dt, int levels, int rough_lo, int rough_hi,
                         size_t nx, size_t ny, const size_t *chunk_rows, int nchunk_rows)
{
    const size_t n = nx * ny, esz = dt == LWT_F32 ? 4 : 8;
    double *z = malloc(n * sizeof *z);
    void *in = malloc(n * esz), *ref[LWT_BAND_COUNT] = {0}, *got[LWT_BAND_COUNT] = {0};
    surface(z, nx, ny, (uint64_t)levels * 131 + (uint64_t)mode);
    for (size_t i = 0; i < n; i++)
        if (dt == LWT_F32)
            ((float *)in)[i] = (float)z[i];
        else
            ((double *)in)[i] = z[i];
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        ref[b] = malloc(n * esz);
        got[b] = malloc(n * esz);
    }
    lwt_filter_spec spec = lwt_filter_spec_default();
    spec.wavelet = wavelet;
    spec.mode = mode;
    spec.dtype = dt;
    spec.backend = LWT_BACKEND_CPU;
    spec.split = split_of(levels, rough_lo, rough_hi, nx, ny);
    const int nbands = spec.split.noise_hi ? 4 : 3;
    spec.chunk_rows = LWT_SPLIT_ONE_CHUNK;
    if (run_split(&spec, nx, ny, in, ref) == 1) {
        for (int r = 0; r < nchunk_rows; r++) {
            spec.chunk_rows = chunk_rows[r];
            const int k = run_split(&spec, nx, ny, in, got);
            if (!k)
                continue;
            cases++;
            const int periodic = mode == LWT_MODE_PERIODIC || mode == LWT_MODE_PERIODIZATION;
            CHECK(periodic ? k == 1 : k > 1, "%s mode %d chunk %zu: %d chunks", wavelet, (int)mode, chunk_rows[r], k);
            chunked_cases += k > 1;
            for (int b = 0; b < nbands; b++) {
                size_t first = n;
                for (size_t i = 0; i < n && first == n; i++)
                    if (memcmp((char *)got[b] + i * esz, (char *)ref[b] + i * esz, esz))
                        first = i;
                CHECK(first == n, "%s mode %d %s J%d chunk %zu (%d chunks): %s band differs first at row %zu col %zu",
                      wavelet, (int)mode, dt == LWT_F32 ? "f32" : "f64", levels, chunk_rows[r], k,
                      lwt_filter_band_name(b), first / nx, first % nx);
            }
        }
    }
    for (int b = 0; b < LWT_BAND_COUNT; b++) {
        free(ref[b]);
        free(got[b]);
    }
    free(in);
    free(z);
}

static void test_chunks(int quick)
{
    static const lwt_mode modes[] = {LWT_MODE_ZERO,      LWT_MODE_CONSTANT,      LWT_MODE_SYMMETRIC,
                                     LWT_MODE_REFLECT,   LWT_MODE_ANTISYMMETRIC, LWT_MODE_ANTIREFLECT,
                                     LWT_MODE_SMOOTH,    LWT_MODE_PERIODIC,      LWT_MODE_PERIODIZATION};
    /* filter lengths 2 .. 20 over the families; 3 levels, 700 x 33, chunks of 64 .. 200 rows
       (LWT_QUICK, for the sanitizer builds: the shortest, CDF 9/7 and the longest, one size) */
    static const char *const wavelets[] = {"haar", "db2", "cdf53", "rbio3.1", "cdf97", "sym5", "coif3", "bior6.8",
                                           "db10"};
    static const char *const quick_wavelets[] = {"haar", "cdf97", "db10"};
    const char *const *wl = quick ? quick_wavelets : wavelets;
    const size_t nw = quick ? 3 : sizeof wavelets / sizeof *wavelets;
    const size_t rows[] = {64, 200, 128};
    for (size_t w = 0; w < nw; w++)
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
            for (int dt = 0; dt < 2; dt++)
                check_chunks(wl[w], modes[m], dt ? LWT_F64 : LWT_F32, 3, dt ? 1 : 2, dt ? 1 : 2, 33, 700, rows,
                             quick ? 1 : 3);
    /* the longest filter (dmey, 62) at 2 levels; CDF 9/7 at 5 levels with an empty waviness band */
    const size_t rows_dmey[] = {128};
    if (!quick) {
        check_chunks("dmey", LWT_MODE_SYMMETRIC, LWT_F64, 2, 1, 1, 33, 1400, rows_dmey, 1);
        check_chunks("dmey", LWT_MODE_SMOOTH, LWT_F32, 2, 1, 1, 33, 1400, rows_dmey, 1);
    }
    const size_t rows_deep[] = {256, 320};
    check_chunks("cdf97", LWT_MODE_SYMMETRIC, LWT_F32, 5, 1, 5, 64, 2200, rows_deep, quick ? 1 : 2);
    check_chunks("cdf97", LWT_MODE_ZERO, LWT_F64, 5, 2, 3, 64, 2200, rows_deep, quick ? 1 : 2);
    CHECK(chunked_cases > (quick ? 20 : 100), "only %d of %d cases were cut into chunks", chunked_cases, cases);
    printf("chunks: %d cases compared, %d of them cut into chunks%s\n", cases, chunked_cases, quick ? " (quick)" : "");
}

static void test_filter_agrees(void)
{
    const size_t nx = 97, ny = 130, n = nx * ny;
    double *z = malloc(n * sizeof *z);
    surface(z, nx, ny, 7);
    for (int dt = 0; dt < 2; dt++) {
        lwt_filter_spec spec = lwt_filter_spec_default();
        spec.backend = LWT_BACKEND_CPU;
        spec.dtype = dt ? LWT_F64 : LWT_F32;
        spec.split = split_of(3, 2, 2, nx, ny);
        const size_t esz = dt ? 8 : 4;
        void *in = malloc(n * esz), *out[LWT_BAND_COUNT] = {0};
        for (size_t i = 0; i < n; i++)
            if (dt)
                ((double *)in)[i] = z[i];
            else
                ((float *)in)[i] = (float)z[i];
        for (int b = 0; b < 4; b++)
            out[b] = malloc(n * esz);
        lwt_filter_result res;
        const char *err = tlog.last;
        CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, 1e-6, 1e-6, &res) == LWT_OK, "filter: %s", err);
        CHECK(run_split(&spec, nx, ny, in, out) == 1, "split");
        for (int b = 0; b < 4; b++) {
            int same = 1;
            for (size_t i = 0; i < n && same; i++)
                same = dt ? res.band[b][i] == ((double *)out[b])[i] : res.band[b][i] == (double)((float *)out[b])[i];
            CHECK(same, "%s: lwt_filter_run's %s band differs from the splitter's", dt ? "f64" : "f32",
                  lwt_filter_band_name(b));
        }
        lwt_filter_result_free(&res);
        for (int b = 0; b < 4; b++)
            free(out[b]);
        free(in);
    }
    free(z);
}

/* lwt_filter_run cut into chunks (double I/O converted per window, NaN put back at invalid
   points) gives its one-chunk bands bit for bit */
static void test_filter_chunks(void)
{
    const size_t nx = 45, ny = 900, n = nx * ny;
    double *z = malloc(n * sizeof *z);
    surface(z, nx, ny, 3);
    for (size_t i = 0; i < n; i += 97)
        z[i] = NAN; /* invalid points: filled, then NaN again in every band */
    for (int dt = 0; dt < 2; dt++) {
        lwt_filter_spec spec = lwt_filter_spec_default();
        spec.backend = LWT_BACKEND_CPU;
        spec.dtype = dt ? LWT_F64 : LWT_F32;
        spec.split = split_of(3, 1, 2, nx, ny);
        lwt_filter_result one, cut;
        const char *err = tlog.last;
        CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, 1e-6, 1e-6, &one) == LWT_OK, "one: %s", err);
        spec.chunk_rows = 96;
        CHECK(lwt_filter_run(ctx, &spec, z, nx, ny, 1e-6, 1e-6, &cut) == LWT_OK, "cut: %s", err);
        for (int b = 0; b < 3; b++)
            CHECK(one.band[b] && cut.band[b] && !memcmp(one.band[b], cut.band[b], n * sizeof(double)),
                  "%s: lwt_filter_run in chunks of 96 rows: the %s band differs from one chunk", dt ? "f64" : "f32",
                  lwt_filter_band_name(b));
        CHECK(isnan(cut.band[2][97]) && !isnan(cut.band[2][98]), "NaN at the invalid points only");
        lwt_filter_result_free(&one);
        lwt_filter_result_free(&cut);
    }
    free(z);
}

static void test_errors(void)
{
    const size_t nx = 64, ny = 64;
    lwt_filter_spec spec = lwt_filter_spec_default();
    spec.backend = LWT_BACKEND_CPU;
    lwt_splitter *s = NULL;
    const char *err = tlog.last;
    /* each failure: its status and exactly one message */
#define FAILS(call, status_ok) (test_log_reset(&tlog), status_ok(call) && tlog.errors == 1)
#define IS_INVALID(st) ((st) == LWT_ERR_INVALID_ARGUMENT)
#define NOT_OK(st) ((st) != LWT_OK)
    CHECK(FAILS(lwt_splitter_create(ctx, &spec, nx, ny, &s), IS_INVALID) && !s && strstr(err, "not resolved"),
          "unresolved split: '%s' (%d messages)", err, tlog.errors);
    spec.split = split_of(3, 1, 2, nx, ny);
    spec.dtype = (lwt_dtype)7;
    CHECK(FAILS(lwt_splitter_create(ctx, &spec, nx, ny, &s), IS_INVALID) && !s && strstr(err, "dtype"),
          "dtype 7: '%s' (%d messages)", err, tlog.errors);
    spec.dtype = LWT_F64;
    spec.wavelet = "nosuch";
    CHECK(FAILS(lwt_splitter_create(ctx, &spec, nx, ny, &s), NOT_OK) && !s && strstr(err, "nosuch"),
          "unknown wavelet: '%s' (%d messages)", err, tlog.errors);
    spec.wavelet = "db2";
    lwt_filter_spec old = spec;
    old.size = 8; /* shorter than any version of the struct */
    CHECK(FAILS(lwt_splitter_create(ctx, &old, nx, ny, &s), IS_INVALID) && !s && strstr(err, "lwt_filter_spec.size"),
          "spec size 8: '%s'", err);
    CHECK(lwt_splitter_create(ctx, &spec, nx, ny, &s) == LWT_OK, "db2: %s", err);
    double *a = calloc(nx * ny, sizeof *a), *b = calloc(nx * ny, sizeof *b), *c = calloc(nx * ny, sizeof *c);
    void *bands[LWT_BAND_COUNT] = {a, b, c, NULL};
    CHECK(FAILS(lwt_splitter_run(s, a, bands, NULL), IS_INVALID) && strstr(err, "overlaps"),
          "band over the input: '%s' (%d messages)", err, tlog.errors);
    bands[0] = c;
    bands[2] = NULL;
    CHECK(FAILS(lwt_splitter_run(s, a, bands, NULL), IS_INVALID) && strstr(err, "roughness"),
          "missing band: '%s' (%d messages)", err, tlog.errors);
#undef FAILS
#undef IS_INVALID
#undef NOT_OK
    lwt_splitter_destroy(s);
    lwt_splitter_destroy(NULL);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    if (!(ctx = test_log_context(&tlog)))
        return 1;
    const char *q = getenv("LWT_QUICK");
    test_layout();
    test_chunks(q && *q && *q != '0');
    test_filter_agrees();
    test_filter_chunks();
    test_errors();
    lwt_context_destroy(ctx);
    return finish("test_surface_split");
}
