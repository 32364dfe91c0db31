#!/bin/sh
# tests/cli/help_width.sh FILTERVIEW: every line of `filterview --help` fits 80 columns (counted in
# characters, as a UTF-8 terminal shows them), and each wrapped text stays indented under its
# option; --list fits 100 columns. Prints each line that does not.
fv=$1
help=$("$fv" --help) || { echo "FAIL: --help exited non-zero"; exit 1; }
wide=0
printf '%s\n' "$help" >"${TMPDIR:-/tmp}/help_width.$$"
while IFS= read -r line; do
  n=$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -m)
  if [ "$n" -gt 80 ]; then echo "$n columns: $line"; wide=$((wide + 1)); fi
done <"${TMPDIR:-/tmp}/help_width.$$"
# from "options:" on, every line is a section's title, an option, or a continuation indented
# under its text: a line at column 0 is a text that wrapped by itself
stray=$(sed -n '/^options:$/,/^Images:/p' "${TMPDIR:-/tmp}/help_width.$$" |
  grep -Ev '^(options|parameters|viewer):$|^  |^$|^Images:')
rm -f "${TMPDIR:-/tmp}/help_width.$$"
[ -z "$stray" ] || { echo "FAIL: --help lines that wrapped at column 0: $stray"; exit 1; }
[ $wide = 0 ] || { echo "FAIL: $wide lines of --help are wider than 80 columns"; exit 1; }
list=$("$fv" --list) || { echo "FAIL: --list exited non-zero"; exit 1; }
long=$(printf '%s\n' "$list" | LC_ALL=C.UTF-8 awk 'length($0) > 100')
[ -z "$long" ] || { echo "FAIL: --list lines wider than 100 columns: $long"; exit 1; }
echo "--help fits 80 columns ($(printf '%s\n' "$help" | wc -l) lines)"
