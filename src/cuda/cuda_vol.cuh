/* A 3-D forward level in one pass (cuda_vol.cu): the pass along axis 0 and the
 * planes' 2-D level fused, so that the level reads its input once and writes
 * its eight bands once (the level by planes moves it twice). */
#ifndef LWT_CUDA_VOL_CUH
#define LWT_CUDA_VOL_CUH

#include <cuda_runtime.h>

extern "C" {
#include "core/scheme.h"
#include "core/slide.h"
}

/* One level's geometry, all of it relative to tile 0 (core/slide.h's axes: tile t adds
 * t T to every channel index of its axis). Axis 0 is slid through in segments of
 * ax[0].T coefficient rows; axes 1 and 2 are cut into tiles of ax[1].T x ax[2].T
 * coefficients, each lifted in shared memory with its halo. */
typedef struct lwt_vol_geom {
    int shape;                 /* the compiled-in scheme shape (cuda_regs_pipe.cuh) */
    lwt_slide_axis ax[3];
    long tiles[3];             /* segments along axis 0, tiles along axes 1 and 2 */
    long m_start;              /* first axis-0 channel row a segment loads */
    long out_lo[2], out_hi[2]; /* axis-0 channel rows a segment writes */
    long xlo;                  /* tile 0's first sample column along axis 2 (lwt_slide_strip) */
    int nx;                    /* and its sample columns */
    int t1_shift;              /* log2 of ax[1].T */
} lwt_vol_geom;

/* The geometry of forward level (n0, n1, n2) -> (nc0, nc1, nc2) samples of a float32 plan
 * computed in float, or NULL where the kernel does not apply: a scheme shape it is not
 * built for, smooth and antireflect (extrapolated, not an index map), a tile and its halo
 * over the block's positions, input planes over 2^31 elements. in_row: the input's row
 * stride (elements); sms: the device's multiprocessors. Free with free(). */
lwt_vol_geom *lwt_cuda_vol_plan(const lwt_scheme *s, lwt_mode mode, int F, const size_t n[3], size_t in_row, int sms);

/* The level: input (n0, n1, n2) at in, rows in_row and planes in_plane elements apart;
 * band mask b (bit k: a detail along axis k) to out[b], rows out_row[b] and planes
 * out_plane[b] elements apart. */
cudaError_t lwt_cuda_vol_forward(const lwt_vol_geom *g, const lwt_scheme *s, const float *in, size_t in_row,
                                 size_t in_plane, float *const out[8], const size_t out_row[8],
                                 const size_t out_plane[8], cudaStream_t stream);

#endif
