// NUMA page migration (mm/migrate.c): migrate_misplaced_folio_prepare() checks and
// migrate_misplaced_folio(), moving a base page or a PMD-mapped THP to a target node. A
// migration fails when the target is below its watermarks; a THP is not split on failure.
#pragma once

#include <cstdint>

#include "mm/migrate_cost.h"

namespace numasim {

struct System;
struct Task;
struct Vma;

// Error codes as the kernel returns them.
inline constexpr int MIGRATE_OK = 0;
inline constexpr int MIGRATE_EAGAIN = -11;
inline constexpr int MIGRATE_EACCES = -13;

// Checks before isolating the folio at `idx` (nr pages) for migration to `target`, by a fault
// on `cpu` (which wakes the target's kswapd in tiering mode when the target is full).
int migrate_misplaced_folio_prepare(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target,
                                    int cpu);

// Moves the folio (nr = 1 or the VMA's PMD page count, starting at `idx`) to `target`. Returns
// MIGRATE_OK or MIGRATE_EAGAIN, updates pgmigrate_* / thp_migration_* / numa_pages_migrated, and
// adds the kernel time of the copy, unmap and remap to `kernel_ns`. Every other mapping of the
// folio is restored without its NUMA hint (remove_migration_ptes); the faulting mapping's PTE is
// the caller's to restore. With `record` (a base page), also says what a like page's migration
// would repeat (migrate_folio_cost).
int migrate_misplaced_folio(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr, int target,
                            double& kernel_ns, MigrateCostRecord* record = nullptr);

// How many more base pages could migrate to `target` as the last one did, as far as the target's
// watermark goes: migrate_misplaced_folio_prepare() and the allocation check the same bound.
uint64_t migrate_room(const System& sys, int target);

// Repeats for the `nr` base pages at `idx`, like the page migrated with `record` (frames already
// tagged and moved to the target by the caller), what migrating each of them would do: the
// allocations, the freed source pages, the totals, the counters and tracepoints, the charges of
// the record, and the other mappings' hints dropped. The caller checked migrate_room and the
// record's `alike`.
void repeat_migrate_misplaced_folio(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr,
                                    const MigrateCostRecord& record);

// Reclaim's migration of the folio (nr = 1 or the VMA's PMD page count, at `idx`) to `target`,
// whose pages the caller allocated (migrate_pages() with MR_DEMOTION, mm/vmscan.h): the frames
// move with their LRU flags, every mapping's NUMA hint on them goes (remove_migration_ptes), and
// pgmigrate_success / thp_migration_success count it. The kernel time is kswapd's or the direct
// reclaimer's, not charged to a task.
void migrate_demote_folio(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target);

// pghot's kmigrated promoting the folio (nr = 1 or the VMA's PMD page count, at `idx`) to
// `target` (migrate_pages() with MR_NUMA_MISPLACED from promote_misplaced_memcg_folios, the
// caller counting the call): the allocation on exactly `target`, made from `cpu`; then the move
// as demotion makes it (every mapping's NUMA hint goes) and the counters of a NUMA promotion
// (numa_pages_migrated, pgpromote_success). The kernel time is kmigrated's, not a task's.
// Returns MIGRATE_OK, or MIGRATE_EAGAIN when the target has no room.
int migrate_kmigrated_folio(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target, int cpu);

// The migration of a system call (migrate_pages() with MR_SYSCALL, as migrate_pages(2) and
// move_pages(2) make it) of the folio (nr = 1 or the VMA's PMD page count, at `idx`) to
// `target`, on exactly that node (alloc_migration_target with __GFP_THISNODE). The caller, a
// process outside the simulation running on `cpu`, drained the LRU add batches first
// (lru_cache_disable). Every mapping's PTE is remade from its VMA's protection, so no NUMA hint
// survives. Counts pgmigrate_* and thp_migration_* (numa_pages_migrated is the hinting fault's
// only); adds the caller's kernel time to `kernel_ns` and charges the mappers that wait.
// Returns MIGRATE_OK, or MIGRATE_EAGAIN when the target has no room.
int migrate_syscall_folio(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target, int cpu,
                          double& kernel_ns);

}  // namespace numasim
