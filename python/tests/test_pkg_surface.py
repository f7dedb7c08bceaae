"""lwt.surface: files, filter and parameters against closed forms, against themselves (round
trips, bands that add up) and against the CLI (`lwt filter`, LWT_BIN) on the same files;
the shared real files (LWT_SHARED or ../shared beside the checkout) when present; bad input.
Seed: printed; LWT_SEED reuses one."""
import json
import math
import os
import shutil
import tempfile
import threading

import numpy as np

import harness

try:
    import lwt
    import lwt.surface as ls
except ImportError as e:
    harness.skip("the lwt package is not importable (%s)" % e)

if ls._surface_io is None:
    harness.skip("this build has no lwt._surface_io (%s)" % ls._IO_MISSING)

lwt.set_threads(1)  # tiny surfaces on a shared 2-core machine: spinning threads cost more than they give
chk = harness.Checker("test_pkg_surface")
rng = np.random.default_rng(harness.seed())
tmp = tempfile.mkdtemp(prefix="lwt_pkg_surface_")
CLI = os.environ.get("LWT_BIN")
SHARED = os.environ.get("LWT_SHARED") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
SURFACES = os.path.join(SHARED, "data", "surfaces")
UM = 1e-6
# report.json writes numbers with 10 significant digits (docs/SURFACE.md): half a unit of the
# 10th digit, relative.
REPORT_DIGITS = 5e-10


def raises(call, types, words, case):
    """call() must raise one of types with every word of words in its message."""
    try:
        call()
    except types as e:
        return chk.check(all(w in str(e) for w in words), "%s: message %r lacks %s" % (case, str(e), words))
    except Exception as e:  # noqa: BLE001 - the wrong type is the failure reported
        return chk.fail("%s: %s(%s), expected %s" % (case, type(e).__name__, e, types))
    chk.fail("%s: no exception" % case)


def same_bits(a, b):
    """Equal shapes and identical float64 bits (NaN where the other has NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def synthetic(nx, ny, dx, dy, holes=True):
    """Tilt + waviness (cosines of 40-60 spacings) + random roughness, NaN in a disc."""
    x, y = np.arange(nx) * dx, np.arange(ny)[:, None] * dy
    z = (2e-3 * x + 1e-3 * y + 1.5e-6 * np.cos(2 * np.pi * x / (48 * dx)) * np.cos(2 * np.pi * y / (60 * dy))
         + 0.3e-6 * rng.standard_normal((ny, nx)))
    if holes:
        z[(x - 0.3 * nx * dx) ** 2 + (y - 0.6 * ny * dy) ** 2 < (5 * dx) ** 2] = np.nan
    return z


def round_trips():
    z = synthetic(97, 61, 1.25 * UM, 2.5 * UM)
    for name in ("a.x3p", "a.sdf"):
        path = os.path.join(tmp, name)
        ls.write(path, z, 1.25 * UM, 2.5 * UM)
        s = ls.read(path)
        # X3P holds float64 heights (data.bin, D) and SDF DataType 7 (double), Zscale 1; the
        # spacing is written with %.17g: all of it comes back to the bit.
        chk.check(same_bits(s.z, z), "%s: heights differ after the round trip" % name)
        chk.check((s.dx, s.dy) == (1.25 * UM, 2.5 * UM), "%s: spacing %r, %r" % (name, s.dx, s.dy))
        chk.check(s.source_format == name[2:], "%s: source_format %r" % (name, s.source_format))
    path = os.path.join(tmp, "ascii.sdf")
    ls.write(path, z, 1.25 * UM, 2.5 * UM, format="sdf-ascii")
    s = ls.read(path)
    chk.check(same_bits(s.z, z), "ASCII SDF: %.17g round trip is not exact")
    # A Surface keeps its metadata through X3P; a Surface's own spacing goes with it.
    src = ls.Surface(z, 1 * UM, 3 * UM, instrument="Test rig 1", creator="lwt tests", comment="round trip",
                     date="2026-01-02T03:04:05+00:00")
    path = os.path.join(tmp, "meta.x3p")
    ls.write(path, src)
    s = ls.read(path)
    for k in ("instrument", "comment", "date"):  # the X3P writer names lwt as the creator
        chk.check(getattr(s, k) == getattr(src, k), "X3P %s: wrote %r, read %r" % (k, getattr(src, k), getattr(s, k)))
    chk.check((s.dx, s.dy, s.nx, s.ny, s.n_valid) == (1 * UM, 3 * UM, 97, 61, np.isfinite(z).sum()),
              "X3P grid of a Surface: %r" % s)
    chk.check("97 x 61 points" in repr(s) and "invalid" in repr(s), "repr %r" % repr(s))
    chk.check(s.z.dtype == np.float64 and s.z.flags.c_contiguous and s.z.shape == (61, 97),
              "read gives (ny, nx) C-order float64, got %s %s" % (s.z.dtype, s.z.shape))


def sinusoid_parameters():
    """z = A sin(2 pi x / L), L = N spacings, 8 whole periods along x, the same on every row."""
    A, N, dx, dy = 2e-6, 32, 0.5 * UM, 0.7 * UM
    k = np.arange(8 * N)
    z = np.tile(A * np.sin(2 * np.pi * k / N), (12, 1))
    p = ls.parameters(z, dx, dy)
    # Sampled at N points a period: mean sin^2 = 1/2, mean sin^4 = 3/8 and the extremes +-1
    # (k = N/4, 3N/4) are exact, so these hold to rounding (1e-12 relative, generous for sums
    # of 3072 terms). Sa samples |sin|: its mean is (2/N) cot(pi/N), below 2/pi by the factor
    # 1 - x cot x = x^2/3 + x^4/45 + ... with x = pi/N; bound that by x^2/3 + x^4/30.
    exact = {"Sq": A / math.sqrt(2), "Sp": A, "Sv": A, "Sz": 2 * A, "Sku": 1.5,
             "Sa": A * 2 / N / math.tan(math.pi / N)}
    for name, want in exact.items():
        chk.error_within(abs(p[name] - want) / want, 1e-12, "sinusoid %s %.6g vs %.6g" % (name, p[name], want),
                         "sinusoid")
    chk.check(abs(p["Ssk"]) < 1e-10, "sinusoid Ssk %.3g, expected 0" % p["Ssk"])
    x = math.pi / N
    chk.error_within(abs(p["Sa"] - 2 * A / math.pi) / (2 * A / math.pi), x * x / 3 + x ** 4 / 30,
                     "sinusoid Sa against the continuum 2A/pi", "sinusoid Sa sampling")
    # Sdq: cells have gx = (z[k+1] - z[k]) / dx and gy = 0 (rows equal): an independent NumPy sum.
    g = np.diff(z[0]) / dx
    want = math.sqrt(np.mean(g * g))
    chk.error_within(abs(p["Sdq"] - want) / want, 1e-12, "sinusoid Sdq", "sinusoid")
    chk.check(set(p) == set(ls.PARAMETER_NAMES) and list(p) == list(ls.PARAMETER_NAMES), "parameter names %s" % list(p))
    # the material ratio curve of the sampled sinusoid is NumPy's linear quantile of its heights
    mr, h = ls.material_ratio_curve(z, 41)
    want = np.quantile(z - z.mean(), 1 - mr / 100)
    chk.error_within(np.max(np.abs(h - want)) / A, 1e-12, "sinusoid material ratio curve", "sinusoid")


def plane_parameters():
    """A tilted plane: Sdq and Sdr exact for any plane; after plane removal nothing is left."""
    nx, ny, dx, dy = 50, 40, 2 * UM, 3 * UM
    sx, sy, z0 = 0.6, -0.8, 5 * UM
    z = z0 + sx * np.arange(nx) * dx + sy * np.arange(ny)[:, None] * dy
    p = ls.parameters(z, dx, dy)
    chk.error_within(abs(p["Sdq"] - 1.0), 1e-12, "plane Sdq (slopes 0.6, -0.8: 1)", "plane")
    chk.error_within(abs(p["Sdr"] - 100 * (math.sqrt(2) - 1)) / 41.42, 1e-12, "plane Sdr 41.42 %", "plane")
    fit = ls.plane_fit(z, dx, dy)
    chk.error_within(max(abs(fit.sx - sx), abs(fit.sy - sy), abs(fit.z0 - z0) / z0), 1e-9, "plane_fit", "plane")
    # Levelled: what is left is the rounding of heights up to ~1e-4 m (1e-16 of them), far
    # below 1e-12 of the range.
    scale = np.ptp(z)
    q = ls.parameters(ls.remove_plane(z, dx, dy), dx, dy)
    for name in ("Sa", "Sq", "Sp", "Sv", "Sz"):
        chk.error_within(abs(q[name]) / scale, 1e-12, "levelled plane %s" % name, "levelled plane")
    chk.error_within(q["Sdq"], 1e-9, "levelled plane Sdq", "levelled plane")
    # An undefined value is NaN (constant surface: Ssk, Sku) and a Surface carries its spacing.
    c = ls.parameters(ls.Surface(np.full((4, 5), 1e-6), dx, dy))
    chk.check(math.isnan(c["Ssk"]) and math.isnan(c["Sku"]) and c["Sq"] == 0, "constant surface %r" % c)


def filter_bands():
    nx, ny, dx, dy = 256, 160, 1 * UM, 1.5 * UM
    z = synthetic(nx, ny, dx, dy)
    valid = np.isfinite(z)
    r = ls.filter(z, dx, dy, levels=5, lambda_s=4 * UM)
    chk.check(list(r.bands) == ["form", "waviness", "roughness", "noise"], "bands %s" % list(r.bands))
    chk.check(r.split["levels"] == 5 and r.split["noise_hi"] == 1 and r.split["rough_lo"] == 2,
              "split %r (lambda_s 4 um at 1 um: A = 2)" % r.split)
    total = sum(r.bands.values())
    # docs/SURFACE.md: the bands rebuild the (filled) input to ~1e-13 of its height range in
    # float64; the C tests allow 1e-12, so do we.
    rng_z = np.nanmax(z) - np.nanmin(z)
    chk.error_within(np.max(np.abs(total[valid] - z[valid])) / rng_z, 1e-12, "bands sum to the input", "bands")
    for name, band in r.bands.items():
        chk.check(np.array_equal(np.isfinite(band), valid), "%s: NaN where the input is not valid" % name)
    chk.check(r.n_filled == (~valid).sum() and r.wavelet == "bior4.4", "n_filled %d, wavelet %s"
              % (r.n_filled, r.wavelet))
    chk.check(r["roughness"] is r.bands["roughness"] and "noise" in repr(r), "result[name], repr %r" % r)
    # With the plane removed the bands add up to the levelled input, whose parameters are "input".
    r = ls.filter(z, dx, dy, plane=True, levels=4)
    levelled = ls.remove_plane(z, dx, dy, r.plane)
    fit = ls.plane_fit(z, dx, dy)
    chk.check(r.plane == fit, "filter's plane %r, plane_fit's %r" % (r.plane, fit))
    chk.error_within(np.max(np.abs(sum(r.bands.values())[valid] - levelled[valid])) / rng_z, 1e-12,
                     "bands sum to the levelled input", "bands")
    chk.check(r.parameters["input"] == ls.parameters(levelled, dx, dy), "input parameters are the levelled input's")
    chk.check(r.parameters["roughness"] == ls.parameters(r["roughness"], dx, dy), "band parameters")
    # float32 transforms rebuild to float32 rounding (docs/SURFACE.md: ~1e-7 of the range).
    r32 = ls.filter(z, dx, dy, levels=4, dtype="float32")
    chk.error_within(np.max(np.abs(sum(r32.bands.values())[valid] - z[valid])) / rng_z, 1e-6,
                     "float32 bands sum to the input", "bands f32")
    # The defaults are lwt_filter_spec_default()'s and lwt_bands_resolve's: 6 levels, roughness
    # 1-3, no noise; and a Surface gives its own spacing.
    r = ls.filter(ls.Surface(z, dx, dy))
    sp = r.split
    chk.check((sp["levels"], sp["rough_lo"], sp["rough_hi"], sp["wavy_lo"], sp["wavy_hi"], sp["noise_hi"])
              == (6, 1, 3, 4, 6, 0) and list(r.bands) == ["form", "waviness", "roughness"], "default split %r" % sp)
    # lambda_c = 2^(B+1) d from the smaller spacing d = dx = 1 um: 16 um; along y (1.5 um) the nearest
    # octave of dy to 16 um is 2^3 dy = 12 um (log2(16 / 1.5) = 3.4) and to lambda_f = 128 um 2^6 dy
    # = 96 um: 5 levels, roughness 1-2 (levels per axis, as `lwt filter`).
    chk.check(sp["spacing"] == dx and sp["lambda_c"] == (16 * dx, 8 * dy), "lambda_c %r" % (sp["lambda_c"],))
    chk.check(sp["levels_xy"] == (6, 5) and sp["rough_lo_xy"] == (1, 1) and sp["rough_hi_xy"] == (3, 2),
              "levels per axis %r %r %r" % (sp["levels_xy"], sp["rough_lo_xy"], sp["rough_hi_xy"]))


def against_cli():
    """The same file through `lwt filter` and lwt.surface: bands to the bit, parameters to the
    report's 10 digits."""
    if not CLI or not os.path.exists(CLI):
        print("  (LWT_BIN not set or missing: no CLI comparison)")
        return
    nx, ny, dx, dy = 200, 144, 0.8 * UM, 1.1 * UM  # anisotropic: a dx/dy mix-up shows
    path = os.path.join(tmp, "cli_case.x3p")
    ls.write(path, synthetic(nx, ny, dx, dy), dx, dy)
    out = os.path.join(tmp, "cli_out")
    args = ["--levels", "5", "--lambda-s", "2", "--lambda-c", "20", "--plane", "--wavelet", "db4", "--mode", "reflect",
            "--spatial", "--features"]
    rc, _, err = harness.run_cli(CLI, ["filter", path, "-o", out, "--no-png"] + args)
    if not chk.check(rc == 0, "lwt filter failed (%d): %s" % (rc, err)):
        return
    s = ls.read(path)
    r = ls.filter(s, levels=5, lambda_s=2 * UM, lambda_c=20 * UM, plane=True, wavelet="db4", mode="reflect")
    with open(os.path.join(out, "cli_case", "report.json")) as f:
        report = json.load(f)
    chk.check(set(report["parameters"]) == set(r.parameters), "CLI reports %s, Python %s"
              % (sorted(report["parameters"]), sorted(r.parameters)))
    for who, params in r.parameters.items():
        for name, value in params.items():
            want = report["parameters"].get(who, {}).get(name)
            value = value / UM if ls._IS_HEIGHT[name] else value
            if want is None:
                chk.check(math.isnan(value), "%s %s: CLI null, Python %r" % (who, name, value))
            else:
                chk.error_within(abs(value - want) / max(abs(want), 1e-300), REPORT_DIGITS,
                                 "%s %s: Python %.10g, CLI %.10g" % (who, name, value, want), "CLI parameters")
    # the material ratio family: material_parameters() of the same surfaces (the input levelled by
    # the filter's plane, as the CLI levels it) against the report's (um, %, ml/m2 = um)
    surfaces = dict(r.bands)
    surfaces["input"] = ls.remove_plane(s.z, s.dx, s.dy, plane=r.plane)
    units = dict(zip(ls.MATERIAL_PARAMETER_NAMES, ls._core.MR_PARAM_UNITS))
    for who, z in surfaces.items():
        try:
            spatial = ls.spatial_parameters(z, s.dx, s.dy)
        except RuntimeError:  # a liblwt without FFTW: the CLI's report has no Sal either
            spatial = {}
        for name, value in spatial.items():
            want = report["parameters"].get(who, {}).get(name, "absent")
            value = value / UM if name == "Sal" else value
            if want is None or want == "absent":
                chk.check(want is None and math.isnan(value), "%s %s: CLI %r, Python %r" % (who, name, want, value))
            else:
                chk.error_within(abs(value - want) / max(abs(want), 1e-300), REPORT_DIGITS,
                                 "%s %s: Python %.10g, CLI %.10g" % (who, name, value, want), "CLI spatial")
        # the feature family: report units 1/mm^2, 1/mm, um, mm^2, mm^3
        scale = {"Spd": 1e-6, "Spc": 1e-3, "S10z": 1e6, "S5p": 1e6, "S5v": 1e6, "Sda": 1e6, "Sha": 1e6,
                 "Sdv": 1e9, "Shv": 1e9}
        for name, value in ls.feature_parameters(z, s.dx, s.dy).items():
            want = report["parameters"].get(who, {}).get(name, "absent")
            value = value * scale[name]
            if want is None or want == "absent":
                chk.check(want is None and math.isnan(value), "%s %s: CLI %r, Python %r" % (who, name, want, value))
            else:
                chk.error_within(abs(value - want) / max(abs(want), 1e-300), REPORT_DIGITS,
                                 "%s %s: Python %.10g, CLI %.10g" % (who, name, value, want), "CLI features")
        for name, value in ls.material_parameters(z).items():
            want = report["parameters"].get(who, {}).get(name)
            value = value if units[name] == "%" else value / UM
            chk.check(want is not None, "%s %s: not in the CLI's report" % (who, name))
            if want is not None:
                chk.error_within(abs(value - want) / max(abs(want), 1e-300), REPORT_DIGITS,
                                 "%s %s: Python %.10g, CLI %.10g" % (who, name, value, want), "CLI material ratio")
    for name, band in r.bands.items():
        cli_band = ls.read(os.path.join(out, "cli_case", name + ".x3p"))
        chk.check(same_bits(cli_band.z, band), "%s: the CLI's band differs from Python's" % name)
    chk.check(report["levels"] == r.split["levels"] and report["wavelet_pywt"] == r.wavelet, "CLI split/wavelet")


def shared_files():
    if not os.path.isdir(SURFACES):
        print("  (%s absent: no real files checked; see SOURCES.md of the shared data)" % SURFACES)
        return
    files = sorted(f for f in os.listdir(SURFACES) if not f.endswith(".md"))
    out = os.path.join(tmp, "shared_out")
    cli = {}
    if CLI and os.path.exists(CLI):
        # One batch at 1 level (the 4 x 4 samples allow no more): the report holds what the
        # CLI read (points, spacing, valid points) and the input's parameters.
        harness.run_cli(CLI, ["filter"] + [os.path.join(SURFACES, f) for f in files]
                        + ["-o", out, "--no-png", "--levels", "1", "--threads", "1"])
        for f in files:
            rep = os.path.join(out, os.path.splitext(f)[0], "report.json")
            if os.path.exists(rep):
                with open(rep) as fh:
                    cli[f] = json.load(fh)
    else:
        print("  (LWT_BIN not set or missing: real files read without the CLI comparison)")
    for f in files:
        try:
            s = ls.read(os.path.join(SURFACES, f))
        except ValueError as e:
            # the openGPS point cloud: not an areal surface, for the CLI as for Python
            chk.check("not an areal surface" in str(e) and f in str(e) and (not CLI or f not in cli),
                      "%s: Python refuses it (%s), the CLI %s" % (f, e, "reads it" if f in cli else "too"))
            continue
        chk.check(s.n_valid > 0 and s.dx > 0 and s.dy > 0 and s.z.shape == (s.ny, s.nx), "%s: %r" % (f, s))
        if f not in cli:
            chk.check(not CLI, "%s: Python reads it, the CLI does not" % f)
            continue
        rep = cli[f]
        chk.check(rep["points"] == [s.nx, s.ny] and rep["valid_points"] == s.n_valid,
                  "%s: CLI %s points, %d valid; Python %d x %d, %d" % (f, rep["points"], rep["valid_points"],
                                                                       s.nx, s.ny, s.n_valid))
        for got, want in zip((s.dx / UM, s.dy / UM), rep["spacing_um"]):
            chk.error_within(abs(got - want) / want, REPORT_DIGITS, "%s spacing" % f, "shared spacing")
        p = ls.parameters(s)
        for name in ("Sa", "Sq", "Sdq"):
            want = rep["parameters"]["input"][name]
            got = p[name] / UM if ls._IS_HEIGHT[name] else p[name]
            chk.error_within(abs(got - want) / abs(want), REPORT_DIGITS, "%s %s" % (f, name), "shared parameters")
    print("  %d real files, %d compared with the CLI" % (len(files), len(cli)))


def bad_input():
    missing = os.path.join(tmp, "no_such_file.x3p")
    raises(lambda: ls.read(missing), FileNotFoundError, [missing, "No such file"], "missing file")
    raises(lambda: ls.read(tmp), IsADirectoryError, [tmp], "a directory")
    good = os.path.join(tmp, "good.x3p")
    ls.write(good, synthetic(40, 30, UM, UM), UM, UM)
    with open(good, "rb") as f:
        data = f.read()
    trunc = os.path.join(tmp, "truncated.x3p")
    with open(trunc, "wb") as f:
        f.write(data[: len(data) // 2])
    raises(lambda: ls.read(trunc), ValueError, [trunc], "truncated X3P")
    garbage = os.path.join(tmp, "garbage.x3p")
    with open(garbage, "wb") as f:
        f.write(rng.integers(0, 256, 3000, dtype=np.uint8).tobytes())
    raises(lambda: ls.read(garbage), ValueError, [garbage], "garbage named .x3p")
    unknown = os.path.join(tmp, "notes.txt")
    with open(unknown, "w") as f:
        f.write("not a surface\n")
    raises(lambda: ls.read(unknown), ValueError, ["unrecognised surface format"], "unknown format")
    # Failed writes leave nothing: not the target, not a temporary file, and an existing target
    # keeps its bytes.
    before = sorted(os.listdir(tmp))
    z = synthetic(20, 10, UM, UM)
    raises(lambda: ls.write(os.path.join(tmp, "nodir", "a.x3p"), z, UM), OSError, ["nodir"], "write into no folder")
    raises(lambda: ls.write(os.path.join(tmp, "a.png"), z, UM), ValueError, ["cannot write this format"],
           "write an unknown extension")
    raises(lambda: ls.write(good, z, 0.0), ValueError, ["spacing"], "write without spacing")
    raises(lambda: ls.write(good, z, UM, format="tiff"), ValueError, ["format"], "write format")
    raises(lambda: ls.write(good, ls.Surface(z, UM, comment="x" * 300)), ValueError, ["comment"], "long comment")
    chk.check(sorted(os.listdir(tmp)) == before, "failed writes left %s" % (set(os.listdir(tmp)) ^ set(before)))
    with open(good, "rb") as f:
        chk.check(f.read() == data, "a failed write changed the existing file")
    # Arguments
    raises(lambda: ls.filter(z, UM, bogus=1), TypeError, ["bogus"], "unknown keyword")
    raises(lambda: ls.filter(synthetic(300, 300, UM, UM), UM, wavelet="nope"), ValueError, ["nope"], "unknown wavelet")
    raises(lambda: ls.filter(synthetic(300, 300, UM, UM), UM, mode="nope"), ValueError, ["nope"], "unknown mode")
    raises(lambda: ls.filter(z, UM), ValueError, ["too small"], "too small for 6 levels")
    raises(lambda: ls.filter(synthetic(300, 300, UM, UM), UM, roughness_levels=(1, 2), waviness_levels=(4, 6)),
           ValueError, ["waviness"], "waviness not after roughness")
    raises(lambda: ls.filter(z, UM, roughness_levels=(3, 2)), ValueError, ["roughness_levels"], "levels reversed")
    raises(lambda: ls.filter(synthetic(300, 300, UM, UM), UM, roughness_levels=(1, 2), lambda_c=20 * UM), ValueError,
           ["not both"], "roughness levels and a cutoff")
    raises(lambda: ls.filter(z, UM, dtype="int8"), ValueError, ["dtype"], "dtype")
    raises(lambda: ls.filter(z, UM, backend="tpu"), ValueError, ["backend"], "backend")
    raises(lambda: ls.filter(z, UM, lambda_c=-1), ValueError, ["lambda_c"], "negative cutoff")
    raises(lambda: ls.filter(z), TypeError, ["dx"], "array without spacing")
    raises(lambda: ls.filter(np.full((256, 256), np.nan), UM), ValueError, ["valid"], "no valid point")
    raises(lambda: ls.parameters(z, 0.0), ValueError, ["spacing"], "zero spacing")
    raises(lambda: ls.parameters(np.ones(5), UM), ValueError, ["2-D"], "1-D heights")
    raises(lambda: ls.parameters(np.ones((3, 3), complex), UM), TypeError, ["complex"], "complex heights")
    raises(lambda: ls.parameters(np.array([["a"]]), UM), TypeError, ["real"], "string heights")


def npy_files():
    """A .npy holds heights and no spacing: read as stored (float32 widened), dx = dy = 0, and
    the calls that need a spacing say so."""
    z = synthetic(30, 20, UM, UM).astype(np.float32)
    path = os.path.join(tmp, "heights.npy")
    np.save(path, z)
    s = ls.read(path)
    chk.check(same_bits(s.z, z.astype(np.float64)) and (s.dx, s.dy, s.source_format) == (0, 0, "npy"),
              ".npy: %r" % s)
    raises(lambda: ls.filter(s), ValueError, ["spacing", "dx="], "filter of a .npy surface")
    raises(lambda: ls.parameters(s), ValueError, ["spacing"], "parameters of a .npy surface")
    chk.check(ls.parameters(s, UM)["Sq"] == ls.parameters(s.z, UM, UM)["Sq"], "dx given for a .npy surface")


def threads():
    """Reading and filtering release the GIL; four threads at once get the bits of one."""
    path = os.path.join(tmp, "threads.x3p")
    ls.write(path, synthetic(256, 192, UM, UM), UM, UM)

    def job():
        s = ls.read(path)
        r = ls.filter(s, levels=4, wavelet="db2")
        return [s.z] + list(r.bands.values()), r.parameters

    ref = job()
    got = [None] * 4

    def run(i):
        got[i] = job()

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i, g in enumerate(got):
        chk.check(g is not None and all(same_bits(a, b) for a, b in zip(g[0], ref[0])) and g[1] == ref[1],
                  "thread %d: other bits than one thread alone" % i)


def without_io_module():
    """Where lwt._surface_io is missing, read and write say why; the rest still works."""
    saved = ls._surface_io, ls._IO_MISSING
    ls._surface_io, ls._IO_MISSING = None, "lwt._surface_io cannot be loaded: libzip.so.4: cannot open"
    try:
        raises(lambda: ls.read("x.x3p"), ImportError, ["libzip", "liblwt_surface"], "read without _surface_io")
        raises(lambda: ls.write("x.x3p", np.ones((2, 2)), UM), ImportError, ["libzip"], "write without _surface_io")
        chk.check(ls.parameters(np.ones((2, 2)), UM)["Sq"] == 0, "parameters without _surface_io")
    finally:
        ls._surface_io, ls._IO_MISSING = saved


chk.run("round trips (X3P, SDF binary and ASCII, metadata)", round_trips)
chk.run("parameters of a sinusoid", sinusoid_parameters)
chk.run("parameters of a plane", plane_parameters)
chk.run("filter: bands add up, NaN kept, defaults", filter_bands)
chk.run("filter against lwt filter", against_cli)
chk.run("shared real files against the CLI", shared_files)
chk.run(".npy files (no spacing)", npy_files)
chk.run("four threads", threads)
chk.run("bad input", bad_input)
chk.run("without lwt._surface_io", without_io_module)
shutil.rmtree(tmp, ignore_errors=True)
chk.finish()
