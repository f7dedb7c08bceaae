"""Properties of liblwt's transforms (plans through the lwt package, pkg_plan.py).

- perfect reconstruction: inverse(forward(x)) == x for every wavelet but dmey,
  every mode, 1-D/2-D/3-D, levels max and beyond, f64 and f32;
- linearity of forward and inverse;
- periodization shift: for n divisible by 2^J, rolling the input by 2^J rolls
  the level-j bands by 2^(J-j) (the coarsest by 1), per axis in n-D;
- energy preservation for orthogonal wavelets in periodization mode;
- vanishing moments: db N / sym N detail coefficients of polynomials of degree
  < N, coif N of degree < 2N, vanish in the interior;
- bit-identical results for 1, 2, 3, 4, 7 threads and the default (one plan run
  from several Python threads at once: test_pkg_threads.py).
Bounds: docs/ACCURACY.md.
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
chk = harness.Checker("properties")
# Single-threaded for the numerical properties (fast on tiny arrays); thread
# counts are the subject of test_threads.
lwt.set_threads(1)
DTYPES = [np.float64, np.float32]
ALL = R.discrete_wavelets()
QUICK_SET = ["haar", "db2", "db9", "db38", "sym3", "sym20", "coif2", "coif17", "bior2.2", "bior3.1",
             "bior4.4", "bior6.8", "rbio3.9", "rbio5.5"]


def dtn(dt):
    return np.dtype(dt).name


def pr_err(y, x, c):
    """Round-trip error max|y - x| / max(max|x|, max|c|): the scale includes the
    coefficients the inverse consumed (docs/ACCURACY.md, "error measure")."""
    return R.rel_err(y, x, c)


def pywt_pr_error(x, w, mode, level):
    """PyWavelets' own round-trip error on this very input, in x's dtype."""
    c = pywt.wavedecn(x, R.canonical(w), mode=mode, level=level)
    packed = pywt.coeffs_to_array(c)[0]
    y = pywt.waverecn(c, R.canonical(w), mode=mode)
    y = y[tuple(slice(0, n) for n in x.shape)]
    return pr_err(y, x, packed)


def pr_bound(x, w, mode, level, dt):
    """max(bound(w, dt), 10 x PyWavelets' own round trip of the same case in dt)."""
    own = pywt_pr_error(x.astype(dt), w, mode, level)
    return max(R.bound(w, dt), R.RT_FACTOR * own)


# ------------------------------------------------------------ reconstruction
def test_reconstruction():
    wavelets = [w for w in (QUICK_SET if QUICK else ALL) if w != "dmey"] + ["cdf97", "cdf53"]
    shapes = [(5,), (64,), (97,), (13, 8), (1, 7), (6, 5, 7)]
    if QUICK:
        shapes = [(64,), (97,), (13, 8), (6, 5, 7)]
    for w in wavelets:
        for mode in R.modes():
            for shape in shapes:
                lmax = R.max_level(shape, w)
                for level in (None, lmax + 1):
                    if R.raises(shape, w, mode, level):
                        continue
                    x = rng.standard_normal(shape)
                    for dt in DTYPES:
                        xd = x.astype(dt)
                        with P.Plan(w, shape, level, mode, dt) as p:
                            c = p.forward(xd)
                            y = p.inverse(c)
                        cs = "inverse(forward(x)) w=%s mode=%s shape=%s level=%s %s" % (
                            w, mode, shape, R.level_name(level, lmax), dtn(dt))
                        chk.error_within(pr_err(y, xd, c), pr_bound(x, w, mode, level, dt), cs,
                                         "PR %s/%s" % (w, dtn(dt)))


# ------------------------------------------------------------ linearity
def test_linearity():
    wavelets = ["haar", "db4", "sym9", "coif4", "bior3.5", "rbio6.8", "dmey", "db30"]
    for w in wavelets:
        for mode in R.modes():
            for shape in [(61,), (17, 12), (7, 8, 9)]:
                if R.raises(shape, w, mode, None):
                    continue
                for dt in DTYPES:
                    a, b = 0.75, -2.5
                    x = rng.standard_normal(shape).astype(dt)
                    y = rng.standard_normal(shape).astype(dt)
                    z = (a * x.astype(np.float64) + b * y.astype(np.float64)).astype(dt)
                    with P.Plan(w, shape, None, mode, dt) as p:
                        fx, fy, fz = (p.forward(v).astype(np.float64) for v in (x, y, z))
                        cs = "linearity forward w=%s mode=%s shape=%s %s" % (w, mode, shape, dtn(dt))
                        lin = a * fx + b * fy
                        chk.error_within(R.rel_err(fz, lin), R.bound(w, dt), cs, "lin %s/%s" % (w, dtn(dt)))
                        # inverse
                        cx, cy = (R.clean_packed(c, R.slices_for(shape, w, mode, None)[1]).astype(dt) for c in (fx, fy))
                        cz = (a * cx.astype(np.float64) + b * cy.astype(np.float64)).astype(dt)
                        ix, iy, iz = (p.inverse(c).astype(np.float64) for c in (cx, cy, cz))
                        cs = "linearity inverse w=%s mode=%s shape=%s %s" % (w, mode, shape, dtn(dt))
                        chk.error_within(R.rel_err(iz, a * ix + b * iy), R.bound(w, dt), cs, "lin %s/%s" % (w, dtn(dt)))


# ------------------------------------------------------------ periodization shift
def band_views(packed, slices, ndim):
    """[(level j counted from finest = 1, array)] for every band of a packed array."""
    J = len(slices) - 1
    out = [(J, packed[slices[0]])]
    for i, d in enumerate(slices[1:], start=1):
        for key, sl in d.items():
            out.append((J - i + 1, packed[sl]))
    return out


def test_periodization_shift():
    """In periodization, with every n divisible by 2^J, x -> roll(x, 2^J) along an axis
    maps each level-j band to roll(band, 2^(J-j)) along that axis (exact up to rounding)."""
    wavelets = ["haar", "db2", "db6", "sym5", "coif3", "bior2.2", "bior4.4", "rbio3.3", "dmey", "db20"]
    cases = [((256,), 3), ((64,), 1), ((128,), 5), ((32, 48), 2), ((16, 8, 24), 2), ((64, 64), 4)]
    if QUICK:
        wavelets = wavelets[:6]
    for w in wavelets:
        for shape, J in cases:
            for dt in DTYPES:
                x = rng.standard_normal(shape).astype(dt)
                slices = R.slices_for(shape, w, "periodization", J)[1]
                with P.Plan(w, shape, J, "periodization", dt) as p:
                    c0 = p.forward(x)
                    for axis in range(len(shape)):
                        for k in (1, 3):
                            xs = np.roll(x, k * 2**J, axis=axis)
                            c1 = p.forward(xs)
                            err = 0.0  # max over bands, relative to max|c0|
                            for (lev, b0), (_, b1) in zip(band_views(c0, slices, len(shape)),
                                                          band_views(c1, slices, len(shape))):
                                want = np.roll(b0, k * 2 ** (J - lev), axis=axis).astype(np.float64)
                                err = max(err, float(np.abs(b1 - want).max()) / max(float(np.abs(c0).max()), R.TINY))
                            cs = "periodization shift by %d*2^J w=%s shape=%s J=%d axis=%d %s" % (
                                k, w, shape, J, axis, dtn(dt))
                            chk.error_within(err, R.bound(w, dt), cs, "shift %s/%s" % (w, dtn(dt)))
                            if w != "dmey":  # and the inverse undoes the shift
                                y = p.inverse(c1)
                                chk.error_within(pr_err(y, xs, c1), pr_bound(xs.astype(np.float64), w, "periodization", J, dt),
                                                 cs + " inverse", "shift %s/%s" % (w, dtn(dt)))


# ------------------------------------------------------------ energy
def test_energy():
    """Orthogonal wavelets in periodization with n divisible by 2^J: sum of squares kept."""
    ortho = [w for w in ALL if R.family(w) in ("haar", "db", "sym", "coif")]
    if QUICK:
        ortho = [w for w in ortho if w in QUICK_SET]
    for w in ortho:
        info = P.wavelet_info(w)
        chk.check(info["orthogonal"] == 1, "%s: info.orthogonal = %d" % (w, info["orthogonal"]))
        for shape, J in [((256,), None), ((512,), 3), ((64, 32), None), ((16, 16, 8), 2)]:
            x = rng.standard_normal(shape)
            lev = J if J is not None else max(1, R.max_level(shape, w))
            if any(n % 2**lev for n in shape):
                continue
            with P.Plan(w, shape, lev, "periodization", np.float64) as p:
                c = p.forward(x)
            e_in, e_out = float((x**2).sum()), float((c**2).sum())
            err = abs(e_out - e_in) / e_in
            cs = "energy w=%s periodization shape=%s level=%d f64 (sum x^2 %.17g, sum c^2 %.17g)" % (
                w, shape, lev, e_in, e_out)
            chk.error_within(err, R.bound_f64(w), cs, "energy %s" % w)


# ------------------------------------------------------------ vanishing moments
def interior(n, Lf, ncoef):
    """Indices i of level-1 detail coefficients whose support x[2i+1-Lf+1 .. 2i+1] is inside x."""
    return [i for i in range(ncoef) if 2 * i + 1 - (Lf - 1) >= 0 and 2 * i + 1 <= n - 1]


def test_vanishing_moments():
    """Level-1 'symmetric' details of a random polynomial of degree N-1 (N = number of
    vanishing moments: db N, sym N -> N; coif N -> 2N) vanish at the interior
    coefficients: max|d_interior| / max|x| <= bound(w). At degree N they must not
    (where PyWavelets' do not), so the check is not vacuous."""
    ws = [w for w in ALL if R.family(w) in ("db", "sym", "coif")]
    if QUICK:
        ws = [w for w in ws if w in QUICK_SET]
    for w in ws:
        W = R.pywt_wavelet(w)
        N = W.vanishing_moments_psi
        Lf = W.dec_len
        n = 4 * Lf + 10
        t = (np.arange(n) - n / 2) / Lf
        na = pywt.dwt_coeff_len(n, Lf, "symmetric")
        idx = interior(n, Lf, na)
        if not chk.check(len(idx) > 0, "vanishing moments %s: no interior coefficients" % w):
            continue
        for deg in (N - 1, N):
            x = np.polynomial.polynomial.polyval(t, rng.standard_normal(deg + 1))
            with P.Plan(w, (n,), 1, "symmetric", np.float64) as p:
                c = p.forward(x)
            d = float(np.abs(c[na:][idx]).max()) / float(np.abs(x).max())
            if deg < N:
                chk.error_within(d, R.bound_f64(w),
                                 "vanishing moments w=%s: interior details of a degree-%d polynomial (N=%d), "
                                 "symmetric, n=%d, level 1, f64" % (w, deg, N, n), "vm %s" % w)
            else:
                _, cDp = pywt.dwt(x, R.canonical(w), "symmetric")
                dp = float(np.abs(cDp[idx]).max()) / float(np.abs(x).max())
                if dp > 1e3 * R.bound_f64(w):
                    chk.check(d > 0.1 * dp, "vanishing moments w=%s: degree-%d interior details %.3g, pywt %.3g"
                              % (w, deg, d, dp))


# ------------------------------------------------------------ threads
def test_threads():
    cases = [("cdf97", "symmetric", (257, 300), None, 1), ("db4", "periodization", (256, 192), 4, 1),
             ("sym20", "reflect", (130, 121), 2, 1), ("dmey", "zero", (128, 140), 1, 1),
             ("bior2.2", "smooth", (40, 33, 50), None, 1), ("db2", "periodization", (32, 64, 48), 3, 1),
             ("coif5", "antisymmetric", (30, 31, 29), 1, 1), ("haar", "symmetric", (64, 70), None, 3)]
    if QUICK:
        cases = [cases[0], cases[4]]
    counts = (1, 2, 3, 4, 7, 0)

    def runs(p, x):
        """(forward, inverse) bytes of plan p on x for each thread count"""
        res = {}
        for t in counts:
            lwt.set_threads(t)
            f = p.forward(x)
            res[t] = (f.tobytes(), p.inverse(f).tobytes())
        lwt.set_threads(1)
        return res

    for w, mode, shape, level, batch in cases:
        for dt in DTYPES:
            full = ((batch,) + shape) if batch > 1 else shape
            x = rng.standard_normal(full).astype(dt)
            res = runs(P.Plan(w, shape, level, mode, dt, batch=batch), x)
            for t in counts[1:]:
                cs = "w=%s mode=%s shape=%s level=%s %s batch=%d" % (w, mode, shape, level, dtn(dt), batch)
                chk.check(res[t][0] == res[1][0], "forward with %d threads differs from 1 thread: %s" % (t, cs))
                chk.check(res[t][1] == res[1][1], "inverse with %d threads differs from 1 thread: %s" % (t, cs))
    # small odd shapes: every thread count must give the same bits here too
    small = [(13, 8), (31, 17), (7, 1), (5, 6, 7), (16, 9, 3), (1, 4, 9)]
    for w in (["db2", "bior4.4", "sym20", "dmey"] if not QUICK else ["db2", "sym20"]):
        for mode in ("symmetric", "periodization", "smooth"):
            for shape in small:
                for dt in DTYPES:
                    x = rng.standard_normal(shape).astype(dt)
                    res = runs(P.Plan(w, shape, None, mode, dt), x)
                    for t in counts[1:]:
                        chk.check(res[t] == res[1], "%d threads differ from 1 thread: w=%s mode=%s shape=%s level=max %s"
                                  % (t, w, mode, shape, dtn(dt)))


chk.run("perfect reconstruction", test_reconstruction)
chk.run("linearity", test_linearity)
chk.run("periodization shift", test_periodization_shift)
chk.run("energy (orthogonal, periodization)", test_energy)
chk.run("vanishing moments", test_vanishing_moments)
chk.run("threads 1/2/3/4/7/default bit-identical", test_threads)
chk.finish()
