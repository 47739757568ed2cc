/* launch: Open MPI 4.1's placement of ranks on nodes (hostfile, --map-by,
 * --rank-by, rankfile), reproduced so that projection and replay see the
 * nodes mpirun would use; tests/test_launch.c checks it against mpirun's
 * own --display-map. */
#include "model/launch.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/file_error.h"
#include "util/parse.h"

#define LAUNCH_MAX_LINE 1024

/* Next line of fp into buf (LAUNCH_MAX_LINE + 1 bytes), comment and line
 * end cut off.  Returns 1, 0 at end of file, -1/-2 as the readers. */
static int next_line(FILE *fp, char *buf, long line, file_error *err)
{
    size_t n = 0;
    int c;
    while ((c = getc(fp)) != EOF && c != '\n') {
        if (c == '\0')
            return file_error_set(err, line, "binary data (a NUL byte)");
        if (n == LAUNCH_MAX_LINE)
            return file_error_set(err, line, "line longer than %d characters", LAUNCH_MAX_LINE);
        buf[n++] = (char)c;
    }
    if (ferror(fp))
        return file_error_sys(err, errno ? errno : EIO);
    if (c == EOF && n == 0)
        return 0;
    buf[n] = '\0';
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = '\0';
    return 1;
}

/* Splits s at blanks into at most cap words; returns the count, or cap + 1
 * when there are more. */
static int words(char *s, char **w, int cap)
{
    int n = 0;
    for (char *tok = strtok(s, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
        if (n == cap)
            return cap + 1;
        w[n++] = tok;
    }
    return n;
}

int launch_parse_map_by(const char *s, launch_policy *p)
{
    static const struct { const char *name; launch_map_kind kind; } table[] = {
        {"slot", LAUNCH_MAP_SLOT}, {"node", LAUNCH_MAP_NODE},
        {"core", LAUNCH_MAP_CORE}, {"socket", LAUNCH_MAP_SOCKET},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) {
            p->map = table[i].kind;
            return 0;
        }
    const char *tail = strrchr(s, ':');
    if (strncmp(s, "ppr:", 4) || !tail || tail == s + 3 || strcmp(tail, ":node"))
        return -1;
    char num[32];
    size_t len = (size_t)(tail - (s + 4));
    if (len == 0 || len >= sizeof num)
        return -1;
    memcpy(num, s + 4, len);
    num[len] = '\0';
    long n;
    if (parse_long(num, 1, LAUNCH_MAX_SLOTS, &n) != PARSE_OK)
        return -1;
    p->map = LAUNCH_MAP_PPR;
    p->ppr = n;
    return 0;
}

int launch_parse_rank_by(const char *s, launch_policy *p)
{
    static const struct { const char *name; launch_rank_kind kind; } table[] = {
        {"slot", LAUNCH_RANK_SLOT}, {"node", LAUNCH_RANK_NODE},
        {"core", LAUNCH_RANK_CORE}, {"socket", LAUNCH_RANK_SOCKET},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) {
            p->rank = table[i].kind;
            return 0;
        }
    return -1;
}

void launch_hosts_free(launch_hosts *h)
{
    for (long i = 0; i < h->count; i++)
        free(h->host[i].name);
    free(h->host);
    h->host = NULL;
    h->count = 0;
}

static long find_host(const launch_hosts *h, const char *name)
{
    for (long i = 0; i < h->count; i++)
        if (!strcmp(h->host[i].name, name))
            return i;
    return -1;
}

/* One hostfile line's words: name, then key=value options. */
static int host_line(launch_hosts *h, char *given, char **w, int n, long line,
                     file_error *err)
{
    static const char *slot_keys[] = {"slots", "cpu", "count"};
    static const char *max_keys[] = {"max_slots", "max-slots", "slots_max"};
    if (strlen(w[0]) >= LAUNCH_MAX_NAME)
        return file_error_set(err, line, "host name longer than %d characters", LAUNCH_MAX_NAME - 1);
    long slots = -1;
    for (int i = 1; i < n; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq)
            return file_error_set(err, line, "'%s' is not key=value (slots=N)", w[i]);
        *eq = '\0';
        int is_slots = 0, is_max = 0;
        for (size_t k = 0; k < 3; k++) {
            is_slots |= !strcmp(w[i], slot_keys[k]);
            is_max |= !strcmp(w[i], max_keys[k]);
        }
        long v;
        if (!is_slots && !is_max)
            return file_error_set(err, line, "unknown key '%s' (slots, max_slots)", w[i]);
        if (parse_long(eq + 1, is_slots ? 1 : 0, LAUNCH_MAX_SLOTS, &v) != PARSE_OK)
            return file_error_set(err, line, "%s='%s' is not an integer in %d..%ld", w[i], eq + 1,
                        is_slots ? 1 : 0, LAUNCH_MAX_SLOTS);
        if (is_slots)
            slots = v;
    }
    long at = find_host(h, w[0]);
    if (at >= 0) {
        /* mpirun: "list a node multiple times, once for each slot, or ...
         * slot=N; mixing the two methods is not supported" */
        if (slots >= 0 || given[at])
            return file_error_set(err, line, "host '%s' listed again with a slot count "
                        "(mpirun refuses this: list it once with slots=N)", w[0]);
        if (h->host[at].slots >= LAUNCH_MAX_SLOTS)
            return file_error_set(err, line, "host '%s' has more than %ld slots", w[0], LAUNCH_MAX_SLOTS);
        h->host[at].slots++;
        return 0;
    }
    if (h->count == LAUNCH_MAX_HOSTS)
        return file_error_set(err, line, "more than %ld hosts", LAUNCH_MAX_HOSTS);
    launch_host *grown = realloc(h->host, (size_t)(h->count + 1) * sizeof *grown);
    char *name = strdup(w[0]);
    if (!grown || !name) {
        free(name);
        if (grown)
            h->host = grown;
        return file_error_sys(err, ENOMEM);
    }
    h->host = grown;
    h->host[h->count].name = name;
    h->host[h->count].slots = slots >= 0 ? slots : 1;
    given[h->count] = slots >= 0;
    h->count++;
    return 0;
}

int launch_hostfile_read(const char *path, launch_hosts *h, file_error *err)
{
    h->count = 0;
    h->host = NULL;
    FILE *fp = file_open_input(path);
    if (!fp)
        return file_error_sys(err, errno);
    char buf[LAUNCH_MAX_LINE + 1];
    char *given = NULL;
    int rc = 0;
    for (long line = 1;; line++) {
        int got = next_line(fp, buf, line, err);
        if (got <= 0) {
            rc = got;
            break;
        }
        char *w[8];
        int n = words(buf, w, 7);
        if (n == 0)
            continue;
        if (n > 7) {
            rc = file_error_set(err, line, "too many words for a host line");
            break;
        }
        char *g = realloc(given, (size_t)h->count + 1);
        if (!g) {
            rc = file_error_sys(err, ENOMEM);
            break;
        }
        given = g;
        if ((rc = host_line(h, given, w, n, line, err)) != 0)
            break;
    }
    fclose(fp);
    free(given);
    if (rc == 0 && h->count == 0)
        rc = file_error_set(err, 0, "no host in the file");
    if (rc != 0)
        launch_hosts_free(h);
    return rc;
}

long launch_total_slots(const launch_hosts *h)
{
    long s = 0;
    for (long i = 0; i < h->count; i++)
        s += h->host[i].slots;
    return s;
}

long launch_default_ranks(const launch_hosts *h, const launch_policy *p)
{
    return p->map == LAUNCH_MAP_PPR ? p->ppr * h->count : launch_total_slots(h);
}

/* By slot: every node takes its free slots in turn; ranks left over (an
 * oversubscribed job) are spread evenly, the first nodes taking one more. */
static void count_by_slot(const launch_hosts *h, long ranks, long *count)
{
    long left = ranks;
    for (long i = 0; i < h->count && left > 0; i++) {
        count[i] = h->host[i].slots < left ? h->host[i].slots : left;
        left -= count[i];
    }
    long each = left / h->count, extra = left % h->count;
    for (long i = 0; i < h->count && left > 0; i++)
        count[i] += each + (i < extra);
}

/* By node: the ranks still to place are shared out evenly over the nodes
 * that had room in the last pass (at least one a node, the first nodes one
 * more), a node taking no more than its free slots unless the job is
 * oversubscribed; then, if any are left, one a node in turn. */
static void count_by_node(const launch_hosts *h, long ranks, long *count)
{
    int over = launch_total_slots(h) < ranks;
    long mapped = 0, open = h->count;
    while (mapped < ranks && open > 0) {
        long left = ranks - mapped;
        long avg = left / open > 0 ? left / open : 1;
        long rest = left - avg * open;           /* may be negative */
        long extra = rest / open, xnodes = 0;    /* truncates toward 0 */
        int add_one = rest - extra * open > 0;
        if (add_one) {
            xnodes = left - (avg + extra) * open;
            extra++;
        }
        open = 0;
        for (long i = 0; i < h->count && mapped < ranks; i++) {
            long free_slots = h->host[i].slots - count[i];
            if (!over && free_slots <= 0)
                continue;
            if (add_one && xnodes == 0)
                extra--, add_one = 0;
            else if (add_one)
                xnodes--;
            long take = avg + extra;
            if (!over && free_slots < take)
                take = free_slots;
            open++;
            if (take > ranks - mapped)
                take = ranks - mapped;
            count[i] += take;
            mapped += take;
        }
    }
    for (long i = 0; mapped < ranks; i = (i + 1) % h->count, mapped++)
        count[i]++;
}

int launch_map(const launch_hosts *h, const launch_policy *p, long ranks, long *rank_node,
               char *why, size_t why_len)
{
    if (h->count <= 0) {
        snprintf(why, why_len, "no host to place ranks on");
        return -1;
    }
    if (p->map == LAUNCH_MAP_PPR && ranks > p->ppr * h->count) {
        snprintf(why, why_len, "ppr:%ld:node places %ld ranks on %ld hosts, not %ld",
                 p->ppr, p->ppr * h->count, h->count, ranks);
        return -1;
    }
    long *count = calloc((size_t)h->count, sizeof *count);
    if (!count) {
        snprintf(why, why_len, "out of memory for %ld hosts", h->count);
        return -1;
    }
    if (p->map == LAUNCH_MAP_NODE)
        count_by_node(h, ranks, count);
    else if (p->map == LAUNCH_MAP_PPR)
        for (long i = 0, left = ranks; i < h->count; left -= count[i], i++)
            count[i] = p->ppr < left ? p->ppr : left;
    else
        count_by_slot(h, ranks, count);
    launch_rank_kind rk = p->rank;
    if (rk == LAUNCH_RANK_DEFAULT)
        rk = p->map == LAUNCH_MAP_NODE ? LAUNCH_RANK_NODE : LAUNCH_RANK_SLOT;
    long r = 0;
    if (rk == LAUNCH_RANK_NODE) {
        /* round-robin over the nodes, each giving its next unnumbered rank */
        long *left = count;
        while (r < ranks)
            for (long i = 0; i < h->count && r < ranks; i++)
                if (left[i] > 0) {
                    left[i]--;
                    rank_node[r++] = i;
                }
    } else {
        for (long i = 0; i < h->count; i++)
            for (long k = 0; k < count[i]; k++)
                rank_node[r++] = i;
    }
    free(count);
    return 0;
}

/* "rank R=HOST slot=..." -> R and the host's index. */
static int rank_line(char *buf, const launch_hosts *h, long ranks, long *r, long *node,
                     long line, file_error *err)
{
    char *w[4];
    int n = words(buf, w, 3);
    if (n == 0)
        return 1;
    if (n < 2 || n > 3 || strcmp(w[0], "rank"))   /* "rank" alone left w[1] unset */
        return file_error_set(err, line, "expected 'rank R=HOST slot=...'");
    char *eq = strchr(w[1], '=');
    if (!eq)
        return file_error_set(err, line, "expected 'rank R=HOST slot=...'");
    *eq = '\0';
    if (parse_long(w[1], 0, ranks - 1, r) != PARSE_OK)
        return file_error_set(err, line, "rank '%s' is not an integer in 0..%ld", w[1], ranks - 1);
    const char *host = eq + 1;
    if (host[0] == '+' && host[1] == 'n') {
        if (parse_long(host + 2, 0, h->count - 1, node) != PARSE_OK)
            return file_error_set(err, line, "'%s' is not +n0..+n%ld", host, h->count - 1);
    } else if ((*node = find_host(h, host)) < 0) {
        return file_error_set(err, line, "host '%s' is not in the hostfile", host);
    }
    return 0;
}

int launch_rankfile_read(const char *path, const launch_hosts *h, long ranks, long *rank_node,
                         file_error *err)
{
    FILE *fp = file_open_input(path);
    if (!fp)
        return file_error_sys(err, errno);
    char buf[LAUNCH_MAX_LINE + 1];
    for (long i = 0; i < ranks; i++)
        rank_node[i] = -1;
    int rc = 0;
    long named = 0;
    for (long line = 1;; line++) {
        int got = next_line(fp, buf, line, err);
        if (got <= 0) {
            rc = got;
            break;
        }
        long r, node;
        int st = rank_line(buf, h, ranks, &r, &node, line, err);
        if (st == 1)
            continue;
        if (st != 0) {
            rc = st;
            break;
        }
        if (rank_node[r] >= 0) {
            rc = file_error_set(err, line, "rank %ld given twice", r);
            break;
        }
        rank_node[r] = node;
        named++;
    }
    fclose(fp);
    if (rc == 0 && named < ranks)
        for (long i = 0; i < ranks; i++)
            if (rank_node[i] < 0)
                return file_error_set(err, 0, "rank %ld of %ld is not in the rankfile", i, ranks);
    return rc;
}

int launch_place(const launch_request *rq, long ranks, long *rank_node, long *nodes,
                 file_error *err, const char **which)
{
    if (!rq->hostfile) {
        for (long r = 0; r < ranks; r++)
            rank_node[r] = r / rq->slots;
        *nodes = (ranks + rq->slots - 1) / rq->slots;
        return 0;
    }
    launch_hosts h;
    int rc;
    *which = "--hostfile";
    if ((rc = launch_hostfile_read(rq->hostfile, &h, err)))
        return rc;
    if (rq->rankfile) {
        *which = "--rankfile";
        rc = launch_rankfile_read(rq->rankfile, &h, ranks, rank_node, err);
    } else if (launch_map(&h, &rq->policy, ranks, rank_node, err->msg, sizeof err->msg)) {
        err->line = 0;
        err->sys_errno = 0;
        rc = -3;
    }
    *nodes = h.count;
    launch_hosts_free(&h);
    return rc;
}

int launch_request_finish(launch_request *rq, const char *map_by, const char *rank_by,
                          char *why, size_t why_len)
{
    const char *need = map_by ? "--map-by" : rank_by ? "--rank-by" : rq->rankfile ? "--rankfile" : NULL;
    if (need && !rq->hostfile)
        return snprintf(why, why_len, "%s needs --hostfile", need), -1;
    if (map_by && launch_parse_map_by(map_by, &rq->policy))
        return snprintf(why, why_len, "--map-by '%s': expected slot, node, core, socket or "
                        "ppr:N:node", map_by), -1;
    if (rank_by && launch_parse_rank_by(rank_by, &rq->policy))
        return snprintf(why, why_len, "--rank-by '%s': expected slot, node, core or socket",
                        rank_by), -1;
    return 0;
}
