// migrate_pages(2) as the kernel carries it out for a process outside the simulation (a daemon
// such as numad): kernel_migrate_pages() -> do_migrate_pages() -> migrate_to_node() in
// mm/mempolicy.c. Each source node's pages that the process alone maps (MPOL_MF_MOVE: a folio
// mapped by another process stays, migrate_folio_add) move to the node that node_remap() pairs
// it with, through migrate_pages() with MR_SYSCALL (mm/migrate.h, migrate_syscall_folio).
#pragma once

#include <cstdint>

namespace numasim {

struct System;
struct Mm;
struct Task;

// Where node `s` of `from` goes in `to`: the node of `to` at the position `s` holds in `from`,
// counted modulo the weight of `to` (node_remap(), lib/bitmap.c bitmap_bitremap). Masks are
// node bitmasks; `to` is not empty.
int node_remap(int s, uint64_t from, uint64_t to);

// do_migrate_pages(mm, from, to, MPOL_MF_MOVE) with the caller on `cpu`: the pages that could
// not be moved (no room on the target). Adds the caller's kernel time to `kernel_ns`. Each
// source node whose list of folios is not empty is one migrate_pages() call: counted in
// mm_migrate_pages and traced (mm_migrate_pages_start, mm_migrate_pages) in the context of
// `caller` (null: the task running on `cpu`).
uint64_t do_migrate_pages(System& sys, Mm& mm, uint64_t from, uint64_t to, int cpu,
                          double& kernel_ns, const Task* caller = nullptr);

}  // namespace numasim
