"""1-D liblwt plans (through the lwt package, pkg_plan.py) vs PyWavelets: every discrete
wavelet x every mode.

For each of the 106 wavelets of pywt.wavelist(kind='discrete') and the aliases,
each of the 9 modes, lengths 1, 2, 3, 5, 7, 64, 97 and levels 0, 1, max
(LWT_LEVELS_MAX) and max+2, in float64 and float32:
  - plan creation succeeds exactly when PyWavelets accepts the transform
    ([anti]reflect on a length-1 axis must be refused);
  - plan info (levels, max_level, packed shape, counts) matches PyWavelets;
  - forward == coeffs_to_array(wavedecn(x))[0], every output value written;
  - inverse == waverecn of the same coefficients, cropped (for the coefficients
    of a signal and for arbitrary coefficients).
Plus: catalog, wavelet info and filters, dwt_max_level, aliases (bit-identical
to the canonical name), the forced algorithms (lifting must meet the bound or
refuse with LWT_ERR_ACCURACY, convolution must always meet it), 1-D batches,
levels far beyond max, and a fixed-input float32 section on near-linear signals
in the extrapolating modes. Bounds: reference.py, docs/ACCURACY.md.
"""
import harness

harness.need_pywt()

import numpy as np  # noqa: E402
import pywt  # noqa: E402

import lwt  # noqa: E402
import pkg_plan as P  # noqa: E402
import reference as R  # noqa: E402

QUICK = harness.quick()
SEED = harness.seed()
rng = np.random.default_rng(SEED)
chk = harness.Checker("pywt_1d")
# The sweeps run single-threaded (fast on tiny arrays); thread counts are
# covered bit-for-bit by test_pkg_properties.py and by the default-threaded cases below.
lwt.set_threads(1)

ALL = R.discrete_wavelets()
QUICK_SET = ["haar", "db1", "db2", "db3", "db7", "db20", "db38", "sym2", "sym3", "sym8", "sym20",
             "coif1", "coif5", "coif17", "bior1.1", "bior1.3", "bior2.2", "bior3.1", "bior4.4",
             "bior6.8", "rbio1.3", "rbio3.9", "rbio5.5", "dmey"]
WAVELETS = QUICK_SET if QUICK else ALL
ALIASES = ["cdf97", "d4"] if QUICK else list(R.ALIASES)
LENGTHS = [1, 2, 3, 5, 7, 64, 97]
DTYPES = [np.float64, np.float32]


def f32r(a):
    """Values exactly representable in float32 (so one reference serves both dtypes)."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def levels_for(lmax):
    out = [0, 1, None, lmax + 2]
    return out


def case_str(w, mode, n, level, lmax, dtype, what):
    return "%s w=%s mode=%s shape=(%d,) level=%s %s" % (
        what, w, mode, n, R.level_name(level, lmax), np.dtype(dtype).name)


def one_case(w, mode, n, level):
    lmax = R.max_level((n,), w)
    refuses = R.raises((n,), w, mode, level)
    x = f32r(rng.standard_normal(n))
    if not refuses:
        ref, slices = R.ref_forward(x, w, mode, level)
        packed_shape = ref.shape
        cin = f32r(ref)
        ref_inv = R.ref_inverse(cin, slices, w, mode, (n,))
        rnd = f32r(rng.standard_normal(packed_shape))
        ref_rnd = R.ref_inverse(rnd, slices, w, mode, (n,))
        want_levels = lmax if level is None else level
    for dt in DTYPES:
        refused = P.refusal(w, (n,), level, mode, dt)
        cs = case_str(w, mode, n, level, lmax, dt, "plan_create")
        if refuses:
            chk.check(refused is not None, "%s: PyWavelets refuses this, liblwt accepted it" % cs)
            continue
        if not chk.check(refused is None, "%s: %s" % (cs, refused)):
            continue
        with P.Plan(w, (n,), level, mode, dt) as p:
            inf = p.info
            chk.check(inf["ndim"] == 1 and inf["shape"] == (n,), "%s: info shape %s" % (cs, inf))
            chk.check(inf["levels"] == want_levels, "%s: info.levels %d, want %d" % (cs, inf["levels"], want_levels))
            chk.check(inf["max_level"] == lmax, "%s: info.max_level %d, want %d" % (cs, inf["max_level"], lmax))
            if not chk.check(inf["packed_shape"] == packed_shape,
                             "%s: packed_shape %s, want %s" % (cs, inf["packed_shape"], packed_shape)):
                continue
            chk.check(inf["coeff_count"] == packed_shape[0] and inf["input_count"] == n,
                      "%s: counts %d/%d" % (cs, inf["input_count"], inf["coeff_count"]))
            key = "%s/%s" % (w, np.dtype(dt).name)
            out = p.forward(x.astype(dt))
            chk.error_within(R.rel_err(out, ref, x), R.forward_bound(w, dt, x, mode, level, ref),
                             case_str(w, mode, n, level, lmax, dt, "forward"), key)
            out = p.inverse(cin.astype(dt))
            chk.error_within(R.rel_err(out, ref_inv, cin), R.inverse_bound(w, dt, cin, slices, mode, (n,), ref_inv),
                             case_str(w, mode, n, level, lmax, dt, "inverse"), key)
            out = p.inverse(rnd.astype(dt))
            chk.error_within(R.rel_err(out, ref_rnd, rnd), R.inverse_bound(w, dt, rnd, slices, mode, (n,), ref_rnd),
                             case_str(w, mode, n, level, lmax, dt, "inverse(random coeffs)"), key)


def sweep(wavelets):
    for w in wavelets:
        for mode in R.modes():
            for n in LENGTHS:
                lmax = R.max_level((n,), w)
                for level in levels_for(lmax):
                    one_case(w, mode, n, level)


def test_catalog():
    names = lwt.wavelist()
    chk.check(len(names) == 106 and sorted(names) == sorted(ALL),
              "catalog has %d names; missing %s; extra %s" % (
                  len(names), sorted(set(ALL) - set(names))[:10], sorted(set(names) - set(ALL))[:10]))
    chk.check(len(set(names)) == len(names), "catalog has duplicates")
    for a in R.ALIASES:
        chk.check(a not in names, "alias %s listed in the catalog" % a)


def test_wavelet_info():
    for w in ALL + list(R.ALIASES):
        W = R.pywt_wavelet(w)
        info = P.wavelet_info(w)
        cw = R.canonical(w)
        chk.check(info["name"] == cw, "%s: info.name %r, want canonical %r" % (w, info["name"], cw))
        chk.check(info["family"] == W.short_family_name,
                  "%s: info.family %r, want %r" % (w, info["family"], W.short_family_name))
        chk.check(info["filter_length"] == W.dec_len,
                  "%s: filter_length %d, want %d" % (w, info["filter_length"], W.dec_len))
        fam = W.short_family_name
        if fam in ("haar", "db", "sym", "coif"):
            chk.check(info["orthogonal"] == 1, "%s: orthogonal %d, want 1" % (w, info["orthogonal"]))
        elif fam in ("bior", "rbio") and cw not in ("bior1.1", "rbio1.1"):
            chk.check(info["orthogonal"] == 0, "%s: orthogonal %d, want 0" % (w, info["orthogonal"]))
        paths = ("lifting", "convolution")
        chk.check(info["path_f64"] in paths and info["path_f32"] in paths, "%s: bad path %s" % (w, info))
        if "lifting" in (info["path_f64"], info["path_f32"]):
            chk.check(info["lifting_steps"] > 0, "%s: lifting path with %d lifting steps" % (w, info["lifting_steps"]))
        if info["path_f64"] == "lifting":
            chk.check(info["lifting_error_f64"] <= R.bound_f64(w),
                      "%s: path_f64 lifting but lifting_error_f64 %.3g > bound %.3g"
                      % (w, info["lifting_error_f64"], R.bound_f64(w)))
        if info["path_f32"] == "lifting":
            chk.check(info["lifting_error_f32"] <= R.F32_BOUND,
                      "%s: path_f32 lifting but lifting_error_f32 %.3g > %.3g"
                      % (w, info["lifting_error_f32"], R.F32_BOUND))
        for name, want in zip(("dec_lo", "dec_hi", "rec_lo", "rec_hi"), W.filter_bank):
            g = np.array(info[name])
            chk.check(R.rel_err(g, want) <= R.bound_f64(w) / R.RT_FACTOR,
                      "%s: filter %s differs from PyWavelets' by %.3g" % (w, name, R.rel_err(g, want)))


def test_max_level():
    lens = sorted({R.dec_len(w) for w in ALL})
    bad = 0
    for fl in lens:
        for n in list(range(1, 300)) + [1023, 1024, 1025, 10**6, 2**31 + 5]:
            got = lwt.dwt_max_level(n, fl)
            want = pywt.dwt_max_level(n, fl)
            if got != want:
                bad += 1
                if bad <= 5:
                    chk.fail("lwt_max_level(%d, %d) = %d, pywt.dwt_max_level = %d" % (n, fl, got, want))
            chk.checks += 1


def test_aliases():
    """Aliases give bit-identical results to their canonical wavelet (and match pywt)."""
    for a in ALIASES:
        c = R.canonical(a)
        for mode in ["symmetric", "periodization", "zero"]:
            for dt in DTYPES:
                x = rng.standard_normal(97).astype(dt)
                ya = P.Plan(a, x.shape, None, mode, dt).forward(x)
                yc = P.Plan(c, x.shape, None, mode, dt).forward(x)
                chk.check(ya.tobytes() == yc.tobytes(),
                          "alias %s vs %s mode=%s %s: results differ" % (a, c, mode, np.dtype(dt).name))
    sweep(ALIASES)


def test_algorithms():
    """Forced algorithms: convolution always meets the bound; lifting meets it or refuses."""
    ws = WAVELETS
    for w in ws:
        info = P.wavelet_info(w)
        for dt in DTYPES:
            path = info["path_f64"] if dt == np.float64 else info["path_f32"]
            mode_paths = info["mode_paths_f64"] if dt == np.float64 else info["mode_paths_f32"]
            for mode in (["symmetric", "periodization"] if not QUICK else ["periodization"]):
                n = 97
                x = f32r(rng.standard_normal(n))
                ref, slices = R.ref_forward(x, w, mode, None)
                ref_inv = R.ref_inverse(f32r(ref), slices, w, mode, (n,))
                lmax = R.max_level((n,), w)
                for algo in ("convolution", "lifting"):
                    refused = P.refusal(w, (n,), None, mode, dt, algorithm=algo)
                    cs = "algorithm=%s w=%s mode=%s shape=(%d,) level=max %s" % (algo, w, mode, n, np.dtype(dt).name)
                    if algo == "convolution" or path == "lifting":
                        if not chk.check(refused is None, "%s: %s" % (cs, refused)):
                            continue
                    elif refused is not None:
                        chk.check(P.ACCURACY in str(refused) or P.UNSUPPORTED in str(refused),
                                  "%s: refused with %r, want LWT_ERR_ACCURACY" % (cs, refused))
                        continue
                    with P.Plan(w, (n,), None, mode, dt, algorithm=algo) as p:
                        chk.check(p.info["path"] == algo, "%s: info.path %s" % (cs, p.info["path"]))
                        chk.error_within(R.rel_err(p.forward(x.astype(dt)), ref, x),
                                         R.forward_bound(w, dt, x, mode, None, ref), cs + " forward", "%s/%s" % (algo, w))
                        chk.error_within(R.rel_err(p.inverse(f32r(ref).astype(dt)), ref_inv, f32r(ref)),
                                         R.inverse_bound(w, dt, f32r(ref), slices, mode, (n,), ref_inv),
                                         cs + " inverse", "%s/%s" % (algo, w))
                with P.Plan(w, (n,), None, mode, dt) as p:
                    chk.check(p.info["path"] == mode_paths[mode], "w=%s %s %s: auto plan path %s but lwt_wavelet_path says %s"
                              % (w, mode, np.dtype(dt).name, p.info["path"], mode_paths[mode]))


def test_extrapolation_f32():
    """float32, modes that extrapolate (smooth, antireflect), levels beyond max, on
    near-linear signals: the extension must not amplify rounding (PyWavelets' own
    float32 stays well inside 1e-5 here). Fixed inputs, independent of LWT_SEED."""
    g = np.random.default_rng(424242)
    ws = WAVELETS if not QUICK else QUICK_SET
    for w in ws:
        for mode in ("smooth", "antireflect"):
            for n in (2, 3, 8):
                level = R.max_level((n,), w) + 2
                if R.raises((n,), w, mode, level):
                    continue
                with P.Plan(w, (n,), level, mode, np.float32) as p:
                    for _ in range(4):
                        x = (0.6 + 1e-3 * g.standard_normal() * np.arange(n)
                             + 1e-4 * g.standard_normal(n)).astype(np.float32)
                        x64 = x.astype(np.float64)
                        ref, _ = R.ref_forward(x64, w, mode, level)
                        cs = "forward w=%s mode=%s shape=(%d,) level=%d float32 x=%s" % (
                            w, mode, n, level, np.array2string(x, separator=",", precision=9))
                        chk.error_within(R.rel_err(p.forward(x), ref, x64),
                                         R.forward_bound(w, np.float32, x64, mode, level, ref), cs,
                                         "extrap %s/%s" % (w, mode))


def test_batch_and_deep_levels():
    """1-D batch > 1 (each item vs pywt) on all cores, and levels far beyond max."""
    lwt.set_threads(0)
    for w, mode, n, level, b in [("db3", "symmetric", 97, None, 5), ("cdf97", "periodization", 64, 3, 4),
                                 ("dmey", "zero", 33, 1, 3), ("sym5", "reflect", 7, 4, 2), ("haar", "smooth", 1, 3, 6),
                                 ("coif2", "antisymmetric", 5, 0, 3)]:
        for dt in DTYPES:
            xs = f32r(rng.standard_normal((b, n)))
            with P.Plan(w, (n,), level, mode, dt, batch=b) as p:
                y = p.forward(xs.astype(dt))
                for i in range(b):
                    ref, slices = R.ref_forward(xs[i], w, mode, level)
                    cs = "batch=%d item %d forward w=%s mode=%s shape=(%d,) level=%s %s" % (
                        b, i, w, mode, n, level, np.dtype(dt).name)
                    chk.error_within(R.rel_err(y[i], ref, xs[i]), R.forward_bound(w, dt, xs[i], mode, level, ref), cs,
                                     "%s/%s" % (w, np.dtype(dt).name))
                cin = f32r(y)
                z = p.inverse(cin.astype(dt))
                for i in range(b):
                    slices = R.slices_for((n,), w, mode, level)[1]
                    ref = R.ref_inverse(cin[i], slices, w, mode, (n,))
                    cs = "batch=%d item %d inverse w=%s mode=%s shape=(%d,) level=%s %s" % (
                        b, i, w, mode, n, level, np.dtype(dt).name)
                    chk.error_within(R.rel_err(z[i], ref, cin[i]), R.inverse_bound(w, dt, cin[i], slices, mode, (n,), ref),
                                     cs, "%s/%s" % (w, np.dtype(dt).name))
    for w, mode, n, level in [("haar", "zero", 5, 40), ("db38", "smooth", 3, 12), ("db2", "periodization", 7, 30),
                              ("sym4", "antireflect", 2, 8), ("bior4.4", "reflect", 9, 10), ("coif1", "periodic", 4, 16)]:
        one_case(w, mode, n, level)
    lwt.set_threads(1)


chk.run("catalog", test_catalog)
chk.run("wavelet info and filters", test_wavelet_info)
chk.run("dwt_max_level", test_max_level)
chk.run("all wavelets x modes x lengths x levels", sweep, WAVELETS)
chk.run("aliases", test_aliases)
chk.run("forced algorithms", test_algorithms)
chk.run("1-D batch and deep levels", test_batch_and_deep_levels)
chk.run("float32 extrapolation beyond max level", test_extrapolation_f32)
chk.finish()
