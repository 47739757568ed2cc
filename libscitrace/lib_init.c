/* lib_init: PMPI wrappers of initialisation, finalisation, abort and the
 * calls that make or free communicators.  A new communicator's "comm" line
 * comes before the return of the call that made it, whose result names it
 * (-1: MPI_COMM_NULL). */
#include <stdio.h>
#include <string.h>

#include "libscitrace/lib.h"

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        trace_start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        trace_start();
    /* calls from several threads at once would interleave their lines: the
     * file says so and is closed, and every analyzer refuses it */
    if (rc == MPI_SUCCESS && *provided == MPI_THREAD_MULTIPLE && trace_enabled) {
        fprintf(stderr, "scitrace: MPI_THREAD_MULTIPLE granted: this rank's calls are not traced\n");
        trace_finish("unsupported MPI_THREAD_MULTIPLE");
    }
    return rc;
}

/* The entry first: a rank stuck in Finalize (a peer died) shows it. */
int MPI_Finalize(void)
{
    if (!trace_enabled)
        return PMPI_Finalize();
    trace_words a = trace_enter(TRACE_K_FINALIZE, CALLER, 0);
    trace_enter_done(&a);
    int rc = PMPI_Finalize();
    trace_returned();
    trace_finish("finalized");
    return rc;
}

int MPI_Abort(MPI_Comm comm, int code)
{
    if (trace_enabled) {
        int id = trace_comm_id(comm);
        trace_words a = trace_enter(TRACE_K_ABORT, CALLER, 2);
        tw(&a, id);
        tw(&a, code);
        trace_enter_done(&a);
        trace_finish("aborted");
    }
    return PMPI_Abort(comm, code);
}

/* Entry: PARENT; the caller then makes the communicator. */
static void comm_enter(enum trace_kind kind, const void *caller, MPI_Comm parent)
{
    int id = trace_comm_id(parent);   /* first: registering writes a line */
    trace_words a = trace_enter(kind, caller, 1);
    tw(&a, id);
    trace_enter_done(&a);
}

/* Registers *newcomm when the call that made it (status rc) succeeded,
 * then records the return; returns rc. */
static int comm_made(int rc, MPI_Comm *newcomm)
{
    int id = rc == MPI_SUCCESS ? trace_comm_created(*newcomm) : -1;
    trace_words r = trace_exit(1);
    tw(&r, id);
    trace_exit_done(&r);
    return rc;
}

#define COMM_CALL(kind, parent, call, newcomm)                                             \
    do {                                                                                   \
        if (!trace_enabled)                                                                \
            return call;                                                                   \
        comm_enter(kind, CALLER, parent);                                                  \
        return comm_made(call, newcomm);                                                   \
    } while (0)

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_COMM_DUP, comm, PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_COMM_DUP, comm, PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_COMM_SPLIT, comm, PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_COMM_SPLIT, comm, PMPI_Comm_split_type(comm, type, key, info, newcomm),
              newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_COMM_CREATE, comm, PMPI_Comm_create(comm, group, newcomm), newcomm);
}

/* After the call's lines, "cart D N1 .. ND P1 .. PD": the process grid,
 * for the candidates of a projection (docs/model.md, 'Candidates'). */
int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    if (!trace_enabled)
        return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
    comm_enter(TRACE_K_CART_CREATE, CALLER, comm);
    int rc = comm_made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
    char *p = rc == MPI_SUCCESS && ndims > 0 && ndims <= 16 ? trace_line(16 + 24 * (size_t)ndims)
                                                            : NULL;
    if (p) {
        memcpy(p, "cart", 4);
        p = tl_i(p + 4, ndims);
        for (int i = 0; i < ndims; i++)
            p = tl_i(p, dims[i]);
        for (int i = 0; i < ndims; i++)
            p = tl_i(p, periods[i] != 0);
        *p++ = '\n';
        trace_line_done(p);
    }
    return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_CART_SUB, comm, PMPI_Cart_sub(comm, remain, newcomm), newcomm);
}

int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                         int tag, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_INTERCOMM_CREATE, local,
              PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, newcomm),
              newcomm);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newcomm)
{
    COMM_CALL(TRACE_K_INTERCOMM_MERGE, inter, PMPI_Intercomm_merge(inter, high, newcomm), newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (!trace_enabled)
        return PMPI_Comm_free(comm);
    int id = trace_comm_id(*comm);
    trace_words a = trace_enter(TRACE_K_COMM_FREE, CALLER, 1);
    tw(&a, id);
    trace_enter_done(&a);
    trace_comm_forget();
    int rc = PMPI_Comm_free(comm);
    trace_returned();
    return rc;
}
