"""Measured areal surfaces (height maps) for notebooks: the files, the wavelet band split into
form, waviness and roughness, and the ISO 25178-2 field parameters, over liblwt's public surface
API (include/lwt_surface.h) and the calls `lwt filter` makes (cli/filter_job.c).

    import lwt.surface as ls
    s = ls.read("part.x3p")                        # Surface: s.z (ny, nx) metres, NaN = not measured
    r = ls.filter(s, lambda_c=80e-6)               # FilterResult: r["roughness"], r.parameters
    print(r.parameters["roughness"]["Sa"])         # metres
    ls.write("roughness.x3p", r["roughness"], s.dx, s.dy)

Units are the library's: heights, spacings and wavelengths in metres; Ssk, Sku and Sdq
dimensionless; Sdr in percent. z[iy, ix] is the height at x = ix * dx, y = iy * dy: a row is
one profile along x (the file's fast axis), the C order liblwt holds. docs/PYTHON.md, section
"Surfaces", has the details and what differs from the CLI.
"""
import errno
import importlib.util
import math
import os
from collections import namedtuple

import numpy as np

from . import _core
from ._modes import Modes
from ._plans import _ALGORITHMS, _BACKENDS

try:
    from . import _surface_io
    _IO_MISSING = None
except ImportError as e:  # not built (no libzip/expat/libcrypto/libpng at build time) or not loadable
    _surface_io = None
    if importlib.util.find_spec(__package__ + "._surface_io") is None:
        _IO_MISSING = "this build of lwt has no lwt._surface_io"
    else:  # e.g. a wheel built with libzip.so.4, on a machine without it
        _IO_MISSING = "lwt._surface_io cannot be loaded: %s" % e

__all__ = ["Surface", "FilterResult", "Plane", "read", "write", "filter", "parameters", "material_parameters",
           "material_ratio_curve", "spatial_parameters", "feature_parameters", "FEATURE_PARAMETER_NAMES", "plane_fit", "remove_plane", "form_fit", "remove_form", "PARAMETER_NAMES", "MATERIAL_PARAMETER_NAMES",
           "BAND_NAMES"]

#: The ISO 25178-2 parameters in liblwt's order (lwt_iso_param_name).
PARAMETER_NAMES = _core.ISO_PARAM_NAMES
#: The material ratio (functional) parameters in liblwt's order (lwt_mr_param_name).
MATERIAL_PARAMETER_NAMES = _core.MR_PARAM_NAMES
#: The feature parameters in liblwt's order (lwt_feature_param_name).
FEATURE_PARAMETER_NAMES = _core.FEATURE_PARAM_NAMES
#: The bands of a split (lwt_filter_band_name), in liblwt's order.
BAND_NAMES = _core.BAND_NAMES
_IS_HEIGHT = dict(zip(_core.ISO_PARAM_NAMES, _core.ISO_PARAM_IS_HEIGHT))
_SPEC_DEFAULT = _core.filter_spec_default()
_BACKEND_NAME = {v: k for k, v in _BACKENDS.items()}
# Write formats of _surface_io.write: None chooses by extension (lwt_surface_write).
_WRITE_FORMATS = {None: 0, "x3p": 1, "sdf": 2, "sdf-ascii": 3}

Plane = namedtuple("Plane", "z0 sx sy")
Plane.__doc__ = "z(x, y) ~ z0 + sx * x + sy * y (z0 in metres at ix = iy = 0; slopes dimensionless)"


_METADATA = ("source_format", "z_resolution", "date", "instrument", "creator", "comment")


class Surface:
    """A height map: z (ny, nx) float64 in metres, NaN where the point was not measured;
    spacing dx (along a row) and dy (between rows) in metres, 0 when unknown (.npy files);
    and the metadata of liblwt's lwt_surface, as stored in the file."""

    __slots__ = ("z", "dx", "dy") + _METADATA

    def __init__(self, z, dx=0.0, dy=None, *, source_format="", z_resolution=0.0, date="", instrument="",
                 creator="", comment=""):
        self.z = _heights(z)
        self.dx = float(dx)
        self.dy = self.dx if dy is None else float(dy)
        self.source_format, self.z_resolution = source_format, float(z_resolution)
        self.date, self.instrument, self.creator, self.comment = date, instrument, creator, comment

    nx = property(lambda self: self.z.shape[1], doc="points per profile (along x)")
    ny = property(lambda self: self.z.shape[0], doc="profiles (along y)")
    shape = property(lambda self: self.z.shape, doc="(ny, nx)")

    @property
    def n_valid(self):
        """Points with a finite height."""
        return int(np.count_nonzero(np.isfinite(self.z)))

    def __repr__(self):
        meta = "".join(", %s=%r" % (k, getattr(self, k)) for k in ("date", "instrument", "creator")
                       if getattr(self, k))
        return ("<Surface %d x %d points, dx=%.6g um, dy=%.6g um, %d invalid, from %s%s>"
                % (self.nx, self.ny, self.dx * 1e6, self.dy * 1e6, self.z.size - self.n_valid,
                   self.source_format or "memory", meta))


class FilterResult:
    """The bands of filter() and their parameters.

    bands: {name: (ny, nx) float64 array in metres, NaN at invalid points} for form, waviness,
        roughness (and noise when the split has a noise band); result[name] is bands[name].
    parameters: {"input" and each band name: {parameter name: value}} (units as parameters()).
        "input" is the surface the bands add up to: the input less the plane when plane=True.
    split: the resolved levels (levels, noise_hi, rough_lo, rough_hi, wavy_lo, wavy_hi; level 1
        finest, counted along the axis of the smaller spacing = min(dx, dy)), the levels of each
        axis (x, y): levels_xy (J), rough_lo_xy (A), rough_hi_xy (B) (noise A-1 levels, waviness
        B+1..J; with anisotropic spacing each axis has the levels of its own spacing, as
        `lwt filter`), and the effective wavelengths in metres per axis (x, y): lambda_s,
        lambda_c, lambda_f (2^A, 2^(B+1), 2^(J+1) times that axis's spacing).
    plane: the removed Plane (zeros without plane=True). n_filled: invalid points filled before
    the transform. wavelet: canonical name (cdf97 -> bior4.4); backend, path, max_level
    (PyWavelets' dwtn_max_level) and times_ms (fill, transform, total) as lwt_filter_result.
    filter: "wavelet", "gaussian" or "robust-gaussian", the filter that made the bands; nesting: the Gaussian's
    nesting indices (lambda_s, lambda_c, lambda_f) in metres as used (lambda_s 0: no S-filter),
    zeros for the wavelet; with the Gaussian the split is zeros but for its spacing.
    form: the form model removed first (form_fit's dict), None without one.
    """

    __slots__ = ("bands", "parameters", "split", "plane", "n_filled", "wavelet", "backend", "path", "max_level",
                 "times_ms", "filter", "nesting", "form")

    def __getitem__(self, band):
        return self.bands[band]

    def __repr__(self):
        sp = self.split
        if self.filter != "wavelet":
            return ("<FilterResult %s: %s, nesting indices %s um>"
                    % (", ".join(self.bands), "ISO 16610-61 Gaussian" if self.filter == "gaussian"
                       else "ISO 16610-71 robust Gaussian regression (S-filter ISO 16610-61)", ", ".join("%g" % (v * 1e6) for v in self.nesting if v)))
        return ("<FilterResult %s: %s, %d levels, roughness %d-%d, waviness %s, on %s>"
                % (", ".join(self.bands), self.wavelet, sp["levels"], sp["rough_lo"], sp["rough_hi"],
                   "%d-%d" % (sp["wavy_lo"], sp["wavy_hi"]) if sp["wavy_lo"] <= sp["wavy_hi"] else "empty",
                   self.backend))


def _heights(z):
    """z as a 2-D C-contiguous float64 array (a copy only where needed)."""
    a = np.asarray(z)
    if a.ndim != 2 or a.size == 0:
        raise ValueError("a height map is a non-empty 2-D array (ny, nx), got shape %s" % (a.shape,))
    if np.iscomplexobj(a) or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise TypeError("heights must be real numbers, got %s" % a.dtype)
    return np.ascontiguousarray(a, dtype=np.float64)


def _grid(surface_or_z, dx, dy, what):
    """(z, dx, dy) from a Surface or from an array and dx, dy (dy not given: dx, as the CLI's
    --spacing DX). A dx or dy given overrides the Surface's; a Surface without spacing (.npy)
    takes dy = dx too."""
    if isinstance(surface_or_z, Surface):
        s = surface_or_z
        z = s.z
        if dy is None:
            dy = s.dy if s.dy > 0 or dx is None else dx
        dx = s.dx if dx is None else dx
    else:
        z = _heights(surface_or_z)
        if dx is None:
            raise TypeError("%s of an array needs its spacing: dx (and dy, else dy = dx) in metres" % what)
        dy = dx if dy is None else dy
    dx, dy = float(dx), float(dy)
    if not (dx > 0 and dy > 0 and math.isfinite(dx) and math.isfinite(dy)):
        raise ValueError("%s needs the spacing: dx and dy must be positive and finite (have %g, %g metres)%s"
                         % (what, dx, dy, "; a .npy file has none, give dx=, dy=" if dx == 0 or dy == 0 else ""))
    return _heights(z), dx, dy


def _io():
    if _surface_io is None:
        raise ImportError("lwt.surface.read and write need the surface files of liblwt_surface, and %s (it is "
                          "built where libzip, expat, libcrypto and libpng are found: scripts/install-deps.sh); "
                          "filter() and parameters() work without it" % _IO_MISSING)
    return _surface_io


def _file_error(e, path):
    """liblwt says LWT_ERR_IO for a file it cannot open, and reads a directory as an empty file
    (LWT_ERR_FORMAT): give the exception the errno the file system says (missing, a directory),
    keeping the library's message."""
    p = os.fspath(path)
    if not os.path.lexists(p):
        return FileNotFoundError(errno.ENOENT, str(e), p)
    if os.path.isdir(p):
        return IsADirectoryError(errno.EISDIR, str(e), p)
    return e


def read(path):
    """Read a surface file: X3P (ISO 25178-72), SDF (ISO 25178-71, ASCII and binary), Digital
    Surf .sur, Sensofar .plu or .plux, Zygo .datx (where liblwt_surface was built with HDF5),
    Gwyddion .gwy, Alicona .al3d, Keyence .vk4, or a 2-D float32/float64 .npy (no spacing:
    dx = dy = 0). The format is chosen by the file's magic bytes, then its extension
    (lwt_surface_read).

    Returns a Surface with z (ny, nx) float64 in metres, NaN at non-measured points (whatever
    the file's convention: NaN, +inf, valid.bin, BAD, ...), dx, dy in metres and the metadata
    (source_format, z_resolution, date, instrument, creator, comment) as stored. z is the
    library's own block (no copy), writable.
    Raises FileNotFoundError, IsADirectoryError or OSError when the file cannot be read,
    ValueError when its content is not a valid areal surface (corrupt, truncated, bad checksum,
    a profile or point cloud, every point invalid), with liblwt's message."""
    io = _io()
    try:
        d = io.read(os.fsencode(path))
    except (OSError, ValueError) as e:
        raise _file_error(e, path) from None
    z = np.frombuffer(d.pop("z"), dtype=np.float64).reshape(d.pop("ny"), d.pop("nx"))
    return Surface(z, **d)


def write(path, surface, dx=None, dy=None, *, format=None):
    """Write a surface: a Surface (its metadata too) or a (ny, nx) array in metres with dx, dy
    in metres (dy defaults to dx). NaN (or any non-finite height) is an invalid point.

    format: None chooses by the extension (.x3p: X3P; .sdf: binary SDF), or "x3p", "sdf"
    (binary), "sdf-ascii". X3P stores float64 heights (bit-exact round trip) with valid.bin
    for invalid points and MD5 checksums; SDF stores float64 heights with Zscale 1 (binary: at
    most 65535 points per axis). Of the metadata, X3P keeps date (when ISO 8601), instrument
    (as manufacturer) and comment, and names lwt as its creator; SDF keeps date, z_resolution,
    instrument and comment. The write is atomic: the target is replaced only on success,
    and a failure leaves neither it nor a temporary file. Raises ValueError for bad arguments
    (no spacing, unknown extension), OSError when the file cannot be written."""
    io = _io()
    if format not in _WRITE_FORMATS:
        raise ValueError("format must be one of %s, not %r" % (sorted(k for k in _WRITE_FORMATS if k), format))
    if not isinstance(surface, Surface):
        if dx is None:
            raise TypeError("write of an array needs its spacing: dx (and dy, else dy = dx) in metres")
        surface = Surface(surface, dx, dy)
    elif dx is not None or dy is not None:
        raise TypeError("dx and dy come from the Surface; give an array to write with another spacing")
    s = surface
    meta = tuple(getattr(s, k) for k in _METADATA)  # _surface_io.write takes them in this order
    z = _heights(s.z)  # a Surface's z may have been replaced by any array
    io.write(os.fsencode(path), z, z.shape[1], z.shape[0], s.dx, s.dy, meta, _WRITE_FORMATS[format])


def _choice(name, value, names):
    if value not in names:
        raise ValueError("%s must be one of %s, not %r" % (name, sorted(names), value))
    return names[value]


def _levels(name, pair):
    """(lo, hi) level numbers of a band request; None: not given (0, 0)."""
    if pair is None:
        return 0, 0
    try:
        lo, hi = (int(v) for v in pair)
    except (TypeError, ValueError):
        raise TypeError("%s is a pair of level numbers (lo, hi), 1 = finest, got %r" % (name, pair)) from None
    if not 1 <= lo <= hi:
        raise ValueError("%s needs 1 <= lo <= hi, got %r" % (name, pair))
    return lo, hi


def _wavelength(name, v):
    if v is None:
        return 0.0
    v = float(v)
    if not (v > 0 and math.isfinite(v)):
        raise ValueError("%s is a positive wavelength in metres, got %r" % (name, v))
    return v


def filter(surface_or_z, dx=None, dy=None, *, levels=None, roughness_levels=None, waviness_levels=None,
           lambda_s=None, lambda_c=None, wavelet=None, mode=None, plane=None, dtype=None, backend=None,
           algorithm=None, threads=None, chunk_rows=None, filter=None, form=None):
    """Split a surface into form, waviness and roughness (and noise) as `lwt filter` does:
    optional plane removal, invalid points filled by harmonic inpainting, one J-level 2-D
    wavelet transform, one inverse per band; NaN again at invalid points in every band.
    form + waviness + roughness (+ noise) equals the (levelled) input to rounding.

    filter: "wavelet" (default), "gaussian" or "robust-gaussian", as `lwt filter --filter`: the ISO 16610-61
    Gaussian with lambda_s and lambda_c as given (not moved to level boundaries), the cutoffs not
    given and the form's lambda_f = 2^(J+1) spacings from the split the levels describe (with
    no size rule); invalid points weighted out instead of filled; float64 on the CPU (wavelet,
    mode, dtype, algorithm and chunk_rows do not apply). docs/SURFACE.md, "Gaussian filter".
    "robust-gaussian": the same with the L- and form filters by the robust Gaussian regression
    filter of ISO 16610-71 (second order, Tukey's biweight; the S-filter stays the linear
    Gaussian), for surfaces with deep valleys or scratches; CPU only, docs/SURFACE.md, "Robust
    Gaussian regression filter".

    surface_or_z: a Surface, or a (ny, nx) array of heights in metres with dx, dy (metres).
    The split (lwt_band_request; None = not given, the library's rules decide):
      levels: J (default 6); roughness_levels: (A, B), level 1 finest (default (1, J // 2));
      waviness_levels: (C, D) with C = B + 1, D = J; lambda_s, lambda_c: cutoff wavelengths in
      metres, mapped to the nearest level boundary (not together with roughness_levels). Levels
      count along the axis of the smaller spacing; with dx != dy the other axis gets the level
      boundaries of its own spacing nearest to the same wavelengths (docs/SURFACE.md, "Bands",
      anisotropic spacing).
    The transform (lwt_filter_spec; None = lwt_filter_spec_default()'s value): wavelet (cdf97),
    mode (symmetric), plane (False), dtype ("float64" or "float32"), backend ("auto", "cpu",
    "cuda"), algorithm ("auto", "lifting", "convolution", "rc", "lbb"), threads (CPU threads of
    the fill and plane loops, 0 = default; lwt.set_threads sets the transform's),
    chunk_rows (0 = one chunk), form (None: none, or a model of form_fit: "plane", "poly:N",
    "sphere", "cylinder-x", "cylinder-y", removed before the split as `lwt filter --form`;
    plane=True is form="plane").

    Returns a FilterResult: result.bands / result[name], result.parameters ({"input", band:
    {name: value}}, as parameters()), result.split, result.plane and the run's details.
    Raises ValueError for a bad request (inconsistent levels, a surface too small for them, no
    valid point, unknown wavelet or mode) with liblwt's message, TypeError for arguments of the
    wrong kind."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "filter")
    d = _SPEC_DEFAULT
    if dtype is None:
        dtype = "float64" if d["f64"] else "float32"
    else:
        try:
            dtype = np.dtype(dtype).name
        except TypeError:
            raise ValueError("dtype must be float64 or float32, not %r" % (dtype,)) from None
    spec = (d["wavelet"] if wavelet is None else str(wavelet),
            d["mode"] if mode is None else _choice("mode", mode, {m: m for m in Modes.modes}),
            int(_choice("dtype", dtype, {"float64": 1, "float32": 0})),
            d["backend"] if backend is None else _choice("backend", backend, _BACKENDS),
            d["algorithm"] if algorithm is None else _choice("algorithm", algorithm, _ALGORITHMS),
            int(d["plane"] if plane is None else bool(plane)),
            d["threads"] if threads is None else int(threads),
            d["chunk_rows"] if chunk_rows is None else int(chunk_rows),
            _choice("filter", d["filter"] if filter is None else filter, {"wavelet": 0, "gaussian": 1, "robust-gaussian": 2}))
    spec += _form_model("none" if form is None else form)
    if levels is not None and (isinstance(levels, bool) or int(levels) != levels or levels < 1):
        raise ValueError("levels must be a positive integer, got %r" % (levels,))
    request = ((0 if levels is None else int(levels),) + _levels("roughness_levels", roughness_levels)
               + _levels("waviness_levels", waviness_levels)
               + (_wavelength("lambda_s", lambda_s), _wavelength("lambda_c", lambda_c)))
    ny, nx = z.shape
    out = _core.filter(z, nx, ny, dx, dy, spec, request)
    r = FilterResult()
    r.bands = {name: np.frombuffer(block, dtype=np.float64).reshape(ny, nx)
               for name, block in zip(BAND_NAMES, out["bands"]) if block is not None}
    r.plane = Plane(*out["plane"])
    r.form = out["form"]
    # The parameters as `lwt filter` computes them: the input's of the surface the bands add
    # up to (levelled by the same plane or model), then each band's.
    threads = spec[6]
    levelled = z
    if r.form and r.form["model"] == "poly" and r.form["degree"] == 1:  # the library's plane path
        levelled = z.copy()
        _core.plane_subtract(levelled, nx, ny, dx, dy, threads, tuple(r.plane))
    elif r.form:  # lwt_form_fit gives the filter's model, bit for bit (tests/c/test_surface_form.c)
        levelled = np.frombuffer(_core.form_fit(z, nx, ny, dx, dy, threads, spec[9], spec[10])[1],
                                 dtype=np.float64).reshape(ny, nx)
    r.parameters = {"input": _parameters(levelled, dx, dy, threads)}
    r.parameters.update((name, _parameters(band, dx, dy, threads)) for name, band in r.bands.items())
    r.split = out["split"]
    r.n_filled, r.wavelet, r.path, r.max_level = out["n_filled"], out["wavelet"], out["path"], out["max_level"]
    r.backend = _BACKEND_NAME[out["backend"]]
    r.times_ms = {"fill": out["ms_fill"], "transform": out["ms_transform"], "total": out["ms_total"]}
    r.filter, r.nesting = out["filter"], out["nesting"]
    return r


def _parameters(z, dx, dy, threads):
    values, _, _ = _core.parameters(z, z.shape[1], z.shape[0], dx, dy, threads)
    return dict(zip(PARAMETER_NAMES, values))


def parameters(surface_or_z, dx=None, dy=None, *, threads=0):
    """ISO 25178-2 field parameters of the finite points of a surface (lwt_iso_params_compute),
    heights taken relative to their mean: {"Sa", "Sq", "Sp", "Sv", "Sz": metres; "Ssk", "Sku",
    "Sdq": dimensionless; "Sdr": percent}. Sdq from forward differences (pairs of valid
    points), Sdr from the developed area by triangles of every grid cell whose four corners are
    valid (ISO 25178-2:2021's discretization, docs/SURFACE.md). Undefined values are NaN (no
    valid point: all; Sq = 0: Ssk and Sku; no valid pair or cell: Sdq and Sdr). The mean is removed, the tilt is not:
    see remove_plane(). surface_or_z: a Surface, or a (ny, nx) array with dx, dy in metres."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "parameters")
    return _parameters(z, dx, dy, int(threads))


def _material(surface_or_z, spec, mrs=(), ps=(), threads=0):
    z = _heights(surface_or_z.z if isinstance(surface_or_z, Surface) else surface_or_z)
    return _core.material(z, z.shape[1], z.shape[0], int(threads), tuple(float(v) for v in spec),
                          tuple(float(v) for v in mrs), tuple(float(v) for v in ps))


def material_parameters(surface_or_z, *, smr_c=0.0, smc_mr=10.0, p=10.0, q=80.0, sxp=(2.5, 50.0),
                        sdc=(2.0, 98.0), sk_width=40.0, vm_at=(), threads=0):
    """ISO 25178-2 material ratio (functional) parameters of the finite heights, taken about their
    mean (lwt_mr_params_compute): {"Smr": % at height smr_c (metres about the mean), "Smc": metres
    at material ratio smc_mr %, "Sxp": Smc(sxp[0]) - Smc(sxp[1]), "Sdc": Smc(sdc[0]) - Smc(sdc[1]),
    "Sk", "Spk", "Svk": metres (ISO 13565-2 with a sk_width % central region), "Smr1", "Smr2": %,
    "Vmp" = Vm(p), "Vmc" = Vm(q) - Vm(p), "Vvv" = Vv(q), "Vvc" = Vv(p) - Vv(q): m^3/m^2}, and for
    each material ratio a in vm_at, "Vm(a)" and "Vv(a)". No spacing is needed. docs/SURFACE.md
    gives the definitions and how they compare with surfalize."""
    spec = (smr_c, smc_mr, p, q, sxp[0], sxp[1], sdc[0], sdc[1], sk_width)
    values, _, _, _, vm, vv = _material(surface_or_z, spec, (), tuple(vm_at), threads)
    out = dict(zip(MATERIAL_PARAMETER_NAMES, values))
    for a, m, v in zip(vm_at, vm, vv):
        out["Vm(%g)" % a] = m
        out["Vv(%g)" % a] = v
    return out


def material_ratio_curve(surface_or_z, points=101, *, threads=0):
    """The areal material ratio (Abbott-Firestone) curve: (mr, height) NumPy arrays, mr in %
    from 0 to 100 at `points` evenly spaced ratios, height in metres about the mean of the finite
    heights (the curve through the sorted heights: NumPy's linear quantile at 1 - mr/100)."""
    mr = np.linspace(0.0, 100.0, int(points))
    spec = (0.0, 10.0, 10.0, 80.0, 2.5, 50.0, 2.0, 98.0, 40.0)
    _, _, _, h, _, _ = _material(surface_or_z, spec, tuple(mr), (), threads)
    return mr, np.asarray(h)


def spatial_parameters(surface_or_z, dx=None, dy=None, *, s=0.2, threads=0):
    """ISO 25178-2 spatial parameters from the autocorrelation function of the finite heights
    (lwt_spatial_params_compute): {"Sal": metres, the fastest decay to s times f(0); "Str": Sal
    over the slowest decay, NaN when it is not within the field; "Std": degrees, the direction of
    the largest 0.5-degree bin of the angular amplitude spectrum}.
    Needs a liblwt built with FFTW (else RuntimeError naming LWT_ERR_UNSUPPORTED)."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "spatial_parameters")
    sal, st, sd = _core.spatial(z, z.shape[1], z.shape[0], dx, dy, int(threads), float(s))
    return {"Sal": sal, "Str": st, "Std": sd}


def feature_parameters(surface_or_z, dx=None, dy=None, *, pruning=5.0, threads=0, counts=False):
    """ISO 25178-2 feature parameters (lwt_feature_params_compute): watershed segmentation of the
    finite heights into hills and dales (8 neighbours), Wolf pruning at `pruning` % of Sz, SI
    units: {"Spd": significant peaks per m^2, "Spc": mean peak curvature 1/m, "S10z", "S5p",
    "S5v": metres about the mean, "Sda", "Sha": mean closed dale/hill area m^2, "Sdv", "Shv":
    mean closed dale/hill volume m^3}. counts=True adds "peaks", "pits", "closed_hills",
    "closed_dales" and "pruning_height" (metres). docs/SURFACE.md, "Feature family"."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "feature_parameters")
    values, n, threshold = _core.feature(z, z.shape[1], z.shape[0], dx, dy, int(threads), float(pruning))
    out = dict(zip(FEATURE_PARAMETER_NAMES, values))
    if counts:
        out.update(zip(("peaks", "pits", "closed_hills", "closed_dales"), n))
        out["pruning_height"] = threshold
    return out


_FORM_KINDS = {"none": 0, "plane": 1, "sphere": 2, "cylinder-x": 3, "cylinder-y": 4}


def _form_model(model):
    """(kind, degree) of a form model name, as `lwt filter --form` reads it"""
    if not isinstance(model, str):
        raise TypeError("form must be a str such as 'poly:3' or 'sphere', not %s" % type(model).__name__)
    if model in _FORM_KINDS:
        return _FORM_KINDS[model], int(model == "plane")
    if model.startswith("poly:") and model[5:].isdigit() and 1 <= int(model[5:]) <= 6:
        return 1, int(model[5:])
    raise ValueError("form must be none, plane, poly:N (N = 1..6), sphere, cylinder-x or cylinder-y, not %r"
                     % (model,))


def form_fit(surface_or_z, dx=None, dy=None, model="plane", *, threads=0):
    """The least-squares form model of the finite points (lwt_form_fit; docs/SURFACE.md, "Form
    removal"): model "plane", "poly:N" (N = 1..6; Legendre basis in coordinates scaled onto
    [-1, 1]), "sphere", "cylinder-x" or "cylinder-y" (axis along x or y; geometric distance by
    Levenberg-Marquardt). A dict in metres: "model", "rms" (of the vertical residual), "n_valid",
    and for a polynomial "degree", "coefficients", "centre" (xc, yc), "half_width" (hx, hy); for
    a sphere or cylinder "centre" (cx, cy, cz; None along a cylinder's axis), "radius",
    "convex", "iterations". ValueError when the model cannot be fitted."""
    return remove_form(surface_or_z, dx, dy, model, threads=threads)[1]


def remove_form(surface_or_z, dx=None, dy=None, model="plane", *, threads=0):
    """(heights less the model, model dict) for form_fit's model (lwt_form_subtract: the
    model's height at each point; non-finite points stay as they are). An array for an array, a
    Surface (same metadata) for a Surface."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "remove_form")
    kind, degree = _form_model(model)
    if kind == 0:
        return (surface_or_z if isinstance(surface_or_z, Surface) else z.copy()), None
    d, block = _core.form_fit(z, z.shape[1], z.shape[0], dx, dy, int(threads), kind, degree)
    levelled = np.frombuffer(block, dtype=np.float64).reshape(z.shape)
    if not isinstance(surface_or_z, Surface):
        return levelled, d
    s = surface_or_z
    return Surface(levelled, dx, dy, **{k: getattr(s, k) for k in _METADATA}), d


def plane_fit(surface_or_z, dx=None, dy=None, *, threads=0):
    """The least-squares Plane of the finite points (lwt_plane_fit). ValueError without one."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "plane_fit")
    return Plane(*_core.plane_fit(z, z.shape[1], z.shape[0], dx, dy, int(threads)))


def remove_plane(surface_or_z, dx=None, dy=None, plane=None, *, threads=0):
    """A copy of the heights less a plane (default: plane_fit's), as filter(plane=True) levels
    its input (lwt_plane_subtract); non-finite points stay as they are. Returns an array for an
    array, a Surface (same metadata) for a Surface."""
    z, dx, dy = _grid(surface_or_z, dx, dy, "remove_plane")
    if plane is None:
        plane = plane_fit(z, dx, dy, threads=threads)
    levelled = z.copy()
    _core.plane_subtract(levelled, z.shape[1], z.shape[0], dx, dy, int(threads), tuple(Plane(*plane)))
    if not isinstance(surface_or_z, Surface):
        return levelled
    s = surface_or_z
    return Surface(levelled, dx, dy, **{k: getattr(s, k) for k in _METADATA})
