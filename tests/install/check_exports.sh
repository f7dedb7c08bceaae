#!/bin/sh
# A shared library of lwt exports its public API and nothing else.
# Usage: check_exports.sh LIB CUDA(ON|OFF) NM MARK HEADER...
#   liblwt.so:          MARK LWT_API, the headers of include/ (lwt_surface.h's band split,
#                       filter and ISO parameters are liblwt's);
#   liblwt_surface.so:  MARK LWT_IO_API, include/lwt_surface.h (its file readers and writers).
# Checks:
#   - every declaration in the HEADERs is marked LWT_API or LWT_IO_API;
#   - every defined dynamic symbol of LIB is a function declared with MARK in the HEADERs
#     (linker-made symbols such as _init/_end aside);
#   - every function declared with MARK is exported (lwt_cuda.h's only when CUDA is ON);
#   - a list of known internal functions is not exported.
set -eu
lib=$1 cuda=$2 nm=$3 mark=$4
shift 4
[ $# -gt 0 ] || { echo "usage: $0 LIB CUDA NM MARK HEADER..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
: > "$tmp/declared"
: > "$tmp/must"

# Declarations: the lines of a header that start with a letter (not typedef, not
# extern "C") and name lwt_something( ; comments start with / or space.
for h in "$@"; do
  grep -E '^[A-Za-z]' "$h" | grep -vE '^(typedef|extern)' | grep -E '\blwt_[a-z0-9_]+[[:space:]]*\(' \
    > "$tmp/decl_lines" || true
  if grep -vE '^(LWT_API|LWT_IO_API) ' "$tmp/decl_lines" > "$tmp/bad"; then
    echo "FAIL: declarations without LWT_API or LWT_IO_API in $h:" >&2; cat "$tmp/bad" >&2; fail=1
  fi
  { grep "^$mark " "$tmp/decl_lines" || true; } | grep -oE '\blwt_[a-z0-9_]+[[:space:]]*\(' | tr -d ' (' \
    > "$tmp/names" || true
  cat "$tmp/names" >> "$tmp/declared"
  if [ "$(basename "$h")" != lwt_cuda.h ] || [ "$cuda" = ON ]; then cat "$tmp/names" >> "$tmp/must"; fi
done
[ -s "$tmp/must" ] || { echo "FAIL: no $mark declarations found in $*" >&2; exit 1; }
sort -u -o "$tmp/declared" "$tmp/declared"
sort -u -o "$tmp/must" "$tmp/must"

# Exported: defined dynamic symbols (not absolute 'A' ones, such as version nodes).
"$nm" -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sed 's/@.*//' | sort -u > "$tmp/exported"
[ -s "$tmp/exported" ] || { echo "FAIL: $nm -D shows no symbols in $lib" >&2; exit 1; }
grep -vxE '_init|_fini|_edata|_end|__bss_start|__bss_start__|__bss_end__|_bss_end__|__end__' \
  "$tmp/exported" > "$tmp/exported_api" || true

extra=$(comm -23 "$tmp/exported_api" "$tmp/declared")
if [ -n "$extra" ]; then
  echo "FAIL: $lib exports symbols that no public header declares with $mark:" >&2
  echo "$extra" | sed 's/^/  /' >&2; fail=1
fi
for s in engine_next recipe_build stream_now lwt_sched_create lwt_log lwt_fail lwt_table_wavelets \
         stream_split_create lwt__io_fail lwt__file_fail lwt__read_whole_file lwt_fill_invalid \
         lwt__splitter_run_io lwt_synth_generate lwt_split_keep npy_read lwt_png_write_maps; do
  if grep -qx "$s" "$tmp/exported"; then echo "FAIL: internal symbol $s is exported" >&2; fail=1; fi
done
missing=$(comm -13 "$tmp/exported" "$tmp/must")
if [ -n "$missing" ]; then
  echo "FAIL: declared but not exported by $lib:" >&2; echo "$missing" | sed 's/^/  /' >&2; fail=1
fi
[ $fail -eq 0 ] && echo "ok: $lib exports exactly the $(wc -l < "$tmp/must") functions of $* marked $mark"
exit $fail
