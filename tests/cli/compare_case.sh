#!/bin/sh
# tests/cli/compare_case.sh FILTERVIEW REF_PIXELS OUT IMAGE FILTER A B REGEX [NAME=VALUE...]: the
# numbers `--compare A B` prints held to the test's own. A and B are variants (FILTER:VARIANT for
# another filter); the settings are given to the program as --NAME VALUE (--iters N for iters=N).
# Checks: the compare line matches REGEX; its exit status agrees with it (0 identical, 1 not);
# each side run alone with -o gives a file, and tests/cli/ref_pixels.c's own count of the two
# files' differences is the very "max abs difference M, N of P pixels differ" the program
# printed; each side that is not a reference is, by the test's own comparison, its filter's
# reference called directly within the variant's tolerance. Skipped (77) where a side needs a
# CUDA device and there is none.
fv=$1; ref=$2; out=$3; image=$4; filter=$5; a=$6; b=$7; regex=$8
shift 8
fail() { echo "FAIL: $*"; exit 1; }
words="$*"
set --
for word in $words; do
  name=${word%%=*}; value=${word#*=}
  if [ "$name" = iters ]; then set -- "$@" --iters "$value"; else set -- "$@" "--$name" "$value"; fi
done
side_filter() { case "$1" in *:*) echo "${1%%:*}" ;; *) echo "$filter" ;; esac; }
side_variant() { echo "${1#*:}"; }
for side in "$a" "$b"; do
  if [ "$(side_variant "$side")" != cpu ] && ! "$fv" --info >/dev/null 2>&1; then
    echo "skipped: $side needs a CUDA device"; exit 77
  fi
done
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
"$fv" "$image" -f "$filter" --compare "$a" "$b" "$@" >"$out/compare.log" 2>&1
code=$?
cat "$out/compare.log"
line=$(grep -o "max abs difference [0-9]*, [0-9]* of [0-9]* pixels differ" "$out/compare.log")
[ -n "$line" ] || fail "no 'max abs difference' line"
grep -Eq "$regex" "$out/compare.log" || fail "the compare line does not match '$regex'"
case "$line" in
"max abs difference 0, 0 of "*) [ $code = 0 ] || fail "identical, but exit status $code" ;;
*) [ $code = 1 ] || fail "different, but exit status $code" ;;
esac
n=0
for side in "$a" "$b"; do
  n=$((n + 1))
  f=$(side_filter "$side"); v=$(side_variant "$side")
  set -- # the settings this side's filter has, as --compare gives them to it
  own_words=""
  for word in $words; do
    name=${word%%=*}; value=${word#*=}
    "$ref" has "$f" "$name" || continue
    own_words="$own_words $word"
    if [ "$name" = iters ]; then set -- "$@" --iters "$value"; else set -- "$@" "--$name" "$value"; fi
  done
  "$fv" "$image" -f "$f" -v "$v" "$@" -o "$out/$n.png" >"$out/$n.log" 2>&1 ||
    fail "$f/$v alone: exit $? ($(cat "$out/$n.log"))"
  # (a user kernel, user=FILE, has no tolerance of its own: the other side's check and the count
  # of differences hold it)
  if [ "$v" != cpu ] && [ "${v#user=}" = "$v" ]; then
    # shellcheck disable=SC2086 # the settings are a word list
    "$ref" check --variant "$v" "$out/$n.png" "$image" "$f" $own_words ||
      fail "$f/$v is not its reference within its tolerance"
  fi
done
own=$("$ref" diff "$out/1.png" "$out/2.png") || fail "ref_pixels diff: $own"
[ "$own" = "$line" ] || fail "the program printed '$line', the test counts '$own'"
echo "compare $a $b: the printed numbers are the test's own ($own)"
