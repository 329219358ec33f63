// khugepaged's part in NUMA balancing (mm/khugepaged.c): not its collapses, which the model does
// not make, but the lru_add_drain_all() that begins each of its scan passes. An mm joins
// khugepaged's list when it maps a THP-eligible VMA (khugepaged_enter_vma, MMF_VM_HUGEPAGE), its
// children inherit the membership at fork (khugepaged_fork), and it leaves when its last user
// exits (khugepaged_exit). While the list is not empty, khugepaged runs a pass, then sleeps
// scan_sleep_millisecs (10 s by default): every CPU's LRU add batch (mm/lru_add.h) moves to the
// LRU at least that often, so a folio waits at most about 10 s where THP is in use.
#pragma once

#include "sim/clock.h"

namespace numasim {

struct System;
struct Mm;

// /sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs, default 10000
// (khugepaged_scan_sleep_millisecs in mm/khugepaged.c).
inline constexpr Nanos KHUGEPAGED_SCAN_SLEEP_NS = 10'000'000'000;

// khugepaged_enter_vma() for a THP-eligible VMA of `mm`, and khugepaged_fork() (the same for a
// child of a listed mm).
void khugepaged_enter(System& sys, Mm& mm);
// khugepaged_exit(): the mm's last user is gone.
void khugepaged_exit(System& sys, Mm& mm);
// At a tick: a pass if khugepaged has mms and its sleep is over.
void khugepaged_tick(System& sys);

}  // namespace numasim
