#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/progress_signal_case.sh FILTERVIEW IMAGE OUTDIR: a folder batch on a terminal (script(1)
# gives it one) is ended by SIGTERM while its progress bar is drawn: the bar's line must be erased
# ("\r\033[K" after the last bar) and no temporary file left. SIGTERM, not SIGINT: a command started
# in the background by a non-interactive shell ignores SIGINT. Skipped (77) without script(1).
# -------------------------------------------------------------------------------------------------
fv="$1"; image="$2"; out="$3"
command -v script >/dev/null || { echo "skipped: no script(1)"; exit 77; }
rm -rf "$out" && mkdir -p "$out/in" "$out/out" || exit 1
i=0
while [ $i -lt 200 ]; do cp "$image" "$out/in/a$i.png" || exit 1; i=$((i + 1)); done
script -qfc "sh -c 'echo \$\$ > \"$out/pid\"; exec \"$fv\" \"$out/in\" -f median --size 25 -v cpu -o \"$out/out/\"'" \
  "$out/typescript" >/dev/null 2>&1 &
waited=0
until grep -q 'images/s' "$out/typescript" 2>/dev/null; do
  sleep 0.2; waited=$((waited + 1))
  [ $waited -lt 300 ] || { echo "FAIL: no progress bar drawn"; exit 1; }
done
kill -TERM "$(cat "$out/pid")"
wait
cat -v "$out/typescript"; echo
# the last bar is followed by the erase; nothing but the erase may come after it
last=$(tr '\r' '\n' <"$out/typescript" | grep -n 'images/s' | tail -1 | cut -d: -f1)
tr '\r' '\n' <"$out/typescript" | sed -n "$((last + 1))p" | grep -q "$(printf '\033')\\[K" ||
  { echo "FAIL: the progress line was not erased"; exit 1; }
ls "$out/out" | grep -q 'tmp-' && { echo "FAIL: a temporary file was left"; exit 1; }
exit 0
