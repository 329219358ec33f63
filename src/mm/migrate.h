// NUMA page migration (mm/migrate.c): migrate_misplaced_folio_prepare() checks and
// migrate_misplaced_folio(), moving a base page or a PMD-mapped THP to a target node. A
// migration fails when the target is below its watermarks; a THP is not split on failure.
#pragma once

#include <cstdint>

namespace numasim {

struct System;
struct Task;
struct Vma;

// Error codes as the kernel returns them.
inline constexpr int MIGRATE_OK = 0;
inline constexpr int MIGRATE_EAGAIN = -11;
inline constexpr int MIGRATE_EACCES = -13;

// Checks before isolating the folio at `idx` (nr pages) for migration to `target`.
int migrate_misplaced_folio_prepare(System& sys, Vma& vma, uint64_t idx, uint64_t nr, int target);

// Moves the folio (nr = 1 or the VMA's PMD page count, starting at `idx`) to `target`. Returns
// MIGRATE_OK or MIGRATE_EAGAIN, updates pgmigrate_* / thp_migration_* / numa_pages_migrated, and
// adds the kernel time of the copy, unmap and remap to `kernel_ns`.
int migrate_misplaced_folio(System& sys, Task& p, Vma& vma, uint64_t idx, uint64_t nr, int target,
                            double& kernel_ns);

}  // namespace numasim
