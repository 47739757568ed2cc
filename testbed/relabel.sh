#!/bin/bash
# testbed/relabel.sh SHAPE LINKS DST FILE: a 2-rank mpibench file measured
# between node 0 and node DST of a testbed (scitestbed run --nodes 0,DST)
# gets the testbed's network and route: topology SHAPE, destination DST, and
# the request's and reply's hops, forwards and switches of the kernel's
# routes (scimodel --routes, which scitestbed installs; LINKS one or bi), so
# that calibrate fits it as the network it crossed.  In place, atomically.
set -u
shape=$1 links=$2 dst=$3 f=$4
# the routes and their counts are the model's own (scimodel --routes)
bin=$(dirname "$(readlink -f "$0")")/../bin
scimodel=$bin/scimodel
[ -x "$scimodel" ] || scimodel=$(command -v scimodel) ||
    { echo "relabel.sh: no scimodel (make, or install scitorus)" >&2; exit 1; }
routes=$("$scimodel" --shape "$shape" --links "$([ "$links" = bi ] && echo bi || echo uni)" --routes) ||
    exit 1
read -r h1 f1 s1 < <(awk -v a=0 -v b="$dst" '!/^#/ && $1 == a && $2 == b { print $6, $7, $8 }' <<<"$routes")
read -r h2 f2 s2 < <(awk -v a="$dst" -v b=0 '!/^#/ && $1 == a && $2 == b { print $6, $7, $8 }' <<<"$routes")
[ -n "${h1:-}" ] && [ -n "${h2:-}" ] || { echo "relabel.sh: destination '$dst': not a node of '$shape'" >&2; exit 2; }
awk -v shape="$shape" -v links="$links" -v dst="$dst" -v h1="$h1" -v f1="$f1" -v s1="$s1" \
    -v h2="$h2" -v f2="$f2" -v s2="$s2" '
BEGIN {
    D = split(shape, n, "x")
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
