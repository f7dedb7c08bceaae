#!/usr/bin/env bash
# Runs on the GPU machine: build for the GPUs present, the streamed GPU suite (GPU workers == CPU
# in memory, bit for bit), the device-resident spread suite (test_gpu_spread: == one GPU, bit for
# bit), compute-sanitizer on their quick sets (SKIP_SANITIZER=1 leaves them out) and test_gpu
# --small, then the streaming benchmark (lwt-bench --stream [args]; with several GPUs it ends
# with the spread's rows). Exits 1, naming each failed step, when a build, test or sanitizer run
# fails (scripts/gpu-lib.sh).
# Usage: scripts/gpu-stream-check.sh [bench args...]; logs go to $OUT (default /tmp/lwt-gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/lwt-gpu}
mkdir -p "$out"
# shellcheck source=scripts/gpu-lib.sh
. scripts/gpu-lib.sh

gpu_detect
gpu_build build-gpu test_gpu_stream test_gpu_spread test_gpu lwt_bench
gpu_tail=25 gpu_step test_gpu_stream ./build-gpu/tests/test_gpu_stream
gpu_tail=25 gpu_step test_gpu_spread ./build-gpu/tests/test_gpu_spread
if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
    gpu_sanitize memcheck_spread memcheck ./build-gpu/tests/test_gpu_spread --quick
    gpu_sanitize memcheck_stream memcheck ./build-gpu/tests/test_gpu_stream --quick
    gpu_sanitize racecheck_stream racecheck ./build-gpu/tests/test_gpu_stream --quick
    gpu_step test_gpu_small ./build-gpu/tests/test_gpu --small
fi
gpu_tail=200 gpu_step bench_stream ./build-gpu/lwt-bench --stream "$@"
gpu_finish
