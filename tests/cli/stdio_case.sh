#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/stdio_case.sh FILTERVIEW FIXTURES OUT: "-" as standard input and standard output.
# An image piped in gives the same file as the same image named (PNG, and a JPEG told by its
# bytes); -o - writes the PNG a file would hold (--format jpeg: a JPEG) with the "wrote" line on
# stderr; the two chained by a pipe; an empty standard input, a folder batch with "-", "-" given
# twice, and standard output on a terminal (script(1) gives it one, where installed) are refused
# with one line each; so is an endless stream, after its first bytes (no known format) or after
# the most bytes the image its header declares can take.
# -------------------------------------------------------------------------------------------------
fv=$1; fx=$2; out=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
"$fv" "$fx/good.png" -f invert -v cpu -o "$out/named.png" >/dev/null || fail "the named run"
"$fv" - -f invert -v cpu -o "$out/piped.png" <"$fx/good.png" >"$out/log" 2>&1 || fail "stdin: $(cat "$out/log")"
cmp -s "$out/named.png" "$out/piped.png" || fail "an image piped in differs from the same file named"
"$fv" "$fx/exif6.jpg" -f invert -v cpu -o "$out/named_jpeg.png" >/dev/null || fail "the named JPEG run"
"$fv" - -f invert -v cpu -o "$out/piped_jpeg.png" <"$fx/exif6.jpg" >/dev/null 2>&1 || fail "a JPEG on stdin"
cmp -s "$out/named_jpeg.png" "$out/piped_jpeg.png" || fail "a JPEG piped in differs from the file"
"$fv" "$fx/good.png" -f invert -v cpu -o - >"$out/stdout.png" 2>"$out/err" || fail "stdout: $(cat "$out/err")"
cmp -s "$out/named.png" "$out/stdout.png" || fail "-o - differs from -o FILE"
grep -q "^wrote standard output (37x23, invert/cpu" "$out/err" || fail "no 'wrote' line on stderr: $(cat "$out/err")"
"$fv" "$fx/good.png" -f invert -v cpu --format jpeg -o - 2>/dev/null | head -c 3 | od -An -tx1 |
  grep -q "ff d8 ff" || fail "--format jpeg -o - is not a JPEG"
"$fv" "$fx/good.png" -f invert -v cpu -o - 2>/dev/null | "$fv" - -f invert -v cpu -o "$out/twice.png" >/dev/null 2>&1 ||
  fail "a pipe between two runs"
# inverted twice: the original's pixels (good.png is opaque), so the same as a run of invert x2
"$fv" "$fx/good.png" -f invert -v cpu --iters 2 -o "$out/iters2.png" >/dev/null || fail "invert x2"
cmp -s "$out/twice.png" "$out/iters2.png" || fail "the piped pair differs from --iters 2"
"$fv" - -v cpu -o "$out/x.png" </dev/null >"$out/log" 2>&1; code=$?
[ $code = 1 ] && grep -q "standard input is empty" "$out/log" || fail "empty stdin: exit $code, $(cat "$out/log")"
"$fv" - -v cpu -o "$out/dir/" <"$fx/good.png" >"$out/log" 2>&1; code=$?
[ $code = 2 ] && grep -q "standard input ('-') is one image, not for a folder batch" "$out/log" ||
  fail "a folder batch of stdin: exit $code, $(cat "$out/log")"
[ -e "$out/dir" ] && fail "the folder was made for a refused run"
"$fv" - - -v cpu -o "$out/dir/" <"$fx/good.png" >"$out/log" 2>&1; code=$?
[ $code = 2 ] && grep -q "standard input ('-') is given 2 times" "$out/log" || fail "stdin twice: exit $code, $(cat "$out/log")"
"$fv" "$fx/good.png" -v cpu --save-source - -o "$out/x.png" >"$out/log" 2>&1; code=$?
[ $code = 2 ] && grep -q "^filterview: --save-source: standard output ('-') is for -o alone" "$out/log" ||
  fail "--save-source -: exit $code, $(cat "$out/log")"
"$fv" "$fx/good.png" -v cpu --format jpeg -o "$out/x.png" >"$out/log" 2>&1; code=$?
[ $code = 2 ] && grep -q "\-\-format jpeg, but -o '.*x.png' names a PNG file" "$out/log" ||
  fail "--format against the name: exit $code, $(cat "$out/log")"
if command -v script >/dev/null 2>&1; then
  script -qec "'$fv' '$fx/good.png' -v cpu -o -; echo \"exit \$?\"" /dev/null >"$out/tty.log" 2>&1 </dev/null
  grep -q "standard output is a terminal" "$out/tty.log" && grep -q "exit 2" "$out/tty.log" ||
    fail "-o - on a terminal: $(cat "$out/tty.log")"
  script -qec "'$fv' - -v cpu -o '$out/x.png'; echo \"exit \$?\"" /dev/null >"$out/tty.log" 2>&1 </dev/null
  grep -q "standard input, which is a terminal" "$out/tty.log" && grep -q "exit 2" "$out/tty.log" ||
    fail "- on a terminal: $(cat "$out/tty.log")"
fi
# a stream that goes on: refused by its first bytes (no known format) or once it is longer than
# the image its header declares can be, not read to 2 GiB (the feeder counts what was taken)
cat >"$out/feed.py" <<'PY'
import os, struct, sys, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
prefix = {'junk': b'', 'png': b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 4, 8, 2, 0, 0, 0)),
          'ppm': b'P6\n# a comment\n4 4\n255\n', 'bmp': b'BM' + bytes(12) + struct.pack('<IiiHH', 40, 4, -4, 1, 24),
          'jpeg': b'\xff\xd8\xff\xe0\x00\x04\x00\x00\xff\xc0\x00\x11\x08\x00\x04\x00\x04\x03' + bytes(9)}[sys.argv[1]]
total, block = 0, bytes(range(256)) * 256
try:
    sys.stdout.buffer.write(prefix)
    while total < (3 << 30):
        sys.stdout.buffer.write(block)
        total += len(block)
except BrokenPipeError:
    pass
open(sys.argv[2], 'w').write('%d\n' % (total >> 20))
os._exit(0)
PY
for kind in junk png ppm bmp jpeg; do
  python3 "$out/feed.py" $kind "$out/taken" | "$fv" - -v cpu -o "$out/x.png" >"$out/log" 2>&1; code=$?
  [ $code = 1 ] && [ "$(wc -l <"$out/log")" = 1 ] || fail "an endless $kind stream: exit $code, $(cat "$out/log")"
  if [ $kind = junk ]; then
    grep -q "'standard input' is not an image filterview can read" "$out/log" || fail "junk: $(cat "$out/log")"
  else
    grep -Eq "standard input goes on past [0-9]+ MiB: more than a 4x4 (PNG|PNM|BMP|JPEG) can take" "$out/log" ||
      fail "an endless $kind stream: $(cat "$out/log")"
  fi
  [ "$(cat "$out/taken")" -le 64 ] || fail "an endless $kind stream: $(cat "$out/taken") MiB read"
done
echo "standard input and output: all checks passed"
