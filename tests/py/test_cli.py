"""The lwt command-line contract, checked against PyWavelets.

  lwt forward -w W -l L|max -m MODE [--backend auto|cpu] IN.npy OUT.npy
      OUT = coeffs_to_array(wavedecn(IN, W, MODE, L))[0], IN's dtype
  lwt inverse -w W -l L|max -m MODE --shape D0[,D1[,D2]] IN.npy OUT.npy
      OUT = waverecn(array_to_coeffs(IN)) cropped to the shape, IN's dtype
  lwt info          wavelets (one per line: name, family, filter length,
                    lifting steps, "lifting" or "convolution"), modes, backends
  lwt --version / --help: exit 0

Failures: exit 2 for usage errors (bad flags/values on the command line),
exit 1 for runtime errors (file content, I/O); exactly one line on stderr; no
output file and no temporary file left behind; an existing output is left alone.
Beyond the maximum level: a warning on stderr, exit 0.
"""
import harness

harness.need_pywt()
BIN = harness.need_bin()

import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402

import numpy as np  # noqa: E402
import pywt  # noqa: E402

import reference as R  # noqa: E402

# The lwt package, where this build made it (not under the sanitizers): `lwt info` is
# cross-checked against the library's own wavelet info through it.
try:
    from lwt import _core as lwt_core  # noqa: E402
except ImportError:
    lwt_core = None
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "lwt.h")

QUICK = harness.quick()
SEED = harness.seed()
rng = np.random.default_rng(SEED)
chk = harness.Checker("cli")
TMP, IN_DIR, OUT_DIR = harness.work_dirs("lwt_cli_test_")
_n = [0]


def run(args, timeout=120):
    return harness.run_cli(BIN, args, timeout=timeout)


def cmdline(args):
    return "lwt " + " ".join(str(a) for a in args)


def save_in(arr, name=None, **kw):
    _n[0] += 1
    path = os.path.join(IN_DIR, name or ("in%d.npy" % _n[0]))
    np.save(path, arr, **kw)
    return path


def write_raw(data, name=None):
    _n[0] += 1
    path = os.path.join(IN_DIR, name or ("raw%d.npy" % _n[0]))
    with open(path, "wb") as f:
        f.write(data)
    return path


def clean_out():
    for f in os.listdir(OUT_DIR):
        p = os.path.join(OUT_DIR, f)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)


def out_path(name="out.npy"):
    return os.path.join(OUT_DIR, name)


def f32r(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def lvl_arg(level):
    return "max" if level is None else str(level)


def run_ok(args, what, outname="out.npy"):
    """Run a command that must succeed and leave exactly OUT in OUT_DIR; return the array."""
    rc, so, se = run(args)
    if not chk.check(rc == 0, "%s: exit %d, stderr: %s  [%s]" % (what, rc, se.strip()[:300], cmdline(args))):
        clean_out()
        return None, se
    files = sorted(os.listdir(OUT_DIR))
    chk.check(files == [outname], "%s: output dir holds %s, want only %s  [%s]" % (what, files, outname, cmdline(args)))
    try:
        y = np.load(out_path(outname))
    except Exception as e:
        chk.fail("%s: output is not a loadable .npy (%s)  [%s]" % (what, e, cmdline(args)))
        y = None
    clean_out()
    return y, se


def run_fail(args, want_rc, what, existing=False):
    """Run a command that must fail with want_rc, one stderr line, no output/temp files."""
    clean_out()
    out = args[-1]
    if existing:
        with open(out, "wb") as f:
            f.write(b"previous content")
    rc, so, se = run(args)
    cl = cmdline(args)
    chk.check(rc == want_rc, "%s: exit %d, want %d  [%s] stderr: %s" % (what, rc, want_rc, cl, se.strip()[:300]))
    lines = [ln for ln in se.strip().splitlines()]
    chk.check(len(lines) == 1 and len(lines[0].strip()) > 0,
              "%s: stderr must be exactly one line, got %d: %r  [%s]" % (what, len(lines), se[:400], cl))
    files = sorted(os.listdir(OUT_DIR))
    if existing:
        chk.check(files == [os.path.basename(out)], "%s: output dir holds %s after failure  [%s]" % (what, files, cl))
        with open(out, "rb") as f:
            chk.check(f.read() == b"previous content", "%s: existing output file was modified  [%s]" % (what, cl))
    else:
        chk.check(files == [], "%s: output dir holds %s after failure (want nothing)  [%s]" % (what, files, cl))
    clean_out()


# ------------------------------------------------------------------ cases
def check_forward(x, w, mode, level, what, backend=None, ref_x=None):
    """lwt forward on x (any layout/byte order) vs pywt on the same values."""
    inp = save_in(x)
    args = ["forward", "-w", w, "-l", lvl_arg(level), "-m", mode]
    if backend:
        args += ["--backend", backend]
    args += [inp, out_path()]
    y, se = run_ok(args, what)
    if y is None:
        return None
    xv = np.asarray(x, dtype=np.float64) if ref_x is None else ref_x
    ref, slices = R.ref_forward(xv, w, mode, level)
    chk.check(y.dtype.kind == "f" and y.dtype.itemsize == x.dtype.itemsize,
              "%s: output dtype %s, want %s  [%s]" % (what, y.dtype, x.dtype, cmdline(args)))
    chk.check(y.shape == ref.shape, "%s: output shape %s, want %s  [%s]" % (what, y.shape, ref.shape, cmdline(args)))
    if y.shape == ref.shape:
        chk.error_within(R.rel_err(y, ref, xv), R.forward_bound(w, x.dtype, xv, mode, level, ref),
                         "%s [%s]" % (what, cmdline(args)), "%s/%s" % (w, x.dtype.name))
    return y


def check_inverse(c, w, mode, level, shape, what, slices=None):
    inp = save_in(c)
    args = ["inverse", "-w", w, "-l", lvl_arg(level), "-m", mode, "--shape", ",".join(str(s) for s in shape),
            inp, out_path()]
    y, se = run_ok(args, what)
    if y is None:
        return None
    if slices is None:
        slices = R.slices_for(shape, w, mode, level)[1]
    ref = R.ref_inverse(np.asarray(c, dtype=np.float64), slices, w, mode, shape)
    chk.check(y.dtype.kind == "f" and y.dtype.itemsize == c.dtype.itemsize,
              "%s: output dtype %s, want %s  [%s]" % (what, y.dtype, c.dtype, cmdline(args)))
    chk.check(y.shape == tuple(shape), "%s: output shape %s, want %s  [%s]" % (what, y.shape, shape, cmdline(args)))
    if y.shape == tuple(shape):
        cv = np.asarray(c, dtype=np.float64)
        chk.error_within(R.rel_err(y, ref, cv), R.inverse_bound(w, c.dtype, cv, slices, mode, shape, ref),
                         "%s [%s]" % (what, cmdline(args)), "%s/%s" % (w, c.dtype.name))
    return y


def test_sample():
    """A sample of wavelets x modes x 1/2/3-D x f32/f64, forward and inverse."""
    wavelets = ["haar", "db2", "db7", "sym5", "coif3", "bior1.3", "bior4.4", "rbio3.1", "dmey", "cdf97", "d4",
                "db38", "sym20", "coif17", "bior6.8", "cdf53", "d8", "d20"]
    shapes = [(97,), (64,), (5,), (31, 17), (16, 16), (13, 8), (5, 6, 7), (16, 9, 3)]
    modes = R.modes()
    if QUICK:
        wavelets = wavelets[:9]
    k = 0
    for w in wavelets:
        for j, shape in enumerate(shapes):
            mode = modes[(k + j) % len(modes)]
            dt = np.float64 if (k + j) % 2 == 0 else np.float32
            k += 1
            lmax = R.max_level(shape, w)
            level = [None, 1, lmax, 2][k % 4]
            if R.raises(shape, w, mode, level):
                continue
            x = f32r(rng.standard_normal(shape)).astype(dt)
            what = "forward w=%s mode=%s shape=%s level=%s %s" % (w, mode, shape, lvl_arg(level), np.dtype(dt).name)
            y = check_forward(x, w, mode, level, what)
            if y is None:
                continue
            ref, slices = R.ref_forward(x, w, mode, level)
            c = f32r(ref).astype(dt)
            what = "inverse w=%s mode=%s shape=%s level=%s %s" % (w, mode, shape, lvl_arg(level), np.dtype(dt).name)
            check_inverse(c, w, mode, level, shape, what, slices)


def test_all_modes_2d():
    for mode in R.modes():
        for dt in (np.float64, np.float32):
            x = f32r(rng.standard_normal((19, 12))).astype(dt)
            check_forward(x, "sym3", mode, None, "forward w=sym3 mode=%s shape=(19,12) level=max %s"
                          % (mode, np.dtype(dt).name))


def test_backends():
    x = rng.standard_normal((40, 33))
    a = check_forward(x, "bior2.2", "symmetric", 2, "forward --backend auto", backend="auto")
    b = check_forward(x, "bior2.2", "symmetric", 2, "forward --backend cpu", backend="cpu")
    if a is not None and b is not None:
        chk.check(np.array_equal(a, b), "--backend auto and --backend cpu differ on a CPU machine")


def test_layouts():
    """Fortran order, big-endian, both, and .npy format version 2.0 inputs."""
    for shape in [(13, 8), (5, 6, 7), (33,)]:
        for dt in ("<f8", ">f8", "<f4", ">f4"):
            x = f32r(rng.standard_normal(shape))
            xv = x.astype(dt)
            what = "forward big-endian %s shape=%s" % (dt, shape)
            if dt[0] == ">":
                check_forward(xv, "db3", "symmetric", None, what, ref_x=x)
            xf = np.asfortranarray(xv)
            if len(shape) > 1:
                check_forward(xf, "db3", "symmetric", None, "forward fortran-order %s shape=%s" % (dt, shape), ref_x=x)
        # inverse from a Fortran-order big-endian coefficient file
        ref, slices = R.ref_forward(x, "db3", "periodization", None)
        if len(shape) > 1:
            c = np.asfortranarray(ref.astype(">f8"))
            check_inverse(c, "db3", "periodization", None, shape, "inverse fortran-order >f8 shape=%s" % (shape,), slices)
    # .npy version 2.0 header
    x = rng.standard_normal((9, 10))
    p = os.path.join(IN_DIR, "v2.npy")
    with open(p, "wb") as f:
        np.lib.format.write_array(f, x, version=(2, 0))
    args = ["forward", "-w", "haar", "-l", "1", "-m", "zero", p, out_path()]
    y, _ = run_ok(args, "forward .npy version 2.0 input")
    if y is not None:
        chk.error_within(R.rel_err(y, R.ref_forward(x, "haar", "zero", 1)[0]), R.bound("haar", np.float64),
                         "forward .npy v2.0 [%s]" % cmdline(args))


def test_in_place():
    """IN and OUT the same path: the result replaces the input (write-then-rename)."""
    x = rng.standard_normal((16, 12))
    p = os.path.join(OUT_DIR, "same.npy")
    np.save(p, x)
    args = ["forward", "-w", "db2", "-l", "1", "-m", "symmetric", p, p]
    rc, so, se = run(args)
    if chk.check(rc == 0, "in-place forward: exit %d %s  [%s]" % (rc, se.strip()[:200], cmdline(args))):
        y = np.load(p)
        ref = R.ref_forward(x, "db2", "symmetric", 1)[0]
        chk.error_within(R.rel_err(y, ref, x), R.bound("db2", np.float64), "in-place forward [%s]" % cmdline(args),
                         "db2/float64")
        chk.check(sorted(os.listdir(OUT_DIR)) == ["same.npy"], "in-place forward left %s" % os.listdir(OUT_DIR))
    clean_out()


def test_levels():
    x = rng.standard_normal(50)
    lmax = R.max_level((50,), "db2")
    # -l max == explicit max
    a = check_forward(x, "db2", "symmetric", None, "forward -l max")
    b = check_forward(x, "db2", "symmetric", lmax, "forward -l %d (= max)" % lmax)
    if a is not None and b is not None:
        chk.check(np.array_equal(a, b), "-l max and -l %d differ" % lmax)
    # level 0 is the identity
    check_forward(x, "db2", "symmetric", 0, "forward -l 0")
    # beyond max: warning on stderr, success, PyWavelets' result
    for level, shape in [(lmax + 2, (50,)), (4, (9, 7)), (3, (4, 5, 6))]:
        xx = rng.standard_normal(shape)
        inp = save_in(xx)
        args = ["forward", "-w", "db2", "-l", str(level), "-m", "symmetric", inp, out_path()]
        y, se = run_ok(args, "forward beyond max level %d shape=%s" % (level, shape))
        chk.check("warn" in se.lower(), "beyond max level: no warning on stderr (got %r)  [%s]" % (se[:200], cmdline(args)))
        if y is not None:
            ref = R.ref_forward(xx, "db2", "symmetric", level)[0]
            chk.error_within(R.rel_err(y, ref), R.bound("db2", np.float64), "beyond max [%s]" % cmdline(args), "db2/float64")
            ref, slices = R.ref_forward(xx, "db2", "symmetric", level)
            check_inverse(ref, "db2", "symmetric", level, shape, "inverse beyond max level %d shape=%s" % (level, shape),
                          slices)


def npy_bytes(arr, **kw):
    import io
    b = io.BytesIO()
    np.save(b, arr, **kw)
    return b.getvalue()


def hdr_text(descr, shape):
    return "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)


def make_npy(header, data, version=1):
    """A .npy file with an arbitrary header text (padded like numpy pads it)."""
    h = header.encode("latin1")
    pre = 10 if version == 1 else 12
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    lenb = len(h).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + lenb + h + data


def test_bad_input():
    good = rng.standard_normal((16, 12))
    gb = npy_bytes(good)
    hdr_len = 10 + int.from_bytes(gb[8:10], "little")
    fwd = ["forward", "-w", "db2", "-l", "1", "-m", "symmetric"]
    out = out_path()
    runtime = [
        ("truncated data", write_raw(gb[:-7])),
        ("truncated to half the data", write_raw(gb[:hdr_len + (len(gb) - hdr_len) // 2])),
        ("header only", write_raw(gb[:hdr_len])),
        ("truncated header", write_raw(gb[:20])),
        ("magic only", write_raw(gb[:6])),
        ("empty file", write_raw(b"")),
        ("bad magic", write_raw(b"\x93NUMPX" + gb[6:])),
        ("not npy at all", write_raw(b"hello world, this is not an npy file\n" * 4)),
        ("garbage header", write_raw(gb[:hdr_len].replace(b"{'descr'", b"{'descr ") + gb[hdr_len:])),
        ("header not a dict", write_raw(make_npy("[1, 2, 3]", gb[hdr_len:]))),
        ("header without shape", write_raw(make_npy("{'descr': '<f8', 'fortran_order': False}", gb[hdr_len:]))),
        ("negative shape", write_raw(make_npy(hdr_text("<f8", "(-16, 12)"), gb[hdr_len:]))),
        ("header length beyond file", write_raw(gb[:8] + (60000).to_bytes(2, "little") + gb[10:])),
        ("shape larger than data", write_raw(make_npy(hdr_text("<f8", "(16, 99)"), gb[hdr_len:]))),
        ("huge shape", write_raw(make_npy(hdr_text("<f8", "(4611686018427387904, 12)"), gb[hdr_len:]))),
        ("overflowing shape", write_raw(make_npy(hdr_text("<f8", "(4294967296, 4294967296, 16)"), gb[hdr_len:]))),
        ("unknown descr", write_raw(make_npy(hdr_text("<x8", "(16, 12)"), gb[hdr_len:]))),
        ("int32 dtype", save_in(rng.integers(0, 100, (16, 12)).astype(np.int32))),
        ("int64 dtype", save_in(rng.integers(0, 100, (16, 12)).astype(np.int64))),
        ("complex128 dtype", save_in(good.astype(np.complex128))),
        ("complex64 dtype", save_in(good.astype(np.complex64))),
        ("bool dtype", save_in(good > 0)),
        ("4 dims", save_in(rng.standard_normal((3, 4, 5, 6)))),
        ("0-d array", save_in(np.array(1.5))),
        ("empty 1-D (0,)", save_in(np.zeros((0,)))),
        ("empty dim (3,0)", save_in(np.zeros((3, 0)))),
        ("empty dim (0,4,5)", save_in(np.zeros((0, 4, 5)))),
        ("missing input file", os.path.join(IN_DIR, "does_not_exist.npy")),
        ("input is a directory", IN_DIR),
        ("reflect on a length-1 axis (pywt refuses)", None),
        ("NaN in the data", save_in(np.where(np.arange(192).reshape(16, 12) == 77, np.nan, good))),
        ("infinity in the data (float32)", save_in(np.where(np.arange(192).reshape(16, 12) == 5, np.inf,
                                                               good).astype(np.float32))),
    ]
    for what, inp in runtime:
        args = fwd + [inp, out]
        if inp is None:
            args = ["forward", "-w", "db2", "-l", "1", "-m", "reflect", save_in(rng.standard_normal((1, 9))), out]
        run_fail(args, 1, "forward, " + what)
    # output into a directory that does not exist
    args = fwd + [save_in(good), os.path.join(OUT_DIR, "nodir", "out.npy")]
    run_fail(args, 1, "forward, output directory missing")
    # an existing output is not clobbered by a failure
    run_fail(fwd + [write_raw(gb[:-7]), out], 1, "forward, truncated input over an existing output", existing=True)

    # inverse: coefficient count does not match --shape
    ref = R.ref_forward(good, "db2", "symmetric", 1)[0]
    cf = save_in(ref)
    for shape in ["16,13", "17,12", "16", "16,12,1", "40,40"]:
        args = ["inverse", "-w", "db2", "-l", "1", "-m", "symmetric", "--shape", shape, cf, out]
        run_fail(args, 1, "inverse, --shape %s does not match the coefficients" % shape)
    args = ["inverse", "-w", "db2", "-l", "1", "-m", "symmetric", "--shape", "16,12", write_raw(npy_bytes(ref)[:-3]), out]
    run_fail(args, 1, "inverse, truncated coefficients")
    args = ["inverse", "-w", "db2", "-l", "1", "-m", "symmetric", "--shape", "16,12",
            save_in(ref.astype(np.int32)), out]
    run_fail(args, 1, "inverse, int32 coefficients")


def test_pipe_input():
    """lwt forward reads a pipe on purpose (a FIFO, /dev/stdin): a bounded writer feeds a FIFO and the
    coefficients equal those of the same array read from a regular file. A FIFO whose writer
    stops early is a truncated file. Each run has a timeout, so a regression fails, never hangs."""
    import threading
    x = rng.standard_normal((24, 20))
    fwd = ["forward", "-w", "db2", "-l", "2", "-m", "symmetric"]
    want, _ = run_ok(fwd + [save_in(x), out_path()], "forward from a regular file")
    for what, data in (("whole array", npy_bytes(x)), ("truncated", npy_bytes(x)[:-40])):
        fifo = os.path.join(IN_DIR, "pipe%d.npy" % len(data))
        os.mkfifo(fifo)

        def feed(data=data, fifo=fifo):
            with open(fifo, "wb") as f:  # blocks until lwt opens the other end
                f.write(data)

        t = threading.Thread(target=feed, daemon=True)
        t.start()
        args = fwd + [fifo, out_path()]
        if what == "whole array":
            got, _ = run_ok(args, "forward from a FIFO")
            chk.check(got is not None and want is not None and np.array_equal(got, want),
                      "forward from a FIFO differs from the same array read from a file")
        else:
            run_fail(args, 1, "forward from a FIFO whose writer stops early")
        t.join(10)
        chk.check(not t.is_alive(), "forward from a FIFO (%s): the writer never finished" % what)
        os.remove(fifo)


def test_usage_errors():
    inp = save_in(rng.standard_normal((16, 12)))
    out = out_path()
    base = ["-l", "1", "-m", "symmetric"]
    cases = [
        ("unknown wavelet", ["forward", "-w", "db99"] + base + [inp, out]),
        ("unknown wavelet (continuous)", ["forward", "-w", "morl"] + base + [inp, out]),
        ("unknown mode", ["forward", "-w", "db2", "-l", "1", "-m", "mirror", inp, out]),
        ("negative level", ["forward", "-w", "db2", "-l", "-1", "-m", "symmetric", inp, out]),
        ("negative level -3", ["forward", "-w", "db2", "-l", "-3", "-m", "symmetric", inp, out]),
        ("non-numeric level", ["forward", "-w", "db2", "-l", "two", "-m", "symmetric", inp, out]),
        ("level with trailing junk", ["forward", "-w", "db2", "-l", "2x", "-m", "symmetric", inp, out]),
        ("unknown backend", ["forward", "-w", "db2"] + base + ["--backend", "fpga", inp, out]),
        ("unknown option", ["forward", "-w", "db2"] + base + ["--frobnicate", inp, out]),
        ("missing output", ["forward", "-w", "db2"] + base + [inp]),
        ("missing input and output", ["forward", "-w", "db2"] + base),
        ("extra positional", ["forward", "-w", "db2"] + base + [inp, out, out + "2"]),
        ("-w without value", ["forward"] + base + [inp, out, "-w"]),
        ("unknown command", ["transmogrify", inp, out]),
        ("bench: the benchmark is its own program, lwt-bench", ["bench"]),
        ("inverse without --shape", ["inverse", "-w", "db2"] + base + [inp, out]),
        ("inverse --shape non-numeric", ["inverse", "-w", "db2"] + base + ["--shape", "16,x", inp, out]),
        ("inverse --shape with a zero", ["inverse", "-w", "db2"] + base + ["--shape", "16,0", inp, out]),
        ("inverse --shape negative", ["inverse", "-w", "db2"] + base + ["--shape", "16,-12", inp, out]),
        ("inverse --shape 4 dims", ["inverse", "-w", "db2"] + base + ["--shape", "2,2,2,2", inp, out]),
        ("inverse --shape empty", ["inverse", "-w", "db2"] + base + ["--shape", "", inp, out]),
        ("inverse unknown wavelet", ["inverse", "-w", "nope", "-l", "1", "-m", "symmetric", "--shape", "16,12", inp, out]),
        ("inverse unknown mode", ["inverse", "-w", "db2", "-l", "1", "-m", "nope", "--shape", "16,12", inp, out]),
        ("inverse negative level", ["inverse", "-w", "db2", "-l", "-2", "-m", "symmetric", "--shape", "16,12", inp, out]),
    ]
    for what, args in cases:
        run_fail(args, 2, what)
    rc, so, se = run([])
    chk.check(rc == 2, "lwt with no arguments: exit %d, want 2" % rc)


def test_info_version_help():
    rc, so, se = run(["--version"])
    chk.check(rc == 0, "lwt --version: exit %d" % rc)
    with open(HEADER) as f:
        header = f.read()
    v = ".".join(re.search(r"#define LWT_VERSION_%s (\d+)" % k, header).group(1) for k in ("MAJOR", "MINOR", "PATCH"))
    chk.check(v in so, "lwt --version prints %r, lwt.h says %r" % (so.strip()[:100], v))
    rc, so, se = run(["--help"])
    chk.check(rc == 0 and "forward" in so and "inverse" in so,
              "lwt --help: exit %d, must mention forward and inverse on stdout: %r" % (rc, so[:200]))
    chk.check(not re.search(r"^\s+bench\b", so, re.M), "lwt --help still lists bench (lwt-bench is the benchmark)")
    rc, so, se = run(["info"])
    if not chk.check(rc == 0, "lwt info: exit %d, stderr %r" % (rc, se[:200])):
        return
    lines = so.splitlines()
    by_name = {}
    for ln in lines:
        toks = ln.split()
        if toks:
            by_name.setdefault(toks[0], ln)
    infos = {}
    if lwt_core:
        infos = {w: lwt_core.wavelet(w)[1] for w in R.discrete_wavelets()}
    for w in R.discrete_wavelets():
        ln = by_name.get(w)
        if not chk.check(ln is not None, "lwt info: no line starting with wavelet %s" % w):
            continue
        toks = re.split(r"[\s,;:=()\[\]|]+", ln)
        ints = {int(t) for t in toks if re.fullmatch(r"\d+", t)}
        fam = R.family(w)
        chk.check(fam in toks, "lwt info: line for %s lacks family %r: %r" % (w, fam, ln))
        chk.check(R.dec_len(w) in ints, "lwt info: line for %s lacks filter length %d: %r" % (w, R.dec_len(w), ln))
        chk.check("lifting" in toks or "convolution" in toks,
                  "lwt info: line for %s says neither lifting nor convolution: %r" % (w, ln))
        if w in infos:
            i = infos[w]
            chk.check(i["lifting_steps"] in ints,
                      "lwt info: line for %s lacks lifting steps %d: %r" % (w, i["lifting_steps"], ln))
            word = i["path_f64"]  # "lifting" or "convolution"
            chk.check(word in toks, "lwt info: line for %s should say %s (library path_f64): %r" % (w, word, ln))
    for m in R.modes():
        chk.check(re.search(r"\b%s\b" % m, so) is not None, "lwt info: mode %s not listed" % m)
    chk.check(re.search(r"\bcpu\b", so) is not None, "lwt info: backend cpu not listed")


def test_info_explain():
    """lwt info --explain prints the plan's steps (lwt_plan_explain): one line per pass or kernel."""
    rc, so, se = run(["info", "--explain", "-w", "cdf97", "-l", "3", "-m", "periodization", "--shape", "64,48",
                      "--backend", "cpu", "--algorithm", "lbb"])
    if not chk.check(rc == 0, "lwt info --explain: exit %d, stderr %r" % (rc, se[:200])):
        return
    lines = so.splitlines()
    chk.check(len(lines) == 7 and "cpu backend" in lines[0], "lwt info --explain: %r" % so[:400])
    for j in (1, 2, 3):
        chk.check(any(ln.startswith("forward level %d axes 0,1: sliding-window level" % j) for ln in lines),
                  "lwt info --explain: no sliding-window forward level %d: %r" % (j, so[:400]))
    rc, so, se = run(["info", "--explain", "-w", "db2", "-l", "2", "-m", "symmetric", "--shape", "100",
                      "--backend", "cpu", "--dtype", "f32"])
    chk.check(rc == 0 and so.count("axis 0: lifting pass") == 4 and "float32" in so,
              "lwt info --explain 1-D: exit %d %r" % (rc, so[:400]))
    for what, args in [("no --shape", ["info", "--explain", "-w", "haar"]),
                       ("bad --dtype", ["info", "--explain", "--shape", "8", "--dtype", "f8"]),
                       ("unknown option", ["info", "--explain", "--shape", "8", "--frobnicate"]),
                       ("info with an argument", ["info", "extra"])]:
        rc, so, se = run(args)
        chk.check(rc == 2 and se.strip(), "lwt %s: exit %d (want 2), stderr %r" % (what, rc, se[:200]))


try:
    chk.run("info, --version, --help", test_info_version_help)
    chk.run("info --explain", test_info_explain)
    chk.run("sample wavelets x modes x dims x dtypes", test_sample)
    chk.run("every mode in 2-D", test_all_modes_2d)
    chk.run("--backend", test_backends)
    chk.run("fortran order, big-endian, npy v2", test_layouts)
    chk.run("levels: max, 0, beyond max", test_levels)
    chk.run("input == output path", test_in_place)
    chk.run("bad input: runtime errors (exit 1)", test_bad_input)
    chk.run("usage errors (exit 2)", test_usage_errors)
    chk.run("forward from a pipe", test_pipe_input)
finally:
    shutil.rmtree(TMP, ignore_errors=True)
chk.finish()
