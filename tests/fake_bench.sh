#!/bin/sh
# fake_bench: a stand-in for scibench that calibrate runs through --bench,
# so that a test decides what each measurement "sees".  It writes the
# networks calibrate asks for (-o, --interleave S=FILE) from the recorded
# --full run in $FAKE_FIXTURES, altered per run as $FAKE_MODES says:
#   clean    the recorded run as it is
#   bimodal  every point's median at 2x its minimum (batches in two regimes)
#   badheld  the held-out 6-node ring 30% slower from 1 KiB on
#   badheldN badheld, in a launch whose every point is N ns slower
#   plusN    every point of every network N ns slower (a launch in another state)
# and answers --floor with the next of $FAKE_FLOORS (ns).  A run takes the
# next of $FAKE_SECONDS (default 0) first, as a slow network would.  Each call is
# counted and its arguments appended to $FAKE_STATE/args.
set -eu
st=$FAKE_STATE
next() {   # next NAME LIST: the NAME counter's next word of LIST (the last one repeats)
    n=$(cat "$st/$1" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$st/$1"
    set -- $2
    [ "$n" -le $# ] || n=$#
    eval "echo \${$n}"
}
if [ "${1:-}" = "--floor" ]; then
    printf 'floor_ns\t%s\n' "$(next floors "${FAKE_FLOORS:-55}")"
    exit 0
fi
# calibrate --full's link-rate bursts: not a measurement these tests decide
case " $* " in *" --pattern ow "*) exit 0 ;; esac
echo "$*" >>"$st/args"
sleep "$(next secs "${FAKE_SECONDS:-0}")"
mode=$(next runs "${FAKE_MODES:-clean}")
emit() {   # emit NETWORK FILE
    case $mode in
    bimodal) awk -F'\t' -v OFS='\t' '/^#/ { print; next } { $14 = 2 * $13; if ($18 < $14) $18 = $14; print }' \
                 "$FAKE_FIXTURES/$1.tsv" >"$2" ;;
    badheld*) d=${mode#badheld}
             awk -F'\t' -v OFS='\t' -v net="$1" -v d="${d:-0}" '/^#/ { print; next }
                 { $13 += d; $14 += d; $15 += d; $18 += d }
                 net != "ring6" || $10 < 1024 { print; next }
                 { $14 = 1.3 * $14; if ($18 < $14) $18 = $14; print }' "$FAKE_FIXTURES/$1.tsv" >"$2" ;;
    plus*) awk -F'\t' -v OFS='\t' -v d="${mode#plus}" '/^#/ { print; next }
                 { $13 += d; $14 += d; $15 += d; $18 += d; print }' "$FAKE_FIXTURES/$1.tsv" >"$2" ;;
    *) cp "$FAKE_FIXTURES/$1.tsv" "$2" ;;
    esac
}
while [ $# -gt 0 ]; do
    case $1 in
    -o) emit ring2 "$2"; shift ;;
    --interleave)
        case $2 in
        8=*) emit ring8 "${2#8=}" ;;
        4x4=*) emit torus4x4 "${2#4x4=}" ;;
        6=*) emit ring6 "${2#6=}" ;;
        esac
        shift ;;
    esac
    shift
done
