#!/bin/bash
# make fuzz: each libFuzzer target (build/fuzz/fuzz_<target>) for SECONDS,
# from its committed seeds (tests/fuzz/corpus/<target>) and what earlier
# runs found (build/fuzz/corpus-<target>: the committed seeds stay small);
# crashes go to tests/fuzz/artifacts/ (ignored by git until a crash becomes
# a regression input under tests/fuzz/regressions/).
# make fuzz-regressions: a finding stays fixed: each input of
# tests/fuzz/regressions/<target>-* runs through its target (libFuzzer runs
# the files it is given once each and fails on a crash, leak or timeout).
# Usage: tests/fuzz.sh run|regressions SECONDS TARGET...
set -u
mode=$1 seconds=$2
shift 2
if [ "$mode" = run ]; then
  mkdir -p tests/fuzz/artifacts
  for t in "$@"; do
    mkdir -p build/fuzz/corpus-$t
    echo "fuzz: $t for $seconds s"
    build/fuzz/fuzz_$t -max_total_time="$seconds" -max_len=4096 -timeout=10 \
      -artifact_prefix=tests/fuzz/artifacts/$t- -print_final_stats=1 \
      build/fuzz/corpus-$t tests/fuzz/corpus/$t 2>&1 |
      grep -E '^(stat::number_of_executed_units|stat::peak_rss|==.*ERROR|SUMMARY)|Done' || true
    if ls tests/fuzz/artifacts/$t-crash-* tests/fuzz/artifacts/$t-leak-* tests/fuzz/artifacts/$t-timeout-* \
          tests/fuzz/artifacts/$t-oom-* 2>/dev/null | grep -q .; then
      echo "fuzz: $t: CRASH, see tests/fuzz/artifacts"; exit 1
    fi
  done
else
  set -e
  for t in "$@"; do
    files=$(ls tests/fuzz/regressions/$t-* 2>/dev/null || true)
    [ -z "$files" ] && continue
    # shellcheck disable=SC2086 # one word a file
    build/fuzz/fuzz_$t -timeout=10 $files > build/fuzz/regressions-$t.log 2>&1 ||
      { cat build/fuzz/regressions-$t.log; echo "fuzz-regressions: $t: FAILED"; exit 1; }
    echo "fuzz-regressions: $t: $(echo $files | wc -w) inputs pass"
  done
fi
