#!/bin/sh
# .ci/install-deps.sh: the Debian packages filterview builds and tests with (the CUDA toolkit is
# assumed installed, as /usr/local/cuda or on PATH, unless FV_CUDA=OFF). Safe to run again: apt-get skips what is there.
set -eu
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
PACKAGES="build-essential cmake pkg-config libstb-dev libturbojpeg0-dev libjpeg-dev libspng-dev libdeflate-dev libtiff-dev \
zlib1g-dev libglew-dev freeglut3-dev libgl-dev \
libegl-dev libx11-dev libglu1-mesa-dev libegl-mesa0 libgl1-mesa-dri xvfb xauth \
python3-numpy python3-scipy python3-opencv python3-tifffile python3-pytest valgrind"
PACKAGES="$PACKAGES python3-dask python3-distributed python3-zarr" # filterview.dask and its tests
PACKAGES="$PACKAGES python3-setuptools python3-wheel python3-venv" # pip install . (tests/python)
PACKAGES="$PACKAGES clang libclang-rt-14-dev" # .ci/run's sanitizer and libFuzzer build
PACKAGES="$PACKAGES groff-base man-db dpkg-dev" # the install test (groff, man -l); cpack -G DEB
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi
# FV_CUDA=OFF: for a build without the toolkit (cmake -DFV_CUDA=OFF, the reference variants only)
if [ "${FV_CUDA:-ON}" != OFF ] && ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: no CUDA toolkit found (nvcc): install it from NVIDIA's packages first," \
    "or build without it: FV_CUDA=OFF sh .ci/install-deps.sh, then cmake -DFV_CUDA=OFF" >&2
  exit 1
fi
