#!/usr/bin/env bash
# timeline.sh: the timeline figure of a trace: ranks by time, each call a
# bar, each message `scitrace check` matched an arrow, the deadlock's cycle
# of waits in red (scitrace/timeline.gp).  Prints the file it wrote.
#
#   scitrace/timeline.sh DIR OUT.png      (SCITRACE: the scitrace to use)
#
# Installed beside its gnuplot script (PREFIX/share/scitorus/trace/).
#
# Fails (exit 1) when the trace cannot be read or gnuplot fails; check's
# findings (exit 5-8) are what the figure shows, not failures.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: scitrace/timeline.sh DIR OUT.png" >&2; exit 2; }
dir=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
# the checkout's scitrace, else the one on PATH (an installed copy)
scitrace=${SCITRACE:-$here/../bin/scitrace}
[ -x "$scitrace" ] || scitrace=scitrace
data=$(mktemp /tmp/scitorus-timeline-XXXXXX.tsv)
trap 'rm -f "$data"' EXIT
verdict=$("$scitrace" check --timeline "$data" "$dir" | head -1)
rc=${PIPESTATUS[0]}
case $rc in 0|5|6|7|8) ;; *) echo "scitrace/timeline.sh: scitrace check $dir failed (exit $rc)" >&2; exit 1 ;; esac
ranks=$(awk -F'\t' 'FNR > 2 && /^[0-9]/ { if ($1 + 1 > n) n = $1 + 1 } /^$/ { exit } END { print n + 0 }' "$data")
title=${verdict#scitrace check }
err=$(gnuplot -e "data='$data'; out='$out'; title='${title//\'/}'; ranks=$ranks" "$here/timeline.gp" 2>&1 >/dev/null) ||
    { echo "scitrace/timeline.sh: gnuplot failed: $err" >&2; exit 1; }
[ -z "$err" ] || { echo "scitrace/timeline.sh: gnuplot: $err" >&2; exit 1; }
echo "$out"
