"""lwt.surface form models: form_fit / remove_form / filter(form=...) against closed forms (a
sphere cap and a cubic written here from their formulas), against each other (the filter's
bands add up to remove_form's residual; filter(plane=True) is form "plane"), and bad input.
Seed: printed; LWT_SEED reuses one."""
import numpy as np

import harness

try:
    import lwt.surface as ls
except ImportError as e:
    harness.skip("the lwt package is not importable (%s)" % e)

chk = harness.Checker("test_pkg_form")
rng = np.random.default_rng(harness.seed())
dx, dy = 2e-6, 3e-6
x, y = np.meshgrid(np.arange(128) * dx, np.arange(96) * dy)


def closed_forms():
    R = 4e-3
    cap = -R + 1e-6 + np.sqrt(R * R - (x - 0.1e-3) ** 2 - (y - 0.15e-3) ** 2)
    cap[rng.random(cap.shape) < 0.03] = np.nan
    d = ls.form_fit(cap, dx, dy, "sphere")
    chk.check(d["model"] == "sphere" and abs(d["radius"] / R - 1) < 1e-9 and d["rms"] < 1e-13 and d["convex"],
              "sphere cap: %r" % d)
    u, v = x / 1e-4, y / 1e-4
    cubic = 1e-6 * (1 + u * u * v - 2 * v ** 3 + 0.5 * u)
    lev, d = ls.remove_form(cubic, dx, dy, "poly:3")
    chk.check(d["degree"] == 3 and len(d["coefficients"]) == 10 and np.nanmax(np.abs(lev)) < 1e-12 * 1e-6 * 50,
              "cubic: residual %g, %r" % (np.nanmax(np.abs(lev)), d))


def with_filter():
    z = 1e-6 * np.sin(x / 4e-5) + 0.1e-6 * rng.standard_normal(x.shape) + 2e-6 * (x / 1e-4) ** 2
    for form in ("poly:2", "cylinder-y", "plane"):
        r = ls.filter(z, dx, dy, levels=4, form=form, backend="cpu")
        lev, d = ls.remove_form(z, dx, dy, form)
        if form == "plane":  # the filter keeps lwt_plane_fit for the plane: the same to rounding
            same = np.allclose(r.form["coefficients"], d["coefficients"], rtol=1e-9, atol=1e-9 * abs(z).max())
        else:  # the filter calls lwt_form_fit: the same bits
            same = r.form == d
        chk.check(same, "%s: filter's model %r, form_fit's %r" % (form, r.form, d))
        total = sum(r.bands.values())
        err = np.max(np.abs(total - lev))
        # perfect reconstruction to rounding (docs/SURFACE.md: about 1e-13 of the heights)
        chk.check(err < 1e-13 * np.max(np.abs(z)), "%s: bands add up to the residual within %g" % (form, err))
    r1 = ls.filter(z, dx, dy, levels=4, plane=True, backend="cpu")
    r2 = ls.filter(z, dx, dy, levels=4, form="poly:1", backend="cpu")
    chk.check(r1.form == r2.form and r1.plane == r2.plane and all(np.array_equal(r1[b], r2[b]) for b in r1.bands),
              "plane=True and form='poly:1' differ")
    chk.check(ls.filter(z, dx, dy, levels=4, backend="cpu").form is None, "no form: form is not None")


def bad_input():
    z = np.full((40, 40), 1e-6)
    for call, exc, words in ((lambda: ls.form_fit(z, dx, dy, "poly:7"), ValueError, "poly:N"),
                             (lambda: ls.form_fit(z, dx, dy, 3), TypeError, "form must be a str"),
                             (lambda: ls.form_fit(z, dx, dy, "sphere"), ValueError, "do not determine"),
                             (lambda: ls.filter(z, dx, dy, levels=3, plane=True, form="sphere"), ValueError,
                              "give one")):
        try:
            call()
            chk.fail("%s: no exception" % words)
        except exc as e:
            chk.check(words in str(e), "%r lacks %r" % (str(e), words))


chk.run("closed forms", closed_forms)
chk.run("filter", with_filter)
chk.run("bad input", bad_input)
chk.finish()
