/* Tests for the tracer (bin/libscitrace.so under mpirun, through
 * `scitrace run`) and the analyzer (scitrace summary/matrix): traced
 * programs whose messages are known independently (halo3d from its
 * decomposition, trace_app's mix, NetPIPE's own report), failures of the
 * traced program (MPI_Abort, a rank killed by SIGKILL, no MPI_Finalize, an
 * unusable trace directory), damaged rank files, and 10^5 messages none of
 * which is lost.  Every MPI run is bounded by timeouts. */
#include <limits.h>
#include <sys/stat.h>

#include "tests/runcmd.h"
#include "trace/tracefile.h"

TestSuite(trace, .timeout = 240);

#define MAX_ROWS 4096
#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"
/* halo3d's defaults (examples/halo3d.c): block 16x12x8 doubles */
#define HALO_X_BYTES (12 * 8 * 8)
#define HALO_Y_BYTES (16 * 8 * 8)
#define HALO_Z_BYTES (16 * 12 * 8)
#define HALO_STEPS 3
#define HALO_BCAST_BYTES 16   /* MPI_Bcast of 4 ints */
#define NETPIPE_TRIALS 3      /* NetPIPE's TRIALS (src/netpipe.h): runs per size */

typedef struct row {
    long src, dst, size, messages;
} row;

typedef struct matrix {
    row r[MAX_ROWS];
    int n;
    long ranks;
} matrix;

static int row_cmp(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return (a->size > b->size) - (a->size < b->size);
}

/* Adds messages to (src, dst, size), merging equal keys. */
static void add(matrix *m, long src, long dst, long size, long messages)
{
    for (int i = 0; i < m->n; i++)
        if (m->r[i].src == src && m->r[i].dst == dst && m->r[i].size == size) {
            m->r[i].messages += messages;
            return;
        }
    cr_assert_lt(m->n, MAX_ROWS);
    m->r[m->n++] = (row){src, dst, size, messages};
}

/* Reads a matrix file, checking the traffic matrix header (docs/formats.md,
 * 'Traffic matrix'). */
static void read_matrix(const char *path, matrix *m)
{
    FILE *fp = fopen(path, "r");
    char line[512];
    int header = 0;
    cr_assert_not_null(fp, "%s", path);
    memset(m, 0, sizeof *m);
    cr_assert_not_null(fgets(line, sizeof line, fp));
    cr_assert_str_eq(line, "# scitorus-traffic 1\n");
    while (fgets(line, sizeof line, fp)) {
        cr_assert_lt(strlen(line), 256, "line over the reader's limit: %s", line);
        if (line[0] == '#') {
            sscanf(line, "# ranks: %ld", &m->ranks);
            header += strcmp(line, "# columns: src dst size_bytes messages\n") == 0;
            continue;
        }
        row r;
        cr_assert_eq(sscanf(line, "%ld\t%ld\t%ld\t%ld", &r.src, &r.dst, &r.size, &r.messages), 4,
                     "%s", line);
        cr_assert_lt(m->n, MAX_ROWS);
        m->r[m->n++] = r;
    }
    fclose(fp);
    cr_assert_eq(header, 1, "%s: no columns line", path);
}

static void assert_matrix_eq(matrix *got, matrix *want, const char *what)
{
    qsort(got->r, (size_t)got->n, sizeof(row), row_cmp);
    qsort(want->r, (size_t)want->n, sizeof(row), row_cmp);
    for (int i = 0; i < got->n && i < want->n; i++)
        cr_assert(row_cmp(&got->r[i], &want->r[i]) == 0 &&
                      got->r[i].messages == want->r[i].messages,
                  "%s: row %d: got %ld %ld %ld %ld, want %ld %ld %ld %ld", what, i, got->r[i].src,
                  got->r[i].dst, got->r[i].size, got->r[i].messages, want->r[i].src,
                  want->r[i].dst, want->r[i].size, want->r[i].messages);
    cr_assert_eq(got->n, want->n, "%s: %d rows, want %d", what, got->n, want->n);
}

/* scitrace run -d dir -- mpirun ... -np np prog a1 a2 (NULLs end it). */
static run_result traced(const char *dir, const char *np, const char *prog, const char *a1,
                         const char *a2, const char *a3)
{
    return run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--", "/usr/bin/timeout",
                   "100", MPIRUN, "-np", np, prog, a1, a2, a3, NULL);
}

/* --- the example application ------------------------------------------ */

/* The messages halo3d sends on P ranks, from its decomposition: dims as
 * MPI_Dims_create makes them, ranks in row-major order of the Cartesian
 * coordinates, one face per direction per step to the periodic neighbour;
 * an 8-byte Allreduce per step (recursive doubling: partners r XOR 2^k,
 * P a power of two here); the 16-byte parameter broadcast from rank 0 over
 * the binary tree Open MPI 4.1's tuned component picks for it on 4 to 15
 * ranks (written out: level l holds ranks 2^l - 1 .. 2^(l+1) - 2, and the
 * children of rank v on level l are v + 2^l and v + 2^(l+1)). */
static void halo3d_expected(int P, const int dims[3], int collectives, matrix *m)
{
    static const long face_bytes[3] = {HALO_X_BYTES, HALO_Y_BYTES, HALO_Z_BYTES};
    static const int tree4[][2] = {{0, 1}, {0, 2}, {1, 3}};
    static const int tree8[][2] = {{0, 1}, {0, 2}, {1, 3}, {1, 5}, {2, 4}, {2, 6}, {3, 7}};
    memset(m, 0, sizeof *m);
    for (int r = 0; r < P; r++) {
        int c[3] = {r / (dims[1] * dims[2]), r / dims[2] % dims[1], r % dims[2]};
        for (int d = 0; d < 3; d++)
            for (int side = -1; side <= 1; side += 2) {
                int nc[3] = {c[0], c[1], c[2]};
                nc[d] = (c[d] + side + dims[d]) % dims[d];
                add(m, r, (nc[0] * dims[1] + nc[1]) * dims[2] + nc[2], face_bytes[d], HALO_STEPS);
            }
        for (int k = 1; collectives && k < P; k <<= 1)
            add(m, r, r ^ k, 8, HALO_STEPS);
    }
    const int(*tree)[2] = P == 4 ? tree4 : tree8;
    for (int i = 0; collectives && i < P - 1; i++)
        add(m, tree[i][0], tree[i][1], HALO_BCAST_BYTES, 1);
}

static void halo3d_traced(const char *np, const int dims[3])
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX", out[600];
    int P = atoi(np);
    run_tmpdir_make(dir);
    run_result r = traced(dir, np, run_prog("halo3d", 1), "--steps", "3", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);

    matrix got, want;
    snprintf(out, sizeof out, "%s/all.tsv", dir);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", out, dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    read_matrix(out, &got);
    cr_assert_eq(got.ranks, P);
    halo3d_expected(P, dims, 1, &want);
    assert_matrix_eq(&got, &want, "halo3d, collectives expanded");
    run_free(&r);

    snprintf(out, sizeof out, "%s/p2p.tsv", dir);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "--collectives", "p2p-only", "-o", out,
                dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    read_matrix(out, &got);
    halo3d_expected(P, dims, 0, &want);
    assert_matrix_eq(&got, &want, "halo3d, p2p-only");
    run_free(&r);

    r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char expect[64];
    snprintf(expect, sizeof expect, "%d of %d ranks finalized", P, P);
    cr_assert_not_null(strstr(r.out, expect), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "0 sends unmatched, 0 receives unmatched"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(trace, halo3d_on_4_ranks_matches_its_decomposition)
{
    halo3d_traced("4", (int[3]){2, 2, 1});
}

Test(trace, halo3d_on_8_ranks_matches_its_decomposition)
{
    halo3d_traced("8", (int[3]){2, 2, 2});
}

/* Comm_split with reversed keys, persistent requests, a Bcast on the split
 * communicator: world ranks in the matrix (see tests/trace_app.c). */
/* trace_app MODE traced on 4 ranks into dir (made here), and its matrix. */
static void app_matrix(char *dir, const char *mode, matrix *got)
{
    char out[600];
    run_tmpdir_make(dir);
    run_result r = traced(dir, "4", "bin/test/trace_app", mode, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    snprintf(out, sizeof out, "%s/m.tsv", dir);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", out, dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    read_matrix(out, got);
}

Test(trace, split_communicators_and_persistent_requests_in_world_ranks)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX";
    matrix got, want = {.n = 0};
    app_matrix(dir, "mix", &got);
    /* split evens [2, 0], odds [3, 1]: Sendrecv to the next split rank */
    add(&want, 2, 0, 100, 1), add(&want, 0, 2, 100, 1);
    add(&want, 3, 1, 100, 1), add(&want, 1, 3, 100, 1);
    for (int s = 0; s < 4; s++)   /* persistent ring, 5 starts of 8 doubles */
        add(&want, s, (s + 1) % 4, 64, 5);
    add(&want, 2, 0, 8, 1), add(&want, 3, 1, 8, 1);   /* Bcast from split rank 0 */
    assert_matrix_eq(&got, &want, "mix");
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    cr_assert_not_null(strstr(r.out, "0 sends unmatched, 0 receives unmatched"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "persistent_send"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* Communicators and datatypes made and freed round after round, used
 * from the same call sites (trace_app reuse): every round's messages carry
 * that round's size and go to that round's partner, whatever handles the
 * MPI gave again. */
Test(trace, freed_communicators_and_types_do_not_outlive_their_handles)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX";
    matrix got, want = {.n = 0};
    app_matrix(dir, "reuse", &got);
    for (int k = 1; k <= 4; k++)   /* k ints, 3 each way within {0,2} {1,3} or {0,1} {2,3} */
        for (int a = 0; a < 4; a++)
            add(&want, a, k % 2 ? (a + 2) % 4 : a ^ 1, 4 * k, 3);
    assert_matrix_eq(&got, &want, "reuse");
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "check", dir, NULL);
    cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* NetPIPE's MPI ping-pong (Debian netpipe-openmpi), a program we did not
 * write: only the pair 0-1, and per size NETPIPE_TRIALS x the repetitions it
 * prints each way (1- and 4-byte messages also carry its handshakes). */
Test(trace, netpipe_is_one_pair_with_its_reported_counts)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX", out[600], np_out[600];
    run_tmpdir_make(dir);
    snprintf(np_out, sizeof np_out, "%s/np.out", dir);
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--", "/usr/bin/timeout",
                           "100", MPIRUN, "-np", "2", "NPopenmpi", "-n", "20", "-u", "64", "-o",
                           np_out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(out, sizeof out, "%s/m.tsv", dir);
    run_result m = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", out, dir, NULL);
    cr_assert_eq(m.status, 0, "%s", m.err);
    matrix got;
    read_matrix(out, &got);
    for (int i = 0; i < got.n; i++)
        cr_assert((got.r[i].src == 0 && got.r[i].dst == 1) ||
                      (got.r[i].src == 1 && got.r[i].dst == 0),
                  "row %ld -> %ld", got.r[i].src, got.r[i].dst);
    int sizes = 0;   /* its "N: B bytes T times -->" lines go to stderr */
    for (char *p = r.err; (p = strstr(p, " bytes ")) != NULL; p++) {
        char *q = p;
        while (q > r.err && q[-1] != ':')
            q--;
        long bytes = strtol(q, NULL, 10), times = strtol(p + 7, NULL, 10);
        for (int dir01 = 0; dir01 < 2; dir01++) {
            long msgs = 0;
            for (int i = 0; i < got.n; i++)
                if (got.r[i].src == dir01 && got.r[i].size == bytes)
                    msgs = got.r[i].messages;
            if (bytes == 1 || bytes == 4)
                cr_assert_geq(msgs, NETPIPE_TRIALS * times, "%ld bytes", bytes);
            else
                cr_assert_eq(msgs, NETPIPE_TRIALS * times, "%ld bytes %d->%d", bytes, dir01,
                             1 - dir01);
        }
        sizes++;
    }
    cr_assert_geq(sizes, 10, "NetPIPE printed %d sizes: %s", sizes, r.err);
    run_free(&r);
    run_free(&m);
    run_tmpdir_remove(dir);
}

/* --- failures of the traced program ------------------------------------ */

/* Traces trace_app MODE on np ranks, which must end without hanging (and
 * with a nonzero status when must_fail), and returns `scitrace summary` of
 * the trace it left, which must succeed. */
static run_result summary_after(const char *dir, const char *np, const char *mode, int must_fail)
{
    run_result r = traced(dir, np, "bin/test/trace_app", mode, NULL, NULL);
    if (must_fail)
        cr_assert_neq(r.status, 0);
    cr_assert_neq(r.status, 124, "hung");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    return r;
}

/* MPI_Abort: the aborting rank closes its file (status aborted); the rank
 * mpirun then kills keeps every call it made, so the matrix --partial
 * writes is whole; without --partial the killed rank is named (exit 3). */
Test(trace, mpi_abort_keeps_every_rank_s_calls)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX", out[600];
    run_tmpdir_make(dir);
    run_result r = summary_after(dir, "2", "abort", 1);
    cr_assert_not_null(strstr(r.out, "rank 1: status aborted"), "%s", r.out);
    cr_assert(strstr(r.out, "rank 0: status killed SIGTERM") ||
                  strstr(r.out, "rank 0: status ended-early"), "%s", r.out);
    run_free(&r);
    snprintf(out, sizeof out, "%s/m.tsv", dir);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", out, dir, NULL);
    run_assert_error(&r, 3, "rank-00000.trace", "a killed rank without --partial");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "--partial", "-o", out, dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    matrix got, want = {.n = 0};
    read_matrix(out, &got);
    add(&want, 0, 1, 4, 1);
    assert_matrix_eq(&got, &want, "the message before the abort");
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* SIGKILL, which no handler sees: the rank's file holds every call it made
 * (the mapping's pages are the kernel's), and the analyzers say its log
 * ended early: matrix refuses it (exit 3) unless --partial. */
Test(trace, a_rank_killed_by_sigkill_keeps_its_calls_and_is_named)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX", out[600];
    run_tmpdir_make(dir);
    /* mpirun SIGKILLs the ranks this many seconds after its SIGTERM
     * (1 by default): under load a rank's handler may not have run by then,
     * and this test is of rank 2's SIGKILL, not of the machine's load */
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "5", 1);
    run_result r = summary_after(dir, "4", "kill", 1);
    /* mpirun then ends the others with SIGTERM (in or before MPI_Finalize) */
    cr_assert_not_null(strstr(r.out, "rank 2: status ended-early"), "%s", r.out);
    for (int k = 0; k < 4; k++) {
        char st[64];
        snprintf(st, sizeof st, "rank %d: status ended-early", k);
        cr_assert((k == 2) == (strstr(r.out, st) != NULL), "%s", r.out);
    }
    run_free(&r);
    snprintf(out, sizeof out, "%s/m.tsv", dir);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", out, dir, NULL);
    run_assert_error(&r, 3, "--partial", "a log that ended early");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "--partial", "-o", out, dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    matrix got, want = {.n = 0};
    read_matrix(out, &got);
    for (int s = 0; s < 4; s++)
        add(&want, s, (s + 1) % 4, 4, 1);
    assert_matrix_eq(&got, &want, "the whole ring, rank 2's send included");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "check", dir, NULL);
    cr_assert_eq(r.status, 7, "%s%s", r.out, r.err);
    cr_assert_not_null(strstr(r.out, "rank 2: log ended early"), "%s", r.out);
    const char *first = strstr(r.out, ": log ended early");
    cr_assert_null(strstr(first + 1, ": log ended early"), "only rank 2's did: %s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* A crash in a rank: its signal handler closes the file first. */
Test(trace, a_crashing_rank_closes_its_file)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX";
    run_tmpdir_make(dir);
    run_result r = summary_after(dir, "2", "crash", 1);
    cr_assert_not_null(strstr(r.out, "rank 1: status crashed SIGSEGV"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "2 messages matched, 0 sends unmatched"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

Test(trace, no_mpi_finalize_still_writes_the_rank_files)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX";
    run_tmpdir_make(dir);
    run_result r = summary_after(dir, "2", "nofinalize", 0);
    cr_assert_not_null(strstr(r.out, "rank 0: status no-finalize"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "rank 1: status no-finalize"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "0 sends unmatched, 0 receives unmatched"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* The trace directory cannot be made (a path through a regular file, which
 * even root cannot create): the program runs untraced, one warning a rank. */
Test(trace, unusable_trace_directory_leaves_the_program_running)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX", bad[600], env_dir[700], env_lib[PATH_MAX + 16];
    run_tmpdir_make(dir);
    snprintf(bad, sizeof bad, "%s/file", dir);
    FILE *fp = fopen(bad, "w");
    fclose(fp);
    snprintf(bad, sizeof bad, "%s/file/sub", dir);
    snprintf(env_dir, sizeof env_dir, "SCITRACE_DIR=%s", bad);
    char lib[PATH_MAX];
    cr_assert_not_null(realpath("bin/libscitrace.so", lib));
    snprintf(env_lib, sizeof env_lib, "LD_PRELOAD=%s", lib);
    run_result r = run_cmd("/usr/bin/timeout", 90, "60", MPIRUN, "-np", "2", "-x", env_lib, "-x",
                           env_dir, run_prog("halo3d", 1), "--steps", "2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "halo3d: 2 steps"), "%s", r.out);
    cr_assert_not_null(strstr(r.err, "cannot create trace directory"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, bad), "%s", r.err);
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "run", "-d", bad, "--", "true", NULL);
    run_assert_error(&r, 1, bad, "scitrace run into an unusable directory");
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* --- damaged rank files -------------------------------------------------- */

static const char good_rank[] =
    "# scitrace-rank 2\nrun R1\nrank %d\nranks 2\nhost h\ncommand ./a\nstart_ns 1\n"
    "comm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n";

static void write_rank(const char *dir, int rank, int recvs)
{
    char path[600];
    snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, rank);
    FILE *fp = fopen(path, "w");
    fprintf(fp, good_rank, rank);
    long line = 9;
    for (int i = 0; i < (rank == 0 ? 3 : recvs); i++, line += 2)
        fprintf(fp, rank == 0 ? "> %d 0 send 1 0 1 5 64\n< %d\n" : "> %d 0 recv 1 0 0 5 64\n< %d 0 5 64\n",
                i, i + 1);
    fprintf(fp, "status finalized\nend %ld\n", line + 1);
    fclose(fp);
}

Test(trace, summary_counts_unmatched_messages_per_stream)
{
    char dir[] = "/tmp/scitorus-trace-XXXXXX";
    run_tmpdir_make(dir);
    write_rank(dir, 0, 3);
    write_rank(dir, 1, 2);   /* rank 1 receives only 2 of rank 0's 3 sends */
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "2 messages matched, 1 sends unmatched, 0 receives unmatched"),
                       "%s", r.out);
    cr_assert_not_null(strstr(r.out, "unmatched: 0 -> 1"), "%s", r.out);
    run_free(&r);
    run_tmpdir_remove(dir);
}

/* A truncated file and a foreign one: exit 1, one line naming the file,
 * the trace files and an existing output untouched. */
Test(trace, truncated_or_foreign_rank_files_are_named)
{
    static const char *const damage[][2] = {
        {"# scitrace-rank 2\nrun R1\nrank 1\nranks 2\nhost h\n", "cut short"},
        {"# scitrace-rank 2\nrun R1\nrank 1\nranks 2\nhost h\ncommand c\nstart_ns 1\n"
         "comm 0 0123456789abcdef 0 2 0 1\nphase 0 main\n> 5 0 send 0 0 1 5 99999999999999999999\n",
         "malformed line"},
        {"hello, world\n", "not a scitrace rank file"},
        {"", "empty file"},
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        char dir[] = "/tmp/scitorus-trace-XXXXXX", path[600], out[600];
        run_tmpdir_make(dir);
        write_rank(dir, 0, 3);
        snprintf(path, sizeof path, "%s/rank-00001.trace", dir);
        FILE *fp = fopen(path, "w");
        fputs(damage[i][0], fp);
        fclose(fp);
        snprintf(out, sizeof out, "%s/keep.tsv", dir);
        fp = fopen(out, "w");
        fputs("keep\n", fp);
        fclose(fp);
        run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
        run_assert_error(&r, 1, "rank-00001.trace", damage[i][1]);
        cr_assert_not_null(strstr(r.err, damage[i][1]), "%s", r.err);
        run_free(&r);
        r = run_cmd(run_prog("scitrace", 0), 30, "matrix", "-o", out, dir, NULL);
        run_assert_error(&r, 1, "rank-00001.trace", damage[i][1]);
        char *kept = run_read_text(out), *file = run_read_text(path);
        cr_assert_str_eq(kept, "keep\n");
        cr_assert_str_eq(file, damage[i][0]);
        free(kept);
        free(file);
        run_free(&r);
        run_tmpdir_remove(dir);
    }
}

Test(trace, usage_errors)
{
    run_result r = run_cmd(run_prog("scitrace", 0), 10, "matrix", "/tmp", NULL);
    run_assert_error(&r, 2, "-o FILE", "matrix without -o");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 10, "summary", "--collectives", "tree", "/tmp", NULL);
    run_assert_error(&r, 2, "'tree'", "bad --collectives");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 10, "frobnicate", NULL);
    run_assert_error(&r, 2, "'frobnicate'", "unknown mode");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 10, "summary", "/nonexistent-trace", NULL);
    run_assert_error(&r, 1, "/nonexistent-trace", "missing directory");
    run_free(&r);
}

/* --- nothing lost --------------------------------------------------------- */

/* 10^5 messages over 4 million (size, tag) keys: every one is in the rank
 * files, with its bytes. */
Test(trace, every_message_of_many_distinct_ones_is_kept)
{
    enum { N = 100000, SIZES = 4096 };
    char dir[] = "/tmp/scitorus-trace-XXXXXX", path[600];
    run_tmpdir_make(dir);
    run_result r = traced(dir, "2", "bin/test/trace_app", "many", "100000", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    uint64_t want_bytes = 0;
    for (long i = 0; i < N; i++)
        want_bytes += (uint64_t)(i % SIZES);
    for (int rank = 0; rank < 2; rank++) {
        trace_rank t;
        trace_error err;
        snprintf(path, sizeof path, "%s/rank-%05d.trace", dir, rank);
        cr_assert_eq(trace_rank_read(path, &t, &err), 0, "%s", err.msg);
        cr_assert_eq(trace_rank_aggregate(&t, NULL, &err), 0, "%s", err.msg);
        uint64_t msgs = 0, bytes = 0;
        for (size_t i = 0; i < t.nrecs; i++) {
            msgs += t.recs[i].messages;
            bytes += t.recs[i].bytes;
        }
        cr_assert_eq(msgs, N, "rank %d", rank);
        cr_assert_eq(bytes, want_bytes, "rank %d", rank);
        cr_assert_str_eq(t.status, "finalized");
        trace_rank_free(&t);
    }
    run_tmpdir_remove(dir);
}
