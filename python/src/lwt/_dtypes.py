"""PyWavelets' dtype rules: which dtype a transform computes in and returns."""
import numpy as np

KEPT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))


def check_dtype(data):
    """pywt's _check_dtype: float16 -> float32, complex256 -> complex128, the rest
    (integers, bool, long double, objects) -> float64."""
    dt = getattr(data, "dtype", None)
    if dt is None:
        return np.dtype(np.float64)
    if dt in KEPT_DTYPES:
        return dt
    if dt == np.float16:
        return np.dtype(np.float32)
    if dt.kind == "c":
        return np.dtype(np.complex128)
    return np.dtype(np.float64)


def as_transform_array(data):
    """data as the C-ordered array pywt transforms (after its dtype rule)."""
    return np.asarray(data, dtype=check_dtype(data), order="C")


def common_pair_dtype(a, b):
    """The dtype pywt's idwt/idwtn give a pair of coefficient arrays of different dtypes."""
    if a.dtype == b.dtype:
        return a.dtype
    return np.dtype(np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64)
