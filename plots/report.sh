#!/usr/bin/env bash
# report.sh: one self-contained HTML file comparing calibrations (machines,
# or one machine in two regimes) and result sets: the parameters with their
# errors, the held-out check, the crossovers, side by side, and the figures
# of the gnuplot scripts here as SVG inlined as data: URIs (it opens from a
# file with no network).
#
#   report.sh -o OUT.html [-t TITLE] [LABEL=]PARAMS... [RESULTSET-DIR...]
#
# A params file brings its bench data (its '# data:' header's files, those
# that exist) and calibrate's held-out table beside it, STEM-validation.tsv.
# A directory is a result set (scicampaign): its bench files listed, its
# ping-pong and one-way files drawn (resultset.gp).  Numbers are copied from
# the files and from scimodel, never recomputed here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# scimodel: $SCIMODEL, else the build's (plots/../bin), else the installed
# one (PREFIX/share/scitorus/plots/../../../bin), else on PATH
scimodel=${SCIMODEL:-}
for c in "$here/../bin/scimodel" "$here/../../../bin/scimodel"; do
    [ -n "$scimodel" ] || { [ -x "$c" ] && scimodel=$c; }
done
[ -n "$scimodel" ] || scimodel=$(command -v scimodel) || { echo "report.sh: no scimodel (set SCIMODEL)" >&2; exit 1; }
usage() { echo "report.sh: $1 (usage: report.sh -o OUT.html [-t TITLE] [LABEL=]PARAMS... [DIR...])" >&2; exit 2; }
out= title="scitorus: calibrations side by side"
while getopts "o:t:" opt; do
    case $opt in o) out=$OPTARG ;; t) title=$OPTARG ;; *) usage "unknown option" ;; esac
done
shift $((OPTIND - 1))
[ -n "$out" ] || usage "-o OUT.html is required"
[ $# -ge 1 ] || usage "no calibration or result set"
[ -d "$(dirname "$out")" ] || { echo "report.sh: -o '$out': no directory '$(dirname "$out")'" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/gp.sh"

labels=() params=() sets=()
for a in "$@"; do
    if [ -d "$a" ]; then sets+=("$a"); continue; fi
    label=${a%%=*} p=${a#*=}
    [ "$label" != "$a" ] || label=$(basename "$a" .params)
    [ -r "$p" ] || { echo "report.sh: '$p': cannot read the params file" >&2; exit 1; }
    head -1 "$p" | grep -q '^# scitorus params' ||
        { echo "report.sh: $p:1: not a params file (# scitorus params)" >&2; exit 1; }
    "$scimodel" --params "$p" --nodes 2 > /dev/null || exit 1   # its own message, with the line
    labels+=("$label") params+=("$p")
done

esc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
value() { sed -n "s/^$2 *= *//p" "$1" | tr -d '"' | head -1; }
img() {   # FILE ALT: an <img> with the SVG inlined
    printf '<img alt="%s" src="data:image/svg+xml;base64,%s">\n' "$2" "$(base64 -w0 < "$1")"
}
cell() {   # the value of KEY in params file P, +- its error, (its source)
    local v e s
    v=$(value "$1" "$2"); e=$(value "$1" "$2_err"); s=$(value "$1" "$2_source")
    printf '<td data-key="%s" data-machine="%s">' "$2" "$3"
    if [ -z "$v" ]; then printf -- '-'; else
        printf '%s' "$v"; [ -n "$e" ] && printf ' &plusmn; %s' "$e"
        [ -n "$s" ] && printf ' <small>(%s)</small>' "$(printf '%s' "$s" | esc)"
    fi
    printf '</td>'
}

{
cat <<HEAD
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>$(printf '%s' "$title" | esc)</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #bbb; padding: 0.3em 0.6em; text-align: right; vertical-align: top; }
th { background: #eee; } td:first-child { text-align: left; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; } .figs div { flex: 1 1 45%; min-width: 30em; }
img { width: 100%; }
</style></head><body>
<h1>$(printf '%s' "$title" | esc)</h1>
<p>Made by plots/report.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from:
HEAD
for i in "${!params[@]}"; do printf ' <code>%s</code> (%s)' "$(printf '%s' "${params[$i]}" | esc)" "$(printf '%s' "${labels[$i]}" | esc)"; done
for s in "${sets[@]}"; do printf ' <code>%s/</code>' "$(printf '%s' "$s" | esc)"; done
printf '.  Every number is copied from those files or from scimodel.</p>\n'

if [ ${#params[@]} -gt 0 ]; then
    printf '<h2>Parameters</h2>\n<p>Value &plusmn; standard error (where it comes from), per calibration.</p>\n<table>\n<tr><th>parameter</th>'
    for l in "${labels[@]}"; do printf '<th>%s</th>' "$(printf '%s' "$l" | esc)"; done
    printf '</tr>\n<tr><td>fitted</td>'
    for p in "${params[@]}"; do printf '<td>%s</td>' "$(sed -n 's/^# fitted by //p' "$p" | head -1 | esc)"; done
    printf '</tr>\n'
    for key in o0_ns o1_ns_per_byte mref_bytes lp_ns lf_ns ls_ns lb_ns_per_byte o_segments fit_statistic fit_r2 fit_chi2_dof; do
        printf '<tr><td>%s</td>' "$key"
        for i in "${!params[@]}"; do cell "${params[$i]}" "$key" "$i"; done
        printf '</tr>\n'
    done
    printf '</table>\n<h2>Held-out check</h2>\n<table>\n<tr><th>calibration</th><th>held out</th><th>sizes</th><th>worst error (%%)</th><th>median |error| (%%)</th></tr>\n'
    for i in "${!params[@]}"; do
        v=${params[$i]%.params}-validation.tsv
        printf '<tr><td>%s</td>' "$(printf '%s' "${labels[$i]}" | esc)"
        if [ -r "$v" ]; then
            printf '<td>%s</td>' "$(sed -n 's/^# held-out: //p' "$v" | esc)"
            awk -F'\t' '!/^#/ { print ($7 < 0 ? -$7 : $7) "\t" $7 }' "$v" | sort -g |
                awk -F'\t' -v m="$i" '{ a[++n] = $1; ws = $2 }
                    END { med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
                          printf "<td>%d</td><td data-key=\"worst\" data-machine=\"%s\">%s</td><td>%.3f</td>", n, m, ws, med }'
        else printf '<td colspan="4">none (calibrate --full or --validate --validation-out writes it)</td>'; fi
        printf '</tr>\n'
    done
    printf '</table>\n<h2>Crossovers</h2>\n<p>Average request latency, uniform traffic, continuous n (scimodel --crossover --metric avg); a lower bound: the higher D already wins at its smallest torus.</p>\n<table>\n<tr><th>crossover</th>'
    for l in "${labels[@]}"; do printf '<th>%s</th>' "$(printf '%s' "$l" | esc)"; done
    printf '</tr>\n'
    for i in "${!params[@]}"; do "$scimodel" --params "${params[$i]}" --crossover --metric avg --format tsv > "$work/xo$i.tsv"; done
    for row in 2 3 4; do
        printf '<tr><td>%s</td>' "$(awk -F'\t' -v r=$row 'NR == r { printf "%dD &rarr; %dD", $2, $3 }' "$work/xo0.tsv")"
        for i in "${!params[@]}"; do
            awk -F'\t' -v r=$row -v m="$i" 'NR == r { printf "<td data-key=\"xo%d%d\" data-machine=\"%s\">%s%s</td>", $2, $3, m, $4,
                ($5 == "crossover" ? "" : " <small>(" $5 ")</small>") }' "$work/xo$i.tsv"
        done
        printf '</tr>\n'
    done
    printf '</table>\n<h2>Figures</h2>\n<div class="figs">\n'
    for i in "${!params[@]}"; do
        p=${params[$i]} l=$(printf '%s' "${labels[$i]}" | esc)
        printf '<div><h3>%s</h3>\n' "$l"
        data=$(sed -n 's/^# data: //p' "$p" | head -1)
        for d in $data; do
            [ -r "$d" ] || continue
            gp_draw report.sh "$here/calibration.gp" "$work" "cal$i" "data='$d'; params='$p'; term='svg'"
            img "$work/cal$i.svg" "calibration of $l: $d"
            break
        done
        v=${p%.params}-validation.tsv
        if [ -r "$v" ]; then
            gp_draw report.sh "$here/validation.gp" "$work" "val$i" "data='$v'; term='svg'"
            img "$work/val$i.svg" "held-out check of $l"
        fi
        "$scimodel" --params "$p" --dims 1..4 --sweep --nodes 1000 --format tsv > "$work/sw$i.tsv"
        "$scimodel" --params "$p" --dims 1..4 --crossover --format tsv > "$work/x$i.tsv"
        gp_draw report.sh "$here/crossover.gp" "$work" "xo$i" "sweep='$work/sw$i.tsv'; xo='$work/x$i.tsv'; title='$l: latency of 1D..4D tori'; logx=0; term='svg'"
        img "$work/xo$i.svg" "crossovers of $l"
        printf '</div>\n'
    done
    printf '</div>\n'
fi
nset=0
for s in "${sets[@]}"; do
    printf '<h2>Result set <code>%s/</code></h2>\n<table>\n<tr><th>file</th><th>host</th><th>backend</th><th>topology</th><th>pattern</th><th>points</th><th>state</th></tr>\n' "$(printf '%s' "$s" | esc)"
    for f in "$s"/*.tsv; do
        [ -r "$f" ] && head -1 "$f" | grep -q '^# scitorus-bench 1' || continue
        printf '<tr><td>%s</td>' "$(basename "$f" | esc)"
        for k in host backend topology pattern; do printf '<td>%s</td>' "$(sed -n "s/^# $k: //p" "$f" | head -1 | esc)"; done
        printf '<td>%s</td><td>%s</td></tr>\n' "$(grep -vc '^#' "$f" || true)" "$(tail -1 "$f" | grep -q '^# incomplete' && echo incomplete || echo complete)"
    done
    printf '</table>\n'
    # the figure: its ping-pong and one-way files that hold points
    files= names=
    for f in "$s"/*.tsv; do
        grep -qx '# pattern: \(pp\|ow\)' "$f" 2>/dev/null && grep -qv '^#' "$f" || continue
        files+="$f " names+="$(basename "$f" .tsv) "
    done
    if [ -n "$files" ]; then
        nset=$((nset + 1))
        gp_draw report.sh "$here/resultset.gp" "$work" "set$nset" "files='$files'; names='$names'; title='result set $s'; term='svg'"
        img "$work/set$nset.svg" "result set $s"
    fi
done
printf '</body></html>\n'
} > "$work/report.html"
# a device (/dev/null, /dev/full) is written in place, a file replaced whole
if [ -e "$out" ] && [ ! -f "$out" ]; then
    cat "$work/report.html" 2>/dev/null > "$out" || { echo "report.sh: -o '$out': cannot write" >&2; exit 1; }
else
    cp "$work/report.html" "$out.tmp.$$" && mv -f "$out.tmp.$$" "$out" ||
        { rm -f "$out.tmp.$$"; echo "report.sh: -o '$out': cannot write" >&2; exit 1; }
fi
echo "$out"
