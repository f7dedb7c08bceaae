"""The transforms on arrays, over liblwt plans: one axis at a time (pywt's dwt_axis and
idwt_axis, the building block of every PyWavelets call) and up to three axes and many
levels in one plan (the fast path of dwtn/wavedecn/idwtn). Arrays arrive with pywt's
dtype already applied (float32, float64, complex64, complex128); complex arrays are
transformed as their real and imaginary parts, as PyWavelets does."""
import math
from itertools import product

import numpy as np
from numpy.exceptions import AxisError

from ._dtypes import common_pair_dtype, kept
from ._plans import forward_last, get_plan, inverse_last

MAX_PLAN_AXES = 3     # LWT_MAX_NDIM: more transformed axes go one axis at a time
MAX_PLAN_LEVELS = 256  # LWT_LEVELS_LIMIT (src/core/plan.h): deeper requests go level by level


def _by_parts(fn, z, *rest):
    """fn on the real and imaginary parts of complex z, recombined in z's dtype."""
    re, im = fn(z.real, *rest), fn(z.imag, *rest)
    if isinstance(re, tuple):
        return tuple(_join(r, i, z.dtype) for r, i in zip(re, im))
    return _join(re, im, z.dtype)


def _join(re, im, dtype):
    if isinstance(re, dict):
        return {k: _join(re[k], im[k], dtype) for k in re}
    if isinstance(re, list):
        return [_join(r, i, dtype) for r, i in zip(re, im)]
    out = np.empty(re.shape, dtype=dtype)
    out.real, out.imag = re, im
    return out


def idwt_len(n, filter_length, mode):
    """Signal length of a one-level inverse from n coefficients (pywt's idwt_buffer_length)."""
    return 2 * n if mode == "periodization" else 2 * n - filter_length + 2


def to_last(x, axis):
    """x with axis moved last, x itself when it already is: the common 1-D call pays no
    moveaxis (with this and math.prod for np.prod a 100-sample db4 dwt/idwt went from
    83/100 us to 17/23 us a call on this 2-core machine; PyWavelets: 6-8/3-4 us)."""
    return x if axis in (-1, x.ndim - 1) else np.moveaxis(x, axis, -1)


def from_last(x, axis):
    """A C-contiguous copy of x with its last axis moved to axis."""
    return np.ascontiguousarray(x if axis in (-1, x.ndim - 1) else np.moveaxis(x, -1, axis))


def band_keys(k):
    """pywt's dwtn keys over k axes, in its order ('aa', 'ad', 'da', 'dd'), with liblwt's band
    mask of each (bit i set where axis i is a detail axis)."""
    return [("".join(p), sum(1 << i for i, c in enumerate(p) if c == "d")) for p in product("ad", repeat=k)]


def coeff_len(n, filter_length, mode):
    """Length of cA and cD of a one-level forward of n samples (pywt's dwt_coeff_len)."""
    return (n + 1) // 2 if mode == "periodization" else (n + filter_length - 1) // 2


def check_lengths(lengths, filter_length, mode, level):
    """pywt's checks of every level's input length along each transformed axis."""
    for n in lengths:
        for _ in range(level):
            if n < 1:
                raise ValueError("Value of data_len must be greater than zero.")
            if n == 1 and mode in ("reflect", "antireflect"):
                raise ValueError("Input data length must be greater than 1 for [anti]reflect mode along "
                                 "the transformed axis.")
            n = coeff_len(n, filter_length, mode)


def dwt_axis(x, wavelet, mode, axis):
    """One level along one axis: (cA, cD), as pywt's dwt_axis."""
    if x.dtype.kind == "c":
        return _by_parts(dwt_axis, x, wavelet, mode, axis)
    check_lengths([x.shape[axis]], wavelet.dec_len, mode, 1)
    packed, plan = forward_last(to_last(x, axis), wavelet, mode, 1, 1)
    return tuple(from_last(packed[..., plan.band(level, level)[0]], axis) for level in (0, 1))


def idwt_axis(a, d, wavelet, mode, axis):
    """One inverse level along one axis from cA and cD (either may be None: zeros), as
    pywt's idwt_axis."""
    if a is None:
        a = np.zeros_like(d)
    elif d is None:
        d = np.zeros_like(a)
    if a.dtype != d.dtype:
        dt = common_pair_dtype(a, d)
        a, d = a.astype(dt), d.astype(dt)
    if a.shape != d.shape:
        raise ValueError("Coefficients arrays must have the same size.")
    if a.dtype.kind == "c":
        return _join(idwt_axis(a.real, d.real, wavelet, mode, axis),
                     idwt_axis(a.imag, d.imag, wavelet, mode, axis), a.dtype)
    if a.ndim == 0 or not -a.ndim <= axis < a.ndim:
        raise AxisError("Axis greater than coefficient dimensions")
    n = idwt_len(a.shape[axis], wavelet.dec_len, mode)
    if n < 1:
        raise ValueError("Invalid coefficient arrays length for specified wavelet. Wavelet and mode must "
                         "be the same as used for decomposition.")
    packed = np.concatenate([to_last(a, axis), to_last(d, axis)], axis=-1)
    plan = get_plan(wavelet, (n,), 1, mode, packed.dtype, max(math.prod(packed.shape[:-1]), 1))
    return from_last(inverse_last(packed, plan), axis)


def wavedecn_planned(x, wavelet, mode, axes, level):
    """[cA_J, {details J}, ..., {details 1}] of x over distinct axes (at most 3) with one
    plan: the whole multi-level transform in one liblwt call."""
    if x.dtype.kind == "c":
        return _by_parts(wavedecn_planned, x, wavelet, mode, axes, level)
    check_lengths([x.shape[a] for a in axes], wavelet.dec_len, mode, level)
    k = len(axes)
    last = tuple(range(x.ndim - k, x.ndim))
    packed, plan = forward_last(np.moveaxis(x, axes, last), wavelet, mode, level, k)
    lead = (slice(None),) * (x.ndim - k)

    def band(lvl, mask):
        return np.ascontiguousarray(np.moveaxis(packed[lead + plan.band(lvl, mask)], last, axes))

    keys = band_keys(k)[1:]
    return [band(0, 0)] + [{key: band(lvl, mask) for key, mask in keys} for lvl in range(1, level + 1)]


def idwtn_planned(coeffs, wavelet, mode, axes):
    """One inverse level over distinct axes (at most 3) with one plan, from a dict holding
    every band with one shape and dtype; None where the plan cannot take these bands."""
    k = len(axes)
    keys = band_keys(k)
    if len(coeffs) != len(keys) or any(key not in coeffs for key, _ in keys):
        return None
    first = coeffs[keys[0][0]]
    if any(v.shape != first.shape or v.dtype != first.dtype for v in coeffs.values()):
        return None
    if first.dtype.kind == "c":
        re = idwtn_planned({key: v.real for key, v in coeffs.items()}, wavelet, mode, axes)
        im = idwtn_planned({key: v.imag for key, v in coeffs.items()}, wavelet, mode, axes)
        return _join(re, im, first.dtype)
    last = tuple(range(first.ndim - k, first.ndim))
    moved = {key: np.moveaxis(v, axes, last) for key, v in coeffs.items()}
    tshape = tuple(idwt_len(n, wavelet.dec_len, mode) for n in moved[keys[0][0]].shape[first.ndim - k:])
    if min(tshape) < 1:
        return None
    outer = moved[keys[0][0]].shape[:first.ndim - k]
    plan = get_plan(wavelet, tshape, 1, mode, first.dtype, max(math.prod(outer), 1))
    packed = np.empty(outer + plan.packed_shape, dtype=first.dtype)
    lead = (slice(None),) * len(outer)
    for key, mask in keys:
        where = lead + plan.band(0 if mask == 0 else 1, mask)
        if packed[where].shape != moved[key].shape:
            return None
        packed[where] = moved[key]
    return np.ascontiguousarray(np.moveaxis(inverse_last(packed, plan), last, axes))


class _Mismatch(Exception):
    """A band whose shape is not the plan's: the caller goes level by level instead."""


def waverecn_planned(a, ds, wavelet, mode, axes):
    """The inverse of every level with one plan, from cA_J and the detail dicts (coarsest
    first), each holding every detail band over distinct axes (at most 3), all arrays of one
    dtype, with exactly the shapes a forward of the output shape makes; None otherwise (the
    caller then goes level by level, as PyWavelets, which also crops approximations one
    sample longer and fills missing bands). Same coefficients, same output: one plan crops
    each level's reconstruction to the next level's size as PyWavelets does."""
    k = len(axes)
    keys = band_keys(k)[1:]
    if not 1 <= len(ds) <= MAX_PLAN_LEVELS or any(set(d) != {key for key, _ in keys} for d in ds):
        return None
    dt = a.dtype
    if not kept(dt) or any(d[key].dtype != dt for d in ds for key, _ in keys):
        return None
    if dt.kind == "c":
        re = waverecn_planned(a.real, [{key: v.real for key, v in d.items()} for d in ds], wavelet, mode, axes)
        im = waverecn_planned(a.imag, [{key: v.imag for key, v in d.items()} for d in ds], wavelet, mode, axes)
        return None if re is None or im is None else _join(re, im, dt)
    last = tuple(range(a.ndim - k, a.ndim))
    finest = np.moveaxis(ds[-1][keys[0][0]], axes, last)
    tshape = tuple(idwt_len(n, wavelet.dec_len, mode) for n in finest.shape[a.ndim - k:])
    if min(tshape) < 1:
        return None
    outer = finest.shape[:a.ndim - k]
    plan = get_plan(wavelet, tshape, len(ds), mode, dt, max(math.prod(outer), 1))
    packed = np.zeros(outer + plan.packed_shape, dtype=dt)  # zeros: the gaps PyWavelets pads with
    lead = (slice(None),) * len(outer)

    def put(level, mask, x):
        where, moved = lead + plan.band(level, mask), np.moveaxis(x, axes, last)
        if packed[where].shape != moved.shape:
            raise _Mismatch
        packed[where] = moved

    try:
        put(0, 0, a)
        for level, d in enumerate(ds, 1):
            for key, mask in keys:
                put(level, mask, d[key])
    except _Mismatch:
        return None
    return np.ascontiguousarray(np.moveaxis(inverse_last(packed, plan), last, axes))
