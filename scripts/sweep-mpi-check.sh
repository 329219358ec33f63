#!/usr/bin/env bash
# Runs a small sweep in one process and under `mpirun -n 2`, and fails unless both write the
# same bytes (the case files, sweep.csv, compare.txt and the printed tables).
#   scripts/sweep-mpi-check.sh [BUILD_DIR]    default: build
# A build without MPI (cmake -DNUMASIM_MPI=OFF, or none found) skips the MPI run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
numasim=$(realpath "$build/numasim")
if ! grep -q '^NUMASIM_HAVE_MPI:INTERNAL=1$' "$build/CMakeCache.txt"; then
  echo "sweep-mpi-check: $build has no MPI; skipped"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 8 cases of 2 iterations, a few seconds of CPU.
sweep=(sweep examples/knobs.toml --duration 3s --iterations 2 --seeds 1..2
       --set smallimp=0,30 --set scan_size_mb=64,256)
"$numasim" "${sweep[@]}" -j 2 -o "$out/local" > "$out/local.txt"
mpirun --oversubscribe --allow-run-as-root -n 2 \
  "$numasim" "${sweep[@]}" -j 1 -o "$out/mpi" > "$out/mpi.txt"
diff -r "$out/local" "$out/mpi"
cmp "$out/local.txt" "$out/mpi.txt"
echo "sweep-mpi-check: mpirun -n 2 wrote the bytes of the local run ($(ls "$out/mpi/cases" | wc -l) cases)"
