/* resume: the command line a data file records, and --resume FILE, which
 * reads it back and continues the run after the file's finished points. */
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "util/file_error.h"

/* A word a shell would leave alone needs no quotes. */
static int plain(const char *a)
{
    if (!*a)
        return 0;
    for (; *a; a++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    "-_./=:,+%@", *a))
            return 0;
    return 1;
}

void bench_cli_record_command(char *buf, size_t size, const char *prog, int argc, char **argv)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && len + 2 < size; i++) {
        const char *a = i == 0 ? prog : argv[i];
        if (i)
            buf[len++] = ' ';
        if (plain(a)) {
            len += (size_t)snprintf(buf + len, size - len, "%s", a);
            continue;
        }
        buf[len++] = '\'';
        for (; *a && len + 6 < size; a++)
            if (*a == '\'')
                len += (size_t)snprintf(buf + len, size - len, "'\\''");
            else if (*a == '\n')   /* a header is one line: as a shell's $'\n' would not */
                buf[len++] = ' ';
            else
                buf[len++] = *a;
        buf[len++] = '\'';
        buf[len] = '\0';
    }
    if (len >= size)
        buf[size - 1] = '\0';
}

int bench_cli_split_command(const char *cmd, char *copy, size_t size, char **args, int max)
{
    size_t o = 0;
    int n = 0;
    const char *p = cmd;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (n == max - 1)
            return -1;
        args[n++] = copy + o;
        for (char quote = 0; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (o + 2 > size)
                return -1;
            if (!quote && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (quote && *p == quote)
                quote = 0;
            else if (*p == '\\' && quote != '\'' && p[1])
                copy[o++] = *++p;
            else
                copy[o++] = *p;
            if (quote && !p[1])
                return -1;   /* a quote not closed */
        }
        copy[o++] = '\0';
    }
    args[n] = NULL;
    return n;
}

int bench_cli_file_is_pattern(const char *path, const char *pattern)
{
    FILE *fp = file_open_input(path);
    char line[600], want[64];
    int yes = 0;
    snprintf(want, sizeof want, "# pattern: %s\n", pattern);
    while (fp && !yes && fgets(line, sizeof line, fp) && line[0] == '#')
        yes = strcmp(line, want) == 0;
    if (fp)
        fclose(fp);
    return yes;
}

/* Reads the file to resume into c (an --op file: its header alone, its
 * rows are the pattern's to read); its header h. */
static int read_file(bench_cli *c, const bench_data **h)
{
    bench_read_error err;
    const char *path = c->resume_path;
    int logp = bench_cli_file_is_pattern(path, "logp");
    int rc = logp ? logp_data_read(path, &c->logp_done, &err)
             : bench_cli_file_is_pattern(path, "coll") ? bench_data_read_header(path, &c->resume_data,
                                                                                &err)
             : bench_data_read(path, &c->resume_data, &err);
    if (rc && err.line > 0)
        return file_error_report(EXIT_FAILURE, c->prog, path, &err);
    if (rc) {
        fprintf(stderr, "%s: --resume '%s': %s\n", c->prog, path, err.msg);
        return EXIT_FAILURE;
    }
    *h = logp ? &c->logp_done.hdr : &c->resume_data;
    return 0;
}

int bench_cli_check_resumed(const bench_cli *c)
{
    static bench_data run;   /* (large: one run's header at a time) */
    const bench_data *file = &c->resume_data;
    const char *keys[] = {"pattern", "topology"};
    if (!c->cfg.done)
        return 0;
    memset(&run, 0, sizeof run);
    bench_data_set_header(&run, "pattern", "%s", c->cfg.pattern == BENCH_PP ? "pp" : "ow");
    bench_cli_header_shape(&c->cfg.shape, &run);
    for (int k = 0; k < 2; k++) {
        const char *was = bench_data_header(file, keys[k]), *now = bench_data_header(&run, keys[k]);
        if (was && strcmp(was, now) != 0) {
            if (c->bc->speaks())   /* (every MPI rank checks; rank 0 says it) */
                    fprintf(stderr, "%s: %s:%ld: --resume: the file's points were measured with %s"
                                " '%s', its recorded command (line %ld) measures '%s'\n",
                        c->prog, c->resume_path, bench_data_header_line(file, keys[k]), keys[k],
                        was, bench_data_header_line(file, "command"), now);
            return EXIT_FAILURE;
        }
    }
    return 0;
}

int bench_cli_load_resume(bench_cli *c, int argc, char **argv)
{
    const bench_data *h = NULL;
    const char *path = c->resume_path;
    int rc;
    (void)argc;
    (void)argv;
    if ((rc = read_file(c, &h)))
        return rc;
    const char *cmd = bench_data_header(h, "command");
    const char *backend = bench_data_header(h, "backend");
    if (!cmd) {
        fprintf(stderr, "%s: %s: no '# command:' header to resume from\n", c->prog, path);
        return EXIT_FAILURE;
    }
    /* one file, one backend: an mpibench run must not continue a scibench
     * file (their points are not the same measurement), nor the reverse */
    if (!backend || strcmp(backend, c->be->name) != 0) {
        fprintf(stderr, "%s: %s: --resume: the file was written by the %s backend; %s resumes"
                        " %s files only\n", c->prog, path, backend ? backend : "(none)",
                c->prog, c->be->name);
        return EXIT_FAILURE;
    }
    char copy[BENCH_CMD_MAX], *args[256];
    int n = bench_cli_split_command(cmd, copy, sizeof copy, args, 256);
    snprintf(c->context, sizeof c->context, "%s:%ld: recorded command", path,
             bench_data_header_line(h, "command"));
    if (n < 0)
        rc = bench_cli_usage(c, "a quote is not closed, or too many words");
    else
        rc = bench_cli_parse(c, n, args);
    c->context[0] = '\0';
    if (rc)
        return rc;
    snprintf(c->command, sizeof c->command, "%s", cmd);
    c->out_path = path;
    c->resume_path = path;
    c->cfg.done = &c->resume_data;
    c->logp.done = &c->logp_done;
    return 0;
}
