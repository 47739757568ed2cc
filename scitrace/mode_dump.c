/* mode_dump: `scitrace dump [-o OUT] FILE`, a rank file in its text form
 * (trace/tracefile.h): the lines every analyzer reads, for people, for
 * diffs and for test fixtures.  A text rank file is copied as it is. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "util/fs.h"
#include "util/opt.h"
#include "scitrace/modes.h"
#include "trace/tracebin.h"

typedef struct dump_opts {
    const char *out;
} dump_opts;

static const opt_spec dump_specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(dump_opts, out),
     .arg = "OUT", .help = "where to write (temporary name, then renamed; default\nstandard output)"},
};

static const opt_program dump_program = {
    .name = "scitrace",
    .synopsis =
"Usage: scitrace dump [-o OUT] FILE\n"
"Write the rank file FILE (DIR/rank-NNNNN.trace, binary as libscitrace.so\n"
"writes it) as text, one line per header field, communicator, phase, call\n"
"entry and call return (docs/traces.md, 'Trace rank files').  Every\n"
"analyzer reads the text form as it reads the binary one; the line numbers\n"
"of their messages are the lines of this text.  A text rank file is\n"
"written as it is.\n"
"\n",
    .epilog =
"\n"
"Exit status: 0 written, 1 FILE cannot be read or holds a malformed record\n"
"(the lines before it are written to standard output; OUT is not\n"
"written), or OUT cannot be written, 2 usage error.\n",
    .specs = dump_specs,
    .nspecs = sizeof dump_specs / sizeof dump_specs[0],
    .args_min = 1,
    .args_max = 1,
};

/* Copies fp's lines to out; 0, or -1 with the message printed. */
static int copy_lines(FILE *fp, const char *path, FILE *out)
{
    tracebin b;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int binary = tracebin_is(fp), rc = 0;
    if (binary && tracebin_open(&b, fp) != 0) {
        tracebin_close(&b);
        fprintf(stderr, "scitrace: dump: %s: out of memory\n", path);
        return -1;
    }
    if (!binary) {   /* text: as it is */
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
            fwrite(chunk, 1, n, out);
        if (ferror(fp)) {
            fprintf(stderr, "scitrace: dump: %s: %s\n", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    long line = 0;
    while ((len = tracebin_line(&b, &buf, &cap)) > 0) {
        fwrite(buf, 1, (size_t)len, out);
        line++;
    }
    if (len < 0) {
        fprintf(stderr, "scitrace: dump: %s: record at byte %llu (after line %ld): %s\n", path,
                (unsigned long long)b.off, line, b.why);
        rc = -1;
    }
    tracebin_close(&b);
    free(buf);
    return rc;
}

int scitrace_dump(int argc, char **argv)
{
    dump_opts o = {0};
    opt_state st;
    int prc = opt_parse(&dump_program, argc, argv, &o, &st);
    if (prc)
        return prc == OPT_DONE ? 0 : prc;
    const char *in = argv[st.first_arg], *out = o.out ? o.out : "-";
    fs_file fin = {"FILE", in}, fout = {"-o", out};
    if (fs_refuse_same("scitrace", &fin, 1, &fout, 1) ||
        fs_refuse_missing_dir("scitrace", &fout, 1))
        return 1;
    FILE *fp = file_open_input(in);
    if (!fp) {
        fprintf(stderr, "scitrace: dump: cannot read '%s': %s\n", in, file_strerror(errno));
        return 1;
    }
    atomic_file af;
    FILE *dst = stdout;
    if (strcmp(out, "-") != 0) {
        if (atomic_file_open(&af, out) != 0) {
            fprintf(stderr, "scitrace: dump: cannot write '%s': %s\n", out, file_strerror(errno));
            fclose(fp);
            return 1;
        }
        dst = af.fp;
    }
    int bad = copy_lines(fp, in, dst) != 0, rc;
    fclose(fp);
    if (dst == stdout) {   /* its write error, once: "scitrace: standard output: ..." */
        return bad ? 1 : fs_close_stdout("scitrace");
    } else if (bad || ferror(dst)) {
        atomic_file_abort(&af);
        rc = 1;
    } else {
        rc = atomic_file_commit(&af) != 0;
    }
    if (rc && !bad)
        fprintf(stderr, "scitrace: dump: cannot write '%s': %s\n", out, strerror(errno ? errno : EIO));
    return rc;
}
