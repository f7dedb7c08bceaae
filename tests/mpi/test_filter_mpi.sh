#!/bin/sh
# lwt filter --mpi on 1-3 ranks against lwt filter on one process: the band files hold the bits
# of lwt filter's band X3P files and report.json the same ISO 25178-2 values, for any rank count
# (float64 and a float32 input levelled with --plane, odd sizes); what --mpi does not take
# (invalid points, --form other than the plane, --filter gaussian, a 3-D array) is refused on
# every rank with one message and no output.
# Usage: test_filter_mpi.sh LWT MPIEXEC [MPIEXEC FLAGS...]; skips (77) without python3 + numpy.
set -u
. "$(dirname "$0")/cli_setup.sh"
python3 - <<'PY' || exit 1
import numpy as np
rng = np.random.default_rng(11)
y, x = np.mgrid[0:203, 0:257]
z = 0.5 * np.sin(2 * np.pi * x / 40) + 0.3 * np.cos(2 * np.pi * y / 23) + 0.05 * rng.standard_normal(x.shape) + 0.1 * x / 257
np.save("s.npy", z)
np.save("f.npy", z[:131, :150].astype(np.float32))
b = z.copy(); b[100, 9] = np.nan; np.save("nan.npy", b)
np.save("v.npy", np.zeros((40, 40, 40)))
PY
opts="--spacing 0.8,1.1 --z-unit um --levels 4 --no-png --no-material"
check "s: one process" "$lwt" filter s.npy -o one $opts -w db3
check "f: one process" "$lwt" filter f.npy -o one $opts -w cdf97 --roughness-levels 1-2 --plane
for np in 1 2 3; do
  check "s on $np ranks" $run -np $np "$lwt" filter --mpi s.npy -o m$np $opts -w db3
  check "f on $np ranks" $run -np $np "$lwt" filter --mpi f.npy -o m$np $opts -w cdf97 --roughness-levels 1-2 --plane
done
python3 - <<'PY' || fail=1
import json, sys, zipfile
import numpy as np
bad = 0
for name in ("s", "f"):
    one = json.load(open(f"one/{name}/report.json"))
    for np_ in (1, 2, 3):
        rep = json.load(open(f"m{np_}/{name}/report.json"))
        for key in ("points", "spacing_um", "bands", "cutoffs_um", "wavelet_pywt", "levels", "plane"):
            if rep.get(key) != one.get(key):
                print(f"FAIL: {name} on {np_} ranks: report {key} {rep.get(key)!r}, one process {one.get(key)!r}"); bad += 1
        if rep["plane"] != one["plane"]:
            print(f"FAIL: {name} on {np_} ranks: plane {rep['plane']}, one process {one['plane']}"); bad += 1
        for surf, p in rep["parameters"].items():
            q = one["parameters"][surf]
            for k, v in p.items():
                if q[k] != v:
                    print(f"FAIL: {name} on {np_} ranks: {surf} {k} {v!r}, one process {q[k]!r}"); bad += 1
        for band in ("form", "waviness", "roughness"):
            m = np.load(f"m{np_}/{name}/{band}.npy")
            z = zipfile.ZipFile(f"one/{name}/{band}.x3p")
            d = np.frombuffer(z.read("bindata/data.bin"), dtype="<f8").reshape(m.shape)
            if not np.array_equal(d, m):
                print(f"FAIL: {name} on {np_} ranks: {band}.npy differs from lwt filter's {band}.x3p "
                      f"(max {np.abs(d - m).max():.3g})"); bad += 1
sys.exit(1 if bad else 0)
PY
# refused on every rank, one message, status 1 (invalid points) or 2 (options), nothing left
refuse() { # what, expected status, then the arguments
  what=$1 want=$2; shift 2
  $run -np 2 "$lwt" filter --mpi "$@" -o refused $opts > out.txt 2>&1
  st=$?
  [ "$st" = "$want" ] || { echo "FAIL: $what: exit status $st, not $want"; cat out.txt; fail=1; }
  [ "$(grep -c 'lwt filter --mpi' out.txt)" = 1 ] || { echo "FAIL: $what: not one message"; cat out.txt; fail=1; }
  [ ! -e refused ] || [ -z "$(ls -A refused)" ] || { echo "FAIL: $what left $(ls -A refused)"; fail=1; }
}
refuse "invalid points" 1 nan.npy
refuse "--form sphere" 2 --form sphere s.npy
refuse "--filter gaussian" 2 --filter gaussian s.npy
refuse "a 3-D array" 1 v.npy
exit $fail
