#!/bin/bash
# Lists every place that cites a document the user does not have: the
# project's private specification, the directory beside the repository,
# its source documents, or a tracker's numbered issues.  Searched: every
# tracked file, every program's --help (scitrace's modes too), every man
# page in build/man and every figure script.  Cite docs/model.md or
# docs/formats.md by section name instead, or give the reason in place.
#   citations.sh ROOT BINDIR
# Exit 1 with one "where: line" per hit and a count per directory.
set -u
root=$1 bindir=$2
# Character classes keep these patterns from matching this file itself.
pat='SPEC[.]md|[.][.]/shared|seed[s]/|[Ii]ssue[s]? #?[0-9]|[Ii]ssue[s]? [0-9]'
hits=$(mktemp) || exit 1
trap 'rm -f "$hits"' EXIT

cd "$root" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z | xargs -0 grep -nIE "$pat" -- 2>/dev/null >>"$hits"
else
    grep -rnIE "$pat" --exclude-dir=build --exclude-dir=bin . >>"$hits"
fi
for p in "$bindir"/*; do
    [ -x "$p" ] && [ -f "$p" ] && [[ $p != *.so ]] || continue
    name=$(basename "$p")
    modes=("")
    [ "$name" = scitrace ] && modes=("" run summary matrix check goal)
    [ "$name" = scitestbed ] && modes=("" up down run hostfile)
    for m in "${modes[@]}"; do
        timeout 10 "$p" $m --help 2>&1 </dev/null | grep -nE "$pat" |
            sed "s|^|$name${m:+ $m} --help:|" >>"$hits"
    done
done
for man in build/man/*.1; do
    [ -f "$man" ] && grep -nE "$pat" "$man" | sed "s|^|$man:|" >>"$hits"
done
for gp in plots/*.gp scitrace/*.gp; do
    [ -f "$gp" ] && grep -nE "$pat" "$gp" | sed "s|^|$gp:|" >>"$hits"
done
sort -u -o "$hits" "$hits"
if [ -s "$hits" ]; then
    cat "$hits"
    echo "citations: $(wc -l <"$hits") places cite documents the user does not have; by directory:"
    sed -E 's/^([^:/ ]+)[/ ].*/\1/; s/^([^:]+):.*/\1/' "$hits" | sort | uniq -c | sort -rn
    exit 1
fi
echo "citations: none"
