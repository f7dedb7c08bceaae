#!/bin/sh
# The pip path of the package, once: `pip wheel` of the repository (scikit-build-core through
# the project's CMake, CPU only, in a build folder of its own), installed into a temporary
# folder, imported from there (not from the build tree) and run on one transform against
# PyWavelets. Usage: wheel_smoke.sh PYTHON SOURCE_DIR. Exit 77 (skip) without
# scikit-build-core or PyWavelets.
set -eu
py=$1
src=$2
"$py" -c "import scikit_build_core, pywt" 2>/dev/null || { echo "SKIP: scikit-build-core or PyWavelets missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CMAKE_BUILD_PARALLEL_LEVEL=2 "$py" -m pip wheel -q --no-build-isolation --no-deps -w "$tmp/wheel" \
  -C cmake.define.LWT_WITH_CUDA=OFF -C build-dir="$tmp/build" "$src"
"$py" -m pip install -q --no-deps --target "$tmp/site" "$tmp"/wheel/lwt-*.whl
cd "$tmp"
PYTHONPATH="$tmp/site" "$py" - "$tmp/site" <<'PYEOF'
import sys, numpy as np, pywt, lwt
assert lwt.__file__.startswith(sys.argv[1]), "imported %s, not the wheel's" % lwt.__file__
x = np.random.default_rng(7).standard_normal((37, 41))
got, ref = lwt.wavedec2(x, "db4", level=2), pywt.wavedec2(x, "db4", level=2)
err = np.abs(pywt.coeffs_to_array(got)[0] - pywt.coeffs_to_array(ref)[0]).max()
assert err <= 1e-12 * np.abs(x).max(), err
print("wheel %s: lwt %s from %s, wavedec2 db4 error %.3g" % (sys.argv[1], lwt.__version__, lwt.__file__, err))
# lwt.surface: the filter is lwt._core's; the files need lwt._surface_io, in the wheel where the
# build found libzip, expat, libcrypto and libpng.
import os, lwt.surface as ls
z = np.random.default_rng(8).standard_normal((40, 48)) * 1e-6
r = ls.filter(z, 1e-6, levels=3)
assert np.abs(sum(r.bands.values()) - z).max() <= 1e-12 * np.ptp(z)
if ls._surface_io is None:
    print("wheel without lwt._surface_io (%s): surface files not checked" % ls._IO_MISSING)
else:
    path = os.path.join(sys.argv[1], "smoke.x3p")
    ls.write(path, z, 1e-6)
    assert np.array_equal(ls.read(path).z, z)
    print("wheel lwt.surface: filter, X3P write and read from %s" % ls._surface_io.__file__)
PYEOF
