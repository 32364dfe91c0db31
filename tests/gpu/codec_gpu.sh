#!/bin/sh
# tests/gpu/codec_gpu.sh: the GPU JPEG codec in the program, on a GPU. A folder of JPEGs (the
# corpus of jpeg_gpu_check: every sampling, two qualities, every EXIF orientation, a progressive
# and a CMYK file) filtered to JPEG with --codec gpu and with --codec cpu: the same files written,
# by name, and as many; the summary says "codec gpu (nvJPEG" and counts the CMYK file, once, as
# fallen back to the CPU codec; a single file and standard input through --codec gpu, turned as
# EXIF says; then compute-sanitizer's memcheck over jpeg_gpu_check (the corpus, damaged files,
# an encode) where the toolkit has it. Exits 77 without a CUDA device.
#   sh tests/gpu/codec_gpu.sh FILTERVIEW JPEG_GPU_CHECK OUT
set -u
fv="$1" check="$2" out="$3"
fail() { echo "FAIL: $*"; exit 1; }
"$fv" --info >/dev/null 2>&1 || { echo "skipped: no usable CUDA GPU"; exit 77; }
rm -rf "$out"
mkdir -p "$out/in"
FV_JPEG_QUICK=1 "$check" --corpus "$out/in" >/dev/null || fail "cannot write the corpus"
n=$(ls "$out/in" | wc -l)
[ "$n" -gt 10 ] || fail "a corpus of $n files"
for codec in cpu gpu; do
  "$fv" "$out/in" -f gaussian --sigma 2 --codec $codec --format jpeg -o "$out/$codec/" \
    >"$out/$codec.log" 2>&1 || fail "--codec $codec: $(cat "$out/$codec.log")"
  cat "$out/$codec.log"
done
[ "$(ls "$out/cpu")" = "$(ls "$out/gpu")" ] || fail "--codec gpu wrote other files than --codec cpu"
[ "$(ls "$out/gpu" | wc -l)" = "$n" ] || fail "--codec gpu wrote $(ls "$out/gpu" | wc -l) of $n files"
grep -Eq "^filtered $n of $n images .*, codec cpu$" "$out/cpu.log" || fail "--codec cpu: no summary naming the codec"
grep -Eq "^filtered $n of $n images .*, codec gpu \(nvJPEG.*\); 1 JPEG fell back to the CPU codec$" \
  "$out/gpu.log" || fail "--codec gpu: no summary naming the codec and the one fallback (cmyk.jpg)"
# one file, turned by EXIF orientation 6 (41x29 stored), and standard input to standard output
"$fv" "$out/in/exif6.jpg" --codec gpu -o "$out/one.jpg" >"$out/one.log" 2>&1 || fail "$(cat "$out/one.log")"
grep -Eq "^wrote .*one.jpg \(29x41, .*codec gpu \(nvJPEG" "$out/one.log" || fail "single file: $(cat "$out/one.log")"
"$fv" - --codec gpu --format jpeg -o - <"$out/in/exif6.jpg" >"$out/stdio.jpg" 2>"$out/stdio.log" ||
  fail "stdio: $(cat "$out/stdio.log")"
grep -q "codec gpu (nvJPEG" "$out/stdio.log" || fail "stdio: $(cat "$out/stdio.log")"
[ "$(head -c 2 "$out/stdio.jpg" | od -An -tx1 | tr -d ' ')" = "ffd8" ] || fail "stdio: no JPEG written"
"$fv" "$out/in/cmyk.jpg" --codec gpu -o "$out/cmyk.jpg" >"$out/cmyk.log" 2>&1 || fail "$(cat "$out/cmyk.log")"
grep -q "1 JPEG fell back to the CPU codec" "$out/cmyk.log" || fail "CMYK: $(cat "$out/cmyk.log")"
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
if [ -x "$cs" ]; then
  FV_JPEG_QUICK=1 "$cs" --tool memcheck --error-exitcode 9 "$check" >"$out/memcheck.log" 2>&1
  code=$?
  tail -3 "$out/memcheck.log"
  [ "$code" = 0 ] || fail "memcheck over the corpus: exit $code (see $out/memcheck.log)"
else
  echo "no compute-sanitizer: memcheck left out"
fi
echo "codec_gpu: ok"
