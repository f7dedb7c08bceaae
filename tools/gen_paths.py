#!/usr/bin/env python3
"""Generate src/core/path_table.c: per built-in wavelet, mode and dtype, whether liblwt's
LWT_ALGO_AUTO plans run the lifting scheme or the filter bank (docs/ACCURACY.md, "Lifting or
the filter bank").

The lifting scheme of every wavelet is run (forced, through the lwt package built from this
tree) on the cases where lifting is worst and compared with PyWavelets in float64, with
docs/ACCURACY.md's error measure max|a - b| / max(max|b|, max|in|):
  - 1-D: lengths 2, 3, 5, F/2 + 1, F - 1, F + 1, 2F + 1, 40, 101 at levels 1, max, max + 1,
    max + 2 (smooth and antireflect beyond the maximum level: the extrapolated extension
    multiplies rounding by up to the filter length per level), forward and inverse;
  - 2-D: (3, 7) and (7, 7) at levels 1-3;
  - 3-D: (3, 7, 7) at levels 1-3 in smooth and antireflect, level 2 in the other modes.
A cell takes the filter bank when lifting's worst error exceeds half its bound:
  float64: max(1e-12, 10 x rt(w)), rt(w) PyWavelets' own round trip (docs/ACCURACY.md);
  float32: per case max(1e-5, 10 x PyWavelets' own float32 error on the case).
The half leaves room for inputs the measurement did not see. Wavelets that have no lifting
scheme within their bound at all (dmey, the longest db/coif: LWT_ALGO_LIFTING refuses them)
take the filter bank in every cell without a table entry. Run from the repository root after
building the package (the command is in docs/ACCURACY.md):

    PYTHONPATH=build-x/python python3 tools/gen_paths.py > src/core/path_table.c

Deterministic (fixed seed); --only NAME[,NAME] measures some wavelets and prints a report.
"""
import argparse
import json
import sys
import warnings

import numpy as np
import pywt

import lwt
from lwt import _plans

MODES = ["zero", "constant", "symmetric", "reflect", "periodic", "smooth", "antisymmetric",
         "antireflect", "periodization"]
ENUM = {m: "LWT_MODE_" + m.upper() for m in MODES}
SEED = 20261127
RT_SEED, RT_LENGTHS, RT_MODES = 20240611, [64, 101, 256], ["periodization", "symmetric"]
LIFTING, CONVOLUTION = 1, 2
MARGIN = 0.5
CAP = 1e-11


def err(a, b, inp):
    a, b, inp = (np.asarray(v, dtype=np.float64) for v in (a, b, inp))
    return float(np.max(np.abs(a - b), initial=0.0) /
                 max(np.max(np.abs(b), initial=0.0), np.max(np.abs(inp), initial=0.0), 1e-300))


def roundtrip_error(w):
    """docs/ACCURACY.md's rt(w) (tests' reference.roundtrip_error, same recipe and seed)."""
    rng = np.random.default_rng(RT_SEED)
    e = 0.0
    for m in RT_MODES:
        for n in RT_LENGTHS:
            x = rng.standard_normal(n)
            lev = max(1, pywt.dwt_max_level(n, pywt.Wavelet(w).dec_len))
            y = pywt.waverec(pywt.wavedec(x, w, mode=m, level=lev), w, mode=m)[:n]
            e = max(e, float(np.max(np.abs(y - x)) / np.max(np.abs(x))))
    return e


def cases(F, mode):
    """(shape, level, inverse too) where lifting is worst."""
    out = []
    for n in sorted({2, 3, 5, F // 2 + 1, F - 1, F + 1, 2 * F + 1, 40, 101}):
        if n < 2:
            continue
        top = pywt.dwt_max_level(n, F)
        for lev in sorted({1, max(1, top), top + 1, top + 2}):
            out.append(((n,), lev, True))
    for shape in [(3, 7), (7, 7)]:
        for lev in (1, 2, 3):
            out.append((shape, lev, False))
    for lev in ((1, 2, 3) if mode in ("smooth", "antireflect") else (2,)):
        out.append(((3, 7, 7), lev, False))
    return out


def forced(algorithm, call):
    _plans._algorithm_override = algorithm
    try:
        return call()
    finally:
        _plans._algorithm_override = None


def flat(c):
    return pywt.coeffs_to_array(c)[0]


def measure(w, mode, rng):
    """Worst ratio of lifting's error to the cell's bound (f64, f32) and the worst errors of
    lifting and of the filter bank in float64 (for the record)."""
    F = pywt.Wavelet(w).dec_len
    b64 = max(1e-12, 10 * roundtrip_error(w))
    r64 = r32 = lift64 = conv64 = 0.0
    for shape, lev, inv in cases(F, mode):
        x = rng.standard_normal(shape)
        try:
            ref = pywt.wavedecn(x, w, mode=mode, level=lev)
        except ValueError:  # [anti]reflect reaching an axis of length 1: refused by both
            continue
        lift = forced(LIFTING, lambda: lwt.wavedecn(x, w, mode=mode, level=lev))
        conv = forced(CONVOLUTION, lambda: lwt.wavedecn(x, w, mode=mode, level=lev))
        e = err(flat(lift), flat(ref), x)
        lift64, conv64 = max(lift64, e), max(conv64, err(flat(conv), flat(ref), x))
        r64 = max(r64, e / b64)
        if inv:
            yref = pywt.waverecn(ref, w, mode=mode)
            y = forced(LIFTING, lambda: lwt.waverecn(ref, w, mode=mode))
            e = err(y, yref, flat(ref))
            lift64 = max(lift64, e)
            r64 = max(r64, e / b64)
        x32 = x.astype(np.float32)
        ref32 = flat(pywt.wavedecn(x32.astype(np.float64), w, mode=mode, level=lev))
        own32 = err(flat(pywt.wavedecn(x32, w, mode=mode, level=lev)), ref32, x32)
        got32 = flat(forced(LIFTING, lambda: lwt.wavedecn(x32, w, mode=mode, level=lev)))
        r32 = max(r32, err(got32, ref32, x32) / max(1e-5, 10 * own32))
    return r64, r32, lift64, conv64, b64


def has_lifting(w):
    try:
        forced(LIFTING, lambda: lwt.wavedec(np.zeros(8), w, mode="zero", level=1))
        return True
    except RuntimeError:
        return False


def cell_bound(b64):
    """The float64 bound a cell's lifting must meet: the wavelet's bound, capped at CAP."""
    return min(b64, CAP)


def takes_filter_bank(c):
    """The float64 rule: lifting misses MARGIN of its cell bound and the filter bank measured
    closer to PyWavelets (where both miss, in smooth beyond the maximum level, the closer)."""
    return c["lift64"] > MARGIN * cell_bound(c["bound64"]) and c["conv64"] < c["lift64"]


def measure_all(names):
    meas = {}
    for w in names:
        if not has_lifting(w):
            print("%s: no lifting scheme within its bound (filter bank everywhere)" % w, file=sys.stderr)
            continue
        rng = np.random.default_rng([SEED, names.index(w)])
        meas[w] = {}
        for mode in MODES:
            r64, r32, lift64, conv64, b64 = measure(w, mode, rng)
            meas[w][mode] = {"lift64": lift64, "conv64": conv64, "bound64": b64, "r32": r32}
        print("%s measured" % w, file=sys.stderr, flush=True)
    return meas


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated wavelets: measure these, print a report")
    ap.add_argument("--save", help="also write the measurements to this JSON file")
    ap.add_argument("--load", help="take the measurements from this JSON file (no measuring)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    lwt.set_threads(1)
    if args.load:
        with open(args.load) as f:
            meas = json.load(f)
    else:
        meas = measure_all(args.only.split(",") if args.only else pywt.wavelist(kind="discrete"))
    if args.save:
        with open(args.save, "w") as f:
            json.dump(meas, f, indent=1)
    if args.only:
        for w, cells in meas.items():
            for mode, c in cells.items():
                print("%-8s %-13s f64: lifting %.2e filter bank %.2e cell bound %.1e  f32: %.2f of bound"
                      % (w, mode, c["lift64"], c["conv64"], cell_bound(c["bound64"]), c["r32"]))
        return
    out = sys.stdout
    out.write("/* Generated by tools/gen_paths.py (PyWavelets %s, NumPy %s). Do not edit.\n"
              " * Per built-in wavelet: the modes whose LWT_ALGO_AUTO plans take the filter bank,\n"
              " * for float64 and float32 (docs/ACCURACY.md, \"Lifting or the filter bank\"); the\n"
              " * comments give the measured worst errors behind a row. Wavelets absent here take\n"
              " * lifting in every mode, or have no lifting scheme within their bound at all. */\n"
              % (pywt.__version__, np.__version__))
    out.write('#include "core/path_table.h"\n\nconst lwt_path_row lwt_path_rows[] = {\n')
    n64 = n32 = 0
    for w, cells in meas.items():
        fb64 = [m for m in MODES if takes_filter_bank(cells[m])]
        fb32 = [m for m in MODES if cells[m]["r32"] > MARGIN]
        if not fb64 and not fb32:
            continue
        n64, n32 = n64 + len(fb64), n32 + len(fb32)
        mask = lambda ms: " | ".join("LWT_MODE_BIT(%s)" % ENUM[m] for m in ms) or "0"
        out.write('    {"%s", %s,\n     %s},\n' % (w, mask(fb64), mask(fb32)))
        for m in fb64:
            c = cells[m]
            out.write("    /* %s float64: lifting %.1e, filter bank %.1e, cell bound %.1e */\n"
                      % (m, c["lift64"], c["conv64"], cell_bound(c["bound64"])))
        for m in fb32:
            out.write("    /* %s float32: lifting at %.2f of its bound */\n" % (m, cells[m]["r32"]))
    out.write("};\n\nconst int lwt_path_row_count = (int)(sizeof lwt_path_rows / sizeof lwt_path_rows[0]);\n")
    out.write("/* filter-bank cells: %d float64, %d float32, of %d wavelets with a lifting scheme x %d modes */\n"
              % (n64, n32, len(meas), len(MODES)))


if __name__ == "__main__":
    main()
