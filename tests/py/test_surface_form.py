#!/usr/bin/env python3
"""lwt filter --form: the form models through the CLI, and the notes on adjusted cutoffs.

- a noise-free sphere cap, cylinder (axis along y) and cubic polynomial, written here from
  their formulas, are removed: the report's "form" gives the radius / the coefficients, the
  residual and the levelled input's Sq are ~0;
- a polynomial of degree 4 fitted to a rough surface with invalid points: the report's
  coefficients equal NumPy's least squares (numpy.linalg.lstsq on the Legendre basis of
  docs/SURFACE.md, built here with numpy.polynomial.legendre) to the report's 10 digits;
- --plane, --form plane and --form poly:1 give the same plane;
- every adjustment of a requested cutoff (octave rounding, lambda-s below 2 spacings; per axis
  with anisotropic spacing) is a note in report.json and a warning line on stderr; a cutoff on an
  octave boundary gets neither;
- usage errors exit 2 with one line and no output; a sphere on a flat surface exits 1 with one.
Exit 0 pass, 1 fail, 77 skip (CLI not built).
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
from numpy.polynomial import legendre as L

import harness


def lwt(binary, *args):
    r = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def grid(nx, ny, dx, dy):
    return np.meshgrid(np.arange(nx) * dx, np.arange(ny) * dy)


def run_form(c, binary, tmp, name, z, spacing_um, *args, levels=3):
    """filter z (.npy, metres) with args; the report and stderr (None and stderr on failure)"""
    src = os.path.join(tmp, name + ".npy")
    np.save(src, z)
    od = os.path.join(tmp, "out-" + name)
    rc, out, err = lwt(binary, "filter", src, "-o", od, "--spacing", spacing_um, "--no-png", "--no-material",
                       "--levels", levels, *args)
    if not c.check(rc == 0, "%s %s: exit %d, stderr %r" % (name, " ".join(map(str, args)), rc, err)):
        return None, err
    with open(os.path.join(od, name, "report.json")) as f:
        return json.load(f), err


def shapes(c, binary, tmp):
    x, y = grid(160, 128, 2e-6, 2e-6)
    R, cx, cy = 3e-3, 0.13e-3, 0.11e-3
    cap = -R + 2e-6 + np.sqrt(R * R - (x - cx) ** 2 - (y - cy) ** 2)
    rep, _ = run_form(c, binary, tmp, "cap", cap, "2", "--form", "sphere")
    if rep:
        f = rep["form"]
        c.check(f["model"] == "sphere" and abs(f["radius_um"] / 3000 - 1) < 1e-9 and f["convex"],
                "sphere: %r" % f)
        c.check(abs(f["centre_um"][0] - 130) < 1e-6 and abs(f["centre_um"][1] - 110) < 1e-6, "sphere centre %r"
                % f["centre_um"])
        c.check(f["rms_residual_um"] < 1e-7 and rep["parameters"]["input"]["Sq"] < 1e-7,
                "sphere: rms %g um, input Sq %g um" % (f["rms_residual_um"], rep["parameters"]["input"]["Sq"]))
        c.check(rep["plane_removed"] is False and rep["plane"] is None, "sphere: plane keys %r %r"
                % (rep["plane_removed"], rep["plane"]))
    Rc = 1.5e-3
    cyl = 5e-6 + Rc - np.sqrt(Rc * Rc - (x - 0.2e-3) ** 2)  # a groove: axis along y, concave
    rep, _ = run_form(c, binary, tmp, "cyl", cyl, "2", "--form", "cylinder-y")
    if rep:
        f = rep["form"]
        c.check(f["model"] == "cylinder-y" and abs(f["radius_um"] / 1500 - 1) < 1e-9 and not f["convex"] and
                f["centre_um"][1] is None and f["rms_residual_um"] < 1e-7, "cylinder-y: %r" % f)
    u, v = x / 1e-3, y / 1e-3
    cubic = 1e-6 * (3 + u - 2 * v + 4 * u * u * v - 7 * v ** 3 + u * v)
    rep, _ = run_form(c, binary, tmp, "cubic", cubic, "2", "--form", "poly:3")
    if rep:
        f = rep["form"]
        c.check(f["model"] == "poly" and f["degree"] == 3 and len(f["coefficients_um"]) == 10 and
                f["rms_residual_um"] < 1e-9 and rep["parameters"]["input"]["Sq"] < 1e-9, "poly:3: %r" % f)


def legendre_basis(x, y, xc, yc, hx, hy, degree):
    """columns P_p(u) P_q(v) in the report's order: total degree rising, then p falling"""
    u, v = (x - xc) / hx, (y - yc) / hy
    cols = []
    for t in range(degree + 1):
        for q in range(t + 1):
            p = t - q
            cols.append(L.legval(u, [0] * p + [1]) * L.legval(v, [0] * q + [1]))
    return np.stack(cols, axis=-1)


def poly_vs_numpy(c, binary, tmp):
    rng = np.random.default_rng(harness.seed())
    nx, ny, dx, dy = 150, 130, 3e-6, 4e-6
    x, y = grid(nx, ny, dx, dy)
    z = 1e-3 + 2e-6 * np.sin(x / 1e-4) * np.cos(y / 7e-5) + 0.3e-6 * rng.standard_normal(x.shape) + 0.01 * x
    z[rng.random(z.shape) < 0.05] = np.nan
    rep, _ = run_form(c, binary, tmp, "rough", z, "3,4", "--form", "poly:4")
    if not rep:
        return
    f = rep["form"]
    xc, yc, hx, hy = (nx - 1) * dx / 2, (ny - 1) * dy / 2, (nx - 1) * dx / 2, (ny - 1) * dy / 2
    ok = np.isfinite(z)
    A = legendre_basis(x[ok], y[ok], xc, yc, hx, hy, 4)
    want = np.linalg.lstsq(A, z[ok] - 1e-3, rcond=None)[0]
    want[0] += 1e-3
    got = np.array(f["coefficients_um"]) * 1e-6
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    c.check(err < 1e-9, "poly:4 coefficients vs NumPy lstsq: relative error %g" % err)
    c.check(np.allclose(f["centre_um"], [xc * 1e6, yc * 1e6], rtol=1e-9) and f["valid_points"] == ok.sum(),
            "poly:4: centre %r, %d valid points (want %d)" % (f["centre_um"], f["valid_points"], ok.sum()))
    resid = z[ok] - A @ want
    c.check(abs(f["rms_residual_um"] * 1e-6 / np.sqrt(np.mean(resid ** 2)) - 1) < 1e-8, "poly:4 rms %g vs %g"
            % (f["rms_residual_um"] * 1e-6, np.sqrt(np.mean(resid ** 2))))


def plane_alias(c, binary, tmp):
    x, y = grid(128, 128, 1e-6, 1e-6)
    z = 2e-3 * x - 1e-3 * y + 1e-7 * np.sin(x / 3e-6)
    planes = []
    for args in (["--plane"], ["--form", "plane"], ["--form", "poly:1"], ["--plane", "--form", "poly:1"]):
        rep, _ = run_form(c, binary, tmp, "tilt", z, "1", *args)
        if rep:
            c.check(rep["plane_removed"] and rep["form"]["degree"] == 1, "%r: %r" % (args, rep["form"]))
            planes.append(rep["plane"])
    c.check(len(planes) == 4 and all(p == planes[0] for p in planes), "plane aliases differ: %r" % planes)
    if planes:
        A = np.stack([np.ones(x.size), x.ravel(), y.ravel()], axis=1)
        want = np.linalg.lstsq(A, z.ravel(), rcond=None)[0]
        c.check(abs(planes[0]["slope_x"] / want[1] - 1) < 1e-9 and abs(planes[0]["slope_y"] / want[2] - 1) < 1e-9,
                "plane slopes %r, NumPy %r" % (planes[0], want))


def cutoff_notes(c, binary, tmp):
    x, y = grid(128, 128, 1e-6, 2e-6)
    z = 1e-7 * np.sin(x / 5e-6) + 1e-7 * np.cos(y / 9e-6)
    rep, err = run_form(c, binary, tmp, "aniso", z, "1,2", "--lambda-s", "1.5", "--lambda-c", "100",
                        levels=6)
    if rep:
        notes = rep["notes"]
        # levels per axis: each cutoff on the octaves of its own axis's spacing, one note each
        want = {"raised x": "lambda-s along x 1.5 um is below twice the spacing (1 um): raised to 2 um",
                "moved x": "lambda-c along x 100 um moved to 128 um",
                "raised y": "lambda-s along y 1.5 um is below twice the spacing (2 um): raised to 4 um",
                "moved y": "lambda-c along y 100 um moved to 128 um"}
        for k, w in want.items():
            hit = [n for n in notes if w in n]
            c.check(len(hit) == 1, "cutoff note %s: %r not in %r" % (k, w, notes))
            c.check(hit and ("warning: " + os.path.join(tmp, "aniso.npy") + ": " + hit[0]) in err,
                    "cutoff note %s is not a warning on stderr: %r" % (k, err))
        c.check(err.count("warning:") == 4, "anisotropic: %d warnings, want 4: %r" % (err.count("warning:"), err))
        c.check(rep["cutoffs_um"]["lambda_c"]["effective"] == [128, 128], "effective %r"
                % rep["cutoffs_um"]["lambda_c"])
    rep, err = run_form(c, binary, tmp, "octave", z, "1", "--lambda-c", "64", "--lambda-s", "4", levels=6)
    if rep:
        c.check(err == "" and not [n for n in rep["notes"] if "moved" in n or "raised" in n],
                "cutoffs on octaves: stderr %r, notes %r" % (err, rep["notes"]))
    # the Gaussian uses the cutoffs as given: no adjustment, no warning; it removes a form too
    rep, err = run_form(c, binary, tmp, "gauss", z, "1", "--filter", "gaussian", "--lambda-c", "100",
                        "--form", "poly:2", levels=6)
    if rep:
        c.check("warning" not in err and rep["cutoffs_um"]["lambda_c"]["effective"] == [100, 100],
                "gaussian: stderr %r, %r" % (err, rep["cutoffs_um"]["lambda_c"]))
        c.check(rep["filter"] == "gaussian" and rep["form"]["degree"] == 2, "gaussian form %r" % rep["form"])


def errors(c, binary, tmp):
    src = os.path.join(tmp, "flat.npy")
    np.save(src, np.full((64, 64), 1e-6))
    od = os.path.join(tmp, "bad")
    for args, words in ((["--form", "poly:7"], "--form needs"), (["--form", "poly:0"], "--form needs"),
                        (["--form", "cone"], "--form needs"), (["--form", "poly:"], "--form needs"),
                        (["--plane", "--form", "sphere"], "--plane is --form poly:1"), (["--form"], "needs a value")):
        rc, out, err = lwt(binary, "filter", src, "-o", od, "--spacing", "1", *args)
        c.check(rc == 2 and words in err and err.count("\n") == 1 and not os.path.exists(od),
                "%s: exit %d, stderr %r" % (" ".join(args), rc, err))
    rc, out, err = lwt(binary, "filter", src, "-o", od, "--spacing", "1", "--levels", "3", "--form", "sphere")
    lines = err.strip().splitlines()
    c.check(rc == 1 and len(lines) == 2 and "do not determine" in lines[0] and not os.path.exists(os.path.join(
        od, "flat")), "sphere on a flat surface: exit %d, stderr %r" % (rc, err))


def main():
    binary = harness.need_bin()
    c = harness.Checker("test_surface_form")
    tmp = tempfile.mkdtemp(prefix="lwt_form_")
    for title, part in (("shapes", shapes), ("polynomial against NumPy", poly_vs_numpy),
                        ("plane aliases", plane_alias), ("cutoff notes", cutoff_notes), ("errors", errors)):
        c.run(title, part, c, binary, tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
