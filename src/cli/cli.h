// The numasim command line: run, compare, validate, oracle, perf-bench-numa, machines, workloads,
// profiles. Every subcommand writes its output only once it has succeeded, so a bad input
// leaves nothing half-written behind.
#pragma once

namespace numasim {

// Exit codes (README, "Exit codes"): 0 success; 1 an internal error (a bug) or, with `validate
// --strict`, a headline effect missed; 2 bad input of any kind (an option, a file, a key, a
// value, a limit), reported as "numasim: error: WHERE: PROBLEM" before any output is written.
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

int cli_main(int argc, char** argv);

}  // namespace numasim
