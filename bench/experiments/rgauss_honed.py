#!/usr/bin/env python3
"""The plateau-honed case of docs/SURFACE.md, "Robust Gaussian regression filter": a synthetic
plateau-honed surface (a fine plateau texture, 0.08 um rms, cut by 24 cross-hatch valleys at
+-25 degrees, 2-5 um deep, 4-12 um wide, 17 % of the area, on a 0.5 um waviness), filtered by
`lwt filter --filter gaussian` and `--filter robust-gaussian` (lambda-c 80 um); prints how far
each mean surface (form + waviness) lies from the true waviness on the plateau, and the
roughness' Sq and ISO 13565-type material ratio parameters.

    python3 bench/experiments/rgauss_honed.py build/lwt [WORKDIR]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import ndimage


def surface(n=512, seed=7):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n].astype(float)
    plateau = ndimage.gaussian_filter(rng.standard_normal((n, n)), 1.5)
    plateau *= 0.08e-6 / plateau.std()
    wav = 0.5e-6 * np.sin(2 * np.pi * x / 400 + 0.3) * np.cos(2 * np.pi * y / 500)
    grooves = np.zeros((n, n))
    for k in range(24):
        ang = np.deg2rad(25 if k % 2 else -25)
        t = np.cos(ang) * y - np.sin(ang) * x + rng.uniform(-n, 2 * n) - n / 2
        w, dep = rng.uniform(2, 6), rng.uniform(2e-6, 5e-6)
        grooves = np.minimum(grooves, np.where(np.abs(t) < w, -dep * np.cos(np.pi * t / (2 * w)), 0))
    return np.minimum(plateau, grooves + 0.3 * plateau) + wav, wav, grooves > -1e-9


def main():
    binary = sys.argv[1]
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="lwt_honed_")
    z, wav, plateau = surface()
    src = os.path.join(work, "honed.npy")
    np.save(src, z)
    print("valley fraction %.3f" % (1 - plateau.mean()))
    for f in ("gaussian", "robust-gaussian"):
        od = os.path.join(work, "out-" + f)
        t0 = time.time()
        subprocess.run([binary, "filter", src, "-o", od, "--spacing", "1", "--no-png", "--filter", f, "--lambda-c",
                        "80", "--levels", "8", "--bands-format", "npy"], check=True, capture_output=True)
        dt = time.time() - t0
        e = z - np.load(os.path.join(od, "honed", "roughness.npy")) - wav
        rep = json.load(open(os.path.join(od, "honed", "report.json")))
        p = rep["parameters"]["roughness"]
        print("%-16s %5.1f s  mean surface - truth on the plateau: mean %+.3f um, rms %.3f um, worst %.3f um | "
              "Sq %.3f Sk %.3f Spk %.3f Svk %.3f Smr1 %.1f %% Smr2 %.1f %% | notes %s"
              % (f, dt, e[plateau].mean() * 1e6, np.sqrt((e[plateau] ** 2).mean()) * 1e6,
                 np.abs(e[plateau]).max() * 1e6, p["Sq"], p["Sk"], p["Spk"], p["Svk"], p["Smr1"], p["Smr2"],
                 rep["notes"]))


if __name__ == "__main__":
    main()
