#!/bin/bash
# tests/gpu/viewer_gpu_check.sh: the viewer's GPU evidence in one go, for a machine with a CUDA GPU (see
# README, "Contributing"): configure + build, the whole CTest suite, --bench-frames at 3840x2160
# for each interop path, and compute-sanitizer memcheck on a replayed viewer run (buffer
# interop, every compare mode, a resize) and over the quick GPU tests. Logs go to $OUT.
#   bash tests/gpu/viewer_gpu_check.sh "$OUT" [frames]
# Exits 1 when any step failed (each is named at the end), 0 when all passed.
set -u -o pipefail
dest="${1:?usage: viewer_gpu_check.sh OUTDIR [frames]}"
frames="${2:-300}"
build=/tmp/fv-build
failed=""
step() { # name, exit code: a non-zero code fails the run
  [ "$2" = 0 ] || { failed="$failed $1"; echo "FAILED: $1 (exit $2)"; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$dest/configure.log" 2>&1 \
  || { tail -20 "$dest/configure.log"; exit 1; }
cmake --build "$build" -j16 >"$dest/build.log" 2>&1 || { grep -E "error" "$dest/build.log" | head -30; exit 1; }
echo "== ctest"
(cd "$build" && ctest -j8 --output-on-failure 2>&1) >"$dest/ctest.log"
step ctest $?
grep -E "tests passed|Failed|\*\*\*|MISMATCH|passed, " "$dest/ctest.log"
echo "== bench-frames, 3840x2160, $frames frames"
for how in buffer texture pbo staging; do
  echo "-- fit to the 1280x720 window, HUD on, --interop $how"
  "$build/filterview" --random 3840x2160 --headless -a fast -b original --interop "$how" \
    --bench-frames "$frames" 2>&1 | grep -E "bench-frames|error"
  step "bench-frames $how" "${PIPESTATUS[0]}"
done
echo "-- the same at 1:1 (z: nearest texels), buffer path"
"$build/filterview" --random 3840x2160 --headless -a fast -b original --keys z --bench-frames "$frames" 2>&1 \
  | grep -E "bench-frames|error"
step "bench-frames 1:1" "${PIPESTATUS[0]}"
echo "-- both panes computed: fast and smem_mwpt, wipe, buffer path"
"$build/filterview" --random 3840x2160 --headless -a fast -b smem_mwpt --keys c --bench-frames "$frames" 2>&1 \
  | grep -E "bench-frames|error"
step "bench-frames wipe" "${PIPESTATUS[0]}"
echo "== compute-sanitizer memcheck, replayed viewer (buffer interop)"
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/filterview" assets/astronaut.png --headless \
  -a fast -b smem --keys "zcccc<Tab><Tab>b<PgUp>t<777x555>]" --frames 20 --screenshot "$dest/sanitized.png" \
  >"$dest/sanitizer-viewer.log" 2>&1
code=$?
echo "memcheck: exit $code | $(grep -E "ERROR SUMMARY|viewer:" "$dest/sanitizer-viewer.log" | tr '\n' ' ')"
step "memcheck viewer" "$code"
echo "== compute-sanitizer memcheck, GPU tests (quick set: kernels and the diff)"
FV_TEST_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/test_filters" \
  >"$dest/sanitizer-filters.log" 2>&1
code=$?
echo "memcheck: exit $code | $(grep -E "ERROR SUMMARY|passed, " "$dest/sanitizer-filters.log" | tr '\n' ' ')"
step "memcheck GPU tests" "$code"
if [ -n "$failed" ]; then
  echo "viewer_gpu_check: FAILED:$failed"
  exit 1
fi
echo "viewer_gpu_check: all steps passed"
