#!/bin/sh
# tests/cli/package_case.sh CPACK BUILD_DIR WORK_DIR: `cpack -G DEB` in the build folder makes a
# Debian package whose control file names the Debian libraries it needs (dpkg-shlibdeps) and the
# CUDA toolkit it cannot; unpacked (as dpkg would install it, under /usr), its program runs from
# there: --version, --list, a CPU batch on the packaged sample photo, and its man page and bash
# completion are in place. Skipped (77) without dpkg-deb and dpkg-shlibdeps.
set -u
cpack="$1" build="$2" work="$3"
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
  { echo "skipped: no dpkg-deb / dpkg-shlibdeps (Debian's dpkg-dev)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/root" || fail "cannot make $work"
(cd "$build" && "$cpack" -G DEB -B "$work" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/filterview_*_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack made no filterview_*.deb"
dpkg-deb --info "$deb" >"$work/info.txt" || fail "dpkg-deb --info $deb"
grep -q "^ Package: filterview$" "$work/info.txt" || fail "the control file names no package filterview"
grep -q "^ Section: graphics$" "$work/info.txt" || fail "no Section: graphics"
grep -q "^ Depends: .*libc6" "$work/info.txt" || fail "no Depends from dpkg-shlibdeps: $(grep Depends "$work/info.txt")"
# GLEW's library, where a Debian package owns it (not where it was merely unpacked), is a Depends
glew=$(ldd "$build/filterview" 2>/dev/null | awk '/libGLEW/ { print $3; exit }')
if [ -n "$glew" ] && dpkg -S "$(readlink -f "$glew")" >/dev/null 2>&1; then
  grep -Eq "^ Depends: .*libglew" "$work/info.txt" || fail "Depends lacks GLEW: $(grep Depends "$work/info.txt")"
fi
grep -q "CUDA toolkit" "$work/info.txt" || fail "the description does not say the CUDA toolkit is needed"
grep -E "^ Depends: .*(cufft|nvrtc|npp)" "$work/info.txt" && fail "a CUDA library is a Debian dependency"
dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x"
usr="$work/root/usr"
for f in bin/filterview share/man/man1/filterview.1 share/bash-completion/completions/filterview \
         share/doc/filterview/README.md share/doc/filterview/LICENSE share/filterview/astronaut.png; do
  [ -e "$usr/$f" ] || fail "the package lacks /usr/$f"
done
fv="$usr/bin/filterview"
cd "$work" || fail "cd $work"
"$fv" --version | grep -q "^filterview " || fail "the packaged program's --version"
"$fv" --list | grep -q "^median" || fail "the packaged program's --list"
"$fv" "$usr/share/filterview/astronaut.png" -f median -v cpu -o "$work/out.png" >"$work/run.log" 2>&1 ||
  { cat "$work/run.log"; fail "a CPU batch with the packaged program"; }
[ -s "$work/out.png" ] || fail "no out.png"
echo "package: $(basename "$deb"), $(grep '^ Depends:' "$work/info.txt" | wc -c) bytes of Depends, runs unpacked"
