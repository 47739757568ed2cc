/* lib_init: PMPI wrappers of initialisation, finalisation, abort and the
 * calls that create communicators (registered at creation so that every
 * member numbers them alike; see lib_record.c). */
#include "trace/lib.h"

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
    return rc;
}

/* The rank file is written before PMPI_Finalize: Finalize synchronises, and
 * a rank that died elsewhere must not keep this one's file from disk. */
int MPI_Finalize(void)
{
    trace_finish("finalized");
    return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int code)
{
    trace_finish("aborted");
    return PMPI_Abort(comm, code);
}

/* Registers *newcomm when the PMPI call that created it (status rc)
 * succeeded; returns rc. */
static int comm_created(int rc, MPI_Comm *newcomm)
{
    if (rc == MPI_SUCCESS)
        trace_comm_created(*newcomm);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return comm_created(PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return comm_created(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return comm_created(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return comm_created(PMPI_Comm_split_type(comm, type, key, info, newcomm), newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return comm_created(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    return comm_created(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm)
{
    return comm_created(PMPI_Cart_sub(comm, remain, newcomm), newcomm);
}

int MPI_Type_free(MPI_Datatype *type)
{
    trace_type_freed();
    return PMPI_Type_free(type);
}
