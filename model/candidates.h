/* candidates: the tori a user would consider for an application that
 * needs `nodes` nodes (docs/model.md, 'Candidates'): every shape of D sides
 * >= 2 with exactly that many nodes (3x2 and 2x3 both: row-major placement
 * tells them apart), the smallest shapes that hold them with idle nodes,
 * and the application's own process grid read from its traffic. */
#ifndef SCITORUS_CANDIDATES_H
#define SCITORUS_CANDIDATES_H

#include <stddef.h>

#include "model/traffic.h"
#include "topo/topo.h"

/* At most this many candidates are replayed or projected: 4096 nodes have
 * 232 shapes of 1..4 dimensions; the least even ones go first. */
#define CAND_MAX 64

typedef enum cand_kind {
    CAND_EXACT,      /* exactly the nodes needed */
    CAND_HOLDS,      /* the smallest of its D that holds them (idle nodes) */
    CAND_GIVEN,      /* --shape */
} cand_kind;

typedef struct cand {
    topo_shape shape;
    char name[TOPO_MAX_DIMS * 21];
    cand_kind kind;
    int grid;        /* the application's own grid: 1 read from its traffic,
                        2 as it made it (MPI_Cart_create) */
} cand;

/* Appends shape s unless it is there already (then only marks it given or
 * grid as asked).  Returns 0, or -1 when out is full. */
int cand_add(cand *out, size_t cap, size_t *n, const topo_shape *s, cand_kind kind, int grid);

/* For each D of dims: every exact shape of `nodes`; and the smallest
 * equal-sided n^D holding them when it is not exact, and when D has no
 * exact shape the smallest rectangular one (sides as even as they go).
 * Beyond cap, the least even exact shapes are left out: *dropped counts
 * them.  Returns 0, or -1 when a D has no torus within TOPO_MAX_NODES. */
int cand_for_dims(const long *dims, size_t ndims, long nodes, cand *out, size_t cap,
                  size_t *n, size_t *dropped);

/* The grid of a matrix between `nodes` nodes (rows by node): a shape of
 * 1..4 dimensions and `nodes` nodes on which the messages between
 * neighbours (one hop in one dimension, row-major ranks) carry at least
 * CAND_GRID_SHARE of the bytes between nodes (a collective's few messages
 * go elsewhere), every dimension and every node some of them; the one of most dimensions,
 * then the largest share.  Returns 1 with *grid, or 0: none. */
#define CAND_GRID_SHARE 0.9
int cand_grid_of(const traffic_matrix *t, long nodes, topo_shape *grid);

/* "6", or "8 (2 idle)" when the shape has more nodes than needed. */
const char *cand_nodes_text(const cand *c, long nodes, char *buf, size_t len);

#endif
