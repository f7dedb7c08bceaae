/*
 * synth.h - synthetic engineering surfaces with known form, waviness and roughness.
 *
 * Made like the two case studies of seed 000 (section 6.3): a milled metallic workpiece and the
 * ground functional surface of a ceramic femoral head. Each part is generated on its own, so the
 * separation error of a filter can be measured against the truth:
 *
 *   form       sphere (cap of radius R), cylinder (axis along y) or tilt, centred on the field;
 *              given by its sag (height difference centre to edge of the field).
 *   waviness   face-milling feed marks: arcs of a tool of radius ~1.5x the field travelling
 *              along x, one mark per feed; the profile across the marks is a cosine with a weak
 *              second harmonic and a slow amplitude drift.
 *   roughness  grinding texture: Gaussian noise smoothed anisotropically (short across the lay,
 *              long along it, lay along x), plus shallow regular scratches along the lay, a few
 *              random deeper scratches and random deep valleys (pits); normalized to an RMS.
 *
 * Feature sizes are given in sample spacings so that, with the default 6-level split
 * (roughness levels 1-3 = 2-16 spacings, waviness 4-6 = 16-128), each part falls in its band.
 * Deterministic: the same description gives the same surface on any machine and thread count.
 * Pure computation: no printing, no files, no global state.
 */
#ifndef LWT_SURFACE_SYNTH_H
#define LWT_SURFACE_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lwt_synth_form {
    LWT_SYNTH_FLAT = 0,
    LWT_SYNTH_TILT = 1,
    LWT_SYNTH_SPHERE = 2,
    LWT_SYNTH_CYLINDER = 3
} lwt_synth_form;

typedef struct lwt_synth_desc {
    size_t nx, ny;            /* points along x (fast axis) and y */
    double dx, dy;            /* spacing, metres */
    uint64_t seed;
    lwt_synth_form form;
    double form_sag;          /* metres: centre-to-edge height of the form (tilt: across the field in x) */
    double wav_amplitude;     /* metres: amplitude of the feed marks (0 = none) */
    double wav_period;        /* feed per mark, in sample spacings along x */
    double rough_rms;         /* metres: RMS of the roughness part (0 = none) */
    double lay_across;        /* grinding texture correlation across the lay (y), spacings */
    double lay_along;         /* ... along the lay (x), spacings */
    double scratch_density;   /* deep random scratches per 1000 x 1000 spacings */
    double pit_density;       /* deep valleys per 100 x 100 spacings */
    double invalid_fraction;  /* about this fraction of points made invalid (NaN) in drop-out spots */
    int threads;              /* CPU threads; 0 = default. The result does not depend on it. */
} lwt_synth_desc;

/** A preset: "milled" (cylinder form, strong feed marks, fine grinding-like texture) or
 *  "ground" (femoral head: sphere form, weak waviness, grinding lay with scratches and pits).
 *  Returns 0, or -1 for an unknown name. */
int lwt_synth_preset(const char *name, size_t nx, size_t ny, double dx, double dy, uint64_t seed,
                     lwt_synth_desc *out);

/** Generate. Any of form, waviness, roughness may be NULL; total (may be NULL) receives their
 *  sum. Invalid points are NaN in every array given. Arrays hold nx*ny doubles (metres).
 *  Returns 0, -1 bad description, -2 out of memory. */
int lwt_synth_generate(const lwt_synth_desc *d, double *total, double *form, double *waviness, double *roughness);

#ifdef __cplusplus
}
#endif
#endif /* LWT_SURFACE_SYNTH_H */
