#!/usr/bin/env python3
"""lwt filter and lwt synth, end to end through the CLI.

- synthetic surfaces (lwt synth --truth): the separation error of form, waviness and roughness
  against the known parts is printed and bounded; form + waviness + roughness rebuilds the
  input to rounding on valid points; invalid points are NaN in every output; the bands equal
  PyWavelets' waverecn of the zeroed wavedecn coefficients (when there are no invalid points);
  report.json has the keys and units of the contract; the parameters in it agree with an
  independent NumPy computation on the written X3P files (read by test_surface_io's readers);
- real files in $LWT_SHARED/data/surfaces (skipped with a message when absent): every areal
  file filters, its parameters agree with NumPy, the bands rebuild the input;
- bad inputs (truncated zip, wrong MD5, missing main.xml, size mismatch, all points invalid,
  too small for the levels, npy without spacing, unreadable) in one batch with good ones: one
  line each on stderr, no output folder, the batch goes on, exit status 1 naming the failures;
- a Gwyddion .gwy file with a mask: masked points NaN in every band, bands and parameters as
  for the other formats;
- options: cutoffs (lambda-s gives a noise band), --plane, --spacing for .npy, overwriting an
  existing output folder.
Exit 0 pass, 1 fail, 77 skip (CLI not built).
"""
import glob
import warnings
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

import harness
import test_surface_io as sio

PARAMS = ["Sa", "Sq", "Ssk", "Sku", "Sp", "Sv", "Sz", "Sdq", "Sdr"]
HEIGHTS = {"Sa", "Sq", "Sp", "Sv", "Sz"}


def np_params(z, dx, dy):
    """ISO 25178-2 parameters as docs/SURFACE.md defines them, written independently in NumPy.
    Heights in um, Sdr in %."""
    v = z[np.isfinite(z)]
    d = v - v.mean()
    sq = np.sqrt(np.mean(d * d))
    p = {"Sa": np.mean(np.abs(d)), "Sq": sq, "Sp": d.max(), "Sv": -d.min()}
    p["Sz"] = p["Sp"] + p["Sv"]
    p["Ssk"] = np.mean(d ** 3) / sq ** 3 if sq > 0 else np.nan
    p["Sku"] = np.mean(d ** 4) / sq ** 4 if sq > 0 else np.nan
    # Sdq: forward differences, each direction averaged over its valid pairs
    hx = np.diff(z, axis=1) / dx
    hy = np.diff(z, axis=0) / dy
    hx, hy = hx[np.isfinite(hx)], hy[np.isfinite(hy)]
    p["Sdq"] = np.sqrt(np.mean(hx * hx) + np.mean(hy * hy)) if hx.size and hy.size else np.nan
    # Sdr: each cell's four corner triangles (x edge, y edge), half their summed area over dx dy
    ex = (np.diff(z, axis=1) / dx) ** 2
    ey = (np.diff(z, axis=0) / dy) ** 2
    xb, xt, yl, yr = ex[:-1, :], ex[1:, :], ey[:, :-1], ey[:, 1:]
    cells = 0.25 * sum(g / (1 + np.sqrt(1 + g)) for g in (xb + yl, xb + yr, xt + yr, xt + yl))  # sqrt(1+g) - 1
    cells = cells[np.isfinite(cells)]
    p["Sdr"] = 100 * np.mean(cells) if cells.size else np.nan
    for k in HEIGHTS:
        p[k] *= 1e6
    return p


def agree(a, b, scale, rtol):
    if a is None or b is None:
        return a is None and (b is None or not np.isfinite(b))
    return abs(a - b) <= rtol * max(abs(b), scale)


class Run:
    def __init__(self, binary, tmp):
        self.bin, self.tmp = binary, tmp

    def lwt(self, *args, timeout=None):
        r = subprocess.run([self.bin] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr


def band_dir(outdir, name):
    return os.path.join(outdir, name)


def load_outputs(folder):
    out = {}
    for b in ("form", "waviness", "roughness", "noise"):
        p = os.path.join(folder, b + ".x3p")
        if os.path.exists(p):
            out[b] = sio.read_x3p(p)[0]
    return out


def check_rebuild_and_nan(c, z, bands, case, rtol=1e-12):
    total = sum(bands.values())
    valid = np.isfinite(z)
    for b, a in bands.items():
        c.check(a.shape == z.shape, "%s: %s has shape %s, input %s" % (case, b, a.shape, z.shape))
        c.check(np.array_equal(np.isfinite(a), valid), "%s: %s is not NaN exactly at the invalid points" % (case, b))
    err = np.max(np.abs(total[valid] - z[valid]))
    scale = np.max(np.abs(z[valid]))
    c.check(err <= rtol * scale, "%s: |form + waviness + roughness - input| = %.3g (scale %.3g)" % (case, err, scale))
    return err / scale


def check_report_params(c, rep, folder, z, dx, dy, case):
    """report.json parameters against NumPy on the input and on the written bands"""
    surfaces = {"input": z}
    surfaces.update(load_outputs(folder))
    for who, s in surfaces.items():
        got = rep["parameters"].get(who)
        if not c.check(got is not None, "%s: report has no parameters for %s" % (case, who)):
            continue
        want = np_params(s, dx, dy)
        hscale = max(want["Sq"], 1e-9)
        for k in PARAMS:
            scale = hscale if k in HEIGHTS else 1e-12
            c.check(agree(got[k], want[k], scale, 1e-9),
                    "%s: %s %s = %r, NumPy says %r" % (case, who, k, got[k], want[k]))


def np_material(z):
    """The material ratio curve of docs/SURFACE.md written independently: the heights about their
    mean sorted, the height at material ratio mr interpolated at position (n - 1)(1 - mr/100)
    (NumPy's linear quantile); Vm(p) as the trapezoid integral of max(h - Smc(p), 0) over the
    curve's points with the crossing inserted (exact for a piecewise linear curve). Heights in um."""
    v = z[np.isfinite(z)] * 1e6
    v = np.sort(v - v.mean())  # ascending
    n = v.size
    pos = np.arange(n, dtype=float)
    trapezoid = getattr(np, "trapezoid", None) or np.trapz  # NumPy 2 renamed it

    def smc(mr):
        return np.interp((n - 1) * (1 - np.asarray(mr, dtype=float) / 100), pos, v)

    def vm(p):
        c = smc(p)
        k = np.searchsorted(v, c)  # v[k:] >= c: the points above, at u = (n - 1 - k) / (n - 1) ...
        hh = np.concatenate(([c], v[k:]))
        uu = np.concatenate(([p / 100], (n - 1 - np.arange(k, n)) / (n - 1)))
        return -trapezoid(hh - c, uu)  # u falls as the heights rise

    return {"Smc": smc(10), "Sxp": smc(2.5) - smc(50), "Sdc": smc(2) - smc(98), "Vmp": vm(10),
            "Vmc": vm(80) - vm(10)}, smc


def check_report_material(c, rep, folder, z, case):
    """report.json's material ratio parameters and material_ratio.csv against NumPy"""
    surfaces = {"input": z}
    surfaces.update(load_outputs(folder))
    csv = np.genfromtxt(os.path.join(folder, "material_ratio.csv"), delimiter=",", names=True)
    c.check(csv.shape == (1001,) and csv["material_ratio_percent"][-1] == 100, "%s: material_ratio.csv rows" % case)
    for who, s in surfaces.items():
        got = rep["parameters"].get(who, {})
        want, smc = np_material(s)
        scale = max(abs(want["Sdc"]), 1e-9)
        for k, w in want.items():
            c.check(k in got and agree(got[k], w, scale, 1e-9), "%s: %s %s = %r, NumPy says %r"
                    % (case, who, k, got.get(k), w))
        curve = csv[who + "_um"]
        err = np.max(np.abs(curve - smc(csv["material_ratio_percent"])))
        c.check(err <= 1e-9 * scale, "%s: material_ratio.csv %s differs from NumPy's quantiles by %.3g um"
                % (case, who, err))


def check_report_keys(c, rep, case):
    for k in ("input", "spacing_um", "wavelet", "levels", "bands", "parameters", "units", "backend", "timing_ms"):
        c.check(k in rep, "%s: report.json lacks %r" % (case, k))
    for who in ("input", "form", "waviness", "roughness"):
        c.check(set(PARAMS) <= set(rep["parameters"].get(who, {})), "%s: parameters of %s incomplete" % (case, who))
    u = rep.get("units", {})
    c.check(u.get("Sa") == "um" and u.get("Sdr") == "%" and u.get("heights") == "um" and
            u.get("spacing") == "um", "%s: units %r" % (case, u))
    c.check(rep.get("backend") in ("cpu", "cuda"), "%s: backend %r" % (case, rep.get("backend")))
    c.check(len(rep.get("spacing_um", [])) == 2, "%s: spacing_um %r" % (case, rep.get("spacing_um")))


def split_pywt(z, levels, rough_hi, wavelet="bior4.4", mode="symmetric"):
    import pywt
    cf = pywt.wavedecn(z, wavelet, mode=mode, level=levels)

    def keep(idx):
        cc = [cf[0] if 0 in idx else np.zeros_like(cf[0])]
        cc += [{k: (v if i in idx else np.zeros_like(v)) for k, v in d.items()} for i, d in enumerate(cf[1:], 1)]
        return pywt.waverecn(cc, wavelet, mode=mode)[: z.shape[0], : z.shape[1]]

    wav = set(range(1, levels - rough_hi + 1))
    return {"form": keep({0}), "waviness": keep(wav), "roughness": keep(set(range(levels - rough_hi + 1, levels + 1)))}


def check_pywt(c, z, bands, case):
    """bands equal PyWavelets to about its own bior4.4 table inconsistency (docs/ACCURACY.md: the
    tables reconstruct to 4e-13 ... 2.4e-12; the library's bound is 10x that)"""
    ref = split_pywt(z, 6, 3)
    for b in ref:
        e = np.max(np.abs(bands[b] - ref[b])) / np.max(np.abs(z))
        c.check(e < 2.4e-11, "%s: %s differs from PyWavelets by %.3g" % (case, b, e))


# ----------------------------------------------------------------------------------- sections


def synthetic(c, r):
    rms = lambda a: np.sqrt(np.nanmean((a - np.nanmean(a)) ** 2))
    for preset, form in (("milled", None), ("ground", None), ("milled", "tilt")):
        case = "synth %s%s" % (preset, " " + form if form else "")
        src = os.path.join(r.tmp, "%s-%s.x3p" % (preset, form or "default"))
        args = ["synth", src, "--size", "512", "--preset", preset, "--seed", "11", "--truth"]
        if form:
            args += ["--form", form]
        rc, out, err = r.lwt(*args)
        if not c.check(rc == 0, "%s: lwt synth failed: %s" % (case, err)):
            continue
        outdir = os.path.join(r.tmp, "out-synth")
        rc, out, err = r.lwt("filter", src, "-o", outdir)
        if not c.check(rc == 0 and err == "", "%s: lwt filter failed (%d): %s" % (case, rc, err)):
            continue
        name = os.path.splitext(os.path.basename(src))[0]
        folder = band_dir(outdir, name)
        z, dx, dy = sio.read_x3p(src)
        bands = load_outputs(folder)
        check_rebuild_and_nan(c, z, bands, case)
        check_pywt(c, z, bands, case)
        # separation error: rms(output - truth) / rms(truth), over the field and inside a margin of
        # 128 spacings (2^(J+1)), where the border extension no longer reaches the coarse bands
        errs, inner = {}, {}
        m = (slice(128, -128), slice(128, -128))
        for b in ("form", "waviness", "roughness"):
            t = sio.read_x3p(src[:-4] + "_" + b + ".x3p")[0]
            errs[b] = rms(bands[b] - t) / rms(t)
            inner[b] = rms(bands[b][m] - t[m]) / rms(t[m])
        print("  %-18s separation error, field (inner): form %.3f (%.3f), waviness %.3f (%.3f), roughness %.3f "
              "(%.3f)" % (case, errs["form"], inner["form"], errs["waviness"], inner["waviness"],
                          errs["roughness"], inner["roughness"]))
        # wavelet bands are not sharp filters: the bounds leave room for the CDF 9/7 transition
        # bands (roughness texture near lambda-c) and for the border effects of the form
        c.check(errs["form"] < 0.1 and errs["waviness"] < 0.35 and errs["roughness"] < 0.3,
                "%s: separation error too large: %r" % (case, errs))
        c.check(inner["form"] < 0.05 and inner["waviness"] < 0.15 and inner["roughness"] < 0.25,
                "%s: inner separation error too large: %r" % (case, inner))
        rep = json.load(open(os.path.join(folder, "report.json")))
        check_report_keys(c, rep, case)
        check_report_params(c, rep, folder, z, dx, dy, case)
        check_report_material(c, rep, folder, z, case)
        c.check(rep["wavelet"] == "cdf97" and rep["wavelet_pywt"] == "bior4.4" and rep["levels"] == 6 and
                rep["bands"]["roughness"]["levels"] == [1, 3] and rep["bands"]["waviness"]["levels"] == [4, 6],
                "%s: report bands %r" % (case, rep["bands"]))
        for png in ("input.png", "form.png", "waviness.png", "roughness.png", "panel.png"):
            p = os.path.join(folder, png)
            c.check(os.path.exists(p) and open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "%s: %s" % (case, png))
    # invalid points, cutoffs with a noise band, plane removal, f32
    src = os.path.join(r.tmp, "holes.x3p")
    rc, out, err = r.lwt("synth", src, "--size", "400,300", "--spacing", "0.5,0.8", "--invalid", "0.04",
                         "--seed", "5")
    c.check(rc == 0, "synth with holes: %s" % err)
    z, dx, dy = sio.read_x3p(src)
    c.check(abs(np.mean(~np.isfinite(z)) - 0.04) < 0.005, "synth --invalid 0.04 gave %.3f" % np.mean(~np.isfinite(z)))
    outdir = os.path.join(r.tmp, "out-holes")
    for extra, case in ((["--lambda-s", "2", "--lambda-c", "20"], "cutoffs"), (["--plane"], "plane"),
                        (["--dtype", "f32"], "float32")):
        rc, out, err = r.lwt("filter", src, "-o", outdir, *extra)
        if not c.check(rc == 0, "holes %s: %s" % (case, err)):
            continue
        folder = band_dir(outdir, "holes")
        rep = json.load(open(os.path.join(folder, "report.json")))
        bands = load_outputs(folder)
        zz = z.copy()
        if case == "plane":
            p = rep["plane"]
            yy, xx = np.indices(z.shape)
            zz = z - (p["z0_um"] * 1e-6 + p["slope_x"] * xx * dx + p["slope_y"] * yy * dy)
            c.check(abs(np.nanmean(zz)) < 1e-3 * np.nanstd(zz), "plane: levelled input has mean %g" % np.nanmean(zz))
        # float32 transforms round to ~1e-7; the plane comes back from report.json with 10 digits
        rtol = {"float32": 1e-6, "plane": 1e-9}.get(case, 1e-12)
        check_rebuild_and_nan(c, zz, bands, "holes " + case, rtol)
        check_report_params(c, rep, folder, zz, dx, dy, "holes " + case)
        if case == "cutoffs":
            # smaller spacing 0.5 um: lambda-s 2 um -> 2^2 spacings (noise = level 1), lambda-c 20 um ->
            # nearest boundary 2^5 = 16 um (roughness 2-4)
            c.check("noise" in bands and rep["bands"]["noise"]["levels"] == [1, 1] and
                    rep["bands"]["roughness"]["levels"] == [2, 4], "cutoffs: bands %r" % rep["bands"])
            eff = rep["cutoffs_um"]["lambda_c"]["effective"]
            c.check(abs(eff[0] - 16) < 1e-9 and abs(eff[1] - 25.6) < 1e-9 and
                    rep["cutoffs_um"]["lambda_c"]["requested"] == 20, "cutoffs: lambda_c %r" % eff)
    # .npy with --spacing and --z-unit; without --spacing it fails
    npy = os.path.join(r.tmp, "heights.npy")
    np.save(npy, z[:256, :256] * 1e6)  # micrometres
    rc, out, err = r.lwt("filter", npy, "-o", outdir, "--spacing", "0.5,0.8", "--z-unit", "um")
    c.check(rc == 0, "npy with spacing: %s" % err)
    if rc == 0:
        rep = json.load(open(os.path.join(outdir, "heights", "report.json")))
        c.check(rep["spacing_um"] == [0.5, 0.8], "npy spacing %r" % rep["spacing_um"])
        c.check(agree(rep["parameters"]["input"]["Sq"], np_params(z[:256, :256], dx, dy)["Sq"], 0, 1e-9),
                "npy heights in um: Sq %r" % rep["parameters"]["input"]["Sq"])
    # overwriting an existing output folder replaces it completely
    folder = band_dir(outdir, "holes")
    open(os.path.join(folder, "stale.txt"), "w").write("old")
    rc, out, err = r.lwt("filter", src, "-o", outdir, "--no-png")
    c.check(rc == 0 and not os.path.exists(os.path.join(folder, "stale.txt")) and
            not os.path.exists(os.path.join(folder, "panel.png")), "overwrite did not replace the folder")
    c.check(not [n for n in os.listdir(outdir) if n.startswith(".")], "temporary folders left: %r" % os.listdir(outdir))


def make_x3p(path, nx, ny, data, md5_main=True, md5_data=True, drop=(), data_override=None, main_md5_wrong=False):
    """A minimal X3P (float64, incremental axes) written from scratch."""
    raw = np.asarray(data, "<f8").tobytes()
    dmd5 = hashlib.md5(raw).hexdigest() if md5_data else "0" * 32
    xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<p:ISO5436_2 xmlns:p=\"http://www.opengps.eu/2008/ISO5436_2\"><Record1><Revision>ISO5436 - 2000"
           "</Revision><FeatureType>SUR</FeatureType><Axes>"
           "<CX><AxisType>I</AxisType><DataType>D</DataType><Increment>1e-06</Increment><Offset>0</Offset></CX>"
           "<CY><AxisType>I</AxisType><DataType>D</DataType><Increment>1e-06</Increment><Offset>0</Offset></CY>"
           "<CZ><AxisType>A</AxisType><DataType>D</DataType></CZ></Axes></Record1>"
           "<Record3><MatrixDimension><SizeX>%d</SizeX><SizeY>%d</SizeY><SizeZ>1</SizeZ></MatrixDimension>"
           "<DataLink><PointDataLink>bindata/data.bin</PointDataLink><MD5ChecksumPointData>%s"
           "</MD5ChecksumPointData></DataLink></Record3></p:ISO5436_2>\n" % (nx, ny, dmd5)).encode()
    mmd5 = hashlib.md5(xml).hexdigest() if not main_md5_wrong else "f" * 32
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        if "main.xml" not in drop:
            zf.writestr("main.xml", xml)
        zf.writestr("bindata/data.bin", raw if data_override is None else data_override)
        zf.writestr("md5checksum.hex", "%s *main.xml\n" % mmd5)
    open(path, "wb").write(buf.getvalue())


def write_gwy(path, z_um, xreal, yreal, mask=None):
    """A Gwyddion file (format: docs/FORMATS.md): channel 0 with heights in micrometres, lateral
    sizes in metres, and a mask (nonzero = masked) when given."""
    import struct
    s = lambda x: x.encode() + b"\0"
    obj = lambda t, body: s(t) + struct.pack("<I", len(body)) + body
    unit = lambda u: obj("GwySIUnit", s("unitstr") + b"s" + s(u))

    def field(a, uz):
        ny, nx = a.shape
        return obj("GwyDataField", s("xres") + b"i" + struct.pack("<i", nx) + s("yres") + b"i" +
                   struct.pack("<i", ny) + s("xreal") + b"d" + struct.pack("<d", xreal) + s("yreal") + b"d" +
                   struct.pack("<d", yreal) + s("si_unit_xy") + b"o" + unit("m") + s("si_unit_z") + b"o" +
                   unit(uz) + s("data") + b"D" + struct.pack("<I", a.size) + a.astype("<f8").tobytes())

    c = s("/0/data") + b"o" + field(z_um, "um") + s("/0/data/title") + b"s" + s("Height")
    if mask is not None:
        c += s("/0/mask") + b"o" + field(mask.astype(float), "")
    open(path, "wb").write(b"GWYP" + obj("GwyContainer", c))


def gwy_file(c, r):
    """lwt filter scan.gwy: read through the auto-detecting reader, units applied, masked points
    NaN in every band, the bands rebuild the input, the parameters agree with NumPy"""
    rng = np.random.default_rng(5)
    ny, nx = 160, 170
    z_um = rng.normal(size=(ny, nx)) + np.linspace(0, 3, nx)[None, :]
    mask = np.zeros((ny, nx), bool)
    mask[10:14, 20:30] = True
    src = os.path.join(r.tmp, "scan.gwy")
    write_gwy(src, z_um, nx * 2.5e-6, ny * 2.5e-6, mask)
    outdir = os.path.join(r.tmp, "out-gwy")
    rc, out, err = r.lwt("filter", src, "-o", outdir)
    if not c.check(rc == 0 and err == "", "gwy: lwt filter failed (%d): %s" % (rc, err)):
        return
    c.check("170 x 160 points, spacing 2.5 x 2.5 um, 40 invalid" in out, "gwy: summary line: %r" % out[:300])
    z = z_um * 1e-6
    z[mask] = np.nan
    folder = band_dir(outdir, "scan")
    bands = load_outputs(folder)
    check_rebuild_and_nan(c, z, bands, "gwy")
    rep = json.load(open(os.path.join(folder, "report.json")))
    check_report_params(c, rep, folder, z, 2.5e-6, 2.5e-6, "gwy")


def bad_files(c, r):
    d = os.path.join(r.tmp, "bad")
    os.makedirs(d)
    rng = np.random.default_rng(3)
    good = rng.normal(size=(160, 170)) * 1e-6
    make_x3p(os.path.join(d, "good1.x3p"), 170, 160, good)
    blob = open(os.path.join(d, "good1.x3p"), "rb").read()
    open(os.path.join(d, "truncated.x3p"), "wb").write(blob[: len(blob) * 6 // 10])
    make_x3p(os.path.join(d, "wrongmd5.x3p"), 170, 160, good, main_md5_wrong=True)
    make_x3p(os.path.join(d, "wrongdatamd5.x3p"), 170, 160, good, md5_data=False)
    make_x3p(os.path.join(d, "nomain.x3p"), 170, 160, good, drop=("main.xml",))
    make_x3p(os.path.join(d, "sizemismatch.x3p"), 170, 160, good, data_override=good.tobytes()[:-8])
    make_x3p(os.path.join(d, "allinvalid.x3p"), 170, 160, np.full((160, 170), np.nan))
    make_x3p(os.path.join(d, "toosmall.x3p"), 100, 90, good[:90, :100])
    np.save(os.path.join(d, "nospacing.npy"), good)
    open(os.path.join(d, "notasurface.x3p"), "w").write("hello\n")
    make_x3p(os.path.join(d, "good2.x3p"), 170, 160, good[::-1])
    order = ["truncated", "good1", "wrongmd5", "wrongdatamd5", "nomain", "sizemismatch", "allinvalid",
             "toosmall", "nospacing", "notasurface", "good2"]
    ext = {"nospacing": ".npy"}
    inputs = [os.path.join(d, n + ext.get(n, ".x3p")) for n in order]
    outdir = os.path.join(r.tmp, "out-bad")
    rc, out, err = r.lwt("filter", *inputs, "-o", outdir)
    lines = [l for l in err.splitlines() if l.strip()]
    bad = [n for n in order if not n.startswith("good")]
    c.check(rc == 1, "bad batch: exit status %d, want 1" % rc)
    expect = {"truncated": "zip", "wrongmd5": "MD5", "wrongdatamd5": "MD5", "nomain": "main.xml",
              "sizemismatch": "size", "allinvalid": "invalid", "toosmall": "too small", "nospacing": "spacing",
              "notasurface": ""}
    for n in bad:
        mine = [l for l in lines if os.path.basename(inputs[order.index(n)]) + ":" in l]
        c.check(len(mine) == 1, "bad batch: %s gets %d lines on stderr, want 1: %r" % (n, len(mine), mine))
        if mine:
            c.check(expect[n].lower() in mine[0].lower(), "bad batch: %s: message %r lacks %r" % (n, mine[0],
                                                                                            expect[n]))
        c.check(not os.path.exists(os.path.join(outdir, n)), "bad batch: %s has an output folder" % n)
    c.check(len(lines) == len(bad) + 1 and "%d of %d inputs failed" % (len(bad), len(order)) in lines[-1],
            "bad batch: last line %r" % (lines[-1] if lines else None))
    for n in bad:
        c.check(os.path.basename(inputs[order.index(n)]) in lines[-1], "bad batch: summary does not name %s" % n)
    for g in ("good1", "good2"):
        c.check(os.path.exists(os.path.join(outdir, g, "report.json")), "bad batch: %s not filtered" % g)
    c.check(not [n for n in os.listdir(outdir) if n.startswith(".")], "bad batch: temporary folders left")
    c.check("good1.x3p -> " in out and "good2.x3p -> " in out, "bad batch: tables of the good files missing")
    # usage errors: exit 2, nothing written
    for args in (["--levels", "0"], ["--roughness-levels", "3-1"], ["--lambda-c", "-5"], ["--bogus"],
                 ["--backend", "tpu"], ["-w", "nosuch"]):
        rc, out, err = r.lwt("filter", inputs[1], "-o", os.path.join(r.tmp, "out-usage"), *args)
        c.check(rc == 2 and len(err.strip().splitlines()) == 1, "usage %r: exit %d, stderr %r" % (args, rc, err))
    c.check(not os.path.exists(os.path.join(r.tmp, "out-usage")), "usage errors wrote an output folder")


def non_regular(c, r):
    """A directory, a FIFO and a device among the inputs: each refused at once with one line naming
    what it is (a FIFO must not block the open: the timeout fails a regression instead of hanging)."""
    d = os.path.join(r.tmp, "nonreg")
    os.makedirs(os.path.join(d, "folder.x3p"))
    os.mkfifo(os.path.join(d, "fifo.x3p"))
    os.mkfifo(os.path.join(d, "pipe.npy"))
    make_x3p(os.path.join(d, "good.x3p"), 170, 160, np.random.default_rng(5).normal(size=(160, 170)) * 1e-6)
    want = {"folder.x3p": "is a directory", "fifo.x3p": "is a FIFO", "pipe.npy": "is a FIFO"}
    inputs = [os.path.join(d, n) for n in ("folder.x3p", "fifo.x3p", "good.x3p", "pipe.npy")]
    if os.path.exists("/dev/null"):
        inputs.append("/dev/null")
        want["/dev/null"] = "is a character device"
    outdir = os.path.join(r.tmp, "out-nonreg")
    try:
        rc, out, err = r.lwt("filter", *inputs, "-o", outdir, "--spacing", "1,1", timeout=60)
    except subprocess.TimeoutExpired:
        c.fail("lwt filter blocked on a FIFO or device input")
        return
    c.check(rc == 1, "non-regular inputs: exit status %d, want 1" % rc)
    lines = [l for l in err.splitlines() if l.strip()]
    for n, why in want.items():
        mine = [l for l in lines[:-1] if n + ":" in l]
        c.check(len(mine) == 1 and why in mine[0], "non-regular %s: want one line with %r, got %r" % (n, why, mine))
    c.check(os.path.exists(os.path.join(outdir, "good", "report.json")), "non-regular batch: good.x3p not filtered")
    # --no-material: the good file again without the material ratio family and its curves
    out2 = os.path.join(r.tmp, "out-nomaterial")
    rc, out, err = r.lwt("filter", os.path.join(d, "good.x3p"), "-o", out2, "--no-material", "--no-png", timeout=60)
    rep = json.load(open(os.path.join(out2, "good", "report.json"))) if rc == 0 else {}
    c.check(rc == 0 and not os.path.exists(os.path.join(out2, "good", "material_ratio.csv")) and
            "Sk" not in rep["parameters"]["roughness"] and "Sa" in rep["parameters"]["roughness"] and
            "Smr/%" not in out, "--no-material: exit %d, material ratio family still there" % rc)
    # --features: the feature family in every surface's parameters, its settings and units, a block
    # of the table; without it (above) neither
    feat = ("Spd", "Spc", "S10z", "S5p", "S5v", "Sda", "Sha", "Sdv", "Shv")
    table_without = out
    out3 = os.path.join(r.tmp, "out-features")
    rc, out, err = r.lwt("filter", os.path.join(d, "good.x3p"), "-o", out3, "--features", "--no-png", timeout=60)
    rep3 = json.load(open(os.path.join(out3, "good", "report.json"))) if rc == 0 else {"parameters": {}}
    c.check(rc == 0 and all(k in p for p in rep3["parameters"].values() for k in feat) and
            rep3.get("features", {}).get("wolf_pruning_percent_of_Sz") == 5 and
            rep3.get("units", {}).get("Spd") == "1/mm2" and "Spd/mm-2" in out, "--features: exit %d, %s" % (rc, err))
    c.check(not any(k in p for p in rep.get("parameters", {}).values() for k in feat) and "features" not in rep and
            "Spd/mm-2" not in table_without, "without --features: the feature family is there")
    # a 3 GiB sparse Digital Surf file with an unsupported object type: refused from its header, at once
    sur = os.path.join(d, "huge.sur")
    with open(sur, "wb") as f:
        f.write(b"DIGITAL SURF" + bytes(500))
    try:
        os.truncate(sur, 3 << 30)
    except OSError:
        return
    t0 = time.time()
    rc, out, err = r.lwt("filter", sur, "-o", os.path.join(r.tmp, "out-huge"), timeout=60)
    dt = time.time() - t0
    c.check(rc == 1 and "huge.sur: Digital Surf object type 0" in err, "3 GiB .sur: exit %d, %r" % (rc, err))
    c.check(dt < 5, "3 GiB .sur with a bad header: %.1f s to fail (read whole?)" % dt)
    os.remove(sur)


def real_files(c, r):
    shared = os.environ.get("LWT_SHARED", os.path.join(os.path.dirname(sio.ROOT), "shared"))
    folder = os.path.join(shared, "data", "surfaces")
    if not os.path.isdir(folder):
        print("SKIP real files: %s is absent (the synthetic and bad-file sections ran)" % folder)
        return
    outdir = os.path.join(r.tmp, "out-real")
    n = 0
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        try:
            z, dx, dy = sio.read_any(path)
        except (KeyError, sio.NotAreal):
            continue  # not a surface file, or the point cloud
        case = os.path.basename(path)
        levels = 6
        while min(z.shape) < 2 ** (levels + 1):
            levels -= 1
        rc, out, err = r.lwt("filter", path, "-o", outdir, "--levels", levels, "--preview-size", 256)
        # stderr: nothing (no cutoff asked for; anisotropic spacing gets levels per axis, no warning)
        warn = [l for l in err.splitlines() if l.strip()]
        c.check(not warn, "%s: stderr %r" % (case, err))
        if not c.check(rc == 0, "%s: lwt filter failed (%d): %s" % (case, rc, err)):
            continue
        n += 1
        name = os.path.splitext(case)[0]
        res = os.path.join(outdir, name)
        bands = load_outputs(res)
        check_rebuild_and_nan(c, z, bands, case)
        rep = json.load(open(os.path.join(res, "report.json")))
        check_report_keys(c, rep, case)
        check_report_params(c, rep, res, z, dx, dy, case)
        check_report_material(c, rep, res, z, case)
        c.check(np.allclose(rep["spacing_um"], [dx * 1e6, dy * 1e6], rtol=1e-12), "%s: spacing" % case)
        # wavedecn has the same levels on both axes: anisotropic spacing gets levels per axis,
        # whose PyWavelets reference (one-axis and 2-D steps) is test_surface_axes.py's
        if np.all(np.isfinite(z)) and levels == 6 and abs(dx - dy) <= 1e-3 * (dx + dy):
            check_pywt(c, z, bands, case)
    print("  %d real areal files filtered" % n)
    c.check(n >= 8, "only %d real areal files filtered" % n)


def main():
    binary = harness.need_bin()
    warnings.simplefilter("ignore", UserWarning)  # PyWavelets: level 6 above dwt_max_level on small files
    c = harness.Checker("test_surface_filter")
    tmp = tempfile.mkdtemp(prefix="lwt-filter-")
    try:
        r = Run(binary, tmp)
        c.run("synthetic surfaces", synthetic, c, r)
        c.run("Gwyddion file", gwy_file, c, r)
        c.run("bad files", bad_files, c, r)
        c.run("non-regular inputs", non_regular, c, r)
        c.run("real files", real_files, c, r)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
