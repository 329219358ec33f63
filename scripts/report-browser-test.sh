#!/usr/bin/env bash
# The HTML report in a real browser: makes a sampled run and its report, loads the page in
# headless Chromium (Debian `chromium`), fails on any console message (the page runs no
# script, so there must be none) or reference to another resource, checks that the charts
# rendered, and keeps a screenshot in BUILD/report-test/.
# First it loads a page that logs an error, to show that the check would catch one.
# Usage: scripts/report-browser-test.sh BUILD_DIR   (exit 77: no chromium, test skipped)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:?usage: $0 BUILD_DIR}")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report-browser-test: chromium not installed; skipped"
  exit 77
fi
out="$build/report-test"
rm -rf "$out"
mkdir -p "$out"
# Chromium wants a writable home and no sandbox when run as root in CI.
export HOME="$out/home"
flags=(--headless=new --no-sandbox --disable-gpu --no-first-run --disable-extensions
       --enable-logging=stderr --v=0 --user-data-dir="$out/profile")

# Console messages and uncaught exceptions reach stderr as
#   [pid:tid:date:INFO:CONSOLE:1] "text", source: url (1)
# (older releases write CONSOLE(1)); the report page runs no script, so it must log none.
console_errors() {
  grep -E ':CONSOLE[:(]' "$1" || true
}

load() {  # load URL LOG [extra flags]
  local url=$1 log=$2
  shift 2
  timeout 120 "$browser" "${flags[@]}" "$@" "$url" >"$log.out" 2>"$log.err"
}

printf '<!DOCTYPE html><html><body><script>console.error("planted");</script></body></html>\n' \
  >"$out/planted.html"
load "file://$out/planted.html" "$out/planted" --dump-dom
if [ -z "$(console_errors "$out/planted.err")" ]; then
  echo "report-browser-test: the console check missed a planted console.error" >&2
  exit 1
fi

"$build/numasim" run examples/knobs.toml --duration 8s --sample 500ms --out-dir "$out/run" \
  >/dev/null
"$build/numasim" report "$out/run" --html "$out/report.html"
if grep -Eq '(src|href)=' "$out/report.html"; then
  echo "report-browser-test: the page loads another resource" >&2
  exit 1
fi
load "file://$out/report.html" "$out/report" --dump-dom
errors=$(console_errors "$out/report.err")
if [ -n "$errors" ]; then
  echo "report-browser-test: console errors:" >&2
  echo "$errors" >&2
  exit 1
fi
svgs=$(grep -o '<svg' "$out/report.out" | wc -l)
lines=$(grep -o '<polyline' "$out/report.out" | wc -l)
if [ "$svgs" -lt 4 ] || [ "$lines" -lt 4 ]; then
  echo "report-browser-test: the rendered page has $svgs charts and $lines lines" >&2
  exit 1
fi
load "file://$out/report.html" "$out/shot" --screenshot="$out/report.png" --window-size=1000,1900
test -s "$out/report.png"
echo "report-browser-test: ok ($svgs charts, screenshot $out/report.png)"
