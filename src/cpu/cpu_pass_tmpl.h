/*
 * The CPU kernels, written once for float and double: included through core/for_dtypes.h
 * with REAL (the storage type), WREAL (the arithmetic type) and FN(name) defined, once per
 * instruction set (cpu_pass_entry.h).
 *
 * Three kernels, one arithmetic. Every element gets the same operations in the same order
 * whichever kernel, thread or instruction set computes it, so the bits never depend on them:
 *   - loads: the sample as it is, or sum_k w_k x[i_k] from 0 for an extended one; a
 *     coefficient (0 outside the band) times the reciprocal of the band's scale (inverse;
 *     a multiplication, not a division: vdivpd cost the inverse 25-30% over the forward,
 *     docs/PERFORMANCE.md; the GPU's exact kernels do the same, for the same bits);
 *   - a lifting step: acc = tap_0 * source[m + off], acc += tap_i * source[m + off + i]
 *     for i = 1.., then target[m] += acc (forward) or -= acc (inverse). The sum starts at
 *     the first product, not at 0: the two differ only in the sign of a zero (0 + -0 is
 *     +0), which the GPU's register kernels, summing from the first product, had made
 *     differ from the CPU (test_gpu_stream, rbio3.5 in zero mode, 2026-11-27); one form
 *     everywhere, and the cheaper one;
 *   - a filter-bank output: acc = 0, acc += tap_j * sample for j = 0..;
 *   - stores: scale * channel, rounded to REAL (forward: ka or kd; the inverse and the
 *     filter bank: 1, exact);
 *   - between the axes of a level, every value rounded to REAL, as a pass stores it.
 * The kernels:
 *   - cpu_line_tmpl.h: lines along the contiguous axis, one at a time;
 *   - cpu_col_tmpl.h: lines along a strided axis, a strip of columns moving down the axis
 *     through a ring of rows (cpu_pipe.h);
 *   - cpu_level_tmpl.h: a whole 2-D level in one sweep, the column pipeline on whole rows
 *     feeding the line kernel, so the level reads its input once and writes its bands once.
 */
#include "cpu/cpu_line_tmpl.h"
#include "cpu/cpu_col_tmpl.h"
#include "cpu/cpu_level_tmpl.h"
