# params.gp: a params file's o(m) and relay cost g(m) as gnuplot functions,
# loaded by the figures after `load params` (docs/formats.md, 'Params file').

# o(m) from the params file: the segments if present, else the line
nseg = exists("o_segments") ? o_segments : 0
segfrom(i) = value(sprintf("o_seg%d_from_bytes", i))
segns(i) = value(sprintf("o_seg%d_ns", i))
segslope(i) = value(sprintf("o_seg%d_ns_per_byte", i))
# the last segment whose start is <= m (segment 1 below the first start),
# any number of them (MODEL_MAX_OSEG): gnuplot's ?: and || evaluate only
# the branch taken, so the recursion stops at the count
seg_at(i, m) = (i >= nseg || m < segfrom(i + 1)) ? i : seg_at(i + 1, m)
segof(m) = seg_at(1, m)
o(m) = nseg > 0 ? segns(segof(m)) + segslope(segof(m)) * (m - segfrom(segof(m))) \
                : o0_ns + o1_ns_per_byte * (m - mref_bytes)
# docs/model.md, 'Point-to-point latency': each relay pays g(m), the lb segments if present, else m lb
# (0, cut-through, when the file has no lb)
lb = exists("lb_ns_per_byte") ? lb_ns_per_byte : 0
nlbseg = exists("lb_segments") ? lb_segments : 0
lbfrom(i) = value(sprintf("lb_seg%d_from_bytes", i))
lbns(i) = value(sprintf("lb_seg%d_ns", i))
lbslope(i) = value(sprintf("lb_seg%d_ns_per_byte", i))
lb_at(i, m) = (i >= nlbseg || m < lbfrom(i + 1)) ? i : lb_at(i + 1, m)
lbof(m) = lb_at(1, m)
relay(m) = nlbseg > 0 ? lbns(lbof(m)) + lbslope(lbof(m)) * (m - lbfrom(lbof(m))) : m * lb
