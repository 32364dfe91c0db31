#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/names_in_folders.sh SOURCE_ROOT: no filter is named outside its own folder in code.
# A new filter is a folder and a row of kernels/filters.def: code elsewhere that compares a string
# with a filter's name ("if this is the Gaussian") is a switch over filters in disguise, and the
# new filter would miss what it does. For every name in kernels/filters.def this looks in the
# library outside the filters' folders (kernels/core, api, user, npp, ...), the program (viewer/),
# the public header (include/) and the Python module (python/filterview/), for
#   C:      the string "<name>" itself, outside comments: it is there to be compared with a
#           filter's name (strcmp(f->name, "<name>"), a table of names beside what to do for
#           each) or to look one up (fv_filter_find("<name>"))
#   Python: == / != "<name>" (either side) and `in (... "<name>" ...)`
# Help text and comments may name filters inside longer text (an example is not a rule). A
# filter's folder is its own: its words may be other filters' names for its own things (conv's
# kernel shapes "gaussian" and "box"). The exceptions below are
# each a file and a name with the reason; one that no longer matches anything fails too, so the
# list only shrinks. Prints every finding as file:line: text; exits 1 on any.
# -------------------------------------------------------------------------------------------------
set -u
root="${1:?usage: $0 SOURCE_ROOT}"
cd "$root" || exit 2
names=$(sed -n 's/^[[:space:]]*FV_FILTER(\([a-z0-9_]*\)).*/\1/p' kernels/filters.def)
[ -n "$names" ] || { echo "FAIL: no FV_FILTER(name) row in $root/kernels/filters.def"; exit 1; }

# FILE NAME: reason. The Python module's chunked runs (filterview.dask) stitch Canny's full
# hysteresis across chunks and explain, per filter, why some parameter sets have no bounded reach;
# the registry has no field for either yet.
exceptions='
python/filterview/dask.py canny: full hysteresis across chunks (stitched in Python) and its refusals: border wrap, sweeps, automatic thresholds
python/filterview/dask.py conv: why the kernel and spectrum stages have no bounded reach (a message)
'

found=$(mktemp)
trap 'rm -f "$found"' EXIT
n_names=0
skip=""
for name in $names; do skip="$skip ! -path kernels/$name/*"; done
set -f # $skip's patterns reach find unexpanded
for name in $names; do
    n_names=$((n_names + 1))
    q="[\"']$name[\"']"
    {
        find kernels viewer include -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
            -o -name '*.cuh' \) $skip -print0 2>/dev/null |
            xargs -0 -r grep -nHE "\"$name\"" | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*|//)'
        find python/filterview -maxdepth 1 -type f -name '*.py' -print0 2>/dev/null |
            xargs -0 -r grep -nHE "(==|!=)[[:space:]]*$q|$q[[:space:]]*(==|!=)|[[:space:]]in[[:space:]]*[([][^]]*$q"
    } | while IFS= read -r hit; do printf '%s\t%s\n' "$name" "$hit"; done >>"$found"
done

status=0
# every finding not excused
while IFS="$(printf '\t')" read -r name hit; do
    file=${hit%%:*}
    if printf '%s\n' "$exceptions" | grep -q "^$file $name:"; then continue; fi
    printf 'FAIL: %s is named outside kernels/%s/: %s\n' "$name" "$name" "$hit"
    status=1
done <"$found"
# every exception still needed
printf '%s\n' "$exceptions" | while read -r file rest; do
    [ -n "$file" ] || continue
    name=${rest%%:*}
    if ! grep -q "^$name	$file:" "$found"; then
        echo "FAIL: the exception '$file $name' matches nothing now: remove it from $0"
        exit 1
    fi
done || status=1
[ "$status" = 0 ] &&
    echo "no filter named outside its folder ($n_names filters; $(grep -c . "$found") excepted findings)"
exit $status
