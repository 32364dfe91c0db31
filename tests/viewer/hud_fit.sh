#!/bin/sh
# tests/viewer/hud_fit.sh: the HUD fits the window, drawn for real (headless EGL).
#   hud_fit.sh FILTERVIEW CHECK SHOT SCALE REGEX -- VIEWER ARGS...
# Runs FILTERVIEW VIEWER ARGS --screenshot SHOT and reads the summary line the viewer prints
# about the last frame's HUD: the box of every glyph quad it sent to GL, the font's scale and the
# window's size. Passes when the run exits 0 with no OpenGL error, that box lies inside the
# window, the scale is SCALE, the output matches the extended REGEX, and the screenshot is not
# blank (check_screenshot drawn).
fv="$1" check="$2" shot="$3" scale="$4" regex="$5"
shift 5
[ "$1" = "--" ] && shift
rm -f "$shot"
log=$(mktemp)
"$fv" "$@" --screenshot "$shot" >"$log" 2>&1 </dev/null
code=$?
cat "$log"
fail() { echo "FAIL: $1"; rm -f "$log"; exit 1; }
[ "$code" = 0 ] || fail "viewer exited $code"
grep -q "OpenGL error" "$log" && fail "OpenGL reported an error"
grep -Eq -- "$regex" "$log" || fail "output does not match /$regex/"
line=$(grep -E '^viewer: HUD [a-z]+, scale' "$log")
[ -n "$line" ] || fail "no HUD summary line (was any text drawn?)"
echo "$line" | sed -E 's/.*scale ([0-9]+), text within \((-?[0-9]+), (-?[0-9]+)\)-\((-?[0-9]+), (-?[0-9]+)\) of ([0-9]+)x([0-9]+).*/\1 \2 \3 \4 \5 \6 \7/' |
  awk -v want="$scale" 'NF != 7 { print "cannot read: " $0; exit 1 }
  $1 != want { print "scale " $1 ", expected " want; exit 1 }
  $2 < 0 || $3 < 0 || $4 > $6 || $5 > $7 {
    print "text drawn beyond the window: (" $2 ", " $3 ")-(" $4 ", " $5 ") of " $6 "x" $7; exit 1 }
  { print "HUD text inside the " $6 "x" $7 " window at scale " $1 }' || fail "the HUD does not fit"
rm -f "$log"
exec "$check" drawn "$shot"
