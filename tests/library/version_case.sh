#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/library/version_case.sh CMAKE HEADER SHARED_LIBRARY CONFIG_VERSION PC_FILE PROGRAM PY_LIB:
# the version is written once, in the public header, and everything that carries it agrees: the
# program's --version, the shared library's file name and soname (the major version), the CMake
# package (find_package accepts every release of the soname's major from the one asked for, and
# no other major), the pkg-config file, and the major the Python module expects.
# -------------------------------------------------------------------------------------------------
set -u
[ $# -eq 7 ] || { echo "usage: $0 CMAKE HEADER SHARED_LIBRARY CONFIG_VERSION PC_FILE PROGRAM PY_LIB" >&2; exit 2; }
cmake=$1 header=$2 library=$3 config=$4 pc=$5 program=$6 pylib=$7
bad=0
fail() { echo "FAIL: $*"; bad=1; }
part() { sed -n "s/^#define FILTERVIEW_VERSION_$1 \{1,\}\([0-9]\{1,\}\)$/\1/p" "$header"; }
major=$(part MAJOR) minor=$(part MINOR) patch=$(part PATCH)
[ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] || { echo "FAIL: no version in $header"; exit 1; }
version=$major.$minor.$patch
echo "header: $version"

said=$("$program" --version)
[ "$said" = "filterview $version" ] || fail "the program says '$said'"

soname=$(objdump -p "$library" | awk '/SONAME/ { print $2 }')
[ "$soname" = "libfilterview.so.$major" ] || fail "soname '$soname', not libfilterview.so.$major"
real=$(basename "$(readlink -f "$library")")
[ "$real" = "libfilterview.so.$version" ] || fail "the library's file is $real"
echo "shared library: $real, soname $soname"

# what find_package(filterview WANTED) decides: the version file run as CMake runs it
accepts() {
    printf 'set(PACKAGE_FIND_VERSION %s)\nstring(REPLACE "." ";" p %s)\nlist(GET p 0 PACKAGE_FIND_VERSION_MAJOR)\nlist(GET p 1 PACKAGE_FIND_VERSION_MINOR)\nset(PACKAGE_FIND_VERSION_PATCH 0)\nset(CMAKE_SIZEOF_VOID_P 8)\ninclude(%s)\nmessage("${PACKAGE_VERSION} ${PACKAGE_VERSION_COMPATIBLE}")\n' \
        "$1" "$1" "$config" >"${TMPDIR:-/tmp}/fv_version_$$.cmake"
    "$cmake" -P "${TMPDIR:-/tmp}/fv_version_$$.cmake" 2>&1
    rm -f "${TMPDIR:-/tmp}/fv_version_$$.cmake"
}
for case in "$major.0 TRUE" "$major.$minor TRUE" "$version TRUE" "$major.$((minor + 1)) FALSE" \
    "$((major + 1)).0 FALSE"; do
    set -- $case
    got=$(accepts "$1")
    [ "$got" = "$version $2" ] || fail "find_package(filterview $1) against the package: '$got', not '$version $2'"
    echo "find_package(filterview $1): $got"
done

pc_version=$(sed -n 's/^Version: //p' "$pc")
[ "$pc_version" = "$version" ] || fail "pkg-config says '$pc_version'"

py_major=$(sed -n 's/^EXPECTED_MAJOR = \([0-9]\{1,\}\)$/\1/p' "$pylib")
[ "$py_major" = "$major" ] || fail "the Python module expects major '$py_major'"
[ $bad -eq 0 ] && echo "one version, $version: program, soname $major, CMake package, pkg-config, Python"
exit $bad
