"""The C API surface of lwt.h through ctypes: symbols, pinned enum values,
version, status strings, NULL/invalid-argument handling, plan_desc defaults,
the log callback, and user P/U/K lifting schemes (lwt_wavelet_from_puk).
"""
import harness

harness.need_pywt()
L = harness.need_lib()

import ctypes as C  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402

import numpy as np  # noqa: E402
import pywt  # noqa: E402

import lwt_ctypes as lw  # noqa: E402
import reference as R  # noqa: E402

SEED = harness.seed()
rng = np.random.default_rng(SEED)
chk = harness.Checker("api")
ctx = lw.Context(threads=1)
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "lwt.h")


def st(s):
    return "%d (%s)" % (s, lw.STATUS_NAMES.get(s, "?"))


def test_symbols_and_version():
    chk.check(not lw.MISSING, "lwt.h functions missing from the library: %s" % lw.MISSING)
    v = lw.version()
    if os.path.exists(HEADER):
        txt = open(HEADER).read()
        parts = [re.search(r"#define LWT_VERSION_%s (\d+)" % k, txt).group(1) for k in ("MAJOR", "MINOR", "PATCH")]
        chk.check(v == ".".join(parts), "lwt_version_string() = %r, header says %s" % (v, ".".join(parts)))
        # pinned enum values: the binding's tables must match the header
        for name, val in lw.MODES.items():
            chk.check(re.search(r"LWT_MODE_%s = %d\b" % (name.upper(), val), txt) is not None,
                      "binding: LWT_MODE_%s = %d not in lwt.h" % (name.upper(), val))
        for val, name in lw.STATUS_NAMES.items():
            chk.check(re.search(r"%s = %d\b" % (name, val), txt) is not None, "binding: %s = %d not in lwt.h" % (name, val))
    strs = [lw.status_string(s) for s in range(10)]
    chk.check(all(s for s in strs), "lwt_status_string: empty/NULL for some status in 0..9: %s" % strs)
    chk.check(len(set(strs)) == 10, "lwt_status_string: not distinct: %s" % strs)


def test_struct_layout():
    """The ctypes mirrors have the C structs' size and field offsets (needs a C compiler)."""
    import shutil
    import subprocess
    import tempfile
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc or not os.path.exists(HEADER):
        print("note: no C compiler or header; struct layout not checked")
        return
    structs = [("lwt_wavelet_info", lw.WaveletInfo), ("lwt_laurent", lw.Laurent), ("lwt_puk_scheme", lw.PukScheme),
               ("lwt_plan_desc", lw.PlanDesc), ("lwt_plan_info", lw.PlanInfo), ("lwt_band", lw.Band),
               ("lwt_plan_tuning", lw.PlanTuning)]
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "lwt.h"', '#include "lwt_experimental.h"',
             "int main(void) {"]
    want = []
    for cname, py in structs:
        lines.append('printf("%%zu\\n", sizeof(%s));' % cname)
        want.append(("sizeof(%s)" % cname, C.sizeof(py)))
        for f, _ in py._fields_:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (cname, f))
            want.append(("offsetof(%s, %s)" % (cname, f), getattr(py, f).offset))
    lines += ["return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        env = lw.subprocess_env()
        r = subprocess.run([cc, "-std=c11", "-I", os.path.dirname(HEADER), src, "-o", exe],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            chk.fail("struct layout probe does not compile: %s" % r.stderr[:500])
            return
        got = subprocess.run([exe], capture_output=True, text=True, env=env).stdout.split()
    chk.check(len(got) == len(want), "layout probe printed %d values, want %d" % (len(got), len(want)))
    for (what, v), g in zip(want, got):
        chk.check(int(g) == v, "%s: C says %s, ctypes binding says %d" % (what, g, v))


def test_modes():
    for name, val in lw.MODES.items():
        s, m = lw.mode_from_name(name)
        chk.check(s == lw.LWT_OK and m == val, "lwt_mode_from_name(%r) = %s, %d; want %d" % (name, st(s), m, val))
        chk.check(lw.mode_name(val) == name, "lwt_mode_name(%d) = %r, want %r" % (val, lw.mode_name(val), name))
    # PyWavelets' legacy names: if accepted, they must mean what they mean in pywt
    for legacy, canon in (("zpd", "zero"), ("cpd", "constant"), ("sym", "symmetric"), ("ppd", "periodic"),
                          ("sp1", "smooth"), ("per", "periodization")):
        s, m = lw.mode_from_name(legacy)
        if s == lw.LWT_OK:
            chk.check(m == lw.MODES[canon], "lwt_mode_from_name(%r) = %d, pywt means %s" % (legacy, m, canon))
    for bad in ("mirror", "", "Symmetric ", "periodisation"):
        s, m = lw.mode_from_name(bad)
        chk.check(s == lw.LWT_ERR_UNKNOWN_MODE, "lwt_mode_from_name(%r) = %s, want LWT_ERR_UNKNOWN_MODE" % (bad, st(s)))
    s, m = lw.mode_from_name(None)
    chk.check(s != lw.LWT_OK, "lwt_mode_from_name(NULL) = %s, want an error" % st(s))
    chk.check(set(R.modes()) == set(lw.MODES), "pywt modes %s vs lwt %s" % (R.modes(), list(lw.MODES)))


def test_null_and_invalid():
    # destroy(NULL) are no-ops
    L.lwt_plan_destroy(None)
    L.lwt_wavelet_destroy(None)
    L.lwt_context_destroy(None)
    chk.check(True, "")
    s = L.lwt_context_create(None)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_context_create(NULL) = %s" % st(s))
    s = L.lwt_context_set_threads(ctx.h, -1)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_context_set_threads(-1) = %s" % st(s))
    s = L.lwt_context_set_threads(None, 1)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_context_set_threads(NULL ctx) = %s" % st(s))
    chk.check(L.lwt_context_device_count(ctx.h) >= 0, "lwt_context_device_count < 0")

    h = C.c_void_p()
    s = L.lwt_wavelet_create(ctx.h, b"db99", C.byref(h))
    chk.check(s == lw.LWT_ERR_UNKNOWN_WAVELET, "lwt_wavelet_create('db99') = %s" % st(s))
    chk.check(len(ctx.log) > 0, "no log message for an unknown wavelet")
    for bad in (b"morl", b"", b"DB2", b"db2 ", b"bior4.5"):
        s = L.lwt_wavelet_create(ctx.h, bad, C.byref(h))
        chk.check(s == lw.LWT_ERR_UNKNOWN_WAVELET, "lwt_wavelet_create(%r) = %s" % (bad, st(s)))
    s = L.lwt_wavelet_create(ctx.h, None, C.byref(h))
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_create(NULL name) = %s" % st(s))
    s = L.lwt_wavelet_create(ctx.h, b"db2", None)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_create(out NULL) = %s" % st(s))
    # ctx NULL: lwt.h does not say; report what happens, do not fail
    s = L.lwt_wavelet_create(None, b"db2", C.byref(h))
    print("note: lwt_wavelet_create(ctx NULL) = %s" % st(s))
    if s == lw.LWT_OK:
        L.lwt_wavelet_destroy(h)
    wv = ctx.wavelet("db2")
    s = L.lwt_wavelet_get_info(wv.h, None)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_get_info(out NULL) = %s" % st(s))
    s = L.lwt_wavelet_get_info(None, C.byref(lw.WaveletInfo()))
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_get_info(w NULL) = %s" % st(s))

    d = L.lwt_plan_desc_default()
    chk.check(d.wavelet is None and d.ndim == 1 and d.levels == lw.LWT_LEVELS_MAX
              and d.mode == lw.MODES["symmetric"] and d.dtype == lw.LWT_F64 and d.backend == lw.LWT_BACKEND_AUTO
              and d.batch == 1 and d.algorithm == lw.LWT_ALGO_AUTO,
              "lwt_plan_desc_default: wavelet=%s ndim=%d levels=%d mode=%d dtype=%d backend=%d batch=%d algorithm=%d"
              % (d.wavelet, d.ndim, d.levels, d.mode, d.dtype, d.backend, d.batch, d.algorithm))

    def desc(**kw):
        dd = lw.make_desc(wv, kw.pop("shape", (16, 12)), kw.pop("level", 1), "symmetric", np.float64)
        for k, v in kw.items():
            if k == "shape_raw":
                for i, x in enumerate(v):
                    dd.shape[i] = x
            else:
                setattr(dd, k, v)
        return dd

    bad = [
        ("wavelet NULL", desc(wavelet=None), None),
        ("ndim 0", desc(ndim=0), None),
        ("ndim 4", desc(ndim=4), None),
        ("ndim -1", desc(ndim=-1), None),
        ("shape with a 0", desc(shape_raw=(16, 0, 0)), None),
        ("levels -2", desc(levels=-2), None),
        ("levels -100", desc(levels=-100), None),
        ("mode 9", desc(mode=9), (lw.LWT_ERR_UNKNOWN_MODE, lw.LWT_ERR_INVALID_ARGUMENT)),
        ("mode -1", desc(mode=-1), (lw.LWT_ERR_UNKNOWN_MODE, lw.LWT_ERR_INVALID_ARGUMENT)),
        ("dtype 2", desc(dtype=2), None),
        ("backend 3", desc(backend=3), None),
        ("algorithm 6", desc(algorithm=6), None),
        ("size 0", desc(size=0), None),
        ("size larger than this library's", desc(size=C.sizeof(lw.PlanDesc) + 8), None),
        ("algorithm -1", desc(algorithm=-1), None),
        ("batch 0", desc(batch=0), None),
        ("size overflow", desc(ndim=3, shape_raw=(2**40, 2**40, 2**40), level=0), None),
        ("coefficient count overflow", desc(ndim=2, shape_raw=(2**63, 3), level=1), None),
    ]
    for what, dd, allowed in bad:
        s, hp = lw.plan_create_status(ctx, dd)
        if hp:
            L.lwt_plan_destroy(hp)
        if allowed is None:
            chk.check(s != lw.LWT_OK and s != lw.LWT_ERR_INTERNAL,
                      "lwt_plan_create(%s) = %s, want an error (not internal)" % (what, st(s)))
        else:
            chk.check(s in allowed, "lwt_plan_create(%s) = %s, want one of %s" % (what, st(s), allowed))
    if L.lwt_context_device_count(ctx.h) == 0:
        s, hp = lw.plan_create_status(ctx, desc(backend=lw.LWT_BACKEND_CUDA))
        if hp:
            L.lwt_plan_destroy(hp)
        chk.check(s == lw.LWT_ERR_BACKEND_UNAVAILABLE, "backend CUDA without a device: %s" % st(s))
    hp = C.c_void_p()
    s = L.lwt_plan_create(ctx.h, None, C.byref(hp))
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_create(desc NULL) = %s" % st(s))
    s = L.lwt_plan_create(ctx.h, C.byref(desc()), None)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_create(out NULL) = %s" % st(s))
    s = L.lwt_plan_create(None, C.byref(desc()), C.byref(hp))
    print("note: lwt_plan_create(ctx NULL) = %s" % st(s))
    if s == lw.LWT_OK:
        L.lwt_plan_destroy(hp)

    # the experimental knobs (lwt_experimental.h) are checked too
    for field, v in (("fuse_levels", 2), ("lbb_threads", 48), ("lbb_cols", 8), ("lifting", 3)):
        t = L.lwt_plan_tuning_default()
        setattr(t, field, v)
        hp = C.c_void_p()
        s = L.lwt_plan_create_tuned(ctx.h, C.byref(desc()), C.byref(t), C.byref(hp))
        if s == lw.LWT_OK:
            L.lwt_plan_destroy(hp)
        chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_create_tuned(%s %d) = %s" % (field, v, st(s)))
    t = L.lwt_plan_tuning_default()
    chk.check((t.lbb_threads, t.lbb_cols, t.lifting, t.fuse_levels) == (0, 0, 0, 0), "lwt_plan_tuning_default not 0")

    # the GPU kernel arrangements are lifting plans (the same computation on the CPU)
    for algo in (lw.LWT_ALGO_LIFTING_RC, lw.LWT_ALGO_LIFTING_LBB, lw.LWT_ALGO_LIFTING_RC_STEPS):
        s, hp = lw.plan_create_status(ctx, desc(algorithm=algo))
        chk.check(s == lw.LWT_OK, "lwt_plan_create(algorithm %d) = %s, want OK" % (algo, st(s)))
        if hp:
            L.lwt_plan_destroy(hp)

    n0 = len(ctx.log)
    s, hp = lw.plan_create_status(ctx, desc(levels=-2))
    chk.check(len(ctx.log) > n0, "no log message for a refused plan (levels -2)")

    with lw.Plan(ctx, wv, (16, 12), 1, "symmetric", np.float64) as p:
        x = np.zeros((16, 12))
        out = np.zeros(p.info["packed_shape"])
        for what, args in [("plan NULL", (None, x.ctypes.data, out.ctypes.data, None)),
                           ("input NULL", (p.h, None, out.ctypes.data, None)),
                           ("output NULL", (p.h, x.ctypes.data, None, None))]:
            s = L.lwt_forward(*args)
            chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_forward(%s) = %s" % (what, st(s)))
            s = L.lwt_inverse(*args)
            chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_inverse(%s) = %s" % (what, st(s)))
        s = L.lwt_plan_get_info(p.h, None)
        chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_get_info(out NULL) = %s" % st(s))
        s = L.lwt_plan_get_info(None, C.byref(lw.PlanInfo()))
        chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_get_info(plan NULL) = %s" % st(s))
        s = L.lwt_plan_band(p.h, 0, 0, None)
        chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_band(out NULL) = %s" % st(s))
        s = L.lwt_plan_band(None, 0, 0, C.byref(lw.Band()))
        chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_plan_band(plan NULL) = %s" % st(s))
        chk.check(p.info["backend"] == lw.LWT_BACKEND_CPU or L.lwt_context_device_count(ctx.h) > 0,
                  "backend auto resolved to %d without a CUDA device" % p.info["backend"])


def test_lifetimes():
    """A plan keeps working after its wavelet is destroyed (lwt.h only asks the
    context to outlive wavelets and plans); under ASan a dangling reference aborts."""
    s, h = lw.create_wavelet_status(ctx, "db4")
    chk.check(s == lw.LWT_OK, "lwt_wavelet_create(db4) = %s" % st(s))
    d = lw.make_desc(h, (64, 40), 2, "symmetric", np.float64)
    s, p = lw.plan_create_status(ctx, d)
    chk.check(s == lw.LWT_OK, "lwt_plan_create = %s" % st(s))
    L.lwt_wavelet_destroy(h)
    x = rng.standard_normal((64, 40))
    info = lw.PlanInfo()
    L.lwt_plan_get_info(p, C.byref(info))
    out = np.full((info.packed_shape[0], info.packed_shape[1]), np.nan)
    s = L.lwt_forward(p, x.ctypes.data, out.ctypes.data, None)
    ref = R.ref_forward(x, "db4", "symmetric", 2)[0]
    chk.check(s == lw.LWT_OK and R.rel_err(out, ref, x) <= R.bound_f64("db4"),
              "plan used after lwt_wavelet_destroy: %s, err %.3g" % (st(s), R.rel_err(out, ref, x)))
    L.lwt_plan_destroy(p)
    # two contexts, interleaved use and destruction
    c1, c2 = lw.Context(threads=1), lw.Context(threads=2)
    p1 = lw.Plan(c1, "sym4", (31, 17), None, "zero", np.float32)
    p2 = lw.Plan(c2, "sym4", (31, 17), None, "zero", np.float32)
    x = rng.standard_normal((31, 17)).astype(np.float32)
    chk.check(p1.forward(x).tobytes() == p2.forward(x).tobytes(), "two contexts disagree")
    p1.close()
    c1.close()
    chk.check(p2.forward(x).shape == tuple(p2.info["packed_shape"]), "plan of a live context broken by another")
    p2.close()
    c2.close()


def puk(name, u0, steps, K):
    """Build an lwt_puk_scheme; returns (struct, keepalive)."""
    keep = []

    def laurent(op):
        if op is None:
            return lw.Laurent(0, 0, None)
        start, taps = op
        arr = (C.c_double * len(taps))(*taps)
        keep.append(arr)
        return lw.Laurent(start, len(taps), C.cast(arr, C.POINTER(C.c_double)))
    ps = (lw.Laurent * max(1, len(steps)))(*[laurent(p) for p, u in steps])
    us = (lw.Laurent * max(1, len(steps)))(*[laurent(u) for p, u in steps])
    keep += [ps, us]
    nm = name.encode() if name else None
    keep.append(nm)
    s = lw.PukScheme(nm, laurent(u0), len(steps), C.cast(ps, C.POINTER(lw.Laurent)),
                     C.cast(us, C.POINTER(lw.Laurent)), K)
    return s, keep


def puk_wavelet(name, u0, steps, K):
    sch, keep = puk(name, u0, steps, K)
    h = C.c_void_p()
    s = L.lwt_wavelet_from_puk(ctx.h, C.byref(sch), C.byref(h))
    return s, h


class _W:
    """Minimal Wavelet-like wrapper around a raw handle (for Plan)."""

    def __init__(self, h, name):
        self.h, self.name, self.ctx = h, name, ctx
        self._info = None

    info = lw.Wavelet.info
    filters = lw.Wavelet.filters


def test_puk():
    """User schemes: the filters the library derives, used as a PyWavelets wavelet,
    give the library's transform; and they are a perfect-reconstruction bank."""
    r2 = np.sqrt(2.0)
    schemes = [
        ("puk-haar", None, [((0, [1.0]), (0, [-0.5]))], 1 / r2),
        ("puk-53", None, [((0, [0.5, 0.5]), (-1, [-0.25, -0.25]))], 1 / r2),
        ("puk-97", None, [((0, [-1.586134342059924, -1.586134342059924]), (-1, [-0.052980118572961, -0.052980118572961])),
                          ((0, [0.882911075530934, 0.882911075530934]), (-1, [0.443506852043971, 0.443506852043971]))],
         1.149604398860241),
        ("puk-u0", (0, [0.25]), [((0, [1.0]), (0, [-0.5]))], 1.0),
    ]
    for name, u0, steps, K in schemes:
        s, h = puk_wavelet(name, u0, steps, K)
        if not chk.check(s == lw.LWT_OK, "lwt_wavelet_from_puk(%s) = %s %s" % (name, st(s), ctx.errors()[-1:])):
            continue
        w = _W(h, name)
        try:
            info = w.info()
            chk.check(info["family"] == "user" and info["name"] == name,
                      "%s: info family %r name %r" % (name, info["family"], info["name"]))
            fb = [list(f) for f in w.filters()]
            pw = pywt.Wavelet(name, filter_bank=fb)
            for mode in ("periodization", "symmetric", "zero", "smooth"):
                for shape in [(64,), (37,), (12, 10)]:
                    x = rng.standard_normal(shape)
                    lev = max(1, min([2] + [pywt.dwt_max_level(n, pw.dec_len) for n in shape]))
                    c = pywt.wavedecn(x, pw, mode=mode, level=lev)
                    ref, slices = pywt.coeffs_to_array(c)
                    rec = pywt.waverecn(c, pw, mode=mode)[tuple(slice(0, n) for n in shape)]
                    cs = "puk %s mode=%s shape=%s level=%d" % (name, mode, shape, lev)
                    chk.error_within(R.rel_err(rec, x), 1e-12, cs + ": derived filter bank is not PR", "puk PR")
                    with lw.Plan(ctx, w, shape, lev, mode, np.float64) as p:
                        got = p.forward(x)
                        chk.error_within(R.rel_err(got, ref, x), 1e-12, cs + " forward vs pywt(derived filters)", "puk")
                        inv = p.inverse(ref)
                        want = pywt.waverecn(pywt.array_to_coeffs(ref, slices, output_format="wavedecn"), pw,
                                             mode=mode)[tuple(slice(0, n) for n in shape)]
                        chk.error_within(R.rel_err(inv, want, ref), 1e-12, cs + " inverse vs pywt(derived filters)", "puk")
            if name == "puk-haar":
                chk.check(R.rel_err(np.abs(fb[0]), np.abs(pywt.Wavelet("haar").dec_lo)) < 1e-15,
                          "puk-haar: dec_lo %s" % fb[0])
        finally:
            L.lwt_wavelet_destroy(h)
    # invalid schemes
    sch, keep = puk("bad-K", None, [((0, [1.0]), (0, [-0.5]))], 0.0)
    h = C.c_void_p()
    s = L.lwt_wavelet_from_puk(ctx.h, C.byref(sch), C.byref(h))
    if s == lw.LWT_OK:
        L.lwt_wavelet_destroy(h)
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_from_puk(K = 0) = %s" % st(s))
    s = L.lwt_wavelet_from_puk(ctx.h, None, C.byref(h))
    chk.check(s == lw.LWT_ERR_INVALID_ARGUMENT, "lwt_wavelet_from_puk(NULL) = %s" % st(s))


def test_explain():
    """lwt_plan_explain through the binding: the header line, then one line per level (the CPU's
    fused level by default) or per pass of each level (a plan asking for the row-column passes)."""
    ctx = lw.Context()
    with lw.Plan(ctx, "db4", (40, 30), 2, "symmetric", np.float64, backend=lw.LWT_BACKEND_CPU) as p:
        text = lw.plan_explain(p.h)
        lines = text.splitlines()
        chk.check(lines[0].startswith("plan: db4, 2-D, 2 levels, symmetric, float64, cpu backend"),
                  "lwt_plan_explain header: %r" % lines[:1])
        for j in (1, 2):
            for d, axes in (("forward", "0,1"), ("inverse", "1,0")):
                chk.check(any(ln.startswith("%s level %d axes %s: fused level, lifting (cpu)" % (d, j, axes))
                              for ln in lines),
                          "lwt_plan_explain: no fused %s level %d:\n%s" % (d, j, text))
    with lw.Plan(ctx, "db4", (40, 30), 2, "symmetric", np.float64, backend=lw.LWT_BACKEND_CPU,
                 algorithm=lw.LWT_ALGO_LIFTING_RC) as p:
        text = lw.plan_explain(p.h)
        lines = text.splitlines()
        for j in (1, 2):
            for d, axes in (("forward", (0, 1)), ("inverse", (1, 0))):
                for k in axes:
                    chk.check(any(ln.startswith("%s level %d axis %d: lifting pass (cpu)" % (d, j, k)) for ln in lines),
                              "lwt_plan_explain: no %s level %d axis %d pass:\n%s" % (d, j, k, text))


chk.run("symbols, version, status strings", test_symbols_and_version)
chk.run("struct layout (C vs ctypes)", test_struct_layout)
chk.run("modes", test_modes)
chk.run("NULL and invalid arguments", test_null_and_invalid)
chk.run("object lifetimes", test_lifetimes)
chk.run("user P/U/K schemes", test_puk)
chk.run("lwt_plan_explain", test_explain)
ctx.close()
chk.finish()
