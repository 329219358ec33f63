#include "observe/perf_mem_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernel/system.h"
#include "mm/mm.h"
#include "mm/page_alloc.h"
#include "mm/vma.h"
#include "sched/task.h"

namespace numasim {

namespace {

// perf's event names, and the width perf script pads them to (the longest name of the session).
constexpr const char* kLoadEvent = "cpu/mem-loads,ldlat=30/P";
constexpr const char* kStoreEvent = "cpu/mem-stores/P";
constexpr int kEventWidth = 24;  // strlen(kLoadEvent)
// TASK_COMM_LEN - 1: the longest comm the kernel keeps.
constexpr size_t kCommChars = 15;
constexpr double kCacheLine = 64;
// The fractional part of the golden ratio: its multiples mod 1 spread most evenly.
constexpr double kGoldenFraction = 0.6180339887498949;

struct Pending {
    Nanos time;
    int seq;  // order of taking within the look: ties keep it
    std::string line;
};

}  // namespace

uint64_t perf_mem_data_src(PerfMemWhere w) {
    // union perf_mem_data_src: op LOAD, level bits, snoop Miss, lock N/A, TLB L1 or L2 hit,
    // PERF_MEM_LVLNUM_RAM (0xd) or _PMEM (0xe), the remote bit (37); as Intel's PEBS load
    // latency records it. The store: op STORE, L1 miss, snoop and TLB N/A.
    switch (w) {
        case PerfMemWhere::kLocalRam:
            return 0x1a69401042;
        case PerfMemWhere::kRemoteRam:
            return 0x3a69402042;
        case PerfMemWhere::kPmem:
            return 0x1c69400042;
        case PerfMemWhere::kRemotePmem:
            return 0x3c69400042;
        case PerfMemWhere::kStore:
            break;
    }
    return 0x5080184;
}

const char* perf_mem_decode(PerfMemWhere w) {
    switch (w) {
        case PerfMemWhere::kLocalRam:
            return "|OP LOAD|LVL RAM hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A";
        case PerfMemWhere::kRemoteRam:
            return "|OP LOAD|LVL Remote RAM (1 hop) hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A";
        case PerfMemWhere::kPmem:
            return "|OP LOAD|LVL PMEM hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A";
        case PerfMemWhere::kRemotePmem:
            return "|OP LOAD|LVL Remote PMEM hit|SNP Miss|TLB L1 or L2 hit|LCK N/A|BLK  N/A";
        case PerfMemWhere::kStore:
            break;
    }
    return "|OP STORE|LVL L1 miss|SNP N/A|TLB N/A|LCK N/A|BLK  N/A";
}

double golden_point(uint64_t k) {
    const double x = static_cast<double>(k) * kGoldenFraction;
    return x - std::floor(x);
}

std::vector<uint64_t> share_by_weight(uint64_t n, const std::vector<double>& w) {
    std::vector<uint64_t> out(w.size(), 0);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    if (total <= 0 || n == 0) return out;
    std::vector<double> rest(w.size(), 0);
    uint64_t given = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        const double exact = static_cast<double>(n) * std::max(0.0, w[i]) / total;
        out[i] = static_cast<uint64_t>(exact);
        rest[i] = exact - static_cast<double>(out[i]);
        given += out[i];
    }
    std::vector<size_t> order(w.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return rest[a] > rest[b]; });
    for (size_t k = 0; given < n && k < order.size(); ++k)
        if (w[order[k]] > 0) {
            ++out[order[k]];
            ++given;
        }
    return out;
}

// What the recorder saw of one task at its last look, and what it has not sampled yet.
struct PerfMemRecorder::Seen {
    std::vector<Task::RegionTraffic> traffic;  // Task::traffic then, in its order
    std::vector<uint64_t> taken;               // samples so far per region: the golden index
    Nanos utime = 0;
    // Per kind (load, store): the bytes per region since the kind's last sample (a sample's
    // period counts the events since the one before), and the fraction of a sample owed.
    std::vector<double> pending[2];
    double owed[2] = {0, 0};
};

PerfMemRecorder::PerfMemRecorder(std::FILE* out, int freq_hz)
    : out_(out), freq_hz_(static_cast<double>(freq_hz)) {}

PerfMemRecorder::~PerfMemRecorder() = default;

void PerfMemRecorder::sample(const System& sys) {
    const Nanos now = sys.now, span = now - last_;
    if (span <= 0) return;
    std::vector<Pending> lines;
    int seq = 0;
    if (seen_.size() < sys.tasks.size()) seen_.resize(sys.tasks.size());
    for (size_t ti = 0; ti < sys.tasks.size(); ++ti) {
        const Task& p = *sys.tasks[ti];
        Seen& s = seen_[ti];
        const Nanos ran = p.utime - s.utime;
        s.utime = p.utime;
        if (p.state == TaskState::Dead || !p.mm) continue;
        // The bytes per region of each kind since the last sample of that kind.
        const size_t nr = p.traffic.size();
        s.traffic.resize(nr);
        s.taken.resize(nr, 0);
        double events[2] = {0, 0};
        for (int kind = 0; kind < 2; ++kind)
            s.pending[kind].resize(nr, 0);
        for (size_t r = 0; r < nr; ++r) {
            const Task::RegionTraffic& t = p.traffic[r];
            s.pending[0][r] += t.loads - s.traffic[r].loads;
            s.pending[1][r] += t.stores - s.traffic[r].stores;
            s.traffic[r] = t;
            events[0] += s.pending[0][r] / kCacheLine;
            events[1] += s.pending[1][r] / kCacheLine;
        }
        const int cpu_node = sys.cpu_to_node(p.cpu);
        const std::string comm = p.comm.substr(0, kCommChars);
        for (int kind = 0; kind < 2; ++kind) {
            // Without an event the counter cannot overflow: nothing is owed.
            if (events[kind] < 1) {
                s.owed[kind] = 0;
                continue;
            }
            s.owed[kind] += static_cast<double>(ran) * 1e-9 * freq_hz_;
            const auto n = static_cast<uint64_t>(std::min(s.owed[kind], std::floor(events[kind])));
            if (n == 0) continue;
            s.owed[kind] -= static_cast<double>(n);
            const auto period = static_cast<uint64_t>(std::llround(events[kind] / n));
            const std::vector<uint64_t> per_region = share_by_weight(n, s.pending[kind]);
            std::fill(s.pending[kind].begin(), s.pending[kind].end(), 0.0);
            uint64_t k = 0;
            for (size_t r = 0; r < nr; ++r) {
                const Region& reg = *p.traffic[r].region;
                for (uint64_t j = 0; j < per_region[r]; ++j, ++k) {
                    const uint64_t g = s.taken[r]++;
                    if (!reg.vma || reg.count == 0) continue;
                    const Vma& vma = *reg.vma;
                    const uint64_t idx =
                        reg.first + std::min(reg.count - 1,
                                             static_cast<uint64_t>(golden_point(g + 1) *
                                                                   static_cast<double>(reg.count)));
                    const uint64_t lines_per_page = vma.pages.size() / 64;
                    const uint64_t addr = vma.page_addr(idx) + (g * 7 % lines_per_page) * 64;
                    PerfMemWhere where = PerfMemWhere::kStore;
                    if (kind == 0) {
                        // A page not yet present: where its first touch will allocate it.
                        const int nid = vma.present.test(idx)
                                            ? vma.frame(idx).nid
                                            : policy_node(sys, p, vma, idx, p.cpu);
                        const int host = sys.topo.nearest_cpu_node(nid);
                        where = nid == cpu_node ? PerfMemWhere::kLocalRam
                                : host != nid   ? (host == cpu_node ? PerfMemWhere::kPmem
                                                                    : PerfMemWhere::kRemotePmem)
                                                : PerfMemWhere::kRemoteRam;
                    }
                    // Spread over the look, the thread's samples of a kind in their order.
                    const Nanos t = last_ + static_cast<Nanos>((static_cast<double>(k) + 0.5) /
                                                               static_cast<double>(n) *
                                                               static_cast<double>(span));
                    lines.push_back(
                        {t, seq++,
                         fmt::format("{:>16} {:>7}/{:<7} [{:03}] {:>5}.{:06}: {:>10} {:>{}}: "
                                     "{:>16x} {:>16x} {}\n",
                                     comm, p.tgid, p.pid, p.cpu, t / NSEC_PER_SEC,
                                     t % NSEC_PER_SEC / NSEC_PER_USEC, period,
                                     kind == 0 ? kLoadEvent : kStoreEvent, kEventWidth, addr,
                                     perf_mem_data_src(where), perf_mem_decode(where))});
                }
            }
        }
    }
    // perf script prints a session's samples in time order (its ordered_events queue).
    std::stable_sort(lines.begin(), lines.end(), [](const Pending& a, const Pending& b) {
        return a.time != b.time ? a.time < b.time : a.seq < b.seq;
    });
    for (const Pending& l : lines)
        std::fputs(l.line.c_str(), out_);
    last_ = now;
}

}  // namespace numasim
