"""The PyWavelets reference for lwt, and the accuracy bounds (docs/ACCURACY.md).

forward:  packed = pywt.coeffs_to_array(pywt.wavedecn(x, w, mode=m, level=L))[0]
          (1-D too: wavedecn gives [cA_J, cD_J, ..., cD_1], so packed is their
          concatenation)
inverse:  pywt.waverecn(pywt.array_to_coeffs(packed, slices, 'wavedecn'), w, m)
          cropped to the signal shape.
Both are computed in float64, whatever dtype is under test.

Error measure: max|a - b| / max(max|b|, max|input|, tiny)   (rel_err)
Bounds (docs/ACCURACY.md explains each):
  float64: max(1e-12, 10 * rt(w)), rt(w) = PyWavelets' own perfect-reconstruction
           error for w, measured once per wavelet (roundtrip_error) on fixed signals.
  float32: 1e-5 against the float64 reference of the same (float32) input, or 10x
           PyWavelets' own float32 error on the same case if larger
           (forward_bound / inverse_bound).
"""
import functools
import math
import warnings

import numpy as np

try:
    import pywt
except ImportError:  # the tests turn this into a skip (exit 77)
    pywt = None

warnings.filterwarnings("ignore", message=r"Level value of .* is too high")

ALIASES = {"cdf97": "bior4.4", "cdf53": "bior2.2", "d4": "db2", "d8": "db4", "d20": "db10"}
TINY = np.finfo(np.float64).tiny
F32_BOUND = 1e-5
F64_FLOOR = 1e-12
RT_FACTOR = 10.0
RT_SEED = 20240611        # fixed: the bounds must not depend on LWT_SEED
RT_LENGTHS = (64, 101, 256)
RT_MODES = ("periodization", "symmetric")


def modes():
    return list(pywt.Modes.modes)


def discrete_wavelets():
    return list(pywt.wavelist(kind="discrete"))


def canonical(w):
    return ALIASES.get(w, w)


@functools.lru_cache(maxsize=None)
def pywt_wavelet(w):
    return pywt.Wavelet(canonical(w))


def dec_len(w):
    return pywt_wavelet(w).dec_len


def family(w):
    return pywt_wavelet(w).short_family_name


def max_level(shape, w):
    """pywt.dwtn_max_level for a shape (0 where an axis is too short)."""
    return min(pywt.dwt_max_level(int(n), dec_len(w)) for n in shape)


def rel_err(a, b, inp=None):
    """max|a - b| / max(max|b|, max|inp|, tiny), in float64; inf on shape mismatch or NaN.

    a: result under test, b: reference, inp: the input the transform was given
    (x for a forward, the coefficients for an inverse). Including max|inp| in the
    scale makes the measure honest for cancelling inverses (see docs/ACCURACY.md)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    d = np.abs(a - b)
    if not np.all(np.isfinite(d)):
        return math.inf
    scale = float(np.abs(b).max())
    if inp is not None and np.size(inp):
        scale = max(scale, float(np.abs(np.asarray(inp, dtype=np.float64)).max()))
    return float(d.max() / max(scale, TINY))


@functools.lru_cache(maxsize=None)
def roundtrip_error(w):
    """PyWavelets' own perfect-reconstruction error for wavelet w (float64).

    max over a few fixed random signals (lengths RT_LENGTHS, modes RT_MODES,
    level max(1, dwt_max_level)) of max|waverec(wavedec(x)) - x| / max|x|."""
    wc = canonical(w)
    rng = np.random.default_rng(RT_SEED)
    err = 0.0
    for m in RT_MODES:
        for n in RT_LENGTHS:
            x = rng.standard_normal(n)
            lev = max(1, pywt.dwt_max_level(n, dec_len(wc)))
            y = pywt.waverec(pywt.wavedec(x, wc, mode=m, level=lev), wc, mode=m)[:n]
            err = max(err, rel_err(y, x))
    return err


def is_f32(dtype):
    """float32 in any byte order."""
    d = np.dtype(dtype)
    return d.kind == "f" and d.itemsize == 4


def bound(w, dtype):
    """The pinned relative-error bound for wavelet w in dtype."""
    if is_f32(dtype):
        return F32_BOUND
    return max(F64_FLOOR, RT_FACTOR * roundtrip_error(w))


def bound_f64(w):
    return bound(w, np.float64)


def pywt32_forward(x, w, mode, level):
    """PyWavelets computing in float32 (it keeps float32 input in float32)."""
    c = pywt.wavedecn(np.asarray(x, dtype=np.float32), canonical(w), mode=mode, level=level)
    return pywt.coeffs_to_array(c)[0]


def pywt32_inverse(packed, slices, w, mode, shape):
    c = pywt.array_to_coeffs(np.asarray(packed, dtype=np.float32), slices, output_format="wavedecn")
    y = pywt.waverecn(c, canonical(w), mode=mode)
    return y[tuple(slice(0, int(n)) for n in shape)]


EXTRAPOLATING = ("smooth", "antireflect")
NEIGHBOURS = 7  # float32 neighbours of the input sampled in the ill-conditioned cases


def _neighbours(a):
    """a and NEIGHBOURS float32 values next to it (relative steps of k 2^-22): in an
    ill-conditioned case the error of a float32 computation depends on the rounding
    pattern of the particular input, so one input samples it poorly."""
    a = np.asarray(a, dtype=np.float64)
    out = [a]
    for k in range(1, NEIGHBOURS + 1):
        out.append(np.asarray(a * (1.0 + k * 2.0 ** -22), dtype=np.float32).astype(np.float64))
    return out


def _ill_conditioned(w, mode, shape, levels):
    """smooth and antireflect beyond the maximum level: each level extrapolates from the
    last samples of the previous one, multiplying their rounding by up to the filter length."""
    return mode in EXTRAPOLATING and levels > max_level(shape, w)


def forward_bound(w, dtype, x, mode, level, ref):
    """Bound for a forward of x: bound(w, dtype); in float32 at least 10 x the error
    PyWavelets itself makes computing the same case in float32 (docs/ACCURACY.md). In the
    ill-conditioned cases that error is the largest over x and float32 neighbours of it:
    on one input it ranges from 1e-7 to 9e-5 (db38, smooth, n = 3, level 12; ours 4e-6
    median, 2.5e-5 at most over 3000 inputs), so a lucky input made a 1-in-750 flake."""
    b = bound(w, dtype)
    if is_f32(dtype):
        x = np.asarray(x, dtype=np.float64)
        levels = max_level(x.shape, w) if level is None else level
        own = rel_err(pywt32_forward(x, w, mode, level), ref, x)
        if _ill_conditioned(w, mode, x.shape, levels):
            for xn in _neighbours(x)[1:]:
                refn = pywt.coeffs_to_array(_wavedecn(xn, w, mode, level))[0]
                own = max(own, rel_err(pywt32_forward(xn, w, mode, level), refn, xn))
        b = max(b, RT_FACTOR * own)
    return b


def inverse_bound(w, dtype, packed, slices, mode, shape, ref):
    """Bound for an inverse of packed coefficients (same rule as forward_bound)."""
    b = bound(w, dtype)
    if is_f32(dtype):
        own = rel_err(pywt32_inverse(packed, slices, w, mode, shape), ref, packed)
        if _ill_conditioned(w, mode, tuple(shape), len(slices) - 1):
            for pn in _neighbours(packed)[1:]:
                c = pywt.array_to_coeffs(pn, slices, output_format="wavedecn")
                refn = pywt.waverecn(c, canonical(w), mode=mode)[tuple(slice(0, int(n)) for n in shape)]
                own = max(own, rel_err(pywt32_inverse(pn, slices, w, mode, shape), refn, pn))
        b = max(b, RT_FACTOR * own)
    return b


# ------------------------------------------------------------ reference
def _wavedecn(x, w, mode, level):
    return pywt.wavedecn(np.asarray(x, dtype=np.float64), canonical(w), mode=mode, level=level)


def raises(shape, w, mode, level):
    """True when PyWavelets refuses the transform (e.g. [anti]reflect on length 1)."""
    try:
        slices_for(tuple(shape), w, mode, level)
        return False
    except ValueError:
        return True


@functools.lru_cache(maxsize=4096)
def _slices_cached(shape, w, mode, level):
    c = _wavedecn(np.zeros(shape), w, mode, level)
    arr, slices = pywt.coeffs_to_array(c)
    return arr.shape, slices, band_shapes(c)


def slices_for(shape, w, mode, level):
    """(packed_shape, slices, band_shapes) for a signal shape; level None = max."""
    return _slices_cached(tuple(int(s) for s in shape), canonical(w), mode, level)


def band_shapes(coeffs):
    """[shape of cA_J, {key: shape} for each detail level coarse->fine]."""
    out = [coeffs[0].shape]
    for d in coeffs[1:]:
        out.append({k: v.shape for k, v in d.items()})
    return out


def ref_forward(x, w, mode, level):
    """float64 packed coefficients and slices; level None = max."""
    c = _wavedecn(x, w, mode, level)
    arr, slices = pywt.coeffs_to_array(c)
    return arr, slices


def ref_inverse(packed, slices, w, mode, shape):
    """float64 waverecn of packed coefficients, cropped to shape."""
    c = pywt.array_to_coeffs(np.asarray(packed, dtype=np.float64), slices, output_format="wavedecn")
    y = pywt.waverecn(c, canonical(w), mode=mode)
    return np.ascontiguousarray(y[tuple(slice(0, int(n)) for n in shape)])


def clean_packed(packed, slices):
    """packed with PyWavelets' padding gaps set to zero (as coeffs_to_array writes them)."""
    c = pywt.array_to_coeffs(np.asarray(packed, dtype=np.float64), slices, output_format="wavedecn")
    return pywt.coeffs_to_array(c)[0]


def band_mask(key):
    """wavedecn detail key ('ad', 'dda', ...) -> lwt band_mask (bit k = axis k is 'd')."""
    return sum(1 << k for k, ch in enumerate(key) if ch == "d")


def slice_bounds(sl, n):
    """(start, stop) of a slice over an axis of length n."""
    start, stop, _ = sl.indices(n)
    return start, stop


def level_name(level, lmax):
    return "max(%d)" % lmax if level is None else str(level)
