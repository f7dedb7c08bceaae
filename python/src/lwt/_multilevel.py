"""Multi-level transforms with PyWavelets' signatures and checks (pywt/_multilevel.py).
A forward over up to three distinct axes with one wavelet and mode is one liblwt plan
for all levels; the inverses go level by level as PyWavelets does (each level one plan),
which keeps its handling of None bands and of approximations one sample longer."""
import operator
import warnings

import numpy as np
from numpy.exceptions import AxisError

from . import _core, _gpu
from ._dtypes import as_transform_array
from ._dwt import dwt, idwt
from ._gpu import any_gpu_array, as_array, is_gpu_array
from ._multidim import dwt2, dwtn, fix_coeffs, idwt2, idwtn, modes_per_axis, one_plan_fits
from ._transform import MAX_PLAN_LEVELS, wavedecn_planned, waverecn_planned
from ._wavelets import as_wavelet, wavelets_per_axis

__all__ = ["wavedec", "waverec", "wavedec2", "waverec2", "wavedecn", "waverecn", "dwtn_max_level"]


def _check_level(sizes, dec_lens, level):
    max_level = min(_core.max_level(int(s), int(d)) for s, d in zip(sizes, dec_lens))
    if level is None:
        return max_level
    if level < 0:
        raise ValueError("Level value of %d is too low . Minimum level is 0." % level)
    if level > max_level:
        warnings.warn(f"Level value of {level} is too high: all coefficients will experience boundary "
                      "effects.", stacklevel=3)
    return operator.index(level)


def _planned(data, wavelet, mode, axes, level):
    """wavedecn's list from one plan, or None where one plan cannot compute it."""
    wavelets = wavelets_per_axis(wavelet, axes)
    modes = modes_per_axis(mode, axes)
    fits = one_plan_fits(axes, wavelets, modes) and level <= MAX_PLAN_LEVELS
    if is_gpu_array(data) and level >= 1:  # level 0: [data], as PyWavelets
        return _gpu.wavedecn(data, wavelets[0], modes[0], axes, level, fits)
    if not (fits and level >= 1):
        return None
    data = np.asarray(data)
    if data.dtype == np.dtype("object"):
        raise TypeError("Input must be a numeric array-like")
    data = as_transform_array(data)
    axes = tuple(a + data.ndim if a < 0 else a for a in axes)
    return wavedecn_planned(data, wavelets[0], modes[0], axes, level)


def _level_by_level(data, level, step):
    """[cA_n, details n, ..., details 1] from a one-level step(a) -> (cA, details), as
    PyWavelets computes it (where one plan cannot)."""
    coeffs_list = []
    a = data
    for _ in range(level):
        a, details = step(a)
        coeffs_list.append(details)
    coeffs_list.append(a)
    coeffs_list.reverse()
    return coeffs_list


def _inverse_planned(a, ds, wavelet, mode, axes):
    """waverecn's result from one plan (waverecn_planned), or None where one plan cannot
    compute it or the arguments need PyWavelets' level-by-level checks (GPU arrays too: their
    level-by-level inverse runs on the device, _gpu.py)."""
    gpu = is_gpu_array(a)
    a = as_array(a)
    if a.ndim == 0 or not all(-a.ndim <= ax < a.ndim for ax in axes):
        if gpu:
            raise AxisError("Axis greater than coefficient dimensions")
        return None
    axes = tuple(ax % a.ndim for ax in axes)
    wavelets = wavelets_per_axis(wavelet, axes)
    modes = modes_per_axis(mode, axes)
    fits = one_plan_fits(axes, wavelets, modes)
    if gpu:
        any_gpu_array([v for d in ds for v in d.values()] + [a])  # refuses a mix
        return _gpu.waverecn(a, ds, wavelets[0], modes[0], axes, fits)
    if not fits:
        return None
    return waverecn_planned(a, ds, wavelets[0], modes[0], axes)


def wavedec(data, wavelet, mode="symmetric", level=None, axis=-1):
    """Multi-level 1-D DWT along one axis: [cA_n, cD_n, ..., cD_1]."""
    data = as_array(data)
    wavelet = as_wavelet(wavelet)
    try:
        axes_shape = data.shape[axis]
    except IndexError:
        raise AxisError("Axis greater than data dimensions") from None
    level = _check_level([axes_shape], [wavelet.dec_len], level)
    bands = _planned(data, wavelet, mode, (axis,), level)
    if bands is not None:
        return [bands[0]] + [d["d"] for d in bands[1:]]
    return _level_by_level(data, level, lambda a: dwt(a, wavelet, mode, axis))


def waverec(coeffs, wavelet, mode="symmetric", axis=-1):
    """Multi-level 1-D inverse DWT along one axis."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("Expected sequence of coefficient arrays.")
    if len(coeffs) < 1:
        raise ValueError("Coefficient list too short (minimum 1 arrays required).")
    if len(coeffs) == 1:
        return coeffs[0]
    a, ds = coeffs[0], coeffs[1:]
    for d in ds:
        if d is not None and not (isinstance(d, np.ndarray) or is_gpu_array(d)):
            raise ValueError(f"Unexpected detail coefficient type: {type(d)}. Detail coefficients must be "
                             "arrays as returned by wavedec. If you are using pywt.array_to_coeffs or "
                             "pywt.unravel_coeffs, please specify output_format='wavedec'")
    if a is not None and (all(d is not None for d in ds) or is_gpu_array(a)):
        rec = _inverse_planned(a, [{"d": d} for d in ds], wavelet, mode, (axis,))
        if rec is not None:
            return rec
    for d in ds:
        if a is not None and d is not None:
            try:
                if a.shape[axis] == d.shape[axis] + 1:
                    a = a[tuple(slice(s) for s in d.shape)]
                elif a.shape[axis] != d.shape[axis]:
                    raise ValueError("coefficient shape mismatch")
            except IndexError:
                raise AxisError("Axis greater than coefficient dimensions") from None
        a = idwt(a, d, wavelet, mode, axis)
    return a


def wavedec2(data, wavelet, mode="symmetric", level=None, axes=(-2, -1)):
    """Multi-level 2-D DWT: [cA_n, (cH_n, cV_n, cD_n), ..., (cH_1, cV_1, cD_1)]."""
    data = as_array(data)
    if data.ndim < 2:
        raise ValueError("Expected input data to have at least 2 dimensions.")
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("Expected 2 axes")
    if len(axes) != len(set(axes)):
        raise ValueError("The axes passed to wavedec2 must be unique.")
    try:
        axes_sizes = [data.shape[ax] for ax in axes]
    except IndexError:
        raise AxisError("Axis greater than data dimensions") from None
    wavelets = wavelets_per_axis(wavelet, axes)
    level = _check_level(axes_sizes, [w.dec_len for w in wavelets], level)
    bands = _planned(data, wavelet, mode, axes, level)
    if bands is not None:
        return [bands[0]] + [(d["da"], d["ad"], d["dd"]) for d in bands[1:]]
    return _level_by_level(data, level, lambda a: dwt2(a, wavelet, mode, axes))


def waverec2(coeffs, wavelet, mode="symmetric", axes=(-2, -1)):
    """Multi-level 2-D inverse DWT."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("Expected sequence of coefficient arrays.")
    if len(axes) != len(set(axes)):
        raise ValueError("The axes passed to waverec2 must be unique.")
    if len(coeffs) < 1:
        raise ValueError("Coefficient list too short (minimum 1 array required).")
    if len(coeffs) == 1:
        return coeffs[0]
    a, ds = as_array(coeffs[0]), coeffs[1:]
    for d in ds:
        if not isinstance(d, (list, tuple)) or len(d) != 3:
            raise ValueError(f"Unexpected detail coefficient type: {type(d)}. Detail coefficients must be a "
                             "3-tuple of arrays as returned by wavedec2. If you are using pywt.array_to_coeffs "
                             "or pywt.unravel_coeffs, please specify output_format='wavedec2'")
    if all(c is not None for d in ds for c in d) or is_gpu_array(a):
        bands = [dict(zip(("da", "ad", "dd"), (None if c is None else as_array(c) for c in d))) for d in ds]
        rec = _inverse_planned(a, bands, wavelet, mode, tuple(axes))
        if rec is not None:
            return rec
    for d in ds:
        d = tuple(as_array(c) if c is not None else None for c in d)
        d_shapes = [c.shape for c in d if c is not None]
        if d_shapes:
            if any(s != d_shapes[0] for s in d_shapes):
                raise ValueError("All detail shapes must be the same length.")
            idxs = tuple(slice(None, -1 if a_len == d_len + 1 else None) for a_len, d_len in zip(a.shape, d_shapes[0]))
        else:
            idxs = (slice(None), slice(None))
        a = idwt2((a[idxs], d), wavelet, mode, axes)
    return a


def _prep_axes_wavedecn(shape, axes):
    if len(shape) < 1:
        raise ValueError("Expected at least 1D input data.")
    ndim = len(shape)
    if np.isscalar(axes):
        axes = (axes,)
    axes = tuple(range(ndim)) if axes is None else tuple(axes)
    if len(axes) != len(set(axes)):
        raise ValueError("The axes passed to wavedecn must be unique.")
    try:
        axes_shapes = [shape[ax] for ax in axes]
    except IndexError:
        raise AxisError("Axis greater than data dimensions") from None
    return axes, axes_shapes, len(axes)


def wavedecn(data, wavelet, mode="symmetric", level=None, axes=None):
    """Multi-level n-D DWT: [cA_n, {details n}, ..., {details 1}]."""
    data = as_array(data)
    axes, axes_shapes, ndim_transform = _prep_axes_wavedecn(data.shape, axes)
    if ndim_transform == 0:
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    wavelets = wavelets_per_axis(wavelet, axes)
    level = _check_level(axes_shapes, [w.dec_len for w in wavelets], level)
    bands = _planned(data, wavelet, mode, axes, level)
    if bands is not None:
        return bands
    def step(a):
        coeffs = dwtn(a, wavelet, mode, axes)
        return coeffs.pop("a" * ndim_transform), coeffs

    return _level_by_level(data, level, step)


def _match_coeff_dims(a_coeff, d_coeff_dict):
    if a_coeff is None:
        return None
    if not d_coeff_dict:
        return a_coeff
    d_coeff = d_coeff_dict[next(iter(d_coeff_dict))]
    size_diffs = np.subtract(a_coeff.shape, d_coeff.shape)
    if np.any((size_diffs < 0) | (size_diffs > 1)):
        raise ValueError("incompatible coefficient array sizes")
    return a_coeff[tuple(slice(s) for s in d_coeff.shape)]


def waverecn(coeffs, wavelet, mode="symmetric", axes=None):
    """Multi-level n-D inverse DWT."""
    if len(coeffs) < 1:
        raise ValueError("Coefficient list too short (minimum 1 array required).")
    a, ds = coeffs[0], coeffs[1:]
    if len(ds) > 0 and not all(isinstance(d, dict) for d in ds):
        raise ValueError(f"Unexpected detail coefficient type: {type(ds[0])}. Detail coefficients must be a "
                         "dictionary of arrays as returned by wavedecn. If you are using pywt.array_to_coeffs "
                         "or pywt.unravel_coeffs, please specify output_format='wavedecn'")
    ds = list(map(fix_coeffs, ds))
    if not ds:
        return coeffs[0]
    if a is None and not any(ds):
        raise ValueError("At least one coefficient must contain a valid value.")
    coeff_ndims = []
    if a is not None:
        a = as_array(a)
        coeff_ndims.append(a.ndim)
    for d in ds:
        coeff_ndims += [v.ndim for v in d.values()]
    if len(set(coeff_ndims)) != 1:
        raise ValueError("All coefficients must have a matching number of dimensions")
    ndim = coeff_ndims[0]
    if np.isscalar(axes):
        axes = (axes,)
    axes = tuple(range(ndim)) if axes is None else tuple(axes)
    if len(axes) != len(set(axes)):
        raise ValueError("The axes passed to waverecn must be unique.")
    ndim_transform = len(axes)
    if a is not None:
        rec = _inverse_planned(a, ds, wavelet, mode, axes)
        if rec is not None:
            return rec
    for idx, d in enumerate(ds):
        if a is None and not d:
            continue
        if idx > 0:
            a = _match_coeff_dims(a, d)
        d["a" * ndim_transform] = a
        a = idwtn(d, wavelet, mode, axes)
    return a


def dwtn_max_level(shape, wavelet, axes=None):
    """The largest level every transformed axis allows (pywt.dwtn_max_level)."""
    axes, axes_shapes, _ = _prep_axes_wavedecn(shape, axes)
    wavelets = wavelets_per_axis(wavelet, axes)
    return min(_core.max_level(int(n), w.dec_len) for n, w in zip(axes_shapes, wavelets))
