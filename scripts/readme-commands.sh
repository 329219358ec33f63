#!/usr/bin/env bash
# The README's two commands, in order, on a fresh clone of this repository's HEAD:
# `./scripts/setup.sh --run`, then `./scripts/test.sh`. Fails unless the test command ran more
# than 200 tests and all of them passed (setup.sh --run configures build/ without tests, which
# test.sh once reused, printing "No tests were found!!!" and exiting 0).
#   scripts/readme-commands.sh [KEEP_DIR]   KEEP_DIR (new or empty): keep the clone and its builds
#                                           there (CI reuses its Release build) instead of deleting
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${1:-}" ]; then
  mkdir -p "$1"
  dir=$(cd "$1" && pwd)
  [ -z "$(ls -A "$dir")" ] || { echo "readme-commands: $dir is not empty" >&2; exit 1; }
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
git clone -q "$src" "$dir/numasim"
cd "$dir/numasim"
./scripts/setup.sh --run
./scripts/test.sh 2>&1 | tee "$dir/test.log"
n=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9][0-9]*\).*/\1/p' "$dir/test.log" | tail -1)
if [ -z "$n" ] || [ "$n" -le 200 ]; then
  echo "readme-commands: the test command ran ${n:-no} tests; expected more than 200" >&2
  exit 1
fi
echo "readme-commands: ok, $n tests"
