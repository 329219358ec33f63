#include "report/oracle_report.h"

#include <fmt/format.h>

#include <map>

#include "oracle/qemu_command.h"
#include "report/aligned_text.h"
#include "report/json_out.h"
#include "report/mmtests_table.h"
#include "report/oracle_table.h"
#include "report/run_report.h"

namespace numasim {

const char* const kTcgTimingNote =
    "under TCG the guest's CPUs are emulated, several times slower than real ones, and share "
    "the host's cores: guest time is not real time, so compare counters and placements, not "
    "rates or durations";

namespace {

std::string gib(uint64_t bytes) {
    return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1 << 30));
}

std::string machine_line(const GuestMachine& g) {
    const Topology& t = g.topo;
    std::string per_node;
    for (const auto& n : t.nodes)
        per_node += fmt::format("{}{}", per_node.empty() ? "" : "/", n.cpus.size());
    std::string slit;
    for (const auto& row : t.distance)
        slit += fmt::format("{}{}", slit.empty() ? "" : " ", fmt::join(row, ","));
    return fmt::format("{} nodes, {} vCPUs ({} per node{}), {} per node, SLIT {}", t.nr_nodes(),
                       t.nr_cpus(), per_node,
                       g.threads_per_core > 1 ? fmt::format(", SMT{}", g.threads_per_core) : "",
                       gib(t.nodes.front().mem_bytes), slit);
}

std::vector<OracleVerdict> verdicts(const OracleResult& r) {
    std::vector<OracleVerdict> v;
    for (const auto& f : r.figures)
        v.push_back(judge_oracle_figure(f));
    return v;
}

std::string settings_line(const OracleResult& r) {
    // As the kernel read them back (the first boot's `setting` lines).
    std::string s;
    for (const auto& [k, v] : r.boots.front().log.settings)
        s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
    return s;
}

// The model's tiers in the form the guest's log keeps the kernel's: each tier's id and nodelist.
std::map<int, std::string> model_tier_nodes(const MemoryTiers& mt) {
    std::map<int, std::string> out;
    for (const MemoryTier& t : mt.tiers)
        out[t.id()] = cpu_list_text(t.nodes);
    return out;
}

// "memory_tier4 (0), memory_tier23 (1)": tiers as /sys/devices/virtual/memory_tiering/ names
// them, with their nodelists.
std::string tiers_text(const std::map<int, std::string>& tiers) {
    std::string s;
    for (const auto& [id, nodes] : tiers)
        s += fmt::format("{}memory_tier{} ({})", s.empty() ? "" : ", ", id, nodes);
    return s;
}

nlohmann::json tiers_json(const std::map<int, std::string>& tiers) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [id, nodes] : tiers)
        out["memory_tier" + std::to_string(id)] = nodes;
    return out;
}

// Each node's HMAT figures as the guest's kernel read them (access class 1).
std::string hmat_line(const BootLog& log) {
    std::string s;
    for (const KeyValues& kv : log.hmat)
        s += fmt::format("{}node {} {} ns {} MB/s", s.empty() ? "" : ", ", kv.at("node"),
                         kv.at("latency_ns"), kv.at("bandwidth_mbs"));
    return s;
}

}  // namespace

std::string oracle_text(const OracleResult& r) {
    std::string s = fmt::format("numasim oracle: {} - a real kernel under qemu beside the model\n",
                                r.model.name);
    s +=
        fmt::format("machine:  {} as the guest: {}\n", r.model.machine.name, machine_line(r.guest));
    s += fmt::format("kernel:   {} ({})\n", r.kernel.release, r.kernel.origin);
    s += fmt::format("accel:    {}\n", r.accel.why);
    if (r.accel.accel == Accel::Tcg) s += fmt::format("          NOTE: {}\n", kTcgTimingNote);
    s += "          Emulated NUMA nodes have no remote-access penalty: the kernel's decisions\n"
         "          are real, the memory's speed is not.\n";
    s += fmt::format("knobs:    {}\n", settings_line(r));
    if (r.guest.topo.hmat) {
        s += fmt::format("tiers:    real {}; model {}\n", tiers_text(r.boots.front().log.tiers),
                         tiers_text(model_tier_nodes(r.model_tiers)));
        s += fmt::format("hmat:     {}\n", hmat_line(r.boots.front().log));
    }
    s += fmt::format("model:    profile {}, {} iteration(s), seed {}\n", r.model.profile,
                     r.model.iterations, r.model.seed);
    std::string walls, elapsed;
    for (const auto& b : r.boots) {
        walls += fmt::format("{}{:.1f}", walls.empty() ? "" : ", ", b.wall_s);
        elapsed += fmt::format("{}{:.1f}", elapsed.empty() ? "" : ", ", b.log.elapsed_s);
    }
    s += fmt::format("boots:    {} (wall {} s; workload {} guest s)\n", r.boots.size(), walls,
                     elapsed);
    for (const auto& n : r.notes)
        s += fmt::format("note:     {}\n", n);
    s += "\n";
    s += render_compare_table(oracle_compare_table(r.figures));
    s += "\n";
    s += render_oracle_verdicts(verdicts(r));
    for (size_t b = 0; b < r.boots.size(); ++b) {
        const auto& samples = r.boots[b].log.samples;
        if (samples.empty()) continue;
        s += fmt::format("\nreal kernel, boot {}: counters since the workload started\n", b + 1);
        TextTable t;
        t.header = {"t_s", "numa_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
                    "numa_pages_migrated"};
        for (const auto& smp : samples) {
            std::vector<std::string> row = {fmt::format("{:.2f}", smp.t_s)};
            for (size_t c = 1; c < t.header.size(); ++c) {
                const auto it = smp.delta.find(t.header[c]);
                row.push_back(std::to_string(it == smp.delta.end() ? 0 : it->second));
            }
            t.rows.push_back(row);
        }
        s += render_aligned(t);
    }
    return s;
}

nlohmann::json oracle_json(const OracleResult& r) {
    nlohmann::json boots = nlohmann::json::array();
    for (const auto& b : r.boots) {
        nlohmann::json samples = nlohmann::json::array();
        for (const auto& smp : b.log.samples)
            samples.push_back({{"t_s", smp.t_s}, {"vmstat", smp.delta}});
        // Per armed kprobe event, its calls per thread id (guest/init.sh).
        nlohmann::json probes = nlohmann::json::object();
        for (const auto& [event, hits] : b.log.probe_hits) {
            probes[event] = nlohmann::json::object();
            for (const auto& [tid, n] : hits)
                probes[event][std::to_string(tid)] = n;
        }
        nlohmann::json boot = {{"wall_s", b.wall_s},
                               {"elapsed_s", b.log.elapsed_s},
                               {"kernel", b.log.kernel_release},
                               {"settings", b.log.settings},
                               {"vmstat", b.log.vmstat_delta()},
                               {"tasks", b.log.tasks},
                               {"regions", b.log.regions},
                               {"probes", probes},
                               {"samples", samples},
                               {"console_log", b.console_log}};
        if (r.guest.topo.hmat) {
            boot["memory_tiers"] = tiers_json(b.log.tiers);
            boot["hmat"] = b.log.hmat;
        }
        boots.push_back(boot);
    }
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& x : r.runs)
        runs.push_back(result_json(r.model, x));
    nlohmann::json v = nlohmann::json::array();
    for (const auto& x : verdicts(r))
        v.push_back(to_json(x));
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : r.guest.topo.nodes)
        nodes.push_back({{"cpus", n.cpus}, {"mem_bytes", n.mem_bytes}});
    nlohmann::json out = {
        {"scenario", r.model.name},
        {"machine", r.model.machine.name},
        {"guest",
         {{"nodes", nodes}, {"distance", r.guest.topo.distance}, {"scaled", r.guest.scaled}}},
        {"kernel", {{"release", r.kernel.release}, {"origin", r.kernel.origin}}},
        {"accel", to_string(r.accel.accel)},
        {"accel_reason", r.accel.why},
        {"timing_note", r.accel.accel == Accel::Tcg ? kTcgTimingNote : ""},
        {"profile", r.model.profile},
        {"knobs", r.knobs},
        {"notes", r.notes},
        {"compare", to_json(oracle_compare_table(r.figures))},
        {"verdicts", v},
        {"boots", boots},
        {"runs", runs}};
    if (r.guest.topo.hmat) out["model_memory_tiers"] = tiers_json(model_tier_nodes(r.model_tiers));
    return out;
}

}  // namespace numasim
