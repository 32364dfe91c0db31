#!/bin/sh
# tests/viewer/two_files_case.sh FILTERVIEW IMAGE16 A B SHOT: `filterview A B` (two files, no -o)
# compares the files: headless, it prints their PSNR, which must be the one `IMAGE16 psnr A B`
# computes (to 2 decimals), and its difference view is drawn without an OpenGL error.
fv="$1" tool="$2" a="$3" b="$4" shot="$5"
want=$("$tool" psnr "$a" "$b" | sed -n 's/^PSNR \([0-9.]*\) dB$/\1/p')
[ -n "$want" ] || { echo "FAIL: the test's own PSNR"; exit 1; }
out=$("$fv" "$a" "$b" --headless --window 640x480 --keys ccc --screenshot "$shot" 2>&1)
code=$?
echo "$out"
[ "$code" = 0 ] || { echo "FAIL: the viewer exited $code"; exit 1; }
got=$(echo "$out" | sed -n 's/^viewer: files .* and .*: PSNR \([0-9.]*\) dB,.*/\1/p')
[ -n "$got" ] || { echo "FAIL: no PSNR line"; exit 1; }
echo "$out" | grep -q "OpenGL error" && { echo "FAIL: OpenGL reported an error"; exit 1; }
echo "$out" | grep -Eq "compare difference, \|A-B\| max [1-9]" || { echo "FAIL: no difference"; exit 1; }
# the same to 2 decimals: 4 printed on each side
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d < 0.005) }' ||
  { echo "FAIL: PSNR $got dB, the test computes $want dB"; exit 1; }
echo "PSNR $got dB, as computed by the test ($want dB)"
