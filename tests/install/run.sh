#!/bin/sh
# Installs a build of liblwt into a temporary prefix and builds tests/install/consumer.c
# against it the ways a user would, then runs each program:
#   1. find_package(lwt) (tests/install/CMakeLists.txt): lwt::lwt and lwt::lwt_static;
#   2. pkg-config --cflags --libs lwt with plain cc (liblwt.so);
#   3. pkg-config --static (liblwt.a with Libs.private);
# and where the build installed liblwt_surface (it had the file-format libraries),
# tests/install/consumer_surface.c through lwt::surface, lwt::surface_static and
# pkg-config lwt-surface; otherwise it checks that the library was not installed.
# lwt_surface.h is installed either way (its band split and parameters are liblwt's).
# Usage: run.sh BUILD_DIR [C_COMPILER]. Extra flags for the consumer (the sanitizer build
# passes -fsanitize=...) come from CFLAGS. Exits 77 (skipped) when pkg-config is missing
# after step 1 passed.
set -eu
build=$(cd "$1" && pwd)
cc=${2:-cc}
here=$(cd "$(dirname "$0")" && pwd)
cmake=${CMAKE_COMMAND:-cmake}
cflags=${CFLAGS:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step() { echo "== $*"; }
step "install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; exit 1; }
# Which lib directory (lib, lib64, lib/<multiarch>): where lwt.pc went.
pc=$(find "$prefix" -name lwt.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no lwt.pc installed" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
for f in include/lwt.h include/lwt_export.h include/lwt_stream.h; do
  [ -f "$prefix/$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
for f in "$prefix"/include/*; do  # the public headers of include/ only, none of src/
  [ -f "$here/../../include/$(basename "$f")" ] || { echo "FAIL: $f installed, not in include/" >&2; exit 1; }
done
# liblwt.so -> liblwt.so.MAJOR -> liblwt.so.MAJOR.MINOR.PATCH, and liblwt.a.
real=$(readlink -f "$libdir/liblwt.so")
soname=$(readlink "$libdir/liblwt.so")
case "$soname:$real" in
  liblwt.so.[0-9]*:*/liblwt.so.[0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "FAIL: liblwt.so links: $(ls -l "$libdir"/liblwt.so*)" >&2; exit 1 ;;
esac
[ -f "$libdir/liblwt.a" ] || { echo "FAIL: liblwt.a not installed" >&2; exit 1; }
echo "ok: $(cd "$libdir" && echo liblwt.*)"
# The surface files' library: both libraries and lwt-surface.pc, or none of them.
[ -f "$prefix/include/lwt_surface.h" ] || { echo "FAIL: lwt_surface.h not installed" >&2; exit 1; }
surface=0
if [ -e "$libdir/liblwt_surface.so" ]; then
  surface=1
  real=$(readlink -f "$libdir/liblwt_surface.so")
  soname=$(readlink "$libdir/liblwt_surface.so")
  case "$soname:$real" in
    liblwt_surface.so.[0-9]*:*/liblwt_surface.so.[0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "FAIL: liblwt_surface.so links: $(ls -l "$libdir"/liblwt_surface.so*)" >&2; exit 1 ;;
  esac
  [ "${real##*/liblwt_surface}" = "$(readlink -f "$libdir/liblwt.so" | sed 's|.*/liblwt||')" ] ||
    { echo "FAIL: liblwt_surface and liblwt have different versions: $(ls "$libdir")" >&2; exit 1; }
  for f in "$libdir/liblwt_surface.a" "$libdir/pkgconfig/lwt-surface.pc"; do
    [ -f "$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
  done
  echo "ok: $(cd "$libdir" && echo liblwt_surface.*)"
else
  if ls "$libdir"/liblwt_surface* "$libdir/pkgconfig/lwt-surface.pc" > /dev/null 2>&1; then
    echo "FAIL: part of liblwt_surface installed: $(ls "$libdir")" >&2; exit 1
  fi
  echo "ok: no surface library in this build (no file-format libraries): its part is skipped"
fi

export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step "find_package(lwt) with CMAKE_PREFIX_PATH=$prefix"
if ! { CFLAGS="$cflags" "$cmake" -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
         -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release &&
       "$cmake" --build "$work/cmake"; } > "$work/cmake.log" 2>&1; then
  cat "$work/cmake.log"; echo "FAIL: consumer build through find_package(lwt)" >&2; exit 1
fi
"$work/cmake/consumer"
"$work/cmake/consumer_static"
if [ $surface = 1 ]; then
  "$work/cmake/consumer_surface"
  "$work/cmake/consumer_surface_static"
fi

if ! command -v pkg-config > /dev/null 2>&1; then
  echo "SKIP: pkg-config not found (scripts/install-deps.sh installs it); find_package part passed"
  exit 77
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
step "pkg-config: $(pkg-config --cflags --libs lwt)"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags "$here/consumer.c" -o "$work/pc_consumer" $(pkg-config --cflags --libs lwt) -lm
"$work/pc_consumer"

step "pkg-config --static: $(pkg-config --static --libs lwt)"
# -llwt finds only liblwt.a in this first -L directory.
mkdir "$work/static"
ln -s "$libdir/liblwt.a" "$work/static/liblwt.a"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags "$here/consumer.c" -o "$work/pc_consumer_static" -L"$work/static" \
  $(pkg-config --cflags --static --libs lwt) -lm
if command -v readelf > /dev/null 2>&1 && readelf -d "$work/pc_consumer_static" | grep -q 'liblwt\.so'; then
  echo "FAIL: the --static consumer still needs liblwt.so" >&2; exit 1
fi
"$work/pc_consumer_static"

if [ $surface = 1 ]; then
  step "pkg-config: $(pkg-config --cflags --libs lwt-surface)"
  # shellcheck disable=SC2046,SC2086
  "$cc" $cflags "$here/consumer_surface.c" -o "$work/pc_consumer_surface" $(pkg-config --cflags --libs lwt-surface) -lm
  if command -v readelf > /dev/null 2>&1 && ! readelf -d "$work/pc_consumer_surface" | grep -q 'liblwt_surface\.so'; then
    echo "FAIL: the pkg-config surface consumer does not use liblwt_surface.so" >&2; exit 1
  fi
  "$work/pc_consumer_surface"
fi
echo "ok: installed liblwt works through find_package and pkg-config"
