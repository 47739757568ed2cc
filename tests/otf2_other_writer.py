#!/usr/bin/python3
"""otf2_other_writer: writes a scitrace trace as an OTF2 archive through the
OTF2 library's Python bindings (python3-otf2), with OTF2's own MPI events
only, as another tool would (no scitrace attributes): the test of reading
other writers' archives (tests/test_otf2.c).

    otf2_other_writer.py SCITRACE TRACE_DIR OUT_DIR
"""
import glob
import subprocess
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, Paradigm, RegionRole

COLL = {"bcast": CollectiveOp.BCAST, "reduce": CollectiveOp.REDUCE,
        "allreduce": CollectiveOp.ALLREDUCE, "alltoall": CollectiveOp.ALLTOALL,
        "allgather": CollectiveOp.ALLGATHER, "gather": CollectiveOp.GATHER,
        "scatter": CollectiveOp.SCATTER, "barrier": CollectiveOp.BARRIER}
SENDS = {"send", "bsend", "ssend", "rsend"}
ISENDS = {"isend", "ibsend", "issend", "irsend"}
WAITS = {"wait", "waitall", "waitany", "waitsome", "test", "testall", "testany", "testsome"}


def rank_lines(scitrace, path):
    return subprocess.run([scitrace, "dump", path], check=True, capture_output=True,
                          text=True).stdout.splitlines()


def main():
    scitrace, trace, out = sys.argv[1:4]
    ranks = []
    for path in sorted(glob.glob(trace + "/rank-*.trace")):
        lines = rank_lines(scitrace, path)
        head = {l.split(" ", 1)[0]: l.split(" ", 1)[1] for l in lines[1:7]}
        comms = [l.split() for l in lines if l.startswith("comm ")]
        ranks.append((int(head["rank"]), int(head["start_ns"]), comms, lines))
    ranks.sort()
    t0 = min(r[1] for r in ranks)
    with otf2.writer.open(out, timer_resolution=10**9) as archive:
        defs = archive.definitions
        node = defs.system_tree_node("node")
        locs = []
        for r, _, _, _ in ranks:
            group = defs.location_group("process %d" % r, system_tree_parent=node)
            locs.append(defs.location("thread %d" % r, group=group))
        defs.group("world", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                   members=tuple(locs))
        gcomms = {}
        for _, _, comms, _ in ranks:
            for c in comms:
                key = (c[2], c[3])
                if key not in gcomms:
                    members = tuple(int(w) for w in c[5:])
                    g = defs.group("comm %s/%s" % key, group_type=GroupType.COMM_GROUP,
                                   paradigm=Paradigm.MPI, members=members)
                    gcomms[key] = (defs.comm("comm %s/%s" % key, group=g), members)
        regions = {}

        def region(name):
            if name not in regions:
                mpi = "MPI_" + name[0].upper() + name[1:]
                regions[name] = defs.region(mpi, paradigm=Paradigm.MPI,
                                            region_role=RegionRole.POINT2POINT)
            return regions[name]

        for (r, start, comms, lines), loc in zip(ranks, locs):
            w = archive.event_writer_from_location(loc)
            off = start - t0
            local = {int(c[1]): gcomms[(c[2], c[3])] for c in comms}
            init = defs.region("MPI_Init", paradigm=Paradigm.MPI)
            w.enter(off, init)
            w.leave(off, init)
            made = {}
            call = None
            for l in lines:
                f = l.split()
                if l.startswith("> "):
                    call = f
                    t, name = off + int(f[1]), f[3]
                    w.enter(t, region(name))
                    a = f[5:]
                    if name in SENDS and int(a[1]) >= 0:
                        comm, members = local[int(a[0])]
                        w.mpi_send(t, members.index(int(a[1])), comm, int(a[2]), int(a[3]))
                    if name in COLL or name == "sendrecv":
                        if name in COLL:
                            w.mpi_collective_begin(t)
                elif l.startswith("< ") and call is not None:
                    t, name, a, res = off + int(f[1]), call[3], call[5:], f[2:]
                    if name in ISENDS or name == "irecv":
                        comm, members = local[int(a[0])]
                        made[int(res[0])] = (name, comm, members)
                        if name == "irecv":
                            w.mpi_irecv_request(t, int(res[0]))
                        elif int(a[1]) >= 0:
                            w.mpi_isend(t, members.index(int(a[1])), comm, int(a[2]), int(a[3]),
                                        int(res[0]))
                    elif name in ("recv", "sendrecv") and res:
                        comm, members = local[int(a[0])]
                        if name == "sendrecv" and int(a[1]) >= 0:
                            w.mpi_send(off + int(call[1]), members.index(int(a[1])), comm,
                                       int(a[2]), int(a[3]))
                        if int(res[0]) >= 0:
                            w.mpi_recv(t, members.index(int(res[0])), comm, int(res[1]),
                                       int(res[2]))
                    elif name in WAITS:
                        ids = [int(x) for x in a[1:1 + int(a[0])]]
                        for j in range(int(res[0])):
                            index, src, tag, nbytes = (int(x) for x in res[1 + 4 * j:5 + 4 * j])
                            kind, comm, members = made.get(ids[index], (None, None, None))
                            if kind == "irecv" and src >= 0:
                                w.mpi_irecv(t, members.index(src), comm, tag, nbytes, ids[index])
                            elif kind in ISENDS:
                                w.mpi_isend_complete(t, ids[index])
                    elif name in COLL:
                        comm, members = local[int(a[0])]
                        root = members.index(int(a[1])) if int(a[1]) >= 0 else 0xFFFFFFFF
                        w.mpi_collective_end(t, COLL[name], comm, root, int(a[2]), int(a[2]))
                    w.leave(t, region(name))
                    call = None


if __name__ == "__main__":
    main()
