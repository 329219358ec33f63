// A fixture for the LRU walk tests: cascadelake-2s-pmem under v6.6 with demotion on (node 0
// DRAM, demoting to node 2), one anonymous mapping whose pages were all first-touched on node 0
// and put on its LRU, and demotions of its folios to node 2.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "engine/process.h"
#include "mm/lru_add.h"
#include "mm/migrate.h"
#include "mm/page_alloc.h"
#include "mm_fixture.h"

namespace numasim::mmtest {

struct LruMapping : ::testing::Test {
    World w{"cascadelake-2s-pmem"};
    Vma* vma = nullptr;

    void SetUp() override {
        w.sys.set_kernel_release("v6.6");
        w.sys.knobs.demotion_enabled = true;
    }
    // A mapping of `bytes` at `addr` (0: anywhere) with `flags`, every page first-touched on
    // node 0 and on its LRU.
    void map(uint64_t bytes, uint32_t flags = 0, uint64_t addr = 0) {
        Mm& mm = mm_create(w.sys);
        vma = &do_mmap(w.sys, mm, bytes, VM_READ | VM_WRITE | flags, "anon", nullptr, 0, addr);
        add_region(w.sys, *vma, 0, vma->nr_pages(), "all");
        Task& p = w.task_on(0);
        for (uint64_t i = 0; i < vma->nr_pages(); ++i)
            if (!vma->present.test(i)) handle_mm_fault(w.sys, p, *vma, i, true);
        lru_add_drain_all(w.sys);
    }
    // The folio of `nr` pages at `idx` demoted to node 2 (a THP when nr > 1).
    void demote(uint64_t idx, uint64_t nr = 1) {
        ASSERT_EQ(alloc_demote_page(w.sys, 2, uint64_t{1} << 2, nr > 1 ? 9 : 0, 0), 2);
        migrate_demote_folio(w.sys, *vma, idx, nr, 2);
    }
};

}  // namespace numasim::mmtest
