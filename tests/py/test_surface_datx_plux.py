#!/usr/bin/env python3
"""The .datx and .plux readers against other readings of the formats, and lwt --ignore-checksum.

tests/c/test_surface_io_datx.c and test_surface_io_plux.c write their files from the same reading
of the published layouts as the readers; here the files are written and read by others:

- .plux: written with zipfile and numpy (index.xml + LAYER_0.raw, random sizes, spacing,
  heights, NaN points), read by the C library (test_surface_io --dump) and, when the surfalize
  package is installed, by surfalize's own .plux reader: the heights (float32 micrometres) and
  the spacing must agree exactly, NaN where surfalize has NaN.
- .datx: written with h5py the way SurfaceTopography's tests write a minimal DATX (variable-length
  strings, MetaData links, converters with a variable-length Parameters; the heights contiguous
  or chunked and deflated) and read back by a small
  h5py reader below that follows the MetaData links; the C library must give the same heights
  times the unit, spacing and invalid points. Skipped (said) without h5py, or when the library
  was built without HDF5 (it then answers "built without HDF5").
- lwt filter on an X3P whose md5checksum.hex is wrong: refused (exit 1, the checksum named, no
  output folder), and with --ignore-checksum anywhere on the line read with the warning
  "checksum mismatch ignored" on stderr and in report.json's notes.

The seed is printed; LWT_SEED=N repeats a run. Exit 0 pass, 1 fail, 77 skip.
"""
import json
import os
import shutil
import zipfile

import numpy as np

import harness
import test_surface_io as sio

UNITS = {"Meters": 1.0, "MilliMeters": 1e-3, "MicroMeters": 1e-6, "NanoMeters": 1e-9}


def plux_bytes(z32, fov_x, fov_y, layer="LAYER_0.raw"):
    ny, nx = z32.shape
    index = ("<?xml version=\"1.0\"?>\n<xml><GENERAL><DATE>2025-01-02 03:04:05</DATE>"
             "<IMAGE_SIZE_X>%d</IMAGE_SIZE_X><IMAGE_SIZE_Y>%d</IMAGE_SIZE_Y>"
             "<FOV_X>%r</FOV_X><FOV_Y>%r</FOV_Y></GENERAL>"
             "<LAYER_0><FILENAME_Z>%s</FILENAME_Z></LAYER_0>"
             "<INFO><ITEM_0><NAME>Device</NAME><VALUE>S lynx</VALUE></ITEM_0></INFO></xml>\n"
             % (nx, ny, fov_x, fov_y, layer))
    return index, z32.astype("<f4").tobytes()


def test_plux(c, rng, binary, tmp):
    try:
        from surfalize.file.plux import read_plux
    except ImportError as e:
        read_plux = None
        print("surfalize is not installed (%s): .plux checked against the values written only" % e)
    for case in range(12):
        nx, ny = rng.randint(1, 60), rng.randint(1, 60)
        fov_x, fov_y = rng.uniform(0.05, 5), rng.choice([None, rng.uniform(0.05, 5)])
        fov_y = fov_x if fov_y is None else fov_y
        npr = np.random.default_rng(rng.randrange(1 << 30))
        z32 = (npr.normal(size=(ny, nx)) * 10 ** rng.randint(-2, 3)).astype(np.float32)
        z32[npr.random((ny, nx)) < 0.1] = np.nan
        z32.flat[0] = 1.5  # one valid point at least
        index, raw = plux_bytes(z32, fov_x, fov_y)
        path = os.path.join(tmp, "case%d.plux" % case)
        with zipfile.ZipFile(path, "w", rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as zf:
            zf.writestr("index.xml", index)
            zf.writestr("LAYER_0.raw", raw)
        what = "plux case %d (%d x %d)" % (case, nx, ny)
        got, err = sio.c_read(binary, path, tmp)
        if not c.check(got is not None, "%s: %s" % (what, err)):
            continue
        z, dx, dy, fmt = got
        want = z32.astype(np.float64) * 1e-6
        c.check(fmt == "plux" and z.shape == (ny, nx), "%s: format %r, shape %s" % (what, fmt, z.shape))
        c.check(np.array_equal(z, want, equal_nan=True), "%s: heights differ from the float32 values x 1e-6" % what)
        c.check(dx == fov_x * 1e-6 and dy == fov_y * 1e-6, "%s: spacing %.17g %.17g" % (what, dx, dy))
        if read_plux is None:
            continue
        with open(path, "rb") as f:
            other = read_plux(f)
        theirs = np.asarray(other.data, dtype=np.float64) * 1e-6
        c.check(theirs.shape == z.shape and np.array_equal(z, theirs, equal_nan=True),
                "%s: lwt's heights differ from surfalize's" % what)
        c.check(other.step_x * 1e-6 == dx and other.step_y * 1e-6 == dy,
                "%s: spacing %g %g, surfalize %g %g um" % (what, dx, dy, other.step_x, other.step_y))


def write_datx(h5py, path, data, dx, dy, no_data, unit, fixed, gzip=False):
    """A DATX as SurfaceTopography's test writes one (variable-length strings), or with fixed ones;
    gzip: the surface dataset chunked and deflated."""
    sdt = h5py.string_dtype() if not fixed else "S64"
    surface = "/Data/Surface/{00000000-0000-0000-0000-000000000001}"
    with h5py.File(path, "w") as h5:
        meta = np.array([("Root", "Measurement", "{M}"), ("{M}", "Surface", "{S}"), ("{S}", "Path", surface)],
                        dtype=[("Source", sdt), ("Link", sdt), ("Destination", sdt)])
        h5.create_dataset("MetaData", data=meta)
        ds = h5.create_dataset(surface, data=data, compression="gzip" if gzip else None)
        cdt = np.dtype([("Category", sdt), ("BaseUnit", sdt), ("Parameters", h5py.vlen_dtype(np.float64))])

        def conv(cat, u, par):
            v = np.empty(1, dtype=cdt)
            v[0] = (cat, u, np.array(par, dtype=np.float64))
            return v
        ds.attrs["X Converter"] = conv("LateralCat", "Pixels", [0, dx, 0, 0])
        ds.attrs["Y Converter"] = conv("LateralCat", "Pixels", [0, dy, 0, 0])
        ds.attrs["Z Converter"] = conv("HeightCat", unit, [0, 6e-7, 0.5, 1])
        ds.attrs["Unit"] = np.array([unit], dtype=sdt)
        ds.attrs["No Data"] = np.array([no_data], dtype=data.dtype)


def read_datx(h5py, path):
    """An independent reading: follow MetaData Root/Measurement/Surface/Path, then the attributes."""
    def s(v):
        return v.decode() if isinstance(v, bytes) else str(v)
    with h5py.File(path, "r") as h5:
        links = {(s(r["Source"]), s(r["Link"])): s(r["Destination"]) for r in h5["MetaData"][()]}
        node = "Root"
        for step in ("Measurement", "Surface", "Path"):
            node = links[(node, step)]
        ds = h5[node]
        z = ds[()].astype(np.float64)
        no_data = ds.attrs["No Data"][0]
        unit = UNITS[s(ds.attrs["Z Converter"][0][1])]
        dx = ds.attrs["X Converter"][0][2][1]
        dy = ds.attrs["Y Converter"][0][2][1]
    z[(z == no_data) | ~np.isfinite(z)] = np.nan
    return z * unit, dx, dy


def test_datx(c, rng, binary, tmp):
    try:
        import h5py
    except ImportError as e:
        print("SKIP part: h5py is not installed (%s); .datx is checked by tests/c/test_surface_io_datx.c" % e)
        return
    for case in range(10):
        nx, ny = rng.randint(1, 50), rng.randint(1, 50)
        dtype = rng.choice([np.float32, np.float64])
        npr = np.random.default_rng(rng.randrange(1 << 30))
        data = (npr.normal(size=(ny, nx)) * 100).astype(dtype)
        no_data = np.finfo(dtype).max
        data[npr.random((ny, nx)) < 0.1] = no_data
        data[npr.random((ny, nx)) < 0.05] = np.nan
        data.flat[0] = 2.5
        unit = rng.choice(list(UNITS))
        dx, dy = rng.uniform(1e-7, 1e-5), rng.uniform(1e-7, 1e-5)
        path = os.path.join(tmp, "case%d.datx" % case)
        gzip = rng.random() < 0.5
        write_datx(h5py, path, data, dx, dy, no_data, unit, fixed=rng.random() < 0.5, gzip=gzip)
        what = "datx case %d (%d x %d, %s, %s%s)" % (case, nx, ny, np.dtype(dtype).name, unit, ", gzip" if gzip else "")
        got, err = sio.c_read(binary, path, tmp)
        if got is None and "built without HDF5" in err:
            print("SKIP part: this build has no HDF5 (%s)" % err)
            return
        if not c.check(got is not None, "%s: %s" % (what, err)):
            continue
        z, gdx, gdy, fmt = got
        want, wdx, wdy = read_datx(h5py, path)
        c.check(fmt == "datx" and z.shape == (ny, nx), "%s: format %r, shape %s" % (what, fmt, z.shape))
        c.check(np.array_equal(z, want, equal_nan=True), "%s: heights differ from h5py's reading" % what)
        c.check(gdx == wdx == dx and gdy == wdy == dy, "%s: spacing %.17g %.17g, want %.17g %.17g"
                % (what, gdx, gdy, dx, dy))


def test_ignore_checksum(c, tmp):
    lwt = os.environ.get("LWT_BIN")
    if not lwt or not os.path.exists(lwt):
        print("SKIP part: LWT_BIN is not set (the CLI part of --ignore-checksum)")
        return
    good, bad = os.path.join(tmp, "good.x3p"), os.path.join(tmp, "bad.x3p")
    rc, _, err = harness.run_cli(lwt, ["synth", good, "--size", "128"])
    if not c.check(rc == 0, "lwt synth: %s" % err):
        return
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "md5checksum.hex":
                data = b"ffffffffffffffffffffffffffffffff *main.xml\n"
            zout.writestr(info, data)
    out = os.path.join(tmp, "out")
    rc, _, err = harness.run_cli(lwt, ["filter", bad, "-o", out, "--no-png"])
    c.check(rc == 1 and "wrong MD5 checksum of main.xml" in err and "ffffffff" in err,
            "a wrong md5checksum.hex is not refused by default: exit %d, stderr %r" % (rc, err))
    c.check(not os.path.exists(os.path.join(out, "bad")), "a refused input left an output folder")
    for args in (["--ignore-checksum", "filter", bad, "-o", out, "--no-png"],
                 ["filter", bad, "-o", out, "--no-png", "--ignore-checksum"]):
        shutil.rmtree(out, ignore_errors=True)
        rc, _, err = harness.run_cli(lwt, args)
        c.check(rc == 0 and "checksum mismatch ignored" in err and "warning" in err,
                "%s: exit %d, stderr %r" % (" ".join(args[:2]), rc, err))
        rep = os.path.join(out, "bad", "report.json")
        notes = json.load(open(rep)).get("notes", []) if os.path.exists(rep) else []
        c.check(any("checksum mismatch ignored" in n for n in notes), "report.json notes %r" % notes)


def main():
    binary, c, rng, tmp = sio.reader_test("test_surface_datx_plux")
    c.run("plux", test_plux, c, rng, binary, tmp)
    c.run("datx", test_datx, c, rng, binary, tmp)
    c.run("ignore-checksum", test_ignore_checksum, c, tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
