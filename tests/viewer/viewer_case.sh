#!/bin/sh
# tests/viewer/viewer_case.sh: one replayed viewer run, checked by the content of its screenshot.
#   viewer_case.sh [--gpu] FILTERVIEW CHECK SHOT REGEX MODE REF_A REF_B -- VIEWER ARGS...
# Runs FILTERVIEW VIEWER ARGS --screenshot SHOT; passes when it exits 0, its output matches the
# extended REGEX and reports no OpenGL error, and `CHECK MODE SHOT REF_A REF_B` (check_screenshot)
# passes. REF_* may be "-".
# --gpu: exit 77 (skipped) without a usable CUDA device; --nogpu: exit 77 with one (the case
# checks what the viewer does without a GPU).
gpu=0
[ "$1" = "--gpu" ] && { gpu=1; shift; }
[ "$1" = "--nogpu" ] && { gpu=2; shift; }
fv="$1" check="$2" shot="$3" regex="$4" mode="$5" ref_a="$6" ref_b="$7"
shift 7
[ "$1" = "--" ] && shift
if [ "$gpu" = 1 ] && ! "$fv" --info >/dev/null 2>&1; then echo "skipped: no CUDA device"; exit 77; fi
if [ "$gpu" = 2 ] && "$fv" --info >/dev/null 2>&1; then echo "skipped: a CUDA device is here"; exit 77; fi
rm -f "$shot"
log=$(mktemp)
"$fv" "$@" --screenshot "$shot" >"$log" 2>&1 </dev/null
code=$?
# under xvfb-run the new X server now and then refuses the very first connection (about one run
# in fifteen, "failed to open display"): once more after a pause; a display that stays closed fails
if [ "$code" != 0 ] && grep -q "failed to open display" "$log"; then
  sleep 1
  "$fv" "$@" --screenshot "$shot" >"$log" 2>&1 </dev/null
  code=$?
fi
cat "$log"
if [ "$code" != 0 ]; then echo "FAIL: viewer exited $code"; rm -f "$log"; exit 1; fi
if ! grep -Eq -- "$regex" "$log"; then echo "FAIL: output does not match /$regex/"; rm -f "$log"; exit 1; fi
if grep -q "OpenGL error" "$log"; then echo "FAIL: OpenGL reported an error"; rm -f "$log"; exit 1; fi
rm -f "$log"
set -- "$mode" "$shot"
[ "$ref_a" != "-" ] && set -- "$@" "$ref_a"
[ "$ref_b" != "-" ] && set -- "$@" "$ref_b"
exec "$check" "$@"
