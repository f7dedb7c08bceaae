#!/usr/bin/env bash
# Runs on the GPU machine: build for the GPUs present (their compute capabilities, from
# nvidia-smi), every GPU test (test_gpu: GPU == CPU transforms, in full; test_gpu_stream,
# test_gpu_spread: their quick sets; test_gpu_filter), compute-sanitizer memcheck and racecheck
# on test_gpu --small, then the benchmark. Exits 1, naming each failed step, when the build, a
# test (a skip included) or a sanitizer run fails; at once, with a message, where there is no
# GPU. The streamed engine's full suites: scripts/gpu-stream-check.sh.
# Usage: scripts/gpu-check.sh [lwt-bench args...]; logs go to $OUT (default /tmp/lwt-gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/lwt-gpu}
mkdir -p "$out"
# shellcheck source=scripts/gpu-lib.sh
. scripts/gpu-lib.sh

gpu_detect
gpu_build build-gpu test_gpu test_gpu_stream test_gpu_spread test_gpu_filter lwt_bench
gpu_step test_gpu ./build-gpu/tests/test_gpu
gpu_step test_gpu_stream ./build-gpu/tests/test_gpu_stream --quick
gpu_step test_gpu_spread ./build-gpu/tests/test_gpu_spread --quick
gpu_step test_gpu_filter ./build-gpu/tests/test_gpu_filter --no-time
gpu_sanitize memcheck memcheck ./build-gpu/tests/test_gpu --small
gpu_sanitize racecheck racecheck ./build-gpu/tests/test_gpu --small
gpu_tail=200 gpu_step bench ./build-gpu/lwt-bench "$@"
gpu_finish
