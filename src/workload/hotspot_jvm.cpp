// HotSpot as a process (docs/workloads/specjbb2005.md, "The JVM"). Flag values are HotSpot's
// defaults (-XX:+PrintFlagsFinal of OpenJDK 17.0.15 with -XX:+UseParallelGC; JDK 8 has the same
// values for these flags); the mappings are those /proc/<pid>/maps shows for that JVM.
#include "workload/hotspot_jvm.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "engine/process.h"
#include "kernel/system.h"
#include "mm/vma.h"
#include "workload/common.h"

namespace numasim {

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// Parallel collector generation sizing: NewRatio = 2 (the young generation is a third of the
// heap: NewSize = InitialHeapSize / 3, MaxNewSize = MaxHeapSize / 3), InitialSurvivorRatio = 8
// (each survivor space is an eighth of the young generation), TargetSurvivorRatio = 50 (the
// survivors kept after a young collection fill at most half a survivor space).
constexpr uint64_t NEW_RATIO = 2;
constexpr uint64_t INITIAL_SURVIVOR_RATIO = 8;
constexpr double TARGET_SURVIVOR_RATIO = 0.50;
// Compressed oops: the heap ends at 4 GiB (unscaled) or 32 GiB (zero-based) when it fits
// (UnscaledOopHeapMax, OopEncodingHeapMax); measured: -Xmx2g at 0x80000000, -Xmx8g at
// 0x600000000.
constexpr uint64_t UNSCALED_OOP_HEAP_MAX = 4 * GiB, OOP_ENCODING_HEAP_MAX = 32 * GiB;
// The card table: one byte per 512-byte card (CardTable::card_shift = 9).
constexpr uint64_t CARD_BYTES = 512;
// The code cache (ReservedCodeCacheSize = 240 MiB with tiered compilation) in three segments
// (SegmentedCodeCache): non-nmethods 5692 KiB, profiled and non-profiled nmethods ~117 MiB each,
// each with 2496 KiB committed at start (measured). The compiled code of the application is
// assumed to fit in what is committed at start (no published code size for SPECjbb2005).
constexpr uint64_t CODE_SEGMENTS[3] = {117536 * KiB + 2496 * KiB, 3196 * KiB + 2496 * KiB,
                                       117540 * KiB + 2496 * KiB};
constexpr uint64_t CODE_COMMITTED = 2496 * KiB;
// Metaspace: the compressed class space (CompressedClassSpaceSize = 1 GiB reserved) and the
// non-class metaspace (a 64 MiB node, measured). In use for the application's classes: an
// assumption of 1 MiB of class space and 8 MiB of metadata (no published figure).
constexpr uint64_t CLASS_SPACE = 1 * GiB, CLASS_SPACE_USED = 1 * MiB;
constexpr uint64_t METASPACE_NODE = 64 * MiB, METASPACE_USED = 8 * MiB;
// hsperfdata (UsePerfData): a 32 KiB shared file mapping the VM Periodic Task Thread's
// StatSampler writes every PerfDataSamplingInterval = 50 ms.
constexpr uint64_t PERFDATA_BYTES = 32 * KiB;
constexpr Nanos PERF_SAMPLING_INTERVAL = 50 * NSEC_PER_MSEC;
// JVM threads that wait on monitors until the VM exits (OpenJDK 17, measured thread names).
// The VM Thread comes first, before these (hotspot_safepoint.h).
const char* const SERVICE_THREADS[] = {"Reference Handl", "Finalizer",       "Signal Dispatch",
                                       "Service Thread",  "Monitor Deflati", "Sweeper thread",
                                       "Common-Cleaner",  "Notification Th"};
// Young collections copy at streaming speed; the floor keeps a tiny heap from turning the
// collections into a busy loop.
constexpr double GC_RATE_GBS = BZERO_RATE_GBS;
constexpr Nanos MIN_GC_PERIOD = 10 * NSEC_PER_MSEC;
// The threads that only wait for the VM's exit look at the clock this often (the model's
// stand-in for being woken at exit).
constexpr Nanos SERVICE_POLL = NSEC_PER_SEC;
// WorkerPolicy (gc_globals.hpp): GCWorkersPerJavaThread = 2; HeapSizePerGCThread =
// ScaleForWordSize(32 MiB), i.e. 32 MiB * 13 / 10 aligned down to the 8-byte heap word on LP64.
constexpr int GC_WORKERS_PER_JAVA_THREAD = 2;
constexpr uint64_t HEAP_SIZE_PER_GC_THREAD = (32 * MiB * 13 / 10) / 8 * 8;
// The Java main thread is the one non-daemon Java thread besides the application's (JBBmain
// runs on it; the VM's service threads are daemons).
constexpr int NON_DAEMON_VM_THREADS = 1;
// Class loading, JIT compilation and the other start-up work run at the bzero rate.
constexpr double VM_INIT_RATE_GBS = BZERO_RATE_GBS;

uint64_t round_mib(uint64_t b) {
    return (b + MiB - 1) / MiB * MiB;
}

Phase write_phase(std::initializer_list<Region*> regions, double rate_gbs) {
    Phase ph;
    ph.rate_gbs = rate_gbs;
    double total = 0;
    for (Region* r : regions)
        total += static_cast<double>(r->bytes());
    for (Region* r : regions)
        ph.streams.push_back({.region = r,
                              .pattern = Pattern::Random,
                              .share = static_cast<double>(r->bytes()) / total,
                              .write_fraction = 1.0});
    ph.work_bytes = total;
    return ph;
}

}  // namespace

int hotspot_parallel_gc_threads(int ncpus) {
    return ncpus <= 8 ? ncpus : 8 + (ncpus - 8) * 5 / 8;
}

int hotspot_active_gc_workers(int total, int prev, int java_threads, uint64_t heap_capacity,
                              bool explicit_count) {
    if (explicit_count) return total;
    const int min_workers = total == 1 ? 1 : 2;
    const int by_java_threads = std::max(GC_WORKERS_PER_JAVA_THREAD * java_threads, min_workers);
    const auto by_heap = static_cast<int>(std::min<uint64_t>(
        INT32_MAX, std::max<uint64_t>(2, heap_capacity / HEAP_SIZE_PER_GC_THREAD)));
    int n = std::min(std::max(by_java_threads, by_heap), total);
    // Increase at once, decrease slowly.
    if (n < prev) n = std::max(min_workers, (prev + n) / 2);
    return n;
}

int hotspot_compiler_threads(int ncpus) {
    const int log_cpu = std::bit_width(static_cast<unsigned>(std::max(ncpus, 1))) - 1;
    const int loglog = std::bit_width(static_cast<unsigned>(std::max(log_cpu, 1))) - 1;
    return std::max(log_cpu * loglog, 1) * 3 / 2;
}

HotspotJvm::HotspotJvm(System& sys, JvmConfig cfg, int workload, int& next_thread_index)
    : sys_(sys), cfg_(std::move(cfg)), workload_(workload), next_index_(next_thread_index) {
    const int visible = cfg_.cpus.empty() ? sys.nr_cpus() : static_cast<int>(cfg_.cpus.size());
    gc_threads_ = cfg_.gc_threads > 0 ? cfg_.gc_threads : hotspot_parallel_gc_threads(visible);
    compiler_threads_ = std::max(2, hotspot_compiler_threads(visible));
    safepoint_ = std::make_unique<HotspotSafepoint>(HotspotSafepoint::Hooks{
        .active_workers =
            [this] {
                active_workers_ =
                    hotspot_active_gc_workers(gc_threads_, active_workers_,
                                              safepoint_->java_threads() + NON_DAEMON_VM_THREADS,
                                              young_ + old_, cfg_.gc_threads > 0);
                return active_workers_;
            },
        .worker_task = [this](int n) { return scavenge_task(n); },
        .collected =
            [this](Nanos now) {
                ++gc_cycles_;
                eden_full_at_ = alloc_rate_ > 0 ? now + gc_period() : -1;
            }});
    pr_ = Process::exec(sys, hotspot_jvm());
    if (!cfg_.cpus.empty()) pr_->set_exec_affinity(cfg_.cpus);
    map_heap();
    map_vm_areas();
}

void HotspotJvm::map_heap() {
    Process& pr = *pr_;
    const uint64_t max_heap = round_mib(cfg_.max_heap);
    const uint64_t max_young = round_mib(max_heap / (NEW_RATIO + 1));
    const uint64_t initial = std::min(round_mib(cfg_.initial_heap), max_heap);
    young_ = std::min(max_young, round_mib(initial / (NEW_RATIO + 1)));
    // The old generation grows (PSOldGen::expand) to hold what is tenured into it.
    old_ = std::min(max_heap - max_young, std::max(initial - young_, round_mib(cfg_.live_bytes)));
    // [old committed rw-p][old reserved ---p][young committed rw-p][young reserved ---p].
    uint64_t base = 0;
    if (max_heap <= UNSCALED_OOP_HEAP_MAX)
        base = UNSCALED_OOP_HEAP_MAX - max_heap;
    else if (max_heap <= OOP_ENCODING_HEAP_MAX)
        base = OOP_ENCODING_HEAP_MAX - max_heap;
    const uint32_t rw = VM_READ | VM_WRITE | (cfg_.thp ? VM_HUGEPAGE : 0);
    Mm& mm = pr.mm();
    const bool top_down = !base;
    if (top_down) base = (mm.mmap_base - max_heap) & ~(mm.pages.pmd_size() - 1);
    Vma& old = do_mmap(sys_, mm, old_, rw, "java-heap-old", nullptr, 0, base);
    const uint64_t old_reserved = max_heap - max_young - old_;
    if (old_reserved) do_mmap(sys_, mm, old_reserved, 0, "", nullptr, 0, old.end);
    Vma& young =
        do_mmap(sys_, mm, young_, rw, "java-heap-young", nullptr, 0, base + max_heap - max_young);
    if (max_young > young_) do_mmap(sys_, mm, max_young - young_, 0, "", nullptr, 0, young.end);
    if (top_down) mm.mmap_base = base;  // later mappings go below the heap
    old_all_ = &pr.region(old, 0, old.nr_pages(), "old");
    young_all_ = &pr.region(young, 0, young.nr_pages(), "young");
    // PSYoungGen: eden at the bottom, then the two survivor spaces.
    const uint64_t surv = young.nr_pages() / INITIAL_SURVIVOR_RATIO;
    const uint64_t eden = young.nr_pages() - 2 * surv;
    eden_ = &pr.region(young, 0, eden, "eden");
    survivor_[0] = &pr.region(young, eden, surv, "survivor0");
    survivor_[1] = &pr.region(young, eden + surv, surv, "survivor1");
    // The card table covers the reserved heap (mapped as one VMA here; HotSpot commits the parts
    // that cover committed generations). A card page covers 2 MiB of heap with 4 KiB pages.
    Vma& cards = pr.mmap(max_heap / CARD_BYTES, "card-table", VM_READ | VM_WRITE);
    const uint64_t per_page = sys_.pages().size() * CARD_BYTES;
    const uint64_t live_pages =
        std::max<uint64_t>(1, sys_.pages().pages(std::min(old_, cfg_.live_bytes)));
    const uint64_t old_cards =
        std::min(cards.nr_pages(), (live_pages * sys_.pages().size() + per_page - 1) / per_page);
    gc_cards_ = &pr.region(cards, 0, old_cards, "cards-old");
    const uint64_t y0 = std::min(cards.nr_pages() - 1, (max_heap - max_young) / per_page);
    const uint64_t yn =
        std::min(cards.nr_pages() - y0, (eden * sys_.pages().size() + per_page - 1) / per_page);
    cards_ = &pr.region(cards, y0, std::max<uint64_t>(1, yn), "cards-eden");
}

void HotspotJvm::map_vm_areas() {
    Process& pr = *pr_;
    for (uint64_t seg : CODE_SEGMENTS) {
        Vma& c = pr.mmap(CODE_COMMITTED, "code-cache", VM_READ | VM_WRITE | VM_EXEC);
        pr.mmap(seg - CODE_COMMITTED, "", 0);
        code_.push_back(&pr.region(c, 0, c.nr_pages(), fmt::format("code{}", code_.size())));
    }
    Vma& meta = pr.mmap(METASPACE_NODE, "metaspace", VM_READ | VM_WRITE);
    metaspace_ = &pr.region(meta, 0, sys_.pages().pages(METASPACE_USED), "metaspace");
    Vma& ccs = pr.mmap(CLASS_SPACE_USED, "class-space", VM_READ | VM_WRITE);
    pr.mmap(CLASS_SPACE - CLASS_SPACE_USED, "", 0);
    class_space_ = &pr.region(ccs, 0, ccs.nr_pages(), "class-space");
    auto& file = sys_.files["/tmp/hsperfdata_root/" + std::to_string(sys_.mms.size())];
    file = std::make_shared<MemObject>(sys_.pages().pages(PERFDATA_BYTES), true);
    Vma& perf = pr.mmap(PERFDATA_BYTES, "/tmp/hsperfdata_root",
                        VM_READ | VM_WRITE | VM_SHARED | VM_FILE, file);
    perfdata_ = &pr.region(perf, 0, perf.nr_pages(), "perfdata");
}

uint64_t HotspotJvm::eden_bytes() const {
    return eden_->bytes();
}

AccessStream HotspotJvm::tlab_stream(double share) const {
    // TLABs are handed out from eden's top in the order threads ask (about 50 refills per
    // thread per collection: TLABWasteTargetPercent = 1), so over a cycle every eden page is
    // written once by whichever thread took that TLAB: uniform random writes.
    return {.region = eden_, .pattern = Pattern::Random, .share = share, .write_fraction = 1.0};
}

std::vector<AccessStream> HotspotJvm::vm_streams(double share) const {
    std::vector<AccessStream> v = {
        {.region = cards_, .pattern = Pattern::Random, .share = share, .write_fraction = 1.0},
        {.region = gc_cards_, .pattern = Pattern::Random, .share = share, .write_fraction = 1.0},
        {.region = metaspace_, .pattern = Pattern::Random, .share = share},
        {.region = class_space_, .pattern = Pattern::Random, .share = share}};
    for (Region* c : code_)
        v.push_back({.region = c, .pattern = Pattern::Random, .share = share});
    return v;
}

Region* HotspotJvm::allocate_long_lived(uint64_t bytes, const std::string& name,
                                        Phase& alloc_phase) {
    const uint64_t first = std::min(old_all_->count - 1, old_used_ / sys_.pages().size());
    const uint64_t n =
        std::max<uint64_t>(1, std::min(old_all_->count - first, sys_.pages().pages(bytes)));
    old_used_ += n * sys_.pages().size();
    Region* r = &pr_->region(*old_all_->vma, first, n, name);
    long_lived_.push_back({r, gc_cycles_});
    // The objects are first built in eden by the allocating thread.
    alloc_phase = Phase{};
    alloc_phase.rate_gbs = VM_INIT_RATE_GBS;
    alloc_phase.streams.push_back(tlab_stream(1.0));
    alloc_phase.work_bytes = static_cast<double>(bytes);
    return r;
}

bool HotspotJvm::promoted(const Region* r) const {
    for (const Pending& p : long_lived_)
        if (p.region == r) return gc_cycles_ > p.gc_cycle;
    return false;
}

void HotspotJvm::start(AppMain app) {
    auto main = std::make_unique<FnProgram>(
        [this, app = std::move(app), step = 0](Task& t, Phase& ph) mutable {
            if (step == 0) {
                step = 1;
                // libjli: the Java main thread gets its own stack (ThreadStackSize); the
                // primordial thread waits for it.
                pr_->pthread_create(t, "java", make_java_main(std::move(app)), next_index_++,
                                    java_thread_stack());
                ph.cpu_time = NSEC_PER_USEC;
                ph.join = true;
                return true;
            }
            return false;
        });
    pr_->start(nullptr, "java", std::move(main), workload_, next_index_++);
}

Task& HotspotJvm::start_java_thread(Task& creator, const std::string& comm,
                                    std::unique_ptr<TaskProgram> program) {
    Task& t =
        pr_->pthread_create(creator, comm, std::move(program), next_index_++, java_thread_stack());
    safepoint_->java_thread_started(t);
    return t;
}

void HotspotJvm::set_allocation_rate(double bytes_per_ns, Nanos now) {
    alloc_rate_ = bytes_per_ns;
    if (eden_full_at_ < 0 && alloc_rate_ > 0) eden_full_at_ = now + gc_period();
}

Nanos HotspotJvm::gc_period() const {
    return std::max(MIN_GC_PERIOD,
                    static_cast<Nanos>(static_cast<double>(eden_->bytes()) / alloc_rate_));
}

bool HotspotJvm::java_poll(Task& t, Phase& ph) {
    const Nanos now = task_clock(sys_, t);
    return safepoint_->java_poll(t, now, eden_full_at_ >= 0 && now >= eden_full_at_, ph);
}

void HotspotJvm::run_until_eden_full(const Task& t, Phase& ph) const {
    if (eden_full_at_ < 0) return;
    const Nanos left = std::max<Nanos>(1, eden_full_at_ - task_clock(sys_, t));
    if (ph.cpu_time > 0 && ph.cpu_time <= left) return;
    ph.cpu_time = left;
    ph.exact_end = true;
}

std::unique_ptr<TaskProgram> HotspotJvm::make_java_main(AppMain app) {
    enum Step { Threads, Classes, PreTouch, App, Exit };
    return std::make_unique<FnProgram>([this, app = std::move(app), step = Threads,
                                        prog = std::shared_ptr<TaskProgram>()](Task& t,
                                                                               Phase& ph) mutable {
        switch (step) {
            case Threads:
                // Threads::create_vm(): the heap's GC workers, the VM thread, the compilers,
                // the service threads.
                for (int g = 0; g < gc_threads_; ++g)
                    gc_workers_.push_back(&pr_->pthread_create(t, fmt::format("GC Thread#{}", g),
                                                               make_gc_worker(g), next_index_++,
                                                               jvm_native_thread_stack()));
                vm_thread_ = &pr_->pthread_create(t, "VM Thread", make_vm_thread(), next_index_++,
                                                  jvm_native_thread_stack());
                safepoint_->set_vm_thread(vm_thread_);
                for (const char* name : SERVICE_THREADS)
                    pr_->pthread_create(t, name, make_idle(0), next_index_++, java_thread_stack());
                for (int c = 0; c < compiler_threads_; ++c) {
                    // The JIT installs the application's compiled code early in the run.
                    Region* seg = code_[static_cast<size_t>(c) % code_.size()];
                    auto jit = std::make_unique<FnProgram>(
                        [this, seg, done = false](Task& jt, Phase& jph) mutable {
                            if (!done) {
                                done = true;
                                jph = write_phase({seg}, VM_INIT_RATE_GBS);
                                jph.work_bytes /= std::max(1, compiler_threads_ / 3);
                                return true;
                            }
                            const Nanos now = task_clock(sys_, jt);
                            if (now >= end_) return false;
                            make_wait_phase(jph, std::min(SERVICE_POLL, end_ - now));
                            return true;
                        });
                    pr_->pthread_create(
                        t, c < compiler_threads_ / 3 ? "C1 CompilerThre" : "C2 CompilerThre",
                        std::move(jit), next_index_++, jvm_compiler_thread_stack());
                }
                pr_->pthread_create(t, "VM Periodic Tas", make_idle(PERF_SAMPLING_INTERVAL),
                                    next_index_++, jvm_native_thread_stack());
                step = Classes;
                [[fallthrough]];
            case Classes:
                // Class loading: metadata written by the loading thread.
                step = PreTouch;
                ph = write_phase({metaspace_, class_space_}, VM_INIT_RATE_GBS);
                return true;
            case PreTouch:
                step = App;
                prog = app(*this);
                if (cfg_.pretouch) {
                    ph = write_phase({old_all_, young_all_}, BZERO_RATE_GBS);
                    for (auto& s : ph.streams)
                        s.pattern = Pattern::Sweep;
                    return true;
                }
                [[fallthrough]];
            case App:
                if (prog && prog->next_phase(t, ph)) return true;
                // The VM's exit: VMThread::wait_for_vm_thread_exit() wakes the VM thread; the
                // GC workers are woken too, the model's stand-in for exit_group() ending them.
                step = Exit;
                ph = Phase{};
                ph.cpu_time = NSEC_PER_USEC;
                ph.futex_wake = gc_workers_;
                ph.futex_wake.push_back(vm_thread_);
                return true;
            case Exit:
                return false;
        }
        return false;
    });
}

std::unique_ptr<TaskProgram> HotspotJvm::make_idle(Nanos period) {
    // Waits on its monitor until the VM exits; with a period, wakes that often to sample the
    // perf counters into hsperfdata.
    return std::make_unique<FnProgram>([this, period](Task& t, Phase& ph) {
        const Nanos now = task_clock(sys_, t);
        if (now >= end_) return false;
        if (period <= 0) {
            make_wait_phase(ph, std::min(SERVICE_POLL, end_ - now));
            return true;
        }
        ph.rate_gbs = 1.0;
        ph.streams.push_back(
            {.region = perfdata_, .pattern = Pattern::Random, .write_fraction = 1.0});
        ph.cpu_time = NSEC_PER_USEC;
        ph.sleep_after = std::min(period, end_ - now);
        return true;
    });
}

// A ParallelGC worker (GangWorker::loop()): it waits on the start semaphore, runs its share of
// the scavenge, reports done, and waits again (hotspot_safepoint.h).
std::unique_ptr<TaskProgram> HotspotJvm::make_gc_worker(int id) {
    return std::make_unique<FnProgram>([this, id](Task& t, Phase& ph) {
        const Nanos now = task_clock(sys_, t);
        return safepoint_->worker_step(t, id, now, now >= end_, ph);
    });
}

// The VM thread: waits for a VM operation, brings the Java threads to a safepoint, runs the
// young collection on the GC workers and restarts the Java threads (hotspot_safepoint.h).
std::unique_ptr<TaskProgram> HotspotJvm::make_vm_thread() {
    return std::make_unique<FnProgram>([this](Task& t, Phase& ph) {
        const Nanos now = task_clock(sys_, t);
        return safepoint_->vm_thread_step(now, now >= end_, ph);
    });
}

// One of `workers` shares of a young collection (ScavengeRootsTask): copy eden's survivors into
// the empty survivor space (TargetSurvivorRatio: half of it), tenure the long-lived objects
// allocated since the last collection into their old-generation pages, and scan the cards of
// the old generation.
Phase HotspotJvm::scavenge_task(int workers) const {
    Phase ph;
    const double copy = TARGET_SURVIVOR_RATIO * static_cast<double>(survivor_[0]->bytes());
    const double cards = static_cast<double>(gc_cards_->bytes());
    double total = 2 * copy + cards;
    std::vector<Region*> tenure;
    for (const Pending& p : long_lived_)
        if (p.gc_cycle == gc_cycles_) {
            tenure.push_back(p.region);
            total += static_cast<double>(p.region->bytes());
        }
    ph.rate_gbs = GC_RATE_GBS;
    ph.streams.push_back({.region = eden_, .pattern = Pattern::Random, .share = copy / total});
    ph.streams.push_back({.region = survivor_[gc_cycles_ & 1],
                          .pattern = Pattern::Random,
                          .share = copy / total,
                          .write_fraction = 1.0});
    ph.streams.push_back({.region = gc_cards_,
                          .pattern = Pattern::Random,
                          .share = cards / total,
                          .write_fraction = 0.5});
    for (Region* r : tenure)
        ph.streams.push_back({.region = r,
                              .pattern = Pattern::Random,
                              .share = static_cast<double>(r->bytes()) / total,
                              .write_fraction = 1.0});
    ph.work_bytes = std::max(1.0, total / std::max(1, workers));
    ph.exact_end = true;
    return ph;
}

}  // namespace numasim
