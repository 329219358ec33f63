// A HotSpot JVM process running the Parallel collector: the java launcher's threads, the VM's
// own threads (VM thread, GC workers, JIT compilers, service threads), and the memory HotSpot
// maps (the Java heap's generations, the card table, the code cache, metaspace, perf data)
// around an application's Java threads. Young collections stop the Java threads at a safepoint
// (workload/hotspot_safepoint.h). The application (workload/specjbb2005.cpp) supplies
// what the Java main thread runs and the Java threads it starts. docs/workloads/specjbb2005.md
// lists every figure with its source.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/clock.h"
#include "workload/hotspot_safepoint.h"
#include "workload/process_layout.h"

namespace numasim {

struct System;
struct Region;
struct Task;

// HotSpot's ergonomic thread counts for a JVM that sees `ncpus` CPUs.
// ParallelGCThreads: ncpus <= 8 ? ncpus : 8 + (ncpus - 8) * 5 / 8
// (Abstract_VM_Version::nof_parallel_worker_threads).
int hotspot_parallel_gc_threads(int ncpus);
// CICompilerCount with tiered compilation (CICompilerCountPerCPU, compilationPolicy.cpp):
// max(log2(n) * log2(max(log2(n), 1)), 1) * 3 / 2; a third of them C1, the rest C2.
int hotspot_compiler_threads(int ncpus);
// WorkerPolicy::calc_active_workers() (UseDynamicNumberOfGCThreads, on by default): the GC
// workers a collection uses. All `total` when ParallelGCThreads was set (`explicit_count`);
// otherwise GCWorkersPerJavaThread (2) per non-daemon Java thread or one per
// HeapSizePerGCThread of committed heap, whichever is more, at least 2 (1 if total is 1), at
// most `total`, and a fall to the mean of `prev` and the new figure.
int hotspot_active_gc_workers(int total, int prev, int java_threads, uint64_t heap_capacity,
                              bool explicit_count);

struct JvmConfig {
    uint64_t max_heap = 0;      // -Xmx: reserved
    uint64_t initial_heap = 0;  // -Xms: committed at start (default 1/64 of RAM)
    uint64_t live_bytes = 0;    // what the application keeps in the old generation at most
    int gc_threads = 0;         // 0: ParallelGCThreads for the CPUs the JVM sees
    std::vector<int> cpus;      // numactl --cpunodebind; empty: every CPU
    bool thp = false;           // the heap may be backed by transparent huge pages
    bool pretouch = false;      // -XX:+AlwaysPreTouch
};

class HotspotJvm {
  public:
    using AppMain = std::function<std::unique_ptr<TaskProgram>(HotspotJvm&)>;

    HotspotJvm(System& sys, JvmConfig cfg, int workload, int& next_thread_index);

    // exec("java ..."): the launcher's primordial thread starts the Java main thread (libjli
    // ContinueInNewThread) and waits for it in pthread_join(); the main thread creates the VM's
    // threads, then runs `app`.
    void start(AppMain app);

    // A Java thread (java.lang.Thread.start()) created by `creator`. It calls
    // java_poll() before each stretch of work and java_thread_exits() before it ends.
    Task& start_java_thread(Task& creator, const std::string& comm,
                            std::unique_ptr<TaskProgram> program);
    // At an allocation or a safepoint poll: true when `ph` blocks the thread (it found eden
    // full and requests the collection, or a collection is pending or running). Otherwise the
    // caller fills `ph` and passes it to run_until_eden_full().
    bool java_poll(Task& t, Phase& ph);
    // Ends a Java thread's CPU-time phase when eden fills, so that it reaches its next poll then.
    void run_until_eden_full(const Task& t, Phase& ph) const;
    void java_thread_exits(Task& t) { safepoint_->java_thread_exits(t); }

    // The next `bytes` of the old generation for long-lived application data, allocated now
    // by `allocator` in eden (returned as a phase) and tenured by the GC workers at the next
    // young collection: promoted() tells when the old-generation copy exists.
    Region* allocate_long_lived(uint64_t bytes, const std::string& name, Phase& alloc_phase);
    bool promoted(const Region* r) const;

    // TLAB allocation: a stream of writes over eden, which every young collection empties.
    AccessStream tlab_stream(double share) const;
    // What every Java thread touches besides the heap: card marks (the post-write barrier),
    // compiled code and class metadata.
    std::vector<AccessStream> vm_streams(double bytes_per_op_share) const;

    // The application's nominal allocation rate (bytes/ns) from `now`: eden fills at this rate
    // (a collection's trigger), from now if no allocation was under way.
    void set_allocation_rate(double bytes_per_ns, Nanos now);
    // When the application ends and the VM's threads exit with it (System.exit()).
    void set_end(Nanos t) { end_ = t; }

    const JvmConfig& config() const { return cfg_; }
    int gc_threads() const { return gc_threads_; }
    int compiler_threads() const { return compiler_threads_; }
    uint64_t eden_bytes() const;
    uint64_t young_bytes() const { return young_; }
    uint64_t old_committed_bytes() const { return old_; }
    Process& process() { return *pr_; }

  private:
    std::unique_ptr<TaskProgram> make_java_main(AppMain app);
    std::unique_ptr<TaskProgram> make_gc_worker(int id);
    std::unique_ptr<TaskProgram> make_vm_thread();
    Phase scavenge_task(int workers) const;
    Nanos gc_period() const;
    std::unique_ptr<TaskProgram> make_idle(Nanos period);
    void map_heap();
    void map_vm_areas();

    System& sys_;
    JvmConfig cfg_;
    int workload_;
    int& next_index_;
    std::unique_ptr<Process> pr_;
    int gc_threads_ = 1, compiler_threads_ = 1;
    uint64_t young_ = 0, old_ = 0;
    uint64_t old_used_ = 0;  // bytes of the old generation handed out
    double alloc_rate_ = 0;
    Nanos end_ = INT64_MAX / 4;  // unknown until the application says
    Region* eden_ = nullptr;
    Region* survivor_[2] = {nullptr, nullptr};
    Region* old_all_ = nullptr;
    Region* young_all_ = nullptr;
    Region* cards_ = nullptr;
    Region* gc_cards_ = nullptr;
    std::vector<Region*> code_;  // the committed part of each code cache segment
    Region* metaspace_ = nullptr;
    Region* class_space_ = nullptr;
    Region* perfdata_ = nullptr;
    struct Pending {
        Region* region;
        int gc_cycle;  // promoted once this many collections have run
    };
    std::vector<Pending> long_lived_;
    int gc_cycles_ = 0;  // young collections completed
    std::unique_ptr<HotspotSafepoint> safepoint_;
    Nanos eden_full_at_ = -1;  // when the Java threads' allocations fill eden; -1: none yet
    int active_workers_ = 1;   // AbstractWorkGang: 1 at start with UseDynamicNumberOfGCThreads
    Task* vm_thread_ = nullptr;
    std::vector<Task*> gc_workers_;
};

}  // namespace numasim
