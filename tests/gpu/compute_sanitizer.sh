#!/bin/sh
# tests/gpu/compute_sanitizer.sh: NVIDIA compute-sanitizer (memcheck, racecheck, initcheck, synccheck)
# over the GPU side: the GPU tests (every filter x variant x awkward size, 1x1 and primes
# included: test_filters, its quick set), each filter's every GPU variant from `filterview
# --list` compared with the CPU reference on a 37x23 image, and a replayed headless viewer run
# (every compare mode, a resize, the all-variants chart). Prints one summary line per tool; logs
# go to OUT. Needs a CUDA GPU and compute-sanitizer (CUDA toolkit); exits 77 without them.
#   sh tests/gpu/compute_sanitizer.sh BUILD_DIR [OUT]
# The whole run takes long (the quick GPU tests under every tool): TOOLS="racecheck synccheck"
# runs only those tools and FILTER=median only that filter (its GPU tests and its variants), so
# the run can be split into pieces, run side by side (one OUT each); VIEWER=no leaves out the
# replayed viewer (run it in one piece only); SHARDS=N runs the GPU tests as N processes side by
# side (FV_TEST_SHARD), for the tools and filters whose tests take longest (racecheck).
# racecheck and initcheck run the GPU tests on the small sizes only (FV_TEST_QUICK=2: up to 4096
# pixels, 1x1 to 31x17, 130x3, 3x130, each several blocks wide or tall): their cost grows with
# every shared-memory access, and a hazard shows within a block whatever the image's size.
set -u
build="${1:?usage: compute_sanitizer.sh BUILD_DIR [OUT]}"
out="${2:-$build/compute-sanitizer}"
fv="$build/filterview"
src="$(cd "$(dirname "$0")/../.." && pwd)"
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
[ -x "$cs" ] || { echo "compute_sanitizer.sh: skipped: no compute-sanitizer (CUDA toolkit)"; exit 77; }
[ -x "$fv" ] && [ -x "$build/tests/test_filters" ] || { echo "compute_sanitizer.sh: build $build first"; exit 1; }
"$fv" --info >/dev/null 2>&1 || { echo "compute_sanitizer.sh: skipped: no usable CUDA GPU ($("$fv" --info 2>&1 | head -1))"; exit 77; }
mkdir -p "$out"
image="$build/tests/fixtures/good.png" # 37x23: no block size divides it
[ -f "$image" ] || (cd "$build" && ctest -R '^cli_fixtures$' >/dev/null 2>&1)
[ -f "$image" ] || { echo "compute_sanitizer.sh: no $image (ctest -R cli_fixtures)"; exit 1; }
# "filter variant iterations" for every GPU variant (cpu is the host reference): 2 iterations
# where the filter can iterate (it lists --iters), else 1
variants=$("$fv" --list | awk '/^[a-z]/ { f = $1; it[f] = 1 } /^  --iters/ { it[f] = 2 }
  /^  [a-z]/ && $1 != "cpu" { v[++n] = f " " $1 } END { for (i = 1; i <= n; i++) { split(v[i], a, " "); print v[i], it[a[1]] } }')
printf '%s\n' "$variants" >"$out/variants.txt"
# no variant listed (a --list that failed or changed its form) would check nothing and pass
[ -n "$variants" ] || { echo "compute_sanitizer.sh: no GPU variants in '$fv --list'"; exit 1; }
count() { # name, exit code: counts one finished run and its log's errors
  name="$1" code="$2"
  log="$out/$tool-$name.log"
  runs=$((runs + 1))
  n=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p; s/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$log" | tail -1)
  errors=$((errors + ${n:-0}))
  # --compare answers 1 when the two differ (the NPP peers do, within their bounds): an answer,
  # not a failure; whether a variant is right is test_filters' question, memory is this one's
  case "$name:$code" in compare-*:1) code=0 ;; esac
  if [ "$code" != 0 ]; then failed=$((failed + 1)); echo "  $tool $name: exit $code (see $log)"; fi
}
run() { # name, command...: one run under $tool, counted
  name="$1"; shift
  "$cs" --tool "$tool" $extra --error-exitcode 9 "$@" >"$out/$tool-$name.log" 2>&1
  count "$name" $?
}
run_tests() { # the quick GPU tests, in SHARDS processes side by side (one: log test_filters)
  shards="${SHARDS:-1}"
  quick=1
  case "$tool" in racecheck | initcheck) quick=2 ;; esac
  k=0
  while [ "$k" -lt "$shards" ]; do
    name=test_filters; [ "$shards" = 1 ] || name="test_filters-$k"
    ("$cs" --tool "$tool" $extra --error-exitcode 9 env FV_TEST_QUICK=$quick FV_TEST_FILTER="${FILTER:-}" \
       FV_TEST_SHARD="$k/$shards" "$build/tests/test_filters" >"$out/$tool-$name.log" 2>&1
     echo $? >"$out/$tool-$name.code") &
    k=$((k + 1))
  done
  wait
  k=0
  while [ "$k" -lt "$shards" ]; do
    name=test_filters; [ "$shards" = 1 ] || name="test_filters-$k"
    count "$name" "$(cat "$out/$tool-$name.code")"
    k=$((k + 1))
  done
}
status=0
if [ -n "${FILTER:-}" ]; then
  awk -v f="$FILTER" '$1 == f' "$out/variants.txt" >"$out/variants.tmp" && mv "$out/variants.tmp" "$out/variants.txt"
  [ -s "$out/variants.txt" ] || { echo "compute_sanitizer.sh: no GPU variants of filter '$FILTER'"; exit 2; }
fi
for tool in ${TOOLS:-memcheck racecheck initcheck synccheck}; do
  runs=0 failed=0 errors=0
  extra=""
  [ "$tool" = racecheck ] && extra="--racecheck-report hazard"
  run_tests
  while read -r f v iters; do
    run "compare-$f-$v" "$fv" "$image" -f "$f" --compare "$v" cpu --iters "$iters"
  done <"$out/variants.txt"
  [ "${VIEWER:-yes}" = no ] || run viewer "$fv" "$src/assets/astronaut.png" --headless -a fast -b smem \
    --keys "zcccc<Tab><Tab>b<PgUp>t<777x555>]" --frames 20 --screenshot "$out/viewer-$tool.png"
  echo "$tool: $runs runs (GPU tests${FILTER:+ of $FILTER}, $(wc -l <"$out/variants.txt") variants$([ "${VIEWER:-yes}" = no ] || echo ", replayed viewer")), $errors errors, $failed failed"
  [ "$failed" = 0 ] || status=1
done
exit $status
