// Costs of kernel work, the same for every experiment. Each value comes from a published
// measurement or cost model; docs/model.md lists the sources. Per-machine memory figures
// (latency by distance, bandwidth, cache) are not here: they live in the machine presets.
#pragma once

namespace numasim::cost {

// A NUMA hinting fault: trap, do_numa_page, PTE restore. mmtests' AutoNUMA cost model
// (MonitorMmtestsvmstat.pm, Cnumahint) charges 5000 cycles per hint fault.
inline constexpr double HINT_FAULT_CYCLES = 5000;
// One PTE made PROT_NONE by change_prot_numa: mmtests' Ca = 56/8 = 7 cycles per PTE.
inline constexpr double PTE_UPDATE_CYCLES = 7;
// Walking a PTE that change_prot_numa leaves alone (already protnone, skipped folio): one load
// and a test, about 2 cycles (same order as Ca, which includes the store).
inline constexpr double PTE_WALK_CYCLES = 2;
// Anonymous first-touch fault, excluding the page clear: will-it-scale page_fault1 runs about
// 1.2 M faults/s per core on 2.x GHz Xeons, ~2000 cycles of which clear_page takes a few hundred.
inline constexpr double ANON_FAULT_CYCLES = 1700;
// Fixed work of migrating one folio besides the copy: isolate, unmap with TLB flush, remap,
// putback. Yan et al., "Nimble Page Management for Tiered Memory Systems" (ASPLOS'19) measure
// Linux migrate_pages() at about 0.4 GB/s for 4 KiB pages single-threaded, ~10 us per page, of
// which the 4 KiB copy is under 1 us.
inline constexpr double MIGRATE_FOLIO_OVERHEAD_NS = 9000;
// Extra per additional mapping of a shared folio: one more rmap walk step, PTE clear and a
// later fault on the migration entry by that process (~ a minor fault, will-it-scale above).
inline constexpr double MIGRATE_PER_MAPPING_NS = 1000;
// Copy bandwidth of one core for migration and COW copies, as a fraction of the machine's
// single-core streaming bandwidth (copy reads and writes: half the one-way rate).
inline constexpr double COPY_BANDWIDTH_FRACTION = 0.5;
// A context switch, direct cost: lmbench lat_ctx on recent x86 is 1-3 us; 2 us.
inline constexpr double CONTEXT_SWITCH_NS = 2000;
// Private cache a migrated task must refill even within an LLC: the L2 (1 MiB on Skylake-SP
// and Cascade Lake, 256 KiB on Haswell; 1 MiB is the conservative figure).
inline constexpr double PRIVATE_CACHE_BYTES = 1024.0 * 1024;
// Loaded-latency curve: latency multiplier 1 + KNEE * rho / (1 - rho) at utilisation rho; fits
// Intel MLC loaded-latency curves (about +10 % at half bandwidth, about 2x at 90 %).
inline constexpr double LOADED_LATENCY_KNEE = 0.1;
// Highest utilisation the curve is evaluated at (keeps the multiplier finite: 1 + 0.1*99 ~ 11x).
inline constexpr double MAX_UTILISATION = 0.99;
// A store moves a line twice (read for ownership, then write-back); a load moves it once.
inline constexpr double WRITE_TRAFFIC_FACTOR = 2.0;
// Cache line size on every machine modelled.
inline constexpr double CACHE_LINE_BYTES = 64;

}  // namespace numasim::cost
