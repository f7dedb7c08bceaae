"""GPU arrays: CuPy arrays and PyTorch CUDA tensors, transformed on their own device and on the
caller's current stream through liblwt's device-pointer calls (lwt_cuda.h), and returned as the
same kind of array. No host copy: the array library allocates the packed coefficients, the
workspace and the results on the device (its allocator is stream-ordered, so the buffers live
as long as the work queued on the stream needs them), and liblwt only queues kernels.

What a GPU array gets: the multi-level transforms (wavedec, wavedec2, wavedecn and their
inverses) and the single-level ones (dwt, dwt2, dwtn and their inverses, where a missing band is
zeros on the device, as PyWavelets takes it) over up to three distinct axes with one wavelet and
one mode, float32 and float64 (integer and bool input is cast to float64, float16 to float32, as
PyWavelets does). A multi-level inverse runs as one plan when it has every band in the shapes a
forward of its output shape makes, else level by level through the single-level inverse as
PyWavelets does (missing bands, longer approximations cropped), still on the device. Anything
else raises TypeError or ValueError naming what is not supported, rather than copying to the
host behind the caller's back."""
import math

import numpy as np

from . import _core
from ._plans import get_plan
from ._transform import band_keys, check_lengths

__all__ = ["is_gpu_array", "any_gpu_array"]


def is_gpu_array(x):
    """Whether x is a CUDA array (it exposes __cuda_array_interface__: CuPy, PyTorch CUDA
    tensors, Numba device arrays)."""
    return hasattr(x, "__cuda_array_interface__")


def any_gpu_array(arrays):
    """Whether one of arrays (None allowed) is a GPU array; a mix of GPU and host arrays is a
    TypeError (it would need a copy one way or the other)."""
    given = [a for a in arrays if a is not None]
    gpu = [is_gpu_array(a) for a in given]
    if any(gpu) and not all(gpu):
        raise TypeError("GPU and host arrays mixed in one call: move them to one side first")
    return any(gpu)


def as_array(x):
    """x itself when it is a GPU array, else np.asarray(x): the entry points keep GPU arrays on
    their device."""
    return x if is_gpu_array(x) else np.asarray(x)


class _Torch:
    """PyTorch's side of what a transform needs."""

    def __init__(self, x):
        import torch
        self.lib, self.device = torch, x.device
        self._dtypes = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}

    def np_dtype(self, x):
        t = self.lib
        if x.dtype in (t.float32, t.float64):
            return np.dtype(np.float32 if x.dtype == t.float32 else np.float64)
        if x.dtype.is_complex:
            raise TypeError("complex GPU arrays are not supported: transform .real and .imag")
        return np.dtype(np.float32 if x.dtype in (t.float16, t.bfloat16) else np.float64)

    def cast(self, x, dt):
        return x.to(self._dtypes[dt]).contiguous()

    def empty(self, shape, dt):
        return self.lib.empty(shape, dtype=self._dtypes[dt], device=self.device)

    def zeros(self, shape, dt):
        return self.lib.zeros(shape, dtype=self._dtypes[dt], device=self.device)

    def workspace(self, nbytes):
        return self.lib.empty(max(nbytes, 1), dtype=self.lib.uint8, device=self.device)

    def moveaxis(self, x, src, dst):
        return self.lib.movedim(x, src, dst)

    def contiguous(self, x):
        return x.contiguous()

    def ptr(self, x):
        return x.data_ptr()

    def device_index(self):
        return self.device.index if self.device.index is not None else self.lib.cuda.current_device()

    def stream(self):
        return self.lib.cuda.current_stream(self.device).cuda_stream


class _CuPy:
    """CuPy's side of what a transform needs."""

    def __init__(self, x):
        import cupy
        self.lib, self.device = cupy, x.device

    def np_dtype(self, x):
        if x.dtype.kind == "c":
            raise TypeError("complex GPU arrays are not supported: transform .real and .imag")
        if x.dtype in (np.float32, np.float64):
            return np.dtype(x.dtype)
        return np.dtype(np.float32 if x.dtype == np.float16 else np.float64)

    def cast(self, x, dt):
        return self.lib.ascontiguousarray(x, dtype=dt)

    def empty(self, shape, dt):
        with self.device:
            return self.lib.empty(shape, dtype=dt)

    def zeros(self, shape, dt):
        with self.device:
            return self.lib.zeros(shape, dtype=dt)

    def workspace(self, nbytes):
        with self.device:
            return self.lib.empty(max(nbytes, 1), dtype=np.uint8)

    def moveaxis(self, x, src, dst):
        return self.lib.moveaxis(x, src, dst)

    def contiguous(self, x):
        return self.lib.ascontiguousarray(x)

    def ptr(self, x):
        return x.data.ptr

    def device_index(self):
        return self.device.id

    def stream(self):
        return self.lib.cuda.get_current_stream().ptr


def _library(x):
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return _Torch(x)
    if mod == "cupy":
        return _CuPy(x)
    raise TypeError(f"GPU arrays of {type(x).__module__}.{type(x).__name__} are not supported "
                    "(CuPy arrays and PyTorch CUDA tensors are)")


def _check_cuda_build():
    if not hasattr(_core, "forward_device"):
        raise RuntimeError("this lwt was built without CUDA: GPU arrays need a CUDA build "
                           "(docs/PYTHON.md, 'GPU arrays')")


def _run(xp, plan, forward, src, dst):
    ws = xp.workspace(_core.device_workspace_size(plan.handle))
    (_core.forward_device if forward else _core.inverse_device)(plan.handle, xp.ptr(src), xp.ptr(dst), xp.ptr(ws),
                                                                 xp.stream())


def _one_plan_only(one_plan, what):
    if not one_plan:
        raise TypeError(f"{what} on GPU arrays: per-axis wavelets or modes, repeated axes and more than three "
                        "axes are NumPy-only")


def wavedecn(x, wavelet, mode, axes, level, one_plan):
    """[cA_J, {details J}, ..., {details 1}] of GPU array x over distinct axes (at most three),
    the same kind of array as x, each band contiguous (a band that is a contiguous slice of the
    packed coefficients is a view of them, the others copies)."""
    _check_cuda_build()
    _one_plan_only(one_plan and level >= 1, "wavedecn")
    xp = _library(x)
    dt = xp.np_dtype(x)
    axes = tuple(a + x.ndim if a < 0 else a for a in axes)
    check_lengths([x.shape[a] for a in axes], wavelet.dec_len, mode, level)
    k = len(axes)
    last = tuple(range(x.ndim - k, x.ndim))
    moved = xp.cast(xp.moveaxis(x, axes, last), dt)
    outer = tuple(moved.shape[:x.ndim - k])
    batch = math.prod(outer)
    plan = get_plan(wavelet, moved.shape[x.ndim - k:], level, mode, dt, max(batch, 1), xp.device_index())
    packed = xp.empty(outer + plan.packed_shape, dt)
    if batch:
        _run(xp, plan, True, moved, packed)
    lead = (slice(None),) * len(outer)

    def band(lvl, mask):
        return xp.contiguous(xp.moveaxis(packed[lead + plan.band(lvl, mask)], last, axes))

    keys = band_keys(k)[1:]
    return [band(0, 0)] + [{key: band(lvl, mask) for key, mask in keys} for lvl in range(1, level + 1)]


def waverecn(a, ds, wavelet, mode, axes, one_plan):
    """The inverse of every level from cA_J and the detail dicts (coarsest first) on GPU arrays
    in one plan; None where one plan does not take them (a band missing, or shapes other than
    a forward of the output shape makes: PyWavelets' cropping), for the caller to go level by
    level through the single-level inverse, still on the device."""
    _check_cuda_build()
    _one_plan_only(one_plan, "waverecn")
    xp = _library(a)
    k = len(axes)
    keys = band_keys(k)[1:]
    if any(set(d) != {key for key, _ in keys} for d in ds) or any(v is None for d in ds for v in d.values()):
        return None
    dt = xp.np_dtype(a)
    axes = tuple(ax % a.ndim for ax in axes)
    last = tuple(range(a.ndim - k, a.ndim))
    finest = xp.moveaxis(ds[-1][keys[0][0]], axes, last)
    tshape = tuple(2 * n if mode == "periodization" else 2 * n - wavelet.dec_len + 2
                   for n in finest.shape[a.ndim - k:])
    if min(tshape) < 1:
        raise ValueError("Invalid coefficient arrays length for specified wavelet. Wavelet and mode must be the "
                         "same as used for decomposition.")
    outer = tuple(finest.shape[:a.ndim - k])
    plan = get_plan(wavelet, tshape, len(ds), mode, dt, max(math.prod(outer), 1), xp.device_index())
    lead = (slice(None),) * len(outer)
    bands = [(0, 0, a)] + [(level, mask, d[key]) for level, d in enumerate(ds, 1) for key, mask in keys]
    moved = [(lead + plan.band(level, mask), xp.moveaxis(v, axes, last)) for level, mask, v in bands]
    shape_of = [tuple(len(range(*s.indices(n))) for s, n in zip(w, outer + plan.packed_shape)) for w, _ in moved]
    if any(want != tuple(v.shape) for want, (_, v) in zip(shape_of, moved)):
        return None
    packed = xp.zeros(outer + plan.packed_shape, dt)  # zeros: the packed layout's gaps
    for where, v in moved:
        packed[where] = v  # the array library converts the dtype
    out = xp.empty(outer + tshape, dt)
    if math.prod(outer):
        _run(xp, plan, False, packed, out)
    return xp.contiguous(xp.moveaxis(out, last, axes))


def dwtn(x, wavelet, mode, axes, one_plan):
    """dwtn's dict of bands of GPU array x (one level, axes distinct and in range)."""
    bands = wavedecn(x, wavelet, mode, axes, 1, one_plan)
    return {"a" * len(axes): bands[0], **bands[1]}


def idwtn(coeffs, wavelet, mode, axes, one_plan):
    """idwtn on a dict of GPU arrays of one shape over len(axes) axes; a missing band is zeros
    on the device, as PyWavelets takes a missing or None band."""
    given = [v for v in coeffs.values() if v is not None]
    xp = _library(given[0])
    shape = tuple(given[0].shape)
    if any(tuple(v.shape) != shape for v in given):
        raise ValueError("`coeffs` must all be of equal size (or None)")
    dt = np.result_type(*(xp.np_dtype(v) for v in given))
    k = len(axes)
    full = {key: coeffs.get(key) if coeffs.get(key) is not None else xp.zeros(shape, dt) for key, _ in band_keys(k)}
    approx = "a" * k
    return waverecn(full[approx], [{key: v for key, v in full.items() if key != approx}], wavelet, mode, axes,
                    one_plan)
