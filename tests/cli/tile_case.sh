#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/tile_case.sh FILTERVIEW PHOTO OUT [VARIANT]: -o in tiles equals -o whole. Every filter
# with parameter sets of several reaches (iterations included), tiles of sizes that do not divide
# the image (and one smaller than the halo), each output compared byte for byte with the whole
# image's (the same encoder: equal pixels give equal files); a filter with no bounded reach and
# the wrap border are refused in one line with exit 1. VARIANT: cpu (the default here), or
# "fastest" for each filter's default variant on the GPU.
# -------------------------------------------------------------------------------------------------
fv=$1; photo=$2; out=$3; variant=${4:-cpu}
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
if [ "$variant" = fastest ] && ! "$fv" "$photo" -f invert -v naive -q -o "$out/probe.png" 2>"$out/log"; then
  grep -q "no CUDA device" "$out/log" && { echo "skipped: $(cat "$out/log")"; exit 77; }
  fail "a GPU run: $(cat "$out/log")"
fi
n=0
while IFS='|' read -r name params; do
  [ -n "$name" ] || continue
  pick="-v $variant"
  [ "$variant" = fastest ] && pick=""
  # shellcheck disable=SC2086
  "$fv" "$photo" -f "$name" $pick $params -q -o "$out/whole.png" || fail "$name $params: the whole run"
  for tile in 16 37 100; do
    # shellcheck disable=SC2086
    "$fv" "$photo" -f "$name" $pick $params --tile $tile -q -o "$out/tiled.png" ||
      fail "$name $params --tile $tile failed"
    cmp -s "$out/whole.png" "$out/tiled.png" || fail "$name ($variant) $params --tile $tile differs from the whole image"
    n=$((n + 1))
  done
done <<CASES
invert|
box|--radius 1
box|--radius 20
box|--radius 3 --iters 3
gaussian|
gaussian|--sigma 3
median|--size 7
median|--size 3 --iters 2
conv|--shape disk --radius 5
conv|--shape motion --length 21 --angle 30
canny|--hysteresis one-pass
canny|--stage nms --sigma 1
CASES
"$fv" "$photo" -f canny -v cpu --tile 64 -o "$out/x.png" >"$out/log" 2>&1; code=$?
[ $code = 1 ] && grep -q "no bounded reach" "$out/log" || fail "canny's full hysteresis in tiles: exit $code, $(cat "$out/log")"
echo "$n tiled runs equal the whole image's"
