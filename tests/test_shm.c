/* Tests for the shm backend's channels, driven through bench_backend_shm
 * directly: every message arrives once, in order, with its bytes, through
 * the credit ring (one-way bursts) and through the one-slot inbox
 * (ping-pong); a sender that breaks the one-slot window is reported.
 * The child process cannot use cr_assert; it checks what it received and
 * passes the verdict as its exit status, which the parent's finalize
 * returns. */
#include <criterion/criterion.h>
#include <string.h>

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

/* A sender that sends twice into a one-slot inbox before the receiver read
 * the first: the receiver reports the overrun instead of losing a message. */
Test(shm, overrun_of_a_one_slot_inbox_is_reported)
{
    const bench_backend *be = &bench_backend_shm;
    bench_comm *comm = start(1, 8);
    uint64_t v = 7;
    bench_msg m = {BENCH_MSG_REQUEST, 0, 1, 1, -1, 0, sizeof v};
    if (be->rank(comm) == 1) {
        be->barrier(comm);   /* both messages are in by now */
        int rc = be->recv(comm, &m, &v, sizeof v);
        be->finalize(comm, rc != BENCH_ERR_OVERRUN);
    }
    cr_assert_eq(be->send(comm, 1, &m, &v), 0);
    cr_assert_eq(be->send(comm, 1, &m, &v), 0);
    cr_assert_eq(be->barrier(comm), 0);
    cr_assert_eq(be->finalize(comm, 0), 0, "the receiver did not report the overrun");
}
