#!/bin/sh
# tests/cli/pixels_case.sh FILTERVIEW REF_PIXELS IMAGE KERNEL OUT FILTER [VARIANT [CASE...]]: the program's
# output files held, pixel for pixel, to the filter's reference called directly (tests/cli/
# ref_pixels.c), one run per parameter of the filter with a value other than its default
# (`ref_pixels cases` picks it), each given as the user gives it (--NAME VALUE, --iters N,
# --kernel-file KERNEL where the kernel is a file). Each check also shows that it would fail had
# the program dropped that flag. VARIANT (default cpu) runs another variant, held to its tolerance;
# `gpu` runs every GPU variant of the filter but its peers in turn, `gpu:I/N` every N-th of them
# from the I-th (so that no one test runs long); skipped (77) without a device. CASE ("NAME
# NAME=VALUE ...", as `ref_pixels cases` prints them): those cases instead of one per parameter.
#   pixels_case.sh ... FILTER jpeg CASE...: written as JPEG (quality 90), each within a mean
#   |difference| over R, G and B of JPEG_MEAN levels of the reference.
# JPEG_MEAN, the bound for lossy output: at quality 90 (4:2:0 chroma) a smooth output of the photo
# lies within about 0.8 of its reference on average (single values up to about 20 at edges); a
# sharp one (an edge map, a small sigma) does not, so the JPEG cases are blurs, whose dropped
# parameter moves the mean by more than the bound.
fv=$1; ref=$2; image=$3; kernel=$4; out=$5; filter=$6; variant=${7:-cpu}
shift 6; [ $# -gt 0 ] && shift
JPEG_MEAN=1.2
fail() { echo "FAIL: $*"; exit 1; }
ext=png; jpeg=""
if [ "$variant" = jpeg ]; then variant=cpu; ext=jpg; jpeg="--jpeg $JPEG_MEAN"; fi
if [ "$variant" != cpu ] && ! "$fv" --info >/dev/null 2>&1; then
  echo "skipped: $filter/$variant needs a CUDA device"; exit 77
fi
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
if [ $# -gt 0 ]; then
  printf '%s\n' "$@" >"$out/cases"
else
  "$ref" cases "$filter" >"$out/cases" || fail "ref_pixels cases $filter"
fi
[ -s "$out/cases" ] || fail "no case for $filter"
# one variant: every case in $out/cases through it
run_cases() {
  variant=$1
  while read -r tested entry; do
    n=$((n + 1))
    set -- # the program's flags for this entry
    file=""
    for word in $entry; do
      name=${word%%=*}; value=${word#*=}
      if [ "$name" = iters ]; then set -- "$@" --iters "$value"; else set -- "$@" "--$name" "$value"; fi
      [ "$value" = file ] && file=1
    done
    if [ "$tested" = kernel-file ] || [ -n "$file" ]; then
      set -- "$@" --kernel-file "$kernel"; kf="--kernel-file $kernel"
    else
      kf=""
    fi
    o="$out/$n.$ext"
    if ! "$fv" "$image" -f "$filter" -v "$variant" "$@" -o "$o" >"$out/$n.log" 2>&1 </dev/null; then
      # a variant that declares it does not run this border or type is not held to it
      if grep -q "^filterview: $filter/$variant runs " "$out/$n.log"; then
        declined=$((declined + 1)); continue
      fi
      fail "$filter/$variant $*: exit $? ($(cat "$out/$n.log"))"
    fi
    # shellcheck disable=SC2086 # kf, jpeg and entry are word lists
    "$ref" check --tested "$tested" --variant "$variant" $kf $jpeg "$o" "$image" "$filter" $entry </dev/null ||
      fail "$filter/$variant $*: the output is not the reference's (--$tested)"
  done <"$out/cases"
}
n=0; declined=0
shard=0 shards=1
case $variant in gpu:*/*) shard=${variant#gpu:}; shards=${shard#*/}; shard=${shard%/*}; variant=gpu ;; esac
if [ "$variant" = gpu ]; then
  "$ref" variants "$filter" >"$out/all_variants" || fail "ref_pixels variants $filter"
  [ -s "$out/all_variants" ] || fail "$filter has no GPU variant"
  awk -v i="$shard" -v n="$shards" '(NR - 1) % n == i' "$out/all_variants" >"$out/variants"
  [ -s "$out/variants" ] || { echo "$filter: no GPU variant in shard $shard of $shards"; exit 0; }
  for v in $(cat "$out/variants"); do run_cases "$v"; done
  variant="$(tr '\n' ' ' <"$out/variants")"
else
  run_cases "$variant"
fi
[ "$declined" -lt "$n" ] || fail "$filter/$variant: every case was declined: nothing was checked"
echo "$filter/$variant: $((n - declined)) outputs ($ext) equal the reference, one per parameter ($declined declined by a variant that does not run that border or type)"
