/* The schedules are what Open MPI sends: each collective run alone under
 * mpirun with Open MPI's PML monitoring (pml_monitoring_enable 2 counts the
 * point-to-point messages its collectives send, per sender and receiver),
 * against sched/'s schedule for Open MPI 4.1's choice (--algorithm tuned),
 * message counts and bytes per pair.  Where sched/ says its family is only
 * the nearest (coll_library_pick returns 1) the counts may differ and are
 * not compared; Open MPI's basic linear alltoall posts persistent requests,
 * which the monitoring does not count: there it must count none.  Timing
 * tier: MPI runs. */
#include <glob.h>
#include <stdlib.h>

#include "sched/collgen.h"
#include "tests/runcmd.h"

TestSuite(sched_ompi, .timeout = 900);

#define MAXP 8

typedef struct counts {
    unsigned long long msgs[MAXP][MAXP], bytes[MAXP][MAXP];
} counts;

/* The monitoring's "I SRC DST N bytes K msgs sent" lines of every rank. */
static void monitored(const char *dir, counts *c)
{
    char pat[700], line[2048];
    glob_t g;
    memset(c, 0, sizeof *c);
    snprintf(pat, sizeof pat, "%s/prof.*.prof", dir);
    cr_assert_eq(glob(pat, 0, NULL, &g), 0, "no monitoring files in %s", dir);
    for (size_t f = 0; f < g.gl_pathc; f++) {
        FILE *fp = fopen(g.gl_pathv[f], "r");
        cr_assert_not_null(fp);
        while (fgets(line, sizeof line, fp)) {
            int s, d;
            unsigned long long b, n;
            if (sscanf(line, "I\t%d\t%d\t%llu bytes\t%llu msgs sent", &s, &d, &b, &n) == 4) {
                cr_assert(s >= 0 && s < MAXP && d >= 0 && d < MAXP, "%s", line);
                c->msgs[s][d] += n, c->bytes[s][d] += b;
            }
        }
        fclose(fp);
        unlink(g.gl_pathv[f]);
    }
    globfree(&g);
}

Test(sched_ompi, schedules_send_what_open_mpi_sends)
{
    static const int procs[] = {3, 5, 8};
    static const long sizes[] = {8, 4096, 65536};
    char dir[] = "/tmp/scitorus-ompi-XXXXXX", prefix[700], np[8], size_arg[32];
    run_tmpdir_make(dir);
    snprintf(prefix, sizeof prefix, "%s/prof", dir);
    int compared = 0, nearest = 0, blind = 0;
    for (size_t i = 0; i < sizeof procs / sizeof *procs; i++)
        for (int op = 0; op < COLL_NOPS; op++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                int p = procs[i];
                long m = op == COLL_BARRIER ? 0 : sizes[k];
                char native[40], what[128];
                const char *family;
                int how = coll_library_pick(op, "tuned", p, m, native, sizeof native, &family);
                snprintf(what, sizeof what, "%s on %d ranks, %ld B (Open MPI: %s, here %s)",
                         coll_op_names[op], p, m, native, family);
                snprintf(np, sizeof np, "%d", p);
                snprintf(size_arg, sizeof size_arg, "%ld", sizes[k]);
                run_result r = run_cmd("/usr/bin/timeout", 120, "120", "mpirun",
                                       "--allow-run-as-root", "--oversubscribe", "-np", np,
                                       "--mca", "pml_monitoring_enable", "2", "--mca",
                                       "pml_monitoring_enable_output", "3", "--mca",
                                       "pml_monitoring_filename", prefix,
                                       run_root_path("bin/test/coll_app"), "1",
                                       coll_op_names[op], size_arg, NULL);
                cr_assert_eq(r.status, 0, "%s: %s", what, r.err);
                run_free(&r);
                counts got, want = {0};
                monitored(dir, &got);
                coll_sched s;
                char why[200];
                cr_assert_eq(coll_generate(&s, op, "tuned", p, 1 % p, m, why, sizeof why), 0);
                for (long j = 0; j < s.count; j++)
                    if (s.msgs[j].send) {
                        want.msgs[s.msgs[j].rank][s.msgs[j].peer]++;
                        want.bytes[s.msgs[j].rank][s.msgs[j].peer] += (unsigned long long)s.msgs[j].bytes;
                    }
                coll_sched_free(&s);
                if (how == 1) {
                    nearest++;
                    continue;   /* said to be the nearest family, not Open MPI's */
                }
                if (op == COLL_ALLTOALL && !strcmp(native, "linear")) {
                    for (int a = 0; a < p; a++)
                        for (int b = 0; b < p; b++)
                            cr_assert_eq(got.msgs[a][b], 0, "%s: the monitoring now counts "
                                         "persistent requests", what);
                    blind++;
                    continue;
                }
                for (int a = 0; a < p; a++)
                    for (int b = 0; b < p; b++)
                        cr_assert(got.msgs[a][b] == want.msgs[a][b] &&
                                      got.bytes[a][b] == want.bytes[a][b],
                                  "%s: %d -> %d: Open MPI %llu messages, %llu B; the schedule "
                                  "%llu, %llu B", what, a, b, got.msgs[a][b], got.bytes[a][b],
                                  want.msgs[a][b], want.bytes[a][b]);
                compared++;
            }
    run_tmpdir_remove(dir);
    cr_log_info("%d collectives equal Open MPI's messages, %d nearest, %d unseen", compared,
                nearest, blind);
    cr_assert_geq(compared, 60, "only %d of 72 compared", compared);
}
