#include "experiment/oracle.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "experiment/observation.h"
#include "experiment/oracle_guest_boot.h"
#include "guest/protocol.h"
#include "machine/memory_device.h"
#include "mm/memory_tiers.h"
#include "numab/profile.h"
#include "oracle/guest_image.h"
#include "oracle/kernel_image.h"
#include "oracle/qemu_command.h"
#include "oracle/subprocess.h"

namespace numasim {

namespace fs = std::filesystem;

namespace {

// The kernel's memory, the initramfs (unpacked into tmpfs) and the page tables need room beside
// the workload; a Debian 6.1 guest with 4 vCPUs uses about 150 MiB before init runs.
constexpr uint64_t kGuestOverheadBytes = uint64_t{384} << 20;

// The debugfs scan knobs a real kernel takes (kernel/sched/debug.c, v5.13+).
const std::vector<std::string> kKernelKnobKeys = {"numa_balancing",
                                                  "scan_delay_ms",
                                                  "scan_period_min_ms",
                                                  "scan_period_max_ms",
                                                  "scan_size_mb",
                                                  "transparent_hugepage_enabled",
                                                  "transparent_hugepage_defrag"};

// The scenario's [[variant]] NAME, applied over the command line's overrides.
ScenarioOverrides with_variant(const OracleOptions& o) {
    ScenarioOverrides ov = o.overrides;
    if (o.variant.empty()) return ov;
    for (const Variant& v : load_scenario_file(o.scenario, ov).variants) {
        if (v.name != o.variant) continue;
        ov.insert(ov.end(), v.overrides.begin(), v.overrides.end());
        return ov;
    }
    throw InputError(o.scenario, "variant", "no [[variant]] named '" + o.variant + "'");
}

bool overrides_key(const ScenarioOverrides& ov, const std::string& key) {
    return std::any_of(ov.begin(), ov.end(), [&](const KeyAssignment& a) { return a.key == key; });
}

// Knobs the scenario file's [numa_balancing] table and the overrides set.
std::vector<std::string> knobs_set(const std::string& file, const ScenarioOverrides& ov) {
    std::vector<std::string> keys;
    const TomlTable doc = TomlTable::parse_file(file, ov);
    if (auto nb = doc.table("numa_balancing")) keys = nb->keys();
    return keys;
}

std::vector<std::pair<std::string, unsigned>> guest_knobs(const NumaBalancingKnobs& k) {
    return {{"scan_delay_ms", k.scan_delay_ms},
            {"scan_period_min_ms", k.scan_period_min_ms},
            {"scan_period_max_ms", k.scan_period_max_ms},
            {"scan_size_mb", k.scan_size_mb}};
}

std::string gib(uint64_t bytes) {
    return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1 << 30));
}

OracleBoot boot_once(const GuestMachine& g, const QemuBoot& qb, double timeout_s, int index,
                     int total, const OracleOptions& o, const std::string& cache) {
    BootLogReader reader;
    const auto argv = qemu_argv(g, qb);
    CommandOptions co;
    co.timeout_s = timeout_s;
    co.on_line = [&](std::string_view line) {
        const std::string kind = reader.feed(line);
        if (kind == "progress" && o.status)
            o.status(fmt::format("boot {}/{}: {}", index, total, reader.log().progress.back()));
    };
    if (o.status)
        o.status(fmt::format("boot {}/{}: starting qemu ({})", index, total, to_string(qb.accel)));
    const CommandResult r = run_command(argv, co);
    OracleBoot b;
    b.wall_s = r.wall_s;
    b.log = reader.take();
    const bool ok = !r.timed_out && b.log.ended && b.log.rc == 0 && b.log.errors.empty();
    std::string dir = o.log_dir;
    if (!ok && dir.empty()) dir = (fs::path(cache) / "logs").string();
    if (!dir.empty() && o.write_log) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
            throw InputError(o.log_dir.empty() ? "--cache" : "--log-dir", dir,
                             "cannot create the directory: " + ec.message());
        b.console_log = (fs::path(dir) / fmt::format("boot-{}.log", index)).string();
        o.write_log(b.console_log, r.output);
    }
    if (!ok) {
        // The kernel's OOM killer ends a process that binds more memory to a node than it has.
        const auto d = b.log.vmstat_delta();
        const auto oom = d.find("oom_kill");
        std::string why = oom != d.end() && oom->second > 0
                              ? fmt::format(
                                    "the real kernel's OOM killer killed {} workload "
                                    "process(es) (vmstat oom_kill): the memory bound to a "
                                    "node does not fit that node of the guest",
                                    oom->second)
                          : r.timed_out ? fmt::format("timed out after {:.0f} s", timeout_s)
                          // Not the guest's doing: the host ended qemu (the OOM killer, a user).
                          : r.signal ? fmt::format("qemu was killed by signal {} ({})", r.signal,
                                                   strsignal(r.signal))
                          : !b.log.errors.empty() ? "the guest reported: " + b.log.errors.front()
                          : !b.log.ended          ? "the guest stopped before the end (panic?)"
                                         : fmt::format("the runner exited with {}", b.log.rc);
        if (!b.console_log.empty()) why += "; console log: " + b.console_log;
        throw InputError("oracle", fmt::format("boot {}", index), why);
    }
    return b;
}

// --damon-record needs DAMON in the booted kernel: a config read before the boot says so at once
// (without one the guest finds out and says so).
void check_damon_kernel(const KernelImage& k) {
    if (k.config.empty()) return;
    std::ifstream in(k.config);
    std::ostringstream text;
    text << in.rdbuf();
    if (!config_has_damon_vaddr_sysfs(text.str()))
        throw InputError(k.config, "CONFIG_DAMON",
                         fmt::format("--damon-record needs CONFIG_DAMON_VADDR=y and "
                                     "CONFIG_DAMON_SYSFS=y, and {} ({}) is built without them; "
                                     "Debian's 6.12 kernel has them: --kernel-package "
                                     "linux-image-6.12-amd64",
                                     k.release, k.origin));
}

// "nodes 2,3" / "node 2".
std::string nodes_text(const std::vector<int>& nodes) {
    return fmt::format("{} {}", nodes.size() > 1 ? "nodes" : "node", fmt::join(nodes, ","));
}

// A tiered guest's boot whose kernel formed fewer tiers than the model: its firmware's HMAT
// was not read (CONFIG_ACPI_HMAT off, or a kernel before v6.10), so mode 2 and demotion have
// nothing to do on it.
void check_real_tiers(const OracleBoot& b, int index, const MemoryTiers& model) {
    if (b.log.tiers.size() >= model.tiers.size()) return;
    std::string real;
    for (const auto& [id, nodes] : b.log.tiers)
        real += fmt::format("{}memory_tier{} ({})", real.empty() ? "" : ", ", id, nodes);
    throw InputError(
        "oracle", fmt::format("boot {}", index),
        fmt::format("the guest's kernel formed {} memory tier(s), {}, where the model "
                    "forms {}: it did not read the guest's ACPI HMAT (a kernel needs "
                    "CONFIG_ACPI_HMAT=y and v6.10+; --kernel-package "
                    "linux-image-6.12-amd64 boots one)",
                    b.log.tiers.size(), real.empty() ? "none" : real, model.tiers.size()));
}

}  // namespace

std::string guest_binary_for(const fs::path& exe) {
    const fs::path beside = exe.parent_path() / "numasim-guest";
    const fs::path installed =
        (exe.parent_path() / NUMASIM_GUEST_DIR / "numasim-guest").lexically_normal();
    std::error_code ec;
    return (fs::exists(installed, ec) && !fs::exists(beside, ec) ? installed : beside).string();
}

std::vector<std::string> dax_kmem_notes(const Topology& guest) {
    // qemu's memory is boot memory: the guest kernel gives every node the DRAM memory type.
    std::vector<std::string> notes;
    for (const NodeInfo& n : guest.nodes)
        if (n.device.dax_kmem)
            notes.push_back(
                fmt::format("node {} is {} onlined by dax/kmem in the model, a lower memory "
                            "tier; in the guest it is boot memory in the DRAM tier "
                            "(docs/oracle.md, \"A lower memory tier\")",
                            n.id, memory_kind_name(n.device.kind)));
    return notes;
}

std::vector<int> hmat_lower_tier_nodes(const Topology& m) {
    Topology with_hmat = m;
    with_hmat.hmat = true;
    const MemoryTiers mt = establish_memory_tiers(with_hmat, MemtierKernel::kHmat);
    std::vector<int> lower;
    for (const NodeInfo& n : m.nodes)
        if (n.mem_bytes > 0 && !mt.node_is_toptier(n.id)) lower.push_back(n.id);
    return lower;
}

OracleResult run_oracle(const OracleOptions& o) {
    OracleResult res;
    auto status = [&](const std::string& s) {
        if (o.status) o.status(s);
    };
    if (o.boots < 1 || o.boots > kMaxOracleBoots)
        throw InputError("command line", "--boots", fmt::format("must be 1..{}", kMaxOracleBoots));
    if (o.write_damon_record && o.boots != 1)
        throw InputError("command line", "--damon-record",
                         "records one boot: give --boots 1 (the default)");
    if (!o.kernel.empty() && o.kernel_package != kDebianDefaultKernelPackage)
        throw InputError("command line", "--kernel-package",
                         "give either --kernel or --kernel-package, not both");
    check_kernel_package_name(o.kernel_package);
    ScenarioOverrides ov = with_variant(o);
    const Scenario asked = load_scenario_file(o.scenario, ov);
    for (const ScenarioWorkload& w : asked.workloads)
        if (std::find(guest_line::kGuestPrograms.begin(), guest_line::kGuestPrograms.end(),
                      w.type) == guest_line::kGuestPrograms.end())
            throw InputError(o.scenario, "workload.type",
                             fmt::format("the oracle's guest has no program for '{}' (it runs {})",
                                         w.type, fmt::join(guest_line::kGuestPrograms, ", ")));
    if (std::find(guest_line::kGuestPolicies.begin(), guest_line::kGuestPolicies.end(),
                  asked.policy) == guest_line::kGuestPolicies.end())
        throw InputError(o.scenario, "scenario.policy",
                         fmt::format("the oracle's guest has no policy '{}' (it runs {})",
                                     asked.policy, fmt::join(guest_line::kGuestPolicies, ", ")));
    const std::string cache = o.cache_dir.empty() ? default_oracle_cache_dir() : o.cache_dir;
    // A kernel named on the command line is read before qemu is looked for: an error in what the
    // user typed comes before one in what the machine lacks.
    if (!o.kernel.empty()) res.kernel = user_kernel(o.kernel);
    if (!have_program(o.qemu))
        throw InputError("oracle", "qemu",
                         o.qemu + " is not installed (scripts/setup.sh --oracle installs it)");

    // The kernel (Debian's unless one was named), and the profile that models its series.
    if (o.kernel.empty()) res.kernel = debian_kernel(cache, status, o.kernel_package);
    if (o.write_damon_record) check_damon_kernel(res.kernel);
    const std::string series = kernel_series(res.kernel.release);
    const auto profiles = profile_names();
    const bool known = std::find(profiles.begin(), profiles.end(), series) != profiles.end();
    const bool profile_asked = overrides_key(ov, "scenario.profile");
    if (!profile_asked && known && series != asked.profile) {
        ov.push_back(string_override("profile", series, "the booted kernel's series"));
        res.notes.push_back(fmt::format(
            "the model runs profile {}, the booted kernel's series (the scenario names {})", series,
            asked.profile));
    } else if (profile_asked && asked.profile != series) {
        res.notes.push_back(
            fmt::format("the model runs profile {} as asked, but the booted "
                        "kernel is {} (series {})",
                        asked.profile, res.kernel.release, series));
    } else if (!known) {
        res.notes.push_back(fmt::format("no profile models {} ({}); the model runs {}", series,
                                        res.kernel.release, asked.profile));
    }

    // The guest machine, which the model then simulates too.
    GuestLimits lim = o.limits;
    const uint64_t budget = host_guest_memory_budget();
    if (!lim.max_mem_bytes || (budget && budget < lim.max_mem_bytes)) lim.max_mem_bytes = budget;
    res.guest = fit_guest_machine(asked.machine, lim, o.scenario);
    for (const auto& s : res.guest.scaled)
        res.notes.push_back("the guest is scaled down: " + s);
    // Memory-only nodes in a lower tier: a kernel that takes a CPU-less node's tier from the
    // HMAT boots a tiered guest; on an older one they are DRAM-tier boot memory, which a scenario
    // that promotes or demotes cannot use.
    const std::vector<int> lower = hmat_lower_tier_nodes(asked.machine);
    if (!lower.empty() && memtier_kernel_of_release(series) == MemtierKernel::kHmat) {
        publish_hmat(asked.machine, res.guest);
        res.notes.push_back(fmt::format(
            "the guest's firmware publishes an ACPI HMAT (qemu hmat=on) with the machine's "
            "figures, so its kernel puts memory-only {} in a lower memory tier as the model does "
            "(docs/oracle.md, \"A tiered guest\")",
            nodes_text(lower)));
    } else if (!lower.empty() && (asked.knobs.tiering_mode() || asked.knobs.demotion_enabled)) {
        throw InputError(
            o.kernel.empty() ? "--kernel-package" : "--kernel",
            o.kernel.empty() ? o.kernel_package : o.kernel,
            fmt::format(
                "the scenario runs {} on a machine whose memory-only {} in a lower "
                "memory tier, but {} (series {}) puts CPU-less boot memory in the DRAM tier: a "
                "kernel takes such a node's tier from the ACPI HMAT from v6.10 on; boot "
                "--kernel-package linux-image-6.12-amd64 or a v6.10+ --kernel",
                asked.knobs.tiering_mode()
                    ? fmt::format("numa_balancing={}", asked.knobs.numa_balancing)
                    : std::string("demotion_enabled"),
                nodes_text(lower) + (lower.size() > 1 ? " are" : " is"), res.kernel.release,
                series));
    }
    for (const std::string& note : dax_kmem_notes(res.guest.topo))
        res.notes.push_back(note);
    res.model = load_scenario_file(o.scenario, ov);
    res.model.machine = res.guest.topo;
    if (res.guest.topo.hmat)
        res.model_tiers = establish_memory_tiers(
            res.model.machine, memtier_kernel_of_release(profile_release(res.model.profile)));
    if (!overrides_key(ov, "scenario.iterations")) res.model.iterations = o.boots;
    // The workloads read their sizes again against the guest's (possibly scaled-down) nodes.
    uint64_t need = 0;
    try {
        need = workload_memory_bytes(res.model) + kGuestOverheadBytes;
    } catch (const InputError& e) {
        if (res.guest.scaled.empty()) throw;
        throw InputError(e.file(), e.where(),
                         fmt::format("on the scaled-down guest ({}): {} (raise --guest-memory or "
                                     "shrink the workload)",
                                     fmt::join(res.guest.scaled, "; "), e.problem()));
    }
    if (need > res.guest.topo.total_mem_bytes())
        throw InputError(o.scenario, "workload",
                         fmt::format("the workloads and the guest kernel need {} but the guest "
                                     "has {} (raise --guest-memory or shrink the workload)",
                                     gib(need), gib(res.guest.topo.total_mem_bytes())));

    // The kernel's knobs, and the settings only the model has.
    res.knobs = guest_knobs(res.model.knobs);
    // A tiered guest's init writes demotion_enabled too (guest/init.sh).
    std::vector<std::string> kernel_keys = kKernelKnobKeys;
    if (res.guest.topo.hmat) kernel_keys.push_back("demotion_enabled");
    for (const auto& k : knobs_set(o.scenario, ov))
        if (std::find(kernel_keys.begin(), kernel_keys.end(), k) == kernel_keys.end())
            res.notes.push_back(fmt::format(
                "{} is a model switch with no kernel knob: the real kernel runs its own code", k));

    GuestConfig gc;
    gc.numa_balancing = res.model.knobs.numa_balancing;
    gc.thp = knob_name(res.model.knobs.transparent_hugepage_enabled);
    gc.thp_defrag = knob_name(res.model.knobs.transparent_hugepage_defrag);
    gc.tiered = res.guest.topo.hmat;
    gc.demotion_enabled = res.model.knobs.demotion_enabled;
    gc.knobs = res.knobs;
    std::ifstream sf(o.scenario);
    std::ostringstream text;
    text << sf.rdbuf();
    gc.scenario_text = text.str();
    // The overrides as the runner applies them to the scenario file (each key resolved).
    for (const KeyAssignment& a : ov)
        gc.params.push_back(a.key + "=" + a.value);
    gc.runner_args = {"--duration-ms", std::to_string(res.model.duration / NSEC_PER_MSEC), "--seed",
                      std::to_string(res.model.seed)};
    if (o.write_damon_record) gc.runner_args.push_back("--damon");
    if (o.sample > 0)
        gc.runner_args.insert(gc.runner_args.end(),
                              {"--sample-ms", std::to_string(o.sample / NSEC_PER_MSEC)});
    const GuestBoot gb({.busybox = o.busybox,
                        .guest_binary = o.guest_binary,
                        .cache = cache,
                        .qemu = o.qemu,
                        .accel = o.accel,
                        .probe_message = "oracle: probing KVM with a short boot",
                        .status = status},
                       res.kernel, res.guest, gc);
    res.accel = gb.accel();
    const QemuBoot& qb = gb.boot();

    const double timeout =
        o.timeout_s > 0 ? o.timeout_s : guest_boot_timeout_s(ns_to_s(res.model.duration));
    for (int b = 1; b <= o.boots; ++b) {
        res.boots.push_back(boot_once(res.guest, qb, timeout, b, o.boots, o, cache));
        if (res.guest.topo.hmat) check_real_tiers(res.boots.back(), b, res.model_tiers);
    }

    if (o.write_damon_record) {
        std::string record;
        for (const std::string& line : res.boots.front().log.damon_record)
            record += line + "\n";
        o.write_damon_record(record);
    }

    status(fmt::format("oracle: simulating {} iteration(s)", res.model.iterations));
    // With the latency histograms, whose counts of task_numa_work calls and hinting faults
    // per task the guest's kprobe events are compared with (recording changes nothing else).
    ObserveOptions counts;
    counts.latency = true;
    res.runs = run_iterations(res.model, o.jobs, &counts);
    res.figures = oracle_figures(res.boots, res.runs, res.guest.topo);
    return res;
}

}  // namespace numasim
