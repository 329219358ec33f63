#include "machine/memory_probe.h"

#include <fmt/format.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

namespace numasim {

namespace {

using Clock = std::chrono::steady_clock;

// x86-64 and arm64 data cache lines. POWER's 128-byte lines hold two slots, which a random
// order almost never visits one after the other, so each load still misses.
constexpr size_t kLineBytes = 64;
// One PMD-mapped transparent huge page on x86-64 and radix POWER: the sampling step of
// share_on_node() and the alignment that lets the kernel back the buffer with huge pages.
constexpr size_t kHugePageBytes = 2ull << 20;
// Loads between two looks at the clock: long enough that reading it costs nothing, short enough
// (well under a millisecond at memory latency) that a run ends on time.
constexpr int kLoadsPerCheck = 4096;
// Bytes a streaming thread moves between two looks at the stop flag.
constexpr size_t kStreamPieceBytes = 1ull << 20;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Pins the calling thread to `cpu`; returns pthread_setaffinity_np's error (0: pinned).
int pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// Runs `fn` on a new thread pinned to `cpu` (where it can be) and waits for it.
template <typename Fn>
void on_cpu(int cpu, Fn fn) {
    std::thread t([cpu, &fn] {
        pin_self(cpu);
        fn();
    });
    t.join();
}

// The calling thread's CPU time in seconds: the chase is timed in it, so that time the thread
// spends preempted (by other work on a busy host) does not count as load latency.
double thread_cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Follows the chain for about `seconds` of wall time; returns ns of the thread's CPU time per
// load. `p` carries on where it stopped.
double chase_for(void*& p, double seconds) {
    uint64_t loads = 0;
    const Clock::time_point t0 = Clock::now();
    const double cpu0 = thread_cpu_seconds();
    void* q = p;
    do {
        for (int i = 0; i < kLoadsPerCheck; i += 4) {
            q = *static_cast<void**>(q);
            q = *static_cast<void**>(q);
            q = *static_cast<void**>(q);
            q = *static_cast<void**>(q);
        }
        loads += kLoadsPerCheck;
    } while (seconds_since(t0) < seconds);
    const double ns = (thread_cpu_seconds() - cpu0) * 1e9;
    p = q;
    return ns / static_cast<double>(loads);
}

// Reads `n` bytes as 64-bit words and sums them, so that the loads cannot be left out.
uint64_t read_sum(const char* b, size_t n) {
    const auto* w = reinterpret_cast<const uint64_t*>(b);
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= n / sizeof(uint64_t); i += 4) {
        s0 += w[i];
        s1 += w[i + 1];
        s2 += w[i + 2];
        s3 += w[i + 3];
    }
    return s0 + s1 + s2 + s3;
}

}  // namespace

NodeBuffer::NodeBuffer(size_t bytes, int node, int touch_cpu) : size_(bytes), node_(node) {
    void* p = mmap(nullptr, size_ + kHugePageBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Align to a huge page so that the whole buffer can be huge pages; the slack is unmapped.
    const auto base = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (base + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    if (aligned > base) munmap(p, aligned - base);
    const size_t tail = base + size_ + kHugePageBytes - (aligned + size_);
    if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size_), tail);
    data_ = reinterpret_cast<char*>(aligned);
    madvise(data_, size_, MADV_HUGEPAGE);  // a hint; without THP the chase includes page walks
    unsigned long mask[16] = {};           // nodes 0..1023
    const size_t bits = sizeof(mask[0]) * 8;
    if (node_ >= 0 && static_cast<size_t>(node_) < sizeof mask * 8) {
        mask[node_ / bits] = 1ul << (node_ % bits);
        if (syscall(SYS_mbind, data_, size_, MPOL_BIND, mask, sizeof mask * 8, 0) != 0)
            bind_error_ =
                fmt::format("mbind(MPOL_BIND) to node {}: {}", node_, std::strerror(errno));
    } else {
        bind_error_ = fmt::format("node {} is beyond mbind's mask", node_);
    }
    // Written from a CPU of the node where there is one: without the binding, the kernel's
    // default first-touch policy then places the pages there.
    if (touch_cpu >= 0)
        on_cpu(touch_cpu, [this] { std::memset(data_, 0, size_); });
    else
        std::memset(data_, 0, size_);
}

NodeBuffer::~NodeBuffer() {
    munmap(data_, size_);
}

double NodeBuffer::share_on_node() const {
    std::vector<void*> pages;
    for (size_t off = 0; off < size_; off += kHugePageBytes)
        pages.push_back(data_ + off);
    std::vector<int> status(pages.size(), -1);
    // With nodes == NULL, move_pages() only reports where each page is.
    if (syscall(SYS_move_pages, 0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0)
        return -1;
    size_t on = 0;
    for (int s : status)
        on += s == node_;
    return static_cast<double>(on) / static_cast<double>(pages.size());
}

void lay_out_chase(const NodeBuffer& buf, const std::vector<uint32_t>& next) {
    char* b = buf.data();
    for (size_t i = 0; i < next.size(); ++i)
        *reinterpret_cast<void**>(b + i * kLineBytes) = b + size_t{next[i]} * kLineBytes;
}

std::string pin_error(int cpu) {
    int err = 0;
    std::thread t([&] { err = pin_self(cpu); });
    t.join();
    return err ? fmt::format("cannot pin a thread to CPU {}: {}", cpu, std::strerror(err)) : "";
}

std::vector<double> chase_ns_per_load(const NodeBuffer& buf, int cpu, double seconds, int runs) {
    std::vector<double> out;
    on_cpu(cpu, [&] {
        void* p = buf.data();
        chase_for(p, seconds);  // warm-up: TLB, the page tables in the caches, the clock
        for (int r = 0; r < runs; ++r)
            out.push_back(chase_for(p, seconds));
        // Keeps the chase observable, so that it is not optimised away.
        static std::atomic<void*> sink;
        sink.store(p, std::memory_order_relaxed);
    });
    return out;
}

std::vector<double> stream_gbs(const NodeBuffer& buf, const std::vector<int>& cpus, StreamKind kind,
                               double seconds, int runs) {
    // Each thread streams over its share in pieces; a share smaller than a piece is one piece.
    const size_t share = buf.size() / cpus.size() / kLineBytes * kLineBytes;
    const size_t piece = std::min(kStreamPieceBytes, share);
    if (piece == 0) throw std::invalid_argument("stream_gbs: a share smaller than a cache line");
    std::vector<double> out;
    for (int r = 0; r < runs; ++r) {
        std::atomic<bool> stop{false};
        std::atomic<int> ready{0};
        std::vector<double> gbs(cpus.size(), 0);
        std::vector<std::thread> threads;
        for (size_t t = 0; t < cpus.size(); ++t) {
            threads.emplace_back([&, t] {
                pin_self(cpus[t]);
                char* mine = buf.data() + t * share;
                ready.fetch_add(1);
                while (ready.load() < static_cast<int>(cpus.size())) {
                }
                uint64_t bytes = 0, sum = 0;
                const Clock::time_point t0 = Clock::now();
                for (size_t off = 0; !stop.load(std::memory_order_relaxed);
                     off = off + 2 * piece > share ? 0 : off + piece) {
                    if (kind == StreamKind::kRead)
                        sum += read_sum(mine + off, piece);
                    else
                        std::memset(mine + off, static_cast<int>(bytes >> 20), piece);
                    bytes += piece;
                }
                const double s = seconds_since(t0);
                static std::atomic<uint64_t> sink;
                sink.fetch_add(sum, std::memory_order_relaxed);
                gbs[t] = static_cast<double>(bytes) / s / 1e9;
            });
        }
        while (ready.load() < static_cast<int>(cpus.size()))
            std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
        stop.store(true);
        for (auto& th : threads)
            th.join();
        double total = 0;
        for (double g : gbs)
            total += g;
        out.push_back(total);
    }
    return out;
}

}  // namespace numasim
