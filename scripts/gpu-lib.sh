# gpu-lib.sh - what scripts/gpu-check.sh and scripts/gpu-stream-check.sh share (sourced, not run):
# find the GPUs and their compute capabilities, configure and build for exactly those, run each
# step with its log in $out, and end with a non-zero exit naming every step that failed. A GPU
# test that skips (exit 77: it found no device) counts as failed: these scripts exist to run them.
# Needs: set -euo pipefail in the caller, and $out (the log folder) set.
# shellcheck shell=bash
: "${out:?gpu-lib.sh: set out (the log folder) before sourcing}"

gpu_fail() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

# Sets gpu_archs to the CMake list of the compute capabilities present ("9.0" -> 90; one entry
# per distinct capability), and writes the GPU list to $out/gpu.txt.
gpu_detect() {
    command -v nvidia-smi >/dev/null 2>&1 ||
        gpu_fail "nvidia-smi not found: this script needs an NVIDIA GPU and its driver (CPU tests: make test)"
    local caps
    caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>&1) ||
        gpu_fail "nvidia-smi finds no usable GPU: $caps"
    gpu_archs=$(printf '%s\n' "$caps" | tr -d ' .' | sort -u | paste -sd ';' -)
    [[ $gpu_archs =~ ^[0-9]+(\;[0-9]+)*$ ]] ||
        gpu_fail "cannot read the compute capability from nvidia-smi: '$caps'"
    command -v compute-sanitizer >/dev/null 2>&1 ||
        gpu_fail "compute-sanitizer not found (it comes with the CUDA toolkit; put its bin/ on PATH)"
    nvidia-smi --query-gpu=name,compute_cap,memory.total,pcie.link.gen.current,pcie.link.width.current \
        --format=csv | tee "$out/gpu.txt"
    echo "CUDA architectures: $gpu_archs"
}

# gpu_build BUILD_DIR TARGET...: configure for $gpu_archs with the CUDA backend (refusing a build
# that would quietly leave it out), then build the targets.
gpu_build() {
    local dir=$1
    shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$gpu_archs" \
        >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; gpu_fail "cmake failed (log: $out/cmake.log)"; }
    grep -q "lwt: CUDA backend ON" "$out/cmake.log" ||
        gpu_fail "CMake did not enable the CUDA backend (nvcc not found?); see $out/cmake.log"
    cmake --build "$dir" -j "$(nproc)" --target "$@" >"$out/build.log" 2>&1 ||
        { grep -E "error" "$out/build.log" | head -30; gpu_fail "build of $* failed (log: $out/build.log)"; }
}

gpu_failed=()

# gpu_step NAME COMMAND...: run it with its output in $out/NAME.log, show the last $gpu_tail lines
# (default 12) of the log, and remember a failure (any non-zero exit, 77 included) for gpu_finish.
gpu_step() {
    local name=$1 rc=0
    shift
    echo "== $name: $*"
    "$@" >"$out/$name.log" 2>&1 || rc=$?
    tail -n "${gpu_tail:-12}" "$out/$name.log"
    if [ "$rc" -eq 77 ]; then
        gpu_failed+=("$name (skipped: no device found)")
    elif [ "$rc" -ne 0 ]; then
        gpu_failed+=("$name (exit $rc)")
    fi
}

# compute-sanitizer with an exit status of its own when it finds an error (the test's own
# failures still come back as the test's status)
gpu_sanitize() {
    local name=$1 tool=$2
    shift 2
    gpu_step "$name" compute-sanitizer --tool "$tool" --error-exitcode 1 "$@"
}

gpu_finish() {
    if [ "${#gpu_failed[@]}" -gt 0 ]; then
        echo "FAILED (logs in $out):" >&2
        printf '  %s\n' "${gpu_failed[@]}" >&2
        exit 1
    fi
    echo "all steps passed (logs in $out)"
}
