/* launch: which rank runs on which node, decided as Open MPI 4.1's mpirun
 * decides it from a hostfile, --map-by, --rank-by and a rankfile, so that a
 * traced job can be projected or replayed with the placement it will really
 * get (docs/model.md, 'Placement as the launcher does it'). */
#ifndef SCITORUS_LAUNCH_H
#define SCITORUS_LAUNCH_H

#include <stddef.h>

#include "util/file_error.h"

#define LAUNCH_MAX_HOSTS 1000000L     /* far beyond any hostfile in use */
#define LAUNCH_MAX_NAME 256           /* a host name, as DNS allows */
#define LAUNCH_MAX_SLOTS 2147483647L /* slots on one host: mpirun keeps an int */

typedef struct launch_host {
    char *name;
    long slots;          /* slots=N (also cpu=, count=); a line without: 1; may be 0 */
} launch_host;

/* Hosts in hostfile order: mpirun's node order. */
typedef struct launch_hosts {
    long count;
    launch_host *host;
} launch_hosts;

/* --map-by: slot fills each node's slots in turn; node deals ranks out
 * across nodes; core and socket behave as slot wherever each node's
 * objects are at least one (they place within a node, not across nodes);
 * ppr:N:node puts exactly N on every node. */
typedef enum launch_map_kind {
    LAUNCH_MAP_DEFAULT = 0,   /* mpirun's default: by core (P <= 2) or socket */
    LAUNCH_MAP_SLOT,
    LAUNCH_MAP_NODE,
    LAUNCH_MAP_CORE,
    LAUNCH_MAP_SOCKET,
    LAUNCH_MAP_PPR
} launch_map_kind;

/* --rank-by: slot numbers each node's ranks in turn; node deals rank
 * numbers round-robin over the nodes; core and socket number within a
 * node and so give the same nodes as slot. */
typedef enum launch_rank_kind {
    LAUNCH_RANK_DEFAULT = 0,  /* node when mapping by node, else slot */
    LAUNCH_RANK_SLOT,
    LAUNCH_RANK_NODE,
    LAUNCH_RANK_CORE,
    LAUNCH_RANK_SOCKET
} launch_rank_kind;

typedef struct launch_policy {
    launch_map_kind map;
    long ppr;                 /* N of ppr:N:node */
    launch_rank_kind rank;
} launch_policy;

/* Parses a --map-by value ("slot", "node", "core", "socket", "ppr:N:node").
 * Returns 0, or -1 when s is none of them (p unchanged). */
int launch_parse_map_by(const char *s, launch_policy *p);

/* Parses a --rank-by value ("slot", "node", "core", "socket").  Returns 0
 * or -1. */
int launch_parse_rank_by(const char *s, launch_policy *p);

/* Reads an Open MPI hostfile as mpirun 4.1 reads it: one host a line,
 * `name [slots=N] [max_slots=M]` (cpu=, count= as slots=; max-slots= and
 * the other spellings as max_slots=; username=U and other words skipped),
 * blanks around '=', `#` and `//` comments; a name without its domain; a
 * rankfile line gives its host a slot.  A host listed again gains a slot
 * a line; a slot count given twice, max_slots below slots, a value that
 * reads as negative in an int, and a carriage return are refused, as
 * mpirun refuses them.  Returns 0, -1 when the file cannot be read, -2
 * when it is malformed (err->line, err->msg).  On failure h holds nothing
 * to free. */
int launch_hostfile_read(const char *path, launch_hosts *h, file_error *err);

void launch_hosts_free(launch_hosts *h);

/* Total slots of all hosts. */
long launch_total_slots(const launch_hosts *h);

/* The number of ranks mpirun starts when -np is not given: N x hosts for
 * ppr:N:node, else every slot. */
long launch_default_ranks(const launch_hosts *h, const launch_policy *p);

/* Places ranks 0..ranks-1 on the hosts as mpirun --oversubscribe does
 * (hosts without slots go after the first host with some):
 * rank_node[r] = index of r's host in h.  Returns 0, or -1 with a reason
 * in why (ppr asks for fewer ranks than given; no host). */
int launch_map(const launch_hosts *h, const launch_policy *p, long ranks, long *rank_node,
               char *why, size_t why_len);

/* Reads a rankfile (`rank R=HOST slot=LIST` lines, blanks allowed around
 * '=', comments as in a hostfile; HOST a name from h; LIST cores of the
 * host, N, N-M, * or 0:..., below its slots, which stand for its cores on
 * one socket) and sets rank_node for the ranks 0..ranks-1, each of which it
 * must name exactly once; lines for ranks >= ranks are skipped, as mpirun
 * skips them.  Same return values as launch_hostfile_read. */
int launch_rankfile_read(const char *path, const launch_hosts *h, long ranks, long *rank_node,
                         file_error *err);

/* Fills rq->policy from the texts of --map-by and --rank-by (NULL: not
 * given) and checks that the launcher's options go together: --map-by,
 * --rank-by and --rankfile need --hostfile.  Returns 0, or -1 with a
 * one-line reason naming the option in why. */
struct launch_request;
int launch_request_finish(struct launch_request *rq, const char *map_by, const char *rank_by,
                          char *why, size_t why_len);

/* What a command line asked for: a hostfile (with a policy or a rankfile),
 * or, without one, K ranks a node in blocks (ranks rK..rK+K-1 on node r). */
typedef struct launch_request {
    const char *hostfile, *rankfile;    /* NULL: not given */
    launch_policy policy;
    long slots;                          /* without a hostfile (>= 1) */
} launch_request;

/* rank_node[r] (ranks entries) and *nodes, the nodes used.  Returns 0; -1
 * or -2 when the hostfile or rankfile cannot be used (err filled, *which
 * names the option: "--hostfile" or "--rankfile"); -3 when the policy
 * cannot place them (err->msg says why, err->line 0). */
int launch_place(const launch_request *rq, long ranks, long *rank_node, long *nodes,
                 file_error *err, const char **which);

#endif
