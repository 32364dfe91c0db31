#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/library/exports_case.sh LIBRARY...: every name a library defines for others to link is the
# API's, filterview_*: nothing of the internals (fv_*), the CUDA runtime or the lazy cuFFT and NVRTC
# entry points can clash with a program's own names. Reads the shared library's dynamic symbols
# (its version node, FILTERVIEW_<major>, is no function) and the static one's global symbols.
# -------------------------------------------------------------------------------------------------
set -u
[ $# -ge 1 ] || { echo "usage: $0 LIBRARY..." >&2; exit 2; }
bad=0
for lib in "$@"; do
    case $lib in
    *.a) symbols=$(nm -g --defined-only "$lib") || exit 2 ;;
    *) symbols=$(nm -D --defined-only "$lib" | awk '!($2 == "A" && $3 ~ /^FILTERVIEW_[0-9]+$/)') ||
        exit 2 ;;
    esac
    api=$(echo "$symbols" | awk 'NF == 3 && $3 ~ /^filterview_/' | wc -l)
    others=$(echo "$symbols" | awk 'NF == 3 && $3 !~ /^filterview_/ { print $3 }')
    if [ "$api" -eq 0 ]; then
        echo "FAIL: $lib defines no filterview_* function"
        bad=1
    elif [ -n "$others" ]; then
        echo "FAIL: $lib exports $(echo "$others" | wc -l) names outside the API, e.g.:"
        echo "$others" | head -n 10 | sed 's/^/  /'
        bad=1
    else
        echo "$lib: $api filterview_* names, nothing else"
    fi
done
exit $bad
