/* The layer graph holds: every layer archive (build/san/lib<l>.a) refers
 * only to symbols of itself, of the layers its <l>_LAYER_USES names in
 * the module.mk files, or of system libraries; those declarations have no
 * cycle; every program declares the layers its layers use; and the tables
 * of docs/ARCHITECTURE.md are those declarations.  The symbols come from
 * nm, an independent reader of the archives. */
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/runcmd.h"

#define MAXL 16
#define MAXP 32
#define MAXSYM 4096

typedef struct layer {
    char name[32];
    char uses[MAXL][32];
    int nuses, has_uses;
} layer;

typedef struct program {
    char name[32];
    char layers[MAXL][32];
    int nlayers;
} program;

static layer L[MAXL];
static int nl;
static program P[MAXP];
static int np;

static int words(const char *s, char out[][32], int max)
{
    int n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *w = strtok_r(buf, " ,\t\n\\", &save); w && n < max;
         w = strtok_r(NULL, " ,\t\n\\", &save))
        snprintf(out[n++], 32, "%s", w);
    return n;
}

static layer *find_layer(const char *name)
{
    for (int i = 0; i < nl; i++)
        if (!strcmp(L[i].name, name))
            return &L[i];
    return NULL;
}

static program *find_program(const char *name)
{
    for (int i = 0; i < np; i++)
        if (!strcmp(P[i].name, name))
            return &P[i];
    return NULL;
}

/* LAYERS += l, l_LAYER_USES := ..., PROGRAMS += p, p_LAYERS := ... */
static void read_module_files(void)
{
    glob_t g;
    char pat[600], line[1024];
    snprintf(pat, sizeof pat, "%s", run_root_path("*/module.mk"));
    cr_assert_eq(glob(pat, 0, NULL, &g), 0, "%s", pat);
    nl = np = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t f = 0; f < g.gl_pathc; f++) {
            FILE *fp = fopen(g.gl_pathv[f], "r");
            cr_assert_not_null(fp);
            while (fgets(line, sizeof line, fp)) {
                char a[64], rest[900] = "";
                if (pass == 0 && sscanf(line, "LAYERS += %63s", a) == 1) {
                    cr_assert_lt(nl, MAXL);
                    snprintf(L[nl++].name, 32, "%.31s", a);
                } else if (pass == 0 && sscanf(line, "PROGRAMS += %63s", a) == 1) {
                    cr_assert_lt(np, MAXP);
                    snprintf(P[np++].name, 32, "%.31s", a);
                } else if (pass == 1 && sscanf(line, "%63[A-Za-z0-9_-] :=%899[^\n]", a, rest) >= 1) {
                    char *u = strstr(a, "_LAYER_USES"), *p = strstr(a, "_LAYERS");
                    if (u && !u[11]) {
                        *u = 0;
                        layer *l = find_layer(a);
                        cr_assert_not_null(l, "%s: uses of an undeclared layer %s", g.gl_pathv[f], a);
                        l->nuses = words(rest, l->uses, MAXL);
                        l->has_uses = 1;
                    } else if (p && !p[7]) {
                        *p = 0;
                        program *q = find_program(a);
                        if (q)
                            q->nlayers = words(rest, q->layers, MAXL);
                    }
                }
            }
            fclose(fp);
        }
    globfree(&g);
}

static int uses(const layer *l, const char *name)
{
    for (int i = 0; i < l->nuses; i++)
        if (!strcmp(l->uses[i], name))
            return 1;
    return 0;
}

/* The defined (def = 1) or undefined symbols of layer l's archive. */
static int symbols(const char *l, int def, char (*out)[96], int max)
{
    char cmd[800], line[512], rel[64];
    snprintf(rel, sizeof rel, "build/san/lib%s.a", l);
    snprintf(cmd, sizeof cmd, "nm %s '%s'", def ? "--defined-only" : "--undefined-only",
             run_root_path(rel));
    FILE *fp = popen(cmd, "r");
    cr_assert_not_null(fp, "%s", cmd);
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        char t[8], s[96];
        if (def && sscanf(line, "%*s %7s %95s", t, s) == 2 && strchr("TDBRCVWG", t[0]) && n < max)
            snprintf(out[n++], 96, "%s", s);
        else if (!def && sscanf(line, " U %95s", s) == 1 && n < max)
            snprintf(out[n++], 96, "%s", s);
    }
    cr_assert_eq(pclose(fp), 0, "%s", cmd);
    cr_assert_lt(n, max);
    return n;
}

static char defs[MAXL][MAXSYM][96], und[MAXSYM][96];
static int ndefs[MAXL];

Test(layers, archives_call_only_the_layers_they_declare, .timeout = 120)
{
    read_module_files();
    cr_assert_geq(nl, 8);
    for (int i = 0; i < nl; i++)
        ndefs[i] = symbols(L[i].name, 1, defs[i], MAXSYM);
    for (int i = 0; i < nl; i++) {
        if (!ndefs[i])
            continue;   /* an empty layer (lib: sources not yet in one) */
        cr_assert(L[i].has_uses, "layer %s declares no %s_LAYER_USES", L[i].name, L[i].name);
        int nu = symbols(L[i].name, 0, und, MAXSYM);
        for (int k = 0; k < nu; k++)
            for (int j = 0; j < nl; j++) {
                if (j == i)
                    continue;
                for (int d = 0; d < ndefs[j]; d++)
                    if (!strcmp(und[k], defs[j][d]))
                        cr_assert(uses(&L[i], L[j].name),
                                  "layer %s calls %s of layer %s, which %s_LAYER_USES does not name",
                                  L[i].name, und[k], L[j].name, L[i].name);
            }
    }
}

/* Depth-first: no layer reaches itself through its uses. */
static int reaches(const layer *from, const char *to, int depth)
{
    cr_assert_lt(depth, MAXL, "a cycle through %s", from->name);
    for (int i = 0; i < from->nuses; i++) {
        const layer *u = find_layer(from->uses[i]);
        cr_assert_not_null(u, "%s uses %s, no layer", from->name, from->uses[i]);
        if (!strcmp(u->name, to) || reaches(u, to, depth + 1))
            return 1;
    }
    return 0;
}

Test(layers, declarations_are_acyclic_and_programs_declare_what_their_layers_use)
{
    read_module_files();
    for (int i = 0; i < nl; i++)
        cr_assert_not(reaches(&L[i], L[i].name, 0), "layer %s uses itself", L[i].name);
    for (int p = 0; p < np; p++)
        for (int k = 0; k < P[p].nlayers; k++) {
            const layer *l = find_layer(P[p].layers[k]);
            cr_assert_not_null(l, "%s links %s, no layer", P[p].name, P[p].layers[k]);
            for (int u = 0; u < l->nuses; u++) {
                int has = 0;
                for (int j = 0; j < P[p].nlayers; j++)
                    has |= !strcmp(P[p].layers[j], l->uses[u]);
                cr_assert(has, "%s links %s but not %s, which %s uses", P[p].name, l->name,
                          l->uses[u], l->name);
            }
        }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The column's words that name layers, sorted into one string. */
static void layer_words(const char *cell, char *out, size_t len)
{
    char w[MAXL][32];
    int n = words(cell, w, MAXL), k = 0;
    const char *keep[MAXL];
    for (int i = 0; i < n; i++)
        if (find_layer(w[i]))
            keep[k++] = w[i];
    qsort(keep, (size_t)k, sizeof *keep, cmp_str);
    out[0] = 0;
    for (int i = 0; i < k; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", keep[i]);
}

static void sorted(char list[][32], int n, char *out, size_t len)
{
    const char *p[MAXL];
    for (int i = 0; i < n; i++)
        p[i] = list[i];
    qsort(p, (size_t)n, sizeof *p, cmp_str);
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", p[i]);
}

/* Rows "| `name`[, `name`] | ... | LAYERS |": the first cell's names and the last cell. */
Test(layers, architecture_tables_are_the_module_files)
{
    read_module_files();
    FILE *fp = fopen(run_root_path("docs/ARCHITECTURE.md"), "r");
    cr_assert_not_null(fp);
    char line[2048];
    int layer_seen[MAXL] = {0}, prog_seen[MAXP] = {0};
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "| `", 3))
            continue;
        char *cells[8];
        int nc = 0;
        for (char *save = NULL, *c = strtok_r(line, "|", &save); c && nc < 8;
             c = strtok_r(NULL, "|", &save))
            cells[nc++] = c;
        cr_assert_geq(nc, 3, "%s", line);
        char got[300], want[300];
        layer_words(cells[nc - 2], got, sizeof got);
        for (char *save = NULL, *t = strtok_r(cells[0], "`, ", &save); t;
             t = strtok_r(NULL, "`, ", &save)) {
            layer *l = find_layer(t);
            program *p = find_program(t);
            if (l) {
                sorted(l->uses, l->nuses, want, sizeof want);
                layer_seen[l - L] = 1;
            } else if (p) {
                sorted(p->layers, p->nlayers, want, sizeof want);
                prog_seen[p - P] = 1;
            } else {
                continue;   /* libscitrace.so, scitestbed: no layer list */
            }
            cr_assert_str_eq(got, want, "docs/ARCHITECTURE.md: %s: '%s', module.mk: '%s'", t,
                             got, want);
        }
    }
    fclose(fp);
    for (int i = 0; i < nl; i++)
        cr_assert(layer_seen[i] || !strcmp(L[i].name, "lib"),
                  "docs/ARCHITECTURE.md: no row for layer %s", L[i].name);
    for (int i = 0; i < np; i++)
        cr_assert(prog_seen[i], "docs/ARCHITECTURE.md: no row for program %s", P[i].name);
}
