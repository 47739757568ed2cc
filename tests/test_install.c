/* Tests for `make install` / `make uninstall` into a temporary PREFIX:
 * every program, its man page (help2man from --help, with the program's
 * name and options), the gnuplot scripts, libscitrace.so when libscitrace/
 * builds it; the installed programs run; uninstall leaves nothing. */
#include <sys/stat.h>

#include "tests/runcmd.h"

static int is_file(const char *dir, const char *rel)
{
    char path[800];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static char *slurp_path(const char *dir, const char *rel)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *fp = fopen(path, "r");
    cr_assert_not_null(fp, "%s", path);
    char *s = run_slurp(fp);
    fclose(fp);
    return s;
}

Test(install, install_and_uninstall_into_a_temporary_prefix, .timeout = 300)
{
    const char *root = getenv("SCITORUS_ROOT");
    char prefix[] = "/tmp/scitorus-prefix-XXXXXX", arg[100], bin[200];
    cr_assert_not_null(root, "SCITORUS_ROOT (set by make check)");
    run_tmpdir_make(prefix);
    snprintf(arg, sizeof arg, "PREFIX=%s", prefix);
    run_result r = run_cmd("/usr/bin/make", 280, "-s", "--no-print-directory", "-C", root,
                           "install", arg, NULL);
    cr_assert_eq(r.status, 0, "make install: %s %s", r.out, r.err);
    run_free(&r);

    static const char *const progs[] = {"scibench", "mpibench", "calibrate", "scimodel"};
    for (int i = 0; i < 4; i++) {
        char rel[100];
        snprintf(rel, sizeof rel, "bin/%s", progs[i]);
        cr_assert(is_file(prefix, rel), "%s not installed", rel);
        snprintf(rel, sizeof rel, "share/man/man1/%s.1", progs[i]);
        cr_assert(is_file(prefix, rel), "%s not installed", rel);
        char *man = slurp_path(prefix, rel);
        char th[100];
        snprintf(th, sizeof th, ".TH %c", progs[i][0] - 'a' + 'A');   /* .TH SCIMODEL */
        cr_assert_not_null(strstr(man, th), "%s: %.200s", rel, man);
        cr_assert_not_null(strstr(man, ".SH NAME"), "%s", rel);
        cr_assert_not_null(strstr(man, "\\-\\-help"), "%s: options missing", rel);
        cr_assert_null(strstr(man, "??"), "%s: characters lost", rel);
        free(man);
    }
    char *man = slurp_path(prefix, "share/man/man1/scimodel.1");
    cr_assert_not_null(strstr(man, "\\-\\-traffic"));
    free(man);
    cr_assert(is_file(prefix, "share/scitorus/plots/crossover.gp"));
    cr_assert(is_file(prefix, "share/scitorus/plots/plots.sh"));
    /* the tracer is part of every build: its absence is a failure, not a
     * reason to check less */
    cr_assert(is_file(root, "libscitrace/module.mk"), "%s/libscitrace/module.mk missing", root);
    cr_assert(is_file(prefix, "lib/libscitrace.so"));
    cr_assert(is_file(prefix, "share/scitorus/trace/heatmap.gp"));
    cr_assert(is_file(prefix, "share/scitorus/trace/plot.sh"));
    cr_assert(is_file(prefix, "share/scitorus/trace/timeline.gp"));
    cr_assert(is_file(prefix, "share/scitorus/trace/timeline.sh"));
    cr_assert(is_file(prefix, "bin/scitrace"));
    cr_assert(is_file(prefix, "share/man/man1/scitrace.1"));
    cr_assert(!is_file(prefix, "bin/bench-model"), "make bench helpers are not installed");
    cr_assert(!is_file(prefix, "bin/halo3d"), "examples go to share/scitorus/examples");
    cr_assert(is_file(prefix, "share/scitorus/examples/halo3d"));
    cr_assert(is_file(prefix, "share/doc/scitorus/model.md"), "the docs the man pages cite");
    /* a traced program's phase call: the installed header compiles, and
     * without the preloaded library the weak symbol is NULL */
    cr_assert(is_file(prefix, "include/scitrace.h"));
    char cc[900];
    snprintf(cc, sizeof cc,
             "printf '#include <scitrace.h>\\nint main(void) { return scitrace_phase != 0; }\\n' |"
             " cc -I'%s/include' -x c - -o '%s/phase' && '%s/phase' && rm -f '%s/phase'",
             prefix, prefix, prefix, prefix);
    cr_assert_eq(system(cc), 0, "%s", cc);

    /* the installed figures draw, LogP samples included (no repository) */
    char script[400], outdir[300];
    snprintf(script, sizeof script, "%s/share/scitorus/plots/plots.sh", prefix);
    snprintf(outdir, sizeof outdir, "%s/figures", prefix);
    snprintf(bin, sizeof bin, "%s/bin/scimodel", prefix);
    r = run_cmd(script, 120, outdir, bin, NULL);
    cr_assert_eq(r.status, 0, "installed plots.sh: %s", r.err);
    cr_assert_not_null(strstr(r.out, "/logp.png"), "%s", r.out);
    run_free(&r);
    snprintf(script, sizeof script, "rm -rf '%s'", outdir);
    cr_assert_eq(system(script), 0);

    /* the installed program runs */
    snprintf(bin, sizeof bin, "%s/bin/scimodel", prefix);
    r = run_cmd(bin, 30, "--preset", "enhanced", "--crossover", "--metric", "avg", "--format",
                "tsv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_not_null(strstr(r.out, "avg\t1\t2\t8.2090\tcrossover\n"), "%s", r.out);
    run_free(&r);

    r = run_cmd("/usr/bin/make", 120, "-s", "--no-print-directory", "-C", root, "uninstall", arg,
                NULL);
    cr_assert_eq(r.status, 0, "make uninstall: %s", r.err);
    run_free(&r);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test -z \"$(find '%s' -type f)\"", prefix);
    cr_assert_eq(system(cmd), 0, "files left after make uninstall");
    run_tmpdir_remove(prefix);
}
