/* sched_compare: a GOAL schedule of scitrace goal against scisim's
 * --emit-goal for the same collective, message for message: per rank, its
 * sends and receives in file order with peer and size (the trace's calc
 * operations and tags aside), and the algorithm each file names. */
#ifndef SCITORUS_SCHED_COMPARE_H
#define SCITORUS_SCHED_COMPARE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/goal.h"

static inline char *sched_read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "r");
    cr_assert_not_null(fp, "%s", path);
    char *text = NULL;
    size_t cap = 0;
    FILE *mem = open_memstream(&text, &cap);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        fwrite(buf, 1, n, mem);
    fclose(fp);
    fclose(mem);
    *len = cap;
    return text;
}

/* The algorithm a GOAL file's header names: scitrace's "// collective: OP
 * on P ranks, S B: NAME (...)", or collgen's "// OP (NAME) of ...". */
static inline void sched_header_alg(const char *text, char *alg, size_t len)
{
    const char *c = strstr(text, "// collective: ");
    while (c && !strncmp(c + 15, "traced MPI: ", 12))
        c = strstr(c + 15, "// collective: ");
    alg[0] = 0;
    if (c) {
        const char *a = strstr(c, " B: ");
        cr_assert_not_null(a, "%.200s", c);
        a += 4;
        snprintf(alg, len, "%.*s", (int)strcspn(a, " \n"), a);
    } else if ((c = strchr(text, '('))) {
        snprintf(alg, len, "%.*s", (int)strcspn(c + 1, ")"), c + 1);
    }
}

/* Asserts traced == generated message for message; returns the messages. */
static inline long sched_compare(const char *traced, size_t tlen, const char *generated,
                                 size_t glen, const char *what)
{
    goal_schedule a, b;
    goal_error err;
    cr_assert_eq(goal_parse(traced, tlen, &a, &err), 0, "%s: traced: %ld: %s", what, err.line,
                 err.msg);
    cr_assert_eq(goal_parse(generated, glen, &b, &err), 0, "%s: generated: %ld: %s", what,
                 err.line, err.msg);
    cr_assert_eq(a.ranks, b.ranks, "%s", what);
    long n = 0;
    for (uint32_t r = 0; r < a.ranks; r++) {
        size_t i = a.first[r], j = b.first[r], ie = i + a.count[r], je = j + b.count[r];
        for (;; i++, j++, n++) {
            while (i < ie && a.op[i].kind == GOAL_CALC)
                i++;
            while (j < je && b.op[j].kind == GOAL_CALC)
                j++;
            if (i == ie || j == je) {
                cr_assert(i == ie && j == je, "%s: rank %u: %s has more messages", what, r,
                          i < ie ? "the trace's schedule" : "scisim's");
                break;
            }
            const goal_op *x = &a.op[i], *y = &b.op[j];
            cr_assert(x->kind == y->kind && x->peer == y->peer && x->size == y->size,
                      "%s: rank %u, message %ld: traced %s %llu B %s %u, generated %s %llu B %s %u",
                      what, r, n, x->kind == GOAL_SEND ? "send" : "recv",
                      (unsigned long long)x->size, x->kind == GOAL_SEND ? "to" : "from", x->peer,
                      y->kind == GOAL_SEND ? "send" : "recv", (unsigned long long)y->size,
                      y->kind == GOAL_SEND ? "to" : "from", y->peer);
        }
    }
    goal_free(&a);
    goal_free(&b);
    return n;
}

#endif
