#!/usr/bin/env python3
"""lwt filter with anisotropic spacing: levels per axis, end to end through the CLI.

- a surface written here (.npy, --spacing 1,4 and 2,1) of sinusoids along x and along y at known
  wavelengths: report.json's "levels_per_axis" and effective cutoffs are octaves of each axis's
  own spacing within sqrt(2) of the request on both axes; each sinusoid alone lands in the band
  its wavelength along its own axis names (>= 90 % of its energy away from the border); the
  bands add up to the input and equal PyWavelets' split by the same steps (pywt.dwt along one
  axis, pywt.dwt2, from the rule of docs/SURFACE.md); the table's "levels x / y:" line; every
  moved cutoff is a note and a warning line on stderr, per axis;
- the lwt package's filter (where this build made it) gives the same bands bit for bit and the
  same levels per axis;
- the real anisotropic file ($LWT_SHARED/data/surfaces/mountains-export-anisotropic.x3p,
  0.128 x 0.315 um; skipped with a message when absent): per-axis cutoffs within sqrt(2) of the
  request on both axes, bands add up to the input and equal PyWavelets' steps.
Exit 0 pass, 1 fail, 77 skip (CLI not built).
"""
import json
import math
import os
import shutil
import sys
import tempfile

import numpy as np

import harness
import test_surface_io as sio

try:
    from lwt import surface as lwt_surface
except ImportError:
    lwt_surface = None

UM = 1e-6
BANDS = ("form", "waviness", "roughness", "noise")


def filter_npy(binary, tmp, name, z, spacing_um, *args):
    """lwt filter on z written as .npy in metres: (exit, stdout, stderr, report, bands)"""
    path = os.path.join(tmp, name + ".npy")
    np.save(path, z)
    out = os.path.join(tmp, "out")
    rc, so, se = harness.run_cli(binary, ["filter", path, "-o", out, "--no-png", "--spacing",
                                          "%g,%g" % spacing_um] + [str(a) for a in args])
    if rc:
        return rc, so, se, None, None
    folder = os.path.join(out, name)
    rep = json.load(open(os.path.join(folder, "report.json")))
    bands = {b: sio.read_x3p(os.path.join(folder, b + ".x3p"))[0] for b in BANDS
             if os.path.exists(os.path.join(folder, b + ".x3p"))}
    return rc, so, se, rep, bands


def check_cutoffs(c, rep, spacing_um, asked_um, case):
    """each effective cutoff is an octave of its axis's spacing within sqrt(2) of the request"""
    for key, asked in asked_um.items():
        eff = rep["cutoffs_um"][key]["effective"]
        for k in range(2):
            octave = math.log2(eff[k] / spacing_um[k])
            c.check(abs(octave - round(octave)) < 1e-9, "%s: %s along %s = %r um is not an octave of %g um"
                    % (case, key, "xy"[k], eff[k], spacing_um[k]))
            c.check(asked / math.sqrt(2) * (1 - 1e-12) <= eff[k] <= asked * math.sqrt(2) * (1 + 1e-12),
                    "%s: %s along %s = %r um for %g um asked" % (case, key, "xy"[k], eff[k], asked))


def band_of(axis_levels, j):
    """the band of level j along one axis, from report.json's levels_per_axis entry"""
    for name in ("noise", "roughness", "waviness"):
        r = axis_levels[name]
        if r and r[0] <= j <= r[1]:
            return name
    raise ValueError("level %d in no band of %r" % (j, axis_levels))


def split_pywt(z, lp, wavelet="bior4.4", mode="symmetric"):
    """The split by levels per axis written with PyWavelets, from the rule of docs/SURFACE.md:
    both axes' next levels in one 2-D level (pywt.dwt2) while they are in the same band, else the
    axis whose next level is in the finer band alone (pywt.dwt along it); each step's details go
    to that band; a band is rebuilt with every other step's details zero."""
    import pywt
    order = {"noise": 0, "roughness": 1, "waviness": 2, None: 9}
    steps, a, k = [], z, [0, 0]
    while k[0] < lp["x"]["levels"] or k[1] < lp["y"]["levels"]:
        nxt = [band_of(lp[ax], k[i] + 1) if k[i] < lp[ax]["levels"] else None for i, ax in enumerate("xy")]
        shape = a.shape
        if nxt[0] == nxt[1]:
            a, det = pywt.dwt2(a, wavelet, mode=mode)
            steps.append(("xy", nxt[0], det, shape))
            k = [k[0] + 1, k[1] + 1]
        else:
            i = 0 if order[nxt[0]] < order[nxt[1]] else 1
            a, det = pywt.dwt(a, wavelet, mode=mode, axis=1 - i)  # x is axis 1 of (ny, nx)
            steps.append(("xy"[i], nxt[i], det, shape))
            k[i] += 1
    out = {}
    for b in BANDS:
        rec = a if b == "form" else np.zeros_like(a)
        for kind, band, det, shape in reversed(steps):
            keep = band == b
            if kind == "xy":
                d = det if keep else tuple(np.zeros_like(v) for v in det)
                rec = pywt.idwt2((rec, d), wavelet, mode=mode)
            else:
                rec = pywt.idwt(rec, det if keep else np.zeros_like(det), wavelet, mode=mode,
                                axis=1 if kind == "x" else 0)
            rec = rec[: shape[0], : shape[1]]
        out[b] = rec
    return out


def check_pywt(c, z, rep, bands, case):
    """bands equal the PyWavelets split by the same levels per axis, to about its bior4.4 table
    inconsistency (test_surface_filter.py's bound)"""
    ref = split_pywt(z, rep["levels_per_axis"])
    for b, v in bands.items():
        e = np.max(np.abs(v - ref[b])) / np.max(np.abs(z))
        c.check(e < 2.4e-11, "%s: %s differs from PyWavelets' steps by %.3g" % (case, b, e))
    for b in set(ref) - set(bands):
        c.check(not np.any(ref[b]), "%s: PyWavelets' steps have a %s band, lwt filter none" % (case, b))


def check_sum(c, z, bands, case, rtol=1e-12):
    err = np.max(np.abs(sum(bands.values()) - z))
    c.check(err <= rtol * np.max(np.abs(z)), "%s: bands add up to the input within %.3g" % (case, err))


def sinusoids(c, binary, tmp):
    # 1 x 4 um, lambda-s 8 um, lambda-c 128 um, 8 levels: x roughness 8-128 um (levels 3-6), and
    # along y the octaves of 4 um: roughness 8-128 um (levels 1-4), waviness 128-512 um (5-6)
    nx, ny, sp = 512, 512, (1.0, 4.0)
    yy, xx = np.indices((ny, nx)).astype(float)
    cases = [("x", 3.2, "noise"), ("x", 32, "roughness"), ("x", 256, "waviness"), ("y", 24, "roughness"),
             ("y", 256, "waviness")]
    args = ("--lambda-s", 8, "--lambda-c", 128, "--levels", 8)
    total = np.zeros((ny, nx))
    for axis, lam, want in cases:
        pos = (xx * sp[0]) if axis == "x" else (yy * sp[1])
        z = 1e-7 * np.sin(2 * np.pi * pos / lam + 0.3)
        total += z
        case = "1 x 4 um, %g um along %s" % (lam, axis)
        rc, so, se, rep, bands = filter_npy(binary, tmp, "sine", z, sp, *args)
        if not c.check(rc == 0, "%s: lwt filter failed: %s" % (case, se)):
            continue
        m = int(min(lam / sp[0 if axis == "x" else 1] / 2, (nx if axis == "x" else ny) / 4))
        inner = (slice(None), slice(m, nx - m)) if axis == "x" else (slice(m, ny - m), slice(None))
        e = {b: float(np.sum(a[inner] ** 2)) for b, a in bands.items()}
        share = e[want] / sum(e.values())
        c.check(share >= 0.9, "%s: %.3f of its energy in %s (%r)" % (case, share, want, e))
    rc, so, se, rep, bands = filter_npy(binary, tmp, "mix", total, sp, *args)
    if not c.check(rc == 0, "1 x 4 um mix: %s" % se):
        return
    check_sum(c, total, bands, "1 x 4 um mix")
    check_pywt(c, total, rep, bands, "1 x 4 um mix")
    # hand-computed: x levels of 1 um from the request, y levels of 4 um nearest the same wavelengths
    c.check(rep["levels_per_axis"] == {"x": {"levels": 8, "noise": [1, 2], "roughness": [3, 6], "waviness": [7, 8]},
                                       "y": {"levels": 6, "noise": [], "roughness": [1, 4], "waviness": [5, 6]}},
            "1 x 4 um: levels_per_axis %r" % rep["levels_per_axis"])
    check_cutoffs(c, rep, sp, {"lambda_s": 8, "lambda_c": 128}, "1 x 4 um")
    c.check("levels x / y:" in so and "roughness 3-6 / 1-4 (8-128 / 8-128 um)" in so,
            "1 x 4 um: the table's levels line: %r" % so)
    c.check(se == "" and not [n for n in rep["notes"] if "moved" in n or "raised" in n],
            "1 x 4 um, cutoffs on octaves of both axes: stderr %r, notes %r"
            % (se, rep["notes"]))
    if lwt_surface is not None:
        r = lwt_surface.filter(total, sp[0] * UM, sp[1] * UM, lambda_s=8 * UM, lambda_c=128 * UM, levels=8)
        c.check(r.split["levels_xy"] == (8, 6) and r.split["rough_lo_xy"] == (3, 1) and
                r.split["rough_hi_xy"] == (6, 4), "lwt.surface.filter's levels per axis %r" % r.split)
        same = set(r.bands) == set(bands) and all(np.array_equal(r.bands[b], bands[b]) for b in bands)
        c.check(same, "lwt.surface.filter's bands differ from lwt filter's")
    else:
        print("  (the lwt package is not built here: no Python API comparison)")
    # 2 x 1 um (y the finer axis), cutoffs off the octaves: one note and warning per moved cutoff
    z = total[:, :256]
    rc, so, se, rep, bands = filter_npy(binary, tmp, "yfine", z, (2.0, 1.0), "--lambda-s", 10, "--lambda-c", 100)
    if c.check(rc == 0, "2 x 1 um: %s" % se):
        check_sum(c, z, bands, "2 x 1 um")
        check_pywt(c, z, rep, bands, "2 x 1 um")
        check_cutoffs(c, rep, (2.0, 1.0), {"lambda_s": 10, "lambda_c": 100}, "2 x 1 um")
        warned = [l for l in se.splitlines() if "warning:" in l]
        moved = [n for n in rep["notes"] if " moved to " in n]
        c.check(len(moved) == 4 and len(warned) == 4 and all(any(n in w for w in warned) for n in moved),
                "2 x 1 um: notes %r, stderr %r" % (rep["notes"], se))


def real_file(c, binary, tmp):
    shared = os.environ.get("LWT_SHARED", os.path.join(os.path.dirname(sio.ROOT), "shared"))
    path = os.path.join(shared, "data", "surfaces", "mountains-export-anisotropic.x3p")
    if not os.path.exists(path):
        print("SKIP real file: %s is absent (the synthetic section ran)" % path)
        return
    z, dx, dy = sio.read_any(path)
    out = os.path.join(tmp, "out-real")
    for ls, lc in ((2.5, 25), (0.8, 8)):
        rc, so, se = harness.run_cli(binary, ["filter", path, "-o", out, "--no-png", "--lambda-s", ls, "--lambda-c",
                                              lc])
        case = "mountains-export-anisotropic, lambda-s %g, lambda-c %g" % (ls, lc)
        if not c.check(rc == 0, "%s: %s" % (case, se)):
            continue
        folder = os.path.join(out, "mountains-export-anisotropic")
        rep = json.load(open(os.path.join(folder, "report.json")))
        check_cutoffs(c, rep, (dx / UM, dy / UM), {"lambda_s": ls, "lambda_c": lc}, case)
        bands = {b: sio.read_x3p(os.path.join(folder, b + ".x3p"))[0] for b in BANDS
                 if os.path.exists(os.path.join(folder, b + ".x3p"))}
        check_sum(c, z, bands, case)
        check_pywt(c, z, rep, bands, case)
        lp = rep["levels_per_axis"]
        print("  %s: levels x %r, y %r; lambda-c %r um" % (case, lp["x"], lp["y"],
                                                           rep["cutoffs_um"]["lambda_c"]["effective"]))


def main():
    binary = harness.need_bin()  # and NumPy, PyWavelets
    c = harness.Checker("test_surface_axes")
    tmp = tempfile.mkdtemp(prefix="lwt-axes-")
    try:
        c.run("sinusoids along x and y", sinusoids, c, binary, tmp)
        c.run("real anisotropic file", real_file, c, binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
