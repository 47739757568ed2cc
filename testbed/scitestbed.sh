#!/bin/bash
# scitestbed: a cluster on one machine.  Network namespaces are the nodes,
# veth pairs the links of a ring or torus, the kernel the relays (IP
# forwarding, static routes), a bridge in a namespace of its own the
# management network; Open MPI runs one rank per node over it.
# Bash, not C: every step is an iproute2 command (docs/testbed.md).
set -u
PROG=scitestbed
VERSION='@VERSION@'
ST_ROOT=${SCITESTBED_STATE:-/run/scitestbed}
EXIT_USAGE=2 EXIT_RUNTIME=1 EXIT_DENIED=3

usage() {
    cat <<'EOF'
Usage: scitestbed [--name NAME] COMMAND [OPTIONS]
Build a ring or torus of network namespaces joined by veth links, with the
kernel relaying between them, and run MPI across it with one rank per node.

Commands:
  up --ring N | --torus AxB[xC] [--links one|bi] [--rate R] [--mtu B]
         [-- CMD [ARGS...]]
                      make the nodes (namespaces sct-NAME-0..), one veth link
                      per node and dimension to its +1 neighbour, the
                      management bridge (namespace sct-NAME-m) and the routes:
                      one-way (default: every destination via the next node
                      of the lowest dimension that differs, as SCI's rings)
                      or bi (the shorter way round in every dimension, ties
                      forward); dimension-ordered on a torus.  --rate R
                      shapes every link's egress with tc tbf (R as tc reads
                      it: 1gbit, 500mbit; packets paced by a peak bucket a
                      little over a packet); --mtu sets the data links' MTU
                      (default 1500).  With -- CMD the testbed lives while
                      CMD runs (SCITESTBED_NAME exported) and is removed
                      when it ends or scitestbed is killed (exit: CMD's).
  run [--timeout S] [--np N] [--nodes LIST] -- CMD [ARGS...]
                      run CMD under Open MPI, one rank per node (or on the
                      nodes of LIST only, e.g. 0,3, each node once, the
                      others relaying in the kernel and running nothing):
                      mpirun from the management namespace with the rsh
                      agent mapping each node's address to 'ip netns exec',
                      btl tcp,self over the data links, oob over the
                      bridge, mpi_yield_when_idle 1; prefixed by 'mpirun -np
                      NODES' unless CMD is mpirun itself or starts with an
                      option (then the options go to mpirun).  Bounded by
                      timeout S seconds (default 600; exit 124 when it
                      fires).
  hostfile [-o FILE]  print the hostfile (management addresses, slots=1);
                      -o writes it to FILE atomically (- : standard output;
                      a device or FIFO such as /dev/null is written in place)
  launcher            print the mpirun command line run uses, one word a line
  status              the nodes, links, rate and each node's routes
  down                remove every namespace, link, bridge and route of NAME
                      and the processes in them
  check               exit 0 if namespaces may be made here, else say why
                      (exit 3)

Options:
  --name NAME         testbed name, [a-z0-9]{1,8} (default: $SCITESTBED_NAME
                      or tb); several testbeds coexist under different names
  -h, --help          this text
  --version           the version

Addresses: management 198.18.0.0/24, nodes' data addresses 198.19.0.0/24
(RFC 2544's benchmarking range), only inside the testbed's namespaces: no
default route, no NAT, nothing on the host's interfaces.
Exit status: 0 success, 1 runtime failure, 2 usage error, 3 namespaces not
permitted (not root / no CAP_NET_ADMIN); run and up -- CMD: CMD's status.
Interrupted (run, up) by SIGINT (Ctrl-C), SIGTERM or SIGHUP: one line says
so, and the exit status is 130, as for every scitorus program; up removes
what it had made, run stops its command first.

Examples:
  scitestbed up --ring 6 && scitestbed run -- mpibench --ring 6 --route network --all-dst
  scitestbed up --torus 2x3 --rate 1gbit -- scitestbed run -- halo3d
  scitestbed down
EOF
}

die() { echo "$PROG: $*" >&2; exit "$EXIT_RUNTIME"; }
usage_error() { echo "$PROG: $*; try --help" >&2; exit "$EXIT_USAGE"; }

NAME=${SCITESTBED_NAME:-tb}
ns_node() { echo "sct-$NAME-$1"; }
ns_mgmt() { echo "sct-$NAME-m"; }
mgmt_addr() { echo "198.18.0.$(($1 + 1))"; }
data_addr() { echo "198.19.0.$(($1 + 1))"; }
state_dir() { echo "$ST_ROOT/$NAME"; }

# Namespaces may be made here?  Probes with one of our own names.
check_permitted() {
    local probe="sct-probe-$$" msg
    if ! msg=$(ip netns add "$probe" 2>&1); then
        echo "$PROG: network namespaces are not permitted here (needs root or CAP_NET_ADMIN): ip netns add: ${msg:-failed}" >&2
        exit "$EXIT_DENIED"
    fi
    ip netns del "$probe"
}

# --- shape -----------------------------------------------------------------
DIMS=() NODES=0
parse_shape() {   # "6" (ring) or "2x3[x4]"
    local s=$1 opt=$2 k
    [[ $s =~ ^[0-9]+(x[0-9]+){0,2}$ ]] || usage_error "$opt '$s': expected N or AxB[xC]"
    IFS=x read -r -a DIMS <<<"$s"
    NODES=1
    for k in "${DIMS[@]}"; do
        [[ $k =~ ^0*[2-9]$|^0*[1-9][0-9]+$ ]] || usage_error "$opt '$s': every dimension needs 2 or more nodes"
        k=$((10#$k)); NODES=$((NODES * k))
    done
    ((NODES <= 64)) || usage_error "$opt '$s': $NODES nodes, at most 64"
}
coords() {   # rank -> C[] (row-major, the last dimension fastest)
    local r=$1 k
    C=()
    for ((k = ${#DIMS[@]} - 1; k >= 0; k--)); do C[k]=$((r % DIMS[k])); r=$((r / DIMS[k])); done
}
rank_of() {  # coordinates ($@) -> rank
    local r=0 k=0 c
    for c in "$@"; do r=$((r * DIMS[k] + c)); k=$((k + 1)); done
    echo "$r"
}
neighbour() { # rank dim step(+1|-1) -> rank
    local k=$2 cc
    coords "$1"; cc=("${C[@]}")
    cc[k]=$(((cc[k] + $3 + DIMS[k]) % DIMS[k]))
    rank_of "${cc[@]}"
}

# --- signals ---------------------------------------------------------------
# An interrupted command says so in one line and exits 130 whichever stop
# signal it was, as the C programs do (docs/formats.md, 'Exit codes').
# on_signals CMD runs "CMD SIG" on SIGINT, SIGTERM or SIGHUP.
on_signals() {
    local sig
    for sig in INT TERM HUP; do trap "$1 $sig" "$sig"; done
}
interrupted() { # what SIG [what was done]
    echo "$PROG: $1: interrupted by SIG$2${3:+; $3}" >&2
    exit 130
}

# --- up --------------------------------------------------------------------
BUILDING=0
cleanup_on_signal() {
    trap - INT TERM HUP
    ((BUILDING)) && do_down quiet
    interrupted up "$1" "removed what was made"
}

nsexec() { ip netns exec "$@"; }

node_sysctls() {  # forwarding on; strict reverse-path checks off (one-way
                  # routes return by another link); no redirects, no IPv6
    nsexec "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
        net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 \
        net.ipv4.conf.default.send_redirects=0 net.ipv6.conf.all.disable_ipv6=1 \
        net.ipv6.conf.default.disable_ipv6=1 >/dev/null
}

do_up() {
    local links=$1 rate=$2 mtu=$3 i k j nb ns m dir f
    local sd; sd=$(state_dir)
    if ip netns list | grep -q "^$(ns_mgmt)\b" || [ -e "$sd" ]; then
        die "testbed '$NAME' is already up (scitestbed --name $NAME down removes it)"
    fi
    BUILDING=1
    on_signals cleanup_on_signal
    mkdir -p "$sd" || die "cannot create $sd"
    {
        echo "shape $(IFS=x; echo "${DIMS[*]}")"
        echo "links $links"; echo "rate ${rate:-none}"; echo "mtu $mtu"; echo "nodes $NODES"
    } >"$sd/config"
    local scimodel; scimodel=$(scimodel_bin) || fail_up "finding scimodel (it computes the routes)"
    "$scimodel" --shape "$(IFS=x; echo "${DIMS[*]}")" --links "$([ "$links" = bi ] && echo bi || echo uni)" \
        --routes -o "$sd/routes" || fail_up "scimodel --routes"
    m=$(ns_mgmt)
    ip netns add "$m" || fail_up "ip netns add $m"
    nsexec "$m" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 >/dev/null
    ip -n "$m" link set lo up
    ip -n "$m" link add name br0 type bridge || fail_up "bridge in $m"
    ip -n "$m" addr add 198.18.0.254/24 dev br0
    ip -n "$m" link set br0 up
    for ((i = 0; i < NODES; i++)); do
        ns=$(ns_node "$i")
        ip netns add "$ns" || fail_up "ip netns add $ns"
        node_sysctls "$ns" || fail_up "sysctl in $ns"
        ip -n "$ns" link set lo up
        # the node's data address sits on a veth whose peer stays in the node
        # (no dummy devices in this kernel); MPI's BTL binds to it
        ip -n "$ns" link add name node type veth peer name nodep || fail_up "node link in $ns"
        ip -n "$ns" addr add "$(data_addr "$i")/32" dev node
        ip -n "$ns" link set nodep up
        ip -n "$ns" link set node up
        ip link add name mg netns "$ns" type veth peer name "m$i" netns "$m" || fail_up "management link of $ns"
        ip -n "$ns" addr add "$(mgmt_addr "$i")/24" dev mg
        ip -n "$ns" link set mg up
        ip -n "$m" link set "m$i" master br0 up
    done
    for ((i = 0; i < NODES; i++)); do
        for ((k = 0; k < ${#DIMS[@]}; k++)); do
            nb=$(neighbour "$i" "$k" 1)
            ip link add name "d${k}p" netns "$(ns_node "$i")" mtu "$mtu" type veth peer name "d${k}m" \
                netns "$(ns_node "$nb")" mtu "$mtu" || fail_up "link $i -> $nb"
        done
    done
    local peak pmtu burst
    [ -z "$rate" ] || read -r peak pmtu burst < <(shaper_of "$rate" "$mtu")
    for ((i = 0; i < NODES; i++)); do
        ns=$(ns_node "$i")
        for ((k = 0; k < ${#DIMS[@]}; k++)); do
            for dir in p m; do
                nsexec "$ns" sysctl -qw "net.ipv4.conf.d$k$dir.rp_filter=0" >/dev/null
                ip -n "$ns" link set "d$k$dir" up
                # a peak bucket at 1.001 R paces the packets; its room beyond a
                # packet absorbs the timer's lateness (docs/testbed.md, "The rate")
                [ -z "$rate" ] || tc -n "$ns" qdisc add dev "d$k$dir" root tbf rate "$rate" \
                    burst "$burst" peakrate "$peak" mtu "$pmtu" latency 100ms ||
                    fail_up "tc tbf rate '$rate' on $ns d$k$dir"
            done
        done
        routes_of "$i" "$sd/routes" | ip -n "$ns" -batch - || fail_up "routes of $ns"
    done
    write_launch_files "$sd"
    BUILDING=0
    trap - INT TERM HUP
}

# tbf's numbers for tc's rate $1 (1gbit, 500mbit, 10mbps) and MTU $2: "peak
# pmtu burst".  Peak rate 1.001 R (tbf wants it above R); the peak bucket a
# packet plus the larger of half a packet and 25 us at R (the timer is ~12 us
# late); the rate bucket two packets or that.  Measured: docs/testbed.md.
shaper_of() {
    awk -v r="$1" -v pkt=$(($2 + 14)) 'BEGIN { u = r; sub(/^[0-9.]+/, "", u); v = substr(r, 1, length(r) - length(u))
        m = 1; if (u ~ /^k/) m = 1e3; else if (u ~ /^m/) m = 1e6; else if (u ~ /^g/) m = 1e9
        if (u ~ /bps$/) m *= 8
        slack = v * m / 8 * 25e-6; if (slack < pkt / 2) slack = pkt / 2
        pmtu = int(pkt + slack); burst = pmtu > 2 * pkt ? pmtu : 2 * pkt
        printf "%.0fbit %d %d\n", v * m * 1.001, pmtu, burst }'
}

fail_up() { echo "$PROG: up: $1 failed; removing what was made" >&2; do_down quiet; exit "$EXIT_RUNTIME"; }

# ip -batch lines: a /32 route to every other node via the next hop that
# scimodel --routes gives (the model's own dimension-order routing), so the
# relays route as the model counts.  $2: that table.
routes_of() {
    local i=$1 dst k way nb
    while read -r _ dst k way nb _; do
        echo "route add $(data_addr "$dst")/32 via $(data_addr "$nb") dev d$k$([ "$way" = +1 ] && echo p || echo m) onlink src $(data_addr "$i")"
    done < <(awk -v i="$i" '!/^#/ && $1 == i' "$2")
}

# scimodel beside this script (bin/, or where both are installed), else on PATH.
scimodel_bin() {
    local here
    here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
    if [ -x "$here/scimodel" ]; then echo "$here/scimodel"; else command -v scimodel; fi
}

write_launch_files() {
    local sd=$1 i
    for ((i = 0; i < NODES; i++)); do echo "$(mgmt_addr "$i") slots=1"; done >"$sd/hostfile"
    # Open MPI's rsh launcher calls AGENT HOST COMMAND...; HOST is a node's
    # management address, COMMAND the daemon's shell command line
    cat >"$sd/agent" <<EOF
#!/bin/sh
host=\$1; shift
case "\$host" in
  198.18.0.*) n=\$((\${host##*.} - 1)) ;;
  *) echo "scitestbed agent: unknown node '\$host'" >&2; exit 1 ;;
esac
# a session directory per node: daemons of one host name racing to create
# the same one fail with 'File exists'
export OMPI_MCA_orte_tmpdir_base="$sd/tmp/n\$n"
mkdir -p "\$OMPI_MCA_orte_tmpdir_base"
exec ip netns exec "sct-$NAME-\$n" /bin/sh -c "\$*"
EOF
    chmod 755 "$sd/agent"
}

# --- output files ----------------------------------------------------------
# write_output WHAT FILE: standard input into FILE by util/atomicfile's rule:
# a temporary file beside it, renamed when complete; a FILE that exists and
# is not a regular file (/dev/null, /dev/full, a FIFO) written in place,
# without waiting for a FIFO's reader, since a rename would replace the node.
write_output() {
    local what=$1 out=$2 tmp err
    if [ -d "$out" ]; then
        die "$what '$out': Is a directory"
    elif [ -e "$out" ] && [ ! -f "$out" ]; then
        err=$(dd of="$out" oflag=nonblock conv=notrunc status=none 2>&1 >/dev/null) || {
            err=${err##*: }
            [ "$err" != "No such device or address" ] || err="no process is reading this FIFO (or no such device)"
            die "$what '$out': $err"
        }
    else
        tmp=$(mktemp "$out.tmp.XXXXXX" 2>&1) || die "$what '$out': ${tmp##*: }"
        chmod "$(printf '%o' $((0666 & ~$(umask))))" "$tmp"
        if ! err=$({ cat >"$tmp" && sync "$tmp" && mv -f "$tmp" "$out"; } 2>&1); then
            rm -f "$tmp"
            die "$what '$out': ${err##*: }"
        fi
    fi
}

# --- down ------------------------------------------------------------------
our_namespaces() { ip netns list | awk '{print $1}' | grep -E "^sct-$NAME-([0-9]+|m)\$"; }

do_down() {
    local quiet=${1:-} ns pids n=0 try
    for try in TERM TERM KILL; do
        pids=""
        for ns in $(our_namespaces); do pids="$pids $(ip netns pids "$ns" 2>/dev/null)"; done
        [ -z "${pids// /}" ] && break
        kill -"$try" $pids 2>/dev/null
        sleep 0.5
    done
    for ns in $(our_namespaces); do ip netns del "$ns" && n=$((n + 1)); done
    rm -rf "$(state_dir)"
    [ -n "$quiet" ] || echo "$PROG: down: removed $n namespaces of '$NAME'" >&2
    [ -z "$(our_namespaces)" ] || die "down: namespaces of '$NAME' remain: $(our_namespaces | tr '\n' ' ')"
}

# --- run -------------------------------------------------------------------
load_config() {
    local sd; sd=$(state_dir)
    [ -r "$sd/config" ] || die "testbed '$NAME' is not up (scitestbed up --ring N)"
    parse_shape "$(awk '$1 == "shape" {print $2}' "$sd/config")" config
}

launcher_words() {  # the mpirun options, one word a line [hostfile]
    local sd; sd=$(state_dir)
    printf '%s\n' --allow-run-as-root --oversubscribe --hostfile "${1:-$sd/hostfile}" --map-by node \
        --mca plm_rsh_agent "$sd/agent" --mca btl tcp,self --mca btl_tcp_if_include node \
        --mca oob_tcp_if_include 198.18.0.0/24 --mca mpi_yield_when_idle 1
}

# --nodes LIST: ranks on those nodes only, in that order, each node once
# (one slot a node; the others relay in the kernel and run nothing)
check_nodes_list() {
    local list=$1 i seen=" "
    [[ $list =~ ^[0-9]+(,[0-9]+)*$ ]] || usage_error "--nodes '$list': e.g. 0,3"
    for i in ${list//,/ }; do
        i=$((10#$i))
        [[ $seen == *" $i "* ]] && usage_error "--nodes '$list': node $i is named twice (one rank a node)"
        seen+="$i "
    done
}
nodes_hostfile() {
    local sd list=$1 i hf
    sd=$(state_dir)
    hf=$sd/hostfile-${list//,/-}
    for i in ${list//,/ }; do
        ((10#$i < NODES)) || usage_error "--nodes '$list': node '$i' is not 0..$((NODES - 1))"
        echo "$(mgmt_addr $((10#$i))) slots=1"
    done >"$hf.tmp" && mv "$hf.tmp" "$hf"
    echo "$hf"
}

do_run() {
    local timeout=$1 np=$2 nodes=$3 hf=""; shift 3
    local -a opts cmd
    if [ -n "$nodes" ]; then
        hf=$(nodes_hostfile "$nodes") || exit
        np=${np:-$(tr ',' '\n' <<<"$nodes" | wc -l)}
    fi
    mapfile -t opts < <(launcher_words $hf)
    # a tracer's settings (scitrace run -- scitestbed run -- ...) go to the
    # ranks with -x, and not to mpirun and the daemons
    local v
    for v in LD_PRELOAD $(compgen -e SCITRACE_); do
        [ -n "${!v:-}" ] && opts+=(-x "$v=${!v}")
    done
    unset LD_PRELOAD
    if [[ $1 == mpirun || $1 == */mpirun || $1 == mpiexec || $1 == */mpiexec ]]; then
        cmd=("$1" "${opts[@]}" "${@:2}")
    elif [[ $1 == -* ]]; then
        cmd=(mpirun "${opts[@]}" "$@")
    else
        cmd=(mpirun "${opts[@]}" -np "${np:-$NODES}" "$@")
    fi
    # a signal to run is passed on to timeout, which passes it on to mpirun
    # (and kills it 10 s later); stdin stays the command's, not /dev/null
    local before; before=$(node_pids)
    on_signals forward_signal
    ip netns exec "$(ns_mgmt)" timeout --kill-after=10 "$timeout" "${cmd[@]}" <&0 &
    CHILD=$!
    [ -z "$SIGNALLED" ] || kill -s "$SIGNALLED" "$CHILD"
    wait_child
    if [ -n "$SIGNALLED" ]; then
        sweep_nodes "$before"
        interrupted run "$SIGNALLED" "stopped $1"
    fi
    exit "$CHILD_STATUS"
}

node_pids() {   # the processes in the nodes, one a line
    local i
    for ((i = 0; i < NODES; i++)); do ip netns pids "$(ns_node "$i")" 2>/dev/null; done | sort
}
# An mpirun interrupted while it starts its daemons can end before its ranks
# do: the processes that came into the nodes since $1 get 5 s, then SIGKILL.
sweep_nodes() {
    local try left
    for try in 1 2 3 4 5 6 7 8 9 10 KILL; do
        left=$(comm -13 <(echo "$1") <(node_pids))
        [ -n "$left" ] || return 0
        [ "$try" = KILL ] && kill -KILL $left 2>/dev/null
        sleep 0.5
    done
}

# The command run in the background (CHILD): the first signal to scitestbed
# is recorded and passed on to it (stop_child: as SIGTERM, which a background
# command does not ignore), and SIGKILL follows 15 s later if it is still there.
CHILD="" SIGNALLED="" CHILD_STATUS=0 KILLER=""
forward_signal() {
    [ -z "$SIGNALLED" ] || return 0
    SIGNALLED=$1
    kill -s "$1" "$CHILD" 2>/dev/null
    (trap 'kill $s; exit' TERM; sleep 15 & s=$!; wait $s; kill -KILL "$CHILD") >/dev/null 2>&1 &
    KILLER=$!
}
stop_child() { [ -n "$SIGNALLED" ] && return; forward_signal TERM; SIGNALLED=$1; }
wait_child() {   # until CHILD has ended: a trapped signal interrupts wait
    while kill -0 "$CHILD" 2>/dev/null; do wait "$CHILD"; done
    wait "$CHILD"
    CHILD_STATUS=$?
    [ -z "$KILLER" ] || kill "$KILLER" 2>/dev/null
}

do_status() {
    local sd i; sd=$(state_dir)
    cat "$sd/config"
    for ((i = 0; i < NODES; i++)); do
        echo "node $i $(ns_node "$i") $(data_addr "$i") mgmt $(mgmt_addr "$i")"
        ip -n "$(ns_node "$i")" -4 route show | grep -v '198.18.0.0/24' | sed 's/^/  /'
    done
}

# --- main: dispatch --------------------------------------------------------
while [ $# -gt 0 ]; do
    case $1 in
        --name) [ $# -ge 2 ] || usage_error "--name needs a value"; NAME=$2; shift 2 ;;
        --name=*) NAME=${1#--name=}; shift ;;
        -h|--help) usage; exit 0 ;;
        --version) echo "scitestbed (scitorus) $VERSION"; exit 0 ;;
        -*) usage_error "unknown option '$1'" ;;
        *) break ;;
    esac
done
[[ $NAME =~ ^[a-z0-9]{1,8}$ ]] || usage_error "--name '$NAME': expected 1-8 of a-z, 0-9"
[ $# -gt 0 ] || usage_error "a command is needed (up, run, hostfile, launcher, status, down, check)"
cmd=$1; shift
case $cmd in
    up)
        shape="" links=one rate="" mtu=1500 opt=""
        while [ $# -gt 0 ]; do
            case $1 in
                --ring|--torus)
                    [ -z "$shape" ] || usage_error "$1: the shape is already given ($opt)"
                    [ $# -ge 2 ] || usage_error "$1 needs a value"
                    opt=$1; shape=$2; shift 2
                    [ "$opt" = --ring ] && [[ $shape == *x* ]] && usage_error "--ring '$shape': one number"
                    [ "$opt" = --torus ] && [[ $shape != *x* ]] && usage_error "--torus '$shape': AxB or AxBxC"
                    ;;
                --links) [ $# -ge 2 ] || usage_error "--links needs a value"
                    [[ $2 == one || $2 == bi ]] || usage_error "--links '$2': one or bi"; links=$2; shift 2 ;;
                --rate) [ $# -ge 2 ] || usage_error "--rate needs a value"
                    [[ $2 =~ ^[0-9]+(\.[0-9]+)?([kmg]?(bit|bps))$ ]] || usage_error "--rate '$2': e.g. 1gbit, 500mbit"
                    rate=$2; shift 2 ;;
                --mtu) [ $# -ge 2 ] || usage_error "--mtu needs a value"
                    [[ $2 =~ ^[0-9]+$ ]] && (($2 >= 576 && $2 <= 65535)) || usage_error "--mtu '$2': 576..65535"
                    mtu=$2; shift 2 ;;
                -h|--help) usage; exit 0 ;;
                --) shift; break ;;
                *) usage_error "up: unknown argument '$1'" ;;
            esac
        done
        [ -n "$shape" ] || usage_error "up needs --ring N or --torus AxB[xC]"
        parse_shape "$shape" "$opt"
        check_permitted
        if [ $# -gt 0 ]; then
            # the testbed lives while the command runs; a signal ends both
            # (SIGTERM to the command: a background command ignores SIGINT)
            trap 'do_down quiet' EXIT
            do_up "$links" "$rate" "$mtu"
            on_signals stop_child
            SCITESTBED_NAME=$NAME "$@" <&0 &
            CHILD=$!
            wait_child
            do_down quiet
            trap - EXIT
            [ -z "$SIGNALLED" ] || interrupted up "$SIGNALLED" "removed the testbed"
            exit "$CHILD_STATUS"
        fi
        do_up "$links" "$rate" "$mtu"
        echo "$PROG: up: '$NAME', $NODES nodes ($opt $shape, links $links${rate:+, rate $rate}); scitestbed --name $NAME down removes it" >&2
        ;;
    run)
        timeout=600 np="" nodes=""
        while [ $# -gt 0 ]; do
            case $1 in
                --timeout) [[ ${2:-} =~ ^[0-9]+$ ]] && (($2 > 0)) || usage_error "--timeout '${2:-}': seconds, > 0"
                    timeout=$2; shift 2 ;;
                --np) [[ ${2:-} =~ ^[0-9]+$ ]] && (($2 > 0)) || usage_error "--np '${2:-}': a rank count"
                    np=$2; shift 2 ;;
                --nodes) check_nodes_list "${2:-}"; nodes=$2; shift 2 ;;
                --) shift; break ;;
                *) break ;;
            esac
        done
        [ $# -gt 0 ] || usage_error "run needs a command: run -- CMD [ARGS...]"
        load_config
        do_run "$timeout" "$np" "$nodes" "$@"
        ;;
    hostfile)
        out=-
        case "${1:-}" in
            -o|--output) [ $# -eq 2 ] && [ -n "$2" ] || usage_error "hostfile: -o FILE (- for standard output)"
                out=$2 ;;
            "") ;;
            *) usage_error "hostfile takes only -o FILE" ;;
        esac
        load_config
        if [ "$out" = - ]; then
            { err=$(cat "$(state_dir)/hostfile" 2>&1 >&3); } 3>&1 || die "standard output: ${err##*: }"
        else
            write_output "hostfile: -o" "$out" <"$(state_dir)/hostfile"
        fi ;;
    launcher) [ $# -eq 0 ] || usage_error "launcher takes no arguments"; load_config; launcher_words ;;
    status) [ $# -eq 0 ] || usage_error "status takes no arguments"; load_config; do_status ;;
    down) [ $# -eq 0 ] || usage_error "down takes no arguments"; do_down ;;
    check) [ $# -eq 0 ] || usage_error "check takes no arguments"; check_permitted; echo "$PROG: network namespaces can be made here" ;;
    *) usage_error "unknown command '$cmd'" ;;
esac
