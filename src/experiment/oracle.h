// `numasim oracle`: the scenario on a real Linux kernel under qemu, beside the model. The guest
// gets the scenario machine's nodes, CPUs, memory and SLIT (scaled down to what the host can
// hold), the kernel knobs the scenario sets, and the scenario file itself, which numasim-guest
// runs as real processes and threads. The model then runs the same scenario on the same
// (guest) machine with the profile of the booted kernel's series, and both sides' counters and
// placements are put side by side. report/oracle_report.h prints the result; docs/oracle.md.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "experiment/oracle_figures.h"
#include "experiment/overrides.h"
#include "experiment/run.h"
#include "experiment/scenario.h"
#include "mm/memory_tiers.h"
#include "oracle/accel.h"
#include "oracle/debian_kernel.h"
#include "oracle/guest_machine.h"

namespace numasim {

// Boots of one oracle run: each takes a scenario's duration several times over under TCG (about
// 2 minutes for the CI scenario), so 100 is hours; more is a typo.
inline constexpr int kMaxOracleBoots = 100;

struct OracleOptions {
    std::string scenario;
    ScenarioOverrides overrides;  // --machine, --profile, --set, --param, ... as for `run`
    std::string variant;          // a [[variant]] of the scenario file to apply
    std::string kernel;           // --kernel bzImage; "" : Debian's kernel package
    std::string kernel_package = kDebianDefaultKernelPackage;  // --kernel-package
    // --damon-record: the guest runs the workload under DAMON's virtual-address monitoring and
    // this receives the record's text (docs/replay.md, "DAMON on the oracle's kernel"); empty: no
    // monitoring.
    std::function<void(const std::string&)> write_damon_record;
    int boots = 1;               // 1..kMaxOracleBoots
    int jobs = 1;                // workers for the model's iterations
    std::string accel = "auto";  // auto, kvm, tcg
    GuestLimits limits;          // max_mem_bytes 0: half of the host's available memory
    Nanos sample = 0;            // --sample interval inside the guest; 0: none
    std::string cache_dir;       // "" : default_oracle_cache_dir()
    std::string guest_binary;    // "" : guest_binary_for() the numasim executable
    std::string busybox = "/bin/busybox";
    std::string qemu = "qemu-system-x86_64";
    std::string log_dir;  // keep every boot's console log here ("" : only failed boots', in
                          // the cache)
    // Writes a console log (path, content); the commands write through cli's OutputFile.
    std::function<void(const std::string&, const std::string&)> write_log;
    double timeout_s = 0;                            // per boot; 0: from the scenario's duration
    std::function<void(const std::string&)> status;  // progress messages (stderr)
};

struct OracleResult {
    Scenario model;  // the scenario as the model ran it (guest machine, chosen profile)
    GuestMachine guest;
    // A tiered guest's (guest.topo.hmat) memory tiers as the model forms them for the profile.
    MemoryTiers model_tiers;
    KernelImage kernel;
    AccelChoice accel;
    std::vector<std::string> notes;  // profile choice, scaling, settings the kernel cannot take
    std::vector<std::pair<std::string, unsigned>> knobs;  // written into the guest
    std::vector<OracleBoot> boots;
    std::vector<RunResult> runs;
    std::vector<OracleFigure> figures;
};

// Boots and simulates. Throws InputError for bad input and for a boot that fails (with the log).
OracleResult run_oracle(const OracleOptions& o);

// The numasim-guest of the numasim executable `exe`: beside it (a build tree), else where
// `cmake --install` puts it, NUMASIM_GUEST_DIR relative to the executable's directory
// (../libexec/numasim), so that an installed tree works wherever its prefix is moved. The path
// beside it when neither exists (the error names it).
std::string guest_binary_for(const std::filesystem::path& exe);

// The nodes of `m` below the top memory tier when its firmware publishes an HMAT and the kernel
// reads it (v6.10+): the memory-only nodes a tiered oracle guest puts in a lower tier. Empty when
// every node is in the top tier.
std::vector<int> hmat_lower_tier_nodes(const Topology& m);

// The report's notes on the guest's memory-only nodes that the model onlines through dax/kmem
// (a lower memory tier): the guest gives them boot memory, in the DRAM tier. One per node.
std::vector<std::string> dax_kmem_notes(const Topology& guest);

}  // namespace numasim
