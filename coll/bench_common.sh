# Sourced by coll/bench.sh and coll/predict_bench.sh: the sizes both
# compare, the lock every measuring hold takes (MEASURE_LOCK, so that other
# measurements on the machine wait), a scratch directory and the launcher.
sizes=8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536
lock=${MEASURE_LOCK:-${TMPDIR:-/tmp}/scitorus-measure.lock}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mr="timeout 100 mpirun --allow-run-as-root --oversubscribe -np ${np:-2}"
# median(a, n): the median of a[1..n] (sorts a in place)
awk_median='function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'
