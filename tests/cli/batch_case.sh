#!/bin/sh
# tests/cli/batch_case.sh FILTERVIEW CHECK_SCREENSHOT REF_PIXELS FIXTURES OUT: many files into a
# folder. The fixtures' batch/ holds three good images (PNG, JPEG, 16-bit PPM), two bad ones and a
# text file. Checks: exit 1 with the two bad files reported in one line each, the summary, every
# good output (a box filter of radius 2) equal pixel for pixel to the box reference called directly
# on its input (tests/cli/ref_pixels.c; radius 1, the default, would fail) and by content (RGB,
# read by stb) to a one-file run, nothing written for the bad ones,
# no temporary file left, no progress bar (stderr is no terminal); then files given by name
# (exit 0), a folder that does not exist (made, with its parents), and on a terminal the progress
# bar, which --quiet leaves out.
#   batch_case.sh ... OUT gpu: the same folder through the GPU (gaussian fast, bit-exact against
#   the reference called directly and a cpu run) with pinned buffers and two streams; exit 77
#   (skipped) without a device.
fv=$1; check=$2; ref=$3; fx=$4; out=$5; mode=${6:-cpu}
fail() { echo "FAIL: $*"; exit 1; }
if [ "$mode" = gpu ]; then
  "$fv" --info >/dev/null 2>&1 || { echo "skipped: no CUDA device"; exit 77; }
  rm -rf "$out" && mkdir -p "$out/ref" "$out/all" || fail "cannot make $out"
  for n in good1.png good2.jpg good3.ppm; do
    "$fv" "$fx/batch/$n" -f gaussian --sigma 2 -v cpu -o "$out/ref/${n%.*}.png" >/dev/null || fail "cpu run of $n"
  done
  "$fv" "$fx/batch" "$fx/good.png" "$fx/deep.ppm" -f gaussian --sigma 2 -v fast -o "$out/all/" >"$out/log" 2>"$out/err"
  code=$?
  cat "$out/log" "$out/err"
  [ "$code" = 1 ] || fail "exit status $code, expected 1 (two bad files)"
  grep -Eq "^filtered 5 of 7 images \(gaussian/fast, .*on the GPU, [0-9]+ threads, codec cpu; 2 failed$" "$out/log" || fail "no summary line"
  for n in good1.png good2.jpg good3.ppm; do
    "$check" single "$out/all/${n%.*}.png" "$out/ref/${n%.*}.png" >/dev/null || fail "$n (GPU) differs from the cpu run"
    "$ref" check --tested sigma "$out/all/${n%.*}.png" "$fx/batch/$n" gaussian sigma=2 ||
      fail "$n (GPU) is not the reference's Gaussian of sigma 2"
  done
  ls -a "$out/all" | grep -q '\.tmp-' && fail "a temporary file was left"
  echo "batch on the GPU: all checks passed"
  exit 0
fi
rm -rf "$out" && mkdir -p "$out/ref" "$out/all" "$out/two" || fail "cannot make $out"
for n in good1.png good2.jpg good3.ppm; do
  "$fv" "$fx/batch/$n" -f box --radius 2 -v cpu -o "$out/ref/${n%.*}.png" >/dev/null || fail "one-file run of $n"
done
"$fv" "$fx/batch" -f box --radius 2 -v cpu -o "$out/all/" >"$out/log" 2>"$out/err"
code=$?
cat "$out/log" "$out/err"
[ "$code" = 1 ] || fail "exit status $code, expected 1 (two bad files)"
grep -Eq "^filtered 3 of 5 images \(box/cpu, radius 2, .*\) into '.*all/' in .* images/s on the CPU, [0-9]+ threads, codec cpu; 2 failed$" "$out/log" ||
  fail "no summary line"
[ "$(wc -l <"$out/err")" = 2 ] || fail "expected two lines on stderr"
grep -q "images/s" "$out/err" && fail "a progress bar was drawn where stderr is no terminal"
grep -q "truncated.jpg' is corrupt or truncated (JPEG: .*) (skipped)$" "$out/err" || fail "truncated.jpg not reported"
grep -q "bad.jpg' is corrupt or truncated (JPEG: .*) (skipped)$" "$out/err" || fail "bad.jpg not reported"
for n in good1.png good2.jpg good3.ppm; do
  "$check" single "$out/all/${n%.*}.png" "$out/ref/${n%.*}.png" >/dev/null || fail "$n: the output differs from the one-file run"
  "$ref" check --tested radius "$out/all/${n%.*}.png" "$fx/batch/$n" box radius=2 ||
    fail "$n: the output is not the reference's box of radius 2"
done
[ -e "$out/all/truncated.png" ] || [ -e "$out/all/bad.png" ] && fail "an output was written for a bad file"
[ -e "$out/all/notes.png" ] && fail "notes.txt was taken for an image"
ls -a "$out/all" | grep -q '\.tmp-' && fail "a temporary file was left"
"$fv" "$fx/batch/good1.png" "$fx/batch/good2.jpg" -f box --radius 2 -v cpu -o "$out/two/" --png-level 9 >"$out/log2" 2>&1 ||
  fail "two files by name: exit $? ($(cat "$out/log2"))"
grep -q "filtered 2 of 2 images" "$out/log2" || fail "two files by name: no summary"
"$ref" check --tested radius "$out/two/good2.png" "$fx/batch/good2.jpg" box radius=2 || fail "two/good2.png is not the reference's"
"$fv" "$fx/batch/good1.png" -v cpu -o "$out/missing/parent/" >"$out/log3" 2>&1 ||
  fail "a missing folder: $(cat "$out/log3")"
[ -f "$out/missing/parent/good1.png" ] || fail "the missing folder and its parent were not made"
"$ref" check "$out/missing/parent/good1.png" "$fx/batch/good1.png" gaussian || fail "missing/parent/good1.png is not the reference's"
# on a terminal (script(1) gives it one): a progress bar of files done, images/s and time left
if command -v script >/dev/null 2>&1; then
  mkdir -p "$out/tty"
  script -qec "'$fv' '$fx/batch' -f invert -v cpu -o '$out/tty/'" /dev/null >"$out/tty.log" 2>&1 </dev/null
  grep -Eq '\[[#.]+\] [0-9]+/5  [0-9.]+ images/s  ETA [0-9-]+:[0-9-]+' "$out/tty.log" || fail "no progress bar on a terminal"
  script -qec "'$fv' '$fx/batch' -f invert -v cpu --quiet -o '$out/tty_quiet/'" /dev/null >"$out/tty_quiet.log" 2>&1 </dev/null
  grep -q "images/s" "$out/tty_quiet.log" && fail "--quiet drew a progress bar"
  grep -q "filtered" "$out/tty_quiet.log" && fail "--quiet printed the summary"
  grep -q "bad.jpg' is corrupt" "$out/tty_quiet.log" || fail "--quiet hid an error"
fi
echo "batch: all checks passed"
