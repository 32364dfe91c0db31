#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/gpu/pipeline_gpu.sh BUILD OUT: the GPU JPEG codec's folder pipeline on a GPU machine, after
# a build with nvJPEG in BUILD (nothing is built here), run from the repository root; everything
# lands in OUT. Three steps, each said with its exit status:
#   1. ctest's GPU codec tests (gpu_codec_folder, gpu_jpeg_codec) and the hand-overs (stage_hub);
#   2. compute-sanitizer's memcheck over a --codec gpu folder batch of the JPEG corpus copied
#      twice (more files than the images in flight, the CMYK fallback among them);
#   3. tests/cli/bench_io.py --build BUILD: the table of docs/perf/io.md, into OUT/io_bench.md.
# Exits 1 if any step failed; each step has a time limit (a hang shows as exit 124).
#   sh tests/gpu/pipeline_gpu.sh /tmp/b "$OUT"
# -------------------------------------------------------------------------------------------------
set -u
b="${1:-/tmp/b}" out="${2:-${OUT:-/tmp/pipeline_gpu}}"
mkdir -p "$out" || exit 1
failed=0
step() { echo "== $1: exit $2"; [ "$2" = 0 ] || failed=1; }

# time limits well inside a few minutes: a pipeline that waited for ever would show as a timeout
ctest --test-dir "$b" -R 'gpu_codec|gpu_jpeg|stage_hub' -j3 --timeout 240 -V >"$out/ctest.log" 2>&1
step "ctest -R 'gpu_codec|gpu_jpeg|stage_hub' (all output in ctest.log)" $?
grep -E "filtered [0-9]+ of|stages busy|SIG(INT|TERM) after|in flight|same bytes|FAIL|codec_gpu: ok|passed, |Test +#|tests passed|tests failed" \
  "$out/ctest.log"

mc="$out/memcheck"
rm -rf "$mc" && mkdir -p "$mc/in"
FV_JPEG_QUICK=1 "$b/tests/jpeg_gpu_check" --corpus "$mc/in" >/dev/null
for f in "$mc"/in/*; do cp "$f" "$mc/in/again_$(basename "$f")"; done
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 150 "$cs" --tool memcheck --error-exitcode 9 "$b/filterview" "$mc/in" -f gaussian --sigma 2 \
  --codec gpu --format jpeg --stats -o "$mc/out/" >"$out/memcheck.log" 2>&1
step "memcheck over a --codec gpu folder of $(ls "$mc/in" | wc -l) JPEGs" $?
grep -E "^filtered|^stages|ERROR SUMMARY" "$out/memcheck.log"

timeout 300 /usr/bin/python3 tests/cli/bench_io.py --build "$b" --out "$out/io_bench.md" >"$out/bench.log" 2>&1
step "bench_io.py --build $b" $?
cat "$out/io_bench.md" 2>/dev/null || tail -20 "$out/bench.log"
exit $failed
