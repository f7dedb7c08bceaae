#!/usr/bin/env bash
# Fuzz lwt's file readers for longer than CI does (make test-fuzz: 10 s per harness).
#   scripts/fuzz.sh [SECONDS [HARNESS...]]    default 600 s each, every harness of tests/fuzz
#   JOBS=N    harnesses fuzzed side by side (default: the number of cores)
#   BUILD=B   build folder prefix, as for make (default build; the fuzz build is B-fuzz)
# Each harness starts from its seed corpus (tests/fuzz/corpus/NAME) plus what earlier runs
# found (B-fuzz/fuzz/NAME, kept between runs); libFuzzer's output goes to B-fuzz/fuzz/NAME.log,
# a crash, leak or timeout to B-fuzz/fuzz/NAME-crash-* (-leak-*, -timeout-*): replay one with
# B-fuzz/fuzz/fuzz_NAME FILE (LWT_FUZZ_VERBOSE=1 prints the reader's messages).
# Exit status 0 when every harness ran clean, 1 otherwise. docs/FORMATS.md (Reliability) keeps
# the record of how long they have run clean.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
[ $# -gt 0 ] && shift
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(x3p_raw x3p_xml x3p_bin sdf sur plu npy mapped surface sur_z al3d vk4 plux)
build=${BUILD:-build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
make -C "$root" --no-print-directory fuzz-build BUILD="$build"
dir="$root/$build-fuzz/fuzz"

run_one() {
  local n=$1
  mkdir -p "$dir/$n"
  if "$dir/fuzz_$n" -max_total_time="$secs" -rss_limit_mb=1024 -timeout=20 -artifact_prefix="$dir/$n-" \
      "$dir/$n" "$root/tests/fuzz/corpus/$n" >"$dir/$n.log" 2>&1; then
    echo "fuzz_$n: clean, $(grep -o "Done [0-9]* runs" "$dir/$n.log" | tail -1 | cut -d" " -f2) runs in $secs s"
  else
    echo "fuzz_$n: FAILED, see $dir/$n.log and $dir/$n-*"
    return 1
  fi
}

status=0
pids=()
for n in "${names[@]}"; do
  [ -x "$dir/fuzz_$n" ] || { echo "fuzz.sh: no harness $n" >&2; exit 2; }
  run_one "$n" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
exit $status
