// Costs of kernel work, the same for every experiment. Each value comes from a published
// measurement or cost model; docs/model.md lists the sources. Per-machine memory figures
// (latency by distance, bandwidth, cache) are not here: they live in the machine presets.
//
// A figure that was measured or estimated carries the range its sources support beside it
// (`Range:`). The model reads each through the CostModel (CostModel::k()), so that
// `numasim compare --uncertainty` can run it with the figures drawn from their ranges
// (experiment/uncertainty.h); every run without that option uses the values given here. Where a
// source gives a single figure, the range is a factor of two either way and says so: one figure
// supports no finer claim. Figures that are counted or defined (lines read by a kernel function,
// the line size) have no range and stay compile-time constants.
#pragma once

namespace numasim::cost {

// A cost figure and the range [lo, hi] its sources support; the model uses `value`.
struct Figure {
    double value, lo, hi;
    // Implicit, so that the cost paths read a figure as the number it is.
    constexpr operator double() const { return value; }
};

// The measured or estimated figures, one set per run.
struct Constants {
    // --- faults and scanning ---

    // A NUMA hinting fault: trap, do_numa_page, PTE restore. mmtests' AutoNUMA cost model
    // (MonitorMmtestsvmstat.pm, Cnumahint) charges 5000 cycles per hint fault.
    // Range: one figure of a cost model, a factor of two either way.
    Figure HINT_FAULT_CYCLES{5000, 2500, 10000};
    // One PTE made PROT_NONE by change_prot_numa: mmtests' Ca = 56/8 = 7 cycles per PTE.
    // Range: one figure, a factor of two either way.
    Figure PTE_UPDATE_CYCLES{7, 3.5, 14};
    // Walking a PTE that change_prot_numa leaves alone (already protnone, skipped folio): one
    // load and a test, about 2 cycles (same order as Ca, which includes the store).
    // Range: an estimate, a factor of two either way.
    Figure PTE_WALK_CYCLES{2, 1, 4};
    // Anonymous first-touch fault, excluding the page clear: will-it-scale page_fault1 runs
    // about 1.2 M faults/s per core on 2.x GHz Xeons, ~2000 cycles of which clear_page takes a
    // few hundred. The clear itself is charged at the memory system's rate
    // (CostModel::clear_ns).
    // Range: 2.0 to 2.9 GHz gives 1670 to 2420 cycles a fault, less a clear of 200 to 500.
    Figure ANON_FAULT_CYCLES{1700, 1200, 2200};
    // Work done under the PTE lock when a fault installs a page: set_pte_at, the anon rmap and
    // LRU batch of the new folio, the per-CPU RSS counter. About a dozen stores and locked
    // operations on lines the faulting CPU owns, ~20 cycles each (Intel optimization manual,
    // locked instructions on a cached line): 200 cycles, about a tenth of ANON_FAULT_CYCLES.
    // Range: an estimate, a factor of two either way.
    Figure PTL_HOLD_CYCLES{200, 100, 400};

    // --- moving cache lines and interrupts ---

    // A cache line held modified by another core of the same node: the request goes to the
    // LLC, which forwards it to the owning core. Molka et al., "Cache coherence protocol and
    // memory performance of the Intel Haswell-EP architecture" (ICPP 2015), measure such
    // core-to-core transfers at about twice the L3 hit latency; the factor applies to each
    // preset's LLC latency. Across nodes a transfer costs about the remote memory latency at
    // that distance (the same paper: remote cache forwards are close to remote DRAM reads).
    // Range: "about twice" read as 1.5 to 2.5 (approximate).
    Figure LINE_TRANSFER_LLC_FACTOR{2.0, 1.5, 2.5};
    // A TLB shootdown (flush_tlb_mm_range with other CPUs in mm_cpumask): the initiator sends
    // the IPIs and waits for the slowest acknowledgement. Amit, "Optimizing the TLB shootdown
    // algorithm with page access tracking" (USENIX ATC 2017) and Kumar et al., "LATR: lazy
    // translation coherence" (ASPLOS 2018) measure a shootdown of a few microseconds on
    // two-socket Xeons, rising with the number of target cores; 2 us is the fixed part
    // (approximate). On top of it the initiator queues a call-function entry on each target and
    // polls its completion flag: two cache-line transfers per target
    // (smp_call_function_many_cond), from the preset's latencies.
    // Range: the papers' "a few microseconds", 1 to 5 us.
    Figure TLB_SHOOTDOWN_NS{2000, 1000, 5000};
    // Each target CPU's interrupt: entry, flush_tlb_func, exit and the TLB refills that follow;
    // about 1 us (same papers; the interrupt round trip alone is 0.5-1 us on those machines).
    // Range: from the round trip alone (0.5 us) to twice the figure.
    Figure TLB_FLUSH_IPI_NS{1000, 500, 2000};

    // --- migration ---

    // Fixed work of migrating one folio besides the copy: isolate, unmap, remap, putback. Yan
    // et al., "Nimble Page Management for Tiered Memory Systems" (ASPLOS'19) measure Linux
    // migrate_pages() at about 0.4 GB/s for 4 KiB pages single-threaded, ~10 us per page, of
    // which the 4 KiB copy is under 1 us.
    // Range: one measurement, a factor of two either way.
    Figure MIGRATE_FOLIO_OVERHEAD_NS{9000, 4500, 18000};
    // Extra work of the migrating task per additional mapping of a shared folio: one more rmap
    // walk step, a PTE cleared to a migration entry and later restored (about a minor fault's
    // work, will-it-scale above). The TLB flush and the other mappers' waits are charged
    // separately.
    // Range: an estimate, a factor of two either way.
    Figure MIGRATE_PER_MAPPING_NS{1000, 500, 2000};
    // Reclaim's work per folio it scans on an LRU list (shrink_folio_list and
    // shrink_active_list): isolating it under the lru_lock, folio_referenced()'s rmap walk to its
    // mapping's PTE (test and clear the accessed bit) and putting it back. The rmap step is the
    // one MIGRATE_PER_MAPPING_NS prices (about a minor fault's work); isolation and putback are
    // a few locked list operations on top. The demotion copies are charged as migrations.
    // Range: an estimate, a factor of two either way.
    Figure RECLAIM_SCAN_FOLIO_NS{1000, 500, 2000};
    // Copy bandwidth of one core for migration and COW copies, as a fraction of the machine's
    // single-core streaming bandwidth (copy reads and writes: half the one-way rate).
    // Range: 0.4 to 0.6, reads and writes need not share a core's fill buffers evenly
    // (approximate).
    Figure COPY_BANDWIDTH_FRACTION{0.5, 0.4, 0.6};

    // --- scheduling ---

    // A context switch, direct cost: lmbench lat_ctx on recent x86 is 1-3 us; 2 us.
    // Range: lmbench's 1 to 3 us.
    Figure CONTEXT_SWITCH_NS{2000, 1000, 3000};
    // Private cache a migrated task must refill even within an LLC: the L2 (1 MiB on
    // Skylake-SP and Cascade Lake, 256 KiB on Haswell; 1 MiB is the conservative figure).
    // Range: the L2 sizes of the modelled x86 generations, 256 KiB (Haswell) to 2 MiB
    // (Sapphire Rapids), Intel optimization manual.
    Figure PRIVATE_CACHE_BYTES{1024.0 * 1024, 256.0 * 1024, 2048.0 * 1024};

    // --- the memory system ---

    // Loaded-latency curve: queueing delay knee * L * rho / (1 - rho) at utilisation rho, L the
    // idle latency of the resource; fits Intel MLC loaded-latency curves (about +10 % at half
    // bandwidth, about 2x at 90 %).
    // Range: a fit to curves that differ between platforms, a factor of two either way.
    Figure LOADED_LATENCY_KNEE{0.1, 0.05, 0.2};
};

// The figures as published: what every run uses unless a draw says otherwise.
inline constexpr Constants kNominal{};

// Cache lines task_numa_find_cpu's search pulls from each CPU it looks at, counted from
// kernel/sched/fair.c (v6.x). update_numa_stats(): the runqueue's cfs sched_avg (load, runnable,
// util; one cacheline-aligned struct) and the line with nr_running, curr and cpu_capacity.
inline constexpr double NUMA_STATS_LINES_PER_CPU = 2;
// task_numa_compare() on a busy CPU: the current task's flags / numa_group / preferred node,
// its numa_faults entries for the two nodes, its se.avg for task_h_load and its cpus_mask.
inline constexpr double NUMA_COMPARE_LINES_BUSY = 4;
// task_numa_compare() on an idle CPU: the idle task's flags, to see that it is idle.
inline constexpr double NUMA_COMPARE_LINES_IDLE = 1;
// Cache lines one rmap step reads or writes per mapping of a migrating page, counted from
// mm/rmap.c and mm/page_vma_mapped.c of v4.18 (try_to_unmap_one, remove_migration_pte; the
// same structures to v6.x). Each is a dependent load: the walk cannot name the next line before
// it has read this one. MIGRATE_PER_MAPPING_NS prices the step with these lines on the walking
// CPU's own node; a line elsewhere costs the difference of the idle latencies on top.
//   Lines allocated with the mapping (the vm_area_struct, its anon_vma_chain and the mm_struct
//   at mmap or fork, the upper page-table levels at fork or first fault, all on the node of
//   the CPU that made them): the vm_area_struct's first three lines (vm_start; vm_mm and the
//   interval-tree node `shared.rb` of a file mapping; vm_pgoff, which vma_address reads),
//   the mm_struct's line with `pgd`, and the pgd, pud and pmd entries (p4d folded).
inline constexpr double RMAP_STEP_VMA_LINES = 3;
inline constexpr double RMAP_STEP_MM_LINES = 1;
inline constexpr double RMAP_STEP_UPPER_TABLE_LINES = 3;
//   An anonymous page's walk (rmap_walk_anon) reaches each vma through an anon_vma_chain
//   node of the interval tree: one line more than a file page's (rmap_walk_file).
inline constexpr double RMAP_STEP_AVC_LINES = 1;
//   Lines of the PTE page, allocated by the mapping's first fault in its range (pte_alloc_one,
//   on the faulting CPU's node): the split PTE lock in the page's struct page (taken with a
//   locked write) and the PTE's own line.
inline constexpr double RMAP_STEP_PTE_PAGE_LINES = 2;
// The restoring walk (remove_migration_ptes) follows the same chain, whose lines the unmap walk
// left in this CPU's cache (288 mappings' lines are 160 KiB, inside any modelled LLC), except
// the PTE page's two lines: a mapper that touches the page meanwhile walks to the migration
// entry and takes the PTE lock in migration_entry_wait(), so they come back from its node.
inline constexpr double RMAP_RESTORE_PTE_PAGE_LINES = 2;
// A store moves a line twice (read for ownership, then write-back); a load moves it once.
inline constexpr double WRITE_TRAFFIC_FACTOR = 2.0;
// Memory directory (Intel Xeon since Ivy Bridge-EP, on by default on Skylake-SP and Cascade
// Lake): two bits per line kept in the DRAM's ECC bits tell the home agent whether another socket
// may hold the line (states I, S, A). A read for ownership from another socket of a line no cache
// holds is granted exclusive, so the home sets the line's state to A and must write the whole line
// back to DRAM to keep it; the later write-back of the modified line clears it to I with the data.
// So each line a remote store misses to costs its home one more DRAM write than a local store.
// Sources: Intel, "Intel Xeon Processor Scalable Family Technical Overview" (2017), section
// "Directory-Based Coherency"; J. D. McCalpin, "Memory directories in Intel processors" (blog,
// 28 Aug 2023) and his Intel-forum answers ("SKL - strange memory behavior"), from the uncore
// counters (UNC_M_CAS_COUNT.WR with remote traffic). Counted from the protocol: exact.
inline constexpr double DIRECTORY_WRITES_PER_REMOTE_STORE = 1;
// Cache line size on every machine modelled.
inline constexpr double CACHE_LINE_BYTES = 64;

}  // namespace numasim::cost
