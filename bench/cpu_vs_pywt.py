#!/usr/bin/env python3
"""lwt on the CPU against PyWavelets and a memcpy, in one process (issue 26, item 6).

For each case the same random array goes through
  - np.copyto into a preallocated array of the same size (the bandwidth floor),
  - PyWavelets' wavedecn / waverecn (one thread: PyWavelets has no threads),
  - lwt's library call on a cached plan into a preallocated packed array (what lwt-bench
    times: the transform itself),
  - lwt's PyWavelets API (wavedecn / waverecn: the packed array split into PyWavelets'
    coefficient list, fresh arrays every call, as PyWavelets returns them),
with lwt on one thread and on all of them. Times are the best of --reps runs; ratios are
to the copy. Nothing here asserts a speed: the tests check the bits, this only measures.

    python3 bench/cpu_vs_pywt.py                      # the issue's table (several minutes)
    python3 bench/cpu_vs_pywt.py --quick              # 2048^2, two wavelets
    PYTHONPATH=build/python python3 bench/cpu_vs_pywt.py   # a build tree's package

Wavelets: Haar (haar), D4 (db2), CDF 9/7 (bior4.4), D20 (db10); periodization unless --mode.
"""
import argparse
import os
import time
import warnings

import numpy as np

import lwt
from lwt import _core
from lwt._plans import get_plan

try:
    import pywt
except ImportError:  # the table is still useful without it
    pywt = None

NAMES = {"haar": "Haar", "db2": "D4", "bior4.4": "CDF 9/7", "db10": "D20"}


def best(fn, reps):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t * 1e3


def case(shape, wavelet, level, dtype, mode, reps, threads_all):
    rng = np.random.default_rng(26)
    x = rng.standard_normal(shape).astype(dtype)
    y = np.empty_like(x)
    copy = best(lambda: np.copyto(y, x), max(reps, 10))
    row = {"copy": copy}
    w = lwt.Wavelet(wavelet)
    plan = get_plan(w, shape, level, mode, x.dtype, 1)
    packed = np.empty(plan.packed_shape, dtype=dtype)
    back = np.empty(shape, dtype=dtype)
    for threads in (1, threads_all):
        lwt.set_threads(threads)
        _core.forward(plan.handle, x, packed)  # warm: the plan's workspace, the pages
        _core.inverse(plan.handle, packed, back)
        row[f"lib_f{threads}"] = best(lambda: _core.forward(plan.handle, x, packed), reps)
        row[f"lib_i{threads}"] = best(lambda: _core.inverse(plan.handle, packed, back), reps)
        coeffs = lwt.wavedecn(x, wavelet, mode=mode, level=level)
        row[f"api_f{threads}"] = best(lambda: lwt.wavedecn(x, wavelet, mode=mode, level=level), reps)
        row[f"api_i{threads}"] = best(lambda: lwt.waverecn(coeffs, wavelet, mode=mode), reps)
    lwt.set_threads(0)
    if pywt is not None:
        pc = pywt.wavedecn(x, wavelet, mode=mode, level=level)
        pr = max(1, reps // 3)
        row["pywt_f"] = best(lambda: pywt.wavedecn(x, wavelet, mode=mode, level=level), pr)
        row["pywt_i"] = best(lambda: pywt.waverecn(pc, wavelet, mode=mode), pr)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4096,8192", help="2-D sizes N (N x N)")
    ap.add_argument("--levels", default="1,4")
    ap.add_argument("--wavelets", default="haar,db2,bior4.4,db10")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--mode", default="periodization")
    ap.add_argument("--volume", type=int, default=256, help="3-D N^3 case, 3 levels (0: none)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="2048^2 and 64^3, haar and bior4.4, float32")
    a = ap.parse_args()
    warnings.simplefilter("ignore")  # PyWavelets' 'level too high' on the small volumes
    if a.quick:
        a.sizes, a.wavelets, a.dtypes, a.volume, a.reps = "2048", "haar,bior4.4", "float32", 64, 3
    threads_all = os.cpu_count() or 1
    print(f"lwt {lwt.__version__ if hasattr(lwt, '__version__') else ''} against "
          f"{'PyWavelets ' + pywt.__version__ if pywt else 'no PyWavelets (not installed)'}, "
          f"{threads_all} CPUs, mode {a.mode}, best of {a.reps} (PyWavelets: of {max(1, a.reps // 3)}); "
          "ms forward / inverse, (ratio to the copy), [lwt's speed-up over PyWavelets]")
    print("| case | dtype | copy | PyWavelets | lwt library, 1 thread | lwt library, all | "
          "lwt PyWavelets API, 1 thread | lwt PyWavelets API, all |")
    print("|---|---|---|---|---|---|---|---|")
    cases = [((n, n), wv, lv) for n in map(int, a.sizes.split(",")) for lv in map(int, a.levels.split(","))
             for wv in a.wavelets.split(",")]
    if a.volume:
        cases += [((a.volume,) * 3, wv, 3) for wv in a.wavelets.split(",")]
    for shape, wv, lv in cases:
        for dt in a.dtypes.split(","):
            r = case(shape, wv, lv, np.dtype(dt), a.mode, a.reps, threads_all)
            c = r["copy"]

            def cell(f, i, ref=True):
                s = f"{r[f]:.2f} / {r[i]:.2f} ({r[f] / c:.1f}x / {r[i] / c:.1f}x)"
                if ref and "pywt_f" in r:
                    s += f" [{r['pywt_f'] / r[f]:.1f}x / {r['pywt_i'] / r[i]:.1f}x]"
                return s

            pw = cell("pywt_f", "pywt_i", ref=False) if "pywt_f" in r else "-"
            label = f"{'x'.join(map(str, shape))} {NAMES.get(wv, wv)} {lv} level{'s' if lv > 1 else ''}"
            print(f"| {label} | {dt} | {c:.2f} | {pw} | {cell('lib_f1', 'lib_i1')} | "
                  f"{cell(f'lib_f{threads_all}', f'lib_i{threads_all}')} | {cell('api_f1', 'api_i1')} | "
                  f"{cell(f'api_f{threads_all}', f'api_i{threads_all}')} |", flush=True)


if __name__ == "__main__":
    main()
