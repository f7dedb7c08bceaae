#!/usr/bin/env bash
# The README's main job. For now: a forward/inverse round trip on a generated
# 2-D array, on the best backend present.
set -euo pipefail
lwt=${1:-build/lwt}
"$lwt" demo --size 2048 -w cdf97 -l 4 -m symmetric
