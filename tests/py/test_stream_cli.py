"""lwt forward|inverse --stream: the streamed engine is bit-identical to the
in-memory transform, reads raw files, survives failing workers, refuses what
it cannot map, and reports per worker.

  lwt forward --stream [--chunk-rows R] [--cpu-workers N] [--balance P]
              [--raw f16|f32|f64 --shape D0[,D1[,D2]]] [--report] IN OUT.npy
  lwt inverse --stream ... --shape D0[,D1[,D2]] IN.npy OUT.npy

1. bit identity: in-memory vs streamed .npy (dtype, shape and every byte of
   the data; the files as a whole too), forward and inverse, over wavelets x
   all nine modes x 1/2/3-D x float32/float64 x levels 1, 3 and one above the
   maximum, for chunk rows 1, 2, 5, 64 and 3 CPU workers under each policy
2. one streamed result against PyWavelets directly (cdf97 = bior4.4)
3. --raw input: identical to the .npy path; a raw file of the wrong size fails
   with one line naming the file and both sizes, and no output
4. failures: a worker failing is survived while another is left (identical
   result); the last worker failing is exit 1 with no output and no temporary
   file (an existing output is left alone); usage errors are exit 2; Fortran
   order and big-endian inputs are refused with a message
5. --report: one line per worker; a slowed worker does fewer chunks (queue)
6. float16 .npy (16-bit storage, float32 arithmetic): streamed forward and
   inverse byte for byte the in-memory ones, 1-D, odd 2-D and 3-D shapes,
   several chunks; a non-finite float16 value refused as in memory

Environment: LWT_BIN (required; exit 77 without it), LWT_SEED (default fixed),
LWT_QUICK=1 (sanitizer build: a smaller subset).
"""
import os
import sys

import harness

if not os.environ.get("LWT_BIN"):
    harness.skip("LWT_BIN is not set")

import re  # noqa: E402
import shutil  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pywt  # noqa: E402

BIN = os.environ["LWT_BIN"]
if not os.path.isfile(BIN):
    print("FAIL: LWT_BIN=%s does not exist (CLI not built?)" % BIN)
    sys.exit(1)

ENV = dict(os.environ)
QUICK = harness.quick()
SEED = int(os.environ.get("LWT_SEED") or 20240611)
print("seed: %d (fixed; LWT_SEED=N overrides)" % SEED)
rng = np.random.default_rng(SEED)
chk = harness.Checker("stream_cli")
TMP, IN_DIR, OUT_DIR = harness.work_dirs("lwt_stream_test_")
_n = [0]
NRUNS = [0]

WAVELETS = ["cdf97", "db4", "haar", "sym5", "coif2", "bior2.2", "db38", "dmey"]
MODES = ["zero", "constant", "symmetric", "reflect", "periodic", "smooth", "antisymmetric", "antireflect",
         "periodization"]
CHUNKS = [1, 2, 5, 64]
POLICIES = ["static", "weighted", "queue", "fnn"]
SHAPES = {1: [(1000,), (997,)], 2: [(150, 37), (149, 38)], 3: [(20, 9, 7), (19, 10, 7)]}


# ------------------------------------------------------------------ helpers
def run(args, timeout=120):
    NRUNS[0] += 1
    return harness.run_cli(BIN, args, ENV, timeout)


def cmdline(args):
    return "lwt " + " ".join(str(a) for a in args)


def new_in(arr, **kw):
    _n[0] += 1
    path = os.path.join(IN_DIR, "in%d.npy" % _n[0])
    np.save(path, arr, **kw)
    return path


def out_path(name):
    return os.path.join(OUT_DIR, name)


def clean_out():
    for f in os.listdir(OUT_DIR):
        p = os.path.join(OUT_DIR, f)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)


def out_files():
    return sorted(os.listdir(OUT_DIR))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def same_array(a, b):
    """dtype, shape and every data byte equal (NaN-proof, -0.0 vs 0.0 distinguished)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return np.array_equal(np.ascontiguousarray(a).reshape(-1).view(np.uint8),
                          np.ascontiguousarray(b).reshape(-1).view(np.uint8))


def describe_diff(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return "dtype/shape %s%s vs %s%s" % (a.dtype, a.shape, b.dtype, b.shape)
    u = "u%d" % a.dtype.itemsize
    d = np.flatnonzero(np.ascontiguousarray(a).reshape(-1).view(u) != np.ascontiguousarray(b).reshape(-1).view(u))
    if not d.size:
        return "no element differs"
    first = np.unravel_index(d[0], a.shape)
    return "%d of %d elements differ, first at %s: %r vs %r, max |diff| %.3g" % (
        d.size, a.size, tuple(int(i) for i in first), float(a[first]), float(b[first]),
        float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))))


def run_ok(args, what):
    """A command that must succeed; returns (stderr, ok)."""
    rc, so, se = run(args)
    ok = chk.check(rc == 0, "%s: exit %d, stderr: %s  [%s]" % (what, rc, se.strip()[:300], cmdline(args)))
    return se, ok


def compare_files(ref_path, got_path, what, args):
    """The streamed output must equal the in-memory one: array bytes, dtype, shape, whole file."""
    try:
        a = np.load(ref_path)
        b = np.load(got_path)
    except Exception as e:
        chk.fail("%s: cannot load the outputs (%s)  [%s]" % (what, e, cmdline(args)))
        return False
    if not chk.check(same_array(a, b), "%s: streamed differs from in memory: %s  [%s]"
                     % (what, describe_diff(a, b), cmdline(args))):
        return False
    return chk.check(read_bytes(ref_path) == read_bytes(got_path),
                     "%s: arrays equal but the .npy files differ (header?)  [%s]" % (what, cmdline(args)))


def pywt_name(w):
    return {"cdf97": "bior4.4", "cdf53": "bior2.2"}.get(w, w)


# ------------------------------------------------------------ 1. bit identity
WARN_MISMATCH = []   # (in-memory warned, streamed warned, streamed command) per streamed run
STATS = {"cases": 0, "streamed": 0, "chunks": {}, "policies": {}, "dims": {}, "levels": {"1": 0, "3": 0, "max+1": 0}}


def variants_for(c):
    """Two streamed variants per case: a chunk size alone, and 3 workers under a policy."""
    r = CHUNKS[c % 4]
    pol = POLICIES[(c // 4 + c) % 4]
    r2 = [1, 2, 5][(c // 2) % 3]
    return [("--chunk-rows %d" % r, ["--chunk-rows", r], ("chunk", r)),
            ("--cpu-workers 3 --balance %s --chunk-rows %d" % (pol, r2),
             ["--cpu-workers", 3, "--balance", pol, "--chunk-rows", r2], ("policy", pol))]


def identity_case(x, w, mode, level, c, level_tag, nvariants=2):
    """In-memory forward/inverse vs streamed forward/inverse under the case's variants."""
    shape = x.shape
    tag = "w=%s mode=%s shape=%s level=%s %s" % (w, mode, shape, level, x.dtype.name)
    inp = new_in(x)
    base = ["-w", w, "-l", level, "-m", mode]
    ref_c = out_path("ref_c.npy")
    args = ["forward"] + base + [inp, ref_c]
    se, ok = run_ok(args, "in-memory forward " + tag)
    if not ok:
        clean_out()
        return
    mem_warns = {"forward": "warn" in se.lower()}
    if level_tag == "max+1":
        chk.check(mem_warns["forward"], "in-memory forward beyond the maximum level: no warning  [%s]" % cmdline(args))
    STATS["cases"] += 1
    STATS["dims"][x.ndim] = STATS["dims"].get(x.ndim, 0) + 1
    STATS["levels"][level_tag] = STATS["levels"].get(level_tag, 0) + 1
    ref_x = out_path("ref_x.npy")
    shape_arg = ",".join(str(s) for s in shape)
    inv_base = ["inverse"] + base + ["--shape", shape_arg]
    args = inv_base + [ref_c, ref_x]
    se, inv_ok = run_ok(args, "in-memory inverse " + tag)
    mem_warns["inverse"] = "warn" in se.lower()
    for name, extra, (kind, val) in variants_for(c)[:nvariants]:
        STATS["streamed"] += 1
        key = "chunks" if kind == "chunk" else "policies"
        STATS[key][val] = STATS[key].get(val, 0) + 1
        got = out_path("got_c.npy")
        args = ["forward", "--stream"] + [str(e) for e in extra] + base + [inp, got]
        se, ok = run_ok(args, "streamed forward %s %s" % (name, tag))
        if ok:
            compare_files(ref_c, got, "forward %s %s" % (name, tag), args)
            WARN_MISMATCH.append((mem_warns["forward"], "warn" in se.lower(), cmdline(args)))
            os.remove(got)
        if inv_ok:
            got = out_path("got_x.npy")
            args = inv_base[:1] + ["--stream"] + [str(e) for e in extra] + inv_base[1:] + [ref_c, got]
            se, ok = run_ok(args, "streamed inverse %s %s" % (name, tag))
            if ok:
                compare_files(ref_x, got, "inverse %s %s" % (name, tag), args)
                WARN_MISMATCH.append((mem_warns["inverse"], "warn" in se.lower(), cmdline(args)))
                os.remove(got)
    left = [f for f in out_files() if f not in ("ref_c.npy", "ref_x.npy")]
    chk.check(not left, "%s: files left in the output directory: %s" % (tag, left))
    clean_out()


def test_bit_identity():
    c = 0
    wavelets = WAVELETS if not QUICK else ["cdf97", "db4", "sym5", "db38", "dmey"]
    for wi, w in enumerate(wavelets):
        for mi, mode in enumerate(MODES):
            for di, dt in enumerate((np.float64, np.float32)):
                k = wi * 18 + mi * 2 + di
                # 1-D and 2-D every time, 3-D for every third combination
                dims = [1, 2] + ([3] if k % 3 == 0 else [])
                for nd in dims:
                    shape = SHAPES[nd][(k // 2) % 2]
                    level = [1, 3][(k + nd) % 2]
                    x = rng.standard_normal(shape).astype(dt)
                    identity_case(x, w, mode, level, c, str(level))
                    c += 1
            # a short 1-D signal at one level above the maximum (one dtype per mode, alternating)
            dt = (np.float64, np.float32)[(wi + mi) % 2]
            n = 40 + (mi % 3)
            level = pywt.dwt_max_level(n, pywt.Wavelet(pywt_name(w)).dec_len) + 1
            x = rng.standard_normal(n).astype(dt)
            identity_case(x, w, mode, level, c, "max+1", nvariants=1 if QUICK else 2)
            c += 1
    print("  bit identity: %d cases (in-memory forward + inverse each), %d streamed variants each forward and "
          "inverse = %d streamed runs; by dims %s, by level %s, chunk rows %s, 3-worker policies %s"
          % (STATS["cases"], STATS["streamed"], 2 * STATS["streamed"], dict(sorted(STATS["dims"].items())),
             STATS["levels"], dict(sorted(STATS["chunks"].items())), dict(sorted(STATS["policies"].items()))))
    # the streamed path warns beyond the maximum level exactly when the in-memory path does
    bad = [(m, s_, cl) for m, s_, cl in WARN_MISMATCH if m != s_]
    nwarn = sum(1 for m, _, _ in WARN_MISMATCH if m)
    chk.check(not bad, "'level above the maximum' warning: in memory and streamed disagree in %d of %d streamed "
              "runs (in memory warned in %d); first: in memory %s, streamed %s  [%s]"
              % (len(bad), len(WARN_MISMATCH), nwarn, "warned" if bad and bad[0][0] else "silent",
                 "warned" if bad and bad[0][1] else "silent", bad[0][2] if bad else ""))
    # every chunk size and every policy was exercised
    chk.check(sorted(STATS["chunks"]) == CHUNKS, "chunk sizes not all covered: %s" % STATS["chunks"])
    chk.check(sorted(STATS["policies"]) == sorted(POLICIES), "policies not all covered: %s" % STATS["policies"])


def test_options_that_change_nothing():
    """Options of the engine that must not change a bit on CPU workers."""
    x = rng.standard_normal((150, 37))
    inp = new_in(x)
    base = ["-w", "sym5", "-l", "2", "-m", "smooth"]
    ref = out_path("ref.npy")
    _, ok = run_ok(["forward"] + base + [inp, ref], "in-memory forward sym5 smooth")
    if not ok:
        clean_out()
        return
    scratch = os.path.join(TMP, "scratch")
    os.makedirs(scratch)
    for extra in (["--scratch-dir", scratch, "--chunk-rows", "3"],
                  ["--no-pinned-pool", "--no-overlap", "--naive-blocks", "--chunk-rows", "4"],
                  ["--cpu-worker", "--cpu-worker", "--chunk-rows", "2"],   # two workers, one flag each
                  ["--threads", "1", "--cpu-workers", "2", "--chunk-rows", "7"],
                  ["--backend", "cpu", "--chunk-rows", "9"],
                  []):                                                     # default chunk size: one chunk
        got = out_path("got.npy")
        args = ["forward", "--stream"] + extra + base + [inp, got]
        _, ok = run_ok(args, "streamed forward %s" % " ".join(extra))
        if ok:
            compare_files(ref, got, "streamed forward %s" % " ".join(extra), args)
            os.remove(got)
        chk.check(os.listdir(scratch) == [], "--scratch-dir left files: %s" % os.listdir(scratch))
    # in place: IN and OUT the same file (the input stays mapped while the output replaces it)
    same = out_path("same.npy")
    np.save(same, x)
    args = ["forward", "--stream", "--chunk-rows", "5", "--cpu-workers", "2"] + base + [same, same]
    _, ok = run_ok(args, "streamed forward in place")
    if ok:
        compare_files(ref, same, "streamed forward in place", args)
    chk.check(out_files() == ["ref.npy", "same.npy"], "in place left %s" % out_files())
    clean_out()


def test_edges():
    """Tiny arrays, more workers than rows, a chunk larger than the array, -l 0 and -l max."""
    n = 0
    for shape, dt in (((1,), np.float64), ((2,), np.float32), ((3, 5), np.float64), ((2, 1, 5), np.float32),
                      ((1, 40), np.float64), ((40, 1), np.float32)):
        x = rng.standard_normal(shape).astype(dt)
        inp = new_in(x)
        sh = ",".join(str(s) for s in shape)
        for w, mode, level in (("db2", "symmetric", "2"), ("haar", "periodization", "max"), ("sym5", "smooth", "0"),
                               ("db38", "antireflect", "1"), ("db2", "reflect", "1")):
            base = ["-w", w, "-l", level, "-m", mode]
            ref_c, ref_x = out_path("ref_c.npy"), out_path("ref_x.npy")
            rc_f, _, se_f = run(["forward"] + base + [inp, ref_c])
            rc_i = None
            if rc_f == 0:
                rc_i, _, _ = run(["inverse"] + base + ["--shape", sh, ref_c, ref_x])
            for extra in (["--cpu-workers", "16", "--chunk-rows", "1", "--balance", "fnn"],
                          ["--cpu-workers", "5", "--balance", "static"],
                          ["--chunk-rows", "99999999999"]):
                n += 1
                got = out_path("got.npy")
                args = ["forward", "--stream"] + extra + base + [inp, got]
                rc, so, se = run(args)
                chk.check(rc == rc_f, "%s %s: streamed exit %d, in memory %d (%r)  [%s]"
                          % (shape, dt.__name__, rc, rc_f, se.strip()[:200], cmdline(args)))
                if rc == 0 and rc_f == 0:
                    compare_files(ref_c, got, "edge forward %s" % (shape,), args)
                if rc != 0:
                    chk.check(not os.path.exists(got), "failed streamed forward left its output  [%s]" % cmdline(args))
                if rc_f != 0:
                    continue
                args = ["inverse", "--stream"] + extra + base + ["--shape", sh, ref_c, got]
                rc, so, se = run(args)
                chk.check(rc == rc_i, "%s: streamed inverse exit %d, in memory %s (%r)  [%s]"
                          % (shape, rc, rc_i, se.strip()[:200], cmdline(args)))
                if rc == 0 and rc_i == 0:
                    compare_files(ref_x, got, "edge inverse %s" % (shape,), args)
            clean_out()
    print("  edges: %d streamed configurations on tiny arrays" % n)


# ------------------------------------------------------- 2. against PyWavelets
def test_against_pywt():
    for shape, r in (((150, 90), 7), ((1000,), 13), ((24, 40, 33), 2)):
        x = rng.standard_normal(shape)
        inp = new_in(x)
        got = out_path("got.npy")
        args = ["forward", "--stream", "--chunk-rows", r, "--cpu-workers", 3, "--balance", "queue",
                "-w", "cdf97", "-l", 3, "-m", "symmetric", inp, got]
        _, ok = run_ok(args, "streamed cdf97 vs pywt shape %s" % (shape,))
        if ok:
            y = np.load(got)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = pywt.coeffs_to_array(pywt.wavedecn(x, "bior4.4", mode="symmetric", level=3))[0]
            if chk.check(y.shape == ref.shape and y.dtype == np.float64,
                         "cdf97 vs pywt: got %s %s, want %s float64  [%s]" % (y.shape, y.dtype, ref.shape,
                                                                                 cmdline(args))):
                err = float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))
                print("  streamed cdf97 vs pywt bior4.4 symmetric level 3 shape %s: max rel err %.3g"
                      % (shape, err))
                chk.check(err <= 1e-12, "cdf97 vs pywt: rel err %.3g > 1e-12  [%s]" % (err, cmdline(args)))
        clean_out()
    # the inverse back to the signal
    x = rng.standard_normal((150, 90))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = pywt.coeffs_to_array(pywt.wavedecn(x, "bior4.4", mode="symmetric", level=3))[0]
    inp = new_in(c)
    got = out_path("got.npy")
    args = ["inverse", "--stream", "--chunk-rows", 3, "--cpu-workers", 2, "-w", "cdf97", "-l", 3, "-m", "symmetric",
            "--shape", "150,90", inp, got]
    _, ok = run_ok(args, "streamed inverse cdf97 vs signal")
    if ok:
        y = np.load(got)
        if chk.check(y.shape == x.shape, "streamed inverse: shape %s, want %s" % (y.shape, x.shape)):
            err = float(np.max(np.abs(y - x)) / np.max(np.abs(x)))
            chk.check(err <= 1e-12, "streamed inverse cdf97: rel err to the signal %.3g > 1e-12  [%s]"
                      % (err, cmdline(args)))
    clean_out()


# ------------------------------------------------------------- 3. raw input
def test_raw():
    for shape, dt, raw in (((150, 37), "<f4", "f32"), ((150, 37), "<f8", "f64"), ((1000,), "<f4", "f32"),
                           ((20, 9, 7), "<f8", "f64"), ((67, 45), "<f2", "f16")):
        x = rng.standard_normal(shape).astype(dt)
        _n[0] += 1
        rawp = os.path.join(IN_DIR, "x%d.%s" % (_n[0], raw))
        x.tofile(rawp)
        inp = new_in(x)
        base = ["-w", "db4", "-l", "2", "-m", "periodic"]
        ref = out_path("ref.npy")
        _, ok = run_ok(["forward"] + base + [inp, ref], "in-memory forward (npy) %s %s" % (shape, dt))
        if not ok:
            clean_out()
            continue
        sh = ",".join(str(s) for s in shape)
        for extra in (["--chunk-rows", "3"], ["--cpu-workers", "3", "--balance", "weighted", "--chunk-rows", "1"]):
            got = out_path("got.npy")
            args = ["forward", "--stream", "--raw", raw, "--shape", sh] + extra + base + [rawp, got]
            _, ok = run_ok(args, "streamed forward --raw %s %s" % (raw, sh))
            if ok:
                compare_files(ref, got, "--raw %s %s vs the .npy path" % (raw, sh), args)
                os.remove(got)
        clean_out()
    # wrong sizes: one element short, a few bytes too many
    x = rng.standard_normal((150, 37)).astype("<f4")
    need = x.size * 4
    for what, data in (("one element short", x.reshape(-1)[:-1].tobytes()),
                       ("3 bytes too many", x.tobytes() + b"\0\0\0"),
                       ("empty", b"")):
        rawp = os.path.join(IN_DIR, "bad_%d.f32" % len(data))
        with open(rawp, "wb") as f:
            f.write(data)
        got = out_path("got.npy")
        args = ["forward", "--stream", "--raw", "f32", "--shape", "150,37", "-w", "db4", "-l", "2", "-m",
                "periodic", rawp, got]
        rc, so, se = run(args)
        lines = se.strip().splitlines()
        chk.check(rc != 0, "raw %s: exit 0  [%s]" % (what, cmdline(args)))
        chk.check(rc == 1, "raw %s: exit %d, want 1 (runtime error)  [%s]" % (what, rc, cmdline(args)))
        if chk.check(len(lines) == 1, "raw %s: want one stderr line, got %r  [%s]" % (what, se, cmdline(args))):
            msg = lines[0]
            chk.check(rawp in msg, "raw %s: message does not name the file: %r" % (what, msg))
            nums = re.findall(r"\d+", msg.replace(rawp, ""))
            chk.check(str(need) in nums and str(len(data)) in nums,
                      "raw %s: message does not give both sizes (%d needed, %d in the file): %r"
                      % (what, need, len(data), msg))
        chk.check(out_files() == [], "raw %s: output directory holds %s  [%s]" % (what, out_files(), cmdline(args)))
        clean_out()


# ---------------------------------------------------------------- 4. failures
def expect_fail(args, want_rc, what, words=(), existing=False, one_line=True):
    clean_out()
    out = args[-1]
    if existing:
        with open(out, "wb") as f:
            f.write(b"previous content")
    rc, so, se = run(args)
    cl = cmdline(args)
    lines = [ln for ln in se.strip().splitlines() if ln.strip()]
    if want_rc is None:
        chk.check(rc != 0, "%s: exit 0, want a failure  [%s]" % (what, cl))
    else:
        chk.check(rc == want_rc, "%s: exit %d, want %d  [%s] stderr: %s" % (what, rc, want_rc, cl, se.strip()[:300]))
    chk.check(len(lines) >= 1, "%s: no message on stderr  [%s]" % (what, cl))
    if one_line:
        chk.check(len(lines) == 1, "%s: want one stderr line, got %d: %r  [%s]" % (what, len(lines), se[:400], cl))
    for wd in words:
        chk.check(wd.lower() in se.lower(), "%s: message does not mention %r: %r  [%s]" % (what, wd, se[:300], cl))
    if existing:
        chk.check(out_files() == [os.path.basename(out)], "%s: output dir holds %s  [%s]" % (what, out_files(), cl))
        chk.check(read_bytes(out) == b"previous content", "%s: the existing output was modified  [%s]" % (what, cl))
    else:
        chk.check(not os.path.exists(out), "%s: the output exists after the failure  [%s]" % (what, cl))
        chk.check(out_files() == [], "%s: output dir holds %s (temporary files?)  [%s]" % (what, out_files(), cl))
    clean_out()
    return se


def worker_lines(se):
    """{worker index: (kind, chunks, failed)} from --report."""
    out = {}
    for m in re.finditer(r"worker (\d+) \(([^)]*)\): (\d+) chunks[^\n]*", se):
        out[int(m.group(1))] = (m.group(2), int(m.group(3)), "FAILED" in m.group(0))
    return out


def test_failures():
    x = rng.standard_normal((150, 37))
    inp = new_in(x)
    base = ["-w", "db4", "-l", "3", "-m", "symmetric"]
    ref = os.path.join(TMP, "ref_fail.npy")
    _, ok = run_ok(["forward"] + base + [inp, ref], "in-memory forward db4")
    # one of two workers fails on its 2nd chunk: the other takes its chunks, result unchanged
    for pol in POLICIES:
        got = out_path("got.npy")
        args = ["forward", "--stream", "--chunk-rows", "1", "--cpu-workers", "2", "--fail-worker", "0:2",
                "--balance", pol, "--report"] + base + [inp, got]
        se, ok2 = run_ok(args, "--fail-worker 0:2 with 2 workers (%s)" % pol)
        if ok and ok2:
            compare_files(ref, got, "--fail-worker 0:2 with 2 workers (%s)" % pol, args)
            wl = worker_lines(se)
            chk.check(sorted(wl) == [0, 1], "--fail-worker report: workers %s  [%s]" % (sorted(wl), cmdline(args)))
            if pol == "static":  # worker 0 owns half the chunks: it reaches its 2nd one for sure
                chk.check(wl.get(0, ("", 0, False))[2] and not wl.get(1, ("", 0, True))[2],
                          "--fail-worker 0:2 static: report should mark worker 0 (only) FAILED: %r  [%s]"
                          % (se[-400:], cmdline(args)))
                chk.check(wl.get(0, ("", 9, 0))[1] == 1,
                          "--fail-worker 0:2: worker 0 should have finished exactly 1 chunk: %r" % (se[-400:],))
        chk.check(out_files() in ([], ["got.npy"]), "--fail-worker 0:2: output dir holds %s" % out_files())
        clean_out()
    # the only worker fails: runtime error, no output, nothing left behind, an existing output untouched
    for n in ("1", "3"):
        for existing in (False, True):
            args = ["forward", "--stream", "--chunk-rows", "2", "--cpu-workers", "1", "--fail-worker", "0:" + n] + \
                base + [inp, out_path("out.npy")]
            # (the engine logs the injected failure, the retirement and the stop: not one line)
            expect_fail(args, 1, "--fail-worker 0:%s with 1 worker%s" % (n, " over an existing output" * existing),
                        words=("fail",), existing=existing, one_line=False)
    # the inverse too
    if ok:
        args = ["inverse", "--stream", "--chunk-rows", "2", "--cpu-workers", "1", "--fail-worker", "0:2"] + base + \
            ["--shape", "150,37", ref, out_path("out.npy")]
        expect_fail(args, 1, "inverse --fail-worker 0:2 with 1 worker", words=("fail",), one_line=False)
    os.remove(ref)

    # usage errors: exit 2, one line, no output
    ndev = cuda_devices()
    out = out_path("out.npy")
    usage = [
        ("--balance bogus", ["--balance", "bogus"], ("bogus",)),
        ("--chunk-rows 0", ["--chunk-rows", "0"], ("--chunk-rows",)),
        ("--chunk-rows -3", ["--chunk-rows", "-3"], ("--chunk-rows",)),
        ("--chunk-rows x", ["--chunk-rows", "x"], ("--chunk-rows",)),
        ("--slow-worker 5:2 with 1 worker", ["--cpu-workers", "1", "--slow-worker", "5:2"], ("--slow-worker",)),
        ("--slow-worker 5:2 (default single worker)", ["--slow-worker", "5:2"], ("--slow-worker",)),
        ("--slow-worker 0:0.5", ["--slow-worker", "0:0.5"], ("--slow-worker",)),
        ("--fail-worker 3:1 with 2 workers", ["--cpu-workers", "2", "--fail-worker", "3:1"], ("--fail-worker",)),
        ("--fail-worker 0:1.5", ["--fail-worker", "0:1.5"], ("--fail-worker",)),
        ("--cpu-workers 0", ["--cpu-workers", "0"], ("--cpu-workers",)),
        ("--cpu-workers 17", ["--cpu-workers", "17"], ("--cpu-workers",)),
        ("--raw bf16 (no .npy output carries it)", ["--raw", "bf16", "--shape", "150,37"], ("--raw",)),
        ("--raw without --shape", ["--raw", "f64"], ("--shape",)),
        ("--devices x", ["--devices", "x"], ("--devices",)),
        ("--chunk-rows without a value", None, ("--chunk-rows",)),
    ]
    if ndev == 0:
        usage += [("--devices all without a GPU", ["--devices", "all"], ("cuda",)),
                  ("--devices 0 without a GPU", ["--devices", "0"], ("cuda",)),
                  ("--backend cuda without a GPU", ["--backend", "cuda"], ("cuda",))]
    for what, extra, words in usage:
        if extra is None:
            args = ["forward", "--stream"] + base + [inp, out, "--chunk-rows"]
            expect_fail(args, 2, "usage: " + what, words)
            continue
        args = ["forward", "--stream"] + extra + base + [inp, out]
        expect_fail(args, 2, "usage: " + what, words)
    expect_fail(["inverse", "--stream"] + base + [inp, out], 2, "usage: inverse --stream without --shape",
                ("--shape",))
    if ndev > 0:  # on a GPU machine the streamed GPU workers must be bit-identical too
        ref = out_path("ref.npy")
        run_ok(["forward"] + base + [inp, ref], "in-memory forward")
        got = out_path("got.npy")
        args = ["forward", "--stream", "--devices", "all", "--chunk-rows", "5"] + base + [inp, got]
        _, ok = run_ok(args, "--devices all on a GPU machine")
        if ok:
            compare_files(ref, got, "--devices all", args)
        clean_out()

    # layouts the streamed engine cannot map in place: refused, no output
    x = rng.standard_normal((16, 12))
    for what, arr, words in (("Fortran order", np.asfortranarray(x), ("fortran",)),
                             ("big-endian float64", x.astype(">f8"), ("big-endian",)),
                             ("big-endian float32", x.astype(">f4"), ("big-endian",)),
                             ("big-endian float16", x.astype(">f2"), ("big-endian", "'<f2'")),
                             ("Fortran order big-endian 3-D", np.asfortranarray(rng.standard_normal((4, 5, 6))
                                                                                .astype(">f8")), ())):
        p = new_in(arr)
        args = ["forward", "--stream", "-w", "db2", "-l", "1", "-m", "symmetric", p, out]
        se = expect_fail(args, None, "--stream on a %s .npy" % what, words + ("--stream", os.path.basename(p)))
        if what.startswith("Fortran order b"):
            chk.check("fortran" in se.lower() or "endian" in se.lower(), "%s: message %r" % (what, se))
        args = ["inverse", "--stream", "-w", "db2", "-l", "0", "-m", "symmetric", "--shape",
                ",".join(str(s) for s in arr.shape), p, out]
        expect_fail(args, None, "inverse --stream on a %s .npy" % what, words)
    # non-finite data: refused with its position
    xn = rng.standard_normal((16, 12))
    xn[3, 5] = np.nan
    args = ["forward", "--stream", "-w", "db2", "-l", "1", "-m", "symmetric", new_in(xn), out]
    expect_fail(args, 1, "--stream on NaN data", ("nan", str(3 * 12 + 5)))
    # the output directory does not exist
    args = ["forward", "--stream", "-w", "db2", "-l", "1", "-m", "symmetric", new_in(x),
            os.path.join(OUT_DIR, "nodir", "out.npy")]
    rc, so, se = run(args)
    chk.check(rc == 1 and len(se.strip().splitlines()) == 1,
              "output into a missing directory: exit %d, stderr %r  [%s]" % (rc, se, cmdline(args)))
    chk.check(out_files() == [], "output into a missing directory left %s" % out_files())


def cuda_devices():
    rc, so, se = run(["info"])
    m = re.search(r"devices:\s*(\d+) CUDA device", so)
    chk.check(rc == 0 and m is not None, "lwt info: no 'devices: N CUDA device(s)' line (exit %d)" % rc)
    return int(m.group(1)) if m else 0


# ------------------------------------------------------------------ 5. report
def test_report():
    x = rng.standard_normal((300, 64))
    inp = new_in(x)
    got = out_path("got.npy")
    for pol in POLICIES:
        args = ["forward", "--stream", "--cpu-workers", "3", "--chunk-rows", "4", "--balance", pol, "--report",
                "-w", "coif2", "-l", "2", "-m", "antireflect", inp, got]
        rc, so, se = run(args)
        if not chk.check(rc == 0, "--report %s: exit %d %r" % (pol, rc, se[:300])):
            continue
        chk.check(so.strip() == "", "--report %s: stdout should stay empty, got %r" % (pol, so[:200]))
        wl = worker_lines(se)
        chk.check(sorted(wl) == [0, 1, 2], "--report %s: want lines for workers 0, 1, 2 on stderr, got %r"
                  % (pol, se[:600]))
        m = re.search(r"(\d+) chunks, policy (\w+)", se)
        if chk.check(m is not None, "--report %s: no summary line ('N chunks, policy P'): %r" % (pol, se[:400])):
            chk.check(m.group(2) == pol, "--report: policy printed %r, want %r" % (m.group(2), pol))
            total = sum(v[1] for v in wl.values())
            chk.check(total == int(m.group(1)), "--report %s: worker chunks add up to %d, summary says %s"
                      % (pol, total, m.group(1)))
        chk.check(all(v[0] == "cpu" and not v[2] for v in wl.values()), "--report %s: %r" % (pol, wl))
        os.remove(got)
    # a worker slowed 3x does fewer chunks than the other under the queue policy
    x = rng.standard_normal((2048, 256))
    inp = new_in(x)
    args = ["forward", "--stream", "--slow-worker", "0:3", "--cpu-workers", "2", "--balance", "queue", "--report",
            "--chunk-rows", "16", "-w", "db4", "-l", "2", "-m", "symmetric", inp, got]
    for attempt in range(3):   # scheduling noise on a loaded machine: the best of three
        rc, so, se = run(args)
        wl = worker_lines(se)
        c0 = wl.get(0, ("", -1, False))[1]
        c1 = wl.get(1, ("", -1, False))[1]
        print("  --slow-worker 0:3 queue: worker 0 %d chunks, worker 1 %d chunks (attempt %d)" % (c0, c1, attempt + 1))
        if rc == 0 and 0 <= c0 < c1:
            break
    chk.check(rc == 0, "--slow-worker 0:3: exit %d %r" % (rc, se[:300]))
    chk.check(0 <= c0 < c1, "--slow-worker 0:3 --balance queue: slowed worker 0 did %d chunks, worker 1 %d "
              "(want fewer)  [%s] %r" % (c0, c1, cmdline(args), se[-400:]))
    clean_out()


# ----------------------------------------------------------------- 6. float16
def test_float16():
    """The 16-bit plans: the same bytes streamed as in memory (identity_case: forward and inverse, a chunk size
    and 3 workers under a policy), then a non-finite value refused with the in-memory path's exit and words."""
    cases = (((149, 38), "cdf97", "symmetric", 3), ((67, 45), "db4", "smooth", 1), ((33, 70), "sym5", "antireflect", 3),
             ((101, 9), "haar", "periodization", 1), ((997,), "coif2", "reflect", 3), ((19, 10, 7), "bior2.2", "zero", 1))
    for c, (shape, w, mode, level) in enumerate(cases):
        x = (rng.standard_normal(shape) * 4).astype(np.float16)
        # c + 1: chunk rows 2, 5, 64, 1, ... (several chunks on every shape)
        identity_case(x, w, mode, level, c + 1, str(level))
    print("  float16: %d cases, forward and inverse, streamed under 2 variants each" % len(cases))
    x = (rng.standard_normal((16, 12)) * 4).astype(np.float16)
    base = ["-w", "db2", "-l", "1", "-m", "symmetric"]
    ref_c = os.path.join(TMP, "f16_c.npy")
    _, ok = run_ok(["forward"] + base + [new_in(x), ref_c], "in-memory forward float16")
    c = np.load(ref_c) if ok else None
    x[3, 5] = np.inf
    cases = [("forward", new_in(x), [], 3 * 12 + 5)]
    if c is not None:
        c.reshape(-1)[7] = np.nan
        cases.append(("inverse", new_in(c), ["--shape", "16,12"], 7))
    for direction, p, extra, pos in cases:
        out = out_path("out.npy")
        rc_m, _, se_m = run([direction] + base + extra + [p, out])
        chk.check(rc_m == 1 and not os.path.exists(out), "in-memory %s of non-finite float16: exit %d" % (direction, rc_m))
        args = [direction, "--stream", "--chunk-rows", "2"] + base + extra + [p, out]
        se = expect_fail(args, 1, "--stream %s on non-finite float16" % direction, (str(pos),))
        chk.check(se == se_m, "%s non-finite float16: streamed says %r, in memory %r" % (direction, se, se_m))


chk.run("bit identity, streamed vs in memory", test_bit_identity)
chk.run("options that change nothing, in place", test_options_that_change_nothing)
chk.run("tiny arrays and odd options", test_edges)
chk.run("against PyWavelets", test_against_pywt)
chk.run("raw input", test_raw)
chk.run("failures and usage errors", test_failures)
chk.run("report", test_report)
chk.run("float16", test_float16)
print("lwt invocations: %d" % NRUNS[0])
shutil.rmtree(TMP, ignore_errors=True)
chk.finish()
