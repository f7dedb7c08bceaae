#!/usr/bin/env python3
"""Make the seed corpus of the fuzz harnesses (tests/fuzz/corpus/<harness>/) from the project's
own writers: `lwt synth` (X3P), test_surface_io --write-sdf (binary and ASCII SDF), the .sur and
.plu writers of tests/py/test_surface_crafted.py, the compressed .sur, .al3d and .vk4 writers of
tests/py/test_surface_bin.py, numpy (.npy), gwy_object below (.gwy, from Gwyddion's published
serialization) and plux_seeds below (.plux entries). No third-party files.

    python3 tests/fuzz/make_corpus.py [BUILD]     (BUILD: a build folder with lwt and
                                                   tests/test_surface_io; default build)

The seeds are small (a few KB each): libFuzzer mutates them, so each should be a valid file of
one variant the reader handles (type, byte order, invalid points, ...). Rerun after a writer or
a harness's input layout changes, and commit the result."""
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
from test_surface_crafted import write_plu, write_sur  # noqa: E402
from test_surface_bin import write_al3d, write_sur_compressed, write_vk4  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")


def put(harness, name, data):
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def fixed_heights():
    """fuzz_x3p_data.h's data.bin: height i is (i % 5 - 2) * 1e-6, 16 little-endian float64"""
    return np.array([(i % 5 - 2) * 1e-6 for i in range(16)], dtype="<f8").tobytes()


def xml_seeds(main_xml):
    """main.xml seeds that describe fuzz_x3p_data.h's data.bin (128 bytes) and valid.bin
    (2 bytes), starting from the 4 x 4 main.xml lwt wrote: float64 with and without the
    valid points, and the same bytes read as 8 x 4 float32, 8 x 8 int16 and 8 x 4 int32"""
    data = fixed_heights()
    md5d = hashlib.md5(data).hexdigest()
    md5v = hashlib.md5(bytes([0xFF, 0x7F])).hexdigest()
    x = re.sub(r"<MD5ChecksumPointData>\w*</MD5ChecksumPointData>",
               "<MD5ChecksumPointData>%s</MD5ChecksumPointData>" % md5d, main_xml)
    x = re.sub(r"\s*<ValidPointsLink>.*?</MD5ChecksumValidPoints>", "", x, flags=re.S)
    with_valid = x.replace("</MD5ChecksumPointData>",
                           "</MD5ChecksumPointData>\n      <ValidPointsLink>bindata/valid.bin</ValidPointsLink>\n"
                           "      <MD5ChecksumValidPoints>%s</MD5ChecksumValidPoints>" % md5v)
    yield "f64-valid.xml", with_valid
    yield "f64.xml", x
    cz = re.compile(r"(<CZ>.*?<DataType>)D(</DataType>)", re.S)
    for t, nx, ny in (("F", 8, 4), ("I", 8, 8), ("L", 8, 4)):
        v = cz.sub(r"\g<1>%s\g<2>" % t, x)
        v = v.replace("<SizeX>4</SizeX>", "<SizeX>%d</SizeX>" % nx).replace("<SizeY>4</SizeY>", "<SizeY>%d</SizeY>" % ny)
        yield "%s.xml" % t, v


def bin_seeds():
    """fuzz_x3p_bin.c's layout: a control byte (type, valid.bin, row length), then the data"""
    rng = np.random.default_rng(29)
    for t, dt in enumerate(("<i2", "<i4", "<f4", "<f8")):
        for valid in (0, 1):
            nx, ny = 4 + t, 3
            z = rng.normal(0, 1000 if t < 2 else 1e-6, nx * ny).astype(dt)
            if t >= 2:
                z[1] = np.nan
            ctrl = t | valid << 2 | (nx - 1) << 3
            vb = np.packbits(np.arange(nx * ny) % 7 != 3, bitorder="little").tobytes() if valid else b""
            yield "%s%s.bin" % (dt[1:], "-valid" if valid else ""), bytes([ctrl]) + z.tobytes() + vb


def gwy_object(name, components):
    """One serialized Gwyddion object: NUL-terminated type name, uint32 LE size, then each
    component (name NUL, type char, value); types b c i q d s o and arrays C I Q D S O"""
    body = b""
    for cname, t, v in components:
        body += cname.encode() + b"\0" + t.encode()
        if t == "i":
            body += struct.pack("<i", v)
        elif t == "d":
            body += struct.pack("<d", v)
        elif t == "b":
            body += bytes([v])
        elif t == "s":
            body += v.encode() + b"\0"
        elif t == "o":
            body += v
        elif t == "D":
            body += struct.pack("<I", len(v)) + np.asarray(v, dtype="<f8").tobytes()
        else:
            raise ValueError(t)
    return name.encode() + b"\0" + struct.pack("<I", len(body)) + body


def gwy_seeds():
    """.gwy files: one channel in micrometres; two channels, a mask and a title in nanometres"""
    unit = lambda u: gwy_object("GwySIUnit", [("unitstr", "s", u)])  # noqa: E731

    def field(nx, ny, zunit, data):
        return gwy_object("GwyDataField", [("xres", "i", nx), ("yres", "i", ny), ("xreal", "d", nx * 1e-6),
                                           ("yreal", "d", ny * 2e-6), ("si_unit_xy", "o", unit("m")),
                                           ("si_unit_z", "o", unit(zunit)), ("data", "D", data)])

    rng = np.random.default_rng(31)
    one = gwy_object("GwyContainer", [("/0/data", "o", field(4, 3, "um", rng.normal(size=12)))])
    two = gwy_object("GwyContainer", [
        ("/1/data", "o", field(2, 2, "m", [1e-6, 2e-6, 3e-6, 4e-6])),
        ("/0/data", "o", field(5, 4, "nm", rng.normal(0, 50, 20))),
        ("/0/data/title", "s", "seed"),
        ("/0/mask", "o", field(5, 4, "", (np.arange(20) % 6 == 1).astype(float))),
        ("/0/show", "b", 1)])
    yield "um.gwy", b"GWYP" + one
    yield "nm-mask.gwy", b"GWYP" + two


def vendor_seeds(t, rng, seeds):
    """compressed .sur (one stream with the non-measured flag; two streams cut inside a point),
    .al3d (the invalid marker and NaN, padded and unpadded last scanline), .vk4 (16 and 32 bits)"""
    write_sur_compressed(t("za.sur"), rng.integers(-2**15, 2**15, (5, 6)), 16, 1.0, 1.0, 0.01, 0.0,
                         ["um", "um", "um"], 1, -2**15 + 2, comment=b"seed")
    write_sur_compressed(t("zb.sur"), rng.integers(-2**31, 2**31, (4, 3)), 32, 0.5, 2.0, 1e-3, 5.0,
                         ["mm", "mm", "nm"], 0, -2**31 + 2, cuts=[5])
    d = rng.normal(0, 1e-5, (4, 5)).astype(np.float32)
    d[1, 2], d[2, 3] = np.float32(3e15), np.nan
    write_al3d(t("a.al3d"), d, 4.38027e-07, 4.38027e-07)
    write_al3d(t("b.al3d"), d[:2, :3], 1e-6, 2e-6, "3000000028082176", pad_last=False)
    write_vk4(t("a.vk4"), rng.integers(0, 2**16, (3, 6)), 16, 138500, 138500, 1)
    write_vk4(t("b.vk4"), rng.integers(0, 2**32, (2, 4)), 32, 1000000, 2000000, 8500)
    for fmt, names in (("sur_z", ("za.sur", "zb.sur")), ("al3d", ("a.al3d", "b.al3d")), ("vk4", ("a.vk4", "b.vk4"))):
        seeds[fmt] = [(n, open(t(n), "rb").read()) for n in names]


def plux_seeds():
    """fuzz_plux.c's inputs: byte 0 even, index.xml (for its fixed 4 x 3 LAYER_0.raw), with and
    without FILENAME_Z and INFO items; byte 0 odd, the float32 heights behind a fixed index.xml
    (bits 1-3: points per row - 1)"""
    general = ("<GENERAL><DATE>2025-01-02 03:04:05</DATE><IMAGE_SIZE_X>4</IMAGE_SIZE_X><IMAGE_SIZE_Y>3"
               "</IMAGE_SIZE_Y><FOV_X>0.6918</FOV_X><FOV_Y>0.6918</FOV_Y></GENERAL>")
    full = ("<?xml version=\"1.0\"?>\n<xml>" + general + "<LAYER_0><FILENAME_Z>LAYER_0.raw</FILENAME_Z></LAYER_0>"
            "<INFO><ITEM_0><NAME>Device</NAME><VALUE>S neox</VALUE></ITEM_0>"
            "<ITEM_1><NAME>Comment</NAME><VALUE>seed</VALUE></ITEM_1></INFO></xml>\n")
    yield "index.xml", b"\0" + full.encode()
    yield "index-default-layer.xml", b"\0" + ("<xml>" + general + "</xml>").encode()
    z = np.array([[1.5, -2.25, np.nan], [0.0, 3.0e2, -1e-3]], dtype="<f4")
    yield "heights-3x2.raw", bytes([1 | (2 << 1)]) + z.tobytes()


def npy_seeds():
    rng = np.random.default_rng(29)
    import io

    def save(a, version=None):
        b = io.BytesIO()
        if version:
            np.lib.format.write_array(b, a, version=version)
        else:
            np.save(b, a)
        return b.getvalue()

    yield "f64-2d.npy", save(rng.normal(size=(6, 5)))
    yield "f32-3d.npy", save(rng.normal(size=(2, 3, 4)).astype("<f4"))
    yield "f64-1d.npy", save(rng.normal(size=9))
    yield "f64-v2.npy", save(rng.normal(size=(3, 3)), version=(2, 0))
    yield "f64-0d.npy", save(np.array(1.5))
    # byte order and layout only npy_read converts (the mapped reader refuses them)
    yield "f64-big-endian.npy", save(rng.normal(size=(4, 3)).astype(">f8"))
    yield "f32-fortran.npy", save(np.asfortranarray(rng.normal(size=(4, 5)).astype("<f4")))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    lwt = os.path.join(build, "lwt")
    tsio = os.path.join(build, "tests", "test_surface_io")
    for p in (lwt, tsio):
        if not os.access(p, os.X_OK):
            sys.exit("make_corpus.py: %s not built (cmake --build %s --target lwt_cli test_surface_io)" % (p, build))
    shutil.rmtree(CORPUS, ignore_errors=True)
    seeds = {}  # format -> [(name, bytes)] for the auto-detecting reader's harness
    with tempfile.TemporaryDirectory(prefix="lwt-corpus-") as tmp:
        t = lambda n: os.path.join(tmp, n)  # noqa: E731
        run(lwt, "synth", t("a.x3p"), "--size", "8,6", "--seed", "1")
        run(lwt, "synth", t("b.x3p"), "--size", "5,7", "--preset", "ground", "--invalid", "0.2", "--seed", "2")
        run(lwt, "synth", t("c.x3p"), "--size", "4", "--seed", "3")
        run(tsio, "--write-sdf", t("a.x3p"), t("a.sdf"), "binary")
        run(tsio, "--write-sdf", t("b.x3p"), t("b.sdf"), "ascii")
        rng = np.random.default_rng(29)
        write_sur(t("a.sur"), rng.integers(-2**15, 2**15, (5, 6)), 16, 1.0, 1.0, 0.01, 0.0,
                  ["um", "um", "um"], 1, -2**15 + 2, b"seed")
        write_sur(t("b.sur"), rng.integers(-2**31, 2**31, (4, 3)), 32, 0.5, 2.0, 1e-3, 5.0,
                  ["mm", "mm", "nm"], 0, -2**31 + 2)
        write_plu(t("a.plu"), rng.uniform(-50, 50, (6, 5)).astype(np.float32), 1.5, 2.5)
        vendor_seeds(t, rng, seeds)
        for name in ("a.x3p", "b.x3p"):
            seeds.setdefault("x3p", []).append((name, open(t(name), "rb").read()))
        for name in ("a.sdf", "b.sdf"):
            seeds.setdefault("sdf", []).append((name, open(t(name), "rb").read()))
        for name in ("a.sur", "b.sur"):
            seeds.setdefault("sur", []).append((name, open(t(name), "rb").read()))
        seeds["plu"] = [("a.plu", open(t("a.plu"), "rb").read())]
        with zipfile.ZipFile(t("c.x3p")) as z:
            main_xml = z.read("main.xml").decode()
    seeds["npy"] = list(npy_seeds())
    for fmt in ("x3p", "sdf", "sur", "plu", "npy"):
        for name, data in seeds[fmt]:
            put("x3p_raw" if fmt == "x3p" else fmt, name, data)
    for name, data in seeds["npy"]:
        if "big-endian" not in name and "fortran" not in name:
            put("mapped", name, data)
    for name, data in gwy_seeds():
        put("gwy", name, data)
        put("surface", "noext-" + name, bytes([0]) + data)
    for fmt in ("sur_z", "al3d", "vk4"):
        for name, data in seeds[fmt]:
            put(fmt, name, data)
    for name, x in xml_seeds(main_xml):
        put("x3p_xml", name, x.encode())
    for name, data in bin_seeds():
        put("x3p_bin", name, data)
    for name, data in plux_seeds():
        put("plux", name, data)
    # fuzz_surface.c: the first byte picks the extension (0 none, 1 .x3p, 2 .sdf, 3 .sur, 4 .plu, 5 .npy,
    # 6 .al3d, 7 .vk4)
    ext = {"x3p": 1, "sdf": 2, "sur": 3, "plu": 4, "npy": 5, "sur_z": 3, "al3d": 6, "vk4": 7}
    for fmt, k in ext.items():
        name, data = seeds[fmt][0]
        put("surface", name, bytes([k]) + data)
        put("surface", "noext-" + name, bytes([0]) + data)
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(CORPUS) for f in fs)
    print("corpus: %d files, %d bytes in %s" % (sum(len(fs) for _, _, fs in os.walk(CORPUS)), total, CORPUS))


if __name__ == "__main__":
    main()
