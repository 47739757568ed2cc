/* opt: a program's options as one table, and everything the command line
 * needs made from it -- getopt_long's table, GNU argument permutation,
 * --help, --version, checked values with one-line messages naming the
 * option, an option given twice refused, conflicting pairs refused, every
 * usage error ending in "(try --help)", and the bad values a test tries.
 *
 * How to convert a program:
 *   1. Give its options struct a field per option (int for flags and
 *      choices, long, double, const char * for text and paths, long[] plus
 *      a size_t count for lists).
 *   2. Write one opt_spec per option, in --help order, with designated
 *      initializers (an OPT_HEADING entry prints a section title):
 *        {.name = "nodes", .kind = OPT_LONG, .field = offsetof(my_opts, nodes),
 *         .min = 2, .max = 1e15, .range = "2..1e15", .def = "1000", .arg = "N",
 *         .help = "system size"},
 *      .def is parsed into the field before the command line (and shown in
 *      --help as "(default ...)"); .range words the range in messages.
 *      Choices: OPT_ENUM with .choices = (const char *const[]){"a", "b", NULL};
 *      the field gets the index.  Anything else: OPT_CUSTOM with .parse.
 *   3. Put the table in an opt_program with the synopsis (the lines before
 *      the options), the epilog (after them) and the conflicting pairs, then
 *      call opt_parse(&prog, argc, argv, &opts, &st) and return its status
 *      when it is not 0 (OPT_DONE: --help or --version printed, exit 0).
 *   4. Presets and params files are applied after opt_parse, and fill only
 *      the fields the user did not give (opt_given, opt_field_given): an
 *      explicit option wins whatever the order.
 *   5. Tests: opt_bad_cases lists, for every option, values it must refuse
 *      (below and above the range, not a number, an unknown choice), so a
 *      bad-input test runs the program on each instead of copying ranges;
 *      with OPT_BAD_CASES_ENV set, opt_parse prints them (name, value, why,
 *      tab-separated lines) and returns OPT_DONE, so a test asks the
 *      program itself, not a copy of its table.
 * Paths: "-" means the standard stream (opt_is_stdio).
 * Programs whose options vary at run time (a pattern's or a backend's)
 * give specs a .scope mask, compose the spec array before opt_parse, and
 * check opt_check_scope once the scope is known; a copy of the program
 * sets .context (messages about a command read back from a file) and
 * .quiet (an MPI rank that must not print). */
#ifndef SCITORUS_OPT_H
#define SCITORUS_OPT_H

#include <stddef.h>
#include <stdio.h>

#include "util/exit.h"

typedef enum opt_kind {
    OPT_HEADING,  /* not an option: .help is a section title in --help */
    OPT_FLAG,     /* no argument; the int field becomes 1 */
    OPT_LONG,     /* an integer in [min, max] ("1e6" allowed, fractions not) */
    OPT_DOUBLE,   /* a finite number in [min, max] */
    OPT_SIZE,     /* a byte count in [min, max] (a long) */
    OPT_LIST,     /* "1,2,4" or "1..4": longs in [min, max] into long[cap], count */
    OPT_RANGE,    /* as OPT_LIST, but "a..b" doubles and "a..b:s" steps by s */
    OPT_ENUM,     /* one of .choices; the int field gets its index */
    OPT_STRING,   /* any non-empty text (a const char * field) */
    OPT_PATH,     /* a file name, "-" the standard stream (a const char * field) */
    OPT_STRINGS,  /* repeatable text: const char *[cap] and a size_t count */
    OPT_CUSTOM,   /* .parse(dest, arg, why, len) does the work */
} opt_kind;

typedef struct opt_spec {
    const char *name;        /* long name without "--" */
    int short_name;          /* 'o' for -o, or 0 */
    opt_kind kind;
    size_t field;            /* offsetof the destination in the options struct */
    size_t count_field;      /* OPT_LIST, OPT_RANGE: offsetof a size_t count */
    size_t cap;              /* OPT_LIST, OPT_RANGE: room in the long array */
    double min, max;         /* numeric kinds (both 0: no limit) */
    const char *range;       /* the range in messages, e.g. "2..1e15" */
    const char *const *choices;   /* OPT_ENUM: NULL-terminated names */
    const char *def;         /* default, parsed before the command line */
    const char *arg;         /* the argument's name in --help ("N", "FILE") */
    const char *help;        /* --help text; '\n' starts a continuation line */
    /* OPT_CUSTOM: parses arg into dest (the whole options struct); returns
     * 0, or nonzero with why (len bytes) saying what is wrong */
    int (*parse)(void *dest, const char *arg, char *why, size_t len);
    const char *alias;       /* a second long name it answers to, or NULL */
    int repeat;              /* 1: may be given more than once */
    const char *bad;         /* OPT_CUSTOM/OPT_STRING: a value it refuses, for tests */
    unsigned scope;          /* where it applies (a program's bits); 0: everywhere */
} opt_spec;

/* Two options that cannot go together, and why (named in the message). */
typedef struct opt_conflict {
    const char *a, *b, *why;
} opt_conflict;

typedef struct opt_program {
    const char *name;             /* "scimodel" */
    const char *synopsis;         /* --help before the options ("Usage: ...") */
    const char *epilog;           /* --help after them (exit status, examples) */
    void (*more_help)(FILE *fp);  /* optional: printed between the two */
    const opt_spec *specs;
    int nspecs;
    const opt_conflict *conflicts;
    int nconflicts;
    int args_min, args_max;       /* positional arguments allowed */
    int stop_at_args;             /* 1: options end at the first argument (a
                                     command line to run follows) */
    const char *context;          /* "FILE:LINE: recorded command": put after
                                     "prog: " in every message, or NULL */
    int quiet;                    /* 1: print nothing (no message, no --help);
                                     statuses unchanged */
    unsigned scope;               /* --help lists specs with a bit of it; 0: all */
    int defer_help;               /* 1: --help is seen to the end of the line and
                                     returned as OPT_HELP, printed by the caller
                                     (its scope known only then, e.g. a pattern) */
} opt_program;

#define OPT_MAX 64
#define OPT_DONE (-1)   /* opt_parse printed --help or --version: exit 0 */
#define OPT_HELP (-2)   /* .defer_help: --help given, the caller prints it */

/* What the command line held: for each spec, what the user wrote ("" for a
 * flag), or NULL when not given; and where the positional arguments are. */
typedef struct opt_state {
    const opt_program *prog;
    const char *value[OPT_MAX];
    char text[OPT_MAX][128];      /* "--nodes '5'", for messages */
    int first_arg, nargs;         /* argv[first_arg .. first_arg + nargs - 1] */
} opt_state;

/* Applies the defaults, then parses argv into dest.  Returns 0, OPT_DONE,
 * OPT_HELP (.defer_help), or EXIT_USAGE after a one-line message ending in "(try --help)". */
int opt_parse(const opt_program *p, int argc, char **argv, void *dest, opt_state *st);

/* 1 when the option (long name) / the option writing that field was given. */
int opt_given(const opt_state *st, const char *name);
int opt_field_given(const opt_state *st, size_t field);
/* "--nodes '5'" as the user wrote it (or "--name" when not given). */
const char *opt_text(const opt_state *st, const char *name);

/* "prog: <message> (try --help)" on stderr; returns EXIT_USAGE. */
int opt_usage_error(const opt_program *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Refuses the first given option whose .scope has no bit of scope:
 * "--x: not an option of WHAT".  Returns 0 or EXIT_USAGE. */
int opt_check_scope(const opt_state *st, unsigned scope, const char *what);

void opt_print_help(const opt_program *p, FILE *fp);
/* Only the option lines (and headings) of --help. */
void opt_print_options(const opt_program *p, FILE *fp);
/* "PROG (scitorus) VERSION" (VERSION: `git describe` at build time). */
void opt_print_version(const opt_program *p, FILE *fp);
const char *opt_version(void);

/* 1 when path names the standard stream ("-"). */
int opt_is_stdio(const char *path);

/* One value an option must refuse, for tests. */
typedef struct opt_bad_case {
    const char *name;     /* long name */
    char value[64];
    const char *why;      /* "below the range", "not a number", ... */
} opt_bad_case;
/* Fills out (room for cap) with every option's refused values; returns
 * how many. */
int opt_bad_cases(const opt_program *p, opt_bad_case *out, int cap);
/* The environment variable that makes opt_parse list them instead. */
#define OPT_BAD_CASES_ENV "SCITORUS_OPT_BAD_CASES"

#endif
