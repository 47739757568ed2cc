/* expand: the point-to-point messages one rank sends in a collective, under
 * the algorithm trace/tracekinds.h names for it.  Expanding every rank's
 * calls gives the whole collective, and a rank whose file is missing loses
 * only its own sends.  The algorithms (n ranks, this rank me, root rt, block
 * m bytes; vr = (me - rt) mod n):
 *
 *   bcast      binomial tree (MPICH): vr sends m to vr + 2^k for every
 *              2^k below vr's lowest set bit (all 2^k < n for the root)
 *   reduce     binomial tree: vr != 0 sends m to vr minus its lowest set bit
 *   allreduce  recursive doubling (MPICH, Thakur et al. 2005): with
 *              p = largest power of two <= n and r = n - p, the even ranks
 *              below 2r send m to their odd neighbour first and get m back
 *              at the end; the other p ranks exchange m with partner
 *              newrank XOR 2^k for each 2^k < p
 *   alltoall   pairwise: m to every other rank
 *   allgather  ring: n - 1 messages of m to rank me + 1
 *   gather     linear: m from every non-root to the root
 *   scatter    linear: m from the root to every other rank
 *   barrier    dissemination: 0 bytes to me + 2^k for each 2^k < n
 *
 * Ranks here are indices in the communicator. */
#ifndef SCITORUS_EXPAND_H
#define SCITORUS_EXPAND_H

#include <stdint.h>

/* Called once per message (dst a communicator index). */
typedef void (*expand_fn)(void *ctx, int dst, uint64_t size_bytes);

/* Emits the sends of rank me in one call of collective kind (class COLL).
 * Returns 0, or -1 for a kind that is not a COLL or arguments out of range
 * (me or root outside 0..n-1). */
int expand_collective(int kind, int n, int me, int root, uint64_t m, expand_fn emit, void *ctx);

#endif
