#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/dask_case.sh FILTERVIEW PYTHON PHOTO OUT: the folder batch on a Dask cluster (--dask).
# A local scheduler and two worker processes on 127.0.0.1; a folder of 8-bit RGB, 8-bit gray,
# 16-bit PNG and float TIFF files and one broken file filtered through --dask and by the plain
# folder batch (and at --depth 16): every output the same bytes, the broken one said and counted,
# exit 1 (0 without it). A scheduler that cannot be reached and a Python without Dask: one line
# each, exit 1; an address that is not one: exit 2. Skipped (77) where PYTHON has no distributed.
# -------------------------------------------------------------------------------------------------
fv=$1; py=$2; photo=$3; out=$4
fail() { echo "FAIL: $*"; exit 1; }
"$py" -c "import distributed, numpy" 2>/dev/null || { echo "skipped: $py has no distributed"; exit 77; }
rm -rf "$out" && mkdir -p "$out/in" || fail "cannot make $out"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; for p in $pids; do wait "$p" 2>/dev/null; done; }
trap cleanup EXIT
trap 'exit 1' INT TERM
# the inputs, made by the program itself: RGB, gray, 16-bit, float TIFF
"$fv" "$photo" -f invert -v cpu -o "$out/in/rgb.png" -q &&
  "$fv" "$photo" -f canny -v cpu -o "$out/in/gray.png" -q &&
  "$fv" "$photo" -f invert -v cpu --depth 16 -o "$out/in/deep.png" -q &&
  "$fv" "$photo" -f invert -v cpu --depth float -o "$out/in/float.tif" -q || fail "making the inputs"
"$py" -m distributed.cli.dask_scheduler --scheduler-file "$out/scheduler.json" --port 0 \
  --no-dashboard >"$out/scheduler.log" 2>&1 &
pids="$!"
for i in 1 2; do
  "$py" -m distributed.cli.dask_worker --scheduler-file "$out/scheduler.json" --nthreads 1 \
    --no-dashboard --name "w$i" >"$out/worker$i.log" 2>&1 &
  pids="$pids $!"
done
n=0
while [ ! -s "$out/scheduler.json" ] && [ $n -lt 300 ]; do sleep 0.2; n=$((n + 1)); done
address=$("$py" -c "import json, sys; print(json.load(open(sys.argv[1]))['address'])" "$out/scheduler.json") ||
  fail "no scheduler: $(cat "$out/scheduler.log")"
"$py" -c "from distributed import Client; Client(\"$address\", timeout=60).wait_for_workers(2, timeout=60)" ||
  fail "two workers did not join: $(cat "$out/worker1.log")"
params="-f median --size 5 -v cpu"
# shellcheck disable=SC2086
"$fv" "$out/in" $params -o "$out/plain/" >"$out/plain.log" 2>&1 || fail "plain batch: $(cat "$out/plain.log")"
# shellcheck disable=SC2086
"$fv" "$out/in" $params -o "$out/dask/" --dask "$address" >"$out/log" 2>"$out/err"; code=$?
cat "$out/log" "$out/err"
[ $code = 0 ] || fail "--dask run: exit $code"
grep -q "^filtered 4 of 4 images (median/cpu, size 5, 1 iteration) into '$out/dask/' in .* on 2 Dask workers$" "$out/log" ||
  fail "no summary of 4 images on 2 workers"
for f in rgb.png gray.png deep.png float.tif; do
  cmp "$out/plain/$f" "$out/dask/$f" || fail "$f: --dask wrote other bytes than the folder batch"
done
# the per-file options carry what decides the bytes: another type, a filter's own parameters
# shellcheck disable=SC2086
"$fv" "$out/in" -f gaussian --sigma 3 -v cpu --depth 16 -o "$out/plain16/" -q &&
  "$fv" "$out/in" -f gaussian --sigma 3 -v cpu --depth 16 -o "$out/dask16/" -q --dask "$address" ||
  fail "--depth 16 runs"
for f in rgb.png gray.png deep.png float.tif; do
  cmp "$out/plain16/$f" "$out/dask16/$f" || fail "$f at --depth 16: other bytes"
done
ls -A "$out/dask" | grep -v -e '^rgb.png$' -e '^gray.png$' -e '^deep.png$' -e '^float.tif$' && fail "a temporary file was left"
# one broken file: said, skipped, counted, exit 1
echo "not an image" >"$out/in/broken.png"
# shellcheck disable=SC2086
"$fv" "$out/in" $params -o "$out/dask2/" --dask "$address" >"$out/log" 2>"$out/err"; code=$?
cat "$out/log" "$out/err"
[ $code = 1 ] || fail "a broken file: exit $code, expected 1"
grep -q "^filterview: '.*/in/broken.png' is not an image filterview can read .*(skipped)$" "$out/err" ||
  fail "the broken file was not said"
grep -q "^filtered 4 of 5 images .*on 2 Dask workers; 1 failed$" "$out/log" || fail "no summary with 1 failed"
# against the folder batch of the same five files: a PNG's deflate threads are the cores shared
# among the files (16 cores: 4 threads each for four files, 3 for five), and so are its bytes
# shellcheck disable=SC2086
"$fv" "$out/in" $params -o "$out/plain2/" -q 2>/dev/null
cmp "$out/plain2/gray.png" "$out/dask2/gray.png" || fail "gray.png differs beside a failed file"
# a scheduler that is not there (the connect timeout is distributed's own setting)
DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=2s "$fv" "$out/in" $params -o "$out/none/" \
  --dask tcp://127.0.0.1:9 >"$out/log" 2>"$out/err"; code=$?
cat "$out/err"
[ $code = 1 ] || fail "no scheduler: exit $code, expected 1"
grep -q "^filterview: cannot reach the Dask scheduler at tcp://127.0.0.1:9: " "$out/err" || fail "no line for no scheduler"
# a Python without Dask (no site packages)
printf '#!/bin/sh\nexec "%s" -S "$@"\n' "$py" >"$out/bare_python" && chmod +x "$out/bare_python"
FILTERVIEW_PYTHON="$out/bare_python" "$fv" "$out/in" $params -o "$out/bare/" --dask "$address" \
  >"$out/log" 2>"$out/err"; code=$?
cat "$out/err"
[ $code = 1 ] || fail "no Dask: exit $code, expected 1"
[ "$(wc -l <"$out/err")" = 1 ] || fail "no Dask: expected one line"
grep -q "^filterview: --dask needs Python 3 with Dask's distributed (Debian: python3-distributed)" "$out/err" ||
  fail "no line saying Dask is missing"
FILTERVIEW_PYTHON="$out/no_such_python" "$fv" "$out/in" $params -o "$out/bare/" --dask "$address" \
  >"$out/log" 2>"$out/err"; code=$?
[ $code = 1 ] && grep -q "cannot run '.*no_such_python'" "$out/err" || fail "a missing python: exit $code, $(cat "$out/err")"
# not an address: a bad command line
for bad in 127.0.0.1:8786 tcp://host tcp://:8786 tcp://host:0 tcp://host:99999 "tcp://a b:1"; do
  "$fv" "$out/in" $params -o "$out/x/" --dask "$bad" >"$out/log" 2>"$out/err"; code=$?
  [ $code = 2 ] || fail "--dask '$bad': exit $code, expected 2"
  grep -q "^filterview: --dask: expected a Dask scheduler's address, tcp://HOST:PORT" "$out/err" ||
    fail "--dask '$bad': $(cat "$out/err")"
done
"$fv" "$photo" $params -o "$out/one.png" --dask "$address" >"$out/log" 2>"$out/err"; code=$?
[ $code = 2 ] && grep -q "give the outputs' folder, -o DIR/" "$out/err" || fail "--dask with one file: exit $code"
echo "ok"
