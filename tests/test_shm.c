/* Tests for the shm backend's channels, driven through bench_backend_shm
 * directly: every message arrives once, in order, with its bytes, through
 * the credit ring (one-way bursts) and through the one-slot inbox
 * (ping-pong); a sender that breaks the one-slot window is reported.
 * The child process cannot use cr_assert; it checks what it received and
 * passes the verdict as its exit status, which the parent's finalize
 * returns. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "bench/backend.h"

TestSuite(shm, .timeout = 60);

static bench_comm *start(int window, size_t max_payload)
{
    static const int cpus[] = {0, 1};
    bench_backend_config cfg = {.procs = 2, .cpus = cpus, .ncpus = 0,
                                .max_payload_bytes = max_payload, .timeout_s = 10,
                                .window = window};
    bench_comm *comm = NULL;
    cr_assert_eq(bench_backend_shm.init(&comm, NULL, NULL, &cfg), 0);
    return comm;
}

/* 1000 messages, far more than a channel's slots (at most 64): the sender
 * waits for credits, and nothing is overwritten or lost. */
Test(shm, one_way_burst_arrives_whole_and_in_order)
{
    enum { N = 1000, LEN = 100 };
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(0, LEN);
    unsigned char buf[LEN];
    if (be->rank(comm) == 1) {
        int bad = 0;
        for (int i = 0; i < N && !bad; i++) {
            bench_msg m;
            memset(buf, 0, sizeof buf);
            bad = be->recv(comm, &m, buf, sizeof buf) != 0 || m.node != i || m.len != LEN;
            for (int j = 0; j < LEN && !bad; j++)
                bad = buf[j] != (unsigned char)(i + j);
        }
        be->finalize(comm, bad);
    }
    for (int i = 0; i < N; i++) {
        bench_msg m = {BENCH_MSG_REQUEST, 0, i, 1, -1, 0, LEN};
        for (int j = 0; j < LEN; j++)
            buf[j] = (unsigned char)(i + j);
        cr_assert_eq(be->send(comm, 1, &m, buf), 0);
    }
    cr_assert_eq(be->finalize(comm, 0), 0, "the receiver found a message missing or wrong");
}

/* Window 1 (a ping-pong): one-slot inboxes, no credits; 10000 round trips,
 * each reply computed from the request it answers. */
Test(shm, ping_pong_through_one_slot_inboxes)
{
    enum { N = 10000 };
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(1, 8);
    uint64_t v;
    bench_msg m;
    if (be->rank(comm) == 1) {
        int rc = 0;
        for (int i = 0; i < N && !rc; i++) {
            if ((rc = be->recv(comm, &m, &v, sizeof v)) == 0) {
                v = v * 3 + 1;
                m.kind = BENCH_MSG_RESPONSE;
                rc = be->send(comm, 0, &m, &v);
            }
        }
        be->finalize(comm, rc != 0);
    }
    for (uint64_t i = 0; i < N; i++) {
        m = (bench_msg){BENCH_MSG_REQUEST, 0, 1, 1, -1, 0, sizeof v};
        v = i;
        cr_assert_eq(be->send(comm, 1, &m, &v), 0);
        cr_assert_eq(be->recv(comm, &m, &v, sizeof v), 0);
        cr_assert_eq(m.kind, BENCH_MSG_RESPONSE);
        cr_assert_eq(v, i * 3 + 1, "round trip %llu", (unsigned long long)i);
    }
    cr_assert_eq(be->finalize(comm, 0), 0);
}

/* Every length a relay copies in its own pieces (the head sharing the
 * header's line, whole lines, power-of-two pieces: backend_shm.c's
 * msg_copy) and around the switch to memcpy: 0..300 bytes, then 4032..4160
 * and 65536, each a round trip through the one-slot inboxes whose reply
 * is the request's bytes reversed.  Every byte arrives, and the receiver's
 * buffer is untouched past the message's length (a guard of 0xee). */
static const size_t copy_lengths_extra[] = {4032, 4095, 4096, 4097, 4159, 4160, 65535, 65536};
#define COPY_LEN_MAX 65536
#define COPY_GUARD 64

static size_t copy_length(int i)
{
    return i <= 300 ? (size_t)i : copy_lengths_extra[i - 301];
}

Test(shm, every_length_arrives_byte_exact_and_nothing_beyond_it)
{
    const int n = 301 + (int)(sizeof copy_lengths_extra / sizeof copy_lengths_extra[0]);
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(1, COPY_LEN_MAX);
    static unsigned char out[COPY_LEN_MAX], in[COPY_LEN_MAX + COPY_GUARD];
    bench_msg m;
    if (be->rank(comm) == 1) {
        int bad = 0;
        for (int i = 0; i < n && !bad; i++) {
            size_t len = copy_length(i);
            memset(in, 0xee, sizeof in);
            bad = be->recv(comm, &m, in, COPY_LEN_MAX) != 0 || (size_t)m.len != len;
            for (size_t j = 0; j < len && !bad; j++)
                bad = in[j] != (unsigned char)(i * 7 + j * 13 + 1);
            for (size_t j = len; j < len + COPY_GUARD && !bad; j++)
                bad = in[j] != 0xee;
            for (size_t j = 0; j < len; j++)
                out[j] = in[len - 1 - j];
            m.kind = BENCH_MSG_RESPONSE;
            bad = bad || be->send(comm, 0, &m, out) != 0;
        }
        be->finalize(comm, bad);
    }
    for (int i = 0; i < n; i++) {
        size_t len = copy_length(i);
        for (size_t j = 0; j < len; j++)
            out[j] = (unsigned char)(i * 7 + j * 13 + 1);
        m = (bench_msg){BENCH_MSG_REQUEST, 0, 1, 1, -1, 0, (int64_t)len};
        cr_assert_eq(be->send(comm, 1, &m, out), 0);
        memset(in, 0xee, sizeof in);
        cr_assert_eq(be->recv(comm, &m, in, COPY_LEN_MAX), 0);
        cr_assert_eq((size_t)m.len, len);
        for (size_t j = 0; j < len; j++)
            cr_assert_eq(in[j], out[len - 1 - j], "length %zu, byte %zu", len, j);
        for (size_t j = len; j < len + COPY_GUARD; j++)
            cr_assert_eq(in[j], 0xee, "length %zu: byte %zu past the end written", len, j);
    }
    cr_assert_eq(be->finalize(comm, 0), 0, "the receiver found a message wrong");
}

/* A sender that sends more into a one-slot inbox than it has places before
 * the receiver read the first (it has far fewer than 1000): the receiver
 * reports the overrun instead of losing a message. */
Test(shm, overrun_of_a_one_slot_inbox_is_reported)
{
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(1, 8);
    uint64_t v = 7;
    bench_msg m = {BENCH_MSG_REQUEST, 0, 1, 1, -1, 0, sizeof v};
    if (be->rank(comm) == 1) {
        be->barrier(comm);   /* all the messages are in by now */
        int rc = be->recv(comm, &m, &v, sizeof v);
        be->finalize(comm, rc != BENCH_ERR_OVERRUN);
    }
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(be->send(comm, 1, &m, &v), 0);
    cr_assert_eq(be->barrier(comm), 0);
    cr_assert_eq(be->finalize(comm, 0), 0, "the receiver did not report the overrun");
}

/* Two messages longer than a place holds, the second sent before the
 * receiver read the first: their bytes beyond the place share one tail, so
 * the first's are gone and the receiver reports the overrun instead of
 * delivering the second's bytes as the first's. */
Test(shm, a_tail_overwritten_before_it_was_read_is_reported)
{
    const bench_backend *be = &bench_backend_shm;
    enum { LEN = 4096 };
    bench_comm *comm = start(1, LEN);
    static unsigned char buf[LEN];
    bench_msg m = {BENCH_MSG_REQUEST, 0, 1, 1, -1, 0, LEN};
    if (be->rank(comm) == 1) {
        be->barrier(comm);   /* both messages are in by now */
        int rc = be->recv(comm, &m, buf, LEN);
        be->finalize(comm, rc != BENCH_ERR_OVERRUN);
    }
    memset(buf, 1, LEN);
    cr_assert_eq(be->send(comm, 1, &m, buf), 0);
    memset(buf, 2, LEN);
    cr_assert_eq(be->send(comm, 1, &m, buf), 0);
    cr_assert_eq(be->barrier(comm), 0);
    cr_assert_eq(be->finalize(comm, 0), 0, "the receiver took an overwritten tail");
}

/* The backend's own ping-pong loop (a one-hop batch), sizes from the header's line to past a
 * place: each side's last receive holds the other's bytes, and an ordinary message after the
 * batch arrives next, so the loop kept the channels' order (1000 round trips: every place many
 * times). */
Test(shm, the_backends_ping_pong_loop_carries_the_bytes_and_keeps_the_order)
{
    static const long sizes[] = {8, 200, 4096};
    enum { N = 1000, CAP = 4096 };
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(1, CAP);
    static unsigned char tx[CAP], rx[CAP];
    int me = be->rank(comm), bad = 0;
    memset(tx, me ? 0xb1 : 0xa0, CAP);
    for (int k = 0; k < 3 && !bad; k++) {
        memset(rx, 0, CAP);
        bad = be->pingpong(comm, 1 - me, tx, rx, sizes[k], N, me) != 0;
        for (long j = 0; j < sizes[k] && !bad; j++)
            bad = rx[j] != (me ? 0xa0 : 0xb1);
    }
    bench_msg m = {BENCH_MSG_REQUEST, 0, 1, 1, -1, 0, 3};
    if (me == 1) {
        bad = bad || be->recv(comm, &m, rx, CAP) != 0 || m.len != 3 || m.kind != BENCH_MSG_REQUEST;
        be->finalize(comm, bad);
    }
    cr_assert(!bad, "rank 0's last reply did not hold rank 1's bytes");
    cr_assert_eq(be->send(comm, 1, &m, tx), 0);
    cr_assert_eq(be->finalize(comm, 0), 0, "rank 1 found its bytes or the next message wrong");
}

/* A reply of another size than the batch's is reported, not taken as the reply (the peer
 * answers 4 bytes to an 8-byte batch), and a peer that dies in a batch ends it with
 * BENCH_ERR_PEER instead of a wait. */
Test(shm, the_backends_ping_pong_loop_reports_a_wrong_reply_and_a_dead_peer)
{
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(1, 64);
    unsigned char tx[64] = {0}, rx[64];
    bench_msg m;
    if (be->rank(comm) == 1) {
        int rc = be->recv(comm, &m, rx, sizeof rx);
        m.len = 4;
        if (!rc)
            rc = be->send(comm, 0, &m, tx);
        if (!rc)
            rc = be->recv(comm, &m, rx, sizeof rx);   /* the second batch's first request */
        _exit(rc ? 3 : 0);   /* dies inside rank 0's second batch */
    }
    cr_assert_eq(be->pingpong(comm, 1, tx, rx, 8, 1, 0), BENCH_ERR_SYSTEM);
    cr_assert_eq(be->pingpong(comm, 1, tx, rx, 8, 1000, 0), BENCH_ERR_PEER);
    be->finalize(comm, 1);
}
