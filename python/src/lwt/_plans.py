"""The plan cache: one liblwt plan per (wavelet, transformed shape, levels, mode, dtype,
batch, backend), shared by every thread; and the two calls that run one on arrays whose
transformed axes come last."""
import math
import threading
from collections import OrderedDict

import numpy as np

from . import _core

__all__ = ["set_backend", "get_backend", "set_threads", "plan_cache_clear"]

_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
# lwt_dtype by NumPy dtype (include/lwt.h); LWT_BF16 = 3 has no NumPy dtype: _core.plan takes
# the code with uint16 arrays holding the bits (tools/half_accuracy.py)
DTYPE_CODES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2}
# Plans hold their workspace and, on the GPU, device buffers: a bounded cache keeps a loop
# over many shapes from holding all of them. LRU of 64: a level-by-level inverse makes one
# plan per level (and per axis where it goes one axis at a time, e.g. 3 x 10 = 30), which
# must stay cached for a repeated call; not tuned by a measurement.
_CACHE_SIZE = 64
_lock = threading.Lock()
_cache = OrderedDict()
_backend = "cpu"


def set_backend(name):
    """Where NumPy arrays are transformed: 'cpu' (default), 'cuda' (copied through the
    GPU) or 'auto' (the GPU when there is one)."""
    global _backend
    if name not in _BACKENDS:
        raise ValueError(f"backend must be one of {sorted(_BACKENDS)}, not {name!r}")
    _backend = name


def get_backend():
    return _backend


def set_threads(threads):
    """CPU threads of every transform (0 = all cores); results are the same bits for any count."""
    _core.set_threads(int(threads))


def plan_cache_clear():
    with _lock:
        _cache.clear()


class Plan:
    """A liblwt plan and its band layout (offsets and shapes in the packed array)."""
    __slots__ = ("handle", "shape", "levels", "packed_shape", "batch", "dtype", "path", "_bands", "_args")

    def __init__(self, wavelet, shape, levels, mode, dtype, batch, backend, device, algorithm):
        self.handle, info = _core.plan(wavelet._handle, tuple(shape), levels, mode, DTYPE_CODES[np.dtype(dtype)],
                                       batch, _BACKENDS[backend], algorithm, device)
        self.path = info["path"]
        self.shape, self.levels = info["shape"], info["levels"]
        self.packed_shape, self.batch, self.dtype = info["packed_shape"], batch, dtype
        self._bands = {}

    def band(self, level, mask):
        """Slices of band (level, mask) in the packed array (level 0: cA, mask 0)."""
        got = self._bands.get((level, mask))
        if got is None:
            offset, shape = _core.band(self.handle, level, mask)
            got = self._bands[(level, mask)] = tuple(slice(o, o + n) for o, n in zip(offset, shape))
        return got


# lwt_algorithm by the CLI's --algorithm names (cli/common.c). AUTO: liblwt's choice per
# wavelet, mode and dtype (lifting where its measured error meets the wavelet's bound, else the
# filter bank; docs/ACCURACY.md), the one rule; CONVOLUTION: the filter bank, asked for only
# for non-finite data (nonfinite_twin below).
_ALGORITHMS = {"auto": 0, "lifting": 1, "convolution": 2, "rc": 3, "lbb": 4}
_ALGO_AUTO, _ALGO_CONVOLUTION = _ALGORITHMS["auto"], _ALGORITHMS["convolution"]
# tools/gen_paths.py and python/tests/test_pkg_exact.py force an algorithm through this (None:
# none forced)
_algorithm_override = None


def get_plan(wavelet, shape, levels, mode, dtype, batch, device=None, algorithm=_ALGO_AUTO):
    """The cached plan; device: None for NumPy arrays (the set_backend choice), else the CUDA
    device of a GPU array (_gpu.py), whose plan runs there."""
    args = (wavelet, tuple(shape), levels, mode, dtype, batch, device)
    backend = _backend if device is None else "cuda"
    device = 0 if device is None else device
    if _algorithm_override is not None:
        algorithm = _algorithm_override
    # the wavelet by its liblwt handle: a user wavelet may share a built-in one's name, and a
    # cached plan keeps its handle alive, so the handle cannot be another's while cached
    key = (wavelet._handle, tuple(shape), levels, mode, dtype.char, batch, backend, device, algorithm)
    with _lock:
        plan = _cache.get(key)
        if plan is not None:
            _cache.move_to_end(key)
            return plan
    plan = Plan(wavelet, shape, levels, mode, dtype, batch, backend, device, algorithm)  # outside the lock: may take a while
    plan._args = args
    with _lock:
        _cache[key] = plan
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return plan


def finite(a):
    """Whether every value of the NumPy array a is finite: one summing pass (a sum is finite
    when every term is, barring overflow, which only sends a finite array to the exact check)."""
    with np.errstate(all="ignore"):
        return bool(np.isfinite(np.add.reduce(a, axis=None))) or bool(np.isfinite(a).all())


def nonfinite_twin(plan, a):
    """plan, or for an array a holding NaN or infinity the same plan on liblwt's filter-bank
    path: there NaN and infinity reach exactly the coefficients (or samples) whose filter
    support covers them, as in PyWavelets; a lifting scheme's steps carry them further
    (docs/PYTHON.md, "NaN and infinity")."""
    if plan.path == "convolution" or finite(a):
        return plan
    return get_plan(*plan._args, algorithm=_ALGO_CONVOLUTION)


def forward_last(x, wavelet, mode, levels, k):
    """Transform the last k axes of the real array x (float32/float64): (packed, plan),
    packed holding x.shape[:-k] + the plan's packed shape."""
    outer = x.shape[:x.ndim - k]
    batch = math.prod(outer)
    x = np.ascontiguousarray(x)
    plan = nonfinite_twin(get_plan(wavelet, x.shape[x.ndim - k:], levels, mode, x.dtype, max(batch, 1)), x)
    packed = np.empty(outer + plan.packed_shape, dtype=x.dtype)
    if batch:
        _core.forward(plan.handle, x, packed)
    return packed, plan


def inverse_last(packed, plan):
    """Inverse of a packed array (outer axes first) into outer + plan.shape."""
    out = np.empty(packed.shape[:packed.ndim - len(plan.shape)] + plan.shape, dtype=packed.dtype)
    packed = np.ascontiguousarray(packed)
    plan = nonfinite_twin(plan, packed)
    if out.size:
        _core.inverse(plan.handle, packed, out)
    return out
