/* cli: the command line shared by scibench and mpibench.  One options table
 * (options.c), the patterns it runs, registered in one table (run.c; grid.c:
 * pp and ow on a ring or torus; logp_run.c: LogP between two processes;
 * collective.c: mpibench's MPI collectives),
 * --resume (resume.c), headers and the end of an output (output.c).  What
 * differs between the two programs comes from the backend's hooks
 * (bench/backend_cli.h). */
#ifndef SCITORUS_BENCH_CLI_H
#define SCITORUS_BENCH_CLI_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/backend.h"
#include "bench/backend_cli.h"
#include "benchdata/benchdata.h"
#include "bench/collective_opts.h"
#include "bench/logp.h"
#include "bench/pattern.h"
#include "util/atomicfile.h"
#include "util/exit.h"
#include "util/opt.h"

/* Largest message: 1 GiB, far beyond any eager or rendezvous threshold. */
#define BENCH_MAX_SIZE_BYTES (1L << 30)
/* a benchmark places every node on a process; 65536 is far beyond that */
#define BENCH_MAX_NODES 65536
#define BENCH_CMD_MAX 4096

typedef struct bench_cli bench_cli;

/* A pattern (netgauge's ptrn_*): its name, the options that apply to it
 * (scope, BENCH_IN_*), its default sizes, and its run. */
typedef struct bench_pattern_desc {
    const char *name;
    unsigned scope;
    const char *default_sizes;
    /* After the options: combined checks; 0 or an exit status. */
    int (*check)(bench_cli *c);
    /* Measures; returns the exit status. */
    int (*run)(bench_cli *c, int *argc, char ***argv);
    /* --help's text after the options (size bytes in epilog), or NULL:
     * pp's and ow's (grid.c). */
    const char *(*help)(const bench_cli *c, char *epilog, size_t size);
} bench_pattern_desc;

/* Looks a pattern up by name, the shared ones and the backend's own
 * (bc->own_pattern); NULL when there is none. */
const bench_pattern_desc *bench_pattern_find(const bench_backend_cli *bc, const char *name);

struct bench_cli {
    const bench_backend *be;
    const bench_backend_cli *bc;
    const char *prog;
    const bench_pattern_desc *pattern;
    bench_config cfg;              /* pp, ow */
    logp_config logp;              /* logp */
    coll_opts coll;                /* coll (mpibench --op) */
    opt_state opts;                /* what was given (opt_given), for the checks */
    bench_backend_setup setup;
    long hops[TOPO_MAX_DIMS];
    int have_hops, have_dst, all_dst, have_topology, floor_only, have_pattern, have_sizes;
    int floor_lines;                 /* --floor --lines */
    int have_op;                   /* --op given: the pattern is coll */
    int have_p2p, p2p_mode;        /* --p2p MODE given (bench_p2p_modes' index): pattern p2p */
    long p2p_window;               /* --window: bw's and bibw's messages each way */
    int point_by_point;            /* --point-by-point: not interleaved (grid.c) */
    long dst;
    const char *out_path, *resume_path, *hops_text, *topology_opt;
    const char *sizes_text;        /* --sizes as given, read once the pattern is known */
    double batch_us;               /* --batch-time (cfg.min_batch_ns holds it in ns) */
    char command[BENCH_CMD_MAX];
    bench_data resume_data;        /* pp, ow: the resumed file */
    logp_data logp_done;           /* logp: the resumed file */
    /* "FILE:LINE: recorded command" while parsing a --resume file's
     * command line, so its errors name where they come from; else "" */
    char context[PATH_MAX + 64];
    /* --interleave SHAPE=FILE: more networks, measured with the main one */
    struct {
        topo_shape shape;
        const char *text, *path;
    } extra[BENCH_MAX_NETS - 1];
    int nextra;
};

/* ---- options.c ---- */

/* Parses argv (a recorded command when c->context is set) into c, on the
 * defaults (util/opt's table).  --help and --version print and
 * exit.  With --resume, only -q and --timeout may be given beside it; the
 * rest comes from the file (resume.c).  Returns 0 or an exit status. */
int bench_cli_parse(bench_cli *c, int argc, char **argv);
/* A usage error: "PROG: [CONTEXT: ]MESSAGE (try --help)" on stderr from
 * the process that speaks; returns 2. */
int bench_cli_usage(const bench_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The values the program's options must refuse (util/opt.h), for tests;
 * c->be, c->bc set.  Returns how many. */
struct opt_bad_case;
int bench_cli_bad_cases(const bench_cli *c, struct opt_bad_case *out, int cap);

/* ---- resume.c ---- */

/* The command line as the data header records it: argv with prog for
 * argv[0], words a POSIX shell would split or unquote in single quotes
 * (a quote inside as '\''), so that it pastes into a shell. */
void bench_cli_record_command(char *buf, size_t size, const char *prog, int argc, char **argv);
/* Splits a recorded command back into words as a shell would (single and
 * double quotes, backslashes), in copy (size bytes): at most max - 1 of
 * them into args, NULL after the last.  Returns how many, -1 when a quote
 * is not closed or the words do not fit. */
int bench_cli_split_command(const char *cmd, char *copy, size_t size, char **args, int max);
/* 1 when the data file at path says '# pattern: PATTERN' in its header. */
int bench_cli_file_is_pattern(const char *path, const char *pattern);
/* --resume FILE: reads it, parses its recorded command into c, with the
 * options given beside --resume (-q, --timeout) on top.  Returns 0 or an
 * exit status. */
int bench_cli_load_resume(bench_cli *c, int argc, char **argv);
/* A resumed pp/ow run, once its network is known: the pattern and
 * topology the recorded command gives must be the ones the file's header
 * says its points were measured on (a command edited by hand would mix
 * two networks' points in one file).  0, or 1 with a message naming the
 * file and the header's line. */
int bench_cli_check_resumed(const bench_cli *c);

/* ---- output.c ---- */

/* A data header's first lines: backend, host, date (UTC), command, timer,
 * and the backend's own (h is cleared first). */
void bench_cli_header_start(const bench_cli *c, bench_data *h);
/* The topology line of a header. */
void bench_cli_header_shape(const topo_shape *sh, bench_data *h);
/* A BENCH_ERR_* code in words. */
const char *bench_cli_error_text(int rc);
/* The exit status of a run that ended with rc (0 or a BENCH_ERR_* code):
 * EXIT_INTERRUPTED for a stop request, EXIT_USAGE for BENCH_ERR_TAGS, else 1. */
int bench_cli_status(int rc);
/* Opens path for writing (atomically), or standard output for NULL;
 * *out is where to write.  Returns 0 or -1 (message printed, naming opt). */
int bench_cli_open(const bench_cli *c, const char *opt, const char *path, atomic_file *af,
                   FILE **out);
/* Ends one output.  A complete run (rc 0) replaces the file.  An
 * interrupted one is marked '# incomplete' and never destroys an existing
 * file, which may hold a complete earlier run: it goes beside it, to
 * FILE.incomplete, unless FILE is the incomplete file this run resumes;
 * stderr says where the finished `what` ("points", "sizes") are.  Rows
 * lost on the way (a full disk) keep nothing.  af->fp NULL: standard
 * output.  Returns 0 or -1. */
int bench_cli_commit(const bench_cli *c, atomic_file *af, FILE *out, const char *path, int rc,
                     const char *what);

/* A complete data file at path with its rows by destination, then size
 * (interleaved and in-turn runs write them as points finish).  A device or
 * standard output is left as written, and so is a file that cannot be
 * rewritten (said on stderr: its rows are all there).  Returns 0. */
int bench_sort_rows(const char *prog, const char *path);

/* ---- the patterns ---- */

/* --pattern logp --help's description (logp_run.c). */
void bench_logp_help(const bench_cli *c);
/* pp, ow --help: prints the usage and description, fills epilog (size
 * bytes) with what follows the options and returns it (grid.c). */
const char *bench_grid_help(const bench_cli *c, char *epilog, size_t size);

extern const bench_pattern_desc bench_pattern_pp, bench_pattern_ow, bench_pattern_logp;
/* mpibench --op: MPI collectives (collective.c; mpibench's own pattern) */
extern const bench_pattern_desc bench_pattern_coll;
/* mpibench --p2p: MPI's other point-to-point calls between two ranks (mpibench/p2p.c) */
extern const bench_pattern_desc bench_pattern_p2p;

/* The backend's last word on the options (its prepare hook: the CPUs to
 * pin to), once the pattern has checked them.  0 or an exit status. */
int bench_cli_prepare(bench_cli *c);

/* Runs a benchmark program over backend be; returns the exit status
 * (0 success, 1 runtime failure, 2 usage error). */
int bench_main(int argc, char **argv, const bench_backend *be);

#endif
