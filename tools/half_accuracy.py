"""float16 and bfloat16 plans against PyWavelets in float64, per wavelet (docs/ACCURACY.md,
"float16 and bfloat16").

For every discrete wavelet: a standard-normal 2-D array (seeded), rounded to the 16-bit type, is
transformed by liblwt's 16-bit plan (level 3, modes symmetric and periodization) and by
PyWavelets in float64 on the same values; then the 16-bit coefficients are inverted by liblwt and
by PyWavelets in float64. Error as everywhere in docs/ACCURACY.md:
    err(a, b; in) = max|a - b| / max(max|b|, max|in|)
and beside it the floor no 16-bit result can beat: the float64 reference itself rounded to the
16-bit type, against the reference. Max over the two modes.

    PYTHONPATH=build/python python3 tools/half_accuracy.py           # print the table
    PYTHONPATH=build/python python3 tools/half_accuracy.py --write   # and put it into docs/ACCURACY.md
"""
import os
import sys
import warnings

import numpy as np
import pywt

import lwt
from lwt import _core

SHAPE, LEVEL, MODES, SEED = (96, 80), 3, ("symmetric", "periodization"), 20261127
CODES = {"float16": 2, "bfloat16": 3}  # lwt_dtype (include/lwt.h)
BEGIN, END = "<!-- half_accuracy.py: begin -->", "<!-- half_accuracy.py: end -->"


def to16(x, kind):
    """float64 values -> 16-bit bits, rounded once to nearest even: NumPy's astype for float16;
    for bfloat16 (8 significant bits; no subnormals or overflow in this data) np.rint on the
    significand, the result then exact in float32, whose high half it is."""
    x = np.asarray(x, np.float64)
    if kind == "float16":
        return x.astype(np.float16).view(np.uint16)
    m, e = np.frexp(x)
    q = np.ldexp(np.rint(np.ldexp(m, 8)), e - 8).astype(np.float32)
    return (q.view(np.uint32) >> 16).astype(np.uint16)


def widen(b, kind):
    if kind == "float16":
        return b.view(np.float16).astype(np.float64)
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def err(a, b, inp):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), np.max(np.abs(inp)), 1e-300))


def rms(a, b):
    return float(np.sqrt(np.mean((a - b) ** 2)))


def one(wname, mode, kind, x64):
    w = lwt.Wavelet(wname)
    h, info = _core.plan(w._handle, SHAPE, LEVEL, mode, CODES[kind], 1, 1, 0)
    x16 = to16(x64, kind)
    xw = widen(x16, kind).reshape(SHAPE)
    c16 = np.empty(info["packed_shape"], np.uint16)
    _core.forward(h, x16, c16)
    cref, slices = pywt.coeffs_to_array(pywt.wavedecn(xw, wname, mode=mode, level=LEVEL))
    cw = widen(c16, kind)
    fwd, fwd_floor = err(cw, cref, xw), err(widen(to16(cref, kind), kind), cref, xw)
    fwd_rms = rms(cw, cref) / rms(widen(to16(cref, kind), kind), cref)
    y16 = np.empty(SHAPE, np.uint16)
    _core.inverse(h, c16, y16)
    yref = pywt.waverecn(pywt.array_to_coeffs(cw, slices, output_format="wavedecn"), wname, mode=mode)
    yref = yref[tuple(slice(0, n) for n in SHAPE)]
    inv, inv_floor = err(widen(y16, kind), yref, cw), err(widen(to16(yref, kind), kind), yref, cw)
    inv_rms = rms(widen(y16, kind), yref) / rms(widen(to16(yref, kind), kind), yref)
    return fwd, fwd_floor, inv, inv_floor, fwd_rms, inv_rms


def table():
    x64 = np.random.default_rng(SEED).standard_normal(SHAPE)
    names = pywt.wavelist(kind="discrete")
    rows, worst, ratios = [], {k: [0.0] * 6 for k in CODES}, {k: 0.0 for k in CODES}
    for wname in names:
        cells = []
        for kind in CODES:
            m = [max(v) for v in zip(*(one(wname, mode, kind, x64) for mode in MODES))]
            worst[kind] = [max(a, b) for a, b in zip(worst[kind], m)]
            ratio = max(m[0] / m[1], m[2] / m[3])
            ratios[kind] = max(ratios[kind], ratio)
            cells += ["%.1e" % m[0], "%.1e" % m[2], "%.2f" % ratio, "%.3f / %.3f" % (m[4], m[5])]
        rows.append("| %s | %s |" % (wname, " | ".join(cells)))
    head = ["PyWavelets %s, NumPy %s, liblwt %s (CPU). %d x %d standard normal (seed %d), level %d, max over "
            "modes %s; err as above, against PyWavelets in float64 on the same 16-bit values. 'x floor': "
            "lwt's error over that of the float64 reference rounded to the type, the larger of forward and "
            "inverse (1.00: the best a 16-bit result can do). 'rms x floor': the same with the "
            "root-mean-square error over all values (forward / inverse), which would show a systematic "
            "loss the maximum hides." % (pywt.__version__, np.__version__, lwt.__version__, SHAPE[0],
                                                      SHAPE[1], SEED, LEVEL, ", ".join(MODES)),
            "",
            "| wavelet | float16 forward | float16 inverse | x floor | rms x floor | bfloat16 forward "
            "| bfloat16 inverse | x floor | rms x floor |",
            "|---|---|---|---|---|---|---|---|---|"]
    summary = ["", "Worst over the %d wavelets: %s." % (len(names), "; ".join(
        "%s forward %.1e (floor %.1e), inverse %.1e (floor %.1e), x floor at most %.2f, rms x floor at "
        "most %.3f / %.3f" % (k, v[0], v[1], v[2], v[3], ratios[k], v[4], v[5])
        for k, v in worst.items()))]
    return "\n".join(head + rows + summary)


def main():
    warnings.simplefilter("ignore", UserWarning)  # pywt: level 3 above the maximum of the long filters
    text = table()
    print(text)
    if "--write" in sys.argv:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "ACCURACY.md")
        doc = open(path).read()
        a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        open(path, "w").write(doc[:a] + "\n" + text + "\n" + doc[b:])


if __name__ == "__main__":
    main()
