#!/bin/bash
# -------------------------------------------------------------------------------------------------
# tests/cli/completion_case.sh PROGRAM SCRIPT WORKDIR: the bash completion SCRIPT (what
# `PROGRAM --completion bash` wrote) sourced in a plain bash (no bash-completion package) and asked
# what it offers after a handful of command lines, as bash asks it: COMP_LINE, COMP_POINT,
# COMP_WORDS and COMP_CWORD set, _filterview called. The expected filters, variants, parameters and
# options are read from PROGRAM's own --list and --help, so a new one must show up in both.
# -------------------------------------------------------------------------------------------------
set -u
program=$1 script=$2 work=$3
fails=0
# shellcheck disable=SC1090
source "$script" || { echo "FAIL: cannot source $script"; exit 1; }

# offered LINE: the sorted, space-separated completions at the end of LINE
offered()
{
    COMP_LINE=$1
    COMP_POINT=${#1}
    # bash's own words: split at blanks, ':' and '=' are words of their own (COMP_WORDBREAKS)
    local split=${1//:/ : }
    split=${split//=/ = }
    read -r -a COMP_WORDS <<<"$split"
    [[ $1 == *[[:blank:]] ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _filterview filterview "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

sorted() { printf '%s\n' "$@" | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# expect LINE WORDS...: exactly these
expect()
{
    local line=$1 got want
    got=$(offered "$1")
    shift
    want=$(sorted "$@")
    if [[ $got != "$want" ]]; then
        echo "FAIL: '$line' offered '$got', expected '$want'"
        fails=$((fails + 1))
    else
        echo "ok: '$line' -> $got"
    fi
}

# expect_has LINE WORDS...: these among others; expect_not LINE WORDS...: none of these
expect_has()
{
    local line=$1 got w
    got=" $(offered "$1") "
    shift
    for w in "$@"; do
        [[ $got == *" $w "* ]] || { echo "FAIL: '$line' did not offer '$w' (got:$got)"; fails=$((fails + 1)); }
    done
    echo "checked: '$line' offers $*"
}
expect_not()
{
    local line=$1 got w
    got=" $(offered "$1") "
    shift
    for w in "$@"; do
        [[ $got != *" $w "* ]] || { echo "FAIL: '$line' offered '$w'"; fails=$((fails + 1)); }
    done
    echo "checked: '$line' does not offer $*"
}

# the registry as --list prints it: filters at the margin, then "  --param" and "  variant" rows
# (two spaces; a wrapped text continues further in)
list=$("$program" --list) || { echo "FAIL: $program --list"; exit 1; }
filters=$(awk '/^[a-z]/ { print $1 }' <<<"$list")
variants_of() { awk -v f="$1" '/^[a-z]/ { on = $1 == f; next } on && /^  [^ ]/ && $1 !~ /^--/ { print $1 }' <<<"$list"; }
params_of() { awk -v f="$1" '/^[a-z]/ { on = $1 == f; next } on && /^  [^ ]/ && $1 ~ /^--/ && $1 != "--iters" { print substr($1, 3) "=" }' <<<"$list"; }
[[ $filters == *box* && $filters == *canny* ]] || { echo "FAIL: --list shows no box or canny"; exit 1; }

# shellcheck disable=SC2046 # one word per name
expect "filterview -f " $filters
expect "filterview --filter=" $filters
expect "filterview --filter=me" median
expect "filterview photo.png -f box -v " $(variants_of box)
expect "filterview -f canny -p " $(params_of canny)
expect "filterview -f canny -p st" stage=
expect "filterview -f canny -p stage=" gray blur magnitude direction nms thresholds edges
expect "filterview -f canny -p stage=ed" edges
expect "filterview -f canny --norm " l1 l2
expect "filterview -f conv --stage=" output kernel spectrum_image spectrum_kernel spectrum_product
expect "filterview --interop " buffer texture pbo staging
expect "filterview -o x.jpg --codec " auto cpu gpu
expect "filterview --completion " bash
# without -f: every filter's variants and parameters
expect_has "filterview -v " $(variants_of gaussian) $(variants_of box) $(variants_of conv)
expect_has "filterview -p " $(params_of box) $(params_of canny)
# panes: the variants of -f's filter, 'original', and FILTER:VARIANT (':' splits the word in bash);
# a build without CUDA (-DFV_CUDA=OFF) has the references alone: `cpu` stands in for the others
if [ -n "$(variants_of median | grep -vx cpu)" ]; then
    gpu_build=1 median_some=fast median_prefix=sm canny_some=smem box_some=fast gaussian_some=naive
else
    gpu_build=0 median_some=cpu median_prefix=cp canny_some=cpu box_some=cpu gaussian_some=cpu
fi
expect_has "filterview photo.png -f box -a " original $(variants_of box) median:$median_some canny:$canny_some
expect_not "filterview photo.png -f box -a " smem_mwpt
expect "filterview photo.png -b median:" $(variants_of median)
expect "filterview photo.png -b median:$median_prefix" $(variants_of median | grep "^$median_prefix")
expect_has "filterview photo.png --compare $gaussian_some " $(variants_of gaussian) box:$box_some
expect_not "filterview photo.png --compare $gaussian_some " original
# where ':' does not split words (COMP_WORDBREAKS without it), the whole word comes back
breaks=$COMP_WORDBREAKS
COMP_WORDBREAKS=${COMP_WORDBREAKS//:/}
if [ $gpu_build = 1 ]; then
    expect "filterview photo.png -b median:smem_p" median:smem_ppt2 median:smem_ppt4
else
    expect "filterview photo.png -b median:cp" median:cpu
fi
COMP_WORDBREAKS=${COMP_WORDBREAKS//=/}
expect "filterview --filter=me" --filter=median
expect "filterview -f canny -p stage=ed" stage=edges
COMP_WORDBREAKS=$breaks

# every option --help names (and the parameters' flags) is offered after "--"
all=" $(offered "filterview --") "
for option in $("$program" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [[ $all == *" $option "* ]] || { echo "FAIL: '--' does not offer $option (from --help)"; fails=$((fails + 1)); }
done
expect_has "filterview --he" --help --help-keys --help-man
expect_has "filterview --st" --stage

# file names: images where one is read, by their endings where one is written, and folders
rm -rf "$work" && mkdir -p "$work/folder" && cd "$work" || exit 1
touch a.png b.JPG c.jpeg d.pgm notes.txt table.csv
expect "filterview " a.png b.JPG c.jpeg d.pgm folder
expect "filterview a.png -o " a.png b.JPG c.jpeg folder
expect "filterview --bench --csv " table.csv folder
expect "filterview --bench --chart " a.png folder
expect "filterview --bench --image=" a.png b.JPG c.jpeg d.pgm folder
expect "filterview -f conv --kernel-file n" ""
expect "filterview --runs " ""

echo "$fails failure(s)"
[[ $fails == 0 ]]
