/*
 * png_preview.h - colour-mapped PNG previews of height maps.
 *
 * One image holds one or more maps of the same grid side by side. Each map is drawn with its
 * physical aspect ratio (x spacing against y spacing) fitted into a square of panel_px pixels
 * (box average of the valid points when shrinking, nearest point when enlarging; row 0 at the
 * top, as stored), has a title above it, a colour scale bar with tick labels in micrometres on
 * its right, and a length scale bar below it. The colour range of each map runs from the 0.5 %
 * to the 99.5 % quantile of its valid heights (a few deep pits or spikes do not wash out the
 * rest); invalid points are grey. Text uses the built-in bitmap font (font.h). The file is an
 * 8-bit palette PNG written atomically (temporary file, then rename).
 */
#ifndef LWT_IO_PNG_PREVIEW_H
#define LWT_IO_PNG_PREVIEW_H

#include <stddef.h>

#include "lwt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lwt_preview_map {
    const char *title;  /* drawn above the map, e.g. "roughness" */
    const double *z;    /* nx*ny heights in metres, NaN = invalid */
} lwt_preview_map;

/** Write nmaps maps (same nx, ny, dx, dy in metres) side by side into path.
 *  panel_px: longer side of each map in pixels (16..8192). A failure is logged through ctx
 *  ("path: reason") and returned; nothing is left behind. */
lwt_status lwt_png_write_maps(lwt_context *ctx, const char *path, const lwt_preview_map *maps, int nmaps, size_t nx,
                              size_t ny, double dx, double dy, int panel_px);

#ifdef __cplusplus
}
#endif
#endif /* LWT_IO_PNG_PREVIEW_H */
