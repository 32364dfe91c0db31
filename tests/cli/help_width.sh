#!/bin/sh
# tests/cli/help_width.sh FILTERVIEW: every line of `filterview --help` fits 80 columns (counted in
# characters, as a UTF-8 terminal shows them). Prints each line that does not.
fv=$1
help=$("$fv" --help) || { echo "FAIL: --help exited non-zero"; exit 1; }
wide=0
printf '%s\n' "$help" >"${TMPDIR:-/tmp}/help_width.$$"
while IFS= read -r line; do
  n=$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -m)
  if [ "$n" -gt 80 ]; then echo "$n columns: $line"; wide=$((wide + 1)); fi
done <"${TMPDIR:-/tmp}/help_width.$$"
rm -f "${TMPDIR:-/tmp}/help_width.$$"
[ $wide = 0 ] || { echo "FAIL: $wide lines of --help are wider than 80 columns"; exit 1; }
echo "--help fits 80 columns ($(printf '%s\n' "$help" | wc -l) lines)"
