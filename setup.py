"""setup.py: the build step of `pip install .` (pyproject.toml): CMake builds libfilterview, and
the shared library goes into the package beside the module, with a _libpath.py that finds it
there; the module's files are python/filterview/*.py.

The CMake build tree is build-python/ (configured once, then rebuilt incrementally), or the one
FILTERVIEW_BUILD_DIR names (an existing build, e.g. the README's build/: only its library target
is brought up to date). CMAKE_ARGS adds options to a new configure (-DCMAKE_CUDA_ARCHITECTURES=90).
A fresh build tree is configured with the install run path, so the library finds the CUDA
toolkit's libraries as an installed one does.
"""

import os
import re
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def _version():
    """The project's version, written once: the three FILTERVIEW_VERSION_* lines of the header."""
    with open(os.path.join(ROOT, "include", "libfilterview.h"), encoding="utf-8") as f:
        text = f.read()
    return ".".join(re.search(r"^#define FILTERVIEW_VERSION_%s +([0-9]+)$" % part, text,
                              re.M).group(1) for part in ("MAJOR", "MINOR", "PATCH"))


SONAME = "libfilterview.so.%s" % _version().split(".")[0]
BUILD_DIR = os.path.abspath(os.environ.get("FILTERVIEW_BUILD_DIR")
                            or os.path.join(ROOT, "build-python"))

os.makedirs(BUILD_DIR, exist_ok=True)  # egg_info writes its metadata there

LIBPATH = '''\
# written by setup.py: the libfilterview installed inside this package
import os

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "%s")
''' % SONAME


def _run(cmd):
    print(" ".join(shlex.quote(c) for c in cmd), flush=True)
    subprocess.check_call(cmd)


class build_py_with_cmake(build_py):
    """The module's files, then libfilterview built by CMake and copied in beside them."""

    def run(self):
        super().run()
        cmake = shutil.which("cmake")
        if cmake is None:
            raise SystemExit("filterview: building needs cmake (Debian: sudo apt install cmake; "
                             "the other build needs: sh .ci/install-deps.sh)")
        if not os.path.exists(os.path.join(BUILD_DIR, "CMakeCache.txt")):
            _run([cmake, "-S", ROOT, "-B", BUILD_DIR, "-DCMAKE_BUILD_TYPE=Release",
                  "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON"]
                 + shlex.split(os.environ.get("CMAKE_ARGS", "")))
        _run([cmake, "--build", BUILD_DIR, "--target", "filterview_shared", "--parallel",
              str(os.cpu_count() or 1)])
        built = os.path.realpath(os.path.join(BUILD_DIR, SONAME))
        if not os.path.isfile(built):
            raise SystemExit("filterview: the CMake build in %s made no %s" % (BUILD_DIR, SONAME))
        package = os.path.join(self.build_lib, "filterview")
        self.mkpath(package)
        shutil.copyfile(built, os.path.join(package, SONAME))
        os.chmod(os.path.join(package, SONAME), 0o755)
        with open(os.path.join(package, "_libpath.py"), "w", encoding="utf-8") as f:
            f.write(LIBPATH)


class BinaryDistribution(Distribution):
    """A wheel for this platform: the package holds a compiled library."""

    def has_ext_modules(self):
        return True


setup(
    version=_version(),
    package_dir={"": "python"},
    packages=["filterview"],
    cmdclass={"build_py": build_py_with_cmake},
    distclass=BinaryDistribution,
    options={"build": {"build_base": os.path.join(BUILD_DIR, "setuptools")},
             "egg_info": {"egg_base": BUILD_DIR}},
    zip_safe=False,
)
