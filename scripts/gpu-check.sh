#!/usr/bin/env bash
# Runs on the GPU machine: build for the GPU present, GPU == CPU suite,
# compute-sanitizer (memcheck, racecheck) on a small set, then the benchmark.
# Usage: scripts/gpu-check.sh [bench args...]; logs go to $OUT when set.
set -uo pipefail
out=${OUT:-/tmp/lwt-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j 16 --target test_gpu lwt_bench > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "== test_gpu (full)"
./build-gpu/tests/test_gpu 2>&1 | tail -25 | tee "$out/test_gpu.log"
echo "== compute-sanitizer memcheck"
compute-sanitizer --tool memcheck --error-exitcode 3 ./build-gpu/tests/test_gpu --small 2>&1 | tail -4 | tee "$out/memcheck.log"
echo "== compute-sanitizer racecheck"
compute-sanitizer --tool racecheck --error-exitcode 3 ./build-gpu/tests/test_gpu --small 2>&1 | tail -4 | tee "$out/racecheck.log"
echo "== bench"
./build-gpu/lwt-bench "$@" 2>&1 | tee "$out/bench.log"
