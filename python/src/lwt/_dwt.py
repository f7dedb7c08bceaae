"""Single-level 1-D transforms with PyWavelets' signatures and checks (pywt/_dwt.py)."""
from numbers import Number

import numpy as np
from numpy.exceptions import AxisError

from . import _core
from ._dtypes import as_transform_array, common_pair_dtype
from ._gpu import any_gpu_array, is_gpu_array
from ._modes import mode_name
from ._multidim import dwtn, idwtn
from ._transform import coeff_len, dwt_axis, idwt_axis
from ._wavelets import Wavelet, as_wavelet, wavelist

__all__ = ["dwt", "idwt", "dwt_max_level", "dwt_coeff_len"]


def dwt_max_level(data_len, filter_len):
    """Largest useful level for data_len samples: floor(log2(data_len / (filter_len - 1)))."""
    if isinstance(filter_len, Wavelet) or hasattr(filter_len, "dec_len"):
        filter_len = filter_len.dec_len
    elif isinstance(filter_len, str):
        if filter_len not in wavelist(kind="discrete"):
            raise ValueError(f"'{filter_len}', is not a recognized discrete wavelet.  A list of supported "
                             "wavelet names can be obtained via lwt.wavelist(kind='discrete')")
        filter_len = as_wavelet(filter_len).dec_len
    elif not (isinstance(filter_len, Number) and filter_len % 1 == 0):
        raise ValueError("filter_len must be an integer, discrete Wavelet object, or the name of a "
                         "discrete wavelet.")
    if filter_len < 2:
        raise ValueError("invalid wavelet filter length")
    return _core.max_level(int(data_len), int(filter_len))


def dwt_coeff_len(data_len, filter_len, mode):
    """Length of each of cA and cD for data_len samples."""
    if isinstance(filter_len, Wavelet) or hasattr(filter_len, "dec_len"):
        filter_len = filter_len.dec_len
    if data_len < 1:
        raise ValueError("Value of data_len must be greater than zero.")
    if filter_len < 1:
        raise ValueError("Value of filter_len must be greater than zero.")
    return coeff_len(data_len, filter_len, mode_name(mode))


def _axis_of(axis, ndim, what):
    """axis as an index in 0..ndim-1 (negative counts from the end), else pywt's AxisError."""
    if axis < 0:
        axis = axis + ndim
    if not 0 <= axis < ndim:
        raise AxisError(f"Axis greater than {what} dimensions")
    return axis


def dwt(data, wavelet, mode="symmetric", axis=-1):
    """Single-level DWT along one axis: (cA, cD)."""
    if is_gpu_array(data):
        bands = dwtn(data, wavelet, mode, (_axis_of(axis, data.ndim, "data"),))
        return bands["a"], bands["d"]
    data = as_transform_array(data)
    return dwt_axis(data, as_wavelet(wavelet), mode_name(mode), _axis_of(axis, data.ndim, "data"))


def idwt(cA, cD, wavelet, mode="symmetric", axis=-1):
    """Single-level inverse DWT along one axis; cA or cD may be None (zeros)."""
    if cA is None and cD is None:
        raise ValueError("At least one coefficient parameter must be specified.")
    if any_gpu_array((cA, cD)):
        given = cA if cA is not None else cD
        return idwtn({"a": cA, "d": cD}, wavelet, mode, (_axis_of(axis, given.ndim, "coefficient"),))
    if cA is not None:
        cA = as_transform_array(cA)
    if cD is not None:
        cD = as_transform_array(cD)
    if cA is not None and cD is not None:
        dt = common_pair_dtype(cA, cD)
        cA, cD = cA.astype(dt, copy=False), cD.astype(dt, copy=False)
    elif cA is None:
        cA = np.zeros_like(cD)
    else:
        cD = np.zeros_like(cA)
    return idwt_axis(cA, cD, as_wavelet(wavelet), mode_name(mode), _axis_of(axis, cA.ndim, "coefficient"))
