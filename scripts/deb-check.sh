#!/usr/bin/env bash
# Builds the Debian package from BUILD_DIR (cpack -G DEB), checks it with lintian (no errors;
# warnings are printed), installs it with apt-get, runs the installed numasim from outside the
# source tree, and removes the package again.
#   scripts/deb-check.sh BUILD_DIR
# Needs root or sudo (apt-get), and dpkg-dev and lintian (scripts/setup.sh).
set -euo pipefail
build=$(cd "${1:?usage: scripts/deb-check.sh BUILD_DIR}" && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
fail() { echo "deb-check: $*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' numasim 2>/dev/null | grep -q "install ok installed"; then
  fail "a numasim package is installed already; this check installs and removes its own"
fi
rm -f "$build"/numasim_*.deb
(cd "$build" && cpack -G DEB >cpack.log) || { cat "$build/cpack.log" >&2; fail "cpack failed"; }
debs=("$build"/numasim_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack wrote no numasim_*.deb"
deb=${debs[0]}
echo "deb-check: $(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
# --fail-on error: warnings are shown but do not fail the check.
lintian --fail-on error --tag-display-limit 0 "$deb" || fail "lintian reports errors"

tmp=$(mktemp -d)
trap '$SUDO apt-get remove -y -qq numasim >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$deb" >"$tmp/apt.log" ||
  { cat "$tmp/apt.log" >&2; fail "apt-get install $deb failed"; }
cd "$tmp"
[ "$(command -v numasim)" = /usr/bin/numasim ] || fail "numasim is not /usr/bin/numasim"
[ -x /usr/libexec/numasim/numasim-guest ] || fail "numasim-guest is not installed"
man -w numasim-run >/dev/null || fail "man cannot find numasim-run(1)"
numasim --version
numasim run --duration 2s >run.out || fail "numasim run failed"
grep -q "numa_pages_migrated" run.out || fail "numasim run printed no report"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get remove -y -qq numasim >"$tmp/apt.log" ||
  { cat "$tmp/apt.log" >&2; fail "apt-get remove numasim failed"; }
[ ! -e /usr/bin/numasim ] || fail "/usr/bin/numasim is left after apt-get remove"
echo "deb-check: ok, $(basename "$deb") built, lintian-clean, installed, run and removed"
