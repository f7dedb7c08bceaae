#!/usr/bin/env python3
"""Valid Digital Surf (.sur) and Sensofar (.plu) files made here, read by the C library.

Runs on a fresh clone (no ../shared data). The files are written with struct from the layouts in
docs/FORMATS.md, independently of the C code (tests/c/test_surface_io.c crafts its own), with
random raw values, random sizes and units; the C readers (through the --dump tool mode of the
test_surface_io binary) must return exactly the heights, spacing and invalid points the layout
defines. Exact: numpy computes height = raw * (Zspacing * unit) + Zoffset * unit in float64 in
the order the format gives, as the reader does (C11, no fused multiply-add).

Exit 0 pass, 1 fail, 77 skip (the test binary is not built: no file-format libraries).
    python3 tests/py/test_surface_crafted.py [--seed N]
"""
import os
import struct
import sys
import tempfile

import numpy as np

from test_surface_io import SKIP, UNITS, c_read, check, failures, find_binary, same_grid


def f32(x):
    """x as stored in a float32 header field, back as the float64 the reader computes with"""
    return float(np.float32(x))


def write_sur(path, raw, bits, sx, sy, sz, zoff, units, special, zmin, comment=b"", private=0):
    """Digital Surf, one surface object (type 2), PC byte order: a 512-byte header, comment,
    private zone, then the points profile after profile (x fast)."""
    ny, nx = raw.shape
    h = bytearray(512)
    h[0:12] = b"DIGITAL SURF"
    struct.pack_into("<HHHH", h, 12, 0, 1, 1, 2)          # format (PC), objects, version, type
    h[20:20 + 13] = b"python object"
    struct.pack_into("<H", h, 86, special)                 # non-measured points flag
    struct.pack_into("<H", h, 98, bits)
    struct.pack_into("<iiiii", h, 100, zmin, 2**31 - 1, nx, ny, nx * ny)
    struct.pack_into("<3f", h, 120, sx, sy, sz)
    for k, u in enumerate(units):                          # step units, then length units
        h[180 + 16 * k:180 + 16 * k + len(u)] = u.encode("latin-1")
        h[228 + 16 * k:228 + 16 * k + len(u)] = u.encode("latin-1")
    struct.pack_into("<HH", h, 334, len(comment), private)
    struct.pack_into("<3f", h, 466, 0.0, 0.0, zoff)        # X, Y, Z offsets
    data = raw.astype("<i2" if bits == 16 else "<i4").tobytes()
    with open(path, "wb") as f:
        f.write(bytes(h) + comment + b"\x5a" * private + data)


def expect_sur(raw, sx, sy, sz, zoff, units, special, zmin):
    fx, fy, fz = (UNITS[u] for u in units)
    z = raw.astype(np.float64) * (f32(sz) * fz) + f32(zoff) * fz
    if special == 1:
        z[raw == zmin - 2] = np.nan
    return z, f32(sx) * fx, f32(sy) * fy


def write_plu(path, um, mppx, mppy):
    """Sensofar PLu topography (measurement type 3): date, time, comment, calibration at 388,
    measurement at 428, then at 500 yres, xres and the float32 heights in micrometres."""
    ny, nx = um.shape
    h = bytearray(500)
    h[0:24] = b"Mon Nov 23 10:00:00 2026"
    h[132:132 + 6] = b"(None)"
    struct.pack_into("<III", h, 388, ny, nx, 1)
    struct.pack_into("<3f", h, 400, 1.0, mppx, mppy)       # dy_multip, mppx, mppy
    struct.pack_into("<I", h, 428, 3)                      # topography
    h[489] = 1                                             # layers
    with open(path, "wb") as f:
        f.write(bytes(h) + struct.pack("<II", ny, nx) + um.astype("<f4").tobytes())


def same(got, z, dx, dy, fmt, what):
    if got is None:
        check(False, "%s: not read" % what)
        return
    cz, cdx, cdy, cfmt = got
    check(cfmt == fmt, "%s: source format %r" % (what, cfmt))
    check(cdx == dx and cdy == dy, "%s: spacing %r %r, want %r %r" % (what, cdx, cdy, dx, dy))
    same_grid(cz, z, what)  # shape, invalid points, heights bit for bit


def main():
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 20261126
    print("seed", seed)
    binary = find_binary()
    if binary is None:
        print("SKIP: test_surface_io binary not built (cmake --build BUILD --target test_surface_io)")
        return SKIP
    rng = np.random.default_rng(seed)
    cases = 0
    with tempfile.TemporaryDirectory(prefix="lwt_crafted_py_") as tmp:
        for k in range(12):
            bits = 16 if k % 2 == 0 else 32
            nx, ny = (int(v) for v in rng.integers(1, 40, 2))
            lim = 2**15 if bits == 16 else 2**31
            raw = rng.integers(-lim, lim, size=(ny, nx), dtype=np.int64)
            zmin = int(raw.min()) + 2
            special = k % 3 != 2
            if raw.size > 2:                               # a few points at the invalid marker
                raw.flat[rng.choice(raw.size, 2, replace=False)] = zmin - 2
            units = [["m", "mm", "um", "\xb5m", "nm"][int(i)] for i in rng.integers(0, 5, 3)]
            sx, sy = (float(v) for v in rng.uniform(0.1, 10.0, 2))
            sz, zoff = float(rng.uniform(1e-4, 1.0)), float(rng.uniform(-100.0, 100.0))
            comment = b"crafted %d" % k if k % 4 else b""
            path = os.path.join(tmp, "c%d.sur" % k)
            write_sur(path, raw, bits, sx, sy, sz, zoff, units, int(special), zmin, comment, private=3 * (k % 3))
            z, dx, dy = expect_sur(raw, sx, sy, sz, zoff, units, int(special), zmin)
            got, msg = c_read(binary, path, tmp)
            check(got is not None, "c%d.sur: %s" % (k, msg))
            same(got, z, dx, dy, "sur", "c%d.sur (%d-bit %dx%d, units %s, flag %d)" % (k, bits, nx, ny, units, special))
            cases += 1

            nx, ny = (int(v) for v in rng.integers(1, 40, 2))
            um = rng.uniform(-500.0, 500.0, size=(ny, nx)).astype(np.float32)
            um.flat[rng.integers(0, um.size)] = np.float32(1000001.0)  # not measured
            mppx, mppy = (float(v) for v in rng.uniform(0.05, 5.0, 2))
            path = os.path.join(tmp, "c%d.plu" % k)
            write_plu(path, um, mppx, mppy)
            z = np.where(um == np.float32(1000001.0), np.nan, um.astype(np.float64) * 1e-6)
            got, msg = c_read(binary, path, tmp)
            check(got is not None, "c%d.plu: %s" % (k, msg))
            same(got, z, f32(mppx) * 1e-6, f32(mppy) * 1e-6, "plu", "c%d.plu (%dx%d)" % (k, nx, ny))
            cases += 1
    if failures:
        print("%d failure(s) in %d files (seed %d)" % (len(failures), cases, seed))
        return 1
    print("%d crafted .sur and .plu files read exactly as written (seed %d)" % (cases, seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
