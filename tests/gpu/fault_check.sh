#!/bin/sh
# tests/gpu/fault_check.sh: on a GPU machine, what a user kernel's run under memcheck costs and
# whether the suite keeps to its time limits: the suite without the fault tests twice, each test's
# time listed (none may pass 60 s: ctest fails it), then the fault tests (label gpu-fault) with
# memcheck's findings and the two timed viewer runs around them, then the cost of the check per
# save (a viewer started with one user kernel, saved once, with and without the check), and the
# kernel log's Xid lines before and after.
#   [SUITE_RUNS=2] [JOBS=8] sh tests/gpu/fault_check.sh BUILD OUT
# BUILD: a configured and built tree; OUT: a folder for the logs (made). SUITE_RUNS: how many
# times the suite runs (0: none, only the fault tests and the cost); JOBS: ctest -j for it. Exit 1
# when a ctest run failed. Needs a CUDA GPU and compute-sanitizer (the CUDA toolkit); exits 77
# without a GPU.
build="${1:?usage: fault_check.sh BUILD OUT}" out="${2:?usage: fault_check.sh BUILD OUT}"
fv="$build/filterview"
"$fv" --info >/dev/null 2>&1 || { echo "fault_check.sh: skipped: no CUDA device"; exit 77; }
mkdir -p "$out" || exit 1
status=0
xids() { (dmesg 2>/dev/null || journalctl -k 2>/dev/null) | grep -c "NVRM: Xid"; }
echo "kernel log Xid lines before: $(xids)"

run=0
while [ "$run" -lt "${SUITE_RUNS:-2}" ]; do
  run=$((run + 1))
  ctest --test-dir "$build" -j"${JOBS:-8}" -LE gpu-fault --output-on-failure >"$out/suite$run.log" 2>&1 ||
    status=1
  echo "suite run $run: $(grep -E "tests passed|tests failed" "$out/suite$run.log")"
  echo "  slowest: $(grep -E "Test +#" "$out/suite$run.log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' |
    sort -rn | head -5 | tr '\n' ',')"
done

ctest --test-dir "$build" -L gpu-fault -V >"$out/faults.log" 2>&1 || status=1
echo "fault tests: $(grep -E "tests passed|tests failed" "$out/faults.log")"
grep -E "Test +#[0-9]+: " "$out/faults.log" | sed 's/^[0-9]*: */  /'
grep -E "found by memcheck|HUD red row|viewer run: |no compute-sanitizer" "$out/faults.log" |
  sort | uniq | sed 's/^/  /'

# the check's cost per save: one start and one save of a user kernel, with and without it
work="$out/save_cost"
rm -rf "$work" && mkdir -p "$work" || exit 1
here=$(cd "$(dirname "$0")/../.." && pwd)
for check in 1 0; do
  cp "$here/examples/kernels/gaussian_naive.cu" "$work/kernel$check.cu"
  start=$(date +%s.%N)
  FILTERVIEW_MEMCHECK=$check FILTERVIEW_SWAP_SOURCE="$here/examples/kernels/gaussian_smem.cu" \
    XDG_CACHE_HOME="$work/cache$check" "$fv" "$here/assets/astronaut.png" --headless \
    -a "gaussian:user=$work/kernel$check.cu" -b cpu --keys "<swap-source><wait-compile>" \
    --frames 3 >"$work/viewer$check.log" 2>&1
  end=$(date +%s.%N)
  echo "viewer with a start and a save, FILTERVIEW_MEMCHECK=$check: $(awk -v s="$start" -v e="$end" \
    'BEGIN { printf "%.2f", e - s }') s; $(grep -E "compiled|recompiled" "$work/viewer$check.log" |
    tr '\n' ' ')"
done
echo "kernel log Xid lines after: $(xids)"
exit $status
