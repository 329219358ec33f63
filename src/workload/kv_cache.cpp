// `kv-cache`: a memcached server whose dataset is larger than the fast memory, driven by
// memtier_benchmark with a Zipfian key pattern (--key-pattern Z:Z, --key-zipf-exp, --ratio
// SET:GET, --data-size, --key-maximum), the load the memory-tiering work measures caches with.
// memcached's worker threads (-t) serve requests back to back (the clients keep every thread
// busy); each request reads (GET) or writes (SET) its item. The items lie in slab chunks in key
// order (the dataset is first filled by one memtier client in key order), so the keys'
// popularity becomes access rates over page ranges of the slab memory; every `shift_interval`
// the hot set moves by `shift_keys` keys. It reports the throughput and the GET service-time
// percentiles the model gives. docs/workloads/kv-cache.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "config/limits.h"
#include "config/param_reader.h"
#include "cost/constants.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "program/fits_machine.h"
#include "program/streams_spec.h"
#include "workload/common.h"
#include "workload/kv_keys.h"
#include "workload/process_layout.h"
#include "workload/rate_ranges.h"
#include "workload/registry.h"

namespace numasim {

namespace {

// memcached 1.6 on 64-bit with CAS: the item header (struct _stritem, 48 bytes), the key and
// its NUL, the value and its "\r\n". memtier's keys are "memtier-" and the key number.
constexpr uint64_t kItemHeaderBytes = 48;
constexpr uint64_t kKeyPrefixBytes = 8;
constexpr uint64_t kValueSuffixBytes = 2;
// memcached's slab classes: the first chunk holds the header and 48 bytes (-n 48), each next
// one is 1.25 times larger (-f 1.25), rounded up to 8 bytes; items above slab_chunk_max (half
// of the 1 MiB slab page) are chained, which the model does not do.
constexpr uint64_t kFirstChunkBytes = kItemHeaderBytes + 48;
constexpr double kSlabGrowthFactor = 1.25;
constexpr uint64_t kSlabChunkMax = 512 * 1024;
// memtier's upper bound on --key-zipf-exp (its option check: the interval (0, 5)).
constexpr double kMaxZipfExp = 5;
// How often a worker looks at the clock (the hot set's shift, the percentiles' sampling).
constexpr Nanos kTimeCheck = 10 * NSEC_PER_MSEC;

uint64_t slab_chunk(uint64_t item_bytes) {
    double size = static_cast<double>(kFirstChunkBytes);
    while (static_cast<uint64_t>(size) < item_bytes) {
        size *= kSlabGrowthFactor;
        size = std::ceil(size / 8) * 8;
    }
    return static_cast<uint64_t>(size);
}

struct Params {
    int64_t keys = 10000000;      // --key-maximum (memtier's default)
    uint64_t data_size = 32;      // --data-size (memtier's default)
    double zipf_exp = 1.0;        // --key-zipf-exp (memtier's default for Z)
    int64_t sets = 1, gets = 10;  // --ratio SET:GET (memtier's default 1:10)
    int threads = 4;              // memcached -t (its default)
    Nanos shift_interval = 0;     // 0: the hot set stays
    int64_t shift_keys = 0;       // default: half the keys
    // CPU time of one request with its item in local DRAM: an assumption, ~250,000 requests/s
    // per memcached worker thread, the per-core rate usually quoted for memcached over TCP.
    Nanos service_cpu = 4 * NSEC_PER_USEC;
    std::vector<double> percentiles = {50, 99, 99.9};
    std::vector<int> affinity;
    std::optional<MemPolicy> policy;
    // `sleep N; memcached ...`: when the server (and the fill) starts.
    Nanos start_after = 0;
};

uint64_t item_bytes(const Params& p) {
    const uint64_t digits = fmt::format("{}", p.keys).size();
    return kItemHeaderBytes + kKeyPrefixBytes + digits + 1 + p.data_size + kValueSuffixBytes;
}

Params read_params(const TomlTable& t, const Topology& topo) {
    Params p;
    ParamReader r(t);
    r.integer("keys", p.keys, 1);
    r.size("data_size", p.data_size, 1);
    if (item_bytes(p) > kSlabChunkMax)
        r.fail("data_size", fmt::format("an item of {} bytes is above memcached's slab_chunk_max "
                                        "({} bytes): chained items are not modelled",
                                        item_bytes(p), kSlabChunkMax));
    if (t.has("key_zipf_exp")) {
        r.number("key_zipf_exp", p.zipf_exp, 0, kMaxZipfExp);
        if (p.zipf_exp <= 0 || p.zipf_exp >= kMaxZipfExp)
            r.fail("key_zipf_exp", fmt::format("must be within (0, {:g}), as memtier's "
                                               "--key-zipf-exp, got {}",
                                               kMaxZipfExp, p.zipf_exp));
    }
    if (t.has("ratio")) {
        const std::string s = t.get_string("ratio");
        int64_t a = -1, b = -1;
        size_t used = 0;
        if (std::sscanf(s.c_str(), "%ld:%ld%zn", &a, &b, &used) != 2 || used != s.size() || a < 0 ||
            b < 0 || a + b == 0)
            r.fail("ratio", fmt::format("'{}' is not SET:GET (two counts, not both 0)", s));
        p.sets = a;
        p.gets = b;
    }
    r.integer("threads", p.threads, 1, kMaxTasks - 1);
    r.duration("shift_interval", p.shift_interval, 0, kMaxDurationSeconds * NSEC_PER_SEC);
    p.shift_keys = p.keys / 2;
    r.integer("shift_keys", p.shift_keys, 0, p.keys);
    r.duration("service_cpu", p.service_cpu, 1);
    if (t.has("percentiles")) {
        p.percentiles = t.get_double_array("percentiles");
        if (p.percentiles.empty()) r.fail("percentiles", "empty list");
        for (double pct : p.percentiles)
            if (!(pct >= 0 && pct <= 100))
                r.fail("percentiles", fmt::format("{} is not a percentile (0 to 100)", pct));
    }
    if (t.has("affinity")) p.affinity = read_affinity(t, topo);
    p.policy = read_policy(t, topo, "policy");
    r.duration("start_after", p.start_after, 0, kMaxDurationSeconds * NSEC_PER_SEC);
    check_fits_machine(r, "keys", static_cast<uint64_t>(p.keys) * slab_chunk(item_bytes(p)), topo);
    return p;
}

class KvCache : public Workload {
  public:
    KvCache(const TomlTable& t, const Topology& topo)
        : p_(read_params(t, topo)), chunk_(slab_chunk(item_bytes(p_))) {}

    double phase_starts(double seconds) const override {
        return (p_.threads + 1) * (seconds / ns_to_s(kTimeCheck) + 4) + 8;
    }

    void setup(System& sys, int index) override {
        sys_ = &sys;
        index_ = index;
        const double line = cost::CACHE_LINE_BYTES;
        lines_ = std::ceil(static_cast<double>(chunk_) / line);
        request_bytes_ = lines_ * line;
        mlp_ = std::min<double>(lines_, sys.topo.hw.line_fill_buffers);
        proc_ = Process::exec(sys, dynamic_c_program("/usr/bin/memcached"));
        if (!p_.affinity.empty()) proc_->set_exec_affinity(p_.affinity);
        const uint64_t bytes = static_cast<uint64_t>(p_.keys) * chunk_;
        vma_ = &proc_->mmap(bytes, "slabs", VM_READ | VM_WRITE);
        pages_ = proc_->mm().pages.pages(bytes);
        slabs_ = &proc_->region(*vma_, 0, pages_, "slabs");
        proc_->start(nullptr, "memcached", make_worker(0), index, 0);
    }

    WorkloadResult result(const System& sys) const override {
        WorkloadResult r;
        double requests = 0;
        for (const Task* t : workload_tasks(sys, index_)) {
            r.tasks.push_back({task_figures(sys, *t), {}});
            requests += t->total_ops;
        }
        const double seconds = started_ && sys.now > start_ ? ns_to_s(sys.now - start_) : 0;
        const double ops = seconds > 0 ? requests / seconds : 0;
        const double get_share =
            static_cast<double>(p_.gets) / static_cast<double>(p_.sets + p_.gets);
        double total = 0, sum = 0;
        for (const auto& [ns, w] : get_hist_) {
            total += w;
            sum += w * static_cast<double>(ns);
        }
        auto pct = [&](double q) -> std::optional<double> {
            if (total <= 0) return std::nullopt;
            double acc = 0;
            for (const auto& [ns, w] : get_hist_) {
                acc += w;
                if (acc >= q / 100 * total * (1 - 1e-12)) return static_cast<double>(ns) / 1e3;
            }
            return static_cast<double>(get_hist_.rbegin()->first) / 1e3;
        };
        const std::optional<double> mean =
            total > 0 ? std::optional<double>(sum / total / 1e3) : std::nullopt;
        const double kb = ops * static_cast<double>(p_.data_size) / 1024;
        r.figures = {{"keys", p_.keys},
                     {"item_chunk_bytes", chunk_},
                     {"dataset_bytes", static_cast<uint64_t>(p_.keys) * chunk_},
                     {"key_zipf_exp", p_.zipf_exp},
                     {"threads", p_.threads},
                     {"shifts", shifts_},
                     {"requests", requests},
                     {"seconds", seconds},
                     {"ops_per_s", ops},
                     {"gets_per_s", ops * get_share},
                     {"sets_per_s", ops * (1 - get_share)},
                     {"get_mean_us", mean}};
        std::string line;
        for (double q : p_.percentiles) {
            r.figures.push_back({fmt::format("get_p{}_us", q), pct(q)});
            if (auto v = pct(q)) {
                r.operations.push_back({fmt::format("get-p{}", q), *v, true});
                line += fmt::format(" p{} {:.2f}", q, *v);
            }
        }
        if (ops > 0) r.operations.push_back({"ops/sec", ops, false});
        if (mean) r.operations.push_back({"latency", *mean, true});
        r.summary = fmt::format(
            "kv-cache: memcached -t {}, {} keys of {} B ({} B chunks, {:.2f} GiB), memtier "
            "--key-pattern Z:Z --key-zipf-exp {:g} --ratio {}:{}, {} hot-set shift(s)\n",
            p_.threads, p_.keys, p_.data_size, chunk_,
            static_cast<double>(p_.keys * chunk_) / (1 << 30), p_.zipf_exp, p_.sets, p_.gets,
            shifts_);
        r.summary += fmt::format(
            "  Totals {:.2f} ops/sec ({:.2f} gets/sec, {:.2f} sets/sec), "
            "{:.2f} KB/sec\n",
            ops, ops * get_share, ops * (1 - get_share), kb);
        if (mean)
            r.summary +=
                fmt::format("  GET service time (server side) mean {:.2f} us,{} us\n", *mean, line);
        return r;
    }

  private:
    // The page ranges of the hot set shifted by `offset` keys, as streams (regions made once).
    const std::vector<AccessStream>& streams_for(uint64_t offset) {
        auto it = streams_.find(offset);
        if (it != streams_.end()) return it->second;
        const uint64_t n = static_cast<uint64_t>(p_.keys);
        const double keys_per_page =
            static_cast<double>(proc_->mm().pages.size()) / static_cast<double>(chunk_);
        const double wf = static_cast<double>(p_.sets) / static_cast<double>(p_.sets + p_.gets);
        std::vector<AccessStream> v;
        for (const RateRange& g : rate_ranges(pages_, [&](uint64_t p) {
                 return zipf_key_cdf(n, p_.zipf_exp, offset,
                                     static_cast<double>(p) * keys_per_page);
             })) {
            Region*& reg = regions_[{g.first, g.count}];
            if (!reg)
                reg = &proc_->region(*vma_, g.first, g.count,
                                     fmt::format("slabs[{}+{}]", g.first, g.count));
            v.push_back(
                {.region = reg, .pattern = Pattern::Random, .share = g.mass, .write_fraction = wf});
        }
        return streams_[offset] = std::move(v);
    }

    // Adds a chunk of serving by a worker on `node` to the GET service-time mixture: each
    // range's GETs take the service time plus what the lines of an item on each node cost
    // beyond local DRAM at idle latency, weighted by the requests the chunk serves there.
    void sample(const std::vector<AccessStream>& streams, int node, Nanos chunk) {
        // The idle latencies the cost model charges (a memory-only node's device figures).
        const double local = sys_->cost.latency_ns(node, node);
        std::vector<std::pair<Nanos, double>> mix;
        double mean = 0;
        for (const AccessStream& s : streams) {
            const Region& g = *s.region;
            for (int n = 0; n < sys_->nr_nodes(); ++n) {
                const double f = g.present == 0 ? (n == node ? 1.0 : 0.0)
                                                : static_cast<double>(g.pages_on(n)) / g.present;
                if (f <= 0) continue;
                const double extra = lines_ * (sys_->cost.latency_ns(node, n) - local) / mlp_;
                const double ns = static_cast<double>(p_.service_cpu) + std::max(0.0, extra);
                mix.push_back({static_cast<Nanos>(std::llround(ns)), s.share * f});
                mean += s.share * f * ns;
            }
        }
        if (mean <= 0) return;
        const double requests = static_cast<double>(chunk) / mean;
        for (const auto& [ns, w] : mix)
            get_hist_[ns] += w * requests;
    }

    // Worker 0 is memcached's main thread here: it takes the fill (one memtier client setting
    // every key in order) and then creates the other workers; then each serves.
    std::unique_ptr<TaskProgram> make_worker(int w) {
        bool wait = w == 0 && p_.start_after > 0, fill = w == 0;
        return std::make_unique<FnProgram>([this, wait, fill](Task& t, Phase& ph) mutable {
            const Nanos now = sys_->rqs[static_cast<size_t>(t.cpu)].clock;
            if (wait) {
                wait = false;
                make_wait_phase(ph, p_.start_after);
                return true;
            }
            if (fill) {
                // The fill in steps of kTimeCheck, each going on where the last one stopped.
                const double rate =
                    static_cast<double>(chunk_) / static_cast<double>(p_.service_cpu);
                const double total = static_cast<double>(p_.keys) * static_cast<double>(chunk_);
                const double step =
                    std::min(total - filled_, rate * static_cast<double>(kTimeCheck));
                const uint64_t page = static_cast<uint64_t>(filled_) / proc_->mm().pages.size();
                ph.streams.push_back({.region = slabs_,
                                      .write_fraction = 1.0,
                                      .start_at_thread_offset = true,
                                      .start_page = page});
                ph.rate_gbs = rate;
                ph.work_bytes = step;
                if (filled_ == 0) ph.set_mempolicy = p_.policy;
                filled_ += step;
                fill = filled_ < total;
                return true;
            }
            if (!started_) {
                started_ = true;
                start_ = now;
                for (int i = 1; i < p_.threads; ++i)
                    proc_->pthread_create(t, "memcached", make_worker(i), i);
            }
            const int64_t epoch = p_.shift_interval > 0 ? (now - start_) / p_.shift_interval : 0;
            shifts_ = std::max(shifts_, epoch);
            const uint64_t offset = static_cast<uint64_t>(
                (static_cast<unsigned __int128>(epoch) * static_cast<uint64_t>(p_.shift_keys)) %
                static_cast<uint64_t>(p_.keys));
            const std::vector<AccessStream>& s = streams_for(offset);
            ph.streams = s;
            ph.rate_gbs = request_bytes_ / static_cast<double>(p_.service_cpu);
            ph.mlp = mlp_;
            ph.ops_per_byte = 1 / request_bytes_;
            ph.cpu_time = kTimeCheck;
            if (p_.shift_interval > 0)
                ph.cpu_time = std::min(kTimeCheck, start_ + (epoch + 1) * p_.shift_interval - now);
            sample(s, sys_->topo.node_of(t.cpu), ph.cpu_time);
            return true;
        });
    }

    Params p_;
    uint64_t chunk_;
    System* sys_ = nullptr;
    int index_ = 0;
    double lines_ = 1, request_bytes_ = 64, mlp_ = 1;
    std::unique_ptr<Process> proc_;
    Vma* vma_ = nullptr;
    Region* slabs_ = nullptr;
    uint64_t pages_ = 0;
    std::map<uint64_t, std::vector<AccessStream>> streams_;     // by hot-set offset
    std::map<std::pair<uint64_t, uint64_t>, Region*> regions_;  // by (first page, pages)
    double filled_ = 0;  // bytes of the dataset the fill has written
    bool started_ = false;
    Nanos start_ = 0;
    int64_t shifts_ = 0;
    std::map<Nanos, double> get_hist_;  // GET service time (ns) -> GETs
};

const WorkloadRegistrar reg(
    "kv-cache",
    "memcached driven by memtier's Zipfian keys, dataset beyond DRAM, shifting hot set (tiering)",
    [](const TomlTable& t, const Topology& m) { return std::make_unique<KvCache>(t, m); });

}  // namespace

}  // namespace numasim
