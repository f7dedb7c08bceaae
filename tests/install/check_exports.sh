#!/bin/sh
# A shared library of lwt exports its public API and nothing else.
# Usage: check_exports.sh LIB CUDA(ON|OFF) NM [--private PRIVATE_H] HEADER...
#   liblwt.so:          the core headers (include/*.h but lwt_surface.h) and, with --private,
#                       src/private/private_api.h (what liblwt lends liblwt_surface);
#   liblwt_surface.so:  include/lwt_surface.h.
# Checks:
#   - every defined dynamic symbol is a function declared in the HEADERs (or, marked
#     LWT_PRIVATE_API, in PRIVATE_H), linker-made symbols such as _init/_end aside;
#   - every function declared there is exported (lwt_cuda.h only when CUDA is ON);
#   - every declaration in a HEADER is marked LWT_API, every one in PRIVATE_H LWT_PRIVATE_API;
#   - a list of known internal functions is not exported.
set -eu
lib=$1 cuda=$2 nm=$3
shift 3
private=
if [ "${1:-}" = --private ]; then private=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 LIB CUDA NM [--private PRIVATE_H] HEADER..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
: > "$tmp/declared"
: > "$tmp/must"

# Declarations: the lines of a header that start with a letter (not typedef, not
# extern "C") and name lwt_something( ; comments start with / or space.
# declarations HEADER MARK: checks the mark, adds the names to declared (and must).
declarations() {
  grep -E '^[A-Za-z]' "$1" | grep -vE '^(typedef|extern)' | grep -E '\blwt_[a-z0-9_]+[[:space:]]*\(' \
    > "$tmp/decl_lines" || true
  if grep -v "^$2 " "$tmp/decl_lines" > "$tmp/bad"; then
    echo "FAIL: declarations without $2 in $1:" >&2; cat "$tmp/bad" >&2; fail=1
  fi
  grep -oE '\blwt_[a-z0-9_]+[[:space:]]*\(' "$tmp/decl_lines" | tr -d ' (' > "$tmp/names" || true
  cat "$tmp/names" >> "$tmp/declared"
  if [ "$(basename "$1")" != lwt_cuda.h ] || [ "$cuda" = ON ]; then cat "$tmp/names" >> "$tmp/must"; fi
}
for h in "$@"; do declarations "$h" LWT_API; done
[ -s "$tmp/must" ] || { echo "FAIL: no declarations found in $*" >&2; exit 1; }
npublic=$(sort -u "$tmp/must" | wc -l)
if [ -n "$private" ]; then
  declarations "$private" LWT_PRIVATE_API
  if grep -vE '^lwt__' "$tmp/names" > "$tmp/bad"; then  # private names say so
    echo "FAIL: private functions not named lwt__*: $(tr '\n' ' ' < "$tmp/bad")" >&2; fail=1
  fi
fi
sort -u -o "$tmp/declared" "$tmp/declared"
sort -u -o "$tmp/must" "$tmp/must"

# Exported: defined dynamic symbols (not absolute 'A' ones, such as version nodes).
"$nm" -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" { print $3 }' | sed 's/@.*//' | sort -u > "$tmp/exported"
[ -s "$tmp/exported" ] || { echo "FAIL: $nm -D shows no symbols in $lib" >&2; exit 1; }
grep -vxE '_init|_fini|_edata|_end|__bss_start|__bss_start__|__bss_end__|_bss_end__|__end__' \
  "$tmp/exported" > "$tmp/exported_api" || true

extra=$(comm -23 "$tmp/exported_api" "$tmp/declared")
if [ -n "$extra" ]; then
  echo "FAIL: $lib exports symbols that no public header declares:" >&2; echo "$extra" | sed 's/^/  /' >&2; fail=1
fi
for s in engine_next recipe_build stream_now lwt_sched_create lwt_log lwt_fail lwt_table_wavelets \
         stream_split_create lwt__surface_fail lwt__file_fail lwt__read_whole_file lwt_fill_invalid \
         lwt_synth_generate lwt_split_keep npy_read lwt_png_write_maps; do
  if grep -qx "$s" "$tmp/exported"; then echo "FAIL: internal symbol $s is exported" >&2; fail=1; fi
done
missing=$(comm -13 "$tmp/exported" "$tmp/must")
if [ -n "$missing" ]; then
  echo "FAIL: declared but not exported by $lib:" >&2; echo "$missing" | sed 's/^/  /' >&2; fail=1
fi
[ $fail -eq 0 ] && echo "ok: $lib exports exactly the $npublic public functions of $*${private:+ and the $(($(wc -l < "$tmp/must") - npublic)) private ones of $private}"
exit $fail
