#!/usr/bin/env bash
# Kills rank 1 of a sweep under `mpirun -n 2` with SIGKILL while cases run, and fails unless the
# cases finished so far are kept (with the bytes of the same cases run in one process), the
# error names the rank and the case it was running, and `--resume` under mpirun then writes the
# bytes of the uninterrupted sweep (docs/reliability.md, "Faults of the host").
#   scripts/sweep-mpi-kill-check.sh [BUILD_DIR]    default: build
# A build without MPI skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
numasim=$(realpath "$build/numasim")
if ! grep -q '^NUMASIM_HAVE_MPI:INTERNAL=1$' "$build/CMakeCache.txt"; then
  echo "sweep-mpi-kill-check: $build has no MPI; skipped"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 12 cases of about half a second of CPU each: long enough to kill rank 1 in the middle of one.
sweep=(sweep examples/autonumabench-numa01.toml --duration 3s --seeds 1..12)
mpi=(mpirun --oversubscribe --allow-run-as-root -n 2)
"$numasim" "${sweep[@]}" -j 2 -o "$out/whole" > "$out/whole.txt"

# The numasim processes started by `mpirun` (process $1), not other users' ranks.
ranks_of() {
  local p children
  children=$(pgrep -P "$1" || true)
  for p in $children; do
    if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = numasim ]; then echo "$p"; fi
    ranks_of "$p"
  done
}

"${mpi[@]}" "$numasim" "${sweep[@]}" -j 1 -o "$out/mpi" > "$out/killed.txt" 2> "$out/killed.err" &
launcher=$!
# Rank 1 dies once a few cases are written, in the middle of its next one.
for _ in $(seq 200); do
  [ "$(ls "$out/mpi/cases" 2>/dev/null | wc -l)" -ge 3 ] && break
  sleep 0.05
done
victim=
for p in $(ranks_of "$launcher"); do
  if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then
    victim=$p
  fi
done
if [ -z "$victim" ]; then
  echo "sweep-mpi-kill-check: rank 1 not found (the sweep ended first?)" >&2
  exit 1
fi
kill -KILL "$victim"
status=0
wait "$launcher" || status=$?
fail() { echo "sweep-mpi-kill-check: $*" >&2; cat "$out/killed.err" >&2; exit 1; }
[ "$status" -ne 0 ] || fail "mpirun exited 0 after rank 1 was killed"
kept=$(ls "$out/mpi/cases" | wc -l)
[ "$kept" -ge 3 ] && [ "$kept" -lt 12 ] || fail "$kept cases kept"
for f in "$out/mpi/cases"/*; do
  cmp "$f" "$out/whole/cases/$(basename "$f")" || fail "$(basename "$f") differs"
done
grep -q "rank 1" "$out/killed.err" || fail "the error does not name rank 1"
running=$(sed -n 's/.*rank 1: case \([0-9]*\).*/\1/p' "$out/killed.err" | head -1)
[ -n "$running" ] || fail "the error does not name rank 1's case"
[ ! -e "$out/mpi/cases/$(printf %04d "$running").json" ] ||
  fail "case $running, said to be under way on rank 1, is written"

"${mpi[@]}" "$numasim" "${sweep[@]}" -j 1 --resume -o "$out/mpi" > "$out/resumed.txt"
diff -r "$out/whole" "$out/mpi"
cmp "$out/whole.txt" "$out/resumed.txt"
grep "^numasim:" "$out/killed.err"
echo "sweep-mpi-kill-check: rank 1 killed in case $running; $kept cases kept; --resume wrote the bytes of the uninterrupted sweep"
