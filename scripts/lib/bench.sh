# Shared by the bench scripts (sourced, not run): the CPU time of one command to the
# microsecond, and the numasim build they measure.

# Runs a command and writes its CPU time and peak RSS to the file $1, in the words of
# /usr/bin/time -v but to the microsecond (time -v prints hundredths of a second, too coarse for
# rows that take a tenth of a second).
rusage() {
    local log=$1
    shift
    python3 -c '
import os, subprocess, sys
# The usage of this child alone (Python may have run others of its own).
child = subprocess.Popen(sys.argv[2:])
_, status, r = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"\tUser time (seconds): {r.ru_utime:.6f}\n"
            f"\tSystem time (seconds): {r.ru_stime:.6f}\n"
            f"\tMaximum resident set size (kbytes): {r.ru_maxrss}\n")
sys.exit(os.waitstatus_to_exitcode(status))
' "$log" "$@"
}

# Builds $NUMASIM (Release, in $BUILD_DIR) if it is missing.
ensure_numasim() {
    if [[ ! -x "$NUMASIM" ]]; then
        cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
        cmake --build "$BUILD_DIR" --target numasim >&2
    fi
}
