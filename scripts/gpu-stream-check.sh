#!/usr/bin/env bash
# Runs on the GPU machine: build for the GPU present, the streamed GPU suite
# (GPU workers == CPU in memory, bit for bit), the device-resident spread suite
# (test_gpu_spread: == one GPU, bit for bit), compute-sanitizer on their quick
# sets, then the streaming benchmark (lwt-bench --stream [args]; with several
# GPUs it ends with the spread's rows).
# Usage: scripts/gpu-stream-check.sh [bench args...]; logs go to $OUT when set.
set -uo pipefail
out=${OUT:-/tmp/lwt-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv | tee "$out/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j 16 --target test_gpu_stream test_gpu_spread test_gpu lwt_bench > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "== test_gpu_stream (full)"
./build-gpu/tests/test_gpu_stream 2>&1 | tail -25 | tee "$out/test_gpu_stream.log"
echo "== test_gpu_spread (device-resident, spread over the GPUs; one GPU plays several parts)"
./build-gpu/tests/test_gpu_spread 2>&1 | tail -25 | tee "$out/test_gpu_spread.log"
if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
  echo "== compute-sanitizer memcheck (spread, quick)"
  compute-sanitizer --tool memcheck --error-exitcode 3 ./build-gpu/tests/test_gpu_spread --quick 2>&1 | tail -4 | tee "$out/memcheck_spread.log"
  echo "== compute-sanitizer memcheck (stream, quick)"
  compute-sanitizer --tool memcheck --error-exitcode 3 ./build-gpu/tests/test_gpu_stream --quick 2>&1 | tail -4 | tee "$out/memcheck_stream.log"
  echo "== compute-sanitizer racecheck (stream, quick)"
  compute-sanitizer --tool racecheck --error-exitcode 3 ./build-gpu/tests/test_gpu_stream --quick 2>&1 | tail -4 | tee "$out/racecheck_stream.log"
  echo "== test_gpu --small (regression of the in-memory kernels)"
  ./build-gpu/tests/test_gpu --small 2>&1 | tail -3 | tee "$out/test_gpu_small.log"
fi
echo "== bench --stream"
./build-gpu/lwt-bench --stream "$@" 2>&1 | tee "$out/bench_stream.log"
