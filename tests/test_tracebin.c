/* Tests for the binary rank files libscitrace.so writes (trace/tracebin.h):
 * a file cut at any byte, or as a SIGKILL leaves it at any byte, reads as
 * a prefix of the whole file's calls that loses at most the record being
 * written; `scitrace dump` gives a text
 * file that every reader takes as it takes the binary one; a damaged record
 * is named by its byte offset.  The files come from real traced runs. */
#include <sys/stat.h>

#include "tests/runcmd.h"
#include "trace/tracebin.h"
#include "trace/tracefile.h"
#include "trace/tracekinds.h"

TestSuite(tracebin, .timeout = 240);

#define MPIRUN "mpirun", "--allow-run-as-root", "--oversubscribe"

static void trace_app(const char *dir, const char *np, const char *mode, const char *arg)
{
    run_result r = run_cmd(run_prog("scitrace", 0), 120, "run", "-d", dir, "--",
                           "/usr/bin/timeout", "100", MPIRUN, "-np", np, "bin/test/trace_app",
                           mode, arg, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
}

static char *slurp(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "%s", path);
    fseek(fp, 0, SEEK_END);
    *size = (size_t)ftell(fp);
    rewind(fp);
    char *b = malloc(*size + 1);
    cr_assert_eq(fread(b, 1, *size, fp), *size);
    fclose(fp);
    return b;
}

static void spill(const char *path, const char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(b, 1, n, fp), n);
    cr_assert_eq(fclose(fp), 0);
}

/* Call i of a equals call i of b: entry always, return when a's returned. */
static void assert_call_eq(const trace_rank *a, const trace_rank *b, size_t i, const char *what)
{
    const trace_call *x = &a->calls[i], *y = &b->calls[i];
    cr_assert(x->kind == y->kind && x->phase == y->phase && x->comm == y->comm &&
              x->peer == y->peer && x->tag == y->tag && x->bytes == y->bytes &&
              x->t_in == y->t_in && x->addr == y->addr && x->nlist == y->nlist &&
              x->peer2 == y->peer2 && x->tag2 == y->tag2 && x->bytes2 == y->bytes2,
              "%s: call %zu's entry differs", what, i);
    for (size_t j = 0; j < x->nlist; j++)
        cr_assert_eq(a->ids[x->list + j], b->ids[y->list + j], "%s: call %zu, id %zu", what, i, j);
    if (!x->done)
        return;
    cr_assert(y->done && x->t_out == y->t_out && x->made == y->made && x->r_src == y->r_src &&
              x->r_tag == y->r_tag && x->r_bytes == y->r_bytes && x->flag == y->flag &&
              x->ncomp == y->ncomp, "%s: call %zu's return differs", what, i);
    for (size_t j = 0; j < x->ncomp; j++) {
        const trace_completion *p = &a->comps[x->comp + j], *q = &b->comps[y->comp + j];
        cr_assert(p->index == q->index && p->src == q->src && p->tag == q->tag &&
                  p->bytes == q->bytes, "%s: call %zu, completion %zu", what, i, j);
    }
}

static size_t done_calls(const trace_rank *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ncalls; i++)
        n += r->calls[i].done != 0;
    return n;
}

/* Bytes of the record at off (the framing of trace/tracebin.h). */
static size_t record_size(const char *b, size_t off)
{
    tracebin_head h;
    memcpy(&h, b + off, sizeof h);
    if (b[off] == TRACEBIN_TEXT)
        return (size_t)tracebin_size(h.n);
    if (b[off] == TRACEBIN_DEF || b[off] == TRACEBIN_RES)
        return (size_t)tracebin_size((uint64_t)h.n * 8);
    return b[off] == TRACEBIN_SCALE ? sizeof(tracebin_scale) : 16;
}

static void read_ok(const char *path, trace_rank *r, const char *what, size_t k)
{
    trace_error err;
    cr_assert_eq(trace_rank_read(path, r, &err), 0, "%s at %zu: %s", what, k, err.msg);
}

/* Cuts of rank file `path`, each read as a prefix of the whole file's
 * calls: truncated at any byte (a machine that stopped), or as a SIGKILL
 * leaves it, the record being written without its type byte (written last)
 * and zeros after it in the mapped window: then it reads as the file cut
 * before that record.  A call's return being recorded (its '<' not yet
 * written) leaves it entered, not returned. */
static void cut_everywhere(const char *path, const char *scratch)
{
    size_t size;
    char *whole = slurp(path, &size);
    trace_rank full;
    read_ok(path, &full, "the whole file", size);
    cr_assert_gt(full.ncalls, 15);
    char *kill = malloc(size);
    size_t last_calls = 0, last_done = 0, header = 0;
    for (size_t off = TRACEBIN_MAGIC_LEN; off < size; off += record_size(whole, off)) {
        cr_assert_neq(whole[off], 0, "a record of type 0 at %zu", off);
        if (whole[off] == TRACEBIN_TEXT && strncmp(whole + off + 8, "status ", 7) == 0)
            break;   /* the closing records go out in one write */
        trace_rank before;
        spill(scratch, whole, off);
        trace_error err;
        if (trace_rank_read(scratch, &before, &err) != 0) {   /* the header is not whole yet */
            cr_assert_eq(header, 0, "cut at %zu: %s", off, err.msg);
            continue;
        }
        header = header ? header : off;
        for (size_t i = 0; i < before.ncalls; i++)
            assert_call_eq(&before, &full, i, "a cut file");
        size_t d = done_calls(&before);
        cr_assert(before.ncalls >= last_calls && before.ncalls <= last_calls + 1 &&
                  d >= last_done && d <= last_done + 1 && before.ended_early,
                  "cut at %zu: %zu calls (%zu returned) after %zu (%zu)", off, before.ncalls, d,
                  last_calls, last_done);
        last_calls = before.ncalls, last_done = d;
        size_t end = off + record_size(whole, off);
        for (size_t k = off + 1; k <= end && k <= size; k++) {
            trace_rank cut, killed;
            spill(scratch, whole, k);
            read_ok(scratch, &cut, "truncated", k);
            cr_assert(cut.ncalls == before.ncalls || (k == end && cut.ncalls == before.ncalls + 1),
                      "truncated at %zu", k);
            for (size_t i = 0; i < cut.ncalls; i++)
                assert_call_eq(&cut, &full, i, "a truncated file");
            memcpy(kill, whole, k);
            memset(kill + k, 0, size - k);
            if (k < end)
                kill[off] = 0;
            spill(scratch, kill, size);
            read_ok(scratch, &killed, "killed", k);
            cr_assert_eq(killed.ncalls, cut.ncalls, "killed at %zu", k);
            cr_assert_eq(done_calls(&killed), done_calls(&cut), "killed at %zu", k);
            trace_rank_free(&killed), trace_rank_free(&cut);
        }
        if (whole[off] == TRACEBIN_DONE) {   /* killed while its return was being recorded */
            trace_rank open;
            memcpy(kill, whole, end);
            memset(kill + end, 0, size - end);
            kill[off] = TRACEBIN_CALL;
            spill(scratch, kill, size);
            read_ok(scratch, &open, "a return not recorded", off);
            cr_assert_eq(open.ncalls, before.ncalls + 1);
            cr_assert(!open.calls[open.ncalls - 1].done);
            assert_call_eq(&open, &full, open.ncalls - 1, "a call not returned");
            trace_rank_free(&open);
        }
        trace_rank_free(&before);
    }
    cr_assert_neq(header, 0);
    trace_rank_free(&full);
    free(whole), free(kill);
}

/* trace_app mix: split communicators, Sendrecv, persistent requests,
 * Waitall, collectives, on 2 ranks. */
Test(tracebin, a_cut_anywhere_loses_at_most_the_record_being_written)
{
    char dir[] = "/tmp/scitorus-tracebin-XXXXXX", path[600], scratch[600];
    run_tmpdir_make(dir);
    trace_app(dir, "2", "mix", NULL);
    snprintf(path, sizeof path, "%s/rank-00001.trace", dir);
    snprintf(scratch, sizeof scratch, "%s/cut.trace", dir);
    char magic[TRACEBIN_MAGIC_LEN];
    FILE *fp = fopen(path, "rb");
    cr_assert_eq(fread(magic, 1, sizeof magic, fp), sizeof magic);
    fclose(fp);
    cr_assert_eq(memcmp(magic, TRACEBIN_MAGIC, sizeof magic), 0, "the library writes binary");
    cut_everywhere(path, scratch);
    run_tmpdir_remove(dir);
}

/* `scitrace dump` of every rank file, into a second directory: the same
 * calls read from it, and the same summary, matrix and check verdict. */
Test(tracebin, the_dump_reads_as_the_binary_file_does)
{
    char dir[] = "/tmp/scitorus-tracebin-XXXXXX", bin[600], txt[600], a[700], b[700];
    run_tmpdir_make(dir);
    snprintf(bin, sizeof bin, "%s/bin", dir);
    snprintf(txt, sizeof txt, "%s/txt", dir);
    cr_assert_eq(mkdir(txt, 0777), 0);
    trace_app(bin, "4", "mix", NULL);
    for (int k = 0; k < 4; k++) {
        snprintf(a, sizeof a, "%s/rank-%05d.trace", bin, k);
        snprintf(b, sizeof b, "%s/rank-%05d.trace", txt, k);
        run_result r = run_cmd(run_prog("scitrace", 0), 30, "dump", "-o", b, a, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        size_t n;
        char *text = slurp(b, &n);
        cr_assert_eq(strncmp(text, "# scitrace-rank 2\n", 18), 0, "%.40s", text);
        cr_assert_not_null(strstr(text, "\nstatus finalized\nend "));
        free(text);
        trace_rank x, y;
        trace_error err;
        cr_assert_eq(trace_rank_read(a, &x, &err), 0, "%s", err.msg);
        cr_assert_eq(trace_rank_read(b, &y, &err), 0, "%s", err.msg);
        cr_assert(x.ncalls == y.ncalls && x.ncomms == y.ncomms && x.nphases == y.nphases &&
                  x.nmaps == y.nmaps && !strcmp(x.run, y.run) && !strcmp(x.status, y.status));
        for (size_t i = 0; i < x.ncalls; i++)
            assert_call_eq(&x, &y, i, "the dump");
        trace_rank_free(&x), trace_rank_free(&y);
    }
    const char *modes[][2] = {{"summary", NULL}, {"check", NULL}, {"matrix", "-"}};
    for (int m = 0; m < 3; m++) {
        run_result r1 = modes[m][1]
            ? run_cmd(run_prog("scitrace", 0), 30, modes[m][0], "-o", "-", bin, NULL)
            : run_cmd(run_prog("scitrace", 0), 30, modes[m][0], bin, NULL);
        run_result r2 = modes[m][1]
            ? run_cmd(run_prog("scitrace", 0), 30, modes[m][0], "-o", "-", txt, NULL)
            : run_cmd(run_prog("scitrace", 0), 30, modes[m][0], txt, NULL);
        cr_assert_eq(r1.status, r2.status, "%s: %s%s", modes[m][0], r1.err, r2.err);
        /* the directory's name is in the first line */
        const char *o1 = strchr(r1.out, '\n'), *o2 = strchr(r2.out, '\n');
        cr_assert(o1 && o2);
        cr_assert_str_eq(o1, o2, "%s", modes[m][0]);
        run_free(&r1), run_free(&r2);
    }
    run_tmpdir_remove(dir);
}

/* A record of an unknown type: the reader and dump name the byte. */
Test(tracebin, a_damaged_record_is_named_by_its_offset)
{
    char dir[] = "/tmp/scitorus-tracebin-XXXXXX", path[600];
    run_tmpdir_make(dir);
    trace_app(dir, "2", "mix", NULL);
    snprintf(path, sizeof path, "%s/rank-00000.trace", dir);
    size_t size;
    char *b = slurp(path, &size), *call = NULL;
    for (size_t off = TRACEBIN_MAGIC_LEN; off + 16 <= size && !call;) {   /* the first call record */
        if (b[off] == TRACEBIN_CALL || b[off] == TRACEBIN_DONE)
            call = b + off;
        else
            off += record_size(b, off);
    }
    cr_assert_not_null(call);
    *call = 'Z';
    spill(path, b, size);
    char where[64];
    snprintf(where, sizeof where, "record at byte %zu", (size_t)(call - b));
    run_result r = run_cmd(run_prog("scitrace", 0), 30, "summary", dir, NULL);
    run_assert_error(&r, 1, where, "an unknown record type");
    run_free(&r);
    r = run_cmd(run_prog("scitrace", 0), 30, "dump", path, NULL);
    run_assert_error(&r, 1, where, "dump of an unknown record type");
    cr_assert_not_null(strstr(r.out, "\nphase 0 main\n"), "the lines before it: %s", r.out);
    run_free(&r);
    free(b);
    run_tmpdir_remove(dir);
}

/* The datatype fields travel in the binary records: trace_app mix's
 * Sendrecv moves 25 MPI_INT each way (tests/trace_app.c). */
Test(tracebin, count_datatype_and_contiguity_are_recorded)
{
    char dir[] = "/tmp/scitorus-tracebin-XXXXXX", path[600];
    run_tmpdir_make(dir);
    trace_app(dir, "2", "mix", NULL);
    snprintf(path, sizeof path, "%s/rank-00000.trace", dir);
    trace_rank t;
    trace_error err;
    cr_assert_eq(trace_rank_read(path, &t, &err), 0, "%s", err.msg);
    int found = 0;
    for (size_t i = 0; i < t.ncalls; i++) {
        const trace_call *c = &t.calls[i];
        if (c->kind != TRACE_K_SENDRECV)
            continue;
        found = 1;
        cr_assert(c->count == 25 && c->dtype == (TRACE_DT_SIGNED | sizeof(int)) && c->contig == 1 &&
                  c->count2 == 25 && c->dtype2 == c->dtype,
                  "sendrecv: count %lld code %x contig %d, receive %lld %x", (long long)c->count,
                  c->dtype, c->contig, (long long)c->count2, c->dtype2);
    }
    cr_assert(found, "no sendrecv in %s", path);
    trace_rank_free(&t);
    run_tmpdir_remove(dir);
}

/* Records written by hand: the calls' ticks come out in ns by the S record
 * before them (1.5 ns a tick from tick 100 at 1000 ns), and a later scale
 * that would step back never makes a time fall below the one before it.  A
 * file of version 3, with no S record, reads its ticks as ns. */
static void scaled_lines(int v4, const char *const *want, size_t nwant)
{
    FILE *fp = tmpfile();
    cr_assert_not_null(fp);
    tracebin_scale s1 = {TRACEBIN_SCALE, {0}, 100, 1000, (uint64_t)3 << 31};
    tracebin_scale s2 = {TRACEBIN_SCALE, {0}, 0, 0, (uint64_t)1 << 32};
    tracebin_head d = {TRACEBIN_DEF, 0, 0, 3};
    int64_t words[3] = {TRACE_K_FINALIZE, 0, 0x10};   /* 8 + 24 bytes: no padding */
    tracebin_call c1 = {TRACEBIN_DONE, 0, 0, 200, 40, 0, 0}, c2 = {TRACEBIN_CALL, 0, 0, 10, 0, 0, 0};
    fwrite(v4 ? TRACEBIN_MAGIC : TRACEBIN_MAGIC_V3, 1, TRACEBIN_MAGIC_LEN, fp);
    if (v4)
        fwrite(&s1, sizeof s1, 1, fp);
    fwrite(&d, sizeof d, 1, fp), fwrite(words, sizeof words, 1, fp), fwrite(&c1, sizeof c1, 1, fp);
    if (v4)
        fwrite(&s2, sizeof s2, 1, fp);
    fwrite(&c2, sizeof c2, 1, fp);
    cr_assert_eq(fflush(fp), 0);
    rewind(fp);
    tracebin b;
    cr_assert(tracebin_is(fp), "version %d taken as binary", v4 ? 4 : 3);
    cr_assert_eq(tracebin_open(&b, fp), 0);
    char *buf = NULL;
    size_t cap = 0, i = 0;
    ssize_t n;
    while ((n = tracebin_line(&b, &buf, &cap)) > 0) {
        if (buf[0] != '<' && buf[0] != '>')
            continue;
        cr_assert_lt(i, nwant, "more calls than written: %s", buf);
        cr_assert_eq(strncmp(buf, want[i], strlen(want[i])), 0, "version %d, line %zu: %s (want %s)",
                     v4 ? 4 : 3, i, buf, want[i]);
        i++;
    }
    cr_assert_eq(n, 0, "%s", b.why);
    cr_assert_eq(i, nwant);
    free(buf);
    tracebin_close(&b);
    fclose(fp);
}

Test(tracebin, ticks_are_scaled_by_the_scale_record_before_them)
{
    const char *v4[] = {"> 1150 0 finalize 10\n", "< 1210\n", "> 1210 0 finalize 10\n"};
    const char *v3[] = {"> 200 0 finalize 10\n", "< 240\n", "> 250 0 finalize 10\n"};
    scaled_lines(1, v4, 3);
    scaled_lines(0, v3, 3);
}
