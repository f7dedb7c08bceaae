#!/usr/bin/env python3
"""The C .gwy reader against files written by someone else's serializer: the `gwyfile` package
(pure Python, its authors' reading of Gwyddion's format). tests/c/test_surface_io_gwy.c writes
its files with its own serializer, made from the same reading of the format as the reader; this
checks that reading against an independent one. Skipped (77) when gwyfile is not installed.

Random sizes, spacing, values and units (m, mm, um, nm for z; m, mm, um for x and y), a mask,
a second channel, metadata: the C library (test_surface_io --dump) must return channel 0 with
exactly the values times the unit's power of ten, spacing xreal / xres and yreal / yres, and
NaN at the masked points. A channel with no units (gwyfile's default) is refused.
"""
import os

import numpy as np

import harness
import test_surface_io as sio

FACTOR = {"m": 1.0, "mm": 1e-3, "um": 1e-6, "nm": 1e-9}


def main():
    try:
        from gwyfile.objects import GwyContainer, GwyDataField, GwySIUnit
    except ImportError as e:
        harness.skip("the gwyfile package is not installed (%s)" % e)
    binary, c, rng, tmp = sio.reader_test("test_surface_gwy")
    for case in range(20):
        nx, ny = rng.randint(1, 40), rng.randint(1, 40)
        uxy, uz = rng.choice(["m", "mm", "um"]), rng.choice(list(FACTOR))
        xreal, yreal = rng.uniform(0.1, 100), rng.uniform(0.1, 100)
        npr = np.random.default_rng(rng.randrange(1 << 30))
        d = npr.normal(size=(ny, nx)) * 10 ** rng.randint(-3, 3)
        mask = npr.random((ny, nx)) < 0.1
        obj = GwyContainer()
        obj["/1/data"] = GwyDataField(np.ones((2, 2)), xreal=1.0, yreal=1.0, si_unit_xy=GwySIUnit(unitstr="m"),
                                      si_unit_z=GwySIUnit(unitstr="m"))
        obj["/0/data"] = GwyDataField(d, xreal=xreal, yreal=yreal, si_unit_xy=GwySIUnit(unitstr=uxy),
                                      si_unit_z=GwySIUnit(unitstr=uz))
        obj["/0/data/title"] = "case %d" % case
        obj["/0/mask"] = GwyDataField(mask.astype(float), xreal=xreal, yreal=yreal)
        meta = GwyContainer()
        meta["Operator"] = "lwt"
        obj["/0/meta"] = meta
        path = os.path.join(tmp, "case%d.gwy" % case)
        obj.tofile(path)
        got, err = sio.c_read(binary, path, tmp)
        what = "case %d (%d x %d, %s, %s)" % (case, nx, ny, uxy, uz)
        if not c.check(got is not None, "%s: %s" % (what, err)):
            continue
        z, dx, dy, fmt = got
        want = d * FACTOR[uz]
        want[mask] = np.nan
        c.check(fmt == "gwy" and z.shape == (ny, nx), "%s: format %r, shape %s" % (what, fmt, z.shape))
        c.check(z.shape == want.shape and np.array_equal(z, want, equal_nan=True),
                "%s: heights differ from the file's values times %g (NaN at the mask)" % (what, FACTOR[uz]))
        c.check(dx == xreal * FACTOR[uxy] / nx and dy == yreal * FACTOR[uxy] / ny,
                "%s: spacing %.17g %.17g" % (what, dx, dy))
    obj = GwyContainer()
    obj["/0/data"] = GwyDataField(np.zeros((3, 3)), xreal=1.0, yreal=1.0)
    path = os.path.join(tmp, "nounits.gwy")
    obj.tofile(path)
    got, err = sio.c_read(binary, path, tmp)
    c.check(got is None and "not a length unit" in err, "no units: read %r, message %r" % (got is not None, err))
    for n in os.listdir(tmp):
        os.unlink(os.path.join(tmp, n))
    os.rmdir(tmp)
    c.finish()


if __name__ == "__main__":
    main()
