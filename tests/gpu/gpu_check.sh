#!/bin/bash
# tests/gpu/gpu_check.sh: the whole GPU evidence in one go, for a machine with a CUDA GPU (see README,
# "Contributing"): configure + build, the full CTest suite, compute-sanitizer memcheck and
# racecheck over the GPU tests, and the benchmark. Logs and CSV go to the folder given ($OUT).
#   bash tests/gpu/gpu_check.sh "$OUT" [extra bench args...]
# Exits 1 when any step failed (each is named at the end), 0 when all passed: the greps below only
# show lines, they decide nothing.
set -u -o pipefail
dest="${1:?usage: gpu_check.sh OUTDIR [bench args]}"; shift
out=/tmp/fv-logs
build=/tmp/fv-build
mkdir -p "$out"
trap 'tar -C "$out" -czf "$dest/logs.tar.gz" . 2>/dev/null' EXIT
failed=""
step() { # name, exit code: a non-zero code fails the run
  [ "$2" = 0 ] || { failed="$failed $1"; echo "FAILED: $1 (exit $2)"; }
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 \
  || { tail -20 "$out/configure.log"; exit 1; }
grep -E "NPP|OpenGL|GLUT|GLEW|EGL" "$out/configure.log"
cmake --build "$build" -j16 >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "== ctest"
(cd "$build" && ctest --output-on-failure 2>&1) | tee "$out/ctest.log" | grep -E "tests passed|Failed|\*\*\*|random seed|all variants|MISMATCH|passed,|ran on no case"
step ctest "${PIPESTATUS[0]}"
echo "== GPU tests, directly"
"$build/tests/test_filters" >"$out/test_filters.log" 2>&1
code=$?
grep -E "random seed|all variants|MISMATCH|passed, |ran on no case|declined|skipped" "$out/test_filters.log"
step test_filters "$code" # 77 (no device) fails here: this script is the GPU evidence
echo "== compute-sanitizer (quick GPU test set)"
for tool in memcheck racecheck synccheck initcheck; do
  FV_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/test_filters" \
    >"$out/sanitizer-$tool.log" 2>&1
  code=$?
  echo "$tool: exit $code | $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$out/sanitizer-$tool.log" | tr '\n' ' ')"
  step "compute-sanitizer $tool" "$code"
done
echo "== bench"
"$build/filterview" --bench --csv "$dest/bench.csv" "$@" 2>"$out/bench.err" | tee "$dest/bench.md"
step bench "${PIPESTATUS[0]}"
if [ -n "$failed" ]; then
  echo "gpu_check: FAILED:$failed"
  exit 1
fi
echo "gpu_check: all steps passed"
