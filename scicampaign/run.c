/* run: a campaign's measurements, each measured, resumed or kept. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scicampaign/campaign.h"
#include "util/exit.h"
#include "util/signals.h"
#include "util/spawn.h"

/* How long an MPI job may take to write its files after its stop signal. */
#define MPI_STOP_GRACE_S 20

/* 1 when path exists and ends with the "# incomplete" line every bench
 * format ends an unfinished run's file with. */
static int ends_incomplete(const char *path)
{
    static const char tail[] = "# incomplete\n";
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char buf[sizeof tail] = "";
    int yes = fseek(fp, -(long)(sizeof tail - 1), SEEK_END) == 0 &&
              fread(buf, 1, sizeof tail - 1, fp) == sizeof tail - 1 && !strcmp(buf, tail);
    fclose(fp);
    return yes;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

typedef enum state { ST_DONE, ST_RESUME, ST_RESUME_JOURNAL, ST_NEW } state;

static state state_of(const char *file, const char *journal)
{
    if (exists(file))
        return ends_incomplete(file) ? ST_RESUME : ST_DONE;
    return exists(journal) ? ST_RESUME_JOURNAL : ST_NEW;
}

/* argv of measurement m in state st (words point into m, bufs). */
static int build_argv(const measurement *m, const campaign_run *r, state st, const char *file,
                      const char *journal, char *prog, size_t plen, char *np, size_t nplen,
                      char **argv)
{
    int n = 0;
    snprintf(prog, plen, "%s/%s", r->bin, m->mpi ? "mpibench" : "scibench");
    if (m->mpi) {
        snprintf(np, nplen, "%ld", m->np);
        const char *mpirun = getenv("MPIRUN");   /* as the Makefile's MPIRUN names it */
        argv[n++] = (char *)(mpirun && *mpirun ? mpirun : "mpirun");
        argv[n++] = "--oversubscribe";
        if (geteuid() == 0)
            argv[n++] = "--allow-run-as-root";
        argv[n++] = "-np";
        argv[n++] = np;
    }
    argv[n++] = prog;
    if (st == ST_NEW) {
        for (int k = 0; k < m->nargs; k++)
            argv[n++] = m->args[k];
        argv[n++] = "-o";
        argv[n++] = (char *)file;
    } else {
        argv[n++] = "--resume";
        argv[n++] = (char *)(st == ST_RESUME ? file : journal);
    }
    argv[n++] = "-q";
    argv[n] = NULL;
    return n;
}

static const char *state_name(state st)
{
    static const char *const names[] = {"done", "interrupted: resume", "killed: resume its journal",
                                        "to measure"};
    return names[st];
}

int campaign_run_all(const campaign *c, const campaign_run *r)
{
    bench_signals_install_stop();
    for (int i = 0; i < c->count; i++) {
        const measurement *m = &c->m[i];
        char file[PATH_MAX], journal[PATH_MAX + 16], prog[PATH_MAX + 16], np[24];
        char *argv[CAMPAIGN_MAX_ARGS + 16];
        snprintf(file, sizeof file, "%s/%s.tsv", r->dir, m->name);
        snprintf(journal, sizeof journal, "%s.incomplete", file);
        state st = state_of(file, journal);
        int n = build_argv(m, r, st, file, journal, prog, sizeof prog, np, sizeof np, argv);
        if (r->list || (!r->quiet && st != ST_DONE)) {
            printf("%-16s %-28s", m->name, state_name(st));
            for (int k = 0; st != ST_DONE && k < n; k++)
                printf(" %s", argv[k]);
            putchar('\n');
            fflush(stdout);
        }
        if (r->list || st == ST_DONE)
            continue;
        spawn_opts so = {.prog = "scicampaign", .stop_signal = m->mpi ? SIGUSR1 : SIGTERM,
                         .own_group = m->mpi, .stdin_null = 1, .grace_s = MPI_STOP_GRACE_S};
        int rc = spawn_run(argv, &so);
        if (rc == -2 || rc == EXIT_INTERRUPTED || bench_interrupted()) {
            fprintf(stderr, "scicampaign: stopped during [%s]; its finished points are kept: run"
                            " the same command again to resume\n", m->name);
            return EXIT_INTERRUPTED;
        }
        if (rc != 0) {
            fprintf(stderr, "scicampaign: [%s] (line %ld): %s %s\n", m->name, m->line, prog,
                    rc < 0 ? strerror(errno) : rc == 127 ? "could not be run (exit 127)"
                                                          : "failed (its message above)");
            return EXIT_FAILURE;
        }
        if (st == ST_RESUME_JOURNAL && rename(journal, file) != 0) {
            fprintf(stderr, "scicampaign: %s -> %s: %s\n", journal, file, strerror(errno));
            return EXIT_FAILURE;
        }
    }
    return 0;
}
