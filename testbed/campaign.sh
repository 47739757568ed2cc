#!/bin/bash
# testbed/campaign.sh: the testbed's measurements, round by round
# (docs/testbed.md, "The figures").  Every round measures, one testbed after
# another, each destination of rings of 2, 4, 5 and 6 nodes, a 2x2 torus, a
# 6-node ring with shortest-way routes and the rings of 2 and 4 with every
# link at RATE.  The shortest-way rings (bN, pN) measure each destination
# B_REPEATS times in alternating order (1 2 3 3 2 1 ...): a run's level
# shifts with the machine's regime, and the hop growth is a difference of
# runs, so a drift must hit every destination alike.  Two ranks per point, on the source and the destination: the
# other nodes relay in the kernel and run nothing (a rank on each of them
# polls, and on 2 cores that polling, not the relays, set the latency:
# docs/testbed.md, "Limits").  Each point's file is relabelled with the real
# network and route (mpibench saw a 2-node ring).  A round holds the measurement
# lock (flock -x) for its runs, under 2 minutes.
#
#   testbed/campaign.sh OUTDIR [ROUNDS] [BINDIR]
#   env: SIZES (default 1..65536), MAX_TIME (per run, default 1.5),
#        PER_LOCK (rounds per hold of the lock, default 2),
#        RATE (default 1gbit), MTU (default 9000), LOCK (default
#        /tmp/scitorus-measure.lock, "" for none), NETS (default
#        "r2 r4 r6 t22 r5 b6 q2 q4"): rN one-way ring, bN shortest-way
#        ring, qN one-way ring at RATE, pN shortest-way ring at RATE, tAB
#        torus AxB; B_REPEATS (default 3), B_SIZES (default 8,64,65536)
#        and B_MAX_TIME (default 0.4) for the shortest-way rings; PASSES
#        (default 1): passes over NETS a round, every other one in reverse
set -u
out=${1:?usage: campaign.sh OUTDIR [ROUNDS] [BINDIR]}
rounds=${2:-5}
bin=$(cd "${3:-bin}" && pwd)
SIZES=${SIZES:-1..65536} MAX_TIME=${MAX_TIME:-1.5} PER_LOCK=${PER_LOCK:-2} RATE=${RATE:-1gbit} MTU=${MTU:-9000}
LOCK=${LOCK-${TMPDIR:-/tmp}/scitorus-measure.lock}
NETS=${NETS:-r2 r4 r6 t22 r5 b6 q2 q4}
PASSES=${PASSES:-1} B_REPEATS=${B_REPEATS:-3} B_SIZES=${B_SIZES:-8,64,65536} B_MAX_TIME=${B_MAX_TIME:-0.4}
tb=$bin/scitestbed
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
prefix=c$(($$ % 9000 + 1000))

shape_of() { case $1 in t*) local s=${1#t}; echo "${s:0:1}x${s:1:1}" ;; *) echo "${1:1}" ;; esac; }
up_opts() {
    case $1 in
        r*) echo "--ring ${1#r} --mtu $MTU" ;;
        b*) echo "--ring ${1#b} --links bi --mtu $MTU" ;;
        p*) echo "--ring ${1#p} --links bi --rate $RATE --mtu $MTU" ;;
        q*) echo "--ring ${1#q} --rate $RATE --mtu $MTU" ;;
        t*) echo "--torus $(shape_of "$1") --mtu $MTU" ;;
    esac
}

cleanup() { for n in $NETS; do "$tb" --name "$prefix$n" down 2>/dev/null; done; }
trap 'cleanup; exit 143' INT TERM HUP
trap cleanup EXIT
for n in $NETS; do
    # shellcheck disable=SC2046
    "$tb" --name "$prefix$n" up $(up_opts "$n") 2>/dev/null || { echo "campaign: up $n failed" >&2; exit 1; }
done

# the lock is held for PER_LOCK rounds at a time (about 30 runs a round, 25 s
# here): a writer waiting on a busy shared lock can wait many minutes.
[ -z "$LOCK" ] || exec 9>>"$LOCK"
lock() { [ -z "$LOCK" ] || flock "$1" 9; }

for ((r = 1; r <= rounds; r++)); do
    ((r % PER_LOCK == 1 || PER_LOCK == 1)) && lock -x
    echo "campaign: round $r from $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
    declare -A parts=()
    for ((pass = 1; pass <= PASSES; pass++)); do
      nets=$NETS
      ((pass % 2)) || nets=$(tr ' ' '\n' <<<"$NETS" | tac | tr '\n' ' ')
      for n in $nets; do
        shape=$(shape_of "$n")
        nodes=$(tr x '\n' <<<"$shape" | awk 'BEGIN {p = 1} {p *= $1} END {print p}')
        links=one reps=1 sizes=$SIZES mt=$MAX_TIME
        [[ $n == [bp]* ]] && links=bi reps=$B_REPEATS sizes=$B_SIZES mt=$B_MAX_TIME
        last=$((nodes - 1))
        [ $links = bi ] && last=$((nodes / 2))   # the others mirror these
        order=()
        for ((k = 1; k <= reps; k++)); do
            if ((k % 2)); then for ((d = 1; d <= last; d++)); do order+=("$d:$k"); done
            else for ((d = last; d >= 1; d--)); do order+=("$d:$k"); done; fi
        done
        for dk in "${order[@]}"; do
            d=${dk%:*} k=${dk#*:}
            f=$out/$n-r$r-d$d-p$pass-k$k.tsv
            # a run some other load disturbed (a point with fewer than mpibench's
            # 8 batches: its time ran out) is measured again, twice at most
            for try in 1 2 3; do
                "$tb" --name "$prefix$n" run --timeout 120 --nodes 0,$d -- "$bin/mpibench" 9>&- \
                    --route network --sizes "$sizes" --interleave-sizes --max-time "$mt" -q -o "$f" ||
                    { echo "campaign: round $r, $n, node $d failed" >&2; exit 1; }
                short=$(awk '!/^#/ && $12 < 8' "$f" | wc -l)
                [ "$short" = 0 ] && break
                echo "campaign: round $r, $n, node $d: $short points with fewer than 8 batches (try $try)" >&2
            done
            "$here/relabel.sh" "$shape" "$links" "$d" "$f" || exit 1
            parts[$n]="${parts[$n]:-} $f"
        done
      done
    done
    # one file per network and round, as mpibench --all-dst writes it
    # (with repeats, a row per run)
    for n in $NETS; do
        read -r -a fs <<<"${parts[$n]}"
        { grep '^#' "${fs[0]}" | sed "s/and node 1 only/and each destination in turn/"
          for f in "${fs[@]}"; do grep -v '^#' "$f"; done; } >"$out/$n-r$r.tsv"
        rm -f "${fs[@]}"
    done
    unset parts
    echo "campaign: round $r to $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
    ((r % PER_LOCK == 0 || r == rounds)) && lock -u
done
