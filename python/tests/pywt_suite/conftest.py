"""Routes PyWavelets' transform calls to lwt for PyWavelets' own test files (copied next to
this file by run_pywt_suite.py): pywt.<name> becomes a wrapper that calls lwt.<name> and
counts the call. Everything else (Wavelet, Modes, coeffs_to_array, the data) stays
PyWavelets', as a user who swaps the transform calls would have it."""
import collections

import lwt
import pywt

ROUTED = ["dwt", "idwt", "dwt2", "idwt2", "dwtn", "idwtn", "wavedec", "waverec", "wavedec2", "waverec2",
          "wavedecn", "waverecn", "dwt_max_level", "dwtn_max_level", "dwt_coeff_len"]
calls = collections.Counter()
# Over 100,000 small transforms: one thread each (see python/tests/test_pkg_pywt.py: OpenMP's
# spin-waiting made a tiny call 35x slower on all threads of a loaded 2-core machine).
lwt.set_threads(1)


def _route(name):
    ours = getattr(lwt, name)

    def routed(*args, **kwargs):
        calls[name] += 1
        return ours(*args, **kwargs)

    routed.__name__ = name
    routed.__doc__ = ours.__doc__
    return routed


for _name in ROUTED:
    setattr(pywt, _name, _route(_name))


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: PyWavelets' mark for its long tests")


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("lwt served %d calls: %s" % (sum(calls.values()), dict(sorted(calls.items()))))
