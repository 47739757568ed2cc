# gp.sh: sourced by the figure scripts (plots.sh, report.sh, scitrace/plot.sh,
# scisim/figure.sh, coll/figure.sh): the one way they run gnuplot.  Never
# leaves an empty or partial image under a figure's name.
#
#   gp_draw TAG SCRIPT OUTDIR NAME VAR-ASSIGNMENTS
#
# SCRIPT draws NAME.* (and any NAME-* it adds: out='DIR/NAME') into a
# staging directory inside OUTDIR; they move into OUTDIR only when gnuplot
# exits 0, prints nothing on stderr (a warning usually means a figure that
# silently lost data) and wrote no empty file.  Else a one-line message
# prefixed TAG and exit 1, the staging directory removed.
gp_draw() {
    local tag=$1 script=$2 dir=$3 name=$4 vars=$5 stage err f
    stage=$(mktemp -d "$dir/.gp-XXXXXX")
    if ! err=$(gnuplot -e "$vars; out='$stage/$name'" "$script" 2>&1 >/dev/null); then
        rm -rf "$stage"; echo "$tag: gnuplot $(basename "$script") failed: $err" >&2; exit 1
    fi
    if [ -n "$err" ]; then
        rm -rf "$stage"; echo "$tag: gnuplot $(basename "$script"): $err" >&2; exit 1
    fi
    for f in "$stage"/* ; do
        if [ ! -s "$f" ]; then
            rm -rf "$stage"; echo "$tag: gnuplot $(basename "$script") drew an empty $name" >&2; exit 1
        fi
    done
    mv -f "$stage"/* "$dir"/
    rmdir "$stage"
}
