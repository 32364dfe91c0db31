#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/originals_case.sh FILTERVIEW FIXTURES OUT: never lose an original. An output that is
# an input (the same name, another spelling, a symbolic or a hard link, --save-source, --compare's
# difference picture, a screenshot, a folder batch into its own folder, the file redirected to
# standard input ('-'), standard output redirected onto an input) is refused with exit 2 and one
# line, the input untouched; --in-place writes it (through a temporary name: none is left).
# -------------------------------------------------------------------------------------------------
fv=$1; fx=$2; out=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out/dir" || fail "cannot make $out"
cp "$fx/good.png" "$out/a.png" && cp "$fx/good.png" "$out/keep.png" && cp "$fx/good.png" "$out/dir/a.png" &&
  cp "$fx/exif6.jpg" "$out/dir/b.jpg" && ln -s a.png "$out/link.png" && ln "$out/a.png" "$out/hard.png" || fail "setup"
refused() { # REGEX ARGS...: exit 2, one line matching REGEX, a.png and dir/a.png untouched
  regex=$1; shift
  "$fv" "$@" >"$out/log" 2>"$out/err"; code=$?
  [ $code = 2 ] || fail "$*: exit $code, expected 2 ($(cat "$out/err"))"
  [ "$(wc -l <"$out/err")" = 1 ] || fail "$*: expected one line on stderr: $(cat "$out/err")"
  grep -Eq -- "$regex" "$out/err" || fail "$*: '$(cat "$out/err")' does not match /$regex/"
  cmp -s "$out/a.png" "$out/keep.png" && cmp -s "$out/dir/a.png" "$out/keep.png" || fail "$*: an original was changed"
}
refused "^filterview: -o: '.*/a.png' is also the input: give another name, or --in-place to replace it$" \
  "$out/a.png" -f invert -v cpu -o "$out/a.png"
refused "-o: '.*/dir/\\.\\./a.png' is the input '.*/a.png' \\(the same file\\)" "$out/a.png" -f invert -v cpu -o "$out/dir/../a.png"
refused "-o: '.*/link.png' is the input '.*/a.png'" "$out/a.png" -f invert -v cpu -o "$out/link.png"
refused "-o: '.*/a.png' is the input '.*/link.png'" "$out/link.png" -f invert -v cpu -o "$out/a.png"
refused "-o: '.*/hard.png' is the input '.*/a.png'" "$out/a.png" -f invert -v cpu -o "$out/hard.png"
refused "--save-source: '.*/a.png' is also the input" "$out/a.png" -f invert -v cpu --noise 5 --save-source "$out/a.png" -o "$out/x.png"
refused "-o and --save-source both write '.*/x.png'" "$out/a.png" -v cpu --save-source "$out/x.png" -o "$out/x.png"
refused "-o: '.*/a.png' is also the input" "$out/a.png" --compare cpu invert:cpu -o "$out/a.png"
refused "--screenshot: '.*/a.png' is also the input" "$out/a.png" --headless -a cpu --screenshot "$out/a.png"
refused "-o: '.*/dir/a.png' would replace the input '.*/dir/a.png': give another folder, or --in-place" \
  "$out/dir" -f invert -v cpu -o "$out/dir/"
[ -e "$out/dir/b.png" ] && fail "a refused folder batch wrote a file"
# "-": standard input read from a file that -o names, standard output redirected onto an input
refused_stdio() { # REGEX ARGS...: as refused, stdin from a.png, stdout appended to $redirect
  regex=$1; shift
  "$fv" "$@" <"$out/a.png" >>"$redirect" 2>"$out/err"; code=$?
  [ $code = 2 ] || fail "$* (stdio): exit $code, expected 2 ($(cat "$out/err"))"
  [ "$(wc -l <"$out/err")" = 1 ] || fail "$* (stdio): expected one line on stderr: $(cat "$out/err")"
  grep -Eq -- "$regex" "$out/err" || fail "$* (stdio): '$(cat "$out/err")' does not match /$regex/"
  cmp -s "$out/a.png" "$out/keep.png" || fail "$* (stdio): an original was changed"
}
redirect=$out/log
refused_stdio "-o: '.*/a.png' is the file redirected to standard input \('-'\)" - -f invert -v cpu -o "$out/a.png"
refused_stdio "-o: '.*/hard.png' is the file redirected to standard input" - -f invert -v cpu -o "$out/hard.png"
redirect=$out/dir/a.png
refused_stdio "-o -: standard output is redirected to the input '.*/dir/a.png'" "$out/dir/a.png" -f invert -v cpu -o -
redirect=$out/a.png
refused_stdio "-o -: standard output and standard input are the same file" - -f invert -v cpu -o -
"$fv" - -f invert -v cpu -o - <"$out/keep.png" >"$out/piped.png" 2>"$out/err" || fail "- to -o - refused: $(cat "$out/err")"
# --in-place: written, the same as into another file, no temporary file left
"$fv" "$out/keep.png" -f invert -v cpu -o "$out/want.png" >/dev/null || fail "reference run"
"$fv" "$out/a.png" -f invert -v cpu -o "$out/a.png" --in-place >"$out/log" 2>&1 || fail "--in-place: $(cat "$out/log")"
cmp -s "$out/a.png" "$out/want.png" || fail "--in-place did not write the filtered image"
cmp -s "$out/hard.png" "$out/keep.png" || fail "--in-place changed the hard link's content (it must keep the old file)"
"$fv" "$out/dir" -f invert -v cpu -o "$out/dir/" --in-place >"$out/log" 2>&1 || fail "folder --in-place: $(cat "$out/log")"
cmp -s "$out/dir/a.png" "$out/want.png" || fail "folder --in-place did not replace dir/a.png"
[ -f "$out/dir/b.png" ] || fail "folder --in-place did not write dir/b.png"
ls -a "$out" "$out/dir" | grep -q '\.tmp-' && fail "a temporary file was left"
echo "originals: all checks passed"
