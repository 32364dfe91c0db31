#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/package_case.sh CPACK BUILD_DIR WORK_DIR SOURCE_DIR VERSION: `cpack -G DEB` in the build
# folder makes the four Debian packages of cmake/package.cmake and nothing else. Their control
# fields (names, sections, the Depends between them and from dpkg-shlibdeps, no CUDA library among
# them, the library's shlibs and ldconfig trigger), the files each holds (the library in Debian's
# multiarch folder, the .so link in -dev only, no file in two packages, no private copy of the
# library in the Python package); then all four unpacked into one folder, as dpkg would install
# them under /usr: the program runs (--version, --list, a CPU batch on the packaged photo), a C
# program builds against the -dev files (pkg-config) and runs, and the Python module loads the
# library of libfilterview0. The debs stay in WORK_DIR for package_roundtrip.sh. Skipped (77)
# without dpkg-deb and dpkg-shlibdeps.
# -------------------------------------------------------------------------------------------------
set -u
cpack=$1 build=$2 work=$3 src=$4 version=$5
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
  { echo "skipped: no dpkg-deb / dpkg-shlibdeps (Debian's dpkg-dev)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/root" || fail "cannot make $work"
(cd "$build" && "$cpack" -G DEB -B "$work" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) || fail "dpkg-architecture -qDEB_HOST_MULTIARCH"
libdir=usr/lib/$multiarch

# exactly the four (an install() rule without a component would make a fifth)
packages="filterview libfilterview0 libfilterview-dev python3-filterview"
made=$(cd "$work" && ls *.deb | sort | tr '\n' ' ')
want=$(for p in $packages; do echo "${p}_${version}_$arch.deb"; done | sort | tr '\n' ' ')
[ "$made" = "$want" ] || fail "cpack made '$made', not '$want'"
deb() { echo "$work/${1}_${version}_$arch.deb"; }
field() { dpkg-deb -f "$(deb "$1")" "$2"; }

# ---- control fields ----
for p in $packages; do
  [ "$(field "$p" Package)" = "$p" ] || fail "$(deb "$p") names package '$(field "$p" Package)'"
  [ "$(field "$p" Version)" = "$version" ] || fail "$p: version '$(field "$p" Version)'"
  field "$p" Depends | grep -Eq "(cufft|nvrtc|npp|cudart)" && fail "$p: a CUDA library is a Debian dependency: $(field "$p" Depends)"
  field "$p" Description | head -n 1 | grep -q . || fail "$p has no summary"
done
[ "$(field filterview Section)" = graphics ] || fail "filterview: Section $(field filterview Section)"
[ "$(field libfilterview0 Section)" = libs ] || fail "libfilterview0: Section $(field libfilterview0 Section)"
[ "$(field libfilterview-dev Section)" = libdevel ] || fail "libfilterview-dev: Section $(field libfilterview-dev Section)"
[ "$(field python3-filterview Section)" = python ] || fail "python3-filterview: Section $(field python3-filterview Section)"
summaries=$(for p in $packages; do field "$p" Description | head -n 1; done | sort -u | wc -l)
[ "$summaries" = 4 ] || fail "two packages share a summary"
same="libfilterview0 (= $version)"
field filterview Depends | grep -qF "$same" || fail "filterview does not depend on $same: $(field filterview Depends)"
field filterview Depends | grep -q "libc6" || fail "filterview: no Depends from dpkg-shlibdeps: $(field filterview Depends)"
field libfilterview0 Depends | grep -q "libc6" || fail "libfilterview0: no Depends from dpkg-shlibdeps"
field libfilterview-dev Depends | grep -qF "$same" || fail "libfilterview-dev does not depend on $same"
field python3-filterview Depends | grep -qF "$same" || fail "python3-filterview does not depend on $same"
field python3-filterview Depends | grep -q "python3-numpy" || fail "python3-filterview does not depend on python3-numpy"
# GLEW's library, where a Debian package owns it (not where it was merely unpacked), is a Depends
glew=$(ldd "$build/filterview" 2>/dev/null | awk '/libGLEW/ { print $3; exit }')
if [ -n "$glew" ] && dpkg -S "$(readlink -f "$glew")" >/dev/null 2>&1; then
  field filterview Depends | grep -q "libglew" || fail "Depends lacks GLEW: $(field filterview Depends)"
fi
for p in filterview libfilterview0; do
  field "$p" Description | grep -q "CUDA toolkit" || fail "$p: the description does not say the CUDA toolkit is needed"
done
dpkg-deb -I "$(deb libfilterview0)" shlibs >"$work/shlibs" 2>&1 || fail "libfilterview0 has no shlibs file"
grep -qx "libfilterview 0 $same" "$work/shlibs" || fail "libfilterview0's shlibs: $(cat "$work/shlibs")"
dpkg-deb -I "$(deb libfilterview0)" triggers 2>/dev/null | grep -qx "activate-noawait ldconfig" ||
  fail "libfilterview0 does not trigger ldconfig"
echo "control: four packages, Depends $same where due, shlibs and ldconfig trigger, no CUDA library"

# ---- contents: `dpkg-deb -c` with the leading ./ dropped; directories left out ----
for p in $packages; do
  dpkg-deb -c "$(deb "$p")" | awk '$1 !~ /^d/ { print substr($6, 3) }' | sort >"$work/$p.files" ||
    fail "dpkg-deb -c $p"
done
holds() { grep -qx "$2" "$work/$1.files" || fail "$1 lacks /$2"; }
grep -q "^$libdir/libfilterview" "$work/libfilterview0.files" ||
  fail "the library is not in /$libdir but in /$(sed -n 's|/libfilterview.*||p' "$work/libfilterview0.files" | head -n 1):" \
    "the build's CMAKE_INSTALL_LIBDIR is not lib/$multiarch (cmake -U CMAKE_INSTALL_LIBDIR $build)"
for f in usr/bin/filterview usr/share/man/man1/filterview.1.gz usr/share/bash-completion/completions/filterview \
         usr/share/doc/filterview/README.md usr/share/doc/filterview/copyright usr/share/doc/filterview/docs/usage.md \
         usr/share/doc/filterview/examples/kernels/gaussian_naive.cu usr/share/filterview/astronaut.png; do
  holds filterview "$f"
done
holds libfilterview0 "$libdir/libfilterview.so.$version"
holds libfilterview0 "$libdir/libfilterview.so.0"
for f in usr/include/libfilterview.h "$libdir/libfilterview.so" "$libdir/libfilterview.a" "$libdir/pkgconfig/filterview.pc" \
         "$libdir/cmake/filterview/filterviewConfig.cmake" "$libdir/cmake/filterview/filterviewTargets.cmake"; do
  holds libfilterview-dev "$f"
done
for f in __init__.py _lib.py _libpath.py; do
  holds python3-filterview "usr/lib/python3/dist-packages/filterview/$f"
done
for p in libfilterview0 libfilterview-dev python3-filterview; do holds "$p" "usr/share/doc/$p/copyright"; done
# each package holds its own kind of file and nothing of the others'
grep -v -e "^usr/share/doc/libfilterview0/" -e "^$libdir/libfilterview\.so\.[0-9.]*$" "$work/libfilterview0.files" &&
  fail "libfilterview0 holds more than the library"
grep -v -e "^usr/share/doc/python3-filterview/" -e "^usr/lib/python3/dist-packages/filterview/[a-z_]*\.py$" \
  "$work/python3-filterview.files" && fail "python3-filterview holds more than the module (a copy of the library?)"
grep -E "^(usr/lib/|usr/include/)" "$work/filterview.files" && fail "filterview holds library files"
grep -E "^usr/(bin|share/man|lib/python3)/" "$work/libfilterview-dev.files" && fail "libfilterview-dev holds others' files"
dups=$(cat "$work"/*.files | sort | uniq -d)
[ -z "$dups" ] || fail "in two packages: $dups"
echo "contents: $(cat "$work"/*.files | wc -l) files, none in two packages; the library in /$libdir"

# ---- all four unpacked into one folder ----
for p in $packages; do dpkg-deb -x "$(deb "$p")" "$work/root" || fail "dpkg-deb -x $p"; done
usr=$work/root/usr
lib=$work/root/$libdir
soname=$(objdump -p "$lib/libfilterview.so.$version" | awk '/SONAME/ { print $2 }')
[ "$soname" = libfilterview.so.0 ] || fail "soname '$soname', not libfilterview.so.0"
[ "$(readlink "$lib/libfilterview.so.0")" = "libfilterview.so.$version" ] || fail "libfilterview.so.0 -> $(readlink "$lib/libfilterview.so.0")"
[ "$(readlink "$lib/libfilterview.so")" = libfilterview.so.0 ] || fail "libfilterview.so -> $(readlink "$lib/libfilterview.so")"
grep -qx "LIBRARY = \"/$libdir/libfilterview.so.0\"" "$usr/lib/python3/dist-packages/filterview/_libpath.py" ||
  fail "the module does not load /$libdir/libfilterview.so.0: $(cat "$usr/lib/python3/dist-packages/filterview/_libpath.py")"
fv=$usr/bin/filterview
cd "$work" || fail "cd $work"
"$fv" --version | grep -qx "filterview $version" || fail "the packaged program's --version: $("$fv" --version)"
"$fv" --list | grep -q "^median" || fail "the packaged program's --list"
"$fv" "$usr/share/filterview/astronaut.png" -f median -v cpu -o "$work/out.png" >"$work/run.log" 2>&1 ||
  { cat "$work/run.log"; fail "a CPU batch with the packaged program"; }
[ -s "$work/out.png" ] || fail "no out.png"
gzip -dc "$usr/share/man/man1/filterview.1.gz" | cmp -s - "$build/filterview.1" || fail "the packaged man page is not the program's"
echo "unpacked: the program runs (--version, --list, a CPU batch), its man page is its own"
if command -v pkg-config >/dev/null && command -v cc >/dev/null; then
  head -n 1 "$lib/pkgconfig/filterview.pc" | grep -qx "prefix=/usr" || fail "filterview.pc: $(head -n 1 "$lib/pkgconfig/filterview.pc")"
  flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$work/root" pkg-config --cflags --libs filterview) ||
    fail "pkg-config knows no filterview"
  cc "$src/tests/library/consumer/consumer.c" $flags -Wl,-rpath,"$lib" -o "$work/consumer" ||
    fail "cc with the -dev package's pkg-config flags ($flags) failed"
  "$work/consumer" >"$work/consumer.txt" 2>&1 || { cat "$work/consumer.txt"; fail "the consumer failed"; }
  grep -q "^consumer: libfilterview $version, " "$work/consumer.txt" || fail "the consumer said: $(cat "$work/consumer.txt")"
  echo "unpacked: a C program built with pkg-config's flags ($flags) ran"
fi
python=/usr/bin/python3
if [ -x $python ] && $python -c "import numpy" 2>/dev/null; then
  # _libpath.py names /usr's library, which is not installed here: the unpacked one stands in
  out=$(FILTERVIEW_LIBRARY="$lib/libfilterview.so.0" PYTHONPATH="$usr/lib/python3/dist-packages" $python -c "
import filterview
print(filterview.__file__, filterview.library_version())") || fail "the packaged Python module does not import"
  echo "$out" | grep -q "^$usr/lib/python3/dist-packages/filterview/__init__.py $version$" || fail "python said: $out"
  echo "unpacked: the Python module imports"
fi
echo "PASS: $made"
