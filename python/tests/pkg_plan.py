"""One liblwt plan through the lwt package's extension module (lwt._core), for the tests that
check what PyWavelets' calls do not show: the packed array (coeffs_to_array's layout), the
plan's info and bands, a forced algorithm, a batch, and output buffers pre-filled with NaN so
that a value the library does not write shows as an error. The extension is compiled against
lwt.h, so nothing here mirrors a C struct."""
import functools

import numpy as np

import lwt
from lwt import _core
from lwt._plans import _ALGORITHMS as ALGORITHMS  # lwt_algorithm by the CLI's --algorithm names

# LWT_LEVELS_MAX; LWT_BACKEND_AUTO
LEVELS_MAX = -1
BACKEND_AUTO = 0
# the messages lwt._binding attaches to a refused plan (lwt_status_string)
ACCURACY = "accuracy bound not met"
UNSUPPORTED = "unsupported"


@functools.lru_cache(maxsize=None)
def wavelet(name):
    """lwt.Wavelet of a name (aliases resolve to the catalog's wavelet)."""
    return lwt.Wavelet(name)


@functools.lru_cache(maxsize=None)
def wavelet_info(name):
    """lwt_wavelet_info of a name as _core gives it: name, family, filter_length, orthogonal,
    lifting_steps, path_f64/path_f32 ('lifting' or 'convolution'), lifting_error_f64/_f32 and
    the four filters."""
    return _core.wavelet(name)[1]


class Plan:
    """A plan for `shape` (level None: the maximum), run on NumPy arrays of `dtype`; forward and
    inverse return new arrays of (batch,) + shape when batch > 1."""

    def __init__(self, w, shape, level, mode, dtype, batch=1, algorithm="auto"):
        wv = w if isinstance(w, lwt.Wavelet) else wavelet(w)
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.batch = batch
        levels = LEVELS_MAX if level is None else int(level)
        self.handle, self.info = _core.plan(wv._handle, self.shape, levels, mode, int(self.dtype == np.float64),
                                            batch, BACKEND_AUTO, ALGORITHMS[algorithm])
        self.info["ndim"] = len(self.shape)

    def band(self, level, mask):
        """(offset, shape) of band (level, mask) in the packed array; ValueError if refused."""
        return _core.band(self.handle, level, mask)

    def _run(self, fn, a, count_shape, out):
        a = np.ascontiguousarray(a, dtype=self.dtype)
        if out is None:
            out = np.full(((self.batch,) if self.batch > 1 else ()) + count_shape, np.nan, dtype=self.dtype)
        fn(self.handle, a, out)
        return out

    def forward(self, x, out=None):
        return self._run(_core.forward, x, tuple(self.info["packed_shape"]), out)

    def inverse(self, c, out=None):
        return self._run(_core.inverse, c, self.shape, out)

    # the ported tests open plans in `with` blocks; the capsule frees the plan when dropped
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle = None


def refusal(w, shape, level, mode, dtype, **kw):
    """None when the plan is made, else the exception that refused it."""
    try:
        Plan(w, shape, level, mode, dtype, **kw)
    except (ValueError, RuntimeError, NotImplementedError) as e:
        return e
    return None

