#!/bin/bash
# make memcheck: valgrind over scimodel's modes, calibrate's readers and
# fits, scibench's patterns and mpibench under mpirun (each rank under
# valgrind, with Open MPI's own suppressions and tests/valgrind-openmpi.supp:
# what MPI_Init keeps).  A run with errors prints valgrind's report and
# fails; exit statuses of the programs themselves are reported, not judged.
# The benchmarks' runs measure (they spin two CPUs for a few seconds).
# Run from the repository's root, after make bin/scimodel bin/calibrate
# bin/scibench bin/mpibench.
set -e
mkdir -p build
memcheck=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
memcheck_mpi=("${memcheck[@]}" --num-callers=40)
[ -e /usr/share/openmpi/openmpi-valgrind.supp ] &&
  memcheck_mpi+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
memcheck_mpi+=(--suppressions=tests/valgrind-openmpi.supp)
for args in "--dims 1..4 --nodes 1000" "--preset enhanced --crossover --format tsv" \
    "--sweep --nodes 2000 --dims 1..4" "--sweep --sweep-points 50 --nodes 1000000" \
    "--shape 4x4x4 --format tsv" "--shape 4x4x4 --hops 1,0,3" \
    "--fill interpolate --metric multicast --crossover" \
    "--params tests/fixtures/plots/ring2.params --dims 1..4" "--nodes 1" \
    "--links bi --pattern complement --nodes 4096" "--pattern transpose --shape 16x16 --links bi" \
    "--bcast binomial --nodes 4096" "--load --nodes 1000 --links bi" \
    "--load --shape 6x6x6 --pattern tornado --rates 0.001" "--nodes 3" \
    "--traffic tests/fixtures/traffic/halo3d-64.tsv --dims 1..4 --links bi" \
    "--traffic tests/fixtures/traffic/halo3d-64-scrambled.tsv --dims 3 --placement optimize --anneal-steps 2000" \
    "--pattern tornado --nodes 1e15 --dims 1..16" "--bcast binomial --dims 1..16 --links bi"; do \
  rc=0; "${memcheck[@]}" bin/scimodel $args > /dev/null 2>build/memcheck.err || rc=$?
  if [ $rc = 99 ]; then cat build/memcheck.err; echo "memcheck: scimodel $args: errors"; exit 1; fi
  echo "memcheck: scimodel $args: clean (exit $rc)"
done
"${memcheck[@]}" bin/calibrate --data tests/fixtures/plots/ring2.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || \
  { cat build/memcheck.err; echo "memcheck: calibrate --data: errors"; exit 1; }
echo "memcheck: calibrate --data tests/fixtures/plots/ring2.tsv: clean"
rc=0; "${memcheck[@]}" bin/calibrate --data tests/fuzz/corpus/benchdata/short.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$?
  [ $rc != 99 ] || { cat build/memcheck.err; exit 1; }
echo "memcheck: calibrate on an incomplete file: clean"
"${memcheck[@]}" bin/calibrate --logp data/sample/logp-shm.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || \
  { cat build/memcheck.err; echo "memcheck: calibrate --logp: errors"; exit 1; }
echo "memcheck: calibrate --logp data/sample/logp-shm.tsv: clean"
grep -v '^# L_ns' data/sample/logp-shm.tsv > build/memcheck-no-L.tsv
rc=0; "${memcheck[@]}" bin/calibrate --logp build/memcheck-no-L.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$?
  [ $rc != 99 ] || { cat build/memcheck.err; echo "memcheck: calibrate --logp without L_ns: errors"; exit 1; }
echo "memcheck: calibrate --logp on a file without '# L_ns': clean (exit $rc)"
for args in "--sizes 8,1024 --max-time 0.05 -q -o build/memcheck.tsv" "--floor --sizes 8" \
    "--resume build/memcheck.tsv" "--cpus 0,0" \
    "--ring 2 --interleave 8=build/memcheck-r8.tsv --interleave 4x4=build/memcheck-t44.tsv --sizes 8,1024 --max-time 0.05 -q -o build/memcheck-r2.tsv" \
    "--pattern logp --max-size 64 --max-rtt 5 --os-fence -q -o build/memcheck-logp.tsv"; do \
  rc=0; "${memcheck[@]}" bin/scibench $args > /dev/null 2>build/memcheck.err || rc=$?
  if [ $rc = 99 ]; then cat build/memcheck.err; echo "memcheck: scibench $args: errors"; exit 1; fi
  echo "memcheck: scibench $args: clean (exit $rc)"
done
rc=0; "${memcheck[@]}" bin/calibrate --data build/memcheck-r2.tsv build/memcheck-r8.tsv build/memcheck-t44.tsv \
  -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$?
  [ $rc != 99 ] || { cat build/memcheck.err; echo "memcheck: calibrate, joint fit: errors"; exit 1; }
echo "memcheck: calibrate --data (2-, 8-node rings, 4x4 torus): clean (exit $rc)"
rc=0; "${memcheck[@]}" bin/calibrate --logp build/memcheck-logp.tsv -o build/memcheck.params > /dev/null 2>build/memcheck.err || rc=$?
  [ $rc != 99 ] || { cat build/memcheck.err; echo "memcheck: calibrate --logp, fenced: errors"; exit 1; }
echo "memcheck: calibrate --logp (an --os-fence file): clean (exit $rc)"
rc=0; timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "${memcheck_mpi[@]}" bin/mpibench \
  --sizes 8,1024 --max-time 0.05 -q -o build/memcheck-mpi.tsv > build/memcheck.err 2>&1 || rc=$?
if [ $rc != 0 ]; then cat build/memcheck.err; echo "memcheck: mpibench: errors (exit $rc)"; exit 1; fi
echo "memcheck: mpirun -np 2 mpibench --sizes 8,1024: clean"
for args in "--ring 2 --interleave 6=build/memcheck-mpi-r6.tsv --echo --sizes 8,1024 --max-time 0.05 -q -o build/memcheck-mpi-r2.tsv" \
    "--pattern logp --max-size 64 --max-rtt 5 --os-fence -q -o build/memcheck-mpi-logp.tsv"; do \
  rc=0; timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "${memcheck_mpi[@]}" bin/mpibench \
    $args > build/memcheck.err 2>&1 || rc=$?
  if [ $rc != 0 ]; then cat build/memcheck.err; echo "memcheck: mpibench $args: errors (exit $rc)"; exit 1; fi
  echo "memcheck: mpirun -np 2 mpibench $args: clean"
done
