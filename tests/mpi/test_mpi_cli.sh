#!/bin/sh
# lwt forward|inverse --mpi on 1-3 ranks writes the same bytes as lwt forward|inverse (1-D, 2-D,
# 3-D .npy, float32, float64 and float16 (16-bit storage: float32 between levels), raw float32 and float16 inputs, odd sizes, small chunks so that halos cross ranks,
# shares by measured speed);
# a rank that fails (--fail-rank) fails the job with a non-zero status and leaves no output;
# a bad input is refused on every rank; a FIFO or folder as input at once, never hanging.
# Usage: test_mpi_cli.sh LWT MPIEXEC [MPIEXEC FLAGS...]; skips (77) without python3 + numpy.
set -u
. "$(dirname "$0")/cli_setup.sh"
python3 - <<'PY' || exit 1
import numpy as np
rng = np.random.default_rng(7)
np.save("a1.npy", rng.standard_normal(4097))
np.save("a2.npy", rng.standard_normal((203, 131)).astype(np.float32))
np.save("a3.npy", rng.standard_normal((29, 17, 23)))
np.save("a4.npy", (rng.standard_normal((67, 45)) * 4).astype(np.float16))
np.load("a4.npy").tofile("a4.f16")
rng.standard_normal((77, 61)).astype(np.float32).tofile("r2.f32")
PY
same() {
  if ! cmp -s "$1" "$2"; then echo "FAIL: $3: $2 differs from $1"; fail=1; fi
}
for case in "a1 4097 db3 symmetric 4" "a2 203,131 bior4.4 periodization 3" "a3 29,17,23 sym5 reflect 2" \
            "a4 67,45 db4 smooth 2"; do
  set -- $case
  f=$1 shape=$2 w=$3 m=$4 l=$5
  check "$f forward" "$lwt" forward -w $w -m $m -l $l $f.npy $f.ref.npy
  check "$f inverse" "$lwt" inverse -w $w -m $m -l $l --shape $shape $f.ref.npy $f.back.npy
  for np in 1 2 3; do
    check "$f forward on $np ranks" $run -np $np "$lwt" forward --mpi --chunk-rows 6 -w $w -m $m -l $l $f.npy $f.m$np.npy
    same $f.ref.npy $f.m$np.npy "$f forward on $np ranks"
    check "$f inverse on $np ranks" $run -np $np "$lwt" inverse --mpi --chunk-rows 5 -w $w -m $m -l $l --shape $shape \
      $f.ref.npy $f.i$np.npy
    same $f.back.npy $f.i$np.npy "$f inverse on $np ranks"
  done
done
check "raw forward" "$lwt" forward --stream --raw f32 --shape 77,61 -w haar -m zero -l 3 r2.f32 r2.ref.npy
check "raw forward on 3 ranks" $run -np 3 "$lwt" forward --mpi --raw f32 --shape 77,61 -w haar -m zero -l 3 r2.f32 r2.m.npy
same r2.ref.npy r2.m.npy "raw forward on 3 ranks"
check "raw float16 forward on 2 ranks" $run -np 2 "$lwt" forward --mpi --raw f16 --shape 67,45 -w db4 -m smooth -l 2 \
  a4.f16 a4.r2.npy
same a4.ref.npy a4.r2.npy "raw float16 forward on 2 ranks"
# shares by measured speed: another distribution of the work, the same bytes
check "a2 forward on 3 ranks, measured" $run -np 3 "$lwt" forward --mpi --weight measure --chunk-rows 6 -w bior4.4 \
  -m periodization -l 3 a2.npy a2.w3.npy
same a2.ref.npy a2.w3.npy "a2 forward on 3 ranks, measured shares"
# --backend cuda on a rank without a GPU of its own: refused on every rank, no output
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" = 0 ]; then
  if $run -np 2 "$lwt" forward --mpi --backend cuda -w db2 a2.npy cuda.npy > out.txt 2>&1; then
    echo "FAIL: --backend cuda with no GPU: exit status 0"; fail=1
  fi
  grep -q "no GPU" out.txt || { echo "FAIL: --backend cuda with no GPU: no message"; cat out.txt; fail=1; }
  [ ! -e cuda.npy ] || { echo "FAIL: --backend cuda with no GPU left an output"; fail=1; }
fi
# non-finite input, found on whichever rank holds it: named, status 1, no output
python3 - <<'PY' || exit 1
import numpy as np
a = np.load("a2.npy"); a[150, 7] = np.nan; np.save("nan2.npy", a)
c = np.load("a2.ref.npy"); c[-1, -1] = np.inf; np.save("infc.npy", c)
PY
if $run -np 3 "$lwt" forward --mpi -w bior4.4 -m periodization -l 3 nan2.npy nan.out.npy > out.txt 2>&1; then
  echo "FAIL: a NaN input was accepted"; fail=1
fi
grep -q "element $((150 * 131 + 7)) is not finite" out.txt || { echo "FAIL: NaN input: no message naming it"; cat out.txt; fail=1; }
if $run -np 2 "$lwt" inverse --mpi -w bior4.4 -m periodization -l 3 --shape 203,131 infc.npy inf.out.npy > out.txt 2>&1; then
  echo "FAIL: an infinite coefficient was accepted"; fail=1
fi
grep -q "is not finite" out.txt || { echo "FAIL: infinite coefficient: no message"; cat out.txt; fail=1; }
[ ! -e nan.out.npy ] && [ ! -e inf.out.npy ] || { echo "FAIL: non-finite input left an output"; fail=1; }
# a failing rank: non-zero status, nothing at the output path, no temporary left
if $run -np 3 "$lwt" forward --mpi --fail-rank 1 -w db2 a2.npy failed.npy > out.txt 2>&1; then
  echo "FAIL: --fail-rank 1: exit status 0"; fail=1
fi
if ls | grep -q '^failed\.npy'; then echo "FAIL: --fail-rank 1 left: $(ls | grep '^failed\.npy')"; fail=1; fi
grep -q "failing on purpose" out.txt || { echo "FAIL: --fail-rank 1: no message"; cat out.txt; fail=1; }
# a bad input: refused on every rank with a message and status 1
printf 'not a npy file at all' > bad.npy
if $run -np 2 "$lwt" forward --mpi -w db2 bad.npy out.npy > out.txt 2>&1; then echo "FAIL: a bad .npy was accepted"; fail=1; fi
grep -q "bad.npy" out.txt || { echo "FAIL: a bad .npy: no message naming it"; cat out.txt; fail=1; }
[ ! -e out.npy ] || { echo "FAIL: a bad .npy left an output"; fail=1; }
# a FIFO or a folder as the input: refused at once, naming what it is (a FIFO must not block the
# ranks' opens: the timeout fails a regression instead of hanging)
mkfifo pipe.npy pipe.f32 && mkdir folder.npy
for case in "FIFO pipe.npy" "directory folder.npy" "FIFO --raw f32 --shape 77,61 pipe.f32"; do
  set -- $case
  kind=$1
  shift
  timeout 30 $run -np 2 "$lwt" forward --mpi -w db2 "$@" out.npy > out.txt 2>&1
  st=$?
  [ $st -ne 0 ] && [ $st -ne 124 ] || { echo "FAIL: $*: exit status $st"; fail=1; }
  grep -q "is a $kind" out.txt || { echo "FAIL: $*: no message saying it is a $kind"; cat out.txt; fail=1; }
  [ ! -e out.npy ] || { echo "FAIL: $* left an output"; fail=1; }
done
[ $fail -eq 0 ] && echo "test_mpi_cli: all checks passed"
exit $fail
