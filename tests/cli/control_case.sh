#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/control_case.sh FILTERVIEW FIXTURES OUTDIR WHAT: command lines whose words hold control
# characters or are very long, which CMake cannot pass as they are. Each runs through
# cli_expect.sh (exit status, message, one line on stderr), and then the whole output must hold
# no control character but the newline that ends each line: what the user gave is quoted as
# \xNN, and a long name loses its middle, not the message's reason.
#   WHAT: sigma_newline | filter_escape | inputs_escape | wrote_escape | param_escape |
#         option_escape | long_output | long_sweep | huge_sweep | folder_escape
# -------------------------------------------------------------------------------------------------
fv="$1"; fx="$2"; out="$3"; what="$4"
expect="$(dirname "$0")/cli_expect.sh"
rm -rf "$out" && mkdir -p "$out" || exit 1
esc=$(printf '\033')
# n copies of the text $2
repeat() { i=0; r=""; while [ $i -lt "$1" ]; do r="$r$2"; i=$((i + 1)); done; printf '%s' "$r"; }
case "$what" in
  sigma_newline)
    set -- 2 "--sigma: expected a number 0.1..10.66, got '3\\\\x0a ' \\(gaussian\\)" \
      "$fv" "$fx/good.png" -v cpu --sigma "$(printf '3\n ')" -o "$out/x.png" ;;
  filter_escape)
    set -- 2 "unknown filter '\\\\x1b\\[31mred'" "$fv" "$fx/good.png" -f "${esc}[31mred" -o "$out/x.png" ;;
  inputs_escape)
    set -- 2 "more than one input image \\('.*good.png' and '.*a\\\\x1b\\[2Jb.png'\\)" \
      "$fv" "$fx/good.png" "$out/a${esc}[2Jb.png" -v cpu -o "$out/x.png" ;;
  wrote_escape)
    set -- --creates "$out/o${esc}k.png" 0 "^wrote .*/o\\\\x1bk.png \\(37x23" \
      "$fv" "$fx/good.png" -v cpu -o "$out/o${esc}k.png" ;;
  param_escape)
    set -- 2 "-p sigma: expected a number 0.1..10.66, got '\\\\x1b\\[0m' \\(gaussian\\)" \
      "$fv" "$fx/good.png" -v cpu -p "sigma=${esc}[0m" -o "$out/x.png" ;;
  option_escape)
    set -- 2 "unknown option '--\\\\x07\\\\x1b'" "$fv" "$fx/good.png" "--$(printf '\007')${esc}" ;;
  long_output)
    # 4,087 bytes: the reason must end the message, the name shortened in its middle
    long="/nonexistent/$(repeat 19 "$(repeat 20 dddddddddd)/")$(repeat 25 nnnnnnnnnn)x.png"
    set -- --absent "$out/x.png" 1 "cannot write '/nonexistent/d+\\.\\.\\.n+x\\.png': directory '/nonexistent/d+\\.\\.\\.d+' does not exist$" \
      "$fv" "$fx/good.png" -v cpu -o "$long" ;;
  long_sweep)
    # longer than the 511 bytes once kept: the whole value reaches the parser, shown shortened
    set -- 2 "-p radius: expected an integer 1..128, got '0+\\.\\.\\.0+' \\(box\\)" \
      "$fv" --bench -f box -p "radius=1,$(repeat 60 0000000000)" ;;
  huge_sweep)
    set -- 2 "-p radius: expected a list of at most 64 values and 4095 characters to sweep, got '1,0+\\.\\.\\.0+'" \
      "$fv" --bench -f box -p "radius=1,$(repeat 410 0000000000)" ;;
  folder_escape)
    # a skipped subfolder (one named like an image too) is named in the line, escaped
    mkdir -p "$out/in/sub${esc}.png" && cp "$fx/good.png" "$out/in/a.png" && mkdir -p "$out/o" || exit 1
    set -- --stderr-lines 1 0 "skipped 1 subfolder \\('.*/in/sub\\\\x1b.png'\\): --recursive takes them" \
      "$fv" "$out/in" -v cpu -o "$out/o/" ;;
  *) echo "unknown case $what"; exit 2 ;;
esac
log="$out/log"
sh "$expect" "$@" >"$log" 2>&1
code=$?
cat "$log"
[ $code = 0 ] || exit $code
if tr -d '\n' <"$log" | LC_ALL=C grep -q '[[:cntrl:]]'; then
  echo "FAIL: a control character reached the output"
  exit 1
fi
exit 0
