/* launch_read: Open MPI 4.1's hostfile and rankfile syntax, read as its
 * lexer and parser read them (orte/util/hostfile, rmaps/rank_file), so a
 * file is accepted or refused here as mpirun accepts or refuses it;
 * tests/test_launch.c runs the same files through mpirun. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/launch.h"
#include "util/atomicfile.h"
#include "util/file_error.h"

#define LAUNCH_MAX_LINE 1024
#define MAX_TOKENS 16

/* Next line of fp into buf (LAUNCH_MAX_LINE + 1 bytes), comments cut off
 * ('#' or "//" anywhere, as mpirun's lexer ends a line there); a carriage
 * return left is refused.  Returns 1, 0 at end of file, -1/-2 as the
 * readers. */
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
    char *hash = strchr(buf, '#'), *slashes = strstr(buf, "//");
    if (hash)
        *hash = '\0';
    if (slashes)
        *slashes = '\0';
    if (strstr(buf, "/*"))
        return file_error_set(err, line, "a /* block comment */: not read here; use '#'");
    if (strchr(buf, '\r'))   /* (in a comment, mpirun skips it with the rest) */
        return file_error_set(err, line, "a carriage return (DOS line end): mpirun refuses "
                              "it; convert the file with dos2unix");
    return 1;
}

/* Splits s into tokens as the lexer does: blanks separate, '=' stands
 * alone.  Returns the count, or -1 when there are more than cap. */
static int tokens(char *s, char **tok, int cap)
{
    static char eq[] = "=";
    int n = 0;
    while (*s) {
        if (strchr(" \t\f\v", *s)) {
            *s++ = '\0';
            continue;
        }
        if (n == cap)
            return -1;
        if (*s == '=') {
            *s++ = '\0';
            tok[n++] = eq;
            continue;
        }
        tok[n++] = s;
        while (*s && !strchr(" \t\f\v=", *s))
            s++;
    }
    return n;
}

static int is_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* A [0-9]+ token's value as mpirun keeps it: atol, then an int (so
 * 4294967298 is 2, and 2147483648 is negative). */
static long mpirun_int(const char *digits)
{
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, 10);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
        v = (unsigned long long)INT64_MAX;          /* atol saturates */
    long w = (long)(v & 0xffffffffULL);
    return w > INT32_MAX ? w - 0x100000000L : w;
}

/* A host name as the lexer takes one (a word, a dotted name, an address);
 * '+' (relative hosts), '^' (exclusions) and quotes are not names. */
static int is_name(const char *s)
{
    if (!*s || *s == '^')
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:@,*", *s))
            return 0;
    return 1;
}

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

static const char *const slot_keys[] = {"slots", "cpu", "count", NULL};
static const char *const max_keys[] = {"max_slots", "max-slots", "slots_max", "slots-max",
                                       "cpu_max", "cpu-max", "max_cpu", "max-cpu",
                                       "count_max", "count-max", "max_count", "max-count", NULL};
static const char *const user_keys[] = {"username", "user-name", "user_name", NULL};
/* words the lexer reads as keywords, which a hostfile line cannot hold */
static const char *const other_keys[] = {"rank", "slot", "boards", "sockets", "sockets_per_board",
                                         "sockets-per-board", "cores", "cores_per_socket",
                                         "cores-per-socket", "cpu_set", "cpu-set", NULL};

void launch_hosts_free(launch_hosts *h)
{
    for (long i = 0; i < h->count; i++)
        free(h->host[i].name);
    free(h->host);
    h->host = NULL;
    h->count = 0;
}

static long launch_find_host(const launch_hosts *h, const char *name)
{
    for (long i = 0; i < h->count; i++)
        if (!strcmp(h->host[i].name, name))
            return i;
    return -1;
}

/* The node a host word names, as mpirun names it: no user@, and no
 * domain (n1.x and n1.y are one node, n1) unless it is an IPv4 address;
 * localhost is the host this runs on, as it is the one mpirun runs on. */
static int node_name(const char *word, char *name, long line, file_error *err)
{
    const char *at = strrchr(word, '@');
    word = at ? at + 1 : word;
    if (strlen(word) >= LAUNCH_MAX_NAME)
        return file_error_set(err, line, "host name longer than %d characters", LAUNCH_MAX_NAME - 1);
    strcpy(name, word);
    if (!strcmp(name, "localhost") &&
        (gethostname(name, LAUNCH_MAX_NAME) || !memchr(name, '\0', LAUNCH_MAX_NAME)))
        strcpy(name, "localhost");
    int dots = 0, digits_dots = 1;
    for (const char *c = name; *c; c++) {
        dots += *c == '.';
        digits_dots &= (*c >= '0' && *c <= '9') || *c == '.';
    }
    if (!(digits_dots && dots == 3) && strchr(name, '.'))
        *strchr(name, '.') = '\0';
    if (!*name)
        return file_error_set(err, line, "'%s' names no host", word);
    return 0;
}

/* The host of a line: new (one slot) or listed before (one slot more, and
 * its count now counts as given). */
static int host_entry(launch_hosts *h, char **given, const char *word, long line,
                      file_error *err, long *at)
{
    char name[LAUNCH_MAX_NAME];
    int rc = node_name(word, name, line, err);
    if (rc)
        return rc;
    if ((*at = launch_find_host(h, name)) >= 0) {
        h->host[*at].slots++;
        (*given)[*at] = 1;
        return 0;
    }
    if (h->count == LAUNCH_MAX_HOSTS)
        return file_error_set(err, line, "more than %ld hosts", LAUNCH_MAX_HOSTS);
    launch_host *grown = realloc(h->host, (size_t)(h->count + 1) * sizeof *grown);
    if (grown)
        h->host = grown;
    char *g = realloc(*given, (size_t)h->count + 1);
    if (g)
        *given = g;
    char *copy = strdup(name);
    if (!grown || !g || !copy) {
        free(copy);
        return file_error_sys(err, ENOMEM);
    }
    h->host[h->count] = (launch_host){copy, 1};
    g[h->count] = 0;
    *at = h->count++;
    return 0;
}

/* key '=' INT, as mpirun's hostfile_parse_int: a value that is not [0-9]+
 * or reads as negative is refused. */
static int key_int(char **tok, int n, int *i, long line, file_error *err, long *v)
{
    const char *key = tok[*i];
    if (*i + 2 >= n || strcmp(tok[*i + 1], "="))
        return file_error_set(err, line, "'%s' without '=N'", key);
    if (!is_digits(tok[*i + 2]))
        return file_error_set(err, line, "%s=%s: not a whole number", key, tok[*i + 2]);
    *v = mpirun_int(tok[*i + 2]);
    if (*v < 0)
        return file_error_set(err, line, "%s=%s reads as %ld (mpirun keeps an int): less than 0",
                              key, tok[*i + 2], *v);
    *i += 2;
    return 0;
}

/* One hostfile line: a host, then slots=N, max_slots=M, username=U, and
 * words mpirun ignores, in any order; or a rankfile line, whose host gains
 * a slot (its count then given) and whose rest is skipped. */
static int host_line(launch_hosts *h, char **given, char **tok, int n, long line,
                     file_error *err)
{
    if (!strcmp(tok[0], "rank")) {
        int eq = 1;
        while (eq < n && strcmp(tok[eq], "="))
            eq++;
        if (eq + 1 >= n || !is_name(tok[eq + 1]))
            return file_error_set(err, line, "a rankfile line without '=HOST'");
        long at;
        int rc = host_entry(h, given, tok[eq + 1], line, err, &at);
        if (rc == 0)
            (*given)[at] = 1;
        return rc;
    }
    if (tok[0][0] == '+')
        return file_error_set(err, line, "'%s': relative hosts (+n) are not hosts; list each "
                              "host by name", tok[0]);
    if (tok[0][0] == '^')
        return file_error_set(err, line, "'%s': excluding a host (^) is not read here", tok[0]);
    if (in_list(tok[0], slot_keys) || in_list(tok[0], max_keys) || in_list(tok[0], user_keys) ||
        in_list(tok[0], other_keys) || !is_name(tok[0]))
        return file_error_set(err, line, "'%s' is not a host name", tok[0]);
    long at, max = 0;
    int got_max = 0, rc;
    if ((rc = host_entry(h, given, tok[0], line, err, &at)))
        return rc;
    launch_host *host = &h->host[at];
    for (int i = 1; i < n; i++) {
        long v;
        if (in_list(tok[i], slot_keys)) {
            if ((rc = key_int(tok, n, &i, line, err, &v)))
                return rc;
            if ((*given)[at])
                return file_error_set(err, line, "host '%s' given a slot count twice (mpirun "
                                      "refuses this: list it once with slots=N, or one line a "
                                      "slot)", host->name);
            host->slots = v;
            (*given)[at] = 1;
            if (max != 0 && max < v)
                max = v;
        } else if (in_list(tok[i], max_keys)) {
            if ((rc = key_int(tok, n, &i, line, err, &v)))
                return rc;
            if (v < host->slots)
                return file_error_set(err, line, "%s=%ld is less than the host's %ld slots "
                                      "(mpirun refuses this)", tok[i - 2], v, host->slots);
            got_max |= max != v;
            max = v;
        } else if (in_list(tok[i], user_keys)) {
            if (i + 2 >= n || strcmp(tok[i + 1], "=") || !is_name(tok[i + 2]))
                return file_error_set(err, line, "'%s' without '=NAME'", tok[i]);
            i += 2;
        } else if (i + 1 < n && !strcmp(tok[i + 1], "=")) {
            return file_error_set(err, line, "unknown key '%s' (slots=N, max_slots=N)", tok[i]);
        } else if (!strcmp(tok[i], "=") || in_list(tok[i], other_keys) || strchr(tok[i], '.') ||
                   !is_name(tok[i])) {
            return file_error_set(err, line, "unexpected '%s' (slots=N, max_slots=N)", tok[i]);
        }   /* any other word: mpirun skips it */
    }
    if (got_max && !(*given)[at]) {
        host->slots = max;          /* max_slots alone sets the slots too */
        (*given)[at] = 1;
    }
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
        char *tok[MAX_TOKENS];
        int n = tokens(buf, tok, MAX_TOKENS);
        if (n == 0)
            continue;
        if (n < 0) {
            rc = file_error_set(err, line, "too many words for a host line");
            break;
        }
        if ((rc = host_line(h, &given, tok, n, line, err)) != 0)
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

/* A core number or range "a-b" of a slot list, each below cores. */
static int core_range(const char *s, long cores)
{
    if (!strcmp(s, "*"))
        return 0;
    const char *dash = strchr(s, '-');
    char a[24];
    size_t len = dash ? (size_t)(dash - s) : strlen(s);
    if (len == 0 || len >= sizeof a)
        return -1;
    memcpy(a, s, len);
    a[len] = '\0';
    if (!is_digits(a) || (dash && !is_digits(dash + 1)))
        return -1;
    long lo = mpirun_int(a), hi = dash ? mpirun_int(dash + 1) : lo;
    if (hi < lo)
        return 0;   /* mpirun binds a reversed range to nothing and checks no end */
    return lo >= 0 && hi < cores ? 0 : -1;
}

/* slot=LIST: items split by ',' or ';', each CORES or SOCKET:CORES, CORES
 * '*', N or N-M.  The hostfile's slots stand for the host's cores, on one
 * socket: that is all a hostfile says of a host's hardware. */
static int slot_list(const char *list, long cores, long line, file_error *err)
{
    char copy[LAUNCH_MAX_LINE + 1];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    int items = 0;
    for (char *it = strtok_r(copy, ",;", &save); it; it = strtok_r(NULL, ",;", &save), items++) {
        char *colon = strchr(it, ':');
        if (colon) {
            *colon = '\0';
            if (strcmp(it, "0") && strcmp(it, "*"))
                return file_error_set(err, line, "slot=%s: socket %s, but a hostfile host has "
                                      "one socket (0)", list, it);
            it = colon + 1;
        }
        if (core_range(it, cores))
            return file_error_set(err, line, "slot=%s: '%s' is not a core 0..%ld of the host "
                                  "(its slots), nor N-M or *", list, it, cores - 1);
    }
    if (!items)
        return file_error_set(err, line, "slot= names no core");
    return 0;
}

/* "rank R=HOST slot=LIST" -> R and the host's index; R is -1 for a rank
 * the job does not have (mpirun skips those lines).  *others: a rank other
 * than 0 was read before, after which mpirun 4.1 takes rank 0 as given. */
static int rank_line(char *buf, const launch_hosts *h, long ranks, long *r, long *node,
                     int *others, long line, file_error *err)
{
    char *tok[MAX_TOKENS];
    int n = tokens(buf, tok, MAX_TOKENS);
    if (n == 0)
        return 1;
    if (n != 7 || strcmp(tok[0], "rank") || strcmp(tok[2], "=") ||
        (strcmp(tok[4], "slot") && strcmp(tok[4], "slots")) || strcmp(tok[5], "="))
        return file_error_set(err, line, "expected 'rank R=HOST slot=LIST'");
    if (!is_digits(tok[1]) || (*r = mpirun_int(tok[1])) < 0)
        return file_error_set(err, line, "rank '%s' is not a whole number 0..2^31-1", tok[1]);
    if (*r == 0 && *others)
        return file_error_set(err, line, "rank 0 after other ranks: mpirun 4.1 refuses it "
                              "('rank 0 is already assigned'); put rank 0 first");
    *others |= *r != 0;
    const char *host = tok[3];
    if (host[0] == '+')
        return file_error_set(err, line, "'%s': mpirun refuses relative hosts in a rankfile; "
                              "name the host", host);
    char name[LAUNCH_MAX_NAME];
    if (!is_name(host))
        return file_error_set(err, line, "'%s' is not a host name", host);
    int rc = node_name(host, name, line, err);
    if (rc)
        return rc;
    if ((*node = launch_find_host(h, name)) < 0)
        return file_error_set(err, line, "host '%s' is not in the hostfile", host);
    if ((rc = slot_list(tok[6], h->host[*node].slots, line, err)))
        return rc;
    if (*r >= ranks)
        *r = -1;
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
    int rc = 0, others = 0;
    long named = 0;
    for (long line = 1;; line++) {
        int got = next_line(fp, buf, line, err);
        if (got <= 0) {
            rc = got;
            break;
        }
        long r = -1, node = -1;
        int st = rank_line(buf, h, ranks, &r, &node, &others, line, err);
        if (st == 1 || (st == 0 && r < 0))
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
