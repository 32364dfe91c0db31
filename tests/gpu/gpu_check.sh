#!/bin/bash
# tests/gpu/gpu_check.sh: the whole GPU evidence in one go, for a machine with a CUDA GPU (see README,
# "Contributing"): configure + build, the full CTest suite, compute-sanitizer memcheck and
# racecheck over the GPU tests, and the benchmark. Logs and CSV go to the folder given ($OUT).
#   bash tests/gpu/gpu_check.sh "$OUT" [extra bench args...]
set -u -o pipefail
dest="${1:?usage: gpu_check.sh OUTDIR [bench args]}"; shift
out=/tmp/fv-logs
build=/tmp/fv-build
mkdir -p "$out"
trap 'tar -C "$out" -czf "$dest/logs.tar.gz" . 2>/dev/null' EXIT
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 \
  || { tail -20 "$out/configure.log"; exit 1; }
grep -E "NPP|OpenGL|GLUT|GLEW|EGL" "$out/configure.log"
cmake --build "$build" -j16 >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "== ctest"
(cd "$build" && ctest --output-on-failure 2>&1) | tee "$out/ctest.log" | grep -E "tests passed|Failed|\*\*\*|random seed|all variants|MISMATCH|passed,"
echo "== GPU tests, directly"
"$build/tests/test_filters" 2>&1 | grep -E "random seed|all variants|MISMATCH|passed, "
echo "== compute-sanitizer (quick GPU test set)"
for tool in memcheck racecheck synccheck initcheck; do
  FV_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/test_filters" \
    >"$out/sanitizer-$tool.log" 2>&1
  echo "$tool: exit $? | $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$out/sanitizer-$tool.log" | tr '\n' ' ')"
done
echo "== bench"
"$build/filterview" --bench --csv "$dest/bench.csv" "$@" 2>"$out/bench.err" | tee "$dest/bench.md"
