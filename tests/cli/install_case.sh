#!/bin/sh
# -------------------------------------------------------------------------------------------------
# tests/cli/install_case.sh CMAKE BUILD_DIR WORKDIR: `cmake --install BUILD_DIR` into a temporary
# prefix under WORKDIR, then the installed program run from elsewhere, as a user would: every
# installed file is there, --list and a CPU batch on the installed sample photo work, the man page
# renders without a warning from groff and through man -l and is what the installed program
# prints, and the installed bash completion answers (tests/cli/completion_case.sh).
# -------------------------------------------------------------------------------------------------
set -u
cmake=$1 build=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
prefix=$work/prefix
fail() { echo "FAIL: $*"; exit 1; }
for tool in groff man bash; do
    command -v $tool >/dev/null 2>&1 || { echo "skipped: needs $tool (.ci/install-deps.sh)"; exit 77; }
done

rm -rf "$work" && mkdir -p "$work/elsewhere" || fail "cannot make $work"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
for f in bin/filterview share/man/man1/filterview.1 share/bash-completion/completions/filterview \
    share/doc/filterview/README.md share/doc/filterview/LICENSE share/doc/filterview/docs/usage.md \
    share/doc/filterview/docs/architecture.md share/filterview/astronaut.png \
    share/filterview/camera.png share/filterview/README.md; do
    [ -s "$prefix/$f" ] || fail "$f was not installed"
    echo "installed: $f"
done
fv=$prefix/bin/filterview
[ -x "$fv" ] || fail "bin/filterview is not executable"

# run from a folder that has nothing of the source or build tree
cd "$work/elsewhere" || exit 1
"$fv" --list >list.txt 2>&1 || { cat list.txt; fail "--list failed"; }
grep -q "^gaussian" list.txt || fail "--list shows no gaussian"
"$fv" "$prefix/share/filterview/astronaut.png" -f box -v cpu --radius 2 -o box.png >batch.txt 2>&1 ||
    { cat batch.txt; fail "the CPU batch failed"; }
grep -Eq "wrote .*box.png \(512x512, box/cpu, radius 2, " batch.txt || { cat batch.txt; fail "unexpected batch output"; }
head -c 8 box.png | od -An -c | grep -q "P   N   G" || fail "box.png is not a PNG"
echo "ran: --list, a CPU batch on the installed photo"

# the man page: the installed one is the installed program's, and groff and man take it cleanly
"$fv" --help-man >man.1 || fail "--help-man failed"
cmp -s man.1 "$prefix/share/man/man1/filterview.1" || fail "the installed man page is not --help-man's"
groff -man -Tutf8 -ww -z man.1 >groff.txt 2>&1
[ ! -s groff.txt ] || { cat groff.txt; fail "groff warns about the man page"; }
MANWIDTH=80 man -l "$prefix/share/man/man1/filterview.1" >man.txt 2>man.err || { cat man.err; fail "man -l failed"; }
[ ! -s man.err ] || { cat man.err; fail "man -l complained"; }
for section in NAME SYNOPSIS DESCRIPTION MODES OPTIONS FILTERS VIEWER KEYS "EXIT STATUS" ENVIRONMENT \
    FILES EXAMPLES "SEE ALSO"; do
    grep -q "^$section" man.txt || fail "the man page has no $section"
done
# what --help, --list and --help-keys say is in it: every option, filter, variant and key
for word in $("$fv" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u) \
    $(awk '/^[a-z]/ { print $1; next } /^  [a-z]/ { print $1 }' list.txt); do
    grep -qe "$word" man.txt || fail "the man page does not mention $word"
done
"$fv" --help-keys | sed -n 's/^| `\([^`]*\)` |.*/\1/p' >keys.txt
[ -s keys.txt ] || fail "--help-keys printed no key"
while IFS= read -r key; do
    grep -qF -- "$key" man.txt || fail "the man page's KEYS lack '$key'"
done <keys.txt
# EXIT STATUS names every status the program ends with, a signal's too
sed -n '/^EXIT STATUS/,/^ENVIRONMENT/p' man.txt >exit.txt
listed=$(awk '/^ +[0-9][0-9+N]* / { print $1 }' exit.txt | tr '\n' ' ')
[ "$listed" = "0 1 2 128+N " ] || fail "the man page's EXIT STATUS lists '$listed', not 0 1 2 128+N"
grep -q "130 for Ctrl-C" exit.txt || fail "the man page's EXIT STATUS does not say that Ctrl-C gives 130"
# options copy as typed: a minus, not a typographic hyphen
grep -q -- "--help-man" man.txt || fail "options do not render as ASCII"
echo "man page: groff -ww clean, man -l renders it, every option, filter, variant and key in it"

# the completion: installed, and what the installed program prints
"$fv" --completion bash >completion.bash || fail "--completion bash failed"
cmp -s completion.bash "$prefix/share/bash-completion/completions/filterview" ||
    fail "the installed completion is not --completion bash's"
bash --norc --noprofile "$here/completion_case.sh" "$fv" \
    "$prefix/share/bash-completion/completions/filterview" "$work/files" || fail "completion cases"
echo "installed into $prefix: all there and working"
