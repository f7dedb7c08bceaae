"""Discrete wavelets: liblwt's built-in catalog (PyWavelets' names and filter banks)."""
import functools
import threading
from collections.abc import Iterable

import numpy as np

from . import _core

__all__ = ["Wavelet", "wavelist", "families"]

_FAMILY_NAMES = {"haar": "Haar", "db": "Daubechies", "sym": "Symlets", "coif": "Coiflets",
                 "bior": "Biorthogonal", "rbio": "Reverse biorthogonal",
                 "dmey": "Discrete Meyer (FIR Approximation)", "user": ""}
# pywt's continuous families: asking a discrete transform for one is pywt's ValueError.
_CONTINUOUS_PREFIXES = ("cgau", "cmor", "fbsp", "gaus", "mexh", "morl", "shan")
_CONTINUOUS_MESSAGE = ("A ContinuousWavelet object was provided, but only discrete Wavelet objects "
                       "are supported by this function.  A list of all supported discrete wavelets "
                       "can be obtained by running:\nprint(lwt.wavelist(kind='discrete'))")


class WaveletTypeError(TypeError, AttributeError):
    """A wavelet that is neither a name nor a Wavelet: a TypeError, and an AttributeError
    because that is what PyWavelets raises for it (it calls name.lower())."""


@functools.lru_cache(maxsize=None)
def _load(name):
    """(core handle, info dict) of a built-in wavelet, made once per process."""
    try:
        return _core.wavelet(name)
    except ValueError:
        if name.startswith(_CONTINUOUS_PREFIXES):
            raise ValueError(_CONTINUOUS_MESSAGE) from None
        raise ValueError(f"Unknown wavelet name '{name}', check wavelist() for the list of "
                         "available builtin wavelets.") from None


class Wavelet:
    """A discrete wavelet of liblwt's catalog, with PyWavelets' attributes.

    Wavelet(name) takes a PyWavelets name (or an lwt alias such as 'cdf97').
    Wavelet(name, filter_bank=fb) takes a filter bank (dec_lo, dec_hi, rec_lo, rec_hi);
    liblwt has no public call that builds a wavelet from arbitrary filters, so the bank
    must be one of the catalog's (it is then that wavelet); any other raises
    NotImplementedError.
    """

    def __init__(self, name="", filter_bank=None):
        if filter_bank is not None:
            name = _catalog_name_of_bank(filter_bank)
        elif not isinstance(name, str):
            raise TypeError("Wavelet name must be a string")
        self._take(*_load(name))

    @classmethod
    def from_lifting(cls, name, predicts, updates, K, u0=(0, ())):
        """A wavelet from a lifting scheme in seed 000's P/U/K form (lwt_puk_scheme in lwt.h):
        s[n] -= sum u0 taps * d[n + start + i], then per step d[n] -= sum p taps * s[...] and
        s[n] -= sum u taps * d[...], then a = s / K, d = K * d. Operators are (start, taps);
        predicts and updates one per step. Its filter bank is derived from the scheme and it is
        transformed as PyWavelets would transform that filter bank."""
        self = cls.__new__(cls)
        as_op = lambda op: (int(op[0]), [float(t) for t in op[1]])  # noqa: E731
        self._take(*_core.wavelet_from_puk(str(name), as_op(u0), [as_op(p) for p in predicts],
                                           [as_op(u) for u in updates], float(K)))
        return self

    def _take(self, handle, info):
        self._handle = handle
        self.name = info["name"]
        self.short_family_name = info["family"]
        self.family_name = _FAMILY_NAMES.get(info["family"], info["family"])
        self.orthogonal = bool(info["orthogonal"])
        self.biorthogonal = True  # every filter bank of the catalog reconstructs perfectly
        self.dec_lo, self.dec_hi = list(info["dec_lo"]), list(info["dec_hi"])
        self.rec_lo, self.rec_hi = list(info["rec_lo"]), list(info["rec_hi"])
        self.dec_len = self.rec_len = info["filter_length"]
        self.path_f64, self.path_f32 = info["path_f64"], info["path_f32"]
        # per mode: liblwt's choice for this wavelet's plans (lwt_wavelet_path; docs/ACCURACY.md)
        self.mode_paths_f64, self.mode_paths_f32 = info["mode_paths_f64"], info["mode_paths_f32"]

    @property
    def filter_bank(self):
        return (self.dec_lo, self.dec_hi, self.rec_lo, self.rec_hi)

    @property
    def inverse_filter_bank(self):
        return (self.rec_lo[::-1], self.rec_hi[::-1], self.dec_lo[::-1], self.dec_hi[::-1])

    def __eq__(self, other):
        return isinstance(other, Wavelet) and other._handle is self._handle

    def __hash__(self):
        return id(self._handle)

    def __repr__(self):
        return (f"Wavelet {self.name}\n  Family name:    {self.family_name}\n"
                f"  Short name:     {self.short_family_name}\n  Filters length: {self.dec_len}\n"
                f"  Orthogonal:     {self.orthogonal}\n  Computed by:    {self.path_f64} (float64), "
                f"{self.path_f32} (float32){_mode_exceptions(self.mode_paths_f64, self.path_f64, 'float64')}"
                f"{_mode_exceptions(self.mode_paths_f32, self.path_f32, 'float32')}")


def wavelist(family=None, kind="discrete"):
    """Names of the built-in wavelets (all discrete), optionally of one short family."""
    if kind not in ("all", "discrete", "continuous"):
        raise ValueError(f"Unrecognized value for `kind`: {kind}")
    if kind == "continuous":
        return []
    names = list(_core.catalog())
    if family is not None:
        names = [n for n in names if _load(n)[1]["family"] == family]
    return names


def families(short=True):
    found = []
    for n in _core.catalog():
        fam = _load(n)[1]["family"]
        if fam not in found:
            found.append(fam)
    return found if short else [_FAMILY_NAMES[f] for f in found]


_bank_lock = threading.Lock()
_names_by_length = {}


def _mode_exceptions(mode_paths, path, dtype):
    """'; convolution in smooth (float64)' for the modes whose path is not the wavelet's."""
    other = [m for m, p in mode_paths.items() if p != path]
    return f"; {mode_paths[other[0]]} in {', '.join(other)} ({dtype})" if other else ""


def _catalog_name_of_bank(filter_bank):
    """The catalog wavelet whose four filters equal filter_bank (to 1e-14 of the largest
    tap: PyWavelets' tables and liblwt's are the same numbers, printed to ~17 digits)."""
    bank = [np.asarray(f, dtype=np.float64) for f in filter_bank]
    if len(bank) != 4 or len({f.shape for f in bank}) != 1 or bank[0].ndim != 1:
        raise ValueError("filter_bank must hold four 1-D filters of the same length")
    n = bank[0].size
    with _bank_lock:
        if not _names_by_length:
            for name in _core.catalog():
                _names_by_length.setdefault(_load(name)[1]["filter_length"], []).append(name)
    for name in _names_by_length.get(n, ()):
        info = _load(name)[1]
        ref = [np.asarray(info[k]) for k in ("dec_lo", "dec_hi", "rec_lo", "rec_hi")]
        scale = max(abs(r).max() for r in ref)
        if all(np.abs(b - r).max() <= 1e-14 * scale for b, r in zip(bank, ref)):
            return name
    raise NotImplementedError(
        "lwt computes only the wavelets of its catalog: this filter bank is none of them, and "
        "liblwt has no public call that builds a wavelet from arbitrary filters "
        "(lwt_wavelet_from_puk takes a lifting scheme)")


def as_wavelet(wavelet):
    """A Wavelet from a name, an lwt.Wavelet or any object with PyWavelets' Wavelet
    attributes (pywt.Wavelet: matched to the catalog by its filter bank)."""
    if isinstance(wavelet, Wavelet):
        return wavelet
    if isinstance(wavelet, str):
        return _wavelet_by_name(wavelet)
    if hasattr(wavelet, "filter_bank"):
        if type(wavelet).__name__ == "ContinuousWavelet":
            raise ValueError(_CONTINUOUS_MESSAGE)
        return _wavelet_of_bank(tuple(tuple(float(t) for t in f) for f in wavelet.filter_bank))
    if type(wavelet).__name__ == "ContinuousWavelet":
        raise ValueError(_CONTINUOUS_MESSAGE)
    raise WaveletTypeError(f"Expected a wavelet name or a Wavelet object, got {type(wavelet).__name__}")


@functools.lru_cache(maxsize=256)
def _wavelet_of_bank(bank):
    """The catalog Wavelet of a filter bank given as tuples: a pywt.Wavelet passed on every
    call is matched once (matching compares every catalog filter of that length)."""
    return Wavelet(filter_bank=bank)


@functools.lru_cache(maxsize=None)
def _wavelet_by_name(name):
    return Wavelet(name)


def _is_single_wavelet(wavelet):
    return isinstance(wavelet, (str, Wavelet)) or hasattr(wavelet, "filter_bank")


def wavelets_per_axis(wavelet, axes):
    """One Wavelet per transformed axis, as pywt's _wavelets_per_axis."""
    axes = tuple(axes)
    if _is_single_wavelet(wavelet):
        return [as_wavelet(wavelet)] * len(axes)
    if isinstance(wavelet, Iterable):
        if len(wavelet) == 1:
            return [as_wavelet(wavelet[0])] * len(axes)
        if len(wavelet) != len(axes):
            raise ValueError("The number of wavelets must match the number of axes to be transformed.")
        return [as_wavelet(w) for w in wavelet]
    raise ValueError("wavelet must be a str, Wavelet or iterable")
