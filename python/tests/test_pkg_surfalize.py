"""lwt.surface's ISO 25178-2 parameters against surfalize (an independent implementation, PyPI;
scripts/install-deps.sh test installs it) on the same heights of every shared real file that
lwt reads (LWT_SHARED or ../shared beside the checkout): Sdq and Sdr (ISO 25178-2:2021's
discretization), Sal, Str (autocorrelation function) and Std (angular spectrum) on the file or, where it has invalid
points, on its largest all-valid rectangle (surfalize refuses invalid points); the material
ratio family on the valid heights.
Skipped when surfalize or the shared files are absent.

Bounds (docs/SURFACE.md, "Agreement with surfalize", says where each comes from):
  Sdq, Sdr         1e-9 relative (the same sums; measured <= 1e-13)
  Sal, Str         5e-3, 1e-2 relative: each ray's crossing is one of 1000 samples (measured
                   <= 2.4e-3) on fields of at least 32 x 32 points
  Std              the same 0.5-degree bin
  Sk, Smc, Sxp,    1e-4 relative: surfalize samples the material ratio curve at 10000 ratios
  Sdc, Smr         and interpolates between them (measured <= 6e-5)
  Vmp Vmc Vvv Vvc  3e-3 relative: surfalize cuts the curve at the sample nearest the level
                   (measured <= 2e-3)
  Smr1, Smr2       2 of surfalize's ratio steps (0.02 percentage points)
  Spk, Svk         3e-3 + 2 ratio steps over the zone's width (Smr1, 100 - Smr2): a narrow peak
                   zone holds few of surfalize's samples
  Spd Spc S5p S5v the feature family (surfalize.feature, Wolf pruning 5 %% of Sz) on the roughness
  S10z, counts     band of each file (levels 1-4), its largest all-valid rectangle cut to 160 x 160:
                   the same significant peaks and pits (counted exactly), S5p, S5v and Spc to 1e-12,
                   Spd to 1e-12 after the evaluation area (lwt: nx ny dx dy, surfalize: (nx - 1)
                   (ny - 1) dx dy); surfalize with exclude_edge=False, lwt's rule (every significant
                   peak counts; surfalize's default leaves out motifs touching the border)
On quantized heights (fewer distinct heights than 10 % of the points: integer instruments) the
curve is a staircase; there the zone parameters and Smr depend on where each tool cuts a step,
so only Sk, Sxp, Smc, Sdc, Vmc and Vvc are compared, with bounds of one height step.
"""
import os
import warnings

import numpy as np

import harness

try:
    import lwt.surface as ls
except ImportError as e:
    harness.skip("the lwt package is not importable (%s)" % e)
try:
    import surfalize
    from surfalize.abbottfirestone import AbbottFirestoneCurve
    from surfalize.feature import FeatureParameters
except ImportError as e:
    harness.skip("surfalize is not installed (scripts/install-deps.sh test installs it): %s" % e)
if ls._surface_io is None:
    harness.skip("this build has no lwt._surface_io (%s)" % ls._IO_MISSING)

SHARED = os.environ.get("LWT_SHARED") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
DATA = os.path.join(SHARED, "data", "surfaces")
if not os.path.isdir(DATA):
    harness.skip("no shared surfaces at %s" % DATA)

warnings.filterwarnings("ignore")
chk = harness.Checker("test_pkg_surfalize")
NBINS = 10000                  # surfalize's default sampling of the curve
STEP = 100.0 / (NBINS - 1)     # its material ratio step, %


class ValidHeights:
    """What surfalize's AbbottFirestoneCurve reads of a surface: its valid heights."""
    has_missing_points = False

    def __init__(self, v):
        self.v = v

    def _valid_values(self):
        return self.v


def largest_valid_rectangle(valid):
    """(row0, row1, col0, col1) of the largest all-valid rectangle (histogram method)."""
    ny, nx = valid.shape
    h = np.zeros(nx, dtype=int)
    best = (0, 0, 0, 0, 0)
    for j in range(ny):
        h = np.where(valid[j], h + 1, 0)
        stack = []
        for i in range(nx + 1):
            cur = h[i] if i < nx else 0
            start = i
            while stack and stack[-1][1] >= cur:
                s, hh = stack.pop()
                area = hh * (i - s)
                if area > best[0]:
                    best = (area, j - hh + 1, j + 1, s, i)
                start = s
            stack.append((start, cur))
    return best[1:]


def rel(a, b):
    return abs(a - b) / abs(b) if b != 0 else abs(a)


def hybrid(name, s):
    """Sdq and Sdr on the file, or on its largest all-valid rectangle."""
    z, dx, dy = s.z, s.dx, s.dy
    valid = np.isfinite(z)
    if not valid.all():
        r0, r1, c0, c1 = largest_valid_rectangle(valid)
        z = z[r0:r1, c0:c1]
    if min(z.shape) < 3:
        print("  %s: no all-valid rectangle of 3 x 3 points, hybrid parameters not compared" % name)
        return
    z = np.ascontiguousarray(z)
    ours = ls.parameters(z, dx, dy)
    theirs = surfalize.Surface(z * 1e6, dx * 1e6, dy * 1e6)
    for k, v in (("Sdq", theirs.Sdq()), ("Sdr", theirs.Sdr())):
        chk.error_within(rel(ours[k], v), 1e-9, "%s %s on %s points: lwt %.12g, surfalize %.12g"
                         % (name, k, z.shape, ours[k], v), k)
    line = "Sdq %.3g (rel %.1e)  Sdr %.4g %% (rel %.1e)" % (ours["Sdq"], rel(ours["Sdq"], theirs.Sdq()), ours["Sdr"],
                                                           rel(ours["Sdr"], theirs.Sdr()))
    try:
        if min(z.shape) < 32:  # a few points: the interpolations (cubic against bilinear) differ by 10 %
            raise RuntimeError("too small a field for the autocorrelation")
        sp = ls.spatial_parameters(z, dx, dy)
    except RuntimeError as e:  # a liblwt without FFTW, or a tiny field
        sp = None
        line += "  (Sal, Str not compared: %s)" % str(e).splitlines()[0][:60]
    if sp is not None:
        # Both find the crossing among 1000 samples of each ray (surfalize interpolates cubic
        # splines, lwt bilinearly): a sample is 1/999 of the ray, a little longer than Sal on
        # fine textures; the bounds allow a few samples (measured: 0 to 2.4e-3).
        sal, st = theirs.Sal() * 1e-6, theirs.Str()
        chk.error_within(rel(sp["Sal"], sal), 5e-3, "%s Sal: lwt %.10g m, surfalize %.10g m" % (name, sp["Sal"], sal),
                         "Sal")
        chk.check(np.isnan(sp["Str"]) == np.isnan(st), "%s Str: lwt %r, surfalize %r" % (name, sp["Str"], st))
        if not np.isnan(st):
            chk.error_within(rel(sp["Str"], st), 1e-2, "%s Str: lwt %.10g, surfalize %.10g" % (name, sp["Str"], st),
                             "Str")
        # Std: the same 0.5-degree bins of the same spectrum: the same bin
        sd = theirs.Std()
        chk.check(sp["Std"] == sd, "%s Std: lwt %r, surfalize %r degrees" % (name, sp["Std"], sd))
        line += "  Sal %.4g um (rel %.1e)  Str %.4g  Std %g (%g)" % (sp["Sal"] * 1e6, rel(sp["Sal"], sal), sp["Str"],
                                                                 sp["Std"], sd)
    print("  %-34s %s points: %s" % (name, z.shape, line))


def material(name, s):
    v = s.z[np.isfinite(s.z)] * 1e6
    v = v - v.mean()
    if v.size < 1000:
        print("  %s: %d points, material ratio not compared (surfalize's 10000 samples would repeat them)"
              % (name, v.size))
        return
    ours = ls.material_parameters(s.z * 1e6, sdc=(2.5, 50))  # surfalize's Sdc default; heights in um
    a = AbbottFirestoneCurve(ValidHeights(v), nbins=NBINS)
    theirs = {"Sk": a.k(), "Spk": a.pk(), "Svk": a.vk(), "Smr1": a.mr1(), "Smr2": a.mr2(), "Sxp": a.dc(2.5, 50),
              "Sdc": a.dc(2.5, 50), "Smc": a.mc(10), "Smr": a.mr(0.0), "Vmp": a.vmp(), "Vmc": a.vmc(),
              "Vvv": a.vvv(), "Vvc": a.vvc()}
    steps = np.unique(v)
    quantized = steps.size < 0.1 * v.size
    q = np.min(np.diff(steps)) if quantized else 0.0
    bounds = {}
    if quantized:
        for k in ("Sk", "Sxp", "Smc", "Sdc"):
            bounds[k] = 1e-4 * abs(theirs[k]) + 2 * q
        for k in ("Vmc", "Vvc"):
            bounds[k] = 3e-3 * abs(theirs[k]) + q
    else:
        for k in ("Sk", "Smc", "Sxp", "Sdc", "Smr"):
            bounds[k] = 1e-4 * abs(theirs[k])
        for k in ("Vmp", "Vmc", "Vvv", "Vvc"):
            bounds[k] = 3e-3 * abs(theirs[k])
        bounds["Smr1"] = bounds["Smr2"] = 2 * STEP
        bounds["Spk"] = (3e-3 + 2 * STEP / max(ours["Smr1"], STEP)) * abs(theirs["Spk"])
        bounds["Svk"] = (3e-3 + 2 * STEP / max(100 - ours["Smr2"], STEP)) * abs(theirs["Svk"])
    worst = []
    for k, b in bounds.items():
        err = abs(ours[k] - theirs[k])
        chk.error_within(err, b, "%s %s: lwt %.10g, surfalize %.10g" % (name, k, ours[k], theirs[k]), k)
        worst.append("%s %.1e" % (k, rel(ours[k], theirs[k])))
    print("  %-34s %d points%s: %s" % (name, v.size, ", quantized (step %.3g um)" % q if quantized else "",
                                        " ".join(worst)))


FEATURE_CROP = 160  # surfalize prunes in Python loops over the basins: 0.3-3 s a file uncut


def features(name, s):
    """The feature family of the file's roughness band (levels 1-4) on its largest all-valid
    rectangle (surfalize refuses invalid points), cut to FEATURE_CROP points a side."""
    if min(s.z.shape) < 64:
        print("  %s: too small for a 4-level band, feature family not compared" % name)
        return
    z = ls.filter(s, levels=4).bands["roughness"]
    valid = np.isfinite(z)
    if not valid.all():
        r0, r1, c0, c1 = largest_valid_rectangle(valid)
        z = z[r0:r1, c0:c1]
    z = np.ascontiguousarray(z[:FEATURE_CROP, :FEATURE_CROP])
    ny, nx = z.shape
    ours = ls.feature_parameters(z, s.dx, s.dy, counts=True)
    theirs = FeatureParameters(surfalize.Surface(z * 1e6, s.dx * 1e6, s.dy * 1e6))
    area = (nx - 1) * (ny - 1) * s.dx * s.dy * 1e12  # surfalize's, um^2
    peaks, pits = theirs.Spd(exclude_edge=False) * area, theirs.Svd(exclude_edge=False) * area
    chk.check(ours["peaks"] == round(peaks) and ours["pits"] == round(pits), "%s: lwt %d peaks %d pits, surfalize %g %g"
              % (name, ours["peaks"], ours["pits"], peaks, pits))
    spd = ours["Spd"] * nx * ny / ((nx - 1) * (ny - 1)) * 1e-12  # per um^2 over surfalize's area
    for k, mine, other in (("Spd", spd, theirs.Spd(exclude_edge=False)),
                           ("S5p", ours["S5p"] * 1e6, theirs.S5p(exclude_edge=False)),
                           ("S5v", ours["S5v"] * 1e6, theirs.S5v(exclude_edge=False)),
                           ("S10z", ours["S10z"] * 1e6, theirs.S10z(exclude_edge=False)),
                           ("Spc", ours["Spc"] * 1e-6, theirs.Spc(exclude_edge=False))):
        chk.error_within(rel(mine, other), 1e-12, "%s %s: lwt %.12g, surfalize %.12g" % (name, k, mine, other),
                         "features " + k)
    print("  %-34s %s points: %d peaks, %d pits (surfalize's default, edge motifs out: %d peaks)"
          % (name, z.shape, ours["peaks"], ours["pits"], round(theirs.Spd() * area)))


def real_files():
    names = sorted(f for f in os.listdir(DATA) if not f.endswith(".md"))
    compared = 0
    for name in names:
        try:
            s = ls.read(os.path.join(DATA, name))
        except Exception as e:  # profiles, point clouds: not areal surfaces
            print("  %s: not read (%s)" % (name, str(e).splitlines()[0][:80]))
            continue
        hybrid(name, s)
        material(name, s)
        features(name, s)
        compared += 1
    chk.check(compared >= 5, "only %d shared files compared" % compared)


def oriented_texture():
    """The raw shared files are dominated by their form (Std 0 or 90 degrees, Str mostly
    undefined): a texture with a lay, random phases and noise (seed printed) exercises Sal, Str
    and Std away from the axes, with anisotropic spacing."""
    rng = np.random.default_rng(harness.seed())
    ny, nx = 240, 320
    y, x = np.mgrid[0:ny, 0:nx].astype(float)
    dx, dy = 0.5e-6, 0.8e-6
    for deg in (20.0, 65.0, 140.0):
        t = np.deg2rad(deg)
        # a wave of wavelength 12 um travelling at 90 - deg degrees from +x (y up: row 0 on top)
        u = x * dx * np.sin(t) + (ny - 1 - y) * dy * np.cos(t)
        z = 1e-6 * np.cos(2 * np.pi * u / 12e-6 + rng.uniform(0, 6.3)) + 0.2e-6 * rng.standard_normal((ny, nx))
        hybrid("texture at %g degrees" % deg, type("S", (), {"z": z, "dx": dx, "dy": dy})())


chk.run("real files against surfalize %s" % getattr(surfalize, "__version__", "?"), real_files)
chk.run("oriented textures against surfalize", oriented_texture)
chk.finish()
