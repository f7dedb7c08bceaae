#!/usr/bin/env python3
"""lwt filter on a batch: the pipelined run against the sequential one, and --bands-format.

- a batch with warnings (a moved cutoff), a truncated X3P and a clashing output name in the
  middle, run with --no-pipeline and pipelined (the default) from two folders: the same exit
  status, the same stderr, the same stdout but for the time lines, and every output file the
  same bytes but for the times: report.json's "timing_ms" numbers and the zip's clock in the X3P
  files (their members are compared); no folder for the failed inputs;
- the same under a --max-memory that leaves the pipeline no room for a second surface (the
  reads wait) and one that refuses the read ahead under the pipeline's share (read again
  alone): every input still filters, identically;
- --bands-format x3p, sdf, npy: the band files have the format's name and magic, report.json
  lists them, and lwt's reader (the test_surface_io tool) gives the same heights, NaN at the same
  points, from each; the SDF also through an independent reader (test_surface_io.py) and, where
  it is importable, surfalize (NaN for the invalid points; its micrometres to the rounding);
- an unknown --bands-format, or sdf/npy with --mpi (X3P only), is a usage error (exit 2, no output).
Exit 0 pass, 1 fail, 77 skip (CLI not built).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

import harness
import test_surface_io as sio

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg)


def run(binary, args, cwd):
    r = subprocess.run([binary] + args, capture_output=True, text=True, cwd=cwd, timeout=600)
    return r.returncode, r.stdout, r.stderr


def tree(top):
    """{relative path: bytes} of every file under top, report.json's timing numbers blanked."""
    files = {}
    for d, _, names in os.walk(top):
        for n in names:
            p = os.path.join(d, n)
            data = open(p, "rb").read()
            if n.endswith(".x3p"):  # the members, without the zip's own clock (its DOS times)
                with zipfile.ZipFile(p) as z:
                    data = b"".join(i.filename.encode() + b"\0" + z.read(i) for i in z.infolist())
            if n == "report.json":
                data = re.sub(rb'("timing_ms": *\{)[^}]*\}', rb"\1}", data)
                check(b'"timing_ms": {}' in data or b'"timing_ms":{}' in data, "%s: no timing_ms blanked" % p)
            files[os.path.relpath(p, top)] = data
    return files


def no_times(stdout):
    return [l for l in stdout.splitlines() if not l.lstrip().startswith("time:")]


def same_batch(binary, top, inputs, extra, what):
    """The batch with --no-pipeline and pipelined: (exit status, stderr) of the sequential run."""
    res = {}
    for mode, flags in (("seq", ["--no-pipeline"]), ("pipe", [])):
        cwd = os.path.join(top, what + "-" + mode)
        os.makedirs(cwd)
        res[mode] = run(binary, ["filter"] + inputs + ["-o", "out", "--no-png"] + extra + flags, cwd) + (
            tree(os.path.join(cwd, "out")),)
    (rs, os_, es, ts), (rp, op, ep, tp) = res["seq"], res["pipe"]
    check(rs == rp, "%s: exit %d sequential, %d pipelined" % (what, rs, rp))
    check(es == ep, "%s: stderr differs:\n--- sequential\n%s--- pipelined\n%s" % (what, es, ep))
    check(no_times(os_) == no_times(op), "%s: stdout differs:\n--- sequential\n%s--- pipelined\n%s" % (what, os_, op))
    check(sorted(ts) == sorted(tp), "%s: files differ: %s vs %s" % (what, sorted(ts), sorted(tp)))
    for k in ts:
        check(ts[k] == tp.get(k), "%s: %s differs between the sequential and the pipelined run" % (what, k))
    return rs, es, ts


def main():
    binary = harness.need_bin()
    top = tempfile.mkdtemp(prefix="lwt-batch-")
    try:
        return body(binary, top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def body(binary, top):
    src = os.path.join(top, "in")
    os.makedirs(os.path.join(src, "other"))
    names = []
    for i, size in enumerate(("192", "160,128", "128", "192,128", "128")):
        p = os.path.join(src, "s%d.x3p" % i)
        rc, _, err = run(binary, ["synth", p, "--size", size, "--seed", str(i + 3), "--invalid", "0.01"], top)
        check(rc == 0, "synth %s: %s" % (p, err))
        names.append(p)
    # a truncated X3P, and a second file that would write into s1's folder
    bad = os.path.join(src, "broken.x3p")
    open(bad, "wb").write(open(names[0], "rb").read()[:3000])
    clash = os.path.join(src, "other", "s1.x3p")
    shutil.copy(names[1], clash)
    batch = names[:2] + [bad] + names[2:4] + [clash] + names[4:]

    # a cutoff moved to an octave: a warning line per input, which must stay in input order
    rc, err, files = same_batch(binary, top, batch, ["--lambda-c", "50"], "batch")
    check(rc == 1, "batch: exit %d, expected 1" % rc)
    lines = err.splitlines()
    check(sum("broken.x3p" in l for l in lines) == 2 and any(l.startswith("lwt filter: %s: " % bad) for l in lines),
          "batch: broken.x3p should have one line (and the summary): %r" % lines)
    check(any(("%s: output name 's1'" % clash) in l for l in lines), "batch: no line for the clashing name: %r" % lines)
    check(lines[-1] == "lwt filter: 2 of 7 inputs failed: %s %s" % (bad, clash), "batch: last line %r" % lines[-1])
    warned = [l.split(": ")[2] for l in lines if ": warning: " in l]
    check(warned == [n for n in batch if n not in (bad, clash)], "batch: warnings out of order: %r" % warned)
    folders = sorted({k.split(os.sep)[0] for k in files})
    check(folders == ["s0", "s1", "s2", "s3", "s4"], "batch: output folders %r" % folders)

    # memory: the pipeline counts 12 x 192^2 x 8 B = 3.4 MiB for the first job (filter_batch.c):
    # 2M leaves no room beside it (the next read waits), 4M leaves a twelfth of 0.6 MiB, too
    # little for the next file's 160 KiB of heights (refused, then read again alone)
    for limit in ("2M", "4M"):
        rc, err, files = same_batch(binary, top, names, ["--max-memory", limit, "--no-material"], "limit" + limit)
        check(rc == 0 and len({k.split(os.sep)[0] for k in files}) == len(names),
              "--max-memory %s: exit %d, %r" % (limit, rc, err))

    bands_formats(binary, top, names[1])
    rc, out, err = run(binary, ["filter", names[0], "-o", "out", "--bands-format", "tiff"], top)
    check(rc == 2 and "--bands-format needs x3p, sdf or npy (got 'tiff')" in err and not os.path.exists(
        os.path.join(top, "out")), "--bands-format tiff: exit %d, %r" % (rc, err))
    rc, out, err = run(binary, ["filter", names[0], "-o", "out", "--mpi", "--bands-format", "npy"], top)
    check(rc == 2 and "--mpi writes the bands as X3P only" in err, "--mpi --bands-format npy: exit %d, %r" % (rc, err))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("pipelined batch == sequential batch (bad inputs, warnings, memory limits); bands as x3p, sdf, npy")
    return 0


def bands_formats(binary, top, surface):
    """Each band format read back by lwt's reader: the X3P's heights, bit for bit."""
    tool = sio.find_binary()
    magic = {"x3p": b"PK\x03\x04", "sdf": b"bISO-1.0", "npy": b"\x93NUMPY"}
    heights = {}
    for fmt in ("x3p", "sdf", "npy"):
        out = os.path.join(top, "fmt-" + fmt)
        rc, _, err = run(binary, ["filter", surface, "-o", out, "--no-png", "--bands-format", fmt], top)
        check(rc == 0, "--bands-format %s: exit %d, %r" % (fmt, rc, err))
        folder = os.path.join(out, "s1")
        rep = json.load(open(os.path.join(folder, "report.json")))
        bands = ["%s.%s" % (b, fmt) for b in ("form", "waviness", "roughness")]
        check(rep["outputs"][:3] == bands, "--bands-format %s: report lists %r" % (fmt, rep["outputs"]))
        for b in bands:
            p = os.path.join(folder, b)
            check(open(p, "rb").read(len(magic[fmt])) == magic[fmt], "%s: not a %s file" % (p, fmt))
            if tool:
                got, why = sio.c_read(tool, p, top)
                check(got is not None, "lwt cannot read %s back: %s" % (p, why))
                heights[fmt, b.split(".")[0]] = got
        if fmt == "sdf":  # an independent reading of the binary SDF too
            z, dx, dy = sio.read_sdf(os.path.join(folder, "roughness.sdf"))
            heights["indep", "roughness"] = (z, dx, dy, None)
            try:  # a third opinion where the optional package is importable (test_surface_io.py does the same)
                import surfalize
            except ImportError:
                surfalize = None
            if surfalize:  # micrometres, NaN for the invalid points
                z = surfalize.Surface.load(os.path.join(folder, "roughness.sdf")).data * 1e-6
                heights["surfalize", "roughness"] = (z, dx, dy, None)
    if not tool:
        print("note: tests/test_surface_io is not built: the band files are not read back")
        return
    for (fmt, band), got in heights.items():
        ref = heights["x3p", band]
        a, b = np.asarray(got[0]), ref[0]
        same = np.allclose if fmt == "surfalize" else np.array_equal  # it scales to micrometres
        ok = a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and same(
            a[~np.isnan(a)], b[~np.isnan(b)], *((1e-12, 0) if fmt == "surfalize" else ()))
        check(ok, "%s %s: heights differ from the X3P's" % (fmt, band))
        check(np.isnan(b).any(), "%s: the surface should have invalid points" % band)
        if fmt == "sdf":
            check(got[1:3] == ref[1:3], "sdf %s: spacing %r, X3P %r" % (band, got[1:3], ref[1:3]))


if __name__ == "__main__":
    sys.exit(main())
