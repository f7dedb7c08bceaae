#!/usr/bin/env python3
"""Print PyWavelets' own round-trip (perfect-reconstruction) error per wavelet
and the float64 bound the tests derive from it, as Markdown for docs/ACCURACY.md.

    python3 tests/py/roundtrip_table.py > /tmp/table.md

Uses exactly reference.roundtrip_error / reference.bound (fixed seed), so the
table is the one the tests apply. Not a test (no test_ prefix).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import pywt  # noqa: E402

import reference as R  # noqa: E402

FAMILIES = ["haar", "db", "sym", "coif", "bior", "rbio", "dmey"]


def main():
    ws = R.discrete_wavelets()
    rows = [(w, R.family(w), R.dec_len(w), R.roundtrip_error(w), R.bound_f64(w)) for w in ws]
    print("PyWavelets %s, NumPy %s. Round trip: max over lengths %s, modes %s, level max(1, dwt_max_level),"
          % (pywt.__version__, np.__version__, list(R.RT_LENGTHS), list(R.RT_MODES)))
    print("standard normal signals (seed %d), of max|waverec(wavedec(x)) - x| / max|x|." % R.RT_SEED)
    print()
    print("| family | wavelets | filter lengths | round trip min | round trip max (wavelet) | float64 bound range |")
    print("|---|---|---|---|---|---|")
    for fam in FAMILIES:
        fr = [r for r in rows if r[1] == fam]
        worst = max(fr, key=lambda r: r[3])
        print("| %s | %d | %d-%d | %.1e | %.1e (%s) | %.1e - %.1e |" % (
            fam, len(fr), min(r[2] for r in fr), max(r[2] for r in fr), min(r[3] for r in fr),
            worst[3], worst[0], min(r[4] for r in fr), max(r[4] for r in fr)))
    print()
    print("Per wavelet (round trip -> float64 bound = max(1e-12, 10 x round trip)):")
    print()
    cols = 4
    print("| " + " | ".join(["wavelet | len | round trip | bound"] * cols) + " |")
    print("|" + "---|" * (4 * cols))
    for i in range(0, len(rows), cols):
        chunk = rows[i:i + cols]
        cells = []
        for w, fam, n, rt, b in chunk:
            cells.append("%s | %d | %.1e | %.1e" % (w, n, rt, b))
        while len(cells) < cols:
            cells.append(" | | | ")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
