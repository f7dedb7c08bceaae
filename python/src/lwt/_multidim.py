"""Single-level n-D transforms with PyWavelets' signatures and checks (pywt/_multidim.py):
over up to three distinct axes with one wavelet and mode they run as one liblwt plan,
otherwise (more axes, repeated axes, a wavelet or mode per axis) one axis at a time as
PyWavelets does."""
from itertools import product

import numpy as np
from numpy.exceptions import AxisError

from . import _gpu
from ._dtypes import as_transform_array, common_pair_dtype
from ._gpu import any_gpu_array, as_array
from ._modes import mode_name
from ._transform import MAX_PLAN_AXES, dwt_axis, idwt_axis, idwtn_planned, wavedecn_planned
from ._wavelets import wavelets_per_axis

__all__ = ["dwt2", "idwt2", "dwtn", "idwtn"]


def modes_per_axis(modes, axes):
    """One mode name per transformed axis, as pywt's _modes_per_axis."""
    axes = tuple(axes)
    if isinstance(modes, (int, str)):
        return [mode_name(modes)] * len(axes)
    try:
        n = len(modes)
    except TypeError:
        raise ValueError("modes must be a str, Mode enum or iterable") from None
    if n == 1:
        return [mode_name(modes[0])] * len(axes)
    if n != len(axes):
        raise ValueError("The number of modes must match the number of axes to be transformed.")
    return [mode_name(m) for m in modes]


def one_plan_fits(axes, wavelets, modes):
    """Whether one liblwt plan computes these axes: distinct, at most three, one wavelet
    and one mode for all."""
    return (0 < len(axes) <= MAX_PLAN_AXES and len(set(axes)) == len(axes)
            and len({id(w._handle) for w in wavelets}) == 1 and len(set(modes)) == 1)


def dwt2(data, wavelet, mode="symmetric", axes=(-2, -1)):
    """Single-level 2-D DWT: (cA, (cH, cV, cD))."""
    axes = tuple(axes)
    data = as_array(data)
    if len(axes) != 2:
        raise ValueError("Expected 2 axes")
    if data.ndim < len(np.unique(axes)):
        raise ValueError("Input array has fewer dimensions than the specified axes")
    coefs = dwtn(data, wavelet, mode, axes)
    return coefs["aa"], (coefs["da"], coefs["ad"], coefs["dd"])


def idwt2(coeffs, wavelet, mode="symmetric", axes=(-2, -1)):
    """Single-level 2-D inverse DWT from (cA, (cH, cV, cD))."""
    LL, (HL, LH, HH) = coeffs
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("Expected 2 axes")
    return idwtn({"aa": LL, "da": HL, "ad": LH, "dd": HH}, wavelet, mode, axes)


def dwtn(data, wavelet, mode="symmetric", axes=None):
    """Single-level n-D DWT: a dict of bands keyed 'a'/'d' per transformed axis."""
    if _gpu.is_gpu_array(data):
        return _dwtn_gpu(data, wavelet, mode, axes)
    data = np.asarray(data)
    if data.dtype == np.dtype("object"):
        raise TypeError("Input must be a numeric array-like")
    if data.ndim < 1:
        raise ValueError("Input data must be at least 1D")
    data = as_transform_array(data)
    if axes is None:
        axes = range(data.ndim)
    axes = [a + data.ndim if a < 0 else a for a in axes]
    modes = modes_per_axis(mode, axes)
    wavelets = wavelets_per_axis(wavelet, axes)
    if one_plan_fits(axes, wavelets, modes) and all(0 <= a < data.ndim for a in axes):
        bands = wavedecn_planned(data, wavelets[0], modes[0], tuple(axes), 1)
        return {"a" * len(axes): bands[0], **bands[1]}
    coeffs = [("", data)]
    for axis, wav, m in zip(axes, wavelets, modes):
        if not 0 <= axis < data.ndim:
            raise AxisError("Axis greater than data dimensions")
        new_coeffs = []
        for subband, x in coeffs:
            cA, cD = dwt_axis(x, wav, m, axis)
            new_coeffs.extend([(subband + "a", cA), (subband + "d", cD)])
        coeffs = new_coeffs
    return dict(coeffs)


def _dwtn_gpu(data, wavelet, mode, axes):
    if data.ndim < 1:
        raise ValueError("Input data must be at least 1D")
    axes = [a + data.ndim if a < 0 else a for a in (range(data.ndim) if axes is None else axes)]
    if not all(0 <= a < data.ndim for a in axes):
        raise AxisError("Axis greater than data dimensions")
    modes = modes_per_axis(mode, axes)
    wavelets = wavelets_per_axis(wavelet, axes)
    return _gpu.dwtn(data, wavelets[0], modes[0], tuple(axes), one_plan_fits(axes, wavelets, modes))


def _idwtn_gpu(coeffs, wavelet, mode, axes):
    ndim_transform = max(len(key) for key in coeffs)
    ndim = ndim_transform if axes is None else next(iter(coeffs.values())).ndim
    axes = [a + ndim if a < 0 else a for a in (range(ndim_transform) if axes is None else axes)]
    if not all(0 <= a < ndim for a in axes):
        raise AxisError("Axis greater than data dimensions")
    modes = modes_per_axis(mode, axes)
    wavelets = wavelets_per_axis(wavelet, axes)
    fits = one_plan_fits(axes, wavelets, modes) and ndim_transform == len(axes)
    return _gpu.idwtn(coeffs, wavelets[0], modes[0], tuple(axes), fits)


def fix_coeffs(coeffs):
    """pywt's _fix_coeffs: no None, only 'a'/'d' keys of one length, arrays."""
    missing_keys = [k for k, v in coeffs.items() if v is None]
    if missing_keys:
        raise ValueError(f"The following detail coefficients were set to None:\n{missing_keys}\n"
                         "For multilevel transforms, rather than setting\n\tcoeffs[key] = None\nuse\n"
                         "\tcoeffs[key] = np.zeros_like(coeffs[key])\n")
    invalid_keys = [k for k, v in coeffs.items() if not set(k) <= set("ad")]
    if invalid_keys:
        raise ValueError(f"The following invalid keys were found in the detail coefficient dictionary: "
                         f"{invalid_keys}.")
    if len({len(k) for k in coeffs}) > 1:
        raise ValueError("All detail coefficient names must have equal length.")
    return {k: as_array(v) for k, v in coeffs.items()}


def idwtn(coeffs, wavelet, mode="symmetric", axes=None):
    """Single-level n-D inverse DWT from a dict of bands (missing or None bands: zeros)."""
    coeffs = fix_coeffs({k: v for k, v in coeffs.items() if v is not None})
    if not coeffs:
        raise ValueError("`coeffs` must contain at least one non-null wavelet band")
    if any_gpu_array(coeffs.values()):
        return _idwtn_gpu(coeffs, wavelet, mode, axes)
    coeffs = {k: as_transform_array(v) for k, v in coeffs.items()}
    ndim_transform = max(len(key) for key in coeffs)
    coeff_shape = next(iter(coeffs.values())).shape
    if any(v.shape != coeff_shape for v in coeffs.values()):
        raise ValueError("`coeffs` must all be of equal size (or None)")
    if axes is None:
        axes = range(ndim_transform)
        ndim = ndim_transform
    else:
        ndim = len(coeff_shape)
    axes = [a + ndim if a < 0 else a for a in axes]
    modes = modes_per_axis(mode, axes)
    wavelets = wavelets_per_axis(wavelet, axes)
    if (one_plan_fits(axes, wavelets, modes) and all(0 <= a < ndim for a in axes)
            and ndim_transform == len(axes)):
        rec = idwtn_planned(coeffs, wavelets[0], modes[0], tuple(axes))
        if rec is not None:
            return rec
    for key_length, (axis, wav, m) in reversed(list(enumerate(zip(axes, wavelets, modes)))):
        if axis < 0 or axis >= ndim:
            raise AxisError("Axis greater than data dimensions")
        new_coeffs = {}
        for key in ("".join(c) for c in product("ad", repeat=key_length)):
            L, H = coeffs.get(key + "a"), coeffs.get(key + "d")
            if L is not None and H is not None and L.dtype != H.dtype:
                dt = common_pair_dtype(L, H)
                L, H = L.astype(dt), H.astype(dt)
            if L is None and H is None:
                continue
            new_coeffs[key] = idwt_axis(L, H, wav, m, axis)
        coeffs = new_coeffs
    return coeffs[""]
