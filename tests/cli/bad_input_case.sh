#!/bin/sh
# tests/cli/bad_input_case.sh FILTERVIEW FIXTURES OUT CASE: bad input that needs a shell around the
# run (a FIFO, a file size limit, a closed pipe), each through tests/cli/cli_expect.sh where one
# run is checked. Every run has a time limit, so that a hang fails instead of blocking CI.
#   fifo         a FIFO as input, as --kernel-file and inside a folder batch: refused at once, by name
#   user_fifo    a FIFO as a user kernel (-v user=FILE) and #included by one: refused at once
#   kernel_bomb  a 32 KB PNG of 16384x16384 as --kernel-file: refused from its header, in a second
#   file_limit   output past `ulimit -f`: exit 1 with one line, no output and no temporary file
#   interrupted  folder batches on 8 threads ended by SIGINT/SIGTERM mid-run leave no temporary file
#   stderr_closed  a folder batch whose stderr is a closed pipe leaves no temporary file and
#                  writes every good image
fv=$1; fx=$2; out=$3; what=$4
here=$(dirname "$0")
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
case "$what" in
fifo)
  mkdir -p "$out/in" "$out/batch" && mkfifo "$out/in/f.png" || fail "mkfifo"
  timeout 20 sh "$here/cli_expect.sh" --absent "$out/x.png" 1 "f.png': not a regular file \(a FIFO\)$" \
    "$fv" "$out/in/f.png" -v cpu -o "$out/x.png" || fail "FIFO as input"
  timeout 20 sh "$here/cli_expect.sh" --absent "$out/y.png" 2 "--kernel-file: '.*f.png': not a regular file \(a FIFO\)$" \
    "$fv" "$fx/good.png" -f conv -v cpu --shape file --kernel-file "$out/in/f.png" -o "$out/y.png" ||
    fail "FIFO as --kernel-file"
  cp "$fx/good.png" "$out/in/g.png" || fail "cp"
  timeout 20 "$fv" "$out/in" -v cpu -o "$out/batch/" >"$out/log" 2>"$out/err" </dev/null
  code=$?
  cat "$out/log" "$out/err"
  [ "$code" = 1 ] || fail "folder with a FIFO: exit status $code, expected 1"
  grep -q "f.png': not a regular file (a FIFO) (skipped)$" "$out/err" || fail "folder: the FIFO is not reported"
  [ -f "$out/batch/g.png" ] || fail "folder: the good image was not written"
  ;;
user_fifo)
  mkfifo "$out/k.cu" "$out/inc.h" || fail "mkfifo"
  printf '#include "filterview.h"\n#include "inc.h"\n' >"$out/main.cu"
  timeout 20 sh "$here/cli_expect.sh" --absent "$out/x.png" 1 "k.cu: cannot read the file: not a regular file \(a FIFO\)$" \
    "$fv" "$fx/good.png" -v user="$out/k.cu" -o "$out/x.png" || fail "FIFO as a user kernel"
  timeout 20 sh "$here/cli_expect.sh" --absent "$out/x.png" 1 "main.cu:2: #include \"inc.h\": not a regular file \(a FIFO\)$" \
    "$fv" "$fx/good.png" -v user="$out/main.cu" -o "$out/x.png" || fail "FIFO #included by a user kernel"
  ;;
kernel_bomb)
  # 1-bit gray, every row zero: 32 MiB of filtered rows deflate to about 32 KB
  python3 -c "
import struct, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
side = 16384
rows = zlib.compress(bytes(side * (1 + side // 8)), 9)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', side, side, 1, 0, 0, 0, 0))
open('$out/k.png', 'wb').write(png + chunk(b'IDAT', rows) + chunk(b'IEND', b''))
" || fail "cannot write the PNG"
  start=$(date +%s)
  timeout 20 sh "$here/cli_expect.sh" --absent "$out/x.png" 2 \
    "--kernel-file: '.*k.png': PNG header says 16384x16384: larger than 127x127$" \
    "$fv" "$fx/good.png" -f conv -v cpu --shape file --kernel-file "$out/k.png" -o "$out/x.png" || fail "refused"
  [ $(($(date +%s) - start)) -le 2 ] || fail "took $(($(date +%s) - start)) s: decoded before it was refused"
  ;;
file_limit)
  # 1 block (512 or 1024 bytes): the 37x23 output is larger, the messages are not
  (ulimit -f 1 && timeout 20 sh "$here/cli_expect.sh" --absent "$out/o.png" 1 \
    "cannot write '.*o.png': File too large \(past the file size limit, ulimit -f\)$" \
    "$fv" "$fx/good.png" -v cpu -o "$out/o.png") || fail "write past the limit"
  ls -a "$out" | grep -q '\.tmp-' && fail "a temporary file was left"
  ;;
interrupted)
  # many outputs on many threads: most of the time some thread is creating one
  mkdir -p "$out/in" || fail "mkdir"
  python3 -c "
import os, struct, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
w, h = 160, 120
rows = b''.join(b'\\0' + os.urandom(3 * w) for _ in range(h))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
png += chunk(b'IDAT', zlib.compress(rows, 1)) + chunk(b'IEND', b'')
for i in range(300): open('$out/in/a%d.png' % i, 'wb').write(png)
" || fail "cannot write the PNGs"
  for run in $(seq 1 10); do
    rm -rf "$out/o" && mkdir -p "$out/o" || fail "mkdir"
    sig=TERM; [ $((run % 2)) = 0 ] && sig=INT
    "$fv" "$out/in" -f median -v cpu --threads 8 -o "$out/o/" >/dev/null 2>&1 </dev/null &
    pid=$!
    waited=0
    until [ "$(ls "$out/o" | wc -l)" -ge $((run * 15)) ] || [ $waited -ge 400 ]; do
      sleep 0.01; waited=$((waited + 1))
    done
    kill -$sig $pid 2>/dev/null
    wait $pid
    left=$(ls -a "$out/o" | grep '\.tmp-')
    [ -z "$left" ] || fail "run $run (SIG$sig at $(ls "$out/o" | wc -l) of 300 files) left $left"
  done
  ;;
stderr_closed)
  # large good images, then bad ones: their errors are printed while outputs are being written
  mkdir -p "$out/in" "$out/o" || fail "mkdir"
  python3 -c "
import os, struct, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
w, h = 1200, 900
rows = b''.join(b'\\0' + os.urandom(3 * w) for _ in range(h))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
open('$out/big.png', 'wb').write(png + chunk(b'IDAT', zlib.compress(rows, 0)) + chunk(b'IEND', b''))
" || fail "cannot write the PNG"
  for i in 1 2 3 4 5 6 7 8; do
    cp "$out/big.png" "$out/in/a$i.png" && printf 'not an image' >"$out/in/z$i.png" || fail "cp"
  done
  for i in 1 2 3 4 5; do
    rm -f "$out"/o/*
    timeout 60 "$fv" "$out/in" -f invert -v cpu -o "$out/o/" 2>&1 >/dev/null </dev/null | true
    ls -a "$out/o" | grep -q '\.tmp-' && fail "run $i left a temporary file: $(ls "$out/o" | tr "\n" " ")"
    # and it did its work: every good image written whole (a PNG of the input's size)
    for k in 1 2 3 4 5 6 7 8; do
      [ -f "$out/o/a$k.png" ] || fail "run $i did not write a$k.png"
      head -c 24 "$out/o/a$k.png" | od -An -tx1 | tr -d ' \n' |
        grep -q '^89504e470d0a1a0a0000000d49484452000004b000000384' ||
        fail "run $i: a$k.png is not a 1200x900 PNG"
    done
  done
  ;;
*) fail "unknown case '$what'" ;;
esac
echo "$what: all checks passed"
