#include "guest/runner.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "config/input_error.h"
#include "config/toml_reader.h"
#include "guest/calibrate.h"
#include "guest/context.h"
#include "guest/damon.h"
#include "guest/numactl.h"
#include "guest/programs.h"
#include "guest/sys.h"
#include "program/autonumabench_spec.h"
#include "program/cowsum_spec.h"
#include "program/streams_spec.h"

namespace numasim::guest {

namespace {

// How long after the deadline the runner waits for a workload to stop by itself before it
// kills it: one access round or one bzero() piece takes milliseconds even under emulation.
constexpr Nanos kStopGrace = 10 * NSEC_PER_SEC;
// The runner's own wake-ups between samples: often enough to notice workloads ending.
constexpr Nanos kPollStep = 200 * NSEC_PER_MSEC;
// --damon: the workload's processes are the runner's leaf descendants once their number has
// stayed the same this long (a streams workload forks its instances at once), looked at every
// kDamonLookStep, and at most kDamonLookMax after the start.
constexpr Nanos kDamonSettle = 100 * NSEC_PER_MSEC;
constexpr Nanos kDamonLookStep = 20 * NSEC_PER_MSEC;
constexpr Nanos kDamonLookMax = 2 * NSEC_PER_SEC;
// How often the targets' /proc/PID/maps and thread counts are read while they run: mappings
// are made and threads started after the process starts.
constexpr Nanos kDamonLookEvery = NSEC_PER_SEC;

// The workload's processes, once they have all started.
std::vector<int> settled_workload_processes(Nanos start) {
    std::vector<int> last = leaf_descendants(getpid(), process_parents());
    Nanos same_since = monotonic_ns();
    while (monotonic_ns() - same_since < kDamonSettle && monotonic_ns() - start < kDamonLookMax) {
        sleep_until(monotonic_ns() + kDamonLookStep);
        std::vector<int> now = leaf_descendants(getpid(), process_parents());
        if (now != last) {
            last = std::move(now);
            same_since = monotonic_ns();
        }
    }
    return last;
}

// The overrides the host resolved ("workload.process.region.thp=true", one a line), as
// assignments to the scenario's keys.
std::vector<KeyAssignment> read_params(const std::string& file) {
    std::vector<KeyAssignment> out;
    if (file.empty()) return out;
    std::istringstream in(read_file(file));
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (line.empty() || eq == std::string::npos) continue;
        out.push_back({"--param " + line, line.substr(0, eq), line.substr(eq + 1)});
    }
    return out;
}

// Runs workload `t` in the calling (forked) process.
int run_workload(const TomlTable& t, const Context& ctx) {
    const std::string type = t.get_string("type");
    if (type == "streams") return run_streams(read_streams_spec(t, ctx.topo), ctx);
    if (type == "autonumabench")
        return run_autonumabench(read_autonumabench_spec(t, ctx.topo), ctx);
    if (type == "cowsum") return run_cowsum(read_cowsum_spec(t), ctx);
    throw InputError(t.file(), t.key_path("type"),
                     "workload type '" + type +
                         "' has no guest program (the oracle runs streams, autonumabench, cowsum)");
}

std::string progress_line(const ProgressBoard& b, double t_s) {
    int running = 0, finished = 0;
    double bytes = 0;
    for (int i = 0; i < b.used(); ++i) {
        const ProgressSlot& s = b.slot(i);
        running += s.state == 1;
        finished += s.state == 2;
        bytes += static_cast<double>(s.before + s.bytes);
    }
    return fmt::format("progress {:.1f} s: {} tasks running, {} finished, {:.2f} GB moved", t_s,
                       running, finished, bytes / 1e9);
}

}  // namespace

RunnerOptions parse_runner_args(const std::vector<std::string>& args) {
    RunnerOptions o;
    auto number = [&](size_t& i) {
        if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
        const std::string& v = args[++i];
        size_t used = 0;
        const long long n = std::stoll(v, &used);
        if (used != v.size() || n < 0) throw std::invalid_argument(args[i - 1] + " " + v);
        return static_cast<int64_t>(n);
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--params") {
            if (i + 1 >= args.size()) throw std::invalid_argument("--params needs a file");
            o.params_file = args[++i];
        } else if (a == "--duration-ms") {
            o.duration_ms = number(i);
        } else if (a == "--sample-ms") {
            o.sample_ms = number(i);
        } else if (a == "--progress-ms") {
            o.progress_ms = number(i);
        } else if (a == "--seed") {
            o.seed = static_cast<uint64_t>(number(i));
        } else if (a == "--calibrate-ms") {
            o.calibrate_ms = number(i);
        } else if (a == "--damon") {
            o.damon = true;
        } else if (!a.empty() && a[0] != '-' && o.scenario.empty()) {
            o.scenario = a;
        } else {
            throw std::invalid_argument("unknown argument " + a);
        }
    }
    if (o.scenario.empty() && o.calibrate_ms == 0)
        throw std::invalid_argument("no scenario file given");
    return o;
}

std::vector<std::pair<std::string, int64_t>> sample_counters(const std::string& vmstat) {
    std::vector<std::pair<std::string, int64_t>> out;
    std::istringstream in(vmstat);
    std::string k;
    int64_t v;
    while (in >> k >> v)
        if (k.rfind("numa_", 0) == 0 || k.rfind("pgmigrate_", 0) == 0 ||
            k.rfind("thp_migration_", 0) == 0)
            out.emplace_back(k, v);
    return out;
}

int runner_main(const RunnerOptions& o) {
    if (o.calibrate_ms > 0) return run_calibration(o.calibrate_ms);
    Context ctx;
    ctx.topo = sysfs_topology();
    ctx.seed = o.seed;
    ctx.board = ProgressBoard::create();
    const TomlTable doc = TomlTable::parse_file(o.scenario, read_params(o.params_file));
    const auto tables = doc.tables("workload");
    ctx.numactl = read_numactl_bindings(doc, ctx.topo);
    // Read every description first, so that a bad one fails before anything runs.
    std::vector<int> first_process;
    int started = 0;
    for (const auto& t : tables) {
        first_process.push_back(started);
        started += exec_processes(t, ctx.topo);
        const std::string type = t.get_string("type");
        if (type == "streams")
            read_streams_spec(t, ctx.topo);
        else if (type == "autonumabench")
            read_autonumabench_spec(t, ctx.topo);
        else if (type == "cowsum")
            read_cowsum_spec(t);
    }
    const auto base = sample_counters(read_file("/proc/vmstat"));
    ctx.start = monotonic_ns();
    ctx.deadline = ctx.start + o.duration_ms * NSEC_PER_MSEC;
    say(fmt::format("runner start workloads={} duration_s={:.3f}", tables.size(),
                    o.duration_ms / 1000.0));
    std::map<int, size_t> running;  // pid -> workload
    for (size_t w = 0; w < tables.size(); ++w) {
        ctx.workload = static_cast<int>(w);
        ctx.first_process = first_process[w];
        running[fork_child([&] {
            // A streams workload starts its processes itself (run_streams binds each); the
            // others are the one process that runs the program.
            if (tables[w].get_string("type") != "streams") bind_as_started(ctx, 0);
            return run_workload(tables[w], ctx);
        })] = w;
    }
    ctx.workload = 0;
    ctx.first_process = 0;

    int rc = 0;
    std::unique_ptr<DamonMonitor> damon;
    Nanos damon_look_at = 0;  // the targets' layout and threads are read again every second
    if (o.damon) {
        try {
            damon =
                std::make_unique<DamonMonitor>(settled_workload_processes(ctx.start), DamonAttrs{});
            damon_look_at = monotonic_ns() + kDamonLookEvery;
        } catch (const std::exception& e) {
            say(fmt::format("error DAMON: {}", e.what()));
            rc = 1;
        }
    }
    Nanos next_sample = o.sample_ms ? ctx.start + o.sample_ms * NSEC_PER_MSEC : 0;
    Nanos next_progress = o.progress_ms ? ctx.start + o.progress_ms * NSEC_PER_MSEC : 0;
    bool killed = false;
    while (!running.empty()) {
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            if (code && !rc) rc = code;
            running.erase(pid);
            continue;
        }
        const Nanos now = monotonic_ns();
        if (next_sample && now >= next_sample) {
            std::string line = fmt::format("sample t_s={:.3f}", ns_to_s(now - ctx.start));
            const auto cur = sample_counters(read_file("/proc/vmstat"));
            for (size_t i = 0; i < cur.size() && i < base.size(); ++i)
                line += fmt::format(" {}={}", cur[i].first, cur[i].second - base[i].second);
            say(line);
            next_sample += o.sample_ms * NSEC_PER_MSEC;
        }
        if (damon_look_at && now >= damon_look_at) {
            damon->snapshot_targets();
            damon_look_at += kDamonLookEvery;
        }
        if (next_progress && now >= next_progress) {
            say(progress_line(*ctx.board, ns_to_s(now - ctx.start)));
            next_progress += o.progress_ms * NSEC_PER_MSEC;
        }
        if (!killed && now > ctx.deadline + kStopGrace) {
            say("error workloads still running after the deadline: killed");
            for (const auto& [p, w] : running)
                kill(p, SIGKILL);
            killed = true;
        }
        Nanos wake = now + kPollStep;
        if (next_sample) wake = std::min(wake, next_sample);
        if (damon_look_at) wake = std::min(wake, damon_look_at);
        sleep_until(wake);
    }
    // The workload's time, without the DAMON record's printing.
    const double elapsed_s = ctx.elapsed_s();
    say(progress_line(*ctx.board, elapsed_s));
    if (damon && !damon->finish() && !rc) rc = 1;
    say(fmt::format("runner end rc={} elapsed_s={:.3f}", rc, elapsed_s));
    return rc;
}

}  // namespace numasim::guest
