#!/bin/sh
# fake_p2p_ref: stands in for mpibench/p2p_bench.sh's references, by the
# name it is called as, so that a test knows each reference's figure:
# osu_latency 2 us at every size, osu_bw and osu_bibw 1000 MB/s, and skampi
# (writing -o FILE) 3000 ns for every measurement p2p_bench.sh reads, and the
# LD_PRELOAD it was given to FAKE_PRELOAD_LOG when that is set.  With
# FAKE_CALLS=DIR each name's every second launch reads 1.25 times slower
# (the count kept in DIR), so a test knows how far it disagrees with itself.
# As mpibench (the osu claim's call: rows of 8 B..64 KiB, the mean in column
# 15) it reads FAKE_MB_NS (default 1000) at every size, and with
# FAKE_MB_CALLS=DIR every second launch 1.25 times that.
set -eu
# under mpirun only rank 0 stands in: one output and one count a launch
[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0
k=1
if [ -n "${FAKE_CALLS:-}" ]; then
    echo x >> "$FAKE_CALLS/$(basename "$0")"
    [ $(($(wc -l < "$FAKE_CALLS/$(basename "$0")") % 2)) = 0 ] && k=1.25
fi
case $(basename "$0") in
    skampi)
        while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
        [ -z "${FAKE_PRELOAD_LOG:-}" ] || printf '%s\n' "${LD_PRELOAD:-}" >> "$FAKE_PRELOAD_LOG"
        for m in Pingpong_Issend_Recv Pingpong_Bsend_Recv Pingpong_Send_Iprobe_Recv Pingpong_Sendrecv \
                 Pingpong_Sendrecv_replace; do
            echo "# begin result \"$m\""
            s=8
            t=$(awk -v k="$k" 'BEGIN { printf "%.1f", 3000 * k }')
            while [ $s -le 1048576 ]; do echo "count= $s $s $t 1.0 32 $t $t"; s=$((s * 2)); done
            echo "# end result \"$m\""
        done > "$out.$$"
        mv "$out.$$" "$out" ;;
    mpibench)
        v=${FAKE_MB_NS:-1000}
        if [ -n "${FAKE_MB_CALLS:-}" ]; then
            echo x >> "$FAKE_MB_CALLS/mpibench"
            [ $(($(wc -l < "$FAKE_MB_CALLS/mpibench") % 2)) = 0 ] && v=$(awk -v v="$v" 'BEGIN { print v * 1.25 }')
        fi
        echo "# mpibench stand-in"
        for s in 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536; do
            printf 'pp\t0\t1\t1\t0\t0\t1\t0\t0\t%s\t1\t10\t%s\t%s\t%s\n' "$s" "$v" "$v" "$v"
        done ;;
    osu_latency | osu_bw | osu_bibw)
        [ "$(basename "$0")" = osu_latency ] && v=$(awk -v k="$k" 'BEGIN { printf "%.2f", 2 * k }') ||
            v=$(awk -v k="$k" 'BEGIN { printf "%.2f", 1000 / k }')
        echo "# OSU MPI stand-in"
        s=1
        while [ $s -le 4194304 ]; do echo "$s $v"; s=$((s * 2)); done ;;
esac
