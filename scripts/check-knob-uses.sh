#!/usr/bin/env bash
# Every knob that a profile, a scenario or the command line can set is read by the model: a knob
# declared in the table of src/numab/knobs.h and never used would be accepted and then ignored
# (docs/reliability.md, "Nothing accepted and then ignored"). For each row of NUMASIM_KNOBS,
# look for a read of the field (`.name` or `->name`) anywhere in src/ but the table itself.
set -euo pipefail
cd "$(dirname "$0")/.."
table=src/numab/knobs.h
knobs=$(grep -oE '^\s+X\([A-Za-z_:]+, [a-z_0-9]+,' "$table" | sed -E 's/.*X\([^,]+, ([a-z_0-9]+),/\1/')
[ -n "$knobs" ] || { echo "check-knob-uses: no knob rows found in $table" >&2; exit 1; }
unused=()
for k in $knobs; do
  if ! grep -rqE "(\.|->)${k}\b" src --include='*.cpp' --include='*.h' \
       --exclude=knobs.h --exclude=knobs.cpp; then
    unused+=("$k")
  fi
done
if [ ${#unused[@]} -gt 0 ]; then
  echo "check-knob-uses: knobs in $table that nothing in src/ reads: ${unused[*]}" >&2
  exit 1
fi
echo "check-knob-uses: $(wc -w <<<"$knobs") knobs, each read by the model"
