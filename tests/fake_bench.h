/* fake_bench: the calibrate tests' stand-in benchmark, tests/fake_bench.sh
 * (header-only, tests only): its environment, its path, and how many times
 * it measured. */
#ifndef SCITORUS_TESTS_FAKE_BENCH_H
#define SCITORUS_TESTS_FAKE_BENCH_H

#include "tests/runcmd.h"

/* Its state in dir, the recorded --full run (floor 260 ns in its header) as
 * its data, the floors it answers and the runs' modes (fake_bench.sh). */
static inline void fake_bench_env(const char *dir, const char *floors, const char *modes)
{
    setenv("FAKE_STATE", dir, 1);
    setenv("FAKE_FIXTURES", run_fixture("full"), 1);
    setenv("FAKE_FLOORS", floors, 1);
    setenv("FAKE_MODES", modes, 1);
}

static inline const char *fake_bench(void) { return run_root_path("tests/fake_bench.sh"); }

/* How many times the fake benchmark measured. */
static inline int fake_bench_runs(const char *dir)
{
    char *t = run_read_text(run_path(dir, "args"));
    int n = run_lines(t);
    free(t);
    return n;
}

#endif
