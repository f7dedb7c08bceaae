#!/usr/bin/env python3
"""lwt --max-memory (issue 29): a file whose header declares more data than the memory limit
fails at its header, exit status 1, one line naming the file, the size and the limit, no output,
in well under the time reading it would take; below the limit the same commands succeed.

The huge files are sparse (their declared data exists as a hole), so each passes the readers'
"file holds what it declares" checks and only the limit stops it; the X3P one is a small zip
whose deflated data.bin inflates to 128 MiB. Without the limit these would allocate 1-2 GiB.

Exit 0 pass, 1 fail, 77 skip.   python3 tests/py/test_max_memory.py  (LWT_BIN: the lwt CLI)
"""
import os
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib

import numpy as np

import harness
from test_surface_crafted import write_sur

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def lwt(binary, *args):
    t0 = time.time()
    r = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stderr, time.time() - t0


def refused(binary, what, args, path, outputs, limit="64.0 MiB"):
    """args fail with exit 1 and one line 'path: reading it needs ..., more than the memory limit
    of 64.0 MiB' (or the transform's), fast, leaving none of outputs behind"""
    rc, err, dt = lwt(binary, *args)
    lines = [l for l in err.splitlines() if l.strip()]
    mine = [l for l in lines if os.path.basename(path) in l and "memory limit of " + limit in l]
    check(rc == 1, "%s: exit status %d, want 1 (%r)" % (what, rc, err))
    check(len(mine) == 1, "%s: want one line naming the file and the limit, got %r" % (what, err))
    check(dt < 10, "%s: %.1f s to fail (read before the check?)" % (what, dt))
    for o in outputs:
        check(not os.path.exists(o), "%s: left %s behind" % (what, o))


def sparse_sur(path, nx, ny):
    """a valid int32 .sur header declaring nx x ny points, the data a hole of the right size"""
    write_sur(path, np.zeros((1, 1), dtype=np.int64), 32, 1.0, 1.0, 1e-3, 0.0, ["um", "um", "um"], 0, -2**31 + 2)
    with open(path, "r+b") as f:
        f.seek(108)
        f.write(struct.pack("<iii", nx, ny, nx * ny))
    os.truncate(path, 512 + 4 * nx * ny)


def sparse_npy(path, shape):
    h = "{'descr': '<f8', 'fortran_order': False, 'shape': %r, }" % (shape,)
    h += " " * (127 - 10 - len(h)) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode())
    os.truncate(path, 128 + 8 * int(np.prod(shape)))


def inflating_x3p(path, n):
    """an X3P of n x n float64 zero heights: data.bin deflates 1000-fold, so a 130 kB file holds
    8 n^2 bytes (the readers allow a deflated entry up to 1032 times its compressed size)"""
    xml = ("<?xml version=\"1.0\"?>\n<p:ISO5436_2 xmlns:p=\"http://www.opengps.eu/2008/ISO5436_2\">"
           "<Record1><Revision>ISO5436 - 2000</Revision><FeatureType>SUR</FeatureType><Axes>"
           "<CX><AxisType>I</AxisType><DataType>D</DataType><Increment>1e-6</Increment></CX>"
           "<CY><AxisType>I</AxisType><DataType>D</DataType><Increment>1e-6</Increment></CY>"
           "<CZ><AxisType>A</AxisType><DataType>D</DataType></CZ></Axes></Record1>"
           "<Record3><MatrixDimension><SizeX>%d</SizeX><SizeY>%d</SizeY><SizeZ>1</SizeZ></MatrixDimension>"
           "<DataLink><PointDataLink>bindata/data.bin</PointDataLink></DataLink></Record3></p:ISO5436_2>\n"
           % (n, n))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("main.xml", xml)
        with z.open("bindata/data.bin", "w", force_zip64=True) as f:
            row = bytes(8 * n)
            for _ in range(n):
                f.write(row)


def main():
    binary = harness.need_bin()
    with tempfile.TemporaryDirectory(prefix="lwt-maxmem-") as tmp:
        t = lambda n: os.path.join(tmp, n)  # noqa: E731
        # .sur declaring 16384^2 int32 points: 1 GiB of data, a 2 GiB surface
        try:
            sparse_sur(t("huge.sur"), 16384, 16384)
            sparse_npy(t("huge.npy"), (16384, 8192))
        except OSError as e:
            harness.skip("no sparse files here (%s)" % e)
        out = t("out")
        refused(binary, "filter huge.sur", ["--max-memory", "64M", "filter", t("huge.sur"), "-o", out],
                t("huge.sur"), [os.path.join(out, "huge")])
        refused(binary, "forward huge.npy", ["forward", "-w", "db2", "-l", "1", "-m", "symmetric", t("huge.npy"),
                                             t("coeffs.npy"), "--max-memory=64M"], t("huge.npy"), [t("coeffs.npy")])
        refused(binary, "filter huge.npy", ["filter", "--max-memory", "64MiB", t("huge.npy"), "-o", out,
                                            "--spacing", "1"], t("huge.npy"), [os.path.join(out, "huge")])
        inflating_x3p(t("zeros.x3p"), 4096)
        check(os.path.getsize(t("zeros.x3p")) < 1 << 20, "zeros.x3p: %d bytes" % os.path.getsize(t("zeros.x3p")))
        refused(binary, "filter zeros.x3p", ["--max-memory", "64M", "filter", t("zeros.x3p"), "-o", out],
                t("zeros.x3p"), [os.path.join(out, "zeros")])
        # the transform's own need (input + output + workspace) past the limit, the input within it
        np.save(t("small.npy"), np.random.default_rng(29).normal(size=(512, 512)))
        rc, err, _ = lwt(binary, "forward", "-w", "db2", "-l", "2", "-m", "symmetric", t("small.npy"),
                         t("small-c.npy"), "--max-memory", "3M")
        check(rc == 1 and "the transform needs" in err and "memory limit of 3.0 MiB" in err
              and not os.path.exists(t("small-c.npy")), "forward over the limit: exit %d, %r" % (rc, err))
        # below the limit, and with no limit, the same commands work
        for lim in ("64M", "0"):
            rc, err, _ = lwt(binary, "forward", "-w", "db2", "-l", "2", "-m", "symmetric", t("small.npy"),
                             t("small-c.npy"), "--max-memory", lim)
            check(rc == 0 and os.path.exists(t("small-c.npy")), "forward within --max-memory %s: %d %r" % (lim, rc, err))
            os.remove(t("small-c.npy"))
        sparse_sur(t("ok.sur"), 256, 192)
        rc, err, _ = lwt(binary, "--max-memory", "64M", "filter", t("ok.sur"), "-o", out)
        check(rc == 0 and os.path.exists(os.path.join(out, "ok", "report.json")), "filter ok.sur: %d %r" % (rc, err))
        # a bad value is a usage error
        for bad in ("12Q", "-1", "", "1e400"):
            rc, err, _ = lwt(binary, "info", "--max-memory", bad)
            check(rc == 2 and "--max-memory" in err, "--max-memory %r: exit %d, %r" % (bad, rc, err))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("--max-memory: oversize .sur, .npy and X3P refused at their headers; within the limit they run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
