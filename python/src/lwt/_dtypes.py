"""PyWavelets' dtype rules: which dtype a transform computes in and returns."""
import numpy as np

KEPT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))
F16 = np.dtype(np.float16)
# set_float16_storage: float16 arrays kept as float16 (liblwt's 16-bit plans), not pywt's float32
_keep_f16 = [False]


def set_float16_storage(on):
    """float16 input: False (default, PyWavelets' rule) computes and returns float32; True
    keeps float16: the input widened exactly to float32, transformed in float32 and each result
    rounded once to float16 (round to nearest even; liblwt's LWT_F16 plans, docs/API.md,
    "16-bit storage"), returned as float16 arrays. Process-wide, like set_backend."""
    _keep_f16[0] = bool(on)


def kept(dt):
    """Whether arrays of dtype dt are transformed and returned in dt."""
    return dt in KEPT_DTYPES or (dt == F16 and _keep_f16[0])


def check_dtype(data):
    """pywt's _check_dtype: float16 -> float32 (kept under set_float16_storage(True)),
    complex256 -> complex128, the rest (integers, bool, long double, objects) -> float64."""
    dt = getattr(data, "dtype", None)
    if dt is None:
        return np.dtype(np.float64)
    if kept(dt):
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
