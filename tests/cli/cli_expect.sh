#!/bin/sh
# tests/cli/cli_expect.sh: runs one filterview command line and checks what a user would see.
#   cli_expect.sh [--gpu | --no-gpu] [--env VAR=VALUE] [--creates FILE] [--absent FILE]
#                 [--stderr-lines N] EXIT REGEX PROGRAM ARGS...
#   cli_expect.sh [...] --silent EXIT PROGRAM ARGS...
# Passes when PROGRAM exits with EXIT, its output (stdout + stderr) matches the extended REGEX,
# a failing run printed exactly one line on stderr (--stderr-lines N: N lines, whatever the exit:
# --compare's 1 is an answer, not a failure), --creates FILE is a PNG, and --absent FILE
# (with any FILE.tmp-*) does not exist. --silent: nothing at all is printed (and no REGEX is given:
# CMake drops an empty argument). --gpu / --no-gpu: exit 77 (skipped) unless the machine has /
# lacks a usable CUDA device, asked through `PROGRAM --info`.
need=""; creates=""; absent=""; stderr_lines=""; silent=""
while :; do
  case "$1" in
    --gpu) need=gpu; shift ;;
    --no-gpu) need=nogpu; shift ;;
    --creates) creates="$2"; shift 2 ;;
    --absent) absent="$2"; shift 2 ;;
    --env) export "$2"; shift 2 ;;
    --stderr-lines) stderr_lines="$2"; shift 2 ;;
    --silent) silent=1; stderr_lines=0; shift ;;
    *) break ;;
  esac
done
if [ -n "$silent" ]; then want_exit="$1"; regex=""; shift 1; else want_exit="$1"; regex="$2"; shift 2; fi
program="$1"
if [ -n "$need" ]; then
  if "$program" --info >/dev/null 2>&1; then has=gpu; else has=nogpu; fi
  if [ "$has" != "$need" ]; then echo "skipped: needs $need, this machine is $has"; exit 77; fi
fi
[ -n "$creates" ] && rm -f "$creates"
out=$(mktemp); err=$(mktemp)
"$@" >"$out" 2>"$err" </dev/null
code=$?
cat "$out" "$err"
fail() { echo "FAIL: $*"; rm -f "$out" "$err"; exit 1; }
[ "$code" = "$want_exit" ] || fail "exit status $code, expected $want_exit"
if [ -n "$silent" ]; then
  [ -s "$out" ] || [ -s "$err" ] && fail "expected no output at all"
else
  cat "$out" "$err" | grep -Eq -- "$regex" || fail "output does not match /$regex/"
fi
if [ -n "$stderr_lines" ]; then
  lines=$(wc -l <"$err")
  [ "$lines" = "$stderr_lines" ] || fail "expected $stderr_lines lines on stderr, got $lines"
elif [ "$want_exit" != 0 ]; then
  lines=$(wc -l <"$err")
  [ "$lines" = 1 ] || fail "expected one line on stderr, got $lines"
fi
if [ -n "$creates" ]; then
  [ -f "$creates" ] || fail "$creates was not written"
  head -c 8 "$creates" | od -An -c | grep -q "P   N   G" || fail "$creates is not a PNG"
fi
if [ -n "$absent" ]; then
  [ -e "$absent" ] && fail "$absent exists"
  ls "$absent".tmp-* >/dev/null 2>&1 && fail "a temporary file $absent.tmp-* was left"
fi
rm -f "$out" "$err"
exit 0
