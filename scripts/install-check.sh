#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, which is then moved (an installed numasim must not
# depend on where it was installed); every file is there and every man page renders without a
# groff warning; every example run from a directory outside the source tree by the installed
# binary and by the build tree's gives the same bytes (text and --json); and the out-of-tree
# policy of examples/policy-plugin builds against the installed package (find_package(numasim))
# and runs under the installed numasim. A read-only prefix must fail with a message naming it.
#   scripts/install-check.sh BUILD_DIR
# Both binaries are run as `numasim` from $PATH with the same arguments and working directory,
# so that the provenance they print (command line, scenario path) is the same too; nothing is
# left out of the comparison.
set -euo pipefail
build=$(cd "${1:?usage: scripts/install-check.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install-check: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" ||
  { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }
mv "$tmp/prefix" "$tmp/moved"
prefix=$tmp/moved
# A prefix that cannot be written is bad input (docs/install.md): a non-zero exit and CMake's
# message naming the directory, not a partial install. Root writes through file modes, so as root
# the prefix is under a read-only tmpfs in a mount namespace of its own.
ro=$tmp/read-only
mkdir "$ro"
if [ "$(id -u)" -eq 0 ]; then
  # shellcheck disable=SC2016 # the inner sh expands its own \$1 and \$2
  unshare -m sh -c 'mount -t tmpfs -o ro tmpfs "$1" || exit 99; cmake --install "$2" --prefix "$1/usr"' \
    sh "$ro" "$build" >"$tmp/ro.log" 2>&1 && rc=0 || rc=$?
else
  chmod a-w "$ro"
  cmake --install "$build" --prefix "$ro/usr" >"$tmp/ro.log" 2>&1 && rc=0 || rc=$?
fi
if [ "$rc" -eq 99 ]; then
  echo "install-check: read-only prefix not checked: cannot mount a tmpfs here" >&2
elif [ "$rc" -eq 0 ] || ! grep -q "cannot create directory: $ro/usr" "$tmp/ro.log" ||
  [ -e "$ro/usr" ]; then
  cat "$tmp/ro.log" >&2
  fail "cmake --install into a read-only prefix: exit $rc (a non-zero exit naming it expected)"
fi
for f in bin/numasim libexec/numasim/numasim-guest share/man/man1/numasim.1.gz \
  share/man/man1/numasim-run.1.gz share/bash-completion/completions/numasim \
  share/zsh/vendor-completions/_numasim share/doc/numasim/copyright \
  include/numasim/policy_plugin.h share/cmake/numasim/numasimConfig.cmake \
  share/cmake/numasim/numasimConfigVersion.cmake; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
# Every page the build tree's numasim writes is installed, and renders as man would show it
# without a warning from groff.
for page in $("$build/numasim" man --out-dir "$tmp/pages" && ls "$tmp/pages"); do
  installed=$prefix/share/man/man1/$page.gz
  [ -f "$installed" ] || fail "man page $page is not installed"
  warnings=$(zcat "$installed" | groff -ww -z -man 2>&1)
  [ -z "$warnings" ] || fail "groff -ww: $page: $warnings"
done

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
n=0
for example in "$src"/examples/*.toml; do
  for format in "" --json; do
    args=(run "$example" --iterations 1 --duration 2s ${format:+"$format"})
    PATH="$prefix/bin:$PATH" numasim "${args[@]}" >"$tmp/installed.out" ||
      fail "installed: numasim ${args[*]} failed"
    PATH="$build:$PATH" numasim "${args[@]}" >"$tmp/build.out" ||
      fail "build tree: numasim ${args[*]} failed"
    cmp -s "$tmp/installed.out" "$tmp/build.out" ||
      { diff "$tmp/build.out" "$tmp/installed.out" | head -20 >&2;
        fail "numasim ${args[*]}: the installed binary's output differs"; }
    n=$((n + 1))
  done
done
# The plugin example, configured and built from its own directory as a user would, then compared
# with mainline under the installed numasim: both columns printed, and the plugin's policy named.
plugin=$tmp/policy-plugin
cmake -S "$src/examples/policy-plugin" -B "$plugin" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/plugin.log" 2>&1 &&
  cmake --build "$plugin" >>"$tmp/plugin.log" 2>&1 ||
  { cat "$tmp/plugin.log" >&2; fail "examples/policy-plugin does not build against the install"; }
PATH="$prefix/bin:$PATH" numasim policies --policy-plugin "$plugin/libsecond_fault.so" |
  grep -q "^second-fault " || fail "numasim policies does not list the plugin's policy"
PATH="$prefix/bin:$PATH" numasim compare "$src/examples/policy-plugin/scenario.toml" \
  --policy-plugin "$plugin/libsecond_fault.so" >"$tmp/plugin.out" ||
  fail "numasim compare examples/policy-plugin/scenario.toml failed"
grep -q "Ops Page migrate success" "$tmp/plugin.out" && grep -q "second" "$tmp/plugin.out" ||
  { cat "$tmp/plugin.out" >&2; fail "the plugin example printed no comparison"; }
echo "install-check: ok, $n runs of the installed numasim identical to the build tree's"
