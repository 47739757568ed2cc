#!/usr/bin/env bash
# tests/check.sh: runs test binaries tier by tier for `make check` and its
# check-unit, check-cli and check-timing targets.
#   tests/check.sh TIER BIN...                      one tier
#   tests/check.sh --all TIER BIN... -- TIER BIN... every tier, then the sum
# Tiers joined by ++ instead of -- (TIER BIN... ++ TIER BIN...) run as one
# pool: for untimed tiers only, whose binaries may share the machine.
# A BIN may name some of its tests: BIN:only=S/T,S/T runs just those (suite
# S, test T), BIN:except=S/T,... all the others; the part's log, TAP and
# time go under build/check/<bin>.only or <bin>.except.
# Each binary runs its tests one at a time (--jobs 1) with its log in
# build/check/<bin>.log (and a TAP report beside it, where skipped tests are
# counted); the output shows its messages, its skipped tests with their
# reasons, and wall and CPU time.  The unit and cli tiers time nothing, so CHECK_JOBS
# binaries (default: the cores, one more in the cli tier) run at once, the
# longest of the last run first (before any run: those CHECK_FIRST names, in
# its order); check-timing runs one binary at a time, alone.
# A tier ends with "TIER: N passed, N failed, N skipped (T s, CPU C s)", C
# the CPU seconds its binaries and their children used (a pool's tiers with
# its times: "(T s, CPU C s, one pool: TIER TIER)"); --all ends
# with the one line CI reads: "check: N passed, N failed".
set -u
all=0
[ "${1:-}" = --all ] && { all=1; shift; }
mkdir -p build/check
: >build/check/failures.log
total_pass=0 total_fail=0 total_skip=0 status=0 tiers=""
cores=$(nproc 2>/dev/null || echo 1)

# part_name BIN[:only=...|:except=...]: its name under build/check/.
part_name() {
  local b=${1%%:*} k=
  [ "$b" = "$1" ] || { k=${1#*:}; k=.${k%%=*}; }
  echo "$(basename "$b")$k"
}

# part_args BIN[:only=...|:except=...]: the binary, and Criterion's
# --filter for the part (a glob over suite/test: @(a|b) or !(a|b)).
part_args() {
  local b=${1%%:*} spec list
  echo "$b"
  [ "$b" = "$1" ] && return
  spec=${1#*:}; list=${spec#*=}; list=${list//,/|}
  case "$spec" in
    only=*) echo "--filter=@($list)";;
    except=*) echo "--filter=!($list)";;
  esac
}

# run_one BIN: runs one binary (or part); its log, TAP, exit status (.rc),
# wall time in seconds (.secs) and the CPU seconds it and its children used
# (.cpu) under build/check/.  Prints the log as it goes when $live is set.
run_one() {
  local name s0 rc args TIMEFORMAT='%U %S'
  name=$(part_name "$1"); s0=$(date +%s.%N)
  mapfile -t args < <(part_args "$1")
  rm -f "build/check/$name.rc"
  if [ -n "${live:-}" ]; then
    { time { "${args[@]}" --jobs 1 --tap="build/check/$name.tap" 2>&1 | tee "build/check/$name.log"
             rc=${PIPESTATUS[0]}; }; } 2>"build/check/$name.times"
  else
    { time { "${args[@]}" --jobs 1 --tap="build/check/$name.tap" >"build/check/$name.log" 2>&1
             rc=$?; }; } 2>"build/check/$name.times"
  fi
  echo "$(date +%s.%N) - $s0" | bc >"build/check/$name.secs"
  awk '{ print $1 + $2 }' "build/check/$name.times" >"build/check/$name.cpu"
  echo "$rc" >"build/check/$name.rc"
}

# skipped BIN: its TAP's skipped tests, less those its part filtered out
# (Criterion lists them as skipped too).
skipped() {
  local name spec list
  name=$(part_name "$1"); spec=${1#*:}; list=${spec#*=}
  [ "$spec" = "$1" ] && list=
  grep -E '# SKIP' "build/check/$name.tap" |
    awk -v list="${list//\//::}" -v mode="${spec%%=*}" '
      BEGIN { n = split(list, t, ","); for (i = 1; i <= n; i++) named[t[i]] = 1 }
      { id = $3; in_list = (id in named) }
      list == "" || (mode == "only" && in_list) || (mode == "except" && !in_list)'
}

# report_one BIN: its skipped tests, wall time and failures; adds its counts
# to the tier's.
report_one() {
  local name log rc line p f
  name=$(part_name "$1"); log=build/check/$name.log; rc=$(cat "build/check/$name.rc")
  [ -n "${live:-}" ] || cat "$log"
  skipped "$1" | sed "s|^ok - |$name: [SKIP] |"
  printf '== %s: %.1f s (CPU %.1f s)\n' "$name" "$(cat "build/check/$name.secs")" "$(cat "build/check/$name.cpu")"
  cpu=$(echo "$cpu + $(cat "build/check/$name.cpu")" | bc)
  grep -E '^\[(----|FAIL)\]|CRASH|ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" |
    grep -vE '^\[----\] *$' | sed "s|^|$name: |" >>build/check/failures.log
  line=$(grep 'Synthesis:' "$log" | tail -n 1)
  p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
  f=$(sed -n 's/.*Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1 \2/p' <<<"$line")
  pass=$((pass + ${p:-0}))
  for x in $f; do fail=$((fail + x)); done
  skip=$((skip + $(skipped "$1" | wc -l)))
  if [ "$rc" -ne 0 ]; then
    status=1; [ -n "$line" ] || fail=$((fail + 1))
    echo "$name: exit status $rc (${line:-no synthesis line})" >>build/check/failures.log
  fi
  # a part that names a test the binary does not have would pass running nothing
  local named tested
  if [[ $1 == *:only=* ]]; then
    named=$(tr ',' '\n' <<<"${1#*:only=}" | wc -l)
    tested=$(sed -n 's/.*Tested: \([0-9]*\).*/\1/p' <<<"$line")
    if [ "${tested:-0}" -lt "$named" ]; then
      status=1; fail=$((fail + 1))
      echo "$name: ran ${tested:-0} of the $named tests it names" >>build/check/failures.log
    fi
  fi
}

# longest_first BIN...: the binaries by their last run's wall time, longest
# first, so the last to start is a short one.  Those never run come first of
# all, the ones CHECK_FIRST names (the longest, by name) ahead in its order.
longest_first() {
  local t s f i
  for t in "$@"; do
    if ! s=$(cat "build/check/$(part_name "$t").secs" 2>/dev/null); then
      s=1e9 i=0
      for f in ${CHECK_FIRST:-}; do
        i=$((i + 1)); [ "$f" = "$(part_name "$t")" ] && { s=$((2000000000 - i)); break; }
      done
    fi
    echo "${s:-1e9} $t"
  done | sort -s -g -r -k1,1 | cut -d' ' -f2-
}

# report_in_pool BIN: report_one, its counts added to its tier's (run_pool's
# tier_of, tp, tf and ts).
report_in_pool() {
  pass=0 fail=0 skip=0 cpu=${pool_cpu:-0}; report_one "$1"; pool_cpu=$cpu
  local k=${tier_of[$1]}
  tp[$k]=$((tp[$k] + pass)); tf[$k]=$((tf[$k] + fail)); ts[$k]=$((ts[$k] + skip))
}

# run_pool TIER BIN... [++ TIER BIN...]: one tier's binaries, or those of
# several untimed tiers in one pool (no core idles while one tier's last
# binaries end); each tier's counts are reported, with the pool's time.
run_pool() {
  local -A tier_of=() tp=() tf=() ts=()
  local tiers_here=() bins=() cur= a t0=$SECONDS jobs=${CHECK_JOBS:-$cores} pass fail skip cpu pool_cpu=0
  for a in "$@"; do
    if [ "$a" = ++ ]; then cur=; continue; fi
    if [ -z "$cur" ]; then cur=$a; tiers_here+=("$a"); tp[$a]=0 tf[$a]=0 ts[$a]=0; continue; fi
    tier_of[$a]=$cur; bins+=("$a")
  done
  # the cli tier's binaries wait on mpirun's start and on their programs
  # more than they compute: one more than the cores keeps the cores busy
  [[ " ${tiers_here[*]} " == *" check-cli "* ]] && [ -z "${CHECK_JOBS:-}" ] && jobs=$((cores + 1))
  [[ " ${tiers_here[*]} " == *" check-timing "* ]] && jobs=1
  if [ "$jobs" -le 1 ]; then
    for t in "${bins[@]}"; do live=1 run_one "$t"; live=1 report_in_pool "$t"; done
  else
    # a binary CHECK_WAITING names mostly sleeps on timeouts and signals: it
    # runs beside the jobs, `cores` such at most, so that no job slot idles
    local queue running=() t left busy waiting rest
    local -A sleeps=()
    mapfile -t queue < <(longest_first "${bins[@]}")
    for t in "${queue[@]}"; do
      rm -f "build/check/$(part_name "$t").rc"
      [[ " ${CHECK_WAITING:-} " == *" $(part_name "$t") "* ]] && sleeps[$t]=1
    done
    while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
      busy=0 waiting=0
      for t in "${running[@]}"; do
        if [ -n "${sleeps[$t]:-}" ]; then waiting=$((waiting + 1)); else busy=$((busy + 1)); fi
      done
      rest=()
      for t in "${queue[@]}"; do
        if [ -n "${sleeps[$t]:-}" ]; then
          [ "$waiting" -lt "$cores" ] || { rest+=("$t"); continue; }
          waiting=$((waiting + 1))
        elif [ "$busy" -lt "$jobs" ]; then busy=$((busy + 1))
        else rest+=("$t"); continue; fi
        run_one "$t" & running+=("$t")
      done
      queue=("${rest[@]}")
      wait -n
      left=()
      for t in "${running[@]}"; do
        if [ -s "build/check/$(part_name "$t").rc" ]; then report_in_pool "$t"; else left+=("$t"); fi
      done
      running=("${left[@]}")
    done
  fi
  local secs=$((SECONDS - t0)) k with=
  [ ${#tiers_here[@]} -gt 1 ] && with=", one pool: ${tiers_here[*]}"
  with=", CPU $(printf '%.0f' "$pool_cpu") s$with"
  for k in "${tiers_here[@]}"; do
    echo "$k: ${tp[$k]} passed, ${tf[$k]} failed, ${ts[$k]} skipped ($secs s$with)"
    tiers="$tiers  $k: ${tp[$k]} passed, ${tf[$k]} failed, ${ts[$k]} skipped, $secs s$with"$'\n'
    total_pass=$((total_pass + tp[$k])); total_fail=$((total_fail + tf[$k]))
    total_skip=$((total_skip + ts[$k]))
  done
}

while [ $# -gt 0 ]; do
  pool=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pool+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  run_pool "${pool[@]}"
done
if [ -s build/check/failures.log ]; then
  echo "== failures (assertion lines; logs in build/check/)"; head -n 60 build/check/failures.log
fi
if [ $all = 1 ]; then
  printf '== tiers\n%s' "$tiers"
  [ $total_skip = 0 ] || echo "== $total_skip skipped: see the [SKIP] lines above for why"
  echo "check: $total_pass passed, $total_fail failed"
fi
exit $status
