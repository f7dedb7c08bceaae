#!/usr/bin/env python3
"""Compressed Digital Surf .sur, Alicona .al3d and Keyence .vk4 files written here, read by the C
library, and by surfalize where it is installed.

Runs on a fresh clone (no shared data). The files are written with struct and zlib from the
published layouts, independently of the C code (tests/c/test_surface_io_bin.c writes its own):
  - compressed .sur (DSCOMPRESSED): the uncompressed file of test_surface_crafted.write_sur, its
    points cut into 1-3 zlib streams behind a directory (stream count, then inflated and zipped
    size per stream), the block's size at header byte 324; the layout Gwyddion's surffile.c and
    surfalize's sur.py read;
  - .al3d: the magic, 52-byte tags (key 20, value 30, CR LF), float32 depths in metres in
    scanlines padded to 8 bytes (Alicona's AL3D file format specification);
  - .vk4: the header, offset table, measurement conditions (pixel sizes and z per digit in
    picometres) and the height image (Gwyddion's keyence.c and surfalize's vk.py read it so).
Random sizes, bit depths, units, scales and invalid markers (the seed is printed; LWT_SEED
repeats a run). The C readers (test_surface_io --dump) must return bit for bit the heights,
spacing and invalid points the layouts define. Then surfalize 0.19 (PyPI; that part is skipped
with a message when it is missing) reads the same files, and files its own writers made
(compressed .sur, .al3d), and must agree with lwt to rounding.

Exit 0 pass, 1 fail, 77 skip (the test binary is not built: no file-format libraries).
"""
import os
import struct
import tempfile
import warnings
import zlib

import numpy as np

import harness
from test_surface_crafted import expect_sur, write_sur
from test_surface_io import UNITS, c_read, find_binary, same_grid
import test_surface_io

AL3D_MAGIC = b"AliconaImaging\x00\r\n"
PICOMETRE = 1e-12


def write_sur_compressed(path, raw, bits, sx, sy, sz, zoff, units, special, zmin, cuts=(), comment=b""):
    """test_surface_crafted.write_sur's file made DSCOMPRESSED: the points cut at the byte
    offsets cuts into zlib streams behind their directory"""
    write_sur(path, raw, bits, sx, sy, sz, zoff, units, special, zmin, comment)
    b = bytearray(open(path, "rb").read())
    clen, plen = struct.unpack_from("<HH", b, 334)
    at = 512 + clen + plen
    points = bytes(b[at:])
    edges = [0] + list(cuts) + [len(points)]
    streams = [zlib.compress(points[a:e]) for a, e in zip(edges, edges[1:])]
    block = struct.pack("<I", len(streams))
    for (a, e), s in zip(zip(edges, edges[1:]), streams):
        block += struct.pack("<II", e - a, len(s))
    block += b"".join(streams)
    b[0:12] = b"DSCOMPRESSED"
    struct.pack_into("<I", b, 324, len(block))
    with open(path, "wb") as f:
        f.write(bytes(b[:at]) + block)


def write_al3d(path, depths, dx, dy, invalid_text="3e+15", pad_last=True, extra=()):
    """AL3D: depths (rows, cols) float32 metres; tags Cols, Rows, DepthImageOffset,
    PixelSizeX/YMeter (as %r text), InvalidPixelValue and the extra (key, value) pairs"""
    rows, cols = depths.shape
    tags = [("Cols", cols), ("Rows", rows), ("IconOffset", 0), ("DepthImageOffset", None),
            ("InvalidPixelValue", invalid_text), ("PixelSizeXMeter", repr(dx)), ("PixelSizeYMeter", repr(dy)),
            ("NumberOfPlanes", 0), ("TextureImageOffset", 0)] + list(extra)
    at = len(AL3D_MAGIC) + 52 * (2 + len(tags)) + 30
    tags = [(k, at if v is None else v) for k, v in tags]

    def tag(k, v):
        return struct.pack("20s30s2s", k.encode("latin-1"), str(v).encode("latin-1"), b"\r\n")

    out = AL3D_MAGIC + tag("Version", 1) + tag("TagCount", len(tags)) + b"".join(tag(k, v) for k, v in tags)
    out += b"\0" * 30
    stride = (cols * 4 + 7) // 8 * 8
    for r in range(rows):
        row = depths[r].astype("<f4").tobytes()
        out += row + (b"\0" * (stride - len(row)) if pad_last or r + 1 < rows else b"")
    with open(path, "wb") as f:
        f.write(out)


def write_vk4(path, raw, bits, xpp, ypp, zpd, date=(2026, 11, 27, 10, 20, 30)):
    """VK4: header, offset table (conditions at 84, height[0] after them, string data last),
    measurement conditions (304 bytes), the height image (header, 768-byte palette, raw as
    uint16/uint32), then title and lens name (UTF-16, as Keyence stores them)"""
    h, w = raw.shape
    cond_at, img_at = 84, 84 + 304
    data = raw.astype("<u2" if bits == 16 else "<u4").tobytes()
    str_at = img_at + 796 + len(data)
    table = [cond_at, 0, 0, 0, 0, 0, img_at] + [0] * 9 + [str_at, 0]
    out = b"VK4_" + b"\0\0\0\1" + struct.pack("<I", 0) + struct.pack("<18I", *table)
    cond = bytearray(304)
    struct.pack_into("<7I", cond, 0, 304, *date)
    struct.pack_into("<3I", cond, 168, xpp, ypp, zpd)
    out += bytes(cond)
    out += struct.pack("<7I", w, h, bits, 0, len(data), 0, 65535) + b"\0" * 768 + data
    for s in ("crafted", "lens 20x"):
        out += struct.pack("<I", len(s)) + s.encode("utf-16-le")
    with open(path, "wb") as f:
        f.write(out)


def crafted(c, binary, tmp, rng):
    """random files of each kind; the C reader must give exactly the heights the layout defines"""
    files = []  # (path, kind) for the surfalize part
    for k in range(10):
        bits = (16, 32)[k % 2]
        nx, ny = (int(v) for v in rng.integers(1, 30, 2))
        lim = 2**15 if bits == 16 else 2**31
        raw = rng.integers(-lim, lim, size=(ny, nx), dtype=np.int64)
        zmin = int(raw.min()) + 2
        special = int(k % 3 != 2)
        if raw.size > 2:
            raw.flat[rng.choice(raw.size, 2, replace=False)] = zmin - 2
        units = [["m", "mm", "um", "\xb5m", "nm"][int(i)] for i in rng.integers(0, 5, 3)]
        sx, sy = (float(v) for v in rng.uniform(0.1, 10.0, 2))
        sz, zoff = float(rng.uniform(1e-4, 1.0)), float(rng.uniform(-100.0, 100.0))
        nbytes = raw.size * bits // 8
        cuts = sorted(set(int(v) for v in rng.integers(1, nbytes, int(rng.integers(0, 3))))) if nbytes > 1 else []
        path = os.path.join(tmp, "c%d.sur" % k)
        write_sur_compressed(path, raw, bits, sx, sy, sz, zoff, units, special, zmin, cuts, b"crafted" * (k % 2))
        z, dx, dy = expect_sur(raw, sx, sy, sz, zoff, units, special, zmin)
        same(c, c_read(binary, path, tmp), z, dx, dy, "sur",
             "%s (%d-bit %dx%d, %d streams, units %s, flag %d)" % (path, bits, nx, ny, len(cuts) + 1, units, special))
        files.append((path, "sur"))

        cols, rows = (int(v) for v in rng.integers(1, 30, 2))
        d = (rng.normal(0, 1e-5, (rows, cols))).astype(np.float32)
        marker = np.float32(3e15)
        for i in rng.choice(d.size, min(3, d.size - 1), replace=False) if d.size > 1 else []:
            d.flat[i] = (marker, np.float32(5e15), np.float32(np.nan))[int(i) % 3]
        dx, dy = (float(v) for v in rng.uniform(1e-7, 1e-5, 2))
        path = os.path.join(tmp, "c%d.al3d" % k)
        write_al3d(path, d, dx, dy, ["3e+15", "3000000028082176", "3.000000028082e+15"][k % 3], pad_last=k % 2 == 0,
                   extra=[("CreatingApplication", "crafted")])
        z = np.where(np.isnan(d) | (d >= marker), np.nan, d.astype(np.float64))
        same(c, c_read(binary, path, tmp), z, dx, dy, "al3d", "%s (%dx%d)" % (path, cols, rows))
        files.append((path, "al3d"))

        w, h = (int(v) for v in rng.integers(1, 30, 2))
        raw = rng.integers(0, 2**bits, size=(h, w), dtype=np.uint64)
        xpp, ypp = (int(v) for v in rng.integers(1000, 5000000, 2))
        zpd = int(rng.integers(1, 100000))
        path = os.path.join(tmp, "c%d.vk4" % k)
        write_vk4(path, raw, bits, xpp, ypp, zpd)
        z = raw.astype(np.float64) * (zpd * PICOMETRE)
        same(c, c_read(binary, path, tmp), z, xpp * PICOMETRE, ypp * PICOMETRE, "vk4",
             "%s (%d-bit %dx%d)" % (path, bits, w, h))
        files.append((path, "vk4"))
    return files


def same(c, got, z, dx, dy, fmt, what):
    got, msg = got
    if not c.check(got is not None, "%s: not read: %s" % (what, msg)):
        return
    cz, cdx, cdy, cfmt = got
    c.check(cfmt == fmt, "%s: source format %r" % (what, cfmt))
    c.check(cdx == dx and cdy == dy, "%s: spacing %r %r, want %r %r" % (what, cdx, cdy, dx, dy))
    n0 = len(test_surface_io.failures)
    same_grid(cz, z, what)  # shape, invalid points, heights bit for bit
    for msg in test_surface_io.failures[n0:]:
        c.fail(msg)


def against_surfalize(c, binary, tmp, files):
    """surfalize reads the same files, and files its writers made; lwt must agree to rounding.
    surfalize adds the .sur Z offset in the file's unit as if it were micrometres (sur.py,
    get_surface); with the offsets taken off both sides the heights agree."""
    try:
        import surfalize
    except ImportError as e:
        print("surfalize part skipped: %s" % e)
        return
    rng = np.random.default_rng(7)
    z = rng.normal(0, 2.0, (23, 31))
    z[4, 5] = np.nan
    for name, kw in (("surfalize-compressed.sur", {"compressed": True}), ("surfalize.al3d", {})):
        path = os.path.join(tmp, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "different pixel size in x and y"
            surfalize.Surface(z, 0.25, 0.5).save(path, **kw)
        files.append((path, "sur" if name.endswith(".sur") else "al3d"))
    worst = {}
    for path, kind in files:
        got, msg = c_read(binary, path, tmp)
        if not c.check(got is not None, "%s: not read: %s" % (path, msg)):
            continue
        cz, cdx, cdy, _ = got
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = surfalize.Surface.load(path)
        sz = np.array(s.data, dtype=np.float64)
        lz = cz * 1e6
        if kind == "sur":
            head = open(path, "rb").read(512)
            off = struct.unpack_from("<f", head, 474)[0]
            unit = head[212:228].split(b"\0")[0]
            try:
                unit = unit.decode("utf-8")  # surfalize writes UTF-8, test_surface_crafted Latin-1
            except UnicodeDecodeError:
                unit = unit.decode("latin-1")
            lz = lz - off * UNITS[unit.strip()] * 1e6
            sz = sz - off
        c.check(np.array_equal(np.isnan(lz), np.isnan(sz)),
                "%s: invalid points differ from surfalize's (%d vs %d)" % (path, np.isnan(lz).sum(), np.isnan(sz).sum()))
        ok = ~(np.isnan(lz) | np.isnan(sz))
        scale = max(np.abs(sz[ok]).max() if ok.any() else 0.0, 1e-30)
        rel = np.abs(lz[ok] - sz[ok]).max() / scale if ok.any() else 0.0
        worst[kind] = max(worst.get(kind, 0.0), rel)
        c.check(rel <= 1e-12, "%s: heights differ from surfalize's by %.3g of the largest" % (path, rel))
        for a, b, axis in ((cdx * 1e6, s.step_x, "x"), (cdy * 1e6, s.step_y, "y")):
            c.check(abs(a - b) <= 1e-12 * b, "%s: %s spacing %.17g um, surfalize %.17g" % (path, axis, a, b))
    print("  surfalize %s: %d files agree; largest height difference over the largest height: %s"
          % (surfalize.__version__, len(files), ", ".join("%s %.2g" % kv for kv in sorted(worst.items()))))


def main():
    binary = find_binary()
    if binary is None:
        harness.skip("test_surface_io binary not built (cmake --build BUILD --target test_surface_io)")
    c = harness.Checker("test_surface_bin")
    rng = np.random.default_rng(harness.seed())
    with tempfile.TemporaryDirectory(prefix="lwt_bin_py_") as tmp:
        files = []
        c.run("crafted files, exact", lambda: files.extend(crafted(c, binary, tmp, rng)))
        c.run("against surfalize", against_surfalize, c, binary, tmp, files)
    c.finish()


if __name__ == "__main__":
    main()
