/* mode_map: `scitrace map`, the rank -> node and slot map Open MPI's mpirun
 * would produce for a hostfile and a policy (NTUA's GetInfo), from the
 * launcher placement of model/launch.h, and mpirun's refusals. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/launch.h"
#include "scitrace/modes.h"
#include "util/opt.h"

typedef struct map_opts {
    const char *hostfile, *rankfile, *map_by, *rank_by;
    long np;
    int nooversubscribe;
} map_opts;

static const opt_spec map_specs[] = {
    {.name = "hostfile", .kind = OPT_PATH, .field = offsetof(map_opts, hostfile), .arg = "FILE",
     .help = "the hosts, as mpirun reads them (name [slots=N] ...)"},
    {.name = "np", .short_name = 'n', .kind = OPT_LONG, .field = offsetof(map_opts, np), .min = 1,
     .max = 16777216, .range = "1..2^24", .arg = "N",
     .help = "ranks (default: as mpirun, every slot, or N x hosts\nfor ppr:N:node)"},
    {.name = "map-by", .kind = OPT_STRING, .field = offsetof(map_opts, map_by), .arg = "P",
     .bad = "nodes", .help = "slot (default) | node | core | socket | ppr:N:node"},
    {.name = "rank-by", .kind = OPT_STRING, .field = offsetof(map_opts, rank_by), .arg = "P",
     .bad = "fill", .help = "slot | node | core | socket (default: node when\nmapping by node, "
                            "else slot)"},
    {.name = "rankfile", .kind = OPT_PATH, .field = offsetof(map_opts, rankfile), .arg = "FILE",
     .help = "`rank R=HOST slot=LIST` lines, as mpirun's"},
    {.name = "nooversubscribe", .kind = OPT_FLAG, .field = offsetof(map_opts, nooversubscribe),
     .help = "refuse, as mpirun --nooversubscribe does, to put more\nranks on a host than its "
             "slots"},
};

static const opt_conflict map_conflicts[] = {
    {"rankfile", "map-by", "a rankfile places every rank itself"},
    {"rankfile", "rank-by", "a rankfile places every rank itself"},
};

static const opt_program map_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace map --hostfile FILE [-n N] [--map-by P] [--rank-by P]\n"
"                    [--rankfile FILE] [--nooversubscribe]\n"
"Print the node and slot every rank of `mpirun -np N` gets for a hostfile\n"
"and a mapping policy, as Open MPI 4.1's mpirun decides it (its\n"
"--display-map), without starting anything: one line per rank,\n"
"  rank  node  host  slot\n"
"node the host's index in the hostfile, slot the rank's place among the\n"
"ranks of its host.  Hosts with slots=0 get ranks only when the others are\n"
"full, as with mpirun --oversubscribe (its default for a hostfile job here);\n"
"--nooversubscribe refuses, as mpirun does, a job with more ranks on a\n"
"host than its slots.\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 the map; 1 mpirun would refuse the job (the message says\n"
"why, as mpirun would), or an unreadable hostfile or rankfile (file and\n"
"line named); 2 usage error.\n",
    .specs = map_specs,
    .nspecs = sizeof map_specs / sizeof map_specs[0],
    .conflicts = map_conflicts,
    .nconflicts = sizeof map_conflicts / sizeof map_conflicts[0],
    .args_min = 0,
    .args_max = 0,
};

int scitrace_map(int argc, char **argv)
{
    map_opts o;
    opt_state st;
    memset(&o, 0, sizeof o);
    int prc = opt_parse(&map_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    if (!o.hostfile)
        return opt_usage_error(&map_program, "map: --hostfile FILE is required");
    launch_request rq = {o.hostfile, o.rankfile, {0}, 1};
    char why[300];
    if (launch_request_finish(&rq, o.map_by, o.rank_by, why, sizeof why))
        return opt_usage_error(&map_program, "map: %s", why);
    launch_hosts h;
    file_error err;
    if (launch_hostfile_read(o.hostfile, &h, &err)) {
        fprintf(stderr, "scitrace: map: --hostfile %s%s%.0ld: %s\n", o.hostfile,
                err.line ? ":" : "", err.line, err.msg);
        return 1;
    }
    long ranks = o.np ? o.np : launch_default_ranks(&h, &rq.policy), slots = launch_total_slots(&h);
    long *node = malloc((size_t)(ranks > 0 ? ranks : 1) * sizeof *node);
    long *used = calloc((size_t)h.count, sizeof *used);
    int rc = 1;
    if (!node || !used) {
        fprintf(stderr, "scitrace: map: out of memory for %ld ranks\n", ranks);
        goto out;
    }
    if (ranks <= 0) {
        fprintf(stderr, "scitrace: map: --hostfile %s has no slot: mpirun starts no rank "
                "(give -n)\n", o.hostfile);
        goto out;
    }
    if (o.rankfile) {
        if (launch_rankfile_read(o.rankfile, &h, ranks, node, &err)) {
            fprintf(stderr, "scitrace: map: --rankfile %s%s%.0ld: %s\n", o.rankfile,
                    err.line ? ":" : "", err.line, err.msg);
            goto out;
        }
    } else if (launch_map(&h, &rq.policy, ranks, node, why, sizeof why)) {
        fprintf(stderr, "scitrace: map: mpirun would refuse the job: %s\n", why);
        goto out;
    }
    for (long r = 0; r < ranks; r++)
        used[node[r]]++;
    for (long k = 0; k < h.count && o.nooversubscribe; k++)
        if (used[k] > h.host[k].slots) {
            fprintf(stderr, "scitrace: map: mpirun --nooversubscribe would refuse the job: there "
                    "are not enough slots available in the system to satisfy the %ld slots "
                    "requested (host %s: %ld ranks, %ld slots; %ld slots in all)\n", ranks,
                    h.host[k].name, used[k], h.host[k].slots, slots);
            goto out;
        }
    memset(used, 0, (size_t)h.count * sizeof *used);
    printf("# scitrace map: %ld ranks on %ld hosts of %s (%ld slots), --map-by %s, --rank-by %s\n"
           "# rank\tnode\thost\tslot\n", ranks, h.count, o.hostfile, slots,
           o.rankfile ? "(rankfile)" : o.map_by ? o.map_by : "slot",
           o.rankfile ? "(rankfile)" : o.rank_by ? o.rank_by : "(mpirun's default)");
    for (long r = 0; r < ranks; r++)
        printf("%ld\t%ld\t%s\t%ld\n", r, node[r], h.host[node[r]].name, used[node[r]]++);
    rc = fflush(stdout) != 0 || ferror(stdout);
out:
    free(node), free(used);
    launch_hosts_free(&h);
    return rc;
}
