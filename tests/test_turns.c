/* Tests for the order in which interleaved points take their batches (bench/turns.h): every
 * round a permutation, no point always after the same one, and a run that repeats itself.
 * Oracle: enumeration of the rounds' orders. */
#include <criterion/criterion.h>
#include <string.h>

#include "bench/turns.h"

#define N 5
#define ROUNDS 400

/* Every round is a permutation of 0..n-1 whose first point is not the last round's last. */
Test(turns, every_round_is_a_permutation)
{
    for (long n = 1; n <= 9; n++) {
        bench_turns t;
        cr_assert_eq(bench_turns_init(&t, n), 0);
        for (int r = 0, last = -1; r < 50; r++) {
            const long *o = bench_turns_next(&t);
            int seen[9] = {0};
            cr_assert(n == 1 || o[0] != last, "n %ld round %d: %ld after itself", n, r, o[0]);
            last = (int)o[n - 1];
            for (long i = 0; i < n; i++) {
                cr_assert(o[i] >= 0 && o[i] < n, "n %ld round %d: %ld", n, r, o[i]);
                seen[o[i]]++;
            }
            for (long i = 0; i < n; i++)
                cr_assert_eq(seen[i], 1, "n %ld round %d: point %ld taken %d times", n, r, i,
                             seen[i]);
        }
        bench_turns_free(&t);
    }
}

/* Over the rounds every point follows every other, each ordered pair about equally often
 * (a fixed order would give one successor only, the bias the shuffle removes), and never
 * itself, across two rounds either. */
Test(turns, no_point_always_follows_the_same_one)
{
    bench_turns t;
    long after[N][N] = {{0}};
    cr_assert_eq(bench_turns_init(&t, N), 0);
    long prev = -1;
    for (int r = 0; r < ROUNDS; r++) {
        const long *o = bench_turns_next(&t);
        for (long i = 0; i < N; i++) {
            if (prev >= 0)
                after[prev][o[i]]++;
            prev = o[i];
        }
    }
    bench_turns_free(&t);
    /* ROUNDS * N - 1 successions over the N (N - 1) ordered pairs: 100 each on average; a
     * binomial's 5 sigma is about 49 */
    double mean = (ROUNDS * N - 1) / (double)(N * (N - 1));
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            if (a == b)
                cr_assert_eq(after[a][b], 0, "%d followed itself %ld times", a, after[a][b]);
            else
                cr_assert(after[a][b] > mean - 49 && after[a][b] < mean + 49,
                          "%d followed %d %ld times of %.0f", b, a, after[a][b], mean);
}

/* Two runs take their turns alike: the seed is fixed. */
Test(turns, a_run_repeats_itself)
{
    bench_turns a, b;
    cr_assert_eq(bench_turns_init(&a, N), 0);
    cr_assert_eq(bench_turns_init(&b, N), 0);
    int moved = 0;
    for (int r = 0; r < 20; r++) {
        const long *x = bench_turns_next(&a), *y = bench_turns_next(&b);
        cr_assert_eq(memcmp(x, y, N * sizeof *x), 0, "round %d", r);
        for (long i = 0; i < N; i++)
            moved |= x[i] != i;
    }
    cr_assert(moved, "twenty rounds in the listed order");
    bench_turns_free(&a);
    bench_turns_free(&b);
}
