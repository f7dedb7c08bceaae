#!/bin/sh
# liblwt.so exports the public API and nothing else.
# Usage: check_exports.sh LIBLWT_SO INCLUDE_DIR CUDA(ON|OFF) [NM]
#   - every defined dynamic symbol is a function declared in INCLUDE_DIR/*.h
#     (linker-made symbols such as _init/_end aside);
#   - every function declared there is exported (lwt_cuda.h only when CUDA is ON);
#   - every declaration there is marked LWT_API.
set -eu
lib=$1 inc=$2 cuda=$3 nm=${4:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Declarations: the lines of the headers that start with a letter (not typedef,
# not extern "C") and name lwt_something( ; comments start with / or space.
for h in "$inc"/*.h; do
  grep -E '^[A-Za-z]' "$h" | grep -vE '^(typedef|extern)' | grep -E '\blwt_[a-z0-9_]+[[:space:]]*\(' \
    > "$tmp/decl_lines" || true
  if grep -v '^LWT_API ' "$tmp/decl_lines" > "$tmp/bad"; then
    echo "FAIL: declarations without LWT_API in $h:" >&2; cat "$tmp/bad" >&2; fail=1
  fi
  grep -oE '\blwt_[a-z0-9_]+[[:space:]]*\(' "$tmp/decl_lines" | tr -d ' (' > "$tmp/names" || true
  cat "$tmp/names" >> "$tmp/declared"
  if [ "$(basename "$h")" != lwt_cuda.h ] || [ "$cuda" = ON ]; then cat "$tmp/names" >> "$tmp/must"; fi
done
sort -u -o "$tmp/declared" "$tmp/declared"
sort -u -o "$tmp/must" "$tmp/must"
[ -s "$tmp/must" ] || { echo "FAIL: no declarations found in $inc/*.h" >&2; exit 1; }

# Exported: defined dynamic symbols (not absolute 'A' ones, such as version nodes).
"$nm" -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sed 's/@.*//' | sort -u > "$tmp/exported"
[ -s "$tmp/exported" ] || { echo "FAIL: $nm -D shows no symbols in $lib" >&2; exit 1; }
grep -vxE '_init|_fini|_edata|_end|__bss_start|__bss_start__|__bss_end__|_bss_end__|__end__' \
  "$tmp/exported" > "$tmp/exported_api" || true

extra=$(comm -23 "$tmp/exported_api" "$tmp/declared")
if [ -n "$extra" ]; then
  echo "FAIL: $lib exports symbols that no public header declares:" >&2; echo "$extra" | sed 's/^/  /' >&2; fail=1
fi
for s in engine_next recipe_build stream_now lwt_sched_create lwt_log lwt_table_wavelets; do
  if grep -qx "$s" "$tmp/exported"; then echo "FAIL: internal symbol $s is exported" >&2; fail=1; fi
done
missing=$(comm -13 "$tmp/exported" "$tmp/must")
if [ -n "$missing" ]; then
  echo "FAIL: declared in $inc but not exported by $lib:" >&2; echo "$missing" | sed 's/^/  /' >&2; fail=1
fi
[ $fail -eq 0 ] && echo "ok: $lib exports exactly the $(wc -l < "$tmp/must") public functions"
exit $fail
