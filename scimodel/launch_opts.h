/* launch_opts: the launcher placement's command-line rows, one definition
 * for scimodel --traffic and scisim.  The including file defines F(field)
 * as offsetof of its options struct, whose fields carry these names, and
 * may define LAUNCH_OPT_SCOPE (util/opt.h's .scope) when they are one
 * mode's options. */
#ifndef SCITORUS_LAUNCH_OPTS_H
#define SCITORUS_LAUNCH_OPTS_H

#include "model/projection.h"
#include "model/traffic.h"

#ifndef LAUNCH_OPT_SCOPE
#define LAUNCH_OPT_SCOPE 0
#endif

/* Ranks on nodes, as Open MPI's mpirun places them (docs/model.md,
 * 'Placing ranks'), then nodes on the torus. */
#define LAUNCH_OPT_ROWS                                                                       \
    {.name = "slots", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_LONG, .field = F(slots), .min = 1, .max = TRAFFIC_MAX_RANKS, \
     .range = "1..2^24", .def = "1", .arg = "K",                                              \
     .help = "K ranks per node: ranks rK..rK+K-1 on node r; messages inside a\n"             \
             "node cost 2 o_intra(m)"},                                                       \
    {.name = "hostfile", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_PATH, .field = F(hostfile), .arg = "FILE",               \
     .help = "place ranks on the hostfile's nodes as Open MPI's mpirun\n"                     \
             "--oversubscribe does (nodes in hostfile order)"},                               \
    {.name = "map-by", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_STRING, .field = F(map_by), .arg = "P", .bad = "nodes",    \
     .help = "slot (default) | node | core | socket | ppr:N:node, as mpirun's"},              \
    {.name = "rank-by", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_STRING, .field = F(rank_by), .arg = "P", .bad = "fill",   \
     .help = "slot | node | core | socket, as mpirun's (default: node when\n"                 \
             "mapping by node, else slot)"},                                                  \
    {.name = "rankfile", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_PATH, .field = F(rankfile), .arg = "FILE",               \
     .help = "`rank R=HOST slot=LIST` lines, as mpirun's (hosts from\n"                   \
             "--hostfile, whose slots stand for their cores)"},                               \
    {.name = "intra-params", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_PATH, .field = F(intra_path), .arg = "FILE",         \
     .help = "o_intra(m) of same-node messages from this params file\n"                       \
             "(default: the network's o(m))"},                                                \
    {.name = "placement", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_STRING, .field = F(placement), .def = "row-major",      \
     .arg = "P",                                                                              \
     .help = "row-major (node j on torus node j) | optimize (GSL simulated\n"                 \
             "annealing from row-major, fixed seed) | FILE (line j: the torus\n"              \
             "node, row-major rank, of node j)"},                                             \
    {.name = "anneal-steps", .scope = LAUNCH_OPT_SCOPE, .kind = OPT_LONG, .field = F(anneal_steps), .min = 1,            \
     .max = PROJ_ANNEAL_MAX_STEPS, .range = "1..1e8", .def = "200000", .arg = "N",            \
     .help = "moves of the annealing (--placement optimize)"}

#define LAUNCH_OPT_CONFLICTS                                    \
    {"hostfile", "slots", "the hostfile gives each node's slots"}, \
    {"rankfile", "map-by", "a rankfile places every rank itself"}, \
    {"rankfile", "rank-by", "a rankfile places every rank itself"}

#endif
