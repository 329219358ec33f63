// What `numasim oracle` compares: each figure of the real kernel's boots beside the same figure
// of the model's runs. The vmstat deltas over the workload, the workload tasks' summed
// se.nr_migrations and numa_pages_migrated, how many tasks ended on and prefer each node, and
// each process's pages per node per region ("process/region N<k>"; a shared object counts once,
// private ones add up over the instances). Then the verdict on each: the medians, their ratio
// and whether it lies within a factor of two. report/oracle_table.h prints them.
#pragma once

#include <string>
#include <vector>

#include "experiment/run.h"
#include "machine/topology.h"
#include "oracle/guest_log.h"

namespace numasim {

struct OracleBoot {
    BootLog log;
    double wall_s = 0;
    std::string console_log;  // path, if kept
};

struct OracleFigure {
    std::string name;           // "numa_pages_migrated", "tasks: se.nr_migrations", "p/buf N1"
    std::vector<double> real;   // one per boot
    std::vector<double> model;  // one per simulated iteration
};

std::vector<OracleFigure> oracle_figures(const std::vector<OracleBoot>& boots,
                                         const std::vector<RunResult>& runs,
                                         const Topology& machine);

// The factor within which a prediction counts as agreeing with the real kernel.
inline constexpr double kOracleAgreementFactor = 2.0;

struct OracleVerdict {
    std::string name;
    double real_median = 0, model_median = 0;
    double ratio = 0;  // model / real; 1 when both are 0, +inf when only the real one is 0
    bool within = false;
};

OracleVerdict judge_oracle_figure(const OracleFigure& f);

}  // namespace numasim
