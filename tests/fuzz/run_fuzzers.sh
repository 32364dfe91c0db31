#!/bin/sh
# tests/fuzz/run_fuzzers.sh: runs each libFuzzer harness of a FV_FUZZ build for a bounded time,
# starting from the seed corpus in tests/fuzz/corpus (copied: the seeds stay as they are).
# Prints one line per harness (time, executions, corpus size) and exits 1 on any finding (a
# crash, a sanitizer report, a leak, a timeout or running out of memory); the input that caused
# it is kept in WORK/<harness>/ as crash-*, leak-*, timeout-* or oom-*.
#   sh tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_EACH (60)] [WORK (a temporary folder)]
set -u
build="${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS_EACH] [WORK]}"
seconds="${2:-60}"
work="${3:-$(mktemp -d)}"
here="$(cd "$(dirname "$0")" && pwd)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:protect_shadow_gap=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for name in image_load cli keys; do
  exe="$build/tests/fuzz/fuzz_$name"
  seeds="$here/corpus/${name%_load}"
  out="$work/fuzz_$name"
  mkdir -p "$out/corpus"
  if [ ! -x "$exe" ]; then echo "fuzz_$name: not built (configure with -DFV_FUZZ=ON, clang)"; status=1; continue; fi
  dict=""
  [ -f "$here/${name}.dict" ] && dict="-dict=$here/${name}.dict"
  # -rss_limit_mb: an image may legally take 1 GiB (FV_MAX_PIXELS of RGBA8) plus the file
  "$exe" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -malloc_limit_mb=3072 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$out/" $dict \
    "$out/corpus" "$seeds" >"$out/log" 2>&1
  code=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
  secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/log")
  files=$(ls "$out/corpus" | wc -l)
  if [ "$code" = 0 ]; then
    echo "fuzz_$name: ok, ${seconds} s, ${execs:-?} executions (${secs:-?}/s), corpus $files inputs"
  else
    echo "fuzz_$name: FINDING (exit $code) after ${execs:-?} executions; input kept in $out/"
    grep -E "ERROR|SUMMARY|runtime error|==[0-9]+==" "$out/log" | head -8
    status=1
  fi
done
exit $status
