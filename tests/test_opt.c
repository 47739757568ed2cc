/* Tests for util/opt, in process, on a small table of every kind: values
 * land in their fields, defaults apply, GNU permutation, an option given
 * twice or two conflicting ones are refused, every usage error ends with
 * "(try --help)", --help is made from the table, --version, and
 * opt_bad_cases' values are each refused by opt_parse itself. */
#include <stddef.h>

#include "tests/runcmd.h"
#include "util/opt.h"

typedef struct toy {
    int quiet, color;
    long nodes, size;
    double rate;
    long dims[8];
    size_t ndims;
    const char *out, *name;
    int odd;
} toy;

static int parse_odd(void *dest, const char *arg, char *why, size_t len)
{
    long v = strtol(arg, NULL, 10);
    if (v % 2 == 0) {
        snprintf(why, len, "not odd");
        return 1;
    }
    ((toy *)dest)->odd = (int)v;
    return 0;
}

static const opt_spec specs[] = {
    {.kind = OPT_HEADING, .help = "Things:"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = offsetof(toy, quiet),
     .help = "say less"},
    {.name = "nodes", .kind = OPT_LONG, .field = offsetof(toy, nodes), .min = 2, .max = 1e15,
     .range = "2..1e15", .def = "1000", .arg = "N", .help = "system size"},
    {.name = "size", .kind = OPT_SIZE, .field = offsetof(toy, size), .min = 0, .max = 1L << 40,
     .def = "64", .arg = "BYTES", .help = "message size"},
    {.name = "rate", .kind = OPT_DOUBLE, .field = offsetof(toy, rate), .min = 0, .max = 1,
     .arg = "R", .help = "a fraction\nof something", .alias = "ratio"},
    {.name = "dims", .kind = OPT_LIST, .field = offsetof(toy, dims),
     .count_field = offsetof(toy, ndims), .cap = 8, .min = 1, .max = 16, .def = "1..4",
     .arg = "LIST", .help = "dimensions"},
    {.name = "color", .kind = OPT_ENUM, .field = offsetof(toy, color),
     .choices = (const char *const[]){"red", "green", "blue", NULL}, .def = "green",
     .arg = "C", .help = "a colour"},
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(toy, out),
     .arg = "FILE", .help = "where ('-': standard output)"},
    {.name = "name", .kind = OPT_STRING, .field = offsetof(toy, name), .arg = "S",
     .help = "a name", .repeat = 1},
    {.name = "odd", .kind = OPT_CUSTOM, .field = offsetof(toy, odd), .parse = parse_odd,
     .arg = "K", .help = "an odd number", .bad = "4"},
};
static const opt_conflict conflicts[] = {{"odd", "color", "odd things have no colour"}};
static const opt_program prog = {
    .name = "toy", .synopsis = "Usage: toy [OPTIONS] [FILE]\n", .epilog = "\nThe end.\n",
    .specs = specs, .nspecs = sizeof specs / sizeof specs[0], .conflicts = conflicts,
    .nconflicts = 1, .args_min = 0, .args_max = 1,
};

/* Runs opt_parse on the NULL-terminated words with stderr captured. */
static int parse(toy *t, opt_state *st, char *err, size_t errlen, ...)
{
    char *argv[32] = {"toy"};
    int argc = 1;
    va_list ap;
    va_start(ap, errlen);
    for (char *w; argc < 31 && (w = va_arg(ap, char *)) != NULL;)
        argv[argc++] = w;
    va_end(ap);
    fflush(stderr);
    FILE *cap = tmpfile();
    int saved = dup(2);
    dup2(fileno(cap), 2);
    memset(t, 0, sizeof *t);
    int rc = opt_parse(&prog, argc, argv, t, st);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    size_t n = fread(err, 1, errlen - 1, cap);
    err[n] = '\0';
    fclose(cap);
    return rc;
}

Test(opt, values_defaults_and_permutation)
{
    toy t;
    opt_state st;
    char err[512];
    int rc = parse(&t, &st, err, sizeof err, "file.txt", "--nodes", "1e6", "-q", "--ratio=0.25",
                   "--dims", "2,4", "--color", "blue", "-o", "-", NULL);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_eq(t.nodes, 1000000);
    cr_assert_eq(t.size, 64, "default applied");
    cr_assert_eq(t.quiet, 1);
    cr_assert_float_eq(t.rate, 0.25, 0);
    cr_assert_eq(t.ndims, 2);
    cr_assert_eq(t.dims[1], 4);
    cr_assert_eq(t.color, 2);
    cr_assert(opt_is_stdio(t.out));
    cr_assert_eq(st.nargs, 1, "the argument before the options is kept (GNU permutation)");
    cr_assert(opt_given(&st, "nodes") && opt_given(&st, "rate") && !opt_given(&st, "size"));
    cr_assert(opt_field_given(&st, offsetof(toy, dims)));
    cr_assert(!opt_field_given(&st, offsetof(toy, size)));
    cr_assert_str_eq(opt_text(&st, "nodes"), "--nodes '1e6'");
    cr_assert_eq(parse(&t, &st, err, sizeof err, "--odd", "7", NULL), 0, "%s", err);
    cr_assert_eq(t.odd, 7);
}

Test(opt, usage_errors_name_the_option_and_end_with_try_help)
{
    static const char *const cases[][5] = {   /* the words, then the message */
        {"--nodes", "1", "--nodes '1': out of range, expected 2..1e15"},
        {"--nodes", "5", "--nodes", "6", "--nodes '6' given twice (--nodes '5' and --nodes '6'): give it once"},
        {"-q", "-q", "--quiet given twice"},
        {"--color", "pink", "--color 'pink': unknown value, expected red, green or blue"},
        {"--odd", "4", "--odd '4': not odd"},
        {"--frob", "unrecognized option '--frob'"},
        {"--quiet=1", "--quiet takes no value"},
        {"--nodes", "--nodes: needs a value"},
        {"--color", "red", "--odd", "3", "--color 'red' conflicts with --odd '3'"},
        {"a", "b", "'b': unexpected argument"},
        {"--rate", "1.5", "--rate '1.5': out of range, expected 0..1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        toy t;
        opt_state st;
        char err[512];
        int n = 0;
        while (n < 4 && cases[i][n + 1])
            n++;
        const char *w[4] = {NULL, NULL, NULL, NULL}, *want = cases[i][n];
        for (int k = 0; k < n; k++)
            w[k] = cases[i][k];
        int rc = parse(&t, &st, err, sizeof err, w[0], w[1], w[2], w[3], NULL);
        cr_expect_eq(rc, 2, "case %zu: status %d", i, rc);
        cr_expect_not_null(strstr(err, want), "case %zu: want '%s' in '%s'", i, want, err);
        cr_expect_not_null(strstr(err, " (try --help)\n"), "case %zu: '%s'", i, err);
        cr_expect_eq(strncmp(err, "toy: ", 5), 0, "%s", err);
        cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: '%s'", err);
    }
    /* a repeatable option may come twice; --rate is given by its alias too */
    toy t;
    opt_state st;
    char err[512];
    cr_assert_eq(parse(&t, &st, err, sizeof err, "--name", "a", "--name", "b", NULL), 0, "%s", err);
    cr_assert_str_eq(t.name, "b");
    cr_assert_eq(parse(&t, &st, err, sizeof err, "--rate", "0.5", "--ratio", "0.5", NULL), 2);
}

Test(opt, every_bad_case_is_refused_with_its_option_named)
{
    opt_bad_case bad[64];
    int n = opt_bad_cases(&prog, bad, 64);
    cr_assert_eq(n, 4 * 7 + 2, "4 numeric options x 7 values, the enum and the custom one: %d", n);
    for (int i = 0; i < n; i++) {
        toy t;
        opt_state st;
        char err[512], opt[80], want[200];
        snprintf(opt, sizeof opt, "--%s", bad[i].name);
        snprintf(want, sizeof want, "--%s '%s'", bad[i].name, bad[i].value);
        int rc = parse(&t, &st, err, sizeof err, opt, bad[i].value, NULL);
        cr_expect_eq(rc, 2, "%s '%s' (%s): status %d", opt, bad[i].value, bad[i].why, rc);
        cr_expect_not_null(strstr(err, want), "%s (%s): '%s'", want, bad[i].why, err);
    }
}

Test(opt, help_is_made_from_the_table_and_version_names_the_program)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    opt_print_help(&prog, fp);
    fclose(fp);
    const char *head = "Usage: toy [OPTIONS] [FILE]\n\nThings:\n";
    cr_assert_eq(strncmp(buf, head, strlen(head)), 0, "%s", buf);
    cr_assert_not_null(strstr(buf, "  -q, --quiet         say less\n"), "%s", buf);
    cr_assert_not_null(strstr(buf, "  --nodes N           system size (default 1000)\n"), "%s", buf);
    cr_assert_not_null(strstr(buf, "  --rate R            a fraction\n"
                                   "                      of something\n"), "%s", buf);
    cr_assert_not_null(strstr(buf, "  -h, --help          this text\n"), "%s", buf);
    cr_assert_not_null(strstr(buf, "  --version"), "%s", buf);
    cr_assert_not_null(strstr(buf, "\nThe end.\n"), "%s", buf);
    free(buf);
    fp = open_memstream(&buf, &len);
    opt_print_version(&prog, fp);
    fclose(fp);
    cr_assert_eq(strncmp(buf, "toy (scitorus) ", 15), 0, "%s", buf);
    cr_assert_gt(strlen(buf), 16);
    free(buf);
}
