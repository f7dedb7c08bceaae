/*
 * The complement of a set of boxes (core/boxes.h), which the forward transform
 * zeroes as the packed array's gaps: on random boxes in small arrays of one to
 * three axes, every cell is covered exactly once by the given boxes or the
 * complement's (where the given ones do not overlap each other), the
 * complement's boxes never touch a given box, and its count is the same with
 * and without room for the list. Then the gaps of real plans: every cell of the
 * packed array is in exactly one band or one gap, for modes whose bands leave
 * gaps, 2-D and 3-D, several levels.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/boxes.h"
#include "core/plan.h"
#include "lwt.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static size_t rnd(size_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (size_t)(rng % n) : 0;
}

/* marks each cell of shape covered by box b (in array cover) by adding one */
static void paint(unsigned char *cover, const size_t s[3], const lwt_box *b)
{
    for (size_t i = b->off[0]; i < b->off[0] + b->ext[0] && i < s[0]; i++)
        for (size_t j = b->off[1]; j < b->off[1] + b->ext[1] && j < s[1]; j++)
            for (size_t k = b->off[2]; k < b->off[2] + b->ext[2] && k < s[2]; k++)
                cover[(i * s[1] + j) * s[2] + k]++;
}

static void random_case(int nd)
{
    size_t s[3] = {1, 1, 1};
    for (int k = 0; k < nd; k++)
        s[k] = 1 + rnd(9);
    const size_t nb = rnd(6);
    lwt_box boxes[6];
    for (size_t i = 0; i < nb; i++)
        for (int k = 0; k < 3; k++) {
            boxes[i].off[k] = k < nd ? rnd(s[k]) : 0;
            boxes[i].ext[k] = k < nd ? rnd(s[k] - boxes[i].off[k] + 1) : 1;
        }
    const size_t cells = s[0] * s[1] * s[2];
    unsigned char *given = calloc(cells, 1), *gaps = calloc(cells, 1);
    for (size_t i = 0; i < nb; i++)
        paint(given, s, &boxes[i]);
    const size_t n = lwt_box_complement(s, boxes, nb, NULL, 0);
    lwt_box *out = calloc(n + 1, sizeof *out);
    CHECK(lwt_box_complement(s, boxes, nb, out, n) == n, "the count depends on the room for the list");
    for (size_t i = 0; i < n; i++) {
        CHECK(out[i].ext[0] && out[i].ext[1] && out[i].ext[2], "an empty gap box");
        paint(gaps, s, &out[i]);
    }
    for (size_t c = 0; c < cells; c++) {
        CHECK(gaps[c] <= 1, "cell %zu in %d gap boxes", c, gaps[c]);
        CHECK(!(gaps[c] && given[c]), "cell %zu in a gap and a given box", c);
        CHECK(gaps[c] || given[c], "cell %zu in no box (shape %zu %zu %zu, %zu boxes)", c, s[0], s[1], s[2], nb);
    }
    free(out);
    free(given);
    free(gaps);
}

static void plan_case(lwt_context *ctx, const char *w, lwt_mode mode, int nd, size_t n, int levels)
{
    lwt_wavelet *wv = NULL;
    if (lwt_wavelet_create(ctx, w, &wv) != LWT_OK) {
        CHECK(0, "no wavelet %s", w);
        return;
    }
    lwt_plan_desc d = lwt_plan_desc_default();
    d.wavelet = wv;
    d.mode = mode;
    d.ndim = nd;
    for (int k = 0; k < nd; k++)
        d.shape[k] = n + (size_t)k;
    d.levels = levels;
    d.backend = LWT_BACKEND_CPU;
    lwt_plan *p = NULL;
    const lwt_status st = lwt_plan_create(ctx, &d, &p);
    lwt_wavelet_destroy(wv);
    if (st != LWT_OK) {
        CHECK(0, "%s %s %d-D %zu: no plan", w, lwt_mode_name(mode), nd, n);
        return;
    }
    size_t s[3] = {1, 1, 1};
    for (int k = 0; k < nd; k++)
        s[k] = p->packed[k];
    unsigned char *cover = calloc(p->coeff_count, 1);
    for (int level = 0; level <= p->levels; level++)
        for (unsigned mask = level ? 1 : 0; mask < (level ? 1u << nd : 1u); mask++) {
            lwt_band b;
            lwt_plan_band(p, level, mask, &b);
            lwt_box box = {{0, 0, 0}, {1, 1, 1}};
            for (int k = 0; k < nd; k++) {
                box.off[k] = b.offset[k];
                box.ext[k] = b.shape[k];
            }
            paint(cover, s, &box);
        }
    /* the gaps are blocks of the packed array seen with its unit axes first: the same cells */
    for (size_t i = 0; i < p->ngaps; i++)
        paint(cover, p->gap_shape, &p->gaps[i]);
    CHECK(!p->ngaps || p->gap_shape[0] * p->gap_shape[1] * p->gap_shape[2] == p->coeff_count, "gap_shape %zu %zu %zu",
          p->gap_shape[0], p->gap_shape[1], p->gap_shape[2]);
    size_t wrong = 0;
    for (size_t c = 0; c < p->coeff_count; c++)
        wrong += cover[c] != 1;
    CHECK(!wrong, "%s %s %d-D %zu, %d levels: %zu cells not in exactly one band or gap", w, lwt_mode_name(mode), nd,
          n, levels, wrong);
    CHECK(p->tight == !p->ngaps, "%s %s: tight %d but %zu gaps", w, lwt_mode_name(mode), p->tight, p->ngaps);
    free(cover);
    lwt_plan_destroy(p);
}

int main(void)
{
    for (int r = 0; r < 3000; r++)
        random_case(1 + r % 3);
    lwt_context *ctx = NULL;
    if (lwt_context_create(&ctx) != LWT_OK)
        return 1;
    const lwt_mode modes[] = {LWT_MODE_SYMMETRIC, LWT_MODE_ZERO, LWT_MODE_PERIODIZATION, LWT_MODE_REFLECT};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        plan_case(ctx, "bior4.4", modes[m], 2, 61, 3);
        plan_case(ctx, "db10", modes[m], 2, 97, 2);
        plan_case(ctx, "haar", modes[m], 2, 33, 4);
        plan_case(ctx, "db2", modes[m], 3, 19, 2);
        plan_case(ctx, "sym5", modes[m], 1, 50, 3);
    }
    lwt_context_destroy(ctx);
    return finish("test_boxes");
}
