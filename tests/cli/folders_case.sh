#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/folders_case.sh FILTERVIEW FIXTURES OUT: a folder batch's folders. -o DIR/ that does not
# exist is made with its parents; without --recursive subfolders are skipped with one line that
# counts them (and --quiet silences it); with it their images are written to the same subfolders
# under DIR/ (made as needed), hidden folders left out, links to folders too (in one line);
# --format jpeg names
# the outputs .jpg; --threads 1 runs one worker. A subfolder that cannot be read or mirrored is
# skipped with a line, the others written, exit 1.
# -------------------------------------------------------------------------------------------------
fv=$1; fx=$2; out=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out/in/sub/deep" "$out/in/.hidden" "$out/in/other" || fail "cannot make $out"
cp "$fx/good.png" "$out/in/a.png" && cp "$fx/good.png" "$out/in/sub/b.png" && cp "$fx/exif6.jpg" "$out/in/sub/deep/c.jpg" &&
  cp "$fx/good.png" "$out/in/.hidden/h.png" && cp "$fx/good.png" "$out/in/other/d.png" && ln -s sub "$out/in/zlink" || fail "setup"
"$fv" "$out/in" -f invert -v cpu -o "$out/flat/new/" >"$out/log" 2>"$out/err"; code=$?
cat "$out/log" "$out/err"
[ $code = 0 ] || fail "flat run: exit $code"
[ -f "$out/flat/new/a.png" ] || fail "-o DIR/ and its parent were not made"
[ "$(wc -l <"$out/err")" = 1 ] || fail "expected one line about the subfolders"
grep -q "^filterview: skipped 3 subfolders ('.*/in/[a-z]*' and others): --recursive takes them$" "$out/err" ||
  fail "no line counting the subfolders"
[ -e "$out/flat/new/sub" ] || [ -e "$out/flat/new/b.png" ] && fail "a subfolder was taken without --recursive"
"$fv" "$out/in" -f invert -v cpu -o "$out/quiet/" --quiet >"$out/log" 2>&1 || fail "quiet run"
[ -s "$out/log" ] && fail "--quiet printed: $(cat "$out/log")"
"$fv" "$out/in" -f invert -v cpu -r --threads 1 -o "$out/deep/" >"$out/log" 2>"$out/err"; code=$?
cat "$out/log" "$out/err"
[ $code = 0 ] || fail "recursive run: exit $code"
[ "$(wc -l <"$out/err")" = 1 ] || fail "expected one line about the link"
grep -q "^filterview: skipped 1 link to a folder ('.*/in/zlink'): links are not followed$" "$out/err" ||
  fail "no line about the link to a folder"
grep -q "^filtered 4 of 4 images .*on the CPU, 1 thread, codec cpu$" "$out/log" || fail "no summary of 4 images on 1 thread"
for f in a.png sub/b.png sub/deep/c.png other/d.png; do [ -f "$out/deep/$f" ] || fail "$f not written"; done
[ -e "$out/deep/.hidden" ] || [ -e "$out/deep/zlink" ] && fail "a hidden folder or a link to a folder was taken"
cmp -s "$out/deep/a.png" "$out/flat/new/a.png" || fail "a.png differs between the runs"
"$fv" "$out/in/sub" -f invert -v cpu -r --format jpeg -o "$out/jpeg/" >/dev/null 2>&1 || fail "--format jpeg run"
[ -f "$out/jpeg/b.jpg" ] && [ -f "$out/jpeg/deep/c.jpg" ] || fail "--format jpeg did not write .jpg files"
head -c 3 "$out/jpeg/b.jpg" | od -An -tx1 | grep -q "ff d8 ff" || fail "b.jpg is not a JPEG"
# --recursive with a subfolder that cannot be read (a path past PATH_MAX; no permission, unless
# root) or mirrored (a file has its name under -o): each said with a line, the rest written, exit 1
mkdir -p "$out/bad/in/ok" "$out/bad/in/blocked" "$out/bad/o" && cp "$fx/good.png" "$out/bad/in/a.png" &&
  cp "$fx/good.png" "$out/bad/in/ok/b.png" && cp "$fx/good.png" "$out/bad/in/blocked/c.png" &&
  touch "$out/bad/o/blocked" || fail "setup of the bad subfolders"
python3 -c "
import os, shutil
src = os.path.abspath('$fx/good.png')
os.chdir('$out/bad/in')
for i in range(300):
    os.mkdir('dddddddddddddddd' if i else 'deep')
    os.chdir('dddddddddddddddd' if i else 'deep')
shutil.copyfile(src, 'x.png')
" || fail "cannot make the deep folder"
want_lines=2
if [ "$(id -u)" != 0 ]; then
  mkdir -p "$out/bad/in/closed" && cp "$fx/good.png" "$out/bad/in/closed/e.png" && chmod 000 "$out/bad/in/closed" || fail "chmod"
  want_lines=3
fi
"$fv" "$out/bad/in" -f invert -v cpu -r -o "$out/bad/o/" >"$out/log" 2>"$out/err"; code=$?
[ "$(id -u)" != 0 ] && chmod 755 "$out/bad/in/closed"
cat "$out/log" "$out/err"
[ $code = 1 ] || fail "bad subfolders: exit $code, expected 1"
[ -f "$out/bad/o/a.png" ] && [ -f "$out/bad/o/ok/b.png" ] || fail "bad subfolders: the good images were not written"
grep -q "^filterview: cannot read folder '.*/deep/dddd.*': File name too long (skipped)$" "$out/err" ||
  fail "no line about the folder too deep to read"
grep -q "^filterview: cannot make folder '.*/o/blocked': a file has that name (its images skipped)$" "$out/err" ||
  fail "no line about the folder that cannot be made"
if [ "$(id -u)" != 0 ]; then
  grep -q "^filterview: cannot read folder '.*/in/closed': Permission denied (skipped)$" "$out/err" ||
    fail "no line about the folder without permission"
fi
[ "$(wc -l <"$out/err")" = $want_lines ] || fail "expected $want_lines lines on stderr"
grep -q "^filtered 2 of 3 images .*; 1 failed; $((want_lines - 1)) folders\{0,1\} not read$" "$out/log" ||
  fail "the summary does not count the skipped folders"
echo "folders: all checks passed"
