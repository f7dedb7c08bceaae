"""Bad arguments and warnings: every call below must raise the exception type PyWavelets
raises (or a subclass of it), or succeed where PyWavelets succeeds, and warn where it warns.
The expected outcome is PyWavelets' own, computed here, never written down."""
import warnings

import numpy as np

import harness
from pkg_compare import same_outcome

harness.need_pywt()
import pywt  # noqa: E402

import lwt  # noqa: E402

chk = harness.Checker("test_pkg_errors")
x1, x2, x3 = np.ones(16), np.ones((8, 8)), np.ones((4, 6, 8))
c1 = pywt.wavedec(x1, "db2", level=2)
c2 = pywt.wavedec2(x2, "db1", level=2)
cn = pywt.wavedecn(x3, "db1", level=1)

BAD_CALLS = {
    "unknown wavelet": lambda m: m.dwt(x1, "foo"),
    "continuous wavelet": lambda m: m.dwt(x1, "morl"),
    "wavelet of a wrong type": lambda m: m.dwt(x1, 3.5),
    "unknown mode": lambda m: m.dwt(x1, "db2", mode="bogus"),
    "mode code out of range": lambda m: m.dwt(x1, "db2", mode=9),
    "mode of a wrong type": lambda m: m.dwt(x1, "db2", mode=None),
    "axis out of range": lambda m: m.dwt(x1, "db2", axis=2),
    "axis out of range (negative)": lambda m: m.dwt(x2, "db2", axis=-3),
    "empty signal": lambda m: m.dwt(np.ones(0), "db2"),
    "empty transformed axis": lambda m: m.dwt(np.ones((3, 0)), "db2"),
    "reflect on one sample": lambda m: m.dwt(np.ones(1), "db2", mode="reflect"),
    "antireflect on one sample (wavedec level 3)": lambda m: m.wavedec(np.ones(4), "haar", "antireflect", 3),
    "scalar input": lambda m: m.dwt(np.float64(3), "db2"),
    "string input": lambda m: m.dwt(np.array(["a", "b"]), "db1"),
    "idwt without coefficients": lambda m: m.idwt(None, None, "db2"),
    "idwt sizes differ": lambda m: m.idwt(np.ones(3), np.ones(4), "db2"),
    "idwt too short for the filter": lambda m: m.idwt(np.ones(3), np.ones(3), "db8"),
    "idwt axis out of range": lambda m: m.idwt(np.ones(3), np.ones(3), "db2", axis=1),
    "negative level": lambda m: m.wavedec(x1, "db2", level=-1),
    "fractional level": lambda m: m.wavedec(x1, "db2", level=1.5),
    "wavedec axis out of range": lambda m: m.wavedec(x1, "db2", axis=1),
    "waverec of a non-list": lambda m: m.waverec(np.ones(4), "db2"),
    "waverec of an empty list": lambda m: m.waverec([], "db2"),
    "waverec detail of a wrong type": lambda m: m.waverec([c1[0], {"d": c1[1]}], "db2"),
    "waverec shapes mismatch": lambda m: m.waverec([c1[0], c1[1][:-2]], "db2"),
    "dwt2 on 1-D": lambda m: m.dwt2(x1, "db2"),
    "dwt2 with 3 axes": lambda m: m.dwt2(x3, "db2", axes=(0, 1, 2)),
    "wavedec2 on 1-D": lambda m: m.wavedec2(x1, "db2"),
    "wavedec2 repeated axes": lambda m: m.wavedec2(x2, "db2", axes=(0, 0)),
    "wavedec2 axes out of range": lambda m: m.wavedec2(x2, "db2", axes=(0, 2)),
    "waverec2 detail not a 3-tuple": lambda m: m.waverec2([c2[0], c2[1][:2]], "db1"),
    "waverec2 repeated axes": lambda m: m.waverec2(c2, "db1", axes=(1, 1)),
    "waverec2 detail shapes differ": lambda m: m.waverec2([c2[0], (c2[1][0], c2[1][1][:1], c2[1][2])], "db1"),
    "dwtn of a scalar": lambda m: m.dwtn(np.float64(3), "db2"),
    "dwtn of objects": lambda m: m.dwtn(np.array([None, None]), "db2"),
    "dwtn wavelets per axis, wrong count": lambda m: m.dwtn(x3, ["db1", "db2"], axes=(0, 1, 2)),
    "dwtn modes per axis, wrong count": lambda m: m.dwtn(x3, "db1", mode=["zero", "symmetric"], axes=(0, 1, 2)),
    "idwtn all None": lambda m: m.idwtn({"aa": None, "ad": None}, "db1"),
    "idwtn invalid key": lambda m: m.idwtn({"ax": np.ones((2, 2))}, "db1"),
    "idwtn key lengths differ": lambda m: m.idwtn({"a": np.ones((2, 2)), "dd": np.ones((2, 2))}, "db1"),
    "idwtn shapes differ": lambda m: m.idwtn({"aa": np.ones((2, 2)), "dd": np.ones((3, 2))}, "db1"),
    "wavedecn repeated axes": lambda m: m.wavedecn(x3, "db1", axes=(0, 0)),
    "wavedecn no axes": lambda m: m.wavedecn(x3, "db1", axes=()),
    "wavedecn axes out of range": lambda m: m.wavedecn(x3, "db1", axes=(0, 5)),
    "wavedecn of a scalar": lambda m: m.wavedecn(np.float64(1), "db1"),
    "waverecn of an empty list": lambda m: m.waverecn([], "db1"),
    "waverecn detail not a dict": lambda m: m.waverecn([cn[0], np.ones(3)], "db1"),
    "waverecn detail None": lambda m: m.waverecn([cn[0], dict(cn[1], ddd=None)], "db1"),
    "waverecn repeated axes": lambda m: m.waverecn(cn, "db1", axes=(1, 1)),
    "waverecn dimensions differ": lambda m: m.waverecn([np.ones((2, 3)), cn[1]], "db1"),
    "waverecn all None": lambda m: m.waverecn([None, {}], "db1"),
    "dwt_max_level unknown wavelet": lambda m: m.dwt_max_level(100, "foo"),
    "dwt_max_level filter length 1": lambda m: m.dwt_max_level(100, 1),
    "dwt_max_level fractional filter length": lambda m: m.dwt_max_level(100, 2.5),
    "dwtn_max_level repeated axes": lambda m: m.dwtn_max_level((8, 8), "db1", axes=(0, 0)),
    "Modes.from_object unknown": lambda m: m.Modes.from_object("Symmetric"),
    "Wavelet unknown": lambda m: m.Wavelet("foo"),
}


def bad_arguments():
    for name, call in BAD_CALLS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            same_outcome(chk, call, lwt, pywt, name)


def warns(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return sorted({w.category.__name__ for w in seen})


WARNING_CALLS = {
    "level above the maximum": lambda m: m.wavedec(x1, "db2", level=6),
    "wavedecn level above the maximum": lambda m: m.wavedecn(x3, "db2", level=4),
    "deprecated mode name per": lambda m: m.dwt(x1, "db2", mode="per"),
    "deprecated mode name sym": lambda m: m.Modes.from_object("sym"),
    "level at the maximum (no warning)": lambda m: m.wavedec(x1, "db2", level=2),
}


def warnings_as_pywt():
    for name, call in WARNING_CALLS.items():
        ref, got = warns(lambda: call(pywt)), warns(lambda: call(lwt))
        chk.check(got == ref, "%s: pywt warns %s, lwt %s" % (name, ref, got))


def binding_checks():
    """lwt._core checks buffers against the plan before liblwt sees them (liblwt trusts its
    pointers), and reports liblwt's own message for a refused plan."""
    from lwt import _core
    handle, info = _core.plan(lwt.Wavelet("db2")._handle, (16,), 1, "zero", 1, 1, 1, 0)
    ok = np.empty(info["coeff_count"])
    read_only = np.empty(info["coeff_count"])
    read_only.setflags(write=False)
    for name, src, dst in (("short input", np.ones(15), ok), ("short output", np.ones(16), ok[:-1]),
                           ("float32 input", np.ones(16, np.float32), ok), ("read-only output", np.ones(16), read_only),
                           ("strided input", np.ones(32)[::2], ok)):
        try:
            _core.forward(handle, src, dst)
            chk.fail("binding: %s accepted" % name)
        except (ValueError, BufferError, TypeError):
            chk.check(True, name)
    try:
        _core.plan(lwt.Wavelet("db2")._handle, (16,), 300, "zero", 1, 1, 1, 0)
        chk.fail("binding: a plan of 300 levels accepted")
    except ValueError as e:
        chk.check("256" in str(e), "binding: liblwt's message missing from %r" % str(e))


chk.run("bad arguments raise pywt's exceptions", bad_arguments)
chk.run("the binding checks buffers", binding_checks)
chk.run("warnings as pywt", warnings_as_pywt)
chk.finish()
