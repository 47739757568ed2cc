# components.awk: the thesis's extraction of the latency components size by
# size (Gonzalez 2000, eqs. 18-20, for any hop counts): from the ping-pong
# latency PP = 2 o + H lp + F (lf + g) + S (ls + g) of networks that differ
# (docs/model.md, 'Point-to-point latency'):
#   o(m)      = (PP_base - H_base lp) / 2          base: F = S = 0 (2-node ring)
#   lf+g (m)  = (PP_ring - PP_base - dH lp) / dF   ring: S = 0, most forwards
#   ls+g (m)  = (PP_tor - 2 o - H lp - F (lf+g)) / S   tor: S > 0
# awk -F'\t' -v col=STATCOL -v lp=LP -f components.awk FILE...
# (bench TSVs, the first pair of each); prints size o lfg lsg lp, '-' where
# a network lacks the size.
FNR == 1 { f++ }
/^#/ || $1 != "pp" { next }
!(f in src) { src[f] = $2; dst[f] = $3; H[f] = ($4 + $7) / 2; F[f] = ($5 + $8) / 2; S[f] = ($6 + $9) / 2 }
$2 == src[f] && $3 == dst[f] && !((f, $10) in pp) { pp[f, $10] = $col; sizes[$10] = 1 }
END {
    for (i = 1; i <= f; i++) {
        if (!(i in H)) continue
        if (F[i] == 0 && S[i] == 0 && (!base || H[i] < H[base])) base = i
        if (S[i] == 0 && F[i] > 0 && (!ring || F[i] > F[ring])) ring = i
        if (S[i] > 0 && !tor) tor = i
    }
    if (!base) { print "components.awk: no network without forwards (a 2-node ring)" > "/dev/stderr"; exit 1 }
    print "size_bytes\to_ns\tlf_g_ns\tls_g_ns\tlp_ns"
    n = 0
    for (m in sizes) list[++n] = m + 0
    for (i = 1; i <= n; i++)            # insertion sort: a few dozen sizes
        for (j = i; j > 1 && list[j - 1] > list[j]; j--) { t = list[j]; list[j] = list[j - 1]; list[j - 1] = t }
    for (i = 1; i <= n; i++) {
        m = list[i]
        if (!((base, m) in pp)) continue
        o = (pp[base, m] - H[base] * lp) / 2
        lf = "-"; ls = "-"
        if (ring && (ring, m) in pp)
            lf = (pp[ring, m] - pp[base, m] - (H[ring] - H[base]) * lp) / (F[ring] - F[base])
        if (tor && lf != "-" && (tor, m) in pp)
            ls = (pp[tor, m] - 2 * o - H[tor] * lp - F[tor] * lf) / S[tor]
        printf "%d\t%.6g\t%s\t%s\t%.6g\n", m, o, lf == "-" ? lf : sprintf("%.6g", lf),
               ls == "-" ? ls : sprintf("%.6g", ls), lp
    }
}
