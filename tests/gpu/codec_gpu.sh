#!/bin/sh
# tests/gpu/codec_gpu.sh: the GPU JPEG codec in the program, on a GPU. A folder of JPEGs (the
# corpus of jpeg_gpu_check: every sampling, two qualities, every EXIF orientation, a progressive
# and a CMYK file) filtered to JPEG with --codec gpu and with --codec cpu: the same files written,
# by name, and as many; the summary says "codec gpu (nvJPEG" and counts the CMYK file, once, as
# fallen back to the CPU codec; a single file and standard input through --codec gpu, turned as
# EXIF says; --codec auto on either side of its bar. The folder batch's pipeline (three images in flight on the GPU): the corpus copied
# three times under other names, with the default threads and with --threads 1, writes the same
# files byte for byte (nvJPEG's encode is deterministic: jpeg_gpu_check checks it), the CMYK
# file falls back once per copy, --stats names the bounding stage; PNG outputs from the same
# JPEGs (the CPU codec's encode on the writing threads); a folder with an empty and a garbled
# file: both said and skipped, the rest written, exit 1; runs ended by SIGINT and by SIGTERM
# mid-batch leave no temporary file. Then compute-sanitizer's memcheck over jpeg_gpu_check (the
# corpus, damaged files, an encode) where the toolkit has it. Exits 77 without a CUDA device.
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
# --codec auto: the GPU codec where the JPEGs' pixels pay for its start, 30 Mpixels a CPU thread:
# a small file and a folder under the bar stay on the CPU codec, 36 Mpixels on one thread do not
"$fv" "$out/in/exif6.jpg" -o "$out/auto_one.jpg" >"$out/auto_one.log" 2>&1 || fail "$(cat "$out/auto_one.log")"
grep -Eq "^wrote .*auto_one.jpg .*codec cpu$" "$out/auto_one.log" || fail "auto, a small file: $(cat "$out/auto_one.log")"
"$check" --photos "$out/big" 3 4000x3000 >/dev/null || fail "cannot write 3 photos of 12 Mpixels"
for t in 1 2; do
  "$fv" "$out/big" -f gaussian --sigma 2 --format jpeg --threads $t -o "$out/big_$t/" >"$out/big_$t.log" 2>&1 ||
    fail "auto, 3 x 12 Mpixels on $t threads: $(cat "$out/big_$t.log")"
done
grep -Eq "^filtered 3 of 3 images .*, codec gpu \(nvJPEG" "$out/big_1.log" || fail "auto, 36 Mpixels on 1 thread: $(cat "$out/big_1.log")"
grep -Eq "^filtered 3 of 3 images .*, codec cpu$" "$out/big_2.log" || fail "auto, 36 Mpixels on 2 threads: $(cat "$out/big_2.log")"
# the pipeline: more files than images in flight, against one CPU thread
mkdir -p "$out/many"
for k in 1 2 3; do
  for f in "$out"/in/*; do cp "$f" "$out/many/copy${k}_$(basename "$f")" || fail "cp"; done
done
m=$(ls "$out/many" | wc -l)
for t in all 1; do
  threads=""; [ "$t" = 1 ] && threads="--threads 1"
  # shellcheck disable=SC2086
  "$fv" "$out/many" -f gaussian --sigma 2 --codec gpu --format jpeg --stats $threads \
    -o "$out/many_$t/" >"$out/many_$t.log" 2>&1 || fail "pipeline, threads $t: $(cat "$out/many_$t.log")"
  cat "$out/many_$t.log"
  grep -Eq "^filtered $m of $m images .*, codec gpu \(nvJPEG.*\); 3 JPEGs fell back to the CPU codec$" \
    "$out/many_$t.log" || fail "pipeline, threads $t: no summary with 3 fallbacks (3 copies of cmyk.jpg)"
  grep -Eq "^stages busy: read [0-9.]+ s, decode [0-9.]+ s, filter [0-9.]+ s, encode [0-9.]+ s, write [0-9.]+ s; bound by (read|decode|filter|encode|write) " \
    "$out/many_$t.log" || fail "pipeline, threads $t: no --stats line"
done
grep -q " 1 thread, codec gpu" "$out/many_1.log" || fail "--threads 1: the summary does not say 1 thread"
[ "$(ls "$out/many_all" | wc -l)" = "$m" ] || fail "the pipeline wrote $(ls "$out/many_all" | wc -l) of $m files"
[ "$(ls "$out/many_all")" = "$(ls "$out/many_1")" ] || fail "the pipeline wrote other names than --threads 1"
for f in $(ls "$out/many_all"); do
  cmp -s "$out/many_all/$f" "$out/many_1/$f" || fail "$f: other bytes than with --threads 1"
done
for f in $(ls "$out/in"); do
  stem=${f%.*}
  cmp -s "$out/many_all/copy1_$stem.jpg" "$out/many_all/copy3_$stem.jpg" || fail "$f: its copies differ"
done
"$fv" "$out/many" -f gaussian --sigma 2 --codec gpu --format png -o "$out/many_png/" >"$out/many_png.log" 2>&1 ||
  fail "pipeline to PNG: $(cat "$out/many_png.log")"
grep -Eq "^filtered $m of $m images .*encoded 0\); 3 JPEGs fell back to the CPU codec$" "$out/many_png.log" ||
  fail "pipeline to PNG: $(cat "$out/many_png.log")"
[ "$(ls "$out/many_png" | grep -c '\.png$')" = "$m" ] || fail "pipeline to PNG: not $m PNG files"
# failures: said in a line each, skipped, exit 1
mkdir -p "$out/bad"
cp "$out"/in/* "$out/bad/" || fail "cp"
: >"$out/bad/empty.jpg"
printf 'not an image' >"$out/bad/garbled.jpg"
"$fv" "$out/bad" --codec gpu --format jpeg -o "$out/bad_out/" >"$out/bad.log" 2>&1
code=$?
[ "$code" = 1 ] || fail "a folder with bad files: exit $code, not 1: $(cat "$out/bad.log")"
grep -q "empty.jpg' is empty (skipped)" "$out/bad.log" || fail "the empty file: $(cat "$out/bad.log")"
grep -q "garbled.jpg' is not an image .*(skipped)" "$out/bad.log" || fail "the garbled file: $(cat "$out/bad.log")"
grep -Eq "^filtered $n of $((n + 2)) images .*; 2 failed$" "$out/bad.log" || fail "bad files: $(cat "$out/bad.log")"
[ "$(ls "$out/bad_out" | wc -l)" = "$n" ] || fail "bad files: not $n outputs"
# interrupted mid-batch: no temporary file left. A background command of a non-interactive shell
# ignores SIGINT, so python puts its default action back before starting the program.
"$check" --photos "$out/big" 1 1600x1200 >/dev/null || fail "cannot write a photo"
for i in $(seq 1 399); do cp "$out/big/photo0000.jpg" "$out/big/p$i.jpg" || fail "cp"; done
for sig in INT TERM; do
  rm -rf "$out/stop" && mkdir -p "$out/stop" || fail "mkdir"
  /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$fv" "$out/big" --codec gpu --format jpeg -o "$out/stop/" \
    >/dev/null 2>&1 </dev/null &
  pid=$!
  waited=0
  until [ "$(ls "$out/stop" | wc -l)" -ge 20 ] || [ $waited -ge 2000 ]; do
    sleep 0.01; waited=$((waited + 1))
  done
  kill -$sig $pid 2>/dev/null
  wait $pid
  code=$?
  written=$(ls "$out/stop" | grep -vc '\.tmp-')
  echo "SIG$sig after $written of 400 files: exit $code"
  left=$(ls -a "$out/stop" | grep '\.tmp-')
  [ -z "$left" ] || fail "SIG$sig at $written of 400 files left $left"
  [ "$written" -lt 400 ] && [ "$code" = 0 ] && fail "SIG$sig mid-batch, yet exit 0"
done
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
