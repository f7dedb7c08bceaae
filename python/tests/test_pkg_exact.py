"""Exact where PyWavelets is exact (issue 24, item 4), through the package with liblwt's own
choice (LWT_ALGO_AUTO: lifting or the filter bank per wavelet, mode and dtype from the measured
table src/core/path_table.c; docs/ACCURACY.md, "Lifting or the filter bank"):
  - PyWavelets' test_matlab_compatibility case that lifting missed: sym20, smooth, 40 samples
    (lifting: RMS 1.6e-10 against PyWavelets' 1e-10, 8.4e-12 relative), to 1e-12 relative;
  - db30 smooth (3, 7, 7) level 3 on a fixed input (lifting: 1.12e-10), to PyWavelets' 1e-10;
  - smooth and antireflect beyond the maximum level with long filters, 1-D to 3-D, to
    max(cell bound, 10 x PyWavelets' own change under one-ulp changes of the input), the cell
    bound that of the table's rule: these cases are ill-conditioned for every implementation
    (docs/ACCURACY.md, "Lifting or the filter bank");
  - NaN and infinity: the same coefficients (and, inverse, samples) are non-finite as in
    PyWavelets, the others agree to the package's bound (docs/PYTHON.md).
Each section also prints what forced lifting would give (the old per-wavelet rule), for the
record; only the AUTO results are checked.

Seed: printed; LWT_SEED reuses one. LWT_QUICK=1: fewer cases.
"""
import os
import sys
import warnings

import numpy as np

import harness

harness.need_pywt()
import pywt  # noqa: E402

import lwt  # noqa: E402
from lwt import _plans  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gen_paths  # noqa: E402

lwt.set_threads(1)
seed = harness.seed()
rng = np.random.default_rng(seed)
chk = harness.Checker("test_pkg_exact")
warnings.filterwarnings("ignore", message=r"Level value of .* is too high")
LIFTING = _plans._ALGORITHMS["lifting"]
flat, err = gen_paths.flat, gen_paths.err  # docs/ACCURACY.md's error measure


def cell_bound(w):
    """The float64 bound of the path table's rule (docs/ACCURACY.md): the wavelet's bound
    max(1e-12, 10 x rt(w)) capped at 1e-11, as tools/gen_paths.py (the table's generator)
    computes it."""
    return gen_paths.cell_bound(max(1e-12, 10 * gen_paths.roundtrip_error(w)))


def pywt_spread(x, w, mode, level):
    """PyWavelets' own change under 8 one-ulp relative changes of x, in err's measure (the
    float64 twin of docs/ACCURACY.md's float32 rule, which takes 7 neighbours of the input)."""
    ref = flat(pywt.wavedecn(x, w, mode=mode, level=level))
    out = 0.0
    for _ in range(8):
        xp = x * (1 + np.finfo(np.float64).eps * rng.choice([-1.0, 1.0], size=x.shape))
        out = max(out, err(flat(pywt.wavedecn(xp, w, mode=mode, level=level)), ref, x))
    return out


def matlab_case():
    data = np.random.RandomState(1234).randn(40)
    pa, pd = pywt.dwt(data, "sym20", "smooth")
    for name, call in (("auto", lambda: lwt.dwt(data, "sym20", "smooth")),
                       ("lifting", lambda: gen_paths.forced(LIFTING, lambda: lwt.dwt(data, "sym20", "smooth")))):
        la, ld = call()
        rms = max(np.sqrt(np.mean((la - pa) ** 2)), np.sqrt(np.mean((ld - pd) ** 2)))
        rel = err(np.concatenate([la, ld]), np.concatenate([pa, pd]), data)
        print("  sym20 smooth N=40 %-7s: RMS %.2e (PyWavelets' test: < 1e-10), relative %.2e" % (name, rms, rel))
        if name == "auto":
            chk.check(rms < 1e-10, "sym20 smooth N=40: RMS %.3g >= 1e-10" % rms)
            chk.error_within(rel, 1e-12, "sym20 smooth N=40 dwt", "sym20 smooth N=40")


# (wavelet, shape, level, mode): beyond the maximum level, long filters, 1-D to 3-D
CASES = [("db30", (3, 7), 2, "smooth"), ("sym20", (40,), 3, "smooth"), ("sym20", (7, 7), 3, "smooth"),
         ("db30", (3,), 4, "smooth"), ("coif17", (9,), 3, "smooth"), ("sym16", (3, 7), 3, "smooth"),
         ("db30", (5, 9), 2, "antireflect"), ("coif12", (3, 5, 4), 2, "smooth"), ("sym12", (3, 5, 4), 3, "smooth"),
         ("db20", (2, 3), 3, "smooth"), ("bior6.8", (3, 7, 7), 3, "smooth"), ("db10", (6, 5, 7), 3, "antireflect")]


def ill_conditioned():
    worst = {"auto": 0.0, "lifting": 0.0}
    for w, shape, level, mode in CASES[:5] if harness.quick() else CASES:
        for _ in range(1 if harness.quick() else 2):
            x = rng.standard_normal(shape)
            ref = flat(pywt.wavedecn(x, w, mode=mode, level=level))
            bnd = max(cell_bound(w), 10 * pywt_spread(x, w, mode, level))
            case = "%s %s %s level %d" % (w, mode, shape, level)
            got = flat(lwt.wavedecn(x, w, mode=mode, level=level))
            chk.error_within(err(got, ref, x), bnd, case, "%s %s %d-D" % (w, mode, len(shape)))
            worst["auto"] = max(worst["auto"], err(got, ref, x) / bnd)
            try:
                lif = flat(gen_paths.forced(LIFTING, lambda: lwt.wavedecn(x, w, mode=mode, level=level)))
                worst["lifting"] = max(worst["lifting"], err(lif, ref, x) / bnd)
            except RuntimeError:  # no scheme within the bound at all
                pass
    print("  worst error/bound: auto %.2f, forced lifting %.2f" % (worst["auto"], worst["lifting"]))


def issue_case():
    """db30 smooth (3, 7, 7) level 3 on a fixed input (not LWT_SEED: the result must not be a
    draw) on which lifting misses PyWavelets' 1e-10, as in issue 24's report (1.1e-10). 1e-12 is
    out of reach for any implementation that does not repeat PyWavelets' operations: one-ulp
    changes of this input move PyWavelets' own result by the spread printed (docs/ACCURACY.md,
    "Conditioning"), so the bound is PyWavelets' test tolerance."""
    x = np.random.default_rng([24, 43]).standard_normal((3, 7, 7))
    ref = flat(pywt.wavedecn(x, "db30", mode="smooth", level=3))
    got = err(flat(lwt.wavedecn(x, "db30", mode="smooth", level=3)), ref, x)
    lif = err(flat(gen_paths.forced(LIFTING, lambda: lwt.wavedecn(x, "db30", mode="smooth", level=3))), ref, x)
    print("  db30 smooth (3, 7, 7) level 3: auto %.2e, forced lifting %.2e, PyWavelets' own one-ulp spread %.2e"
          % (got, lif, pywt_spread(x, "db30", "smooth", 3)))
    chk.error_within(got, 1e-10, "db30 smooth (3, 7, 7) level 3, fixed input", "db30 smooth 3-D (issue 24)")


NAN_WAVELETS = ["haar", "db2", "sym5", "db8", "coif3", "bior3.5", "rbio2.2", "bior4.4", "dmey", "db30", "sym20"]


def nonfinite():
    """NaN and infinity reach the same coefficients as in PyWavelets, forward and inverse."""
    shapes = [(16,), (5,), (9, 11), (3, 5, 4)]
    wavelets = NAN_WAVELETS[::3] if harness.quick() else NAN_WAVELETS
    for w in wavelets:
        for mode in pywt.Modes.modes:
            for shape in shapes:
                level = int(rng.integers(1, 3))
                x = rng.standard_normal(shape)
                for _ in range(int(rng.integers(1, 3))):
                    x[tuple(rng.integers(0, s) for s in shape)] = rng.choice([np.nan, np.inf, -np.inf])
                case = "%s %s %s level %d, non-finite at %s" % (w, mode, shape, level,
                                                                 list(zip(*np.nonzero(~np.isfinite(x)))))
                try:
                    c = pywt.wavedecn(x, w, mode=mode, level=level)
                except ValueError:  # [anti]reflect on a length-1 axis: refused alike elsewhere
                    continue
                ref = flat(c)
                got = flat(lwt.wavedecn(x, w, mode=mode, level=level))
                same_pattern(got, ref, x, "forward " + case)
                y_ref = pywt.waverecn(c, w, mode=mode)
                y = lwt.waverecn(c, w, mode=mode)
                if chk.check(y.shape == y_ref.shape, "inverse %s: shape" % case):
                    same_pattern(y, y_ref, ref, "inverse " + case)
    # the one-call paths too
    x = rng.standard_normal(32)
    x[7] = np.nan
    for call in (lambda m: m.dwt(x, "sym5", "symmetric"), lambda m: m.wavedec(x, "sym5", "symmetric", level=2)):
        for g, r in zip(call(lwt), call(pywt)):
            same_pattern(g, r, x, "dwt/wavedec sym5, NaN at 7")
    x2 = rng.standard_normal((12, 10))
    x2[3, 4] = np.nan
    g, r = lwt.dwt2(x2, "db4", "periodization"), pywt.dwt2(x2, "db4", "periodization")
    for a, b in zip([g[0], *g[1]], [r[0], *r[1]]):
        same_pattern(a, b, x2, "dwt2 db4 periodization, NaN at (3, 4)")


def same_pattern(got, ref, inp, case):
    fin = np.isfinite(ref)
    if chk.check(np.array_equal(np.isfinite(got), fin), "%s: %d non-finite values, PyWavelets %d"
                 % (case, np.count_nonzero(~np.isfinite(got)), np.count_nonzero(~fin))):
        if fin.any():
            scale = max(np.abs(ref[fin]).max(), np.abs(inp[np.isfinite(inp)]).max(initial=0.0), 1e-300)
            chk.error_within(float(np.abs(got[fin] - ref[fin]).max() / scale), 1e-10, case, "non-finite input")
    # with NaN alone in the input, NaN exactly where PyWavelets has it; an infinity can come
    # out as NaN where PyWavelets' arithmetic gives +-inf (inf - inf in another order)
    chk.check(np.isinf(inp).any() or np.array_equal(np.isnan(got), np.isnan(ref)),
              "%s: NaN where PyWavelets has none (or the reverse), NaN input only" % case)


def plan_paths():
    """Every plan the package makes takes liblwt's path (no rule of its own), which
    lwt.Wavelet.mode_paths_f64/_f32 report; float64 smooth lifts where the table says so."""
    for name in pywt.wavelist(kind="discrete"):
        wv = lwt.Wavelet(name)
        for dt, paths in ((np.float64, wv.mode_paths_f64), (np.float32, wv.mode_paths_f32)):
            for mode in pywt.Modes.modes:
                got = _plans.get_plan(wv, (9,), 1, mode, np.dtype(dt), 1).path
                chk.check(got == paths[mode], "%s %s %s: plan path %s, mode_paths %s"
                          % (name, mode, np.dtype(dt).name, got, paths[mode]))
    chk.check(lwt.Wavelet("db4").mode_paths_f64["smooth"] == "lifting", "db4 smooth float64 does not lift")


chk.run("plan paths", plan_paths)
chk.run("sym20 smooth N=40 (test_matlab_compatibility)", matlab_case)
chk.run("db30 smooth (3, 7, 7) level 3 (issue 24)", issue_case)
chk.run("smooth/antireflect beyond the maximum level", ill_conditioned)
chk.run("NaN and infinity", nonfinite)
chk.finish()
