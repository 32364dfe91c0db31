#!/bin/sh
# tests/gpu/same_outputs.sh: are two builds' outputs the same? Runs every filter x variant of the
# second build's registry (`--list`) on each image, with each filter's default parameters and a
# few more sets, through both binaries (-o), and compares the PNGs byte for byte. For a change
# that must not change behaviour (a restructuring): run it with the build before and the build
# after, on a machine with a CUDA GPU.
#   sh tests/gpu/same_outputs.sh OLD/filterview NEW/filterview OUTDIR IMAGE...
# Prints one line per case that differs and "N passed, N failed"; exits 1 if any differs or ran
# on one build only.
set -u
old="${1:?usage: same_outputs.sh OLD_FILTERVIEW NEW_FILTERVIEW OUTDIR IMAGE...}"
new="${2:?}" out="${3:?}"
shift 3
[ $# -gt 0 ] || { echo "same_outputs.sh: no images given"; exit 2; }
mkdir -p "$out"
passed=0 failed=0
# extra parameter sets per filter, beside the defaults ('' stands for the defaults)
cases() {
  case "$1" in
  gaussian) printf '%s\n' "" "--sigma 3" "--sigma 8" "--iters 3" ;;
  invert) printf '%s\n' "" "--iters 3" ;;
  box) printf '%s\n' "" "--radius 8" "--radius 44" "--radius 128" ;;
  median) printf '%s\n' "" "--size 7" "--size 15" "--size 25" ;;
  canny) printf '%s\n' "" "--thresholds auto" "--stage magnitude --norm l2" "--hysteresis one-pass" ;;
  conv) printf '%s\n' "" "--shape disk --radius 7" "--shape motion --length 63 --angle 30" ;;
  *) printf '%s\n' "" ;;
  esac
}
# "filter variant" pairs from --list: a filter line starts in column 1, a variant line with two
# spaces and a name that is not a flag
pairs=$("$new" --list | awk '/^[a-z]/ { f = $1; next } /^  [a-z]/ { print f, $1 }')
[ -n "$pairs" ] || { echo "same_outputs.sh: '$new --list' listed nothing"; exit 1; }
k=0
for image in "$@"; do
  echo "$pairs" | while read -r filter variant; do
    cases "$filter" | while IFS= read -r params; do
      k=$((k + 1))
      tag="$(basename "$image" | tr -c 'a-zA-Z0-9\n' _)-$filter-$variant-$(echo "$params" | tr -c 'a-zA-Z0-9\n' _)"
      # shellcheck disable=SC2086
      "$old" "$image" -f "$filter" -v "$variant" $params -o "$out/old-$tag.png" >"$out/old-$tag.log" 2>&1
      a=$?
      # shellcheck disable=SC2086
      "$new" "$image" -f "$filter" -v "$variant" $params -o "$out/new-$tag.png" >"$out/new-$tag.log" 2>&1
      b=$?
      if [ $a -ne $b ]; then
        echo "DIFFERS $tag: exit $a before, $b after: $(tail -1 "$out/new-$tag.log")"
        echo f
      elif [ $a -ne 0 ]; then
        echo s # both refused (e.g. a peer that declines the case): the same behaviour
      elif cmp -s "$out/old-$tag.png" "$out/new-$tag.png"; then
        echo p
      else
        echo "DIFFERS $tag: the images differ"
        echo f
      fi
      rm -f "$out/old-$tag.png" "$out/new-$tag.png"
    done
  done
done >"$out/results.txt"
grep DIFFERS "$out/results.txt"
passed=$(grep -cx p "$out/results.txt")
failed=$(grep -cx f "$out/results.txt")
both_refused=$(grep -cx s "$out/results.txt")
echo "same outputs: $both_refused cases refused by both builds alike"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
