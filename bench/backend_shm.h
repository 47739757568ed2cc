/* backend_shm.h: the shared-memory backend's layout, which its transport
 * (backend_shm.c) and its bare floor (backend_shm_floor.c) share; private
 * to the two. */
#ifndef BENCH_BACKEND_SHM_H
#define BENCH_BACKEND_SHM_H

#include <stddef.h>
#include <string.h>

#include "bench/backend.h"

#define CACHE_LINE 64       /* x86-64 and most arm64 parts */
/* Slot strides are multiples of 128 bytes: the adjacent-line prefetcher fetches pairs, and a
 * prefetched neighbour slot is one more transfer between the cores (make bench-shm times the
 * ping-pong against its floor). */
#define SLOT_ALIGN 128
#define RING_PAGE_BYTES 4096
/* A one-slot inbox moves with every message through PLACES places, each on pages of its own:
 * a cache line's transfer time between two cores depends on its physical address
 * (scibench --floor --lines), so one fixed line made a launch's latency that line's.
 * A place holds a message's first PLACE_BYTES; the rest goes through one fixed tail, so a
 * large message's lines are reused as before, not spread over more than the caches hold. */
#define PLACES 64
#define PLACE_BYTES LINE_COPY_MAX
/* Message k uses place k * PLACE_STEP mod PLACES: an odd step visits every place, and
 * consecutive places are not one constant stride apart for a stride prefetcher to follow. */
#define PLACE_STEP 37
/* Messages up to this size are sent line by line (tail_copy), larger ones with memcpy's wide
 * moves, faster for them; memcpy below it bent o(m) between sizes, which calibrate --full's
 * held-out ring check catches (test_full). */
#define LINE_COPY_MAX 512
/* Check abort/interrupt/timeout once per this many empty polls: rare enough
 * not to disturb the spin, frequent enough to react within microseconds. */
#define POLLS_PER_CHECK 4096

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/* n < 64 bytes as power-of-two pieces, largest first, never overlapping. */
static inline void piece_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n & 32)
        memcpy(d, s, 32), d += 32, s += 32;
    if (n & 16)
        memcpy(d, s, 16), d += 16, s += 16;
    if (n & 8)
        memcpy(d, s, 8), d += 8, s += 8;
    if (n & 4)
        memcpy(d, s, 4), d += 4, s += 4;
    if (n & 2)
        memcpy(d, s, 2), d += 2, s += 2;
    if (n & 1)
        *d = *s;
}

double bench_shm_now_ns(void);
int bench_shm_pin(int cpu);

/* The backend's floor (bench_backend.floor) and its lines (.floor_lines). */
int bench_shm_floor(const bench_backend_config *cfg, int batches, size_t payload,
                    double *floor_ns, double *copy_ns);
int bench_shm_floor_lines(const bench_backend_config *cfg, int passes, double *ns, int *places);

#endif
