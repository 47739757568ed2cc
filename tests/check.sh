#!/usr/bin/env bash
# tests/check.sh: runs test binaries tier by tier for `make check` and its
# check-unit, check-cli and check-timing targets.
#   tests/check.sh TIER BIN...                      one tier
#   tests/check.sh --all TIER BIN... -- TIER BIN... every tier, then the sum
# Each binary runs alone (--jobs 1) with its log in build/check/<bin>.log
# (and a TAP report beside it, where skipped tests are counted); the output
# shows its messages, its skipped tests with their reasons, and wall time.
# A tier ends with "TIER: N passed, N failed, N skipped (T s)"; --all ends
# with the one line CI reads: "check: N passed, N failed".
set -u
all=0
[ "${1:-}" = --all ] && { all=1; shift; }
mkdir -p build/check
: >build/check/failures.log
total_pass=0 total_fail=0 total_skip=0 status=0 tiers=""

run_tier() {
  local tier=$1; shift
  local pass=0 fail=0 skip=0 t0=$SECONDS
  for t in "$@"; do
    local name log s0 rc line p f
    name=$(basename "$t"); log=build/check/$name.log; s0=$(date +%s.%N)
    "$t" --jobs 1 --tap="build/check/$name.tap" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
    grep -E '# SKIP' "build/check/$name.tap" | sed "s|^ok - |$name: [SKIP] |"
    printf '== %s: %.1f s\n' "$name" "$(echo "$(date +%s.%N) - $s0" | bc)"
    grep -E '^\[(----|FAIL)\]|CRASH|ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" |
      grep -vE '^\[----\] *$' | sed "s|^|$name: |" >>build/check/failures.log
    line=$(grep 'Synthesis:' "$log" | tail -n 1)
    p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
    f=$(sed -n 's/.*Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1 \2/p' <<<"$line")
    pass=$((pass + ${p:-0}))
    for x in $f; do fail=$((fail + x)); done
    skip=$((skip + $(grep -c '# SKIP' "build/check/$name.tap")))
    if [ $rc -ne 0 ]; then
      status=1; [ -n "$line" ] || fail=$((fail + 1))
      echo "$name: exit status $rc (${line:-no synthesis line})" >>build/check/failures.log
    fi
  done
  local secs=$((SECONDS - t0))
  echo "$tier: $pass passed, $fail failed, $skip skipped ($secs s)"
  tiers="$tiers  $tier: $pass passed, $fail failed, $skip skipped, $secs s"$'\n'
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
  total_skip=$((total_skip + skip))
}

while [ $# -gt 0 ]; do
  tier=$1; shift; bins=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do bins+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  run_tier "$tier" "${bins[@]}"
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
