// The numasim command line: run, compare, validate, perf-bench-numa, machines, workloads,
// profiles. Every subcommand writes its output only once it has succeeded, so a bad input
// leaves nothing half-written behind.
#pragma once

namespace numasim {

int cli_main(int argc, char** argv);

}  // namespace numasim
