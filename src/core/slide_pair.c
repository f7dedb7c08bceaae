/* Two forward 2-D levels in one pass: host-side planning (see slide_pair.h). */
#include "core/slide_pair.h"

#include <limits.h>
#include <string.h>

int lwt_slide_pair_fits(const lwt_slide_geom *g, int threads, int slots)
{
    const lwt_slide_axis *ax = &g->ax[1];
    const long base = ax->lo[0] < ax->lo[1] ? ax->lo[0] : ax->lo[1];
    const long e0 = ax->lo[0] + ax->len[0], e1 = ax->lo[1] + ax->len[1];
    if ((e0 > e1 ? e0 : e1) - base > 32L * slots)
        return 0;
    long xlo;
    return lwt_slide_strip(g, 0, &xlo) <= threads;
}

/* level 1 planned with strips of exactly T1 columns, tiles of 16 rows */
static int plan_level1(lwt_slide_geom *g, const lwt_scheme *s, lwt_mode mode, int F, long n0, long n1, size_t es,
                       int T1)
{
    /* a strip's ring row holds 2 T + halo elements whatever T is: measure the halo */
    if (!lwt_slide_plan_rows(g, s, mode, F, 0, n0, n1, 0, 0, 0, es, 0, LONG_MAX, 256))
        return 0;
    const int halo = g->RW - 2 * g->ax[1].T;
    if (!lwt_slide_plan_rows(g, s, mode, F, 0, n0, n1, 0, 0, 0, es, 0, LONG_MAX, 2 * T1 + halo))
        return 0;
    return g->ax[1].T == T1;
}

int lwt_slide_pair_plan(lwt_slide_pair *p, const lwt_scheme *s, lwt_mode mode, int F, long n0, long n1, size_t es,
                        int threads, int slots1, int slots2)
{
    memset(p, 0, sizeof *p);
    if (mode != LWT_MODE_PERIODIZATION || n0 < 4 || n1 < 4 || n0 % 4 || n1 % 4)
        return 0;
    const long m0 = n0 / 2, m1 = n1 / 2; /* the level-1 approximation */
    /* the widest level-2 strip whose level-1 strip fits the block */
    for (int cols2 = 32 * 2 * slots2; cols2 >= 16; cols2 -= 2) {
        lwt_slide_geom *g2 = &p->g2;
        if (!lwt_slide_plan_rows(g2, s, mode, F, 0, m0, m1, 0, 0, 0, es, 0, LONG_MAX, cols2) ||
            !lwt_slide_pair_fits(g2, threads, slots2))
            continue;
        long xlo2;
        const int nx2 = lwt_slide_strip(g2, 0, &xlo2), T2 = g2->ax[1].T;
        const long c_off = xlo2 + g2->ax[1].delta; /* first level-1 column strip 0 reads */
        const long c_lo = c_off < 0 ? c_off : 0;
        const long c_hi = c_off + nx2 > 2L * T2 ? c_off + nx2 : 2L * T2;
        if (c_hi - c_lo > m1)
            continue; /* wider than the level: a one-level pass is as good */
        if (!plan_level1(&p->g1, s, mode, F, n0, n1, es, (int)(c_hi - c_lo)) ||
            !lwt_slide_pair_fits(&p->g1, threads, slots1))
            continue;
        p->c_lo = c_lo;
        p->u0 = (int)(c_off - c_lo);
        return 1;
    }
    return 0;
}
