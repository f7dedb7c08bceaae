#!/usr/bin/env bash
# The README's main job: wavelet filtration of a measured engineering surface.
#
#   scripts/demo.sh [LWT] [SURFACE_FILE] [--size N] [--preview-size PX]
#   make demo [FILE=scan.x3p]
#
# Without a file it synthesizes a milled surface of N x N points (default 4096, spacing 1 um,
# known form + feed marks + grinding texture) into demo-out/. Then it splits the surface into
# form, waviness and roughness with CDF 9/7 and six levels on the best backend present (auto:
# CUDA when a GPU is there, else the CPU), prints the ISO 25178-2 parameter table and the
# times, and leaves the pictures in demo-out/<name>/ (panel.png shows all four side by side).
set -euo pipefail
lwt=${1:-build/lwt}
[ $# -gt 0 ] && shift
input="" size=4096 preview=1024
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --preview-size) preview=$2; shift 2 ;;
    *) input=$1; shift ;;
  esac
done
out=demo-out
mkdir -p "$out"
if [ -z "$input" ]; then
  input=$out/milled.x3p
  "$lwt" synth "$input" --size "$size" --preset milled --seed 1
fi
t0=$(date +%s.%N)
"$lwt" filter "$input" -o "$out" --wavelet cdf97 --levels 6 --backend auto --preview-size "$preview"
t1=$(date +%s.%N)
name=$(basename "${input%.*}")
awk -v a="$t0" -v b="$t1" -v f="$input" 'BEGIN { printf "demo: %s filtered in %.1f s wall (read, fill, forward + 3 inverse transforms, parameters, write)\n", f, b - a }'
echo "demo: pictures in $out/$name/: panel.png (input, form, waviness, roughness), input.png, form.png, waviness.png, roughness.png"
