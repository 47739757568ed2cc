/* Tests for the man pages (`make man`: help2man from --help plus man's h2m files):
 * every installed program has one, its EXAMPLES keep --help's examples one
 * a line, and every repository path a page cites exists. */
#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include "tests/runcmd.h"

TestSuite(man, .timeout = 300);

static const char *root_dir(void)
{
    const char *root = getenv("SCITORUS_ROOT");
    cr_assert_not_null(root, "SCITORUS_ROOT (set by make check)");
    return root;
}

/* make man (the pages are built from bin/'s programs, which make check built) */
static void build_pages(void)
{
    run_result r = run_cmd("/usr/bin/make", 280, "-s", "--no-print-directory", "-C", root_dir(), "man",
                           NULL);
    cr_assert_eq(r.status, 0, "make man: %s %s", r.out, r.err);
    run_free(&r);
}

/* The programs in bin/ that `make install` installs: not the `make bench`
 * helpers (bench-*), not the example applications (examples/NAME.c), not
 * the tracing library. */
static int installed_programs(char names[][64], int cap)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/bin", root_dir());
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < cap;) {
        char path[900], example[900];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(example, sizeof example, "%s/examples/%s.c", root_dir(), e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR) ||
            strncmp(e->d_name, "bench-", 6) == 0 || strstr(e->d_name, ".so") ||
            access(example, F_OK) == 0)
            continue;
        snprintf(names[n++], 64, "%.63s", e->d_name);
    }
    closedir(d);
    return n;
}

/* The page's roff source as text: \- and \e unescaped, font changes gone. */
static char *page_text(const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/build/man/%s.1", root_dir(), name);
    cr_assert_eq(access(path, R_OK), 0, "%s: no man page (make man)", name);
    char *s = run_read_text(path), *o = s;
    for (const char *p = s; *p;) {
        if (p[0] == '\\' && (p[1] == '-' || p[1] == 'e')) {
            *o++ = p[1] == '-' ? '-' : '\\';
            p += 2;
        } else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
            p += 3;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return s;
}

/* --help's "Examples:" lines, one a line, without their indent. */
static char *help_examples(const char *name)
{
    char prog[700];
    snprintf(prog, sizeof prog, "%s/bin/%s", root_dir(), name);
    run_result r = run_cmd(prog, 20, "--help", NULL);
    cr_assert_eq(r.status, 0, "%s --help: %s", name, r.err);
    char *out = calloc(1, strlen(r.out) + 1);
    const char *at = strstr(r.out, "\nExamples:\n");
    if (at)
        for (const char *line = at + 11; *line == ' ' || *line == '\n';) {
            size_t len = strcspn(line, "\n");
            if (len > 2)
                strncat(out, line + 2, len - 2), strcat(out, "\n");
            line += len + (line[len] == '\n');
        }
    run_free(&r);
    return out;
}

Test(man, every_program_has_a_page_with_its_examples_one_a_line)
{
    build_pages();
    char names[32][64];
    int n = installed_programs(names, 32);
    cr_assert_geq(n, 7, "%d programs in bin/ (scibench, mpibench, calibrate, scimodel, scitrace, "
                        "scisim, scitestbed at least)", n);
    for (int i = 0; i < n; i++) {
        char *page = page_text(names[i]);
        const char *ex = strstr(page, "\n.SH EXAMPLES\n");
        cr_assert_not_null(ex, "%s.1: no EXAMPLES", names[i]);
        ex += 14;
        cr_assert_eq(strncmp(ex, ".nf\n", 4), 0, "%s.1: EXAMPLES not one a line:\n%.400s", names[i], ex);
        const char *end = strstr(ex, "\n.fi\n"), *next = strstr(ex, "\n.SH ");
        cr_assert(end && (!next || end < next), "%s.1: EXAMPLES runs on past its examples:\n%.600s",
                  names[i], ex);
        /* the block holds --help's examples, each a line of its own, and
         * nothing after it within the section */
        cr_assert(!next || strspn(end + 5, "\n") == (size_t)(next + 1 - (end + 5)),
                  "%s.1: text after the examples:\n%.600s", names[i], end);
        char *want = help_examples(names[i]);
        for (char *line = strtok(want, "\n"); line; line = strtok(NULL, "\n")) {
            char needle[600];
            snprintf(needle, sizeof needle, "\n%s\n", line);
            const char *at = strstr(ex + 3, needle);
            cr_assert(at && at < end + 1, "%s.1: --help's example '%s' is not a line of EXAMPLES:\n%.*s",
                      names[i], line, (int)(end - ex), ex);
        }
        free(want);
        free(page);
    }
}

/* Whether rel (a path, or a glob) names something in the repository or
 * what the build made there. */
static int exists_in_repo(const char *rel)
{
    char pattern[900];
    snprintf(pattern, sizeof pattern, "%s/%s", root_dir(), rel);
    glob_t g;
    int found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

Test(man, every_path_cited_exists)
{
    static const char *const dirs[] = {"bench/", "bench-model/", "benchdata/", "bin/", "calibrate/",
                                       "coll/", "data/", "docs/", "examples/", "fit/", "libscitrace/",
                                       "man/", "model/", "mpibench/", "plots/", "sched/", "scibench/",
                                       "scimodel/", "scisim/", "scitrace/", "sim/", "testbed/",
                                       "tests/", "topo/", "trace/", "util/"};
    build_pages();
    char names[32][64];
    int n = installed_programs(names, 32), cited = 0;
    for (int i = 0; i < n; i++) {
        char *page = page_text(names[i]);
        for (const char *p = page; *p; p++) {
            if (p > page && (isalnum((unsigned char)p[-1]) || strchr("/._-", p[-1])))
                continue;
            for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
                size_t dl = strlen(dirs[k]);
                if (strncmp(p, dirs[k], dl) != 0)
                    continue;
                size_t len = dl + strspn(p + dl, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                 "0123456789_.-/*");
                while (len > dl && (p[len - 1] == '.' || p[len - 1] == '-'))
                    len--;   /* a sentence's full stop */
                if (len == dl)
                    continue;   /* "docs/ files": the directory, named in passing */
                char rel[300];
                snprintf(rel, sizeof rel, "%.*s", (int)len, p);
                cr_assert(exists_in_repo(rel), "%s.1 cites %s, which is not in the repository", names[i],
                          rel);
                cited++;
            }
        }
        free(page);
    }
    cr_assert_gt(cited, 5, "%d paths cited: the scan found nothing", cited);
}

/* The codes cell of name's row in the exit status table ("| scibench,
 * mpibench | 0, 1, 2 |"), or NULL. */
static const char *exit_row(const char *formats, const char *name)
{
    const char *table = strstr(formats, "\n| program | codes |");
    cr_assert_not_null(table, "docs/formats.md: no exit status table");
    const char *first = strstr(table + 1, "\n|-");   /* the header's rule */
    cr_assert_not_null(first);
    for (const char *line = strchr(first + 1, '\n'); line && strncmp(line, "\n| ", 3) == 0;
         line = strchr(line + 1, '\n')) {
        const char *cell = line + 3, *bar = strchr(cell, '|');
        size_t nl = strlen(name);
        for (const char *p = cell; bar && p < bar; p++)
            if (strncmp(p, name, nl) == 0 && (p == cell || p[-1] == ' ') && strchr(", ", p[nl]))
                return bar + 1;
    }
    return NULL;
}

/* Each exit code docs/formats.md gives a program ('Exit status': the
 * integers of its row, not a signal's number nor the 128 of "128 + ...")
 * is stated in the page's EXIT STATUS, not left to another text. */
Test(man, exit_status_states_every_code)
{
    build_pages();
    char *formats = run_read_text(run_path(root_dir(), "docs/formats.md"));
    char names[32][64];
    int n = installed_programs(names, 32), rows = 0;
    for (int i = 0; i < n; i++) {
        const char *row = exit_row(formats, names[i]);
        if (!row)
            continue;
        rows++;
        size_t len = strcspn(row, "\n");
        char *page = page_text(names[i]);
        const char *st = strstr(page, "\n.SH \"EXIT STATUS\"\n");
        cr_assert_not_null(st, "%s.1: no EXIT STATUS", names[i]);
        const char *end = strstr(st + 1, "\n.SH ");
        for (size_t k = 0; k < len; k++) {
            if (!isdigit((unsigned char)row[k]) || (k > 0 && isalnum((unsigned char)row[k - 1])))
                continue;
            char *after;
            long code = strtol(row + k, &after, 10);
            size_t we = k, ws;   /* the word before: SIGTERM in "SIGTERM 143" */
            while (we > 0 && row[we - 1] == ' ')
                we--;
            for (ws = we; ws > 0 && isalpha((unsigned char)row[ws - 1]); ws--)
                ;
            int signal_number = we - ws > 3 && strncmp(row + ws, "SIG", 3) == 0;
            k = (size_t)(after - row);
            if (signal_number || strncmp(after, " +", 2) == 0)
                continue;
            char tag[32];
            snprintf(tag, sizeof tag, "\n.B %ld\n", code);
            const char *at = strstr(st, tag);
            cr_assert(at && (!end || at < end), "%s.1: exit status %ld (docs/formats.md) is not stated:\n%.*s",
                      names[i], code, end ? (int)(end - st) : 400, st);
        }
        free(page);
    }
    cr_assert_geq(rows, 6, "%d programs found in docs/formats.md's exit status table", rows);
    free(formats);
}
