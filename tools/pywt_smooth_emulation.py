#!/usr/bin/env python3
"""PyWavelets' `smooth` forward transform emulated in NumPy, twice: with PyWavelets' extension
x0 + k*(x0 - x1) and with the form liblwt evaluates, (1+k)*x0 + (-k)*x1 (core/extend.h's terms).
Both sum the filter taps in PyWavelets' order (j = 0 .. F-1, axes 0, 1, 2 in turn, as
pywt.dwtn). The first matches PyWavelets bit for bit; the second differs by the amount liblwt's
filter bank differs (docs/ACCURACY.md, "Conditioning"). Usage: pywt_smooth_emulation.py [WAVELET]
"""
import sys

import numpy as np
import pywt


def extend(x, F, careful):
    """x (..., N) extended by F - 1 samples on each side, smooth mode."""
    N = x.shape[-1]
    x0, x1, xl, xm = x[..., 0], x[..., 1], x[..., N - 1], x[..., N - 2]
    if careful:
        left = [x0 + k * (x0 - x1) for k in map(float, range(F - 1, 0, -1))]
        right = [xl + k * (xl - xm) for k in map(float, range(1, F))]
    else:
        left = [(1 + k) * x0 + (-k) * x1 for k in map(float, range(F - 1, 0, -1))]
        right = [(1 + k) * xl + (-k) * xm for k in map(float, range(1, F))]
    return np.concatenate([np.stack(left, -1), x, np.stack(right, -1)], -1)


def dwt_axis(x, w, axis, careful):
    x = np.moveaxis(x, axis, -1)
    F, N = w.dec_len, x.shape[-1]
    y = extend(x, F, careful)
    no = (N + F - 1) // 2
    out = []
    for filt in (w.dec_lo, w.dec_hi):
        acc = np.zeros(x.shape[:-1] + (no,))
        for j in range(F):  # output o: sum_j filt[j] * y[2o + 1 - j], in PyWavelets' order
            acc = acc + filt[j] * y[..., 2 * np.arange(no) + 1 - j + F - 1]
        out.append(np.moveaxis(acc, -1, axis))
    return out


def wavedecn(x, w, level, careful):
    details, a = [], x
    for _ in range(level):
        bands = {"": a}
        for ax in range(x.ndim):
            bands = {k + s: v for k, b in bands.items() for s, v in zip("ad", dwt_axis(b, w, ax, careful))}
        a = bands.pop("a" * x.ndim)
        details.append(bands)
    return [a] + details[::-1]


def main():
    w = pywt.Wavelet(sys.argv[1] if len(sys.argv) > 1 else "db30")
    rng = np.random.default_rng(0)
    for shape, level in [((3,), 3), ((3, 7), 3), ((3, 7, 7), 3)]:
        x = rng.standard_normal(shape)
        ref = pywt.coeffs_to_array(pywt.wavedecn(x, w, mode="smooth", level=level))[0]
        for careful, name in ((True, "x0 + k*(x0 - x1)"), (False, "(1+k)*x0 + (-k)*x1")):
            got = pywt.coeffs_to_array(wavedecn(x, w, level, careful))[0]
            print("%s smooth %s level %d, %-19s: %d of %d coefficients differ, max %.2e relative"
                  % (w.name, shape, level, name, np.count_nonzero(got != ref), ref.size,
                     np.abs(got - ref).max() / np.abs(ref).max()))


if __name__ == "__main__":
    main()
