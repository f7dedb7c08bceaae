"""lwt: PyWavelets' discrete wavelet transforms computed by liblwt (lifting schemes, exact to
PyWavelets), on the CPU and, where the build has CUDA and the machine a GPU, on the GPU.

    import lwt
    coeffs = lwt.wavedec2(image, "db4", mode="symmetric", level=3)   # as pywt.wavedec2
    image2 = lwt.waverec2(coeffs, "db4", mode="symmetric")

    s = lwt.surface.read("part.x3p")                                  # measured surfaces
    r = lwt.surface.filter(s); r["roughness"], r.parameters["roughness"]["Sa"]

See docs/PYTHON.md for what differs from PyWavelets and for surfaces.
"""
from . import _core, surface
from ._dwt import dwt, dwt_coeff_len, dwt_max_level, idwt
from ._modes import Modes
from ._multidim import dwt2, dwtn, idwt2, idwtn
from ._multilevel import dwtn_max_level, wavedec, wavedec2, wavedecn, waverec, waverec2, waverecn
from ._dtypes import set_float16_storage
from ._plans import get_backend, plan_cache_clear, set_backend, set_threads
from ._wavelets import Wavelet, families, wavelist

__version__ = _core.version
__all__ = ["dwt", "idwt", "dwt2", "idwt2", "dwtn", "idwtn", "wavedec", "waverec", "wavedec2", "waverec2",
           "wavedecn", "waverecn", "dwt_max_level", "dwtn_max_level", "dwt_coeff_len", "Modes", "Wavelet",
           "wavelist", "families", "set_backend", "get_backend", "set_threads", "plan_cache_clear", "set_float16_storage", "surface"]
