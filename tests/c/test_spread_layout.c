/*
 * The device-resident spread's shares and placement (stream/spread_layout.c), host
 * arithmetic, so it runs without a GPU. The test builds each device's writes from the
 * shares the other way round from the layout: it walks every pass forward (a level, or a
 * pair of levels whose blocks own tile rows of the second level and write the first
 * level's rows under them) and records which device writes each coefficient row. Then:
 * the shares are contiguous and equal to one tile row; each approximation row, and each
 * sample row, lives on the device that writes the level-1 rows it makes; each packed
 * coefficient row lives on the device writing its coarsest band's row; each inverse tile
 * runs on the device holding its first output row. Level geometries are made by hand
 * (tiles of 16 rows, the pairs' second level 8, so a layout that took a pair's shares from
 * the level's own geometry would fail).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/plan.h"
#include "lwt.h"
#include "stream/spread_job.h"

static int cases;

static void geom(lwt_slide_geom *g, long rows, int T)
{
    memset(g, 0, sizeof *g);
    g->ax[0].T = T;
    g->tiles[0] = (rows + T - 1) / T;
}

/* writer[j][r]: the device whose forward pass writes coefficient row r of level j */
static void simulate(const spread_layout *L, int **writer)
{
    const lwt_plan *p = L->plan;
    for (int j = 1; j <= p->levels; j++) {
        const spread_level *v = &L->lv[j];
        const int second = v->pair ? j + 1 : j; /* the level whose tiles the pass shares */
        const lwt_slide_geom *g = v->pair ? &v->pair->g2 : v->g[0];
        const long T = g->ax[0].T;
        for (int k = 0; k < L->ndev; k++)
            for (long t = L->lv[second].tile[0][k]; t < L->lv[second].tile[0][k + 1]; t++) {
                for (long r = t * T; r < (t + 1) * T && r < (long)p->sizes[second][0]; r++)
                    writer[second][r] = k;
                for (long r = 2 * t * T; v->pair && r < 2 * (t + 1) * T && r < (long)p->sizes[j][0]; r++)
                    writer[j][r] = k;
            }
        j = second;
    }
}

static void check_case(size_t n0, size_t n1, int levels, int ndev, int pairs)
{
    lwt_context *ctx = NULL;
    lwt_wavelet *w = NULL;
    lwt_plan *p = NULL;
    lwt_context_create(&ctx);
    lwt_wavelet_create(ctx, "cdf97", &w);
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = w;
    d.ndim = 2;
    d.shape[0] = n0;
    d.shape[1] = n1;
    d.levels = levels;
    d.mode = LWT_MODE_PERIODIZATION;
    d.dtype = LWT_F32;
    d.backend = LWT_BACKEND_CPU;
    cases++;
    if (lwt_plan_create(ctx, &d, &p) != LWT_OK) {
        CHECK(0, "%zu x %zu, %d levels: no plan", n0, n1, levels);
        lwt_wavelet_destroy(w);
        lwt_context_destroy(ctx);
        return;
    }
    lwt_slide_geom fwd[8], inv[8];
    lwt_slide_pair pair[8];
    spread_level lv[8];
    memset(lv, 0, sizeof lv);
    spread_layout L = {p, ndev, lv};
    for (int j = 1; j <= levels; j++) {
        geom(&fwd[j], (long)p->sizes[j][0], 16);
        geom(&inv[j], (long)p->sizes[j][0], 16);
        lv[j].g[0] = &fwd[j];
        lv[j].g[1] = &inv[j];
    }
    for (int j = 1; pairs && j < levels; j += 2) { /* as the plan pairs them: (1, 2), (3, 4), ... */
        memset(&pair[j], 0, sizeof pair[j]);
        geom(&pair[j].g2, (long)p->sizes[j + 1][0], 8);
        lv[j].pair = &pair[j];
    }
    CHECK(spread_layout_shares(&L) == LWT_OK, "shares");
    int *writer[8] = {NULL};
    for (int j = 1; j <= levels; j++) {
        writer[j] = malloc(p->sizes[j][0] * sizeof(int));
        for (size_t r = 0; r < p->sizes[j][0]; r++)
            writer[j][r] = -1;
    }
    simulate(&L, writer);
    long bad = 0;
    for (int j = 1; j <= levels; j++) {
        /* every row written once (above: by one device), shares contiguous and equal to one tile row */
        for (size_t r = 0; r < p->sizes[j][0]; r++)
            bad += writer[j][r] < 0;
        const int shared = !(j > 1 && lv[j - 1].pair) && lv[j].pair ? 0 : 1; /* a pair's first level has none */
        for (int k = 0; shared && k < ndev; k++) {
            const long a = lv[j].tile[0][k + 1] - lv[j].tile[0][k], b = lv[j].tile[0][1] - lv[j].tile[0][0];
            bad += a < 0 || a - b > 1 || b - a > 1;
        }
        /* approximations and samples where the rows they make are written */
        for (size_t r = 0; j < levels && r < p->sizes[j][0]; r++)
            bad += spread_array_row_owner(&L, j, r) != writer[j][r];
        /* the inverse's tiles where their first output row lives */
        for (int k = 0; k < ndev; k++)
            for (long t = lv[j].tile[1][k]; t < lv[j].tile[1][k + 1]; t++) {
                const size_t r0 = (size_t)(2 * t * inv[j].ax[0].T);
                const int holder = j == 1 ? spread_array_row_owner(&L, 0, r0)
                                          : writer[j - 1][r0 < p->sizes[j - 1][0] ? r0 : p->sizes[j - 1][0] - 1];
                bad += holder != k;
            }
    }
    for (size_t r = 0; r < n0; r++) {
        const size_t r1 = r / 2 < p->sizes[1][0] ? r / 2 : p->sizes[1][0] - 1;
        bad += spread_array_row_owner(&L, 0, r) != writer[1][r1];
    }
    /* packed rows: the writer of the coarsest band's row there (levels finest first, so a
       coarser band's writer replaces a finer one's) */
    int *expect = malloc(p->packed[0] * sizeof(int));
    for (size_t r = 0; r < p->packed[0]; r++)
        expect[r] = -1;
    for (int j = 1; j <= levels; j++)
        for (unsigned mask = j == levels ? 0 : 1; mask < 4; mask++) {
            lwt_band b;
            if (lwt_plan_band(p, mask == 0 ? 0 : levels - j + 1, mask, &b) != LWT_OK)
                continue;
            for (size_t r = 0; r < b.shape[0]; r++)
                expect[b.offset[0] + r] = writer[j][r];
        }
    for (size_t r = 0; r < p->packed[0]; r++)
        bad += expect[r] >= 0 && spread_packed_row_owner(&L, r) != expect[r];
    CHECK(!bad, "%zu x %zu, %d levels, %d devices, pairs %d: %ld rows or tiles misplaced", n0, n1, levels, ndev, pairs,
          bad);
    free(expect);
    for (int j = 1; j <= levels; j++)
        free(writer[j]);
    lwt_plan_destroy(p);
    lwt_wavelet_destroy(w);
    lwt_context_destroy(ctx);
}

int main(void)
{
    const size_t shapes[][2] = {{2048, 2048}, {1000, 1200}, {4096, 512}, {600, 4000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int levels = 1; levels <= 4; levels++)
            for (int ndev = 1; ndev <= 4; ndev++)
                for (int pairs = 0; pairs < 2; pairs++)
                    check_case(shapes[s][0], shapes[s][1], levels, ndev, pairs);
    CHECK(cases == 4 * 4 * 4 * 2, "ran %d cases", cases);
    return finish("test_spread_layout");
}
