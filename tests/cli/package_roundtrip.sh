#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/package_roundtrip.sh DEB_DIR SOURCE_DIR VERSION CMAKE: the four packages that
# package_case.sh made in DEB_DIR, installed for real with `dpkg -i`, then used as a user would
# from outside any tree: `filterview --version`, `import filterview` (which loads libfilterview0's
# library), `pkg-config --libs filterview`, a C program built with pkg-config's flags and one with
# find_package(filterview), the library in the loader's cache; then `dpkg -r` must leave none of
# their files and folders, and the cache must forget the library. It changes the system, so it runs
# only where that is wanted: FV_PACKAGE_ROUNDTRIP=1, or as root where CI is set (a throwaway
# machine); skipped (77) elsewhere, and where any of the four is already installed.
# -------------------------------------------------------------------------------------------------
set -u
debs=$1 src=$2 version=$3 cmake=$4
if [ "${FV_PACKAGE_ROUNDTRIP:-}" != 1 ] && ! { [ "$(id -u)" = 0 ] && [ -n "${CI:-}" ]; }; then
  echo "skipped: installs packages into the system; FV_PACKAGE_ROUNDTRIP=1 (as root) to run it"
  exit 77
fi
[ "$(id -u)" = 0 ] || { echo "FAIL: FV_PACKAGE_ROUNDTRIP=1 needs root (dpkg -i)"; exit 1; }
packages="filterview libfilterview0 libfilterview-dev python3-filterview"
for p in $packages; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "installed"; then
    echo "skipped: $p is installed already (this test would remove it)"
    exit 77
  fi
done
arch=$(dpkg --print-architecture)
files=""
for p in $packages; do
  f=$debs/${p}_${version}_$arch.deb
  [ -f "$f" ] || { echo "FAIL: no $f (package_case.sh makes it)"; exit 1; }
  files="$files $f"
done
work=$debs/roundtrip
rm -rf "$work" && mkdir -p "$work" || exit 1
installed=0
# whatever happens, the system is left as it was
cleanup() { [ $installed = 1 ] && dpkg --purge $packages >/dev/null 2>&1; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

installed=1
dpkg -i $files >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "dpkg -i failed"; }
for p in $packages; do
  dpkg -L "$p" >"$work/$p.list" || fail "dpkg -L $p"
done
cd "$work" || exit 1 # nothing of the source or build tree here
out=$(filterview --version) && [ "$out" = "filterview $version" ] || fail "filterview --version: $out"
[ "$(command -v filterview)" = /usr/bin/filterview ] || fail "filterview is $(command -v filterview)"
lib=$(/usr/bin/python3 -c "import filterview; print(filterview.__library__, filterview.library_version())") ||
  fail "python3 -c 'import filterview' failed"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
[ "$lib" = "/usr/lib/$multiarch/libfilterview.so.0 $version" ] || fail "the module loaded: $lib"
echo "installed: filterview --version, import filterview ($lib)"
# (with /lib a link to /usr/lib, the cache may name /lib/$multiarch)
ldconfig -p | grep -q "libfilterview.so.0 .*/lib/$multiarch/libfilterview.so.0$" ||
  fail "the loader's cache does not list libfilterview.so.0"
libs=$(pkg-config --libs filterview) || fail "pkg-config --libs filterview"
echo "$libs" | grep -q -- "-lfilterview" || fail "pkg-config --libs filterview: $libs"
cc "$src/tests/library/consumer/consumer.c" $(pkg-config --cflags filterview) $libs -o consumer_pc ||
  fail "cc with pkg-config's flags failed"
./consumer_pc >pc.txt 2>&1 && grep -q "^consumer: libfilterview $version, " pc.txt || { cat pc.txt; fail "consumer_pc"; }
echo "installed: pkg-config --libs filterview: $libs; a C program built with it: $(cat pc.txt)"
cp -r "$src/tests/library/consumer" consumer || exit 1
"$cmake" -S consumer -B consumer-build >cfg.log 2>&1 || { cat cfg.log; fail "find_package(filterview) from /usr"; }
"$cmake" --build consumer-build >build.log 2>&1 || { cat build.log; fail "the find_package consumer does not build"; }
consumer-build/consumer >cm.txt 2>&1 && grep -q "^consumer: libfilterview $version, " cm.txt || { cat cm.txt; fail "consumer"; }
echo "installed: find_package(filterview) from /usr: $(cat cm.txt)"

dpkg -r $packages >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; fail "dpkg -r failed"; }
grep -i "warning" "$work/remove.log" && fail "dpkg -r warned (a folder not empty?)"
left=""
for p in $packages; do
  while IFS= read -r path; do
    case $path in
      /usr/share/doc/* | /usr/share/filterview* | /usr/lib/python3/dist-packages/filterview* | \
        */cmake/filterview* | /usr/include/libfilterview.h | */libfilterview* | /usr/bin/filterview | \
        */filterview.1.gz | */completions/filterview | */pkgconfig/filterview.pc)
        # ours (the system's folders, /usr/lib/... and /usr/share/doc, stay)
        [ -e "$path" ] || [ -L "$path" ] && left="$left $path" ;;
    esac
  done <"$work/$p.list"
done
[ -z "$left" ] || fail "dpkg -r left:$left"
ldconfig -p | grep -q "libfilterview.so" && fail "the loader's cache still lists libfilterview"
dpkg --purge $packages >/dev/null 2>&1
installed=0
echo "PASS: installed, used and removed: $packages"
