# Sourced by the scripts/oracle-*-check.sh ctests: what each checks before it boots a guest.
# oracle_check_start NAME BUILD_DIR (call it from the source tree): exits 77 (ctest's skip)
# when qemu-system-x86_64, busybox, python3 or BUILD_DIR's numasim-guest is missing; sets
# `build` to BUILD_DIR's absolute path and `out` to a temporary directory removed at exit.
oracle_check_start() {
  local name=$1 need
  build=$(realpath "${2:?usage: $0 BUILD_DIR}")
  for need in qemu-system-x86_64 busybox python3; do
    if ! command -v "$need" > /dev/null; then
      echo "$name: $need not installed; skipped"
      exit 77
    fi
  done
  if [ ! -x "$build/numasim-guest" ]; then
    echo "$name: $build/numasim-guest not built; skipped"
    exit 77
  fi
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
}
