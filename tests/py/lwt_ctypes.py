"""ctypes binding of include/lwt.h for the Python tests.

The structs below mirror the C structs field by field (size_t -> c_size_t,
int and enums -> c_int, pointers -> c_void_p / c_char_p / POINTER). Keep them
in the same order as the header: a mismatch here silently corrupts every call.

Environment:
  LWT_LIB   path to liblwt.so (required; tests exit 77 without it)

Sanitizer builds: an ASan-instrumented liblwt.so cannot be dlopen()ed into a
plain python unless the ASan runtime is loaded first. load() detects that case
(ldd shows libasan) and re-executes the current script once with LD_PRELOAD
set to that runtime and detect_leaks=0 for the python process (CPython itself
"leaks" at exit; liblwt leaks are the C tests' and the CLI's business). The
original environment is kept for subprocesses: use subprocess_env().
"""
import ctypes as C
import os
import subprocess
import sys

import numpy as np

# ------------------------------------------------------------------ enums
# Pinned values from lwt.h.
LWT_OK = 0
LWT_ERR_INVALID_ARGUMENT = 1
LWT_ERR_UNKNOWN_WAVELET = 2
LWT_ERR_UNKNOWN_MODE = 3
LWT_ERR_UNSUPPORTED = 4
LWT_ERR_OUT_OF_MEMORY = 5
LWT_ERR_BACKEND_UNAVAILABLE = 6
LWT_ERR_DEVICE = 7
LWT_ERR_ACCURACY = 8
LWT_ERR_INTERNAL = 9
LWT_ERR_IO = 10
LWT_ERR_FORMAT = 11
LWT_ERR_CHECKSUM = 12
LWT_ERR_NOT_AREAL = 13
LWT_ERR_NO_DATA = 14
STATUS_NAMES = {0: "LWT_OK", 1: "LWT_ERR_INVALID_ARGUMENT", 2: "LWT_ERR_UNKNOWN_WAVELET",
                3: "LWT_ERR_UNKNOWN_MODE", 4: "LWT_ERR_UNSUPPORTED", 5: "LWT_ERR_OUT_OF_MEMORY",
                6: "LWT_ERR_BACKEND_UNAVAILABLE", 7: "LWT_ERR_DEVICE", 8: "LWT_ERR_ACCURACY",
                9: "LWT_ERR_INTERNAL", 10: "LWT_ERR_IO", 11: "LWT_ERR_FORMAT", 12: "LWT_ERR_CHECKSUM",
                13: "LWT_ERR_NOT_AREAL", 14: "LWT_ERR_NO_DATA"}

LWT_LOG_DEBUG, LWT_LOG_INFO, LWT_LOG_WARNING, LWT_LOG_ERROR = 0, 1, 2, 3

MODES = {  # PyWavelets name -> lwt_mode value (pinned in lwt.h)
    "zero": 0, "constant": 1, "symmetric": 2, "reflect": 3, "periodic": 4,
    "smooth": 5, "antisymmetric": 6, "antireflect": 7, "periodization": 8,
}
LWT_MODE_COUNT = 9

LWT_PATH_LIFTING, LWT_PATH_CONVOLUTION = 0, 1
LWT_F32, LWT_F64 = 0, 1
DTYPES = {"float32": LWT_F32, "float64": LWT_F64}
LWT_BACKEND_AUTO, LWT_BACKEND_CPU, LWT_BACKEND_CUDA = 0, 1, 2
LWT_ALGO_AUTO, LWT_ALGO_LIFTING, LWT_ALGO_CONVOLUTION, LWT_ALGO_LIFTING_RC, LWT_ALGO_LIFTING_LBB = 0, 1, 2, 3, 4
LWT_ALGO_LIFTING_RC_STEPS = 5
LWT_LEVELS_MAX = -1
LWT_MAX_NDIM = 3

size_t = C.c_size_t


# ---------------------------------------------------------------- structs
class WaveletInfo(C.Structure):
    _fields_ = [
        ("name", C.c_char_p),
        ("family", C.c_char_p),
        ("filter_length", C.c_int),
        ("orthogonal", C.c_int),
        ("lifting_steps", C.c_int),
        ("path_f64", C.c_int),
        ("path_f32", C.c_int),
        ("lifting_error_f64", C.c_double),
        ("lifting_error_f32", C.c_double),
    ]


class Laurent(C.Structure):
    _fields_ = [
        ("start", C.c_int),
        ("ntaps", C.c_int),
        ("taps", C.POINTER(C.c_double)),
    ]


class PukScheme(C.Structure):
    _fields_ = [
        ("name", C.c_char_p),
        ("u0", Laurent),
        ("nsteps", C.c_int),
        ("p", C.POINTER(Laurent)),
        ("u", C.POINTER(Laurent)),
        ("K", C.c_double),
    ]


class PlanDesc(C.Structure):
    _fields_ = [
        ("size", size_t),  # sizeof(lwt_plan_desc), set by lwt_plan_desc_default()
        ("wavelet", C.c_void_p),
        ("ndim", C.c_int),
        ("shape", size_t * LWT_MAX_NDIM),
        ("levels", C.c_int),
        ("mode", C.c_int),
        ("dtype", C.c_int),
        ("backend", C.c_int),
        ("device", C.c_int),
        ("algorithm", C.c_int),
        ("batch", size_t),
    ]


class PlanTuning(C.Structure):  # lwt_experimental.h
    _fields_ = [
        ("lbb_threads", C.c_int),
        ("lbb_cols", C.c_int),
        ("lifting", C.c_int),
        ("fuse_levels", C.c_int),
        ("cpu_simd", C.c_int),  # lwt_cpu_simd
        ("cpu_passes", C.c_int),
    ]


class PlanInfo(C.Structure):
    _fields_ = [
        ("ndim", C.c_int),
        ("shape", size_t * LWT_MAX_NDIM),
        ("levels", C.c_int),
        ("max_level", C.c_int),
        ("packed_shape", size_t * LWT_MAX_NDIM),
        ("input_count", size_t),
        ("coeff_count", size_t),
        ("backend", C.c_int),
        ("path", C.c_int),
        ("workspace_bytes", size_t),
    ]


class Band(C.Structure):
    _fields_ = [
        ("offset", size_t * LWT_MAX_NDIM),
        ("shape", size_t * LWT_MAX_NDIM),
    ]


LOGFN = C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.c_char_p)


class LwtError(Exception):
    def __init__(self, func, status, messages=()):
        self.func = func
        self.status = status
        self.messages = list(messages)
        msg = "%s -> %d (%s)" % (func, status, STATUS_NAMES.get(status, "?"))
        if self.messages:
            msg += ": " + " | ".join(self.messages[-3:])
        super().__init__(msg)


# ------------------------------------------------------------ loading
_lib = None
MISSING = []  # lwt.h functions the loaded library does not export
_ORIG_ENV_KEYS = ("LD_PRELOAD", "ASAN_OPTIONS")
_UNSET = "<unset>"


def _sanitizer_runtime(path):
    """Path of the libasan the library links against, or None."""
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return None
    for line in out.splitlines():
        if "libasan" in line and "=>" in line:
            p = line.split("=>", 1)[1].split("(")[0].strip()
            if p and os.path.exists(p):
                return p
    return None


def _runtime_loaded(name):
    try:
        with open("/proc/self/maps") as f:
            return name in f.read()
    except OSError:
        return False


def _maybe_reexec(path):
    asan = _sanitizer_runtime(path)
    if not asan or _runtime_loaded("libasan"):
        return
    if os.environ.get("LWT_PY_REEXEC") == "1":
        return  # already tried; let dlopen report what is wrong
    env = dict(os.environ)
    for k in _ORIG_ENV_KEYS:
        env["LWT_ORIG_" + k] = os.environ.get(k, _UNSET)
    env["LD_PRELOAD"] = asan + ((":" + env["LD_PRELOAD"]) if env.get("LD_PRELOAD") else "")
    opts = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "detect_leaks=0"
    env["LWT_PY_REEXEC"] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    try:  # the exact original command line (works for scripts, -c and -m alike)
        with open("/proc/self/cmdline", "rb") as f:
            argv = [a.decode() for a in f.read().split(b"\0") if a]
    except OSError:
        argv = [sys.executable] + sys.argv
    os.execve(sys.executable, [sys.executable] + argv[1:], env)


def subprocess_env(extra=None):
    """Environment for running the CLI: the one the test was started with."""
    env = dict(os.environ)
    for k in _ORIG_ENV_KEYS:
        orig = env.pop("LWT_ORIG_" + k, None)
        if orig is None:
            continue
        if orig == _UNSET:
            env.pop(k, None)
        else:
            env[k] = orig
    env.pop("LWT_PY_REEXEC", None)
    if extra:
        env.update(extra)
    return env


def lib_path():
    return os.environ.get("LWT_LIB")


def load(path=None):
    """Load liblwt (once) and declare every prototype of lwt.h."""
    global _lib
    if _lib is not None:
        return _lib
    path = path or lib_path()
    if not path:
        raise FileNotFoundError("LWT_LIB is not set")
    if not os.path.exists(path):
        raise FileNotFoundError("LWT_LIB=%s does not exist" % path)
    _maybe_reexec(path)
    L = C.CDLL(os.path.abspath(path))
    st = C.c_int
    vp = C.c_void_p
    pp = C.POINTER(C.c_void_p)

    def proto(name, restype, *argtypes):
        try:
            f = getattr(L, name)
        except AttributeError:
            # Keep going so the tests can report it; calling it raises.
            MISSING.append(name)

            def f(*a, _name=name):
                raise LwtError("%s (symbol missing from %s)" % (_name, path), -1)
            setattr(L, name, f)
            return
        f.restype = restype
        f.argtypes = list(argtypes)

    proto("lwt_version_string", C.c_char_p)
    proto("lwt_status_string", C.c_char_p, C.c_int)
    proto("lwt_context_create", st, pp)
    proto("lwt_context_destroy", None, vp)
    proto("lwt_context_set_log", st, vp, LOGFN, vp)
    proto("lwt_context_set_threads", st, vp, C.c_int)
    proto("lwt_context_device_count", C.c_int, vp)
    proto("lwt_mode_from_name", st, C.c_char_p, C.POINTER(C.c_int))
    proto("lwt_mode_name", C.c_char_p, C.c_int)
    proto("lwt_wavelet_catalog_count", C.c_int)
    proto("lwt_wavelet_catalog_name", C.c_char_p, C.c_int)
    proto("lwt_wavelet_create", st, vp, C.c_char_p, pp)
    proto("lwt_wavelet_destroy", None, vp)
    proto("lwt_wavelet_get_info", st, vp, C.POINTER(WaveletInfo))
    dpp = C.POINTER(C.POINTER(C.c_double))
    proto("lwt_wavelet_filters", st, vp, dpp, dpp, dpp, dpp)
    proto("lwt_wavelet_from_puk", st, vp, C.POINTER(PukScheme), pp)
    proto("lwt_plan_desc_default", PlanDesc)
    proto("lwt_plan_create", st, vp, C.POINTER(PlanDesc), pp)
    proto("lwt_plan_tuning_default", PlanTuning)
    proto("lwt_plan_create_tuned", st, vp, C.POINTER(PlanDesc), C.POINTER(PlanTuning), pp)
    proto("lwt_plan_explain", st, vp, C.c_char_p, size_t, C.POINTER(size_t))
    proto("lwt_plan_destroy", None, vp)
    proto("lwt_max_level", C.c_int, size_t, C.c_int)
    proto("lwt_plan_get_info", st, vp, C.POINTER(PlanInfo))
    proto("lwt_plan_band", st, vp, C.c_int, C.c_uint, C.POINTER(Band))
    proto("lwt_forward", st, vp, vp, vp, vp)
    proto("lwt_inverse", st, vp, vp, vp, vp)
    _lib = L
    return L


def version():
    return load().lwt_version_string().decode()


def status_string(s):
    r = load().lwt_status_string(s)
    return None if r is None else r.decode()


def max_level(n, filter_length):
    return load().lwt_max_level(n, filter_length)


def catalog():
    L = load()
    return [L.lwt_wavelet_catalog_name(i).decode() for i in range(L.lwt_wavelet_catalog_count())]


def mode_from_name(name):
    out = C.c_int(-1)
    s = load().lwt_mode_from_name(name.encode() if name is not None else None, C.byref(out))
    return s, out.value


def mode_name(m):
    r = load().lwt_mode_name(m)
    return None if r is None else r.decode()


# ------------------------------------------------------------ objects
class Context:
    """An lwt_context with a log sink that keeps the messages."""

    def __init__(self, threads=None):
        self.L = load()
        h = C.c_void_p()
        s = self.L.lwt_context_create(C.byref(h))
        if s != LWT_OK:
            raise LwtError("lwt_context_create", s)
        self.h = h
        self.log = []
        self._cb = LOGFN(self._on_log)  # keep alive as long as the context
        s = self.L.lwt_context_set_log(self.h, self._cb, None)
        if s != LWT_OK:
            raise LwtError("lwt_context_set_log", s)
        if threads is not None:
            self.set_threads(threads)
        self._wavelets = {}

    def _on_log(self, user, level, message):
        try:
            self.log.append((level, message.decode(errors="replace") if message else ""))
            if len(self.log) > 200:
                del self.log[:100]
        except Exception:
            pass

    def errors(self):
        return [m for lv, m in self.log]

    def set_threads(self, n):
        s = self.L.lwt_context_set_threads(self.h, n)
        if s != LWT_OK:
            raise LwtError("lwt_context_set_threads", s, self.errors())

    def device_count(self):
        return self.L.lwt_context_device_count(self.h)

    def wavelet(self, name):
        """Cached Wavelet for a name (owned by the context)."""
        w = self._wavelets.get(name)
        if w is None:
            w = Wavelet(self, name)
            self._wavelets[name] = w
        return w

    def close(self):
        if getattr(self, "h", None):
            for w in self._wavelets.values():
                w.close()
            self._wavelets = {}
            self.L.lwt_context_destroy(self.h)
            self.h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def create_wavelet_status(ctx, name):
    """Raw lwt_wavelet_create: (status, handle or None). Caller destroys."""
    h = C.c_void_p()
    s = ctx.L.lwt_wavelet_create(ctx.h, name.encode() if name is not None else None, C.byref(h))
    return s, (h if s == LWT_OK else None)


class Wavelet:
    def __init__(self, ctx, name):
        self.ctx = ctx
        self.name = name
        s, h = create_wavelet_status(ctx, name)
        if s != LWT_OK:
            raise LwtError("lwt_wavelet_create(%r)" % name, s, ctx.errors())
        self.h = h
        self._info = None

    def info(self):
        if self._info is None:
            i = WaveletInfo()
            s = self.ctx.L.lwt_wavelet_get_info(self.h, C.byref(i))
            if s != LWT_OK:
                raise LwtError("lwt_wavelet_get_info", s, self.ctx.errors())
            self._info = {
                "name": i.name.decode() if i.name else None,
                "family": i.family.decode() if i.family else None,
                "filter_length": i.filter_length,
                "orthogonal": i.orthogonal,
                "lifting_steps": i.lifting_steps,
                "path_f64": i.path_f64,
                "path_f32": i.path_f32,
                "lifting_error_f64": i.lifting_error_f64,
                "lifting_error_f32": i.lifting_error_f32,
            }
        return self._info

    def filters(self):
        """(dec_lo, dec_hi, rec_lo, rec_hi) as float64 arrays."""
        ptrs = [C.POINTER(C.c_double)() for _ in range(4)]
        s = self.ctx.L.lwt_wavelet_filters(self.h, *[C.byref(p) for p in ptrs])
        if s != LWT_OK:
            raise LwtError("lwt_wavelet_filters", s, self.ctx.errors())
        n = self.info()["filter_length"]
        return tuple(np.array(p[:n], dtype=np.float64) for p in ptrs)

    def close(self):
        if getattr(self, "h", None):
            self.ctx.L.lwt_wavelet_destroy(self.h)
            self.h = None


def make_desc(wavelet, shape, level, mode, dtype, batch=1, backend=LWT_BACKEND_AUTO,
              algorithm=LWT_ALGO_AUTO, device=0):
    """Fill an lwt_plan_desc starting from lwt_plan_desc_default()."""
    d = load().lwt_plan_desc_default()
    if wavelet is None or isinstance(wavelet, int):
        d.wavelet = wavelet
    elif isinstance(wavelet, C.c_void_p):
        d.wavelet = wavelet.value
    else:  # Wavelet (or anything with a c_void_p handle .h)
        d.wavelet = wavelet.h.value
    shape = tuple(int(s) for s in shape)
    d.ndim = len(shape)
    for k in range(LWT_MAX_NDIM):
        d.shape[k] = shape[k] if k < len(shape) else 0
    d.levels = LWT_LEVELS_MAX if level in (None, "max") else int(level)
    d.mode = MODES[mode] if isinstance(mode, str) else int(mode)
    d.dtype = DTYPES[np.dtype(dtype).name] if not isinstance(dtype, int) else dtype
    d.backend = backend
    d.device = device
    d.algorithm = algorithm
    d.batch = batch
    return d


def plan_explain(h):
    """lwt_plan_explain as a string."""
    L = load()
    need = size_t(0)
    s = L.lwt_plan_explain(h, None, 0, C.byref(need))
    if s != LWT_OK:
        raise LwtError("lwt_plan_explain", s)
    buf = C.create_string_buffer(need.value)
    s = L.lwt_plan_explain(h, buf, need.value, None)
    if s != LWT_OK:
        raise LwtError("lwt_plan_explain", s)
    return buf.value.decode()


def plan_create_status(ctx, desc):
    """Raw lwt_plan_create: (status, handle or None). Caller destroys."""
    h = C.c_void_p()
    s = ctx.L.lwt_plan_create(ctx.h, C.byref(desc), C.byref(h))
    return s, (h if s == LWT_OK else None)


class Plan:
    def __init__(self, ctx, wavelet, shape, level, mode, dtype, batch=1,
                 backend=LWT_BACKEND_AUTO, algorithm=LWT_ALGO_AUTO):
        self.ctx = ctx
        if isinstance(wavelet, str):
            wavelet = ctx.wavelet(wavelet)
        self.wavelet = wavelet
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.batch = batch
        self.desc = make_desc(wavelet, shape, level, mode, self.dtype, batch, backend, algorithm)
        s, h = plan_create_status(ctx, self.desc)
        if s != LWT_OK:
            raise LwtError("lwt_plan_create(%s, shape=%s, level=%s, mode=%s, %s, batch=%d)"
                           % (wavelet.name, self.shape, level, mode, self.dtype.name, batch),
                           s, ctx.errors())
        self.h = h
        i = PlanInfo()
        s = ctx.L.lwt_plan_get_info(self.h, C.byref(i))
        if s != LWT_OK:
            self.close()
            raise LwtError("lwt_plan_get_info", s, ctx.errors())
        nd = i.ndim
        self.info = {
            "ndim": nd,
            "shape": tuple(i.shape[k] for k in range(nd)),
            "levels": i.levels,
            "max_level": i.max_level,
            "packed_shape": tuple(i.packed_shape[k] for k in range(nd)),
            "input_count": i.input_count,
            "coeff_count": i.coeff_count,
            "backend": i.backend,
            "path": i.path,
            "workspace_bytes": i.workspace_bytes,
        }

    def band_status(self, level, mask):
        b = Band()
        s = self.ctx.L.lwt_plan_band(self.h, level, mask, C.byref(b))
        nd = self.info["ndim"]
        return s, tuple(b.offset[k] for k in range(nd)), tuple(b.shape[k] for k in range(nd))

    def band(self, level, mask):
        s, off, shp = self.band_status(level, mask)
        if s != LWT_OK:
            raise LwtError("lwt_plan_band(%d, %d)" % (level, mask), s, self.ctx.errors())
        return off, shp

    def _check_in(self, a, count):
        a = np.ascontiguousarray(a, dtype=self.dtype)
        if a.size != count * self.batch:
            raise ValueError("array has %d values, plan wants %d" % (a.size, count * self.batch))
        return a

    def _out_shape(self, shp):
        return ((self.batch,) + shp) if self.batch > 1 else shp

    def forward(self, x, out=None, workspace=None, fill=np.nan):
        x = self._check_in(x, self.info["input_count"])
        if out is None:
            out = np.full(self._out_shape(self.info["packed_shape"]), fill, dtype=self.dtype)
        ws = None if workspace is None else workspace.ctypes.data
        s = self.ctx.L.lwt_forward(self.h, x.ctypes.data, out.ctypes.data, ws)
        if s != LWT_OK:
            raise LwtError("lwt_forward", s, self.ctx.errors())
        return out

    def inverse(self, c, out=None, workspace=None, fill=np.nan):
        c = self._check_in(c, self.info["coeff_count"])
        if out is None:
            out = np.full(self._out_shape(self.shape), fill, dtype=self.dtype)
        ws = None if workspace is None else workspace.ctypes.data
        s = self.ctx.L.lwt_inverse(self.h, c.ctypes.data, out.ctypes.data, ws)
        if s != LWT_OK:
            raise LwtError("lwt_inverse", s, self.ctx.errors())
        return out

    def close(self):
        if getattr(self, "h", None):
            self.ctx.L.lwt_plan_destroy(self.h)
            self.h = None

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


# ------------------------------------------------------------ helpers
_default_ctx = None


def default_context():
    global _default_ctx
    if _default_ctx is None:
        _default_ctx = Context()
    return _default_ctx


def forward(x, wavelet, mode, level, dtype, ctx=None, batch=1):
    """Packed coefficients (pywt.coeffs_to_array(wavedecn(x))[0]) from liblwt.

    x has shape `shape` (or (batch,) + shape when batch > 1); level an int,
    None or 'max' (LWT_LEVELS_MAX)."""
    ctx = ctx or default_context()
    x = np.asarray(x)
    shape = x.shape[1:] if batch > 1 else x.shape
    with Plan(ctx, wavelet, shape, level, mode, dtype, batch=batch) as p:
        return p.forward(x)


def inverse(packed, wavelet, mode, level, shape, dtype, ctx=None, batch=1):
    """waverecn of packed coefficients, cropped to shape, from liblwt."""
    ctx = ctx or default_context()
    with Plan(ctx, wavelet, shape, level, mode, dtype, batch=batch) as p:
        return p.inverse(packed)
