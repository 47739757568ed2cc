#!/bin/bash
# testbed/relabel.sh SHAPE LINKS DST FILE: a 2-rank mpibench file measured
# between node 0 and node DST of a testbed (scitestbed run --nodes 0,DST)
# gets the testbed's network and route: topology SHAPE, destination DST, and
# the request's and reply's hops, forwards and switches of the kernel's
# routes (dimension order; LINKS one: +1 ways, bi: the shorter way, ties +1),
# so that calibrate fits it as the network it crossed.  In place, atomically.
set -u
shape=$1 links=$2 dst=$3 f=$4
awk -v shape="$shape" -v links="$links" -v dst="$dst" '
function coords(r, c,   k) { for (k = D; k >= 1; k--) { c[k] = r % n[k]; r = int(r / n[k]) } }
# H F S of the route from a to b: a relay that keeps the dimension forwards,
# one that changes it switches
function route(a, b,   ca, cb, k, f, step, prev, h) {
    coords(a, ca); coords(b, cb); H = 0; F = 0; S = 0; prev = 0
    for (k = 1; k <= D; k++) {
        f = (cb[k] - ca[k] + n[k]) % n[k]
        if (f == 0) continue
        if (links == "bi" && n[k] - f < f) f = n[k] - f
        for (h = 0; h < f; h++) {
            if (H > 0) { if (prev == k) F++; else S++ }
            prev = k; H++
        }
    }
}
BEGIN {
    D = split(shape, n, "x")
    route(0, dst); h1 = H; f1 = F; s1 = S
    route(dst, 0); h2 = H; f2 = F; s2 = S
    topo = (D == 1 ? "ring " shape : "torus " shape)
    OFS = "\t"
}
# the bench reader checks the routes of a topology as one-way: a shortest-way
# network is named under a key of its own
/^# topology:/ { print (links == "bi" ? "# testbed-topology: " topo " (shortest-way routes)" : "# topology: " topo); next }
/^# procs:/ { print; print "# testbed: ranks on node 0 and node " dst " only, the others relaying in the kernel; routes " links "-way"; next }
/^#/ { print; next }
{ $3 = dst; $4 = h1; $5 = f1; $6 = s1; $7 = h2; $8 = f2; $9 = s2; print }
' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
