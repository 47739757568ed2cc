#!/bin/bash
# Runs every `$ bin/...` (and `$ mpirun ...`) example of the given Markdown
# files as pasted, in order, one scratch directory per file, so an example
# may use the files an earlier one in the same document wrote.
#   examples.sh [--testbed] ROOT BINDIR FILE.md...
# The `$ bin/scitestbed ...` examples need network namespaces: they run only
# with --testbed (and then only they), on a testbed name of their own, taken
# down at the end whatever happened.
# ROOT holds tests/ and examples the commands name; BINDIR is linked as bin/.
# An example is expected to exit 0, or N when its line ends "# exit N".  A
# measuring example is listed as undecided, not failed, when it exits 4
# (calibrate: every run unstable, the check undecided), when calibrate's
# held-out check misses on this machine (exit 3: the model's accuracy on this
# machine, a claim make validate reports, not the example's), or runs out of time
# while the machine is busy (a load average of at least its cores), and so
# is an example that fails for want of a file an undecided one did not write
# (its -o FILE): the script then exits 4.
# --part measuring runs the examples that measure (scibench, mpibench,
# calibrate but --data) and, in each document, those sharing a file with
# them, whichever wrote it; --part other runs the rest (make check runs
# the two in different tiers: nothing in the other part is timed).
# mpirun gets --allow-run-as-root --oversubscribe (the test machine runs as
# root on 2 cores) and every command a time limit.  Exit 1 on any failure,
# each listed as FILE:LINE.
set -u
testbed=0 part=all
[ "${1:-}" = --testbed ] && { testbed=1; shift; }
[ "${1:-}" = --part ] && { part=$2; shift 2; }
root=$1 bindir=$2; shift 2
if [ "$testbed" = 1 ]; then
    export SCITESTBED_NAME=ex$(($$ % 1000000))
    trap '"$bindir/scitestbed" down >/dev/null 2>&1' EXIT
fi
limit=${EXAMPLE_TIMEOUT:-300}
# rests_on_unwritten CMD: whether CMD names (as a word) a file of unwritten[]
# that is not in the scratch directory; sets missing to it.
rests_on_unwritten() {
    local f
    for f in "${unwritten[@]}"; do
        if [[ " $1 " == *" $f "* ]] && [ ! -e "$scratch/$f" ]; then missing=$f; return 0; fi
    done
    return 1
}
fail=0 ran=0 left=0 undecided=0
unwritten=()   # "-o FILE" outputs of this document's undecided examples
for doc in "$@"; do
    unwritten=()
    scratch=$(mktemp -d) || exit 1
    ln -s "$bindir" "$scratch/bin"
    for d in tests examples data; do
        [ -e "$root/$d" ] && ln -s "$root/$d" "$scratch/$d"
    done
    # FILE-LINE<TAB>command, continuation lines joined, only inside ``` blocks.
    while IFS=$'\t' read -r line class cmd; do
        if [[ $cmd == bin/scitestbed\ * ]]; then is_tb=1; else is_tb=0; fi
        if [ "$is_tb" != "$testbed" ] || { [ "$part" != all ] && [ "$part" != "$class" ]; }; then
            left=$((left + 1)); continue
        fi
        want=0
        if [[ $cmd =~ \#\ exit\ ([0-9]+)[[:space:]]*$ ]]; then want=${BASH_REMATCH[1]}; fi
        run=$(sed -E 's/(^|[;&|( ]|-- )mpirun /\1mpirun --allow-run-as-root --oversubscribe /g' <<<"$cmd")
        ran=$((ran + 1))
        ( cd "$scratch" && timeout "$limit" bash -c "$run" ) </dev/null >"$scratch/.out" 2>"$scratch/.err"
        rc=$?
        load=$(cut -d' ' -f1 /proc/loadavg)
        if [ "$rc" -eq 4 ] && [ "$want" -eq 0 ] && grep -q '^calibrate: undecided' "$scratch/.err"; then
            undecided=$((undecided + 1))
            echo "$doc:$line: undecided: $cmd"
            grep '^calibrate: \(run\|undecided\)' "$scratch/.err" "$scratch/.out" | cut -d: -f2- | sed 's/^/    /'
            [[ $cmd =~ -o\ ([^ ]+) ]] && unwritten+=("${BASH_REMATCH[1]}")
        elif [ "$rc" -eq 3 ] && [ "$want" -eq 0 ] && grep -q '^calibrate: held-out check FAILED' "$scratch/.err"; then
            undecided=$((undecided + 1))
            echo "$doc:$line: undecided: the held-out check missed on this machine (the model's accuracy here, not the example's): $cmd"
            grep '^calibrate: \(run [0-9]\|held-out check FAILED\|worst sizes\)' "$scratch/.err" "$scratch/.out" | cut -d: -f2- | sed 's/^/    /'
            [[ $cmd =~ -o\ ([^ ]+) ]] && unwritten+=("${BASH_REMATCH[1]}")
        elif [ "$rc" -eq 124 ] && [[ $cmd =~ (scibench|mpibench|calibrate) ]] &&
             awk -v l="$load" -v n="$(nproc)" 'BEGIN {exit !(l >= n)}'; then
            undecided=$((undecided + 1))
            echo "$doc:$line: undecided: out of time ($limit s) with the machine busy (load $load on $(nproc) cores): $cmd"
        elif [ "$rc" -ne "$want" ] && rests_on_unwritten "$cmd"; then
            undecided=$((undecided + 1))
            echo "$doc:$line: undecided: rests on $missing, which an undecided example did not write: $cmd"
        elif [ "$rc" -ne "$want" ]; then
            fail=1
            echo "$doc:$line: exit $rc, documented $want: $cmd"
            tail -n 5 "$scratch/.err" | sed 's/^/    /'
        fi
    done < <(awk '
        /^```/ { inblock = !inblock; next }
        inblock && cont != "" { cmd = cmd " " $0; }
        inblock && cont == "" && /^\$ (bin\/|mpirun )/ { start = FNR; cmd = substr($0, 3) }
        inblock && (cont != "" || /^\$ (bin\/|mpirun )/) {
            if (cmd ~ /\\$/) { sub(/\\$/, "", cmd); cont = 1 }
            else { print start "\t" cmd; cont = ""; cmd = "" }
        }' "$doc" | awk -F'\t' '
        # the examples that share a file name are joined; a group with one
        # that measures is "measuring", the others "other"
        function root(i) { while (up[i] != i) i = up[i]; return i }
        { n++; line[n] = $1; cmd[n] = $2; up[n] = n
          if ($2 ~ /(^|[ \/])(scibench|mpibench)( |$)/ ||
              ($2 ~ /(^|[ \/])calibrate( |$)/ && $2 !~ / --data /)) meas[n] = 1
          k = split($2, w, " ")
          for (j = 1; j <= k; j++) {
              sub(/^[0-9A-Za-z]*=/, "", w[j])
              if (w[j] !~ /^[A-Za-z_][A-Za-z0-9_.-]*\.[A-Za-z0-9]+$/) continue
              if (w[j] in first) up[root(n)] = root(first[w[j]]); else first[w[j]] = n
          } }
        END { for (i = 1; i <= n; i++) if (meas[i]) m[root(i)] = 1
              for (i = 1; i <= n; i++)
                  print line[i] "\t" (root(i) in m ? "measuring" : "other") "\t" cmd[i] }')
    # Keep the scratch directory of a failed document for the reader.
    if [ "$fail" = 0 ]; then rm -rf "$scratch"; else echo "(scratch kept: $scratch)"; fi
done
echo "examples: $ran run ($left left to the run $([ $testbed = 1 ] && echo without || echo with) --testbed or to the other part), $undecided undecided"
[ "$fail" = 0 ] && [ "$undecided" -gt 0 ] && exit 4
exit $fail
