"""2-D and 3-D liblwt plans (through the lwt package, pkg_plan.py) vs PyWavelets.

A spread of wavelets covering every family (haar, db, sym, coif, bior, rbio,
dmey, plus an alias) x every mode x odd/even/prime/non-square shapes x levels
0, 1..max, max+1, in float64 and float32:
  - plan creation succeeds exactly when PyWavelets accepts the transform;
  - plan info matches (levels, max_level, packed shape, counts);
  - the plan's band offsets/shapes (lwt_plan_band) equal the slices of
    coeffs_to_array, and invalid (level, mask) pairs are refused;
  - forward == coeffs_to_array(wavedecn(x))[0] including the zero gaps
    (the output buffer is pre-filled with NaN);
  - inverse == waverecn of the same coefficients, cropped;
  - batch > 1: every item equals its own single transform and reference.
Bounds: reference.bound (docs/ACCURACY.md).
"""
import harness

harness.need_pywt()

import numpy as np  # noqa: E402

import lwt  # noqa: E402
import pkg_plan as P  # noqa: E402
import reference as R  # noqa: E402

QUICK = harness.quick()
SEED = harness.seed()
rng = np.random.default_rng(SEED)
chk = harness.Checker("pywt_nd")
# The sweeps run single-threaded (fast on tiny arrays); thread counts are
# covered bit-for-bit by test_pkg_properties.py and by the default-threaded cases below.
lwt.set_threads(1)

WAVELETS = ["haar", "db1", "db2", "db3", "db5", "db10", "db38", "sym2", "sym4", "sym7", "sym20",
            "coif1", "coif2", "coif5", "coif17", "bior1.3", "bior2.2", "bior3.1", "bior3.9",
            "bior4.4", "bior6.8", "rbio1.5", "rbio2.8", "rbio3.3", "rbio5.5", "dmey", "cdf97"]
QUICK_WAVELETS = ["haar", "db2", "db10", "sym4", "coif2", "bior3.1", "bior4.4", "rbio2.8", "dmey"]
SHAPES = [(1, 7), (7, 1), (2, 3), (13, 8), (31, 17), (16, 16), (64, 40),
          (5, 6, 7), (16, 9, 3), (1, 4, 9), (8, 8, 8), (12, 11, 10)]
QUICK_SHAPES = [(1, 7), (13, 8), (31, 17), (5, 6, 7), (16, 9, 3)]
DTYPES = [np.float64, np.float32]
if QUICK:
    WAVELETS, SHAPES = QUICK_WAVELETS, QUICK_SHAPES


def f32r(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def levels_for(lmax):
    return sorted(set([0] + list(range(1, lmax + 1)) + [lmax + 1])) + [None]


def case_str(what, w, mode, shape, level, lmax, dtype, batch=1):
    s = "%s w=%s mode=%s shape=%s level=%s %s" % (what, w, mode, tuple(shape), R.level_name(level, lmax),
                                                np.dtype(dtype).name)
    return s + (" batch=%d" % batch if batch > 1 else "")


def check_bands(p, cs, slices, bshapes, packed_shape):
    nd = len(packed_shape)
    J = len(bshapes) - 1
    # approximation
    off, shp = p.band(0, 0)
    want_off = tuple(R.slice_bounds(sl, n)[0] for sl, n in zip(slices[0], packed_shape))
    chk.check(off == want_off and shp == tuple(bshapes[0]),
              "%s: band(0,0) = %s %s, want %s %s" % (cs, off, shp, want_off, tuple(bshapes[0])))
    for lev in range(1, J + 1):
        for key, sl in slices[lev].items():
            mask = R.band_mask(key)
            off, shp = p.band(lev, mask)
            want_off = tuple(R.slice_bounds(x, n)[0] for x, n in zip(sl, packed_shape))
            want_shp = tuple(bshapes[lev][key])
            chk.check(off == want_off and shp == want_shp, "%s: band(%d, %d='%s') = %s %s, want %s %s" % (
                cs, lev, mask, key, off, shp, want_off, want_shp))
    # invalid requests
    bad = [(0, 1), (J + 1, 1), (-1, 0), (1 if J else 0, 1 << nd), (1, 0)]
    for lev, mask in bad:
        try:
            p.band(lev, mask)
            chk.fail("%s: band(%d, %d) accepted, must be refused" % (cs, lev, mask))
        except ValueError:
            chk.check(True, "")


def one_case(w, mode, shape, level, batch):
    lmax = R.max_level(shape, w)
    refuses = R.raises(shape, w, mode, level)
    if refuses:
        for dt in DTYPES:
            chk.check(P.refusal(w, shape, level, mode, dt) is not None, "%s: PyWavelets refuses this, liblwt accepted it"
                      % case_str("plan_create", w, mode, shape, level, lmax, dt))
        return
    xs = f32r(rng.standard_normal((batch,) + tuple(shape)))
    refs, invs, rnds, rnd_invs = [], [], [], []
    for b in range(batch):
        ref, slices = R.ref_forward(xs[b], w, mode, level)
        refs.append(ref)
        invs.append(R.ref_inverse(f32r(ref), slices, w, mode, shape))
        rnd = R.clean_packed(f32r(rng.standard_normal(ref.shape)), slices)
        rnds.append(rnd)
        rnd_invs.append(R.ref_inverse(rnd, slices, w, mode, shape))
    packed_shape, slices, bshapes = R.slices_for(shape, w, mode, level)
    want_levels = lmax if level is None else level
    for dt in DTYPES:
        cs = case_str("plan", w, mode, shape, level, lmax, dt, batch)
        try:
            p = P.Plan(w, shape, level, mode, dt, batch=batch)
        except (ValueError, RuntimeError, NotImplementedError) as e:
            chk.fail("%s: %s" % (cs, e))
            continue
        with p:
            inf = p.info
            ok = chk.check(inf["ndim"] == len(shape) and inf["shape"] == tuple(shape)
                           and inf["levels"] == want_levels and inf["max_level"] == lmax
                           and inf["packed_shape"] == tuple(packed_shape)
                           and inf["coeff_count"] == int(np.prod(packed_shape))
                           and inf["input_count"] == int(np.prod(shape)),
                           "%s: plan info %s, want levels %d max_level %d packed %s" % (
                               cs, inf, want_levels, lmax, tuple(packed_shape)))
            if not ok:
                continue
            if dt == np.float64:
                check_bands(p, cs, slices, bshapes, packed_shape)
            key = "%s/%dd/%s" % (w, len(shape), np.dtype(dt).name)
            item = (lambda i: " item %d" % i) if batch > 1 else (lambda i: "")
            xin = xs if batch > 1 else xs[0]
            out = p.forward(xin.astype(dt))
            out = out if batch > 1 else out[None]
            for i in range(batch):
                chk.error_within(R.rel_err(out[i], refs[i], xs[i]),
                                 R.forward_bound(w, dt, xs[i], mode, level, refs[i]),
                                 case_str("forward", w, mode, shape, level, lmax, dt, batch) + item(i), key)
            cin = np.stack([f32r(r) for r in refs])
            out = p.inverse((cin if batch > 1 else cin[0]).astype(dt))
            out = out if batch > 1 else out[None]
            for i in range(batch):
                chk.error_within(R.rel_err(out[i], invs[i], cin[i]),
                                 R.inverse_bound(w, dt, cin[i], slices, mode, shape, invs[i]),
                                 case_str("inverse", w, mode, shape, level, lmax, dt, batch) + item(i), key)
            cin = np.stack(rnds)
            out = p.inverse((cin if batch > 1 else cin[0]).astype(dt))
            out = out if batch > 1 else out[None]
            for i in range(batch):
                chk.error_within(R.rel_err(out[i], rnd_invs[i], cin[i]),
                                 R.inverse_bound(w, dt, cin[i], slices, mode, shape, rnd_invs[i]),
                                 case_str("inverse(random coeffs)", w, mode, shape, level, lmax, dt, batch) + item(i),
                                 key)


def sweep():
    k = 0
    for w in WAVELETS:
        for mode in R.modes():
            for shape in SHAPES:
                lmax = R.max_level(shape, w)
                for level in levels_for(lmax):
                    # batch > 1 on a rotating subset of the cases
                    k += 1
                    batch = 3 if k % 5 == 0 else 1
                    one_case(w, mode, shape, level, batch)


def test_batch_consistency():
    """A batched plan (on all cores) gives bit-identical items to single plans of the same input."""
    cases = [("db2", "symmetric", (13, 8), 2), ("bior4.4", "periodization", (5, 6, 7), 1),
             ("sym7", "reflect", (31, 17), None), ("dmey", "zero", (16, 9, 3), 1),
             ("haar", "antireflect", (64, 40), None)]
    for w, mode, shape, level in cases:
        for dt in DTYPES:
            xs = rng.standard_normal((4,) + shape).astype(dt)
            with P.Plan(w, shape, level, mode, dt, batch=4) as pb, P.Plan(w, shape, level, mode, dt) as p1:
                lwt.set_threads(0)
                cb = pb.forward(xs)
                ib = pb.inverse(cb)
                lwt.set_threads(1)
                for i in range(4):
                    c1 = p1.forward(xs[i])
                    chk.check(c1.tobytes() == cb[i].tobytes(),
                              "batch forward item %d != single: w=%s mode=%s shape=%s level=%s %s"
                              % (i, w, mode, shape, level, np.dtype(dt).name))
                    i1 = p1.inverse(cb[i])
                    chk.check(i1.tobytes() == ib[i].tobytes(),
                              "batch inverse item %d != single: w=%s mode=%s shape=%s level=%s %s"
                              % (i, w, mode, shape, level, np.dtype(dt).name))


def test_larger():
    """A few bigger cases (multi-threaded paths: all cores) against PyWavelets."""
    lwt.set_threads(0)
    cases = [("cdf97", "symmetric", (256, 192), None), ("db4", "periodization", (300, 200), 3),
             ("sym8", "smooth", (129, 257), 2), ("coif3", "periodic", (40, 36, 44), 2),
             ("bior2.2", "reflect", (33, 64, 31), None), ("db20", "antisymmetric", (96, 80), None),
             ("haar", "periodization", (512, 512), None), ("dmey", "symmetric", (200, 130), 1)]
    if QUICK:
        cases = cases[:3]
    for w, mode, shape, level in cases:
        x = f32r(rng.standard_normal(shape))
        ref, slices = R.ref_forward(x, w, mode, level)
        inv = R.ref_inverse(f32r(ref), slices, w, mode, shape)
        lmax = R.max_level(shape, w)
        for dt in DTYPES:
            with P.Plan(w, shape, level, mode, dt) as p:
                key = "%s/%dd/%s" % (w, len(shape), np.dtype(dt).name)
                chk.error_within(R.rel_err(p.forward(x.astype(dt)), ref, x),
                                 R.forward_bound(w, dt, x, mode, level, ref),
                                 case_str("forward", w, mode, shape, level, lmax, dt), key)
                chk.error_within(R.rel_err(p.inverse(f32r(ref).astype(dt)), inv, f32r(ref)),
                                 R.inverse_bound(w, dt, f32r(ref), slices, mode, shape, inv),
                                 case_str("inverse", w, mode, shape, level, lmax, dt), key)
    lwt.set_threads(1)


def test_unaligned():
    """Buffers aligned only to their element size (not 16/32/64 bytes)."""
    buf = np.zeros(1 << 16, dtype=np.uint8)
    obuf = np.zeros(1 << 16, dtype=np.uint8)
    for dt, off in [(np.float32, 4), (np.float32, 12), (np.float64, 8), (np.float64, 24)]:
        for w, mode, shape in [("cdf97", "symmetric", (33, 20)), ("db3", "periodization", (9, 10, 11)),
                               ("haar", "zero", (17, 5))]:
            nb = int(np.prod(shape)) * np.dtype(dt).itemsize
            x = np.frombuffer(buf[off:off + nb].data, dtype=dt).reshape(shape)
            x[...] = f32r(rng.standard_normal(shape))
            for threads in (1, 0):
                lwt.set_threads(threads)
                with P.Plan(w, shape, None, mode, dt) as p:
                    cb = p.info["coeff_count"] * np.dtype(dt).itemsize
                    o = np.frombuffer(obuf[off:off + cb].data, dtype=dt).reshape(p.info["packed_shape"])
                    o[...] = np.nan
                    p.forward(x, out=o)
                    ref, slices = R.ref_forward(x, w, mode, None)
                    cs = "unaligned (offset %d) forward w=%s mode=%s shape=%s %s" % (off, w, mode, shape, np.dtype(dt).name)
                    chk.error_within(R.rel_err(o, ref, x), R.forward_bound(w, dt, x, mode, None, ref), cs, "unaligned")
                    y = np.frombuffer(buf[off + nb + 64:off + 2 * nb + 64].data, dtype=dt).reshape(shape)
                    p.inverse(o, out=y)
                    inv = R.ref_inverse(o.astype(np.float64), slices, w, mode, shape)
                    chk.error_within(R.rel_err(y, inv, o), R.inverse_bound(w, dt, o.astype(np.float64), slices, mode,
                                                                          shape, inv), cs + " inverse", "unaligned")
    lwt.set_threads(1)


def test_sliding_window():
    """2-D plans with LWT_ALGO_LIFTING_LBB (the sliding-window level, the block body the CUDA
    kernel runs, executed on the CPU) against PyWavelets with the same bounds."""
    cases = [(w, mode, shape) for w in WAVELETS if w != "dmey" for mode in R.modes()
             for shape in [(13, 8), (31, 17), (64, 40), (300, 71)]]
    if QUICK:
        cases = cases[::7]
    for w, mode, shape in cases:
        x = f32r(rng.standard_normal(shape))
        lmax = R.max_level(shape, w)
        for level in sorted(set([1, max(1, lmax), lmax + 1])):
            if R.raises(shape, w, mode, level):
                continue
            ref, slices = R.ref_forward(x, w, mode, level)
            inv = R.ref_inverse(f32r(ref), slices, w, mode, shape)
            for dt in DTYPES:
                cs = case_str("sliding window", w, mode, shape, level, lmax, dt)
                try:
                    p = P.Plan(w, shape, level, mode, dt, algorithm="lbb")
                except RuntimeError as e:
                    # no lifting scheme within the bound for this dtype: the convolution path, not ours
                    chk.check(P.ACCURACY in str(e), "%s: %s" % (cs, e))
                    continue
                with p:
                    key = "lbb/%s/%s" % (w, np.dtype(dt).name)
                    chk.error_within(R.rel_err(p.forward(x.astype(dt)), ref, x),
                                     R.forward_bound(w, dt, x, mode, level, ref), cs + " forward", key)
                    chk.error_within(R.rel_err(p.inverse(f32r(ref).astype(dt)), inv, f32r(ref)),
                                     R.inverse_bound(w, dt, f32r(ref), slices, mode, shape, inv),
                                     cs + " inverse", key)


chk.run("wavelets x modes x shapes x levels", sweep)
chk.run("sliding-window 2-D levels (LWT_ALGO_LIFTING_LBB)", test_sliding_window)
chk.run("unaligned buffers", test_unaligned)
chk.run("batch items == single plans", test_batch_consistency)
chk.run("larger arrays", test_larger)
chk.finish()
