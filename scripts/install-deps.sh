#!/usr/bin/env bash
# Installs what building and testing lwt needs, on Debian, as root, without prompts.
# Does nothing for what is already there. Usage: scripts/install-deps.sh [build|test]
set -euo pipefail
what=${1:-build}
need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
have cmake || need_apt+=(cmake)
have cc || need_apt+=(build-essential)
have pkg-config || need_apt+=(pkg-config)
# fftw3: the autocorrelation of the spatial parameters and the Gaussian filter's long kernels
# (optional for the build: without it lwt_spatial_params_compute answers LWT_ERR_UNSUPPORTED and
# the Gaussian convolves directly)
# hdf5: the Zygo .datx reader (optional too: without it lwt_surface_read_datx answers "built
# without HDF5")
for pc in libzip:libzip-dev expat:libexpat1-dev libcrypto:libssl-dev libpng:libpng-dev zlib:zlib1g-dev \
          fftw3:libfftw3-dev hdf5:libhdf5-dev; do
  pkg-config --exists "${pc%%:*}" 2>/dev/null || need_apt+=("${pc#*:}")
done
if [ "$what" = test ]; then
  have python3 || need_apt+=(python3 python3-pip)
  # make test-fuzz and test-tsan: clang with its sanitizer runtimes (libFuzzer, TSan), and
  # LLVM's OpenMP runtime with Archer, its TSan tool (tests/CMakeLists.txt says why not libgomp)
  have clang || need_apt+=(clang)
  if ! have clang || ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
      clang -x c -fsanitize=fuzzer,thread -o /dev/null - >/dev/null 2>&1; then
    need_apt+=(libclang-rt-dev)
  fi
  if ! have clang || ! echo 'int main(void) { return 0; }' | clang -x c -fopenmp -o /dev/null - >/dev/null 2>&1 ||
      ! [ -e "$(clang -print-resource-dir 2>/dev/null)/../../libarcher.so" ]; then
    need_apt+=(libomp-dev)
  fi
fi
# MPI (liblwt_mpi, include/lwt_mpi.h, and its tests on several ranks): Open MPI
have mpicc || need_apt+=(libopenmpi-dev)
have mpirun || need_apt+=(openmpi-bin)
# The Python package (python/) is built where Python's headers are (LWT_BUILD_PYTHON=AUTO).
if have python3 && ! python3 -c 'import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
  need_apt+=(python3-dev)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${need_apt[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if [ "$what" = test ]; then
  # numpy + PyWavelets: the reference; scikit-build-core: the package's wheel test
  # (python/tests/wheel_smoke.sh); pytest: PyWavelets' own test files routed to lwt;
  # surfalize: the independent ISO 25178-2 parameters (python/tests/test_pkg_surfalize.py).
  if ! python3 -c "import numpy, pywt, scikit_build_core, pytest, surfalize" >/dev/null 2>&1; then
    echo "install-deps: pip install numpy PyWavelets scikit-build-core pytest surfalize" >&2
    python3 -m pip install -q numpy PyWavelets scikit-build-core pytest surfalize 2>/dev/null \
      || python3 -m pip install -q --break-system-packages numpy PyWavelets scikit-build-core pytest surfalize
  fi
  # h5py: tests/py/test_surface_datx_plux.py writes .datx files with it and reads them its own
  # way (that part is skipped without it)
  if ! python3 -c "import h5py" >/dev/null 2>&1; then
    echo "install-deps: pip install h5py" >&2
    python3 -m pip install -q h5py 2>/dev/null || python3 -m pip install -q --break-system-packages h5py
  fi
  # surfalize (SciPy comes with it): the independent references of the Gaussian filter's test
  # (tests/py/test_surface_gauss.py; its parts skip without them); gwyfile: another reading of
  # Gwyddion's .gwy format (tests/py/test_surface_gwy.py, skipped without it)
  if ! python3 -c "import surfalize, scipy, gwyfile" >/dev/null 2>&1; then
    echo "install-deps: pip install surfalize gwyfile" >&2
    python3 -m pip install -q surfalize gwyfile 2>/dev/null \
      || python3 -m pip install -q --break-system-packages surfalize gwyfile
  fi
fi
