/* run: scibench's and mpibench's main -- the options, then the pattern
 * they name, from the table of patterns (netgauge's ptrn_* list). */
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"

static const bench_pattern_desc *const patterns[] = {
    &bench_pattern_pp, &bench_pattern_ow, &bench_pattern_logp,
};

const bench_pattern_desc *bench_pattern_find(const bench_backend_cli *bc, const char *name)
{
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (strcmp(patterns[i]->name, name) == 0)
            return patterns[i];
    if (bc->own_pattern && strcmp(bc->own_pattern->name, name) == 0)
        return bc->own_pattern;
    if (bc->own_p2p && strcmp(bc->own_p2p->name, name) == 0)
        return bc->own_p2p;
    return NULL;
}

int bench_main(int argc, char **argv, const bench_backend *be)
{
    bench_cli c;
    int rc;
    memset(&c, 0, sizeof c);
    c.be = be;
    c.bc = be->cli;
    c.prog = c.bc->prog;
    bench_cli_record_command(c.command, sizeof c.command, c.prog, argc, argv);
    if (!(rc = bench_cli_parse(&c, argc, argv)) && !(rc = c.pattern->check(&c)))
        rc = c.pattern->run(&c, &argc, &argv);
    free(c.cfg.dsts);
    bench_data_free(&c.resume_data);
    logp_data_free(&c.logp_done);
    /* what went to standard output must all be there: a full disk is an error */
    int wrc = file_close_stdout(c.prog);
    rc = rc ? rc : wrc;
    /* A usage error is every rank's and only the speaker says it: were a
     * silent rank to exit 2 first, mpirun would kill the speaker before its
     * message was forwarded.  The speaker's status is mpirun's. */
    if (rc == EXIT_USAGE && !c.bc->speaks())
        rc = EXIT_SUCCESS;
    return rc;
}

int bench_cli_prepare(bench_cli *c)
{
    char err[512];
    c->setup.cfg.cpus = c->setup.cpus;
    int rc = c->bc->prepare(&c->setup, err, sizeof err);
    if (rc == EXIT_USAGE)
        return bench_cli_usage(c, "%s", err);
    if (rc)
        fprintf(stderr, "%s: %s\n", c->prog, err);
    return rc;
}
