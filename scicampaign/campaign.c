/* campaign: the campaign file's reader. */
#include "scicampaign/campaign.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/parse.h"

#define MAGIC "# scitorus-campaign 1"
#define MAX_LINE 1024

/* Options the campaign decides itself: where the data goes, resuming, the
 * quiet progress, and the one-shot modes that measure nothing. */
static const char *const refused[] = {"output", "o", "resume", "quiet", "q", "help", "h",
                                      "version", "floor", "interleave", NULL};

static int name_ok(const char *s)
{
    if (!*s || strlen(s) >= sizeof ((measurement *)0)->name || *s == '.')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
            return 0;
    return 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int add_arg(measurement *m, const char *word)
{
    if (m->nargs == CAMPAIGN_MAX_ARGS)
        return -1;
    if (!(m->args[m->nargs] = strdup(word)))
        return -1;
    m->nargs++;
    return 0;
}

/* One "key = value" or "key" line of measurement m. */
static int option_line(measurement *m, char *line, long ln, file_error *err)
{
    char *eq = strchr(line, '=');
    char *key = line, *val = NULL;
    if (eq) {
        *eq = '\0';
        val = trim(eq + 1);
        key = trim(line);
        if (!*val)
            return file_error_set(err, ln, "'%s =' without a value", key);
    }
    if (!*key || strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(key) ||
        *key == '-')
        return file_error_set(err, ln, "'%s': not an option name (lower-case letters, digits, -)",
                              key);
    for (int i = 0; refused[i]; i++)
        if (!strcmp(key, refused[i]))
            return file_error_set(err, ln, "'%s': the campaign sets it (each measurement writes"
                                           " DIR/%s.tsv and is resumed)", key, m->name);
    if (!strcmp(key, "program")) {
        if (!val || (strcmp(val, "scibench") && strcmp(val, "mpibench")))
            return file_error_set(err, ln, "program '%s': scibench or mpibench", val ? val : "");
        m->mpi = !strcmp(val, "mpibench");
        return 0;
    }
    if (!strcmp(key, "np")) {
        if (!val || parse_long(val, 1, 4096, &m->np) != PARSE_OK)
            return file_error_set(err, ln, "np '%s': a number of ranks 1..4096", val ? val : "");
        return 0;
    }
    char opt[80];
    snprintf(opt, sizeof opt, "--%s", key);
    if (add_arg(m, opt) || (val && add_arg(m, val)))
        return file_error_set(err, ln, "more than %d option words", CAMPAIGN_MAX_ARGS);
    return 0;
}

int campaign_read(const char *path, campaign *c, file_error *err)
{
    memset(c, 0, sizeof *c);
    FILE *fp = file_open_input(path);
    if (!fp)
        return file_error_sys(err, errno);
    c->text = NULL;
    char *text = NULL;
    size_t tlen = 0;
    FILE *mem = open_memstream(&text, &tlen);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t got;
    long ln = 0;
    int rc = 0;
    measurement *m = NULL;
    while (rc == 0 && (got = getline(&buf, &cap, fp)) >= 0) {
        ln++;
        if (mem)
            fwrite(buf, 1, (size_t)got, mem);
        if (got > MAX_LINE) {
            rc = file_error_set(err, ln, "line longer than %d bytes", MAX_LINE);
            break;
        }
        if (strlen(buf) < (size_t)got) {
            rc = file_error_set(err, ln, "a NUL byte");
            break;
        }
        if (ln == 1) {
            if (strcmp(trim(buf), MAGIC) != 0)
                rc = file_error_set(err, 1, "not a campaign file (first line '" MAGIC "')");
            continue;
        }
        char *line = trim(buf);
        if (!*line || *line == '#')
            continue;
        if (*line == '[') {
            size_t len = strlen(line);
            if (line[len - 1] != ']') {
                rc = file_error_set(err, ln, "'%s': a measurement is [NAME]", line);
                break;
            }
            line[len - 1] = '\0';
            char *name = trim(line + 1);
            if (!name_ok(name)) {
                rc = file_error_set(err, ln, "[%s]: a name is letters, digits, - _ . (not first .),"
                                             " under 64 bytes", name);
                break;
            }
            for (int i = 0; i < c->count; i++)
                if (!strcmp(c->m[i].name, name)) {
                    rc = file_error_set(err, ln, "[%s] again (first at line %ld)", name,
                                        c->m[i].line);
                    break;
                }
            if (rc)
                break;
            if (c->count == CAMPAIGN_MAX) {
                rc = file_error_set(err, ln, "more than %d measurements", CAMPAIGN_MAX);
                break;
            }
            m = &c->m[c->count++];
            snprintf(m->name, sizeof m->name, "%s", name);
            m->line = ln;
            m->np = 2;
            continue;
        }
        if (!m) {
            rc = file_error_set(err, ln, "'%s' before the first [NAME]", line);
            break;
        }
        rc = option_line(m, line, ln, err);
    }
    if (rc == 0 && ferror(fp))
        rc = file_error_sys(err, errno);
    if (rc == 0 && ln == 0)
        rc = file_error_set(err, 0, "empty (first line '" MAGIC "')");
    if (rc == 0 && c->count == 0)
        rc = file_error_set(err, 0, "no measurement ([NAME] and its options)");
    free(buf);
    fclose(fp);
    if (mem)
        fclose(mem);
    c->text = text;
    if (rc == 0 && !text)
        rc = file_error_sys(err, ENOMEM);
    if (rc)
        campaign_free(c);
    return rc;
}

void campaign_free(campaign *c)
{
    for (int i = 0; i < c->count; i++)
        for (int k = 0; k < c->m[i].nargs; k++)
            free(c->m[i].args[k]);
    free(c->text);
    memset(c, 0, sizeof *c);
}
