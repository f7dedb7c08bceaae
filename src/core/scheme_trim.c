/*
 * Float32 plans drop lifting taps too small to change a float32 result.
 *
 * Factoring PyWavelets' filter tables, which are rounded decimals, leaves
 * residue steps: CDF 9/7 (bior4.4) ends with a six-tap step whose taps are
 * 2e-14 .. 1.8e-12, db10 with a step whose last five taps are below 1.4e-12.
 * They carry the rounding of the tables into float64 results (about 1e-12
 * relative), but in float32, whose unit roundoff is 6e-8, a tap below 1e-9
 * moves a result by less than 1/60 of the rounding of the value it is added
 * to, while its step still costs a multiply-add per tap and widens every
 * halo. Only taps at the ends of a step are dropped (offsets stay exact);
 * a step left without taps goes.
 */
#include <math.h>

#include "core/scheme.h"

void lwt_scheme_trim(lwt_scheme *s, double eps)
{
    lwt_scheme t = *s;
    t.nsteps = 0;
    t.ntaps_total = 0;
    for (int k = 0; k < s->nsteps; k++) {
        const lwt_step *st = &s->steps[k];
        const double *taps = s->taps + st->first;
        int i = 0, j = st->ntaps - 1;
        while (i <= j && fabs(taps[i]) <= eps)
            i++;
        while (j >= i && fabs(taps[j]) <= eps)
            j--;
        /* cannot fail: t holds at most the taps and steps s holds */
        (void)lwt_scheme_add_step(&t, st->target, st->off + i, j - i + 1, taps + i);
    }
    *s = t;
}
