#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/library/consumer_case.sh CMAKE BUILD_DIR WORKDIR SOURCE_DIR PYTHON LIBDIR: libfilterview as another
# program uses it. `cmake --install` into a temporary prefix; then tests/library/consumer (a
# project of its own) configured with find_package(filterview), built against the shared and the
# static library, and run; the same source built with pkg-config's flags and run; and the Python
# module imported from the install; then the module installed alone and removed by
# cmake_uninstall.cmake, whole. LIBDIR: the libraries' folder under the prefix
# (CMAKE_INSTALL_LIBDIR: lib, or Debian's lib/x86_64-linux-gnu).
# -------------------------------------------------------------------------------------------------
set -u
cmake=$1 build=$2 work=$3 src=$4 python=${5:-python3} libdir=${6:-lib}
prefix=$work/prefix
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
for f in include/libfilterview.h $libdir/libfilterview.so $libdir/libfilterview.a $libdir/pkgconfig/filterview.pc \
    $libdir/cmake/filterview/filterviewConfig.cmake $libdir/cmake/filterview/filterviewConfigVersion.cmake; do
    [ -e "$prefix/$f" ] || fail "$f was not installed"
    echo "installed: $f"
done
soname=$(objdump -p "$prefix/$libdir/libfilterview.so" | awk '/SONAME/ { print $2 }')
[ "$soname" = "libfilterview.so.0" ] || fail "soname '$soname', not libfilterview.so.0"
# only the API is exported
others=$(nm -D --defined-only "$prefix/$libdir/libfilterview.so" | awk '$2 ~ /[TDBR]/ { print $3 }' |
    grep -v '^filterview_' | grep -v '^FILTERVIEW_0$' || true)
[ -z "$others" ] || fail "exports more than the API: $(echo $others | head -c 300)"
echo "soname $soname; exports: $(nm -D --defined-only "$prefix/$libdir/libfilterview.so" | grep -c ' T filterview_') API functions, nothing else"
# the static library needs no C++ runtime: a C program links it with the C compiler alone (a
# toolchain whose libstdc++.a is not position-independent could not link it into a PIE program)
cxx=$(nm -u "$prefix/$libdir/libfilterview.a" | awk '$1 == "U" && $2 ~ /^(_Z|__cxa_guard|__gxx_personality)/ { print $2 }' | sort -u)
[ -z "$cxx" ] || fail "libfilterview.a needs the C++ runtime: $(echo $cxx | head -c 300)"

# CMake: find_package(filterview)
cp -r "$src/tests/library/consumer" "$work/consumer" || fail "cannot copy the consumer"
"$cmake" -S "$work/consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$work/consumer-cfg.log" 2>&1 || { cat "$work/consumer-cfg.log"; fail "the consumer does not configure"; }
"$cmake" --build "$work/consumer-build" >"$work/consumer-build.log" 2>&1 ||
    { cat "$work/consumer-build.log"; fail "the consumer does not build"; }
for exe in consumer consumer_static; do
    "$work/consumer-build/$exe" >"$work/$exe.txt" 2>&1 || { cat "$work/$exe.txt"; fail "$exe failed"; }
    grep -q "^consumer: libfilterview 0.1.0, [0-9]* filters, box/cpu (radius 4)" "$work/$exe.txt" ||
        { cat "$work/$exe.txt"; fail "$exe said something else"; }
    echo "find_package: $(cat "$work/$exe.txt") [$exe]"
done

# pkg-config
if command -v pkg-config >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs filterview) ||
        fail "pkg-config knows no filterview"
    cc "$work/consumer/consumer.c" $flags -Wl,-rpath,"$prefix/$libdir" -o "$work/consumer_pc" ||
        fail "cc with pkg-config's flags ($flags) failed"
    "$work/consumer_pc" >"$work/pc.txt" 2>&1 || { cat "$work/pc.txt"; fail "consumer_pc failed"; }
    echo "pkg-config ($flags): $(cat "$work/pc.txt")"
fi

# the Python module from the install (where numpy is)
if "$python" -c "import numpy" 2>/dev/null; then
    pydir=$(ls -d "$prefix"/lib/python3*/dist-packages 2>/dev/null | head -n 1)
    [ -n "$pydir" ] && [ -f "$pydir/filterview/__init__.py" ] || fail "the Python module was not installed"
    (cd "$work" && PYTHONPATH="$pydir" "$python" -c "
import filterview, numpy
img = numpy.zeros((9, 11, 3), numpy.uint8); img[4, 5] = 255
out = filterview.box(img, radius=1, variant='cpu')
assert out.shape == img.shape and out[4, 5, 0] == 28, out[3:6, 4:7, 0]
print('python from the install:', filterview.__file__, 'box ok')") || fail "the installed Python module failed"
fi

# uninstall: the module installed alone (its own manifest, install_manifest_python.txt), imported
# so that Python writes byte code beside it, then cmake_uninstall.cmake: nothing of it may stay (an
# empty folder filterview/ would still import, as a namespace package)
pyprefix=$work/python-prefix
"$cmake" --install "$build" --prefix "$pyprefix" --component python >"$work/install-python.log" 2>&1 ||
    { cat "$work/install-python.log"; fail "cmake --install --component python failed"; }
pydir=$(ls -d "$pyprefix"/lib/python3*/dist-packages)
if "$python" -c "import numpy" 2>/dev/null; then
    # filterview.dask too where Dask is installed (not merely on this test's PYTHONPATH)
    dask_too=$(env -u PYTHONPATH "$python" -c "import dask.array" 2>/dev/null && echo ", filterview.dask")
    (cd "$work" && env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$pydir" FILTERVIEW_LIBRARY="$prefix/$libdir/libfilterview.so.0" \
        "$python" -c "import filterview$dask_too") || fail "the module installed alone does not import"
    ls "$pydir/filterview/__pycache__"/*.pyc >/dev/null 2>&1 || fail "no byte code was written (the case tests nothing)"
fi
"$cmake" -DMANIFEST="$build/install_manifest_python.txt" -P "$build/cmake_uninstall.cmake" >"$work/uninstall.log" 2>&1 ||
    { cat "$work/uninstall.log"; fail "cmake_uninstall.cmake failed"; }
left=$(find "$pyprefix" -path "*filterview*")
[ -z "$left" ] || fail "uninstall left: $left"
echo "uninstall: the module's files, byte code and folder removed"
echo "PASS"
