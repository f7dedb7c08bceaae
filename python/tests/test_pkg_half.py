"""float16 and bfloat16 storage (liblwt's LWT_F16 / LWT_BF16 plans, docs/API.md "16-bit
storage"): the 16-bit result must be the float32 result of the same 16-bit input, rounded once
by NumPy's own astype(float16) (round to nearest even) for float16, and by this file's own
bfloat16 rounding (on the float32 bits, written here) for bfloat16; bit for bit. Also: PyWavelets'
rule stays the default (float16 in, float32 out), set_float16_storage(True) keeps float16, and
the CLI keeps a '<f2' .npy file's dtype with the same bits."""
import os

import numpy as np

import harness

harness.need_pywt()
import lwt  # noqa: E402
from lwt import _core  # noqa: E402

chk = harness.Checker("test_pkg_half")
WAVELETS = ["haar", "db4", "bior4.4", "sym8", "coif3", "db20", "rbio3.5", "dmey"]
MODES = ["zero", "constant", "symmetric", "reflect", "periodic", "smooth", "antisymmetric", "antireflect",
         "periodization"]
F16, BF16 = 2, 3  # lwt_dtype codes (include/lwt.h)


def bf16_round(x32):
    """float32 -> bfloat16 bits, to nearest, ties to even; NaN kept a NaN."""
    u = np.asarray(x32, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x32)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def bf16_widen(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


def run(w, shape, levels, mode, code, x16, inverse=False):
    """liblwt's plan of dtype code on the 16-bit array x16 (uint16 bits); and the float32 plan's
    result on the widened input."""
    wav = lwt.Wavelet(w)
    h, info = _core.plan(wav._handle, tuple(shape), levels, mode, code, 1, 1, 0)
    h32, _ = _core.plan(wav._handle, tuple(shape), levels, mode, 0, 1, 1, 0)
    n_out = int(np.prod(info["shape"] if inverse else info["packed_shape"]))
    out16 = np.empty(n_out, np.uint16)
    out32 = np.empty(n_out, np.float32)
    wide = x16.view(np.float16).astype(np.float32) if code == F16 else bf16_widen(x16)
    (_core.inverse if inverse else _core.forward)(h, x16, out16)
    (_core.inverse if inverse else _core.forward)(h32, wide, out32)
    return out16, out32, info


def same(a16, want16):
    """bits equal, any NaN for a NaN"""
    return np.array_equal(a16, want16) or bool(np.all((a16 == want16) | (np.isnan(a16.view(np.float16)) &
                                                                         np.isnan(want16.view(np.float16)))))


def bits_match_rounding():
    with np.errstate(over="ignore"):  # float32 values past float16's range round to inf, as they must
        bits_match_rounding_all()


def bits_match_rounding_all():
    rng = np.random.default_rng(harness.seed())
    cases = 0
    for i, w in enumerate(WAVELETS):
        for j, mode in enumerate(MODES):
            shape = [(301,), (40, 33), (9, 12, 7)][(i + j) % 3]
            levels = 1 + (i + 2 * j) % 3 if len(shape) < 3 else 1 + j % 2  # 3-D: long filters grow it fast
            x = rng.standard_normal(shape).astype(np.float32) * np.float32(2.0) ** rng.integers(-12, 6, shape)
            for code in (F16, BF16):
                x16 = x.astype(np.float16).view(np.uint16) if code == F16 else bf16_round(x)
                c16, c32, info = run(w, shape, levels, mode, code, x16.ravel())
                want = c32.astype(np.float16).view(np.uint16) if code == F16 else bf16_round(c32)
                chk.check(same(c16, want), "%s %s %s L%d code %d: forward bits differ (%d of %d)" %
                          (w, mode, shape, levels, code, int(np.sum(c16 != want)), c16.size))
                y16, y32, _ = run(w, shape, levels, mode, code, c16, inverse=True)
                want = y32.astype(np.float16).view(np.uint16) if code == F16 else bf16_round(y32)
                chk.check(same(y16, want), "%s %s L%d code %d: inverse bits differ" % (w, mode, levels, code))
                cases += 1
    chk.check(cases == 2 * len(WAVELETS) * len(MODES), "cases run")


def float16_storage_switch():
    x = np.random.default_rng(3).standard_normal((37, 50)).astype(np.float16)
    chk.check(lwt.wavedec2(x, "db4", level=2)[0].dtype == np.float32, "default: float16 in, float32 out (pywt)")
    lwt.set_float16_storage(True)
    try:
        c = lwt.wavedec2(x, "db4", level=2)
        chk.check(all(a.dtype == np.float16 for a in [c[0]] + [t for lv in c[1:] for t in lv]),
                  "set_float16_storage(True): every band float16")
        ref = lwt.wavedec2(x.astype(np.float32), "db4", level=2)
        chk.check(all(np.array_equal(a.view(np.uint16), b.astype(np.float16).view(np.uint16))
                      for a, b in zip([c[0]] + [t for lv in c[1:] for t in lv],
                                      [ref[0]] + [t for lv in ref[1:] for t in lv])),
                  "wavedec2 float16 == float32 path rounded by numpy")
        r = lwt.waverec2(c, "db4")
        chk.check(r.dtype == np.float16 and r.shape == (38, 50), "waverec2 float16 shape %s" % (r.shape,))
    finally:
        lwt.set_float16_storage(False)


def cli_keeps_float16():
    binary = os.environ.get("LWT_BIN")
    if not binary or not os.path.exists(binary):
        print("test_pkg_half: LWT_BIN not set, CLI check skipped")
        return
    top, din, dout = harness.work_dirs("lwt_half_")
    x = np.random.default_rng(5).standard_normal((30, 41)).astype(np.float16)
    np.save(os.path.join(din, "x16.npy"), x)
    np.save(os.path.join(din, "x32.npy"), x.astype(np.float32))
    for name in ("x16", "x32"):
        rc, _, err = harness.run_cli(binary, ["forward", "-w", "db4", "-l", "2", "-m", "symmetric",
                                              os.path.join(din, name + ".npy"), os.path.join(dout, name + ".npy")])
        chk.check(rc == 0, "lwt forward %s: %s" % (name, err))
    c16 = np.load(os.path.join(dout, "x16.npy"))
    c32 = np.load(os.path.join(dout, "x32.npy"))
    chk.check(c16.dtype == np.float16 and np.array_equal(c16.view(np.uint16), c32.astype(np.float16).view(np.uint16)),
              "CLI float16 forward == float32 forward rounded by numpy")
    rc, _, err = harness.run_cli(binary, ["inverse", "-w", "db4", "-l", "2", "-m", "symmetric", "--shape", "30,41",
                                          os.path.join(dout, "x16.npy"), os.path.join(dout, "y16.npy")])
    chk.check(rc == 0 and np.load(os.path.join(dout, "y16.npy")).dtype == np.float16, "CLI float16 inverse: %s" % err)


chk.run("16-bit plans == float32 plan, rounded (numpy for float16)", bits_match_rounding)
chk.run("set_float16_storage", float16_storage_switch)
chk.run("CLI keeps float16", cli_keeps_float16)
chk.finish()
