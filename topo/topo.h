/* topo: torus shapes of unidirectional rings (SCI) or bidirectional ring
 * pairs, node coordinates, hop vectors and the link / forward / switch
 * counts of a route (docs/model.md, 'Topology and notation', 'Links'), the
 * destinations of the traffic patterns ('Patterns') and per-link route
 * counts ('Load').  model/ uses it for exact values, bench/ to place and
 * route nodes. */
#ifndef SCITORUS_TOPO_H
#define SCITORUS_TOPO_H

#include <stddef.h>

/* At most 16 dimensions: far beyond any built torus, and it keeps every
 * coordinate vector on the stack. */
#define TOPO_MAX_DIMS 16
/* Largest node count we accept: N must fit a long with room for products. */
#define TOPO_MAX_NODES 1000000000000000L /* 1e15 */

typedef struct topo_shape {
    int dims;                  /* D >= 1 */
    long n[TOPO_MAX_DIMS];     /* nodes per dimension, each >= 2 */
    long nodes;                /* N = prod n[i] */
} topo_shape;

/* Counts of one route (request or response), docs/model.md, 'Topology and notation'. */
typedef struct topo_counts {
    long links;       /* H: links crossed */
    long dims_used;   /* k: dimensions with a non-zero hop */
    long forwards;    /* F = H - k: nodes that forward on the same ring */
    long switches;    /* S = k - 1: agent nodes that switch dimension */
} topo_counts;

/* Kind of links in every dimension (docs/model.md, 'Links').  UNI: one ring per
 * dimension, a message goes the positive way h_i = (d_i - s_i) mod n_i hops
 * and the response the rest of the way round.  BI: a pair of opposite
 * rings, a message takes the shorter way min(h_i, n_i - h_i) (ties, h_i =
 * n_i / 2, the positive way) and the response the shortest way back. */
typedef enum topo_links { TOPO_LINKS_UNI = 0, TOPO_LINKS_BI = 1 } topo_links;

/* "uni" / "bi". */
const char *topo_links_name(topo_links links);
/* Parses "uni" or "bi".  Returns 0, or -1 for anything else. */
int topo_links_parse(const char *text, topo_links *links);

/* Why a parse failed; pos is the 0-based offset of the offending character. */
typedef struct topo_parse_error {
    size_t pos;
    const char *what;     /* static text, e.g. "dimension must be >= 2" */
} topo_parse_error;

/* Parses "4x4x4", "3X5" or "1000" (a ring) into *shape.
 * text - NUL-terminated; shape - (output); err - (output, may be NULL).
 * Returns 0, or -1 with err filled: empty text, non-digit, a dimension < 2,
 * more than TOPO_MAX_DIMS dimensions, N > TOPO_MAX_NODES (overflow). */
int topo_shape_parse(const char *text, topo_shape *shape, topo_parse_error *err);

/* Fills *shape with D dimensions of n nodes each.  Returns 0, or -1 if
 * D is outside 1..TOPO_MAX_DIMS, n < 2 or n^D > TOPO_MAX_NODES. */
int topo_shape_equal(int dims, long n, topo_shape *shape);

/* Fills *shape from dims and an array of n_i.  Same checks as the parser. */
int topo_shape_make(int dims, const long *n, topo_shape *shape);

/* Writes "4x4x4" into buf (size len).  Returns the length topo would have
 * written (like snprintf). */
int topo_shape_format(const topo_shape *shape, char *buf, size_t len);

/* rank <-> coordinates, row-major: the last dimension varies fastest.
 * coords has shape->dims entries.  topo_coords_to_rank returns -1 for a
 * coordinate out of range. */
void topo_rank_to_coords(const topo_shape *shape, long rank, long *coords);
long topo_coords_to_rank(const topo_shape *shape, const long *coords);

/* Hop vector from src to dst on unidirectional rings:
 * hops[i] = (dst[i] - src[i]) mod n[i]. */
void topo_hops(const topo_shape *shape, const long *src, const long *dst, long *hops);

/* Returns 0 if every hops[i] is in 0..n[i]-1 and at least one is > 0, -1
 * otherwise (bad_dim, if not NULL, gets the first offending index, or -1
 * when all hops are zero). */
int topo_hops_check(const topo_shape *shape, const long *hops, int *bad_dim);

/* Counts of the request path for hop vector hops (H, k, F, S). */
void topo_request_counts(const topo_shape *shape, const long *hops, topo_counts *out);
/* Counts of the response path back: n[i] - hops[i] in every dimension where
 * hops[i] > 0, 0 elsewhere (docs/model.md, 'Topology and notation'). */
void topo_response_counts(const topo_shape *shape, const long *hops, topo_counts *out);

/* Links actually crossed in every dimension for the hop vector hops
 * (positive-way offsets, as topo_hops gives them): dist[i] = hops[i] on UNI
 * links; min(hops[i], n[i] - hops[i]) on BI links, ties the positive way.
 * dir (may be NULL) gets +1 / -1 for the way taken, 0 where dist[i] = 0. */
void topo_route_dist(const topo_shape *shape, topo_links links, const long *hops,
                     long *dist, int *dir);

/* Request / response counts for either kind of links.  UNI: the same as
 * topo_request_counts / topo_response_counts; BI: counts of the dist
 * vector, the response equal to the request (shortest way back). */
void topo_request_counts_links(const topo_shape *shape, topo_links links,
                               const long *hops, topo_counts *out);
void topo_response_counts_links(const topo_shape *shape, topo_links links,
                                const long *hops, topo_counts *out);

/* Dimension-order routing, one step: from cur towards dst, returns the
 * dimension in which the next link is taken (the lowest i with
 * cur[i] != dst[i]) and advances cur[i] by one (mod n[i]); returns -1 when
 * cur == dst.  A node at which consecutive steps use different dimensions is
 * an agent node (a switch); one at which they use the same dimension
 * forwards. */
int topo_route_step(const topo_shape *shape, long *cur, const long *dst);

/* Traffic patterns (docs/model.md, 'Patterns'): which destinations a source sends to. */
typedef enum topo_pattern {
    TOPO_PATTERN_UNIFORM = 0,  /* all N - 1 other nodes */
    TOPO_PATTERN_NEIGHBOR,     /* s + e_i and s - e_i in every dimension (once if n_i = 2) */
    TOPO_PATTERN_TORNADO,      /* d_i = s_i + ceil(n_i/2) - 1 (none if d = s) */
    TOPO_PATTERN_COMPLEMENT,   /* d_i = n_i - 1 - s_i (none if d = s) */
    TOPO_PATTERN_TRANSPOSE,    /* D = 2, n_1 = n_2: (x, y) -> (y, x) */
    TOPO_PATTERN_COUNT
} topo_pattern;

/* "uniform", "neighbor", ... */
const char *topo_pattern_name(topo_pattern pattern);
/* Parses a pattern name.  Returns 0, or -1 for an unknown name. */
int topo_pattern_parse(const char *text, topo_pattern *pattern);
/* Returns NULL if the pattern is defined on shape, else a static reason
 * ("transpose needs a square 2D shape"). */
const char *topo_pattern_check(const topo_shape *shape, topo_pattern pattern);

/* Most destinations a source has in a pattern other than uniform. */
#define TOPO_PATTERN_MAX_DESTS (2 * TOPO_MAX_DIMS)

/* Destination ranks of source src under a pattern other than uniform
 * (which has N - 1: use topo_iter).  dst gets up to TOPO_PATTERN_MAX_DESTS
 * ranks; returns how many (0 when the source sends nothing), or -1 for
 * uniform or a pattern not defined on shape. */
int topo_pattern_dests(const topo_shape *shape, topo_pattern pattern, long src, long *dst);

/* ---- channel loads (docs/model.md, 'Load'; topo/load.c) -------------------------------
 * Directed link l = (node x, dimension i, way w): from x to x + e_i (w = 0,
 * the positive way) or to x - e_i (w = 1, bi links only), stored at
 * c[topo_link_index(shape, x, i, w)].  c_l is the expected number of
 * crossings of l per message injected per node, every sending source
 * choosing uniformly among its pattern's destinations; on bi links a tie
 * (h_i = n_i/2) puts half a crossing on each way. */
static inline long topo_link_index(const topo_shape *shape, long node, int dim, int way)
{
    return (node * shape->dims + dim) * 2 + way;
}
/* Entries of the c array: 2 D N.  Loads are refused above this (memory). */
#define TOPO_LOAD_MAX_LINKS (1L << 26)

/* Fills c (2 D N entries, zeroed here) for pattern on shape.  uniform:
 * every link of a dimension and way carries the same load (the torus looks
 * the same from every node), from a closed form over n_i; other patterns:
 * one pass over the sources, each route added to per-ring difference
 * arrays (O(N D), whatever the route lengths).  senders (may be NULL) gets
 * the number of sources that send.  Returns 0, or -1 for a pattern not
 * defined on shape, no messages, or 2 D N > TOPO_LOAD_MAX_LINKS. */
int topo_link_loads(const topo_shape *shape, topo_links links, topo_pattern pattern,
                    double *c, double *senders);

/* Input streams of every channel, for the load model (a deterministic
 * server's departures are spaced by its service time, so how a channel's
 * traffic splits over its inputs decides how much it queues; model/load.c).
 * A link's inputs: the node's injection channel (its first link), each
 * (dimension, way) the route turned from at the node, and the previous link
 * of the same ring; an ejection channel's: the (dimension, way) its
 * messages arrive by.  Channels are numbered as the links (0 .. 2 D N - 1),
 * then node x's ejection channel as 2 D N + x.  Each input's rate is its
 * crossings per injected message per node (same weights and ties as
 * topo_link_loads); inputs that carry nothing are left out. */
typedef struct topo_streams {
    long links;        /* 2 D N */
    int symmetric;     /* uniform traffic: every link of a (dimension, way)
                        * type has the inputs of row l % (2 D), every ejection
                        * channel those of row 2 D */
    long rows;         /* channels, or 2 D + 1 when symmetric */
    long *first;       /* rows + 1 offsets into rate */
    double *rate;      /* the inputs' rates, row by row */
    double *up;        /* each input's upstream load: c of the link it
                        * arrives over, 1 for the injection channel */
    long *from;        /* that link (topo_link_index), -1 for the injection
                        * channel */
    double *sq;        /* each input's sum of its flows' squared rates (a
                        * flow: one source, one destination, one tie
                        * choice), so sq / rate^2 is the chance that two
                        * of the input's messages belong to one flow */
    double *ej;        /* per node: messages ending there (N entries) */
} topo_streams;

/* Fills st for pattern on shape, from c (topo_link_loads' output): O(N D)
 * for uniform traffic, one pass over the messages otherwise.  Returns 0,
 * or -1 as topo_link_loads or without memory; topo_streams_free releases
 * st (also after a failure). */
int topo_link_input_streams(const topo_shape *shape, topo_links links, topo_pattern pattern,
                            const double *c, topo_streams *st);
void topo_streams_free(topo_streams *st);
/* The row of channel ch (a link or 2 D N + node). */
static inline long topo_streams_row(const topo_streams *st, long ch)
{
    if (!st->symmetric)
        return ch;
    return ch < st->links ? ch % (st->rows - 1) : st->rows - 1;
}

/* Enumerator over all N - 1 destinations of a source, in rank order. */
typedef struct topo_iter {
    const topo_shape *shape;
    long src_rank;
    long dst_rank;                 /* current destination, -1 before start */
    long src[TOPO_MAX_DIMS];
    long dst[TOPO_MAX_DIMS];
    long hops[TOPO_MAX_DIMS];      /* hop vector src -> dst */
} topo_iter;

void topo_iter_init(topo_iter *it, const topo_shape *shape, long src_rank);
/* Advances to the next destination; returns 1 with it->dst_rank, dst and
 * hops valid, or 0 when all destinations have been visited. */
int topo_iter_next(topo_iter *it);

#endif
