#!/bin/sh
# tests/viewer/user_case.sh: one replayed viewer run with the user's own kernel (user=FILE), live.
#   user_case.sh [--gpu|--nogpu] [--memcheck MC_REGEX MC_ONCE] FILTERVIEW CHECK DIR START SWAP
#                CODE REGEX ABSENT ONCE -- VIEWER ARGS... [--check MODE REF_A [REF_B]]
# DIR is made afresh: kernel.cu (a copy of START: the file the viewer watches), the compile cache
# (XDG_CACHE_HOME) and shot.png. @KERNEL@ in a viewer argument is DIR/kernel.cu. SWAP ("-": none)
# is the file that --keys <swap-source> saves over it (FILTERVIEW_SWAP_SOURCE). Passes when the
# viewer exits CODE, its output (stdout and stderr) matches the extended REGEX, does not match
# ABSENT ("-": no such test), has exactly one line matching ONCE ("-": no such test), reports no
# OpenGL error, and (with --check) `CHECK MODE DIR/shot.png REF_A REF_B` passes.
# --gpu: exit 77 (skipped) without a usable CUDA device; --nogpu: exit 77 with one.
# --memcheck: where compute-sanitizer is found as the viewer looks for it (PATH, $CUDA_HOME/bin,
# /usr/local/cuda/bin), a new kernel runs under memcheck before it goes live, and the output must
# match MC_REGEX and MC_ONCE in place of REGEX and ONCE.
gpu=0
[ "$1" = "--gpu" ] && { gpu=1; shift; }
[ "$1" = "--nogpu" ] && { gpu=2; shift; }
mc_regex="" mc_once=""
[ "$1" = "--memcheck" ] && { mc_regex="$2"; mc_once="$3"; shift 3; }
fv="$1" check="$2" dir="$3" start="$4" swap="$5" code="$6" regex="$7" absent="$8" once="$9"
shift 9
if [ -n "$mc_regex" ]; then
  sanitizer=$(command -v compute-sanitizer)
  for d in "${CUDA_HOME:+$CUDA_HOME/bin}" /usr/local/cuda/bin; do
    [ -z "$sanitizer" ] && [ -n "$d" ] && [ -x "$d/compute-sanitizer" ] && sanitizer="$d/compute-sanitizer"
  done
  if [ -n "$sanitizer" ]; then
    echo "checks: $sanitizer is here: memcheck checks the kernel before it goes live"
    regex="$mc_regex" once="$mc_once"
  else
    echo "checks: no compute-sanitizer here: the kernel goes live unchecked"
  fi
fi
[ "$1" = "--" ] && shift
if [ "$gpu" = 1 ] && ! "$fv" --info >/dev/null 2>&1; then echo "skipped: no CUDA device"; exit 77; fi
if [ "$gpu" = 2 ] && "$fv" --info >/dev/null 2>&1; then echo "skipped: a CUDA device is here"; exit 77; fi
rm -rf "$dir" && mkdir -p "$dir" || exit 1
kernel="$dir/kernel.cu"
cp "$start" "$kernel" || exit 1
# the viewer's arguments with @KERNEL@ filled in; what follows --check is the screenshot's check
n=$# i=0 mode="" ref_a="" ref_b="" in_check=0
while [ $i -lt $n ]; do
  a="$1"; shift; i=$((i + 1))
  if [ "$in_check" = 1 ]; then
    if [ -z "$mode" ]; then mode="$a"; elif [ -z "$ref_a" ]; then ref_a="$a"; else ref_b="$a"; fi
    continue
  fi
  [ "$a" = "--check" ] && { in_check=1; continue; }
  case "$a" in *@KERNEL@*) a=$(printf '%s' "$a" | sed "s|@KERNEL@|$kernel|g") ;; esac
  set -- "$@" "$a"
done
then=""
[ "$swap" != "-" ] && then=", then saved over by $(basename "$swap")"
echo "checks: $(basename "$start") in a pane$then: exit $code, output /$regex/"
[ "$absent" != "-" ] && echo "checks: no output line /$absent/"
[ "$once" != "-" ] && echo "checks: exactly one line /$once/ (said once)"
[ -n "$mode" ] && echo "checks: the screenshot ($mode) against $ref_a ${ref_b}"
log="$dir/log.txt"
if [ "$swap" != "-" ]; then
  FILTERVIEW_SWAP_SOURCE="$swap" XDG_CACHE_HOME="$dir/cache" "$fv" "$@" --screenshot "$dir/shot.png" >"$log" 2>&1 </dev/null
else
  XDG_CACHE_HOME="$dir/cache" "$fv" "$@" --screenshot "$dir/shot.png" >"$log" 2>&1 </dev/null
fi
got=$?
cat "$log"
fail() { echo "FAIL: $1"; exit 1; }
[ "$got" = "$code" ] || fail "viewer exited $got, expected $code"
grep -Eq -- "$regex" "$log" || fail "output does not match /$regex/"
[ "$absent" = "-" ] || ! grep -Eq -- "$absent" "$log" || fail "output matches /$absent/"
if [ "$once" != "-" ]; then
  c=$(grep -Ec -- "$once" "$log")
  [ "$c" = 1 ] || fail "/$once/ is said $c times, expected once"
fi
grep -q "OpenGL error" "$log" && fail "OpenGL reported an error"
[ -z "$mode" ] && { echo "passed"; exit 0; }
set -- "$mode" "$dir/shot.png"
[ -n "$ref_a" ] && [ "$ref_a" != "-" ] && set -- "$@" "$ref_a"
[ -n "$ref_b" ] && [ "$ref_b" != "-" ] && set -- "$@" "$ref_b"
exec "$check" "$@"
