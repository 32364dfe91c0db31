#!/bin/sh
# ------------------------------------------------------------------------------------------------
# tests/cli/no_gpu_case.sh: what runs on every machine, with an NVIDIA GPU or without one. The
# program itself says which this machine is (`filterview --info`: exit 0 with a device, 1
# without); the assertions that only hold without a device are made only there, the rest on both.
#   no_gpu_case.sh FILTERVIEW OUTDIR bench   --bench -v cpu --chart --csv: exit 0, a PNG, the CSV's
#                                            reference row; without a device one plain line
#                                            saying the GPU variants need a GPU, and "-" where a
#                                            figure needs the device
#   no_gpu_case.sh FILTERVIEW OUTDIR all     --bench without -v: every filter's reference is timed
#   no_gpu_case.sh FILTERVIEW OUTDIR grow    --bench at 16x16 and 512x512: every filter's
#                                            reference is slower on the larger image, by the
#                                            CSV's ms (a time that does not grow with the work
#                                            is not a measurement; a GPU kernel's launch may
#                                            outweigh 16x16 against 512x512, so only the
#                                            references are held to it)
#   no_gpu_case.sh FILTERVIEW OUTDIR info    --info: the device, or one line saying why there is
#                                            none (never the CUDA runtime's "insufficient") and
#                                            what still runs
#   no_gpu_case.sh FILTERVIEW OUTDIR hidden  on a machine with a device (exit 77 elsewhere), with
#                                            CUDA_VISIBLE_DEVICES="" hiding it: --info names that
#                                            reason, --bench runs the references
# ------------------------------------------------------------------------------------------------
fv="$1"; dir="$2/no_gpu_$3"; what="$3"
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
if "$fv" --info >/dev/null 2>&1; then gpu=1; else gpu=0; fi
echo "this machine: $([ $gpu = 1 ] && echo 'a CUDA device' || echo 'no CUDA device')"

# runs the rest of the line; its stdout in $dir/out, stderr in $dir/err, exit status in $code
run() {
  "$@" >"$dir/out" 2>"$dir/err" </dev/null
  code=$?
  cat "$dir/out" "$dir/err"
  echo
}
# stderr's lines (the bench's progress rewrites one line with \r and adds none)
err_lines() { wc -l <"$dir/err" | tr -d ' '; }
no_runtime_wording() {
  grep -qi "insufficient" "$dir/out" "$dir/err" && fail "the CUDA runtime's wording was shown"
  return 0
}

case "$what" in
bench)
  run "$fv" --bench -f box --sizes 64x48 -v cpu --runs 3 --chart "$dir/c.png" --csv "$dir/c.csv"
  [ "$code" = 0 ] || fail "exit status $code, expected 0"
  head -c 8 "$dir/c.png" | od -An -c | grep -q "P   N   G" || fail "no chart PNG"
  head -n 1 "$dir/c.csv" | grep -q "^size,width,height,filter" || fail "no CSV header"
  grep -Eq '^64x48,64,48,box,"radius 1",cpu,ours,[0-9.]+,' "$dir/c.csv" || fail "no reference row in the CSV"
  [ "$(wc -l <"$dir/c.csv")" = 2 ] || fail "the CSV holds other rows than the reference's"
  grep -Eq '^\| 64x48 +\| box +\| radius 1 +\| cpu +\| +[0-9.]+ \|' "$dir/out" || fail "no reference row in the table"
  no_runtime_wording
  if [ $gpu = 0 ]; then
    [ "$(err_lines)" = 1 ] || fail "expected one line on stderr, got $(err_lines)"
    grep -Eq "^filterview: CPU references only: the GPU variants need an NVIDIA GPU and its driver \(.+\)" \
      "$dir/err" || fail "no line saying the GPU variants need a GPU and why"
    grep -q "^# device-to-device copy: - " "$dir/out" || fail "the copy bandwidth is not '-'"
    # % copy, vs base and |d| base cannot be measured: "-", never inf or nan
    grep -Eq '^\| 64x48 .*\| +- \| +- \| - +\|$' "$dir/out" || fail "unmeasured columns are not '-'"
    grep -Eiq "inf|nan" "$dir/out" "$dir/c.csv" && fail "a figure is inf or nan"
    grep -Eq ',ours,[0-9.]+,[0-9.]+,[0-9.]+,,,,,' "$dir/c.csv" || fail "unmeasured CSV fields are not empty"
  else
    [ "$(err_lines)" = 0 ] || fail "with a device, stderr should hold nothing, got $(err_lines) lines"
  fi
  ;;
all)
  run "$fv" --bench --sizes 16x12 --runs 3
  [ "$code" = 0 ] || fail "exit status $code, expected 0"
  n_filters=$("$fv" --list | grep -c "^[a-z]")
  n_refs=$(grep -Ec '^\| 16x12 +\| [a-z]+ +\|.*\| cpu +\|' "$dir/out")
  [ "$n_filters" -gt 0 ] && [ "$n_refs" = "$n_filters" ] || fail "$n_refs reference rows for $n_filters filters"
  no_runtime_wording
  if [ $gpu = 0 ]; then
    [ "$(err_lines)" = 1 ] || fail "expected one line on stderr, got $(err_lines)"
    grep -q "the GPU variants need an NVIDIA GPU and its driver" "$dir/err" || fail "no line saying why"
    [ "$(grep -c '^| 16x12' "$dir/out")" = "$n_filters" ] || fail "rows other than the references"
  fi
  ;;
grow)
  # the large size first: the bench skips a reference whose time it predicts, from its last
  # size, beyond its budget, and a 16x16 run slowed by a busy machine predicts too much
  run "$fv" --bench --sizes 512x512,16x16 --runs 3 --csv "$dir/g.csv"
  [ "$code" = 0 ] || fail "exit status $code, expected 0"
  n_filters=$("$fv" --list | grep -c "^[a-z]")
  # filter and variant -> ms at each size (quoted fields, which may hold commas, left out first);
  # every filter's reference there and slower at 512x512
  sed 's/"[^"]*"/Q/g' "$dir/g.csv" | awk -F, -v filters="$n_filters" '
    NR == 1 { next }
    { key = $4 "|" $6
      if ($1 == "16x16") small[key] = $8; else if ($1 == "512x512") large[key] = $8 }
    END {
      refs = 0
      for (k in large) {
        if (!(k in small) || k !~ /\|cpu$/) continue
        refs++
        if (!(large[k] + 0 > small[k] + 0)) { print "FAIL: " k ": " large[k] " ms at 512x512, not more than " small[k] " ms at 16x16"; bad = 1 }
      }
      if (refs < filters) { print "FAIL: " refs " references timed at both sizes, " filters " filters"; bad = 1 }
      print refs " references timed at both sizes, each slower at 512x512"
      exit bad
    }' || fail "a time did not grow with the image"
  ;;
info)
  run "$fv" --info
  no_runtime_wording
  if [ $gpu = 0 ]; then
    [ "$code" = 1 ] || fail "exit status $code, expected 1 without a device"
    [ "$(err_lines)" = 1 ] || fail "expected one line on stderr, got $(err_lines)"
    grep -Eq "^filterview: no CUDA device: [a-zA-Z].+" "$dir/err" || fail "no reason on stderr"
    grep -q "these still run" "$dir/out" || fail "does not say what still runs"
    grep -q -- "--bench" "$dir/out" || fail "does not say that --bench runs"
  else
    [ "$code" = 0 ] || fail "exit status $code, expected 0 with a device"
    grep -q "^CUDA device [0-9]*: " "$dir/out" || fail "does not name the device"
  fi
  ;;
hidden)
  [ $gpu = 1 ] || { echo "skipped: needs a CUDA device to hide"; exit 77; }
  run env CUDA_VISIBLE_DEVICES= "$fv" --info
  [ "$code" = 1 ] || fail "exit status $code, expected 1 with every device hidden"
  [ "$(err_lines)" = 1 ] || fail "expected one line on stderr, got $(err_lines)"
  grep -q '^filterview: no CUDA device: the NVIDIA driver is loaded but sees no GPU (CUDA_VISIBLE_DEVICES="")' \
    "$dir/err" || fail "the reason does not name CUDA_VISIBLE_DEVICES"
  run env CUDA_VISIBLE_DEVICES= "$fv" --bench -f box --sizes 16x12 --runs 3
  [ "$code" = 0 ] || fail "exit status $code, expected 0"
  grep -q "the GPU variants need an NVIDIA GPU and its driver (the NVIDIA driver is loaded but sees no GPU" \
    "$dir/err" || fail "the bench does not say why the GPU variants did not run"
  [ "$(grep -c '^| 16x12' "$dir/out")" = 1 ] || fail "rows other than box's reference"
  ;;
*) fail "unknown case '$what'" ;;
esac
exit 0
