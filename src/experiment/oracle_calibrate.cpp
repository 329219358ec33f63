#include "experiment/oracle_calibrate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/input_error.h"
#include "experiment/oracle.h"
#include "experiment/oracle_guest_boot.h"
#include "guest/protocol.h"
#include "machine/presets.h"
#include "oracle/accel.h"
#include "oracle/debian_kernel.h"
#include "oracle/guest_image.h"
#include "oracle/guest_machine.h"
#include "oracle/qemu_command.h"
#include "oracle/subprocess.h"

namespace numasim {

namespace fs = std::filesystem;

namespace {

double number(const KeyValues& kv, const std::string& key) {
    const auto it = kv.find(key);
    if (it == kv.end())
        throw InputError("oracle", "calibrate", "the guest's calibrate line has no " + key);
    try {
        size_t used = 0;
        const double v = std::stod(it->second, &used);
        if (used == it->second.size()) return v;
    } catch (const std::exception&) {
    }
    throw InputError("oracle", "calibrate",
                     fmt::format("the guest's {} is not a number: {}", key, it->second));
}

RunStats stats(const KeyValues& kv, const std::string& name) {
    RunStats s;
    s.median = number(kv, name);
    s.runs = static_cast<int>(number(kv, name + "_runs"));
    s.min = number(kv, name + "_min");
    s.max = number(kv, name + "_max");
    return s;
}

}  // namespace

std::vector<PairMeasurement> guest_pairs(const BootLog& log, int nr_nodes) {
    std::vector<PairMeasurement> out;
    for (const KeyValues& kv : log.calibrations) {
        PairMeasurement m;
        m.from = static_cast<int>(number(kv, "from"));
        m.to = static_cast<int>(number(kv, "to"));
        if (m.from < 0 || m.from >= nr_nodes || m.to < 0 || m.to >= nr_nodes)
            throw InputError("oracle", "calibrate",
                             fmt::format("the guest measured node {} -> node {}, but it has {} "
                                         "nodes",
                                         m.from, m.to, nr_nodes));
        m.placed = number(kv, "placed") != 0;
        m.latency_ns = stats(kv, "latency_ns");
        m.read_gbs = stats(kv, "read_gbs");
        m.write_gbs = stats(kv, "write_gbs");
        out.push_back(m);
    }
    return out;
}

Calibration calibrate_oracle_guest(const GuestCalibrateOptions& o) {
    auto say = [&](const std::string& s) {
        if (o.progress) o.progress(s);
    };
    const auto t0 = std::chrono::steady_clock::now();
    const Topology asked = resolve_machine(o.machine, "command line", "--oracle", false);
    const CalibrationBaseline baseline = calibration_baseline(o.like, asked);
    if (!have_program(o.qemu))
        throw InputError("oracle", "qemu",
                         o.qemu + " is not installed (scripts/setup.sh --oracle installs it)");
    const std::string cache = o.cache_dir.empty() ? default_oracle_cache_dir() : o.cache_dir;
    const KernelImage kernel = debian_kernel(cache, say);
    GuestLimits lim;
    lim.max_mem_bytes = host_guest_memory_budget();
    const GuestMachine guest = fit_guest_machine(asked, lim, "--oracle");
    for (const auto& s : guest.scaled)
        say("the guest is scaled down: " + s);

    GuestConfig gc;
    gc.numa_balancing = 0;  // nothing may move the buffers while they are measured
    gc.scenario_text = "# numasim calibrate --oracle: the runner measures, no scenario\n";
    gc.runner_args = {"--calibrate-ms",
                      std::to_string(static_cast<int64_t>(o.budget_seconds * 1000))};
    const GuestBoot gb({.busybox = o.busybox,
                        .guest_binary = o.guest_binary,
                        .cache = cache,
                        .qemu = o.qemu,
                        .accel = o.accel,
                        .probe_message = "probing KVM with a short boot",
                        .status = say},
                       kernel, guest, gc);
    const QemuBoot& qb = gb.boot();
    const AccelChoice& accel = gb.accel();
    say(fmt::format("booting {} ({}) on {}: {}", kernel.release, to_string(qb.accel),
                    guest.topo.name, accel.why));
    BootLogReader reader;
    const CommandResult r =
        run_command(qemu_argv(guest, qb), {.timeout_s = guest_boot_timeout_s(o.budget_seconds),
                                           .cwd = "",
                                           .on_line = [&](std::string_view line) {
                                               if (reader.feed(line) == "progress")
                                                   say(reader.log().progress.back());
                                           }});
    const BootLog log = reader.take();
    if (r.timed_out || !log.ended || log.rc != 0 || !log.errors.empty())
        throw InputError("oracle", "calibrate",
                         r.timed_out           ? "the guest timed out"
                         : !log.errors.empty() ? "the guest reported: " + log.errors.front()
                         : !log.ended          ? "the guest stopped before the end (panic?)"
                                               : fmt::format("the runner exited with {}", log.rc));
    const std::vector<PairMeasurement> pairs = guest_pairs(log, guest.topo.nr_nodes());
    if (pairs.empty()) throw InputError("oracle", "calibrate", "the guest measured no node pair");
    Calibration c;
    c.pairs = pairs;
    Topology t = guest.topo;
    t.name = "calibrated-" + asked.name;
    c.text = calibration_file(t, baseline, pairs,
                              fmt::format("the oracle's qemu guest of {} ({}, {})", asked.name,
                                          kernel.release, to_string(qb.accel)));
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
}

}  // namespace numasim
