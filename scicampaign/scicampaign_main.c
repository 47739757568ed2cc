/* scicampaign: runs a campaign file's measurements into one result set,
 * resuming what an earlier run left unfinished (campaign.h).  The main
 * parses the command line, keeps the campaign beside its results and
 * dispatches. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scicampaign/campaign.h"
#include "util/atomicfile.h"
#include "util/exit.h"
#include "util/fs.h"
#include "util/opt.h"

typedef struct opts {
    const char *output, *bin;
    int list, quiet;
} opts;

static const opt_spec specs[] = {
    {.name = "output", .short_name = 'o', .kind = OPT_PATH, .field = offsetof(opts, output),
     .arg = "DIR", .help = "the result set: DIR/NAME.tsv per measurement, and DIR/campaign.txt,\n"
                           "the campaign it holds (DIR is made if its parent exists)"},
    {.name = "bin", .kind = OPT_PATH, .field = offsetof(opts, bin), .arg = "DIR",
     .help = "where scibench and mpibench are (default: beside scicampaign)"},
    {.name = "list", .kind = OPT_FLAG, .field = offsetof(opts, list),
     .help = "measure nothing: each measurement's state and the command it would run"},
    {.name = "quiet", .short_name = 'q', .kind = OPT_FLAG, .field = offsetof(opts, quiet),
     .help = "no line per measurement started"},
};

static const opt_program prog = {
    .name = "scicampaign",
    .synopsis =
"Usage: scicampaign [OPTIONS] -o DIR CAMPAIGN\n"
"Run the measurements a campaign file names (docs/formats.md, 'Campaign\n"
"file': each [NAME] with its benchmark, scibench or mpibench, and that\n"
"benchmark's options: pattern, sizes, stopping rules, processes) into one\n"
"result set, DIR/NAME.tsv each, in the bench format.  Run again after an\n"
"interruption (Ctrl-C, a kill, a crash) it resumes: a finished file is\n"
"kept, an interrupted one continued with the benchmark's --resume, the rest\n"
"measured.\n"
"\n",
    .epilog =
"\n"
"DIR remembers its campaign (DIR/campaign.txt): another campaign file, or\n"
"this one changed, is refused there.  mpibench runs under mpirun, or the\n"
"Open MPI launcher $MPIRUN names.  Exit status: 0 every measurement\n"
"finished, 1 a campaign file malformed (the message names the file and\n"
"line) or a measurement failed, 2 usage error, 130 stopped (run the same\n"
"command again to resume).\n"
"\n"
"Examples:\n"
"  scicampaign -o results/vm campaign.txt\n"
"  scicampaign --list -o results/vm campaign.txt\n",
    .specs = specs,
    .nspecs = sizeof specs / sizeof specs[0],
    .args_min = 1,
    .args_max = 1,
};

static void self_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(buf, len, ".");
}

/* DIR/campaign.txt: written the first time, else the same text required. */
static int keep_campaign(const char *dir, const char *path, const char *text)
{
    char kept[PATH_MAX];
    snprintf(kept, sizeof kept, "%s/campaign.txt", dir);
    FILE *fp = fopen(kept, "r");
    if (fp) {
        size_t len = strlen(text);
        char *old = malloc(len + 2);
        size_t n = old ? fread(old, 1, len + 1, fp) : 0;
        int same = old && n == len && memcmp(old, text, len) == 0;
        free(old);
        fclose(fp);
        if (!same) {
            fprintf(stderr, "scicampaign: -o '%s' holds the results of another campaign (%s is not"
                            " %s): use another DIR\n", dir, kept, path);
            return EXIT_FAILURE;
        }
        return 0;
    }
    atomic_file af;
    if (atomic_file_open(&af, kept) != 0 || fputs(text, af.fp) < 0 || atomic_file_commit(&af)) {
        fprintf(stderr, "scicampaign: %s: %s\n", kept, file_strerror(errno));
        return EXIT_FAILURE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    fs_check_stdout_at_exit("scicampaign");
    opts o;
    opt_state st;
    int rc = opt_parse(&prog, argc, argv, &o, &st);
    if (rc)
        return rc == OPT_DONE ? 0 : rc;
    if (!o.output || opt_is_stdio(o.output))
        return opt_usage_error(&prog, "-o DIR is required: the result set's directory");
    const char *path = argv[st.first_arg];
    campaign c;
    file_error err;
    if (campaign_read(path, &c, &err) != 0)
        return file_error_report(EXIT_FAILURE, "scicampaign", path, &err);
    char bin[PATH_MAX];
    if (o.bin)
        snprintf(bin, sizeof bin, "%s", o.bin);
    else
        self_dir(bin, sizeof bin);
    struct stat sb;
    if (stat(o.output, &sb) != 0) {
        if (o.list || mkdir(o.output, 0777) != 0) {
            if (!o.list)
                fprintf(stderr, "scicampaign: -o '%s': %s\n", o.output, strerror(errno));
            rc = o.list ? 0 : EXIT_FAILURE;
        }
    } else if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "scicampaign: -o '%s': not a directory\n", o.output);
        rc = EXIT_FAILURE;
    }
    if (rc == 0 && !o.list)
        rc = keep_campaign(o.output, path, c.text);
    campaign_run r = {.dir = o.output, .bin = bin, .list = o.list, .quiet = o.quiet};
    if (rc == 0)
        rc = campaign_run_all(&c, &r);
    campaign_free(&c);
    return rc;
}
