#!/usr/bin/env python3
"""Cross-check of the surface file readers and writers (src/io) against an independent reading.

Every areal file in $LWT_SHARED/data/surfaces is read by the C library (through the tool modes
of the test_surface_io test binary) and by the small numpy/zipfile/xml readers below, written
from scratch from the format descriptions; sizes, spacing, invalid points and every height
must agree. Then each one is written by the C library as X3P and as SDF (binary and ASCII)
and the result is read back here: same heights (bit-exact), valid MD5 checksums, well-formed
main.xml. When the optional PyPI package "surfalize" happens to be importable, it is used as a
third opinion on the files it supports (it is not installed by this test).

Exit 0 pass, 1 fail, 77 skip (no shared data folder, or the test binary is not built).
    python3 tests/py/test_surface_io.py [--print-expect]
--print-expect prints the expectation table used by tests/c/test_surface_io.c.
"""
import hashlib
import io
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

import numpy as np

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

NOT_AREAL = "not an areal surface"


# ----------------------------------------------------------------------------- independent readers


class NotAreal(Exception):
    pass


def _local(tag):
    return tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1]


def _find(elem, path):
    """Child by a '/'-separated path of local names (namespaces ignored)."""
    for name in path.split("/"):
        if elem is None:
            return None
        elem = next((c for c in elem if _local(c.tag) == name), None)
    return elem


def _text(elem, path, default=None):
    e = _find(elem, path)
    if e is None or e.text is None or not e.text.strip():
        return default
    return e.text.strip()


X3P_TYPES = {"I": "<i2", "L": "<i4", "F": "<f4", "D": "<f8"}


def read_x3p(path):
    z = zipfile.ZipFile(path)
    names = [n for n in z.namelist() if not n.startswith("__MACOSX/") and not os.path.basename(n).startswith("._")]
    mains = sorted((n for n in names if os.path.basename(n).lower() == "main.xml"), key=lambda n: n.count("/"))
    if not mains:
        raise ValueError("missing main.xml")
    main = mains[0]
    prefix = main[: -len("main.xml")]
    xml = z.read(main)

    def entry(link):
        link = link.lstrip("/")
        for cand in (link, prefix + link):
            for n in z.namelist():
                if n.lower() == cand.lower():
                    return z.read(n)
        raise ValueError("missing " + link)

    try:
        chk = entry("md5checksum.hex").decode("ascii").split()[0].lower()
        assert chk == hashlib.md5(xml).hexdigest(), "md5 of main.xml"
    except ValueError:
        pass
    root = ET.fromstring(xml)
    feature = _text(root, "Record1/FeatureType")
    if feature in ("PRF", "PCL"):
        raise NotAreal(feature)
    assert feature == "SUR"
    axes = {}
    for a in ("CX", "CY", "CZ"):
        e = _find(root, "Record1/Axes/" + a)
        axes[a] = dict(
            type=_text(e, "AxisType"),
            dtype=_text(e, "DataType"),
            inc=float(_text(e, "Increment", "1")),
            off=float(_text(e, "Offset", "0")),
        )
    md = _find(root, "Record3/MatrixDimension")
    if md is None:
        raise NotAreal("list")
    nx, ny, nzl = (int(_text(md, k)) for k in ("SizeX", "SizeY", "SizeZ"))
    assert nzl == 1
    n = nx * ny
    absx, absy = axes["CX"]["type"] == "A", axes["CY"]["type"] == "A"
    fields = [a for a, f in (("CX", absx), ("CY", absy), ("CZ", True)) if f]
    link = _find(root, "Record3/DataLink")
    cols = {}
    if link is not None:
        raw = entry(_text(link, "PointDataLink"))
        md5 = _text(link, "MD5ChecksumPointData")
        if md5:
            assert md5.lower() == hashlib.md5(raw).hexdigest(), "md5 of data.bin"
        dt = np.dtype([(a, X3P_TYPES[axes[a]["dtype"]]) for a in fields])
        rec = np.frombuffer(raw, dtype=dt, count=n)
        assert len(raw) == n * dt.itemsize
        for a in fields:
            cols[a] = rec[a].astype(np.float64)
        valid = np.ones(n, bool)
        vlink = _text(link, "ValidPointsLink")
        if vlink:
            vb = entry(vlink)
            vmd5 = _text(link, "MD5ChecksumValidPoints")
            if vmd5:
                assert vmd5.lower() == hashlib.md5(vb).hexdigest(), "md5 of valid.bin"
            valid = np.unpackbits(np.frombuffer(vb, np.uint8), bitorder="little")[:n].astype(bool)
    else:
        datums = [d.text.strip() if d.text and d.text.strip() else "" for d in _find(root, "Record3/DataList")]
        assert len(datums) == n
        valid = np.array([bool(d) for d in datums])
        for k, a in enumerate(fields):
            cols[a] = np.array([float(d.split(";")[k]) if d else np.nan for d in datums])
    zc = cols["CZ"]
    inc, off = axes["CZ"]["inc"], axes["CZ"]["off"]
    if inc != 1.0:
        zc = zc * inc
    if off != 0.0:
        zc = zc + off
    zc = np.where(valid & np.isfinite(zc), zc, np.nan)
    grid = zc.reshape(ny, nx)

    def spacing(a, axis):
        if axes[a]["type"] == "I":
            return axes[a]["inc"]
        c = (cols[a] * axes[a]["inc"] + axes[a]["off"]).reshape(ny, nx)
        ok = np.isfinite(grid)
        idx = np.indices((ny, nx))[1 - axis]
        lo, hi = idx[ok].min(), idx[ok].max()
        c0 = c[ok & (idx == lo)][0]
        c1 = c[ok & (idx == hi)][0]
        h = (c1 - c0) / (hi - lo)
        assert np.all(np.abs(c[ok] - (c0 + (idx[ok] - lo) * h)) <= 1e-3 * h), "non-uniform absolute axis"
        return h

    return grid, spacing("CX", 0), spacing("CY", 1)


SDF_TYPES = {0: "<u1", 1: "<u2", 2: "<u4", 3: "<f4", 4: "<i1", 5: "<i2", 6: "<i4", 7: "<f8"}


def read_sdf(path):
    raw = open(path, "rb").read()
    if raw[:1] == b"a":
        text = raw.decode("latin-1")
        head, rest = text.split("\n*", 1)
        h = {}
        for line in head.splitlines()[1:]:
            if "=" in line:
                k, v = line.split("=", 1)
                h[k.strip()] = v.strip()
        data_section = rest.split("*", 1)[0]
        vals = [np.nan if t.upper() == "BAD" else float(t) for t in data_section.split()]
        nx, ny = int(h["NumPoints"]), int(h["NumProfiles"])
        assert len(vals) == nx * ny
        z = np.array(vals, dtype=np.float64)
        zs = float(h["Zscale"])
        z = np.where(np.isfinite(z), z * zs, np.nan)
        return z.reshape(ny, nx), float(h["Xscale"]), float(h["Yscale"])
    assert raw[:1] == b"b"
    nx, ny = struct.unpack_from("<HH", raw, 42)
    xs, ys, zs, zr = struct.unpack_from("<4d", raw, 46)
    comp, dtype, check = raw[78], raw[79], raw[80]
    assert comp == 0 and check == 0
    z = np.frombuffer(raw, SDF_TYPES[dtype], count=nx * ny, offset=81).astype(np.float64)
    z = np.where(np.isfinite(z), z * zs, np.nan)
    return z.reshape(ny, nx), xs, ys


UNITS = {"m": 1.0, "mm": 1e-3, "um": 1e-6, "\xb5m": 1e-6, "nm": 1e-9}


def read_sur(path):
    raw = open(path, "rb").read()
    assert raw[:12] == b"DIGITAL SURF"
    objtype = struct.unpack_from("<H", raw, 18)[0]
    if objtype in (1, 4):
        raise NotAreal("profile")
    special = struct.unpack_from("<H", raw, 86)[0]
    bits = struct.unpack_from("<H", raw, 98)[0]
    zmin = struct.unpack_from("<i", raw, 100)[0]
    nx, ny = struct.unpack_from("<ii", raw, 108)
    sx, sy, sz = (float(v) for v in struct.unpack_from("<3f", raw, 120))
    unit = lambda off: UNITS[raw[off:off + 16].split(b"\0")[0].decode("latin-1").strip()]
    fx, fy, fz = unit(180), unit(196), unit(212)
    zoff = float(struct.unpack_from("<f", raw, 474)[0])
    comment, private = struct.unpack_from("<HH", raw, 334)
    d = np.frombuffer(raw, "<i2" if bits == 16 else "<i4", count=nx * ny, offset=512 + comment + private)
    z = d.astype(np.float64) * (sz * fz) + zoff * fz
    if special == 1:
        z[d == zmin - 2] = np.nan
    return z.reshape(ny, nx), sx * fx, sy * fy


def read_plu(path):
    raw = open(path, "rb").read()
    mppx, mppy = (float(v) for v in struct.unpack_from("<2f", raw, 388 + 16))
    mtype = struct.unpack_from("<I", raw, 428)[0]
    if mtype != 3:
        raise NotAreal("type %d" % mtype)
    yres, xres = struct.unpack_from("<II", raw, 500)
    d = np.frombuffer(raw, "<f4", count=xres * yres, offset=508)
    z = np.where((d == np.float32(1000001.0)) | ~np.isfinite(d), np.nan, d.astype(np.float64) * 1e-6)
    return z.reshape(yres, xres), mppx * 1e-6, mppy * 1e-6


def read_any(path):
    ext = os.path.splitext(path)[1].lower()
    return {".x3p": read_x3p, ".sdf": read_sdf, ".sur": read_sur, ".plu": read_plu}[ext](path)


# ----------------------------------------------------------------------------- the C side


def find_binary():
    cands = [os.environ.get("LWT_TEST_SURFACE_IO", ""), os.path.join(os.getcwd(), "tests", "test_surface_io")]
    for d in sorted(os.listdir(ROOT)):
        if d.startswith("build"):
            cands.append(os.path.join(ROOT, d, "tests", "test_surface_io"))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def c_read(binary, path, tmp):
    out = os.path.join(tmp, "dump.bin")
    r = subprocess.run([binary, "--dump", path, out], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    raw = open(out, "rb").read()
    assert raw[:8] == b"LWTSURF1"
    nx, ny = struct.unpack_from("<QQ", raw, 8)
    dx, dy = struct.unpack_from("<dd", raw, 24)
    fmt = raw[40:56].split(b"\0")[0].decode()
    z = np.frombuffer(raw, "<f8", count=nx * ny, offset=56).reshape(ny, nx)
    return (z, dx, dy, fmt), ""


def reader_test(name):
    """What a test of a reader against other readers starts with: the test_surface_io binary
    (skipped, 77, when it is not built), a Checker, a random.Random of the printed seed and a
    fresh temporary folder."""
    import harness
    import random
    binary = find_binary()
    if binary is None:
        harness.skip("test_surface_io binary not built")
    return binary, harness.Checker(name), random.Random(harness.seed()), tempfile.mkdtemp(prefix="lwt-%s-" % name)


def c_tool(binary, mode, src, dst, *extra):
    r = subprocess.run([binary, mode, src, dst, *extra], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


# ----------------------------------------------------------------------------- checks

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def same_grid(a, b, what, rtol=0.0):
    if a.shape != b.shape:
        check(False, "%s: shape %s vs %s" % (what, a.shape, b.shape))
        return
    na, nb = np.isnan(a), np.isnan(b)
    check(np.array_equal(na, nb), "%s: invalid points differ (%d vs %d)" % (what, na.sum(), nb.sum()))
    ok = ~(na | nb)
    if rtol == 0.0:
        diff = np.count_nonzero(a[ok].view(np.uint64) != b[ok].view(np.uint64))
        check(diff == 0, "%s: %d heights differ bit-wise (max |d| %g)" % (what, diff, np.max(np.abs(a[ok] - b[ok]), initial=0)))
    else:
        check(np.allclose(a[ok], b[ok], rtol=rtol, atol=0), "%s: heights differ beyond rtol %g" % (what, rtol))


def check_written_x3p(path, what):
    z = zipfile.ZipFile(path)
    names = z.namelist()
    check("main.xml" in names and "bindata/data.bin" in names and "md5checksum.hex" in names,
          "%s: entries %s" % (what, names))
    check(z.testzip() is None, "%s: zip CRC" % what)
    xml = z.read("main.xml")
    ET.fromstring(xml)  # well-formed
    md5 = z.read("md5checksum.hex").decode().split()[0]
    check(md5 == hashlib.md5(xml).hexdigest(), "%s: md5checksum.hex" % what)
    root = ET.fromstring(xml)
    check(_local(root.tag) == "ISO5436_2", "%s: root element %s" % (what, root.tag))
    order = [_local(c.tag) for c in root]
    check(order == ["Record1", "Record2", "Record3", "Record4"], "%s: record order %s" % (what, order))
    check(_text(root, "Record2/Creator") == "lwt", "%s: creator" % what)


def main():
    print_expect = "--print-expect" in sys.argv
    shared = os.environ.get("LWT_SHARED") or os.path.join(ROOT, "..", "shared")
    data = os.path.join(shared, "data", "surfaces")
    if not os.path.isdir(data):
        print("SKIP: real surface files not found in %s (set LWT_SHARED)" % data)
        return SKIP
    binary = find_binary()
    if binary is None and not print_expect:
        print("SKIP: test_surface_io binary not built (cmake --build BUILD --target test_surface_io)")
        return SKIP
    try:
        import surfalize  # optional third opinion, never installed here
    except Exception:
        surfalize = None

    files = sorted(f for f in os.listdir(data) if os.path.splitext(f)[1].lower() in (".x3p", ".sdf", ".sur", ".plu"))
    expect_lines = []
    with tempfile.TemporaryDirectory(prefix="lwt_sio_py_") as tmp:
        for f in files:
            path = os.path.join(data, f)
            try:
                ref = read_any(path)
                ref_err = None
            except NotAreal as e:
                ref, ref_err = None, str(e)
            if ref is None:
                expect_lines.append('    {"%s", LWT_ERR_NOT_AREAL, 0, 0, 0, 0, 0, 0, 0},' % f)
            else:
                g, dx, dy = ref
                ok = np.isfinite(g)
                expect_lines.append('    {"%s", 0, %d, %d, %d, %.17g, %.17g, %.17g, %.17g},'
                                    % (f, g.shape[1], g.shape[0], ok.sum(), dx, dy, g[ok].min(), g[ok].max()))
            if print_expect:
                continue

            got, msg = c_read(binary, path, tmp)
            if ref is None:
                check(got is None and NOT_AREAL in msg and f in msg,
                      "%s: expected a 'not an areal surface' error, got %r" % (f, msg))
                print("%-34s not areal (%s): %s" % (f, ref_err, msg))
                continue
            if got is None:
                check(False, "%s: C reader failed: %s" % (f, msg))
                continue
            z, cdx, cdy, fmt = got
            g, dx, dy = ref
            check(z.shape == g.shape, "%s: shape %s vs %s" % (f, z.shape, g.shape))
            check(abs(cdx - dx) <= 1e-12 * dx and abs(cdy - dy) <= 1e-12 * dy,
                  "%s: spacing %r %r vs %r %r" % (f, cdx, cdy, dx, dy))
            same_grid(z, g, f, rtol=1e-14)
            ok = np.isfinite(z)
            print("%-34s %s nx %4d ny %4d dx %.6g dy %.6g m, %d invalid, z in [%.6g, %.6g] m"
                  % (f, fmt, z.shape[1], z.shape[0], cdx, cdy, (~ok).sum(), z[ok].min(), z[ok].max()))

            if surfalize is not None:
                try:
                    s = surfalize.Surface.load(path)
                    sd = np.asarray(s.data, dtype=np.float64) * 1e-6
                    if sd.shape == z.shape and f.endswith((".x3p", ".sdf", ".sur")):
                        check(abs(s.step_x * 1e-6 - cdx) <= 1e-9 * cdx, "%s: surfalize dx %r" % (f, s.step_x))
                        both = ok & np.isfinite(sd)
                        check(np.allclose(sd[both], z[both], rtol=1e-6, atol=1e-15), "%s: surfalize heights" % f)
                except Exception as e:  # surfalize does not read every file (absolute axes, sub-folders)
                    print("   (surfalize cannot read %s: %s)" % (f, type(e).__name__))

            # writers: X3P, binary and ASCII SDF, read back independently
            out = os.path.join(tmp, "w.x3p")
            rc, msg = c_tool(binary, "--write-x3p", path, out)
            check(rc == 0, "%s -> x3p: %s" % (f, msg))
            if rc == 0:
                check_written_x3p(out, f + " -> x3p")
                w, wdx, wdy = read_x3p(out)
                check(wdx == cdx and wdy == cdy, "%s -> x3p: spacing %r %r" % (f, wdx, wdy))
                same_grid(w, z, f + " -> x3p")
                if surfalize is not None:  # another tool reads what we wrote
                    s = surfalize.Surface.load(out)
                    sd = np.asarray(s.data, dtype=np.float64) * 1e-6
                    check(sd.shape == z.shape and np.array_equal(np.isnan(sd), ~ok)
                          and np.allclose(sd[ok], z[ok], rtol=1e-12, atol=0),
                          "%s -> x3p: surfalize reads other heights" % f)
            for mode in ("binary", "ascii"):
                out = os.path.join(tmp, "w.sdf")
                rc, msg = c_tool(binary, "--write-sdf", path, out, mode)
                if mode == "binary" and max(z.shape) > 65535:
                    continue
                check(rc == 0, "%s -> %s sdf: %s" % (f, mode, msg))
                if rc == 0:
                    w, wdx, wdy = read_sdf(out)
                    check(wdx == cdx and wdy == cdy, "%s -> %s sdf: spacing" % (f, mode))
                    same_grid(w, z, "%s -> %s sdf" % (f, mode))

    if print_expect:
        print("\n".join(expect_lines))
        return 0
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all %d surface files agree with the independent reading" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
