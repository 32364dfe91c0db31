#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/no_cycles.sh OBJECT_DIR...: which source file calls which, from the object files' symbol
# tables (nm: what each defines, what it needs), and whether any of them call each other, directly
# or round a longer loop. Floors only go down (docs/architecture.md); this is how that is checked,
# over every object of the library (C and CUDA: kernels/) and of the program (viewer/) together,
# so that a loop through both is seen too. Each OBJECT_DIR must hold objects.
# Prints "a.c -> b.c c.c" per file, then every cycle found; exits 1 if there is one.
# -------------------------------------------------------------------------------------------------
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OBJECT_DIR..." >&2; exit 2; }
for dir in "$@"; do
    [ -n "$(find "$dir" -name '*.o' 2>/dev/null | head -n 1)" ] ||
        { echo "no object files under $dir" >&2; exit 2; }
done
objects=$(find "$@" -name '*.o' | sort)
for o in $objects; do
    name=$(echo "$o" | sed -e 's|.*\.dir/||' -e 's|\.o$||')
    nm "$o" | awk -v f="$name" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /^[TDBR]$/ { print "D", f, $3 }'
done | awk '
    $1 == "D" { def[$3] = $2; files[$2] = 1 }
    $1 == "U" { need[++n] = $2 " " $3; files[$2] = 1 }
    END {
        for (i = 1; i <= n; i++) {
            split(need[i], p, " ")
            if ((p[2] in def) && def[p[2]] != p[1]) edge[p[1], def[p[2]]] = 1
        }
        nf = 0
        for (f in files) name[++nf] = f
        for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++)
            if (name[j] < name[i]) { t = name[i]; name[i] = name[j]; name[j] = t }
        for (i = 1; i <= nf; i++) {
            line = name[i] " ->"
            for (j = 1; j <= nf; j++) if ((name[i], name[j]) in edge) line = line " " name[j]
            print line
            for (j = 1; j <= nf; j++) reach[name[i], name[j]] = ((name[i], name[j]) in edge)
        }
        for (k = 1; k <= nf; k++) for (i = 1; i <= nf; i++) if (reach[name[i], name[k]])
            for (j = 1; j <= nf; j++) if (reach[name[k], name[j]]) reach[name[i], name[j]] = 1
        bad = 0
        for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++)
            if (reach[name[i], name[j]] && reach[name[j], name[i]]) {
                print "cycle: " name[i] " <-> " name[j] ((name[i], name[j]) in edge && (name[j], name[i]) in edge ? " (call each other)" : " (round a longer loop)")
                bad = 1
            }
        if (!bad) print "no cycles among " nf " files"
        exit bad
    }'
