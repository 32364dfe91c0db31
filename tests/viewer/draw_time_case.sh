#!/bin/sh
# tests/viewer/draw_time_case.sh: how long a short headless viewer run takes on this GPU now, from
# its start to its exit, and how long its frames take (--bench-frames), for the record: after a
# kernel fault some drivers leave every OpenGL program on the GPU slow for minutes (Xid 109), so
# the fault tests (label gpu-fault) are framed by two of these runs.
#   draw_time_case.sh FILTERVIEW IMAGE RECORD [BASELINE]
# Writes the run's wall time (seconds) to RECORD; with BASELINE (an earlier run's RECORD), prints
# the ratio of the two. Passes when the viewer exits 0 and reports its frames; the times are
# reported, not held to a bound. Exit 77 (skipped) without a usable CUDA device.
fv="$1" image="$2" record="$3" baseline="$4"
if ! "$fv" --info >/dev/null 2>&1; then echo "skipped: no CUDA device"; exit 77; fi
log="$record.log"
start=$(date +%s.%N)
"$fv" "$image" --headless -a naive -b smem --keys c --bench-frames 60 >"$log" 2>&1 </dev/null
got=$?
end=$(date +%s.%N)
cat "$log"
[ "$got" = 0 ] || { echo "FAIL: the viewer exited $got"; exit 1; }
grep -q "^bench-frames: " "$log" || { echo "FAIL: no bench-frames line"; exit 1; }
wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
echo "$wall" >"$record"
if [ -n "$baseline" ] && [ -s "$baseline" ]; then
  before=$(cat "$baseline")
  echo "viewer run: $wall s from start to exit; before the fault tests: $before s ($(awk -v a="$wall" -v b="$before" 'BEGIN { printf "%.1f", b > 0 ? a / b : 0 }')x)"
else
  echo "viewer run: $wall s from start to exit"
fi
