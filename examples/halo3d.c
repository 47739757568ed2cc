/* halo3d: the example application scitrace is shown on (make demo, tests).
 * Every rank owns an NX x NY x NZ block of a periodic 3D grid decomposed by
 * MPI_Dims_create over a 3D Cartesian communicator; each step exchanges
 * the six faces with the neighbours (Irecv/Isend/Waitall, one face of
 * doubles per direction: NY*NZ, NX*NZ, NX*NY of them in x, y, z), relaxes
 * the block, and agrees on the residual with one MPI_Allreduce of a double.
 * Rank 0 first broadcasts the run's parameters (MPI_Bcast of 4 ints).
 * The faces differ in size per dimension, so every message of the traffic
 * matrix can be told apart: with the defaults 768, 1024 and 1536 bytes. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_NX 16
#define DEFAULT_NY 12
#define DEFAULT_NZ 8
#define DEFAULT_STEPS 10
#define MAX_EDGE 1024

static const char usage[] =
"Usage: mpirun -np P halo3d [--steps S] [--block NXxNYxNZ]\n"
"A periodic 3D halo exchange over P ranks (MPI_Dims_create), with an\n"
"MPI_Allreduce per step: the example application traced by scitrace.\n"
"  --steps S          time steps (default 10)\n"
"  --block NXxNYxNZ   cells per rank (default 16x12x8, each 1..1024)\n"
"  -h, --help         this text\n";

typedef struct run {
    int n[3], steps;
} run;

static int parse_args(int argc, char **argv, run *r)
{
    static const struct option opts[] = {
        {"steps", required_argument, NULL, 's'},
        {"block", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    char tail;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 's' && sscanf(optarg, "%d%c", &r->steps, &tail) == 1 && r->steps >= 0)
            continue;
        if (c == 'b' && sscanf(optarg, "%dx%dx%d%c", &r->n[0], &r->n[1], &r->n[2], &tail) == 3 &&
            r->n[0] >= 1 && r->n[1] >= 1 && r->n[2] >= 1 && r->n[0] <= MAX_EDGE &&
            r->n[1] <= MAX_EDGE && r->n[2] <= MAX_EDGE)
            continue;
        if (c == 'h') {
            fputs(usage, stdout);
            return 1;
        }
        fprintf(stderr, "halo3d: bad argument '%s' (halo3d --help)\n", argv[optind - 1]);
        return 2;
    }
    return optind == argc ? 0 : (fprintf(stderr, "halo3d: unexpected '%s'\n", argv[optind]), 2);
}

/* Index of cell (i, j, k) in a block with a one-cell halo. */
#define AT(i, j, k) (((size_t)(i) * (n[1] + 2) + (j)) * (n[2] + 2) + (k))

/* Copies face (dim d, side lo/hi) of the interior into buf, or buf into the
 * halo beside it (to_halo). */
static void face(double *u, const int *n, int d, int hi, int to_halo, double *buf)
{
    int lo[3] = {1, 1, 1}, up[3] = {n[0], n[1], n[2]};
    int plane = to_halo ? (hi ? n[d] + 1 : 0) : (hi ? n[d] : 1);
    lo[d] = up[d] = plane;
    size_t c = 0;
    for (int i = lo[0]; i <= up[0]; i++)
        for (int j = lo[1]; j <= up[1]; j++)
            for (int k = lo[2]; k <= up[2]; k++, c++) {
                if (to_halo)
                    u[AT(i, j, k)] = buf[c];
                else
                    buf[c] = u[AT(i, j, k)];
            }
}

static double relax(double *u, const int *n)
{
    double res = 0;
    for (int i = 1; i <= n[0]; i++)
        for (int j = 1; j <= n[1]; j++)
            for (int k = 1; k <= n[2]; k++) {
                double v = (u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] +
                            u[AT(i, j + 1, k)] + u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)]) / 6;
                res += (v - u[AT(i, j, k)]) * (v - u[AT(i, j, k)]);
                u[AT(i, j, k)] = v;
            }
    return res;
}

static int simulate(const run *r, MPI_Comm cart, int rank)
{
    const int *n = r->n;
    size_t cells = (size_t)(n[0] + 2) * (n[1] + 2) * (n[2] + 2);
    size_t fsz[3] = {(size_t)n[1] * n[2], (size_t)n[0] * n[2], (size_t)n[0] * n[1]};
    double *u = calloc(cells, sizeof *u), *sbuf[6], *rbuf[6];
    for (int f = 0; f < 6; f++) {
        sbuf[f] = malloc(fsz[f / 2] * sizeof(double));
        rbuf[f] = malloc(fsz[f / 2] * sizeof(double));
    }
    for (size_t i = 0; i < cells; i++)
        u[i] = (double)((rank * 7919 + i) % 101);
    double res = 0, t0 = MPI_Wtime();
    for (int s = 0; s < r->steps; s++) {
        MPI_Request req[12];
        for (int f = 0; f < 6; f++) {   /* face f: dim f/2, side f%2 (0 low, 1 high) */
            int d = f / 2, lo, hi, to = 0, from = 0;
            MPI_Cart_shift(cart, d, 1, &lo, &hi);
            to = f % 2 ? hi : lo;
            from = f % 2 ? lo : hi;
            face(u, n, d, f % 2, 0, sbuf[f]);
            MPI_Irecv(rbuf[f], (int)fsz[d], MPI_DOUBLE, from, f, cart, &req[f]);
            MPI_Isend(sbuf[f], (int)fsz[d], MPI_DOUBLE, to, f, cart, &req[6 + f]);
        }
        MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
        for (int f = 0; f < 6; f++)   /* what came from the high side fills the high halo */
            face(u, n, f / 2, f % 2 ? 0 : 1, 1, rbuf[f]);
        double local = relax(u, n);
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, cart);
    }
    if (rank == 0) {   /* the steps' time: what a tracer adds, without start-up */
        printf("halo3d: %d steps, residual %.6g\n", r->steps, res);
        printf("halo3d: the steps took %.6f s (rank 0)\n", MPI_Wtime() - t0);
    }
    for (int f = 0; f < 6; f++) {
        free(sbuf[f]);
        free(rbuf[f]);
    }
    free(u);
    return 0;
}

int main(int argc, char **argv)
{
    run r = {{DEFAULT_NX, DEFAULT_NY, DEFAULT_NZ}, DEFAULT_STEPS};
    int rank, size, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, params[4];
    for (int i = 1; i < argc; i++)   /* --help without starting MPI (help2man, no mpirun) */
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int rc = parse_args(argc, argv, &r);
        params[0] = rc ? -rc : r.steps;
        params[1] = r.n[0], params[2] = r.n[1], params[3] = r.n[2];
    }
    MPI_Bcast(params, 4, MPI_INT, 0, MPI_COMM_WORLD);
    if (params[0] < 0) {
        MPI_Finalize();
        return params[0] == -1 ? 0 : 2;
    }
    r.steps = params[0], r.n[0] = params[1], r.n[1] = params[2], r.n[2] = params[3];
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    if (rank == 0)
        printf("halo3d: %d ranks as %dx%dx%d, block %dx%dx%d\n", size, dims[0], dims[1], dims[2],
               r.n[0], r.n[1], r.n[2]);
    simulate(&r, cart, rank);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
