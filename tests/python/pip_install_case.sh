#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/python/pip_install_case.sh PYTHON SOURCE_DIR BUILD_DIR WORKDIR: `pip install .` as a Dask
# worker's machine does it. A virtual environment that sees Debian's packages (numpy, dask),
# `pip install --no-build-isolation --no-index` of the checkout (setup.py reuses BUILD_DIR's CMake
# tree, so only its library target is checked for being up to date), then, from another folder
# and without PYTHONPATH: the module loads the library inside the installed package, filters, and
# filterview.dask imports. Nothing may be written into the source tree. Exit 77 where Python has
# no venv, pip, setuptools or wheel.
# -------------------------------------------------------------------------------------------------
set -u
python=$1 src=$2 build=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
"$python" -c "import venv, ensurepip" 2>/dev/null || skip "$python has no venv (Debian: python3-venv)"
"$python" -c "import setuptools, wheel" 2>/dev/null ||
    skip "$python has no setuptools and wheel (Debian: python3-setuptools python3-wheel)"
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
before=$(ls -a "$src" "$src/python" "$src/python/filterview")
"$python" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1 ||
    { cat "$work/venv.log"; fail "python -m venv failed"; }
venv_py=$work/venv/bin/python
# what the install needs must be the system's packages, which the environment sees (not modules
# reached through PYTHONPATH or a user's site folder, which it does not)
missing=$(env -u PYTHONPATH "$venv_py" -c "
import importlib.util
print(' '.join(m for m in ('numpy', 'setuptools', 'wheel') if importlib.util.find_spec(m) is None))")
[ -z "$missing" ] || skip "a virtual environment of $python does not see $missing among the system's packages"
(cd "$work" && env -u PYTHONPATH FILTERVIEW_BUILD_DIR="$build" \
    "$venv_py" -m pip install --no-build-isolation --no-index "$src") >"$work/pip.log" 2>&1 ||
    { cat "$work/pip.log"; fail "pip install failed"; }
grep "Successfully installed filterview" "$work/pip.log" || fail "pip did not say it installed filterview"
[ "$before" = "$(ls -a "$src" "$src/python" "$src/python/filterview")" ] || fail "pip install wrote into the source tree"

cd "$work" && env -u PYTHONPATH -u FILTERVIEW_LIBRARY "$venv_py" - <<'PY' || fail "the installed module"
import os
import sys

import numpy as np

import filterview

package = os.path.dirname(os.path.abspath(filterview.__file__))
assert package.startswith(sys.prefix), (package, sys.prefix)
assert filterview.__library__ == os.path.join(package, "libfilterview.so.0"), filterview.__library__
img = np.arange(35, dtype=np.uint8).reshape(5, 7)
out = filterview.median(img, size=3, variant="cpu")
assert out.shape == img.shape and out[2, 3] == img[2, 3], out
print("module %s loads %s; median filters" % (package, filterview.__library__))
try:
    import dask  # noqa: F401
except ImportError:
    print("no dask: filterview.dask not imported")
else:
    import dask.array as da
    import filterview.dask

    x = da.from_array(img, chunks=2)
    assert (filterview.dask.median(x, size=3, variant="cpu").compute() == out).all()
    print("filterview.dask runs")
PY
