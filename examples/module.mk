# examples/: MPI applications to trace: halo3d, a periodic 3D
# halo exchange with an Allreduce per step (make demo traces it on 8 ranks).
PROGRAMS += halo3d
halo3d_MPI = 1
halo3d_SRCS = examples/halo3d.c
halo3d_LAYERS :=
