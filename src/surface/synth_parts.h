/* synth_parts.h - internal pieces of synth.c: random numbers and the roughness texture. */
#ifndef LWT_SURFACE_SYNTH_PARTS_H
#define LWT_SURFACE_SYNTH_PARTS_H

#include <math.h>
#include <stdint.h>

#include "surface/synth.h"

/* splitmix64: a small, well-mixed generator; one independent stream per (seed, purpose, row). */
typedef struct lwt__rng {
    uint64_t s;
} lwt__rng;

static inline uint64_t lwt__rng_next(lwt__rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline lwt__rng lwt__rng_stream(uint64_t seed, uint64_t purpose, uint64_t index)
{
    lwt__rng r = {seed ^ (purpose * 0xD1B54A32D192ED03ull)};
    r.s ^= lwt__rng_next(&r) + index * 0x9E3779B97F4A7C15ull;
    (void)lwt__rng_next(&r);
    return r;
}

/* uniform in [0, 1) */
static inline double lwt__rng_uniform(lwt__rng *r)
{
    return (double)(lwt__rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* standard normal (Box-Muller, one value per call) */
static inline double lwt__rng_normal(lwt__rng *r)
{
    double u = 1.0 - lwt__rng_uniform(r), v = lwt__rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Roughness part (metres) into out (nx*ny): band-limited grinding texture with scratches and
 * pits, RMS d->rough_rms. Returns 0 or -2 (out of memory). */
int lwt__synth_roughness(const lwt_synth_desc *d, double *out);

#endif
