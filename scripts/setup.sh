#!/usr/bin/env bash
# Installs the Debian 12 packages numasim needs (only those missing), then optionally builds and
# runs the built-in default experiment.
#   scripts/setup.sh           install missing packages
#   scripts/setup.sh --oracle  ... and what `numasim oracle` needs: qemu, a static busybox, cpio
#   scripts/setup.sh --run     ... then build (build/) and run `numasim run`
set -euo pipefail
cd "$(dirname "$0")/.."

run=0
oracle=0
for arg in "$@"; do
  case "$arg" in
    --run) run=1 ;;
    --oracle) oracle=1 ;;
    *) echo "setup: unknown option $arg (--run, --oracle)" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  build-essential cmake ninja-build pkg-config g++
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libhwloc-dev hwloc
  zlib1g-dev  # damo's compressed records (numasim import damon)
  libgtest-dev libgmock-dev libbenchmark-dev
  clang clang-format libclang-rt-14-dev
  libopenmpi-dev openmpi-bin  # numasim sweep under mpirun (docs/sweeps.md)
  chromium  # the HTML report's test in a real browser (scripts/report-browser-test.sh)
  time python3  # the bench scripts: /usr/bin/time -v for CPU time and peak RSS, python3 for the JSON
  trace-cmd  # reads --trace-format trace-dat files in tests/cli/trace_dat_test.cpp
  groff-base  # renders the man pages in tests/cli/man_page_test.cpp (groff -ww)
  bash-completion zsh  # run the completion scripts in tests/cli/completion_test.cpp
  dpkg-dev lintian  # cpack -G DEB's dependencies (dpkg-shlibdeps) and its check (deb-check.sh)
)
# `numasim oracle` boots Debian's kernel under qemu with an initramfs holding a static busybox;
# the kernel package itself is fetched with `apt-get download` on first use, never installed.
# cpio lets the tests list the initramfs numasim writes.
if [ "$oracle" = 1 ]; then
  PACKAGES+=(qemu-system-x86 busybox-static cpio)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$run" = 1 ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNUMASIM_BENCH=OFF
  cmake --build build --target numasim
  ./build/numasim run
fi
