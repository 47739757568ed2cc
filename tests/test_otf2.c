/* Tests for `scitrace otf2` and OTF2 archives as input: traced runs of
 * halo3d, NetPIPE (NPopenmpi) and the checker's faulty programs written as
 * archives that the OTF2 library's own otf2-print reads without error, and
 * read back by summary, matrix, check and goal with the same answers as
 * the trace they were made from (the first line, which names the input and
 * its date, aside); an archive another program wrote (python3-otf2) read
 * from its MPI events.  Skipped only when scitrace was built without OTF2,
 * which it then says (one line, exit 1). */
#include <sys/stat.h>

#include "tests/runcmd.h"

TestSuite(otf2, .timeout = 300);

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"

/* Traces a0... on np ranks, killed by timeout's SIGTERM after secs. */
static int traced(const char *dir, const char *secs, const char *np, const char *a0,
                  const char *a1, const char *a2, const char *a3, const char *a4, const char *a5,
                  const char *a6, const char *a7)
{
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--",
                           "/usr/bin/timeout", "-s", "TERM", secs, MPIRUN, "-np", np, a0, a1, a2,
                           a3, a4, a5, a6, a7, NULL);
    int st = r.status;
    run_free(&r);
    return st;
}

/* Output without its first line (or, for goal, its first comment line). */
static const char *body(const char *out)
{
    const char *nl = strchr(out, '\n');
    return nl ? nl + 1 : out;
}

/* out with every "DIR/rank-NNNNN.trace" and "ARCH/traces.otf2 (location
 * N)" written "rank file N" (the messages name where a rank came from), and
 * dates written DATE. */
static char *named_alike(const char *out, const char *dir, const char *arch)
{
    char *r = malloc(strlen(out) + 1), *q = r;
    char a[800], b[800];
    snprintf(a, sizeof a, "%s/rank-", dir);
    snprintf(b, sizeof b, "%s/traces.otf2 (location ", arch);
    for (const char *p = out; *p;) {
        long n;
        char *end;
        if (strncmp(p, a, strlen(a)) == 0) {
            n = strtol(p + strlen(a), &end, 10);
            if (strncmp(end, ".trace", 6) == 0) {
                q += sprintf(q, "rank file %ld", n);
                p = end + 6;
                continue;
            }
        }
        int y, mo, da, h, mi, len = 0;   /* a date: the archive's may be a minute later */
        if (sscanf(p, "%4d-%2d-%2d %2d:%2d UTC%n", &y, &mo, &da, &h, &mi, &len) == 5 && len == 20) {
            q += sprintf(q, "DATE");
            p += len;
            continue;
        }
        if (strncmp(p, b, strlen(b)) == 0) {
            n = strtol(p + strlen(b), &end, 10);
            if (*end == ')') {
                q += sprintf(q, "rank file %ld", n);
                p = end + 1;
                continue;
            }
        }
        *q++ = *p++;
    }
    *q = '\0';
    return r;
}

/* The archive of trace `dir` reads back as dir does, mode by mode. */
static void round_trip(const char *dir, int partial)
{
    char arch[700], anchor[760];
    snprintf(arch, sizeof arch, "%s.otf2", dir);
    run_result r = partial ? run_cmd(run_prog("scitrace", 0), 60, "otf2", "--partial", "-o", arch, dir, NULL)
                           : run_cmd(run_prog("scitrace", 0), 60, "otf2", "-o", arch, dir, NULL);
    if (r.status == 1 && strstr(r.err, "without the OTF2 library")) {
        cr_log_warn("scitrace built without OTF2: %s", r.err);
        run_free(&r);
        cr_skip_test("scitrace was built without the OTF2 library");
    }
    cr_assert_eq(r.status, 0, "otf2 %s: %s", dir, r.err);
    run_free(&r);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", arch);
    r = run_cmd("/usr/bin/otf2-print", 60, anchor, NULL);
    cr_assert_eq(r.status, 0, "otf2-print %s: %s", anchor, r.err);
    cr_assert_null(strstr(r.err, "error"), "otf2-print: %s", r.err);
    cr_assert_not_null(strstr(r.out, "ENTER"), "no events");
    run_free(&r);
    const char *modes[][3] = {{"summary", NULL, NULL}, {"check", NULL, NULL},
                              {"matrix", "--partial", "-"}, {"goal", "--partial", "-"}};
    for (int m = 0; m < 4; m++) {
        const char *in[2] = {dir, arch};
        run_result o[2];
        for (int k = 0; k < 2; k++)
            o[k] = modes[m][1] ? run_cmd(run_prog("scitrace", 0), 60, modes[m][0], modes[m][1], "-o",
                                         modes[m][2], in[k], NULL)
                               : run_cmd(run_prog("scitrace", 0), 60, modes[m][0], in[k], NULL);
        cr_assert_eq(o[0].status, o[1].status, "%s of %s: %d, of its archive %d: %s", modes[m][0],
                     dir, o[0].status, o[1].status, o[1].err);
        char *x = named_alike(body(o[0].out), dir, arch), *y = named_alike(body(o[1].out), dir, arch);
        cr_assert_str_eq(x, y, "%s of %s", modes[m][0], dir);
        free(x), free(y);
        run_free(&o[0]), run_free(&o[1]);
    }
}

Test(otf2, halo3d_round_trip)
{
    char dir[] = "/tmp/scitorus-otf2-XXXXXX", t[600];
    run_tmpdir_make(dir);
    snprintf(t, sizeof t, "%s/halo", dir);
    cr_assert_eq(traced(t, "20", "8", run_prog("halo3d", 1), "--steps", "20", NULL, NULL, NULL,
                        NULL, NULL), 0);
    round_trip(t, 0);
    run_tmpdir_remove(dir);
}

Test(otf2, netpipe_round_trip)
{
    char dir[] = "/tmp/scitorus-otf2-XXXXXX", t[600], np_out[600];
    run_tmpdir_make(dir);
    snprintf(t, sizeof t, "%s/np", dir);
    snprintf(np_out, sizeof np_out, "%s/np.out", dir);
    cr_assert_eq(traced(t, "20", "2", "NPopenmpi", "-n", "20", "-u", "64", "-o", np_out, NULL), 0);
    round_trip(t, 0);
    run_tmpdir_remove(dir);
}

/* The checker's programs: a deadlock, a potential one, pending messages,
 * a race, a crash, cancelled and freed requests, an intercommunicator. */
Test(otf2, faulty_programs_round_trip)
{
    /* the two that hang get tests/test_check.c's 5 s: the trace of a hung
     * run is compared with its archive whenever the run was stopped */
    const char *progs[][3] = {{"headtohead", "2", "5"}, {"headtohead_small", "2", "20"},
                              {"isend", "2", "20"}, {"ring", "4", "5"}, {"race", "3", "20"},
                              {"cancel", "2", "20"}, {"reqfree", "2", "20"}, {"procnull", "4", "20"},
                              {"segv", "2", "20"}, {"correct", "4", "20"}};
    char dir[] = "/tmp/scitorus-otf2-XXXXXX";
    run_tmpdir_make(dir);
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        char t[600];
        snprintf(t, sizeof t, "%s/%s", dir, progs[i][0]);
        traced(t, progs[i][2], progs[i][1], "bin/test/check_app", progs[i][0], NULL, NULL, NULL,
               NULL, NULL, NULL);
        round_trip(t, 1);
    }
    run_tmpdir_remove(dir);
}

/* From "call " (summary) or the second line (check) on; matrix: its rows. */
static const char *from(const char *out, const char *mark)
{
    const char *p = mark ? strstr(out, mark) : strchr(out, '\n');
    return p ? p : out;
}

/* out's lines without those starting with `skip` or holding `holding`. */
static char *lines_but(const char *out, char skip, const char *holding)
{
    char *r = malloc(strlen(out) + 1), *q = r;
    for (const char *p = out; *p;) {
        size_t n = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
        char line[4096];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        if (*p != skip && !(holding && strstr(line, holding))) {
            memcpy(q, p, n);
            q += n;
        }
        p += n;
    }
    *q = '\0';
    return r;
}

/* An archive written by other code (python3-otf2: OTF2's MPI events only,
 * tests/otf2_other_writer.py): summary's tables, check's verdict and the
 * matrix are those of the trace it was made from.  What OTF2's events do
 * not hold is not compared: the header, the calls that make communicators
 * (the archive defines the communicators instead). */
Test(otf2, another_writer_s_archive_reads_as_its_trace)
{
    const char *progs[][3] = {{"halo3d", "4", NULL}, {"bin/test/check_app", "2", "isend"},
                              {"bin/test/check_app", "2", "headtohead_small"}};
    char dir[] = "/tmp/scitorus-otf2-XXXXXX";
    run_tmpdir_make(dir);
    for (int i = 0; i < 3; i++) {
        char t[600], arch[700];
        snprintf(t, sizeof t, "%s/t%d", dir, i);
        snprintf(arch, sizeof arch, "%s/t%d.other", dir, i);
        if (i == 0)
            cr_assert_eq(traced(t, "20", "4", run_prog("halo3d", 1), "--steps", "5", NULL, NULL, NULL,
                                NULL, NULL), 0);
        else
            traced(t, "20", progs[i][1], progs[i][0], progs[i][2], NULL, NULL, NULL, NULL, NULL,
                   NULL);
        run_result w = run_cmd("/usr/bin/python3", 60, run_root_path("tests/otf2_other_writer.py"),
                               run_prog("scitrace", 1), t, arch, NULL);
        cr_assert_eq(w.status, 0, "python3-otf2 writer: %s", w.err);
        run_free(&w);
        const char *modes[] = {"summary", "check", "matrix"};
        for (int m = 0; m < 3; m++) {
            const char *in[2] = {t, arch};
            run_result o[2];
            for (int k = 0; k < 2; k++)
                o[k] = m == 2 ? run_cmd(run_prog("scitrace", 0), 60, "matrix", "--partial", "-o", "-",
                                        in[k], NULL)
                              : run_cmd(run_prog("scitrace", 0), 60, modes[m], in[k], NULL);
            cr_assert_eq(o[0].status, o[1].status, "%s of %s: %d, of the other archive %d: %s",
                         modes[m], t, o[0].status, o[1].status, o[1].err);
            if (m == 2) {
                char *x = lines_but(o[0].out, '#', NULL), *y = lines_but(o[1].out, '#', NULL);
                cr_assert_str_eq(x, y, "matrix of %s", t);
                free(x), free(y);
            } else {   /* findings name callers and lines: OTF2's MPI events have neither */
                char *x = lines_but(from(o[0].out, m == 0 ? "\ncall " : NULL), 0, " call "),
                     *y = lines_but(from(o[1].out, m == 0 ? "\ncall " : NULL), 0, " call ");
                cr_assert_str_eq(x, y, "%s of %s", modes[m], t);
                free(x), free(y);
            }
            run_free(&o[0]), run_free(&o[1]);
        }
    }
    run_tmpdir_remove(dir);
}
