#!/bin/sh
# tests/cli/readme_block.sh README HEADING -- COMMAND...: the first ``` block after the line HEADING in
# README must be exactly what COMMAND prints (so the README's --help stays the program's).
readme="$1" heading="$2"
shift 2
[ "$1" = "--" ] && shift
block=$(awk -v h="$heading" '$0 == h { found = 1; next } found && /^```/ { if (inside) exit; inside = 1; next } inside { print }' "$readme")
[ -n "$block" ] || { echo "FAIL: no \`\`\` block after a line '$heading' in $readme"; exit 1; }
printed=$("$@") || { echo "FAIL: $* exited non-zero"; exit 1; }
if [ "$block" != "$printed" ]; then
  echo "FAIL: the block after '$heading' in $readme differs from what '$*' prints:"
  printf '%s\n' "$printed" >/tmp/readme_block_printed.$$
  printf '%s\n' "$block" | diff - /tmp/readme_block_printed.$$ | head -20
  rm -f /tmp/readme_block_printed.$$
  exit 1
fi
echo "README block after '$heading' matches"
