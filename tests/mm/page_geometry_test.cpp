// The base page and PMD THP as a property of the machine: the mm, its VMAs, first touch, the
// node's page counts and numa_maps follow it. Hand-worked on tiny-2n (2 nodes x 2 GiB) with the
// page size of a ppc64 kernel instead of x86-64's.
#include <gtest/gtest.h>

#include "kernel/numa_maps.h"
#include "mm_fixture.h"

namespace numasim {
namespace {

// A tiny-2n System whose kernel runs `pages`.
struct PagedWorld : mmtest::World {
    explicit PagedWorld(PageGeometry pages) : World(machine(pages)) {}
    static Topology machine(PageGeometry pages) {
        Topology t = load_preset("tiny-2n");
        t.hw.pages = pages;
        return t;
    }
};

TEST(PageGeometry, SizesOfTheThreeKernels) {
    EXPECT_EQ(kPages4K.size(), 4096u);
    EXPECT_EQ(kPages4K.pmd_nr(), 512u);
    EXPECT_EQ(kPages4K.pmd_size(), uint64_t{2} << 20);
    EXPECT_EQ(kPages64KHash.size(), 65536u);
    EXPECT_EQ(kPages64KHash.pmd_nr(), 256u);
    EXPECT_EQ(kPages64KHash.pmd_size(), uint64_t{16} << 20);
    EXPECT_EQ(kPages64KRadix.pmd_nr(), 32u);
    EXPECT_EQ(kPages64KRadix.pmd_size(), uint64_t{2} << 20);
    EXPECT_EQ(kPages64KRadix.kib(), 64u);
    EXPECT_EQ(kPages64KRadix.pages(1), 1u);
    EXPECT_EQ(kPages64KRadix.pages(65537), 2u);
}

// A 1 MiB mapping is 16 pages of 64 KiB; every page index maps to its 64 KiB address.
TEST(PageGeometry, VmaOf1MiBIs16PagesOf64K) {
    PagedWorld w(kPages64KRadix);
    Mm& mm = mm_create(w.sys);
    EXPECT_EQ(mm.pages, kPages64KRadix);
    Vma& v = do_mmap(w.sys, mm, uint64_t{1} << 20, VM_READ | VM_WRITE, "buf");
    EXPECT_EQ(v.pages, kPages64KRadix);
    EXPECT_EQ(v.nr_pages(), 16u);
    EXPECT_EQ(v.page_index(v.start + 3 * 65536 + 100), 3u);
    EXPECT_EQ(v.page_addr(5), v.start + 5 * 65536);
    // A mapping that is not a whole number of pages is rounded up: 100 KiB is 2 pages.
    EXPECT_EQ(do_mmap(w.sys, mm, 100 * 1024, VM_READ | VM_WRITE, "odd").nr_pages(), 2u);
}

// 2 GiB per node is 32768 pages of 64 KiB, and the watermarks are 16x fewer pages than with
// 4 KiB (the same bytes).
TEST(PageGeometry, NodePagesAndWatermarksIn64KPages) {
    PagedWorld w4(kPages4K), w64(kPages64KHash);
    const NodeMemory& a = w4.sys.mem.nodes[0];
    const NodeMemory& b = w64.sys.mem.nodes[0];
    EXPECT_EQ(a.present_pages, 524288u);
    EXPECT_EQ(b.present_pages, 32768u);
    EXPECT_EQ(b.wmark_min, a.wmark_min * 4096 / 65536);
}

// First touch clears one base page: 64 KiB at one core's streaming rate (clear_ns: 10 lines *
// 64 B / 90 ns = 7.111 GB/s) is 9216 ns, 16x the 576 ns of a 4 KiB page; the fault's 1700
// cycles at 2.5 GHz (680 ns) stay.
TEST(PageGeometry, FirstTouchClearsA64KPage) {
    PagedWorld w(kPages64KRadix);
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, 16 * 65536, VM_READ | VM_WRITE, "anon");
    Region& r = add_region(w.sys, v, 0, 16, "r");
    Task& p = w.task_on(3);  // node 1
    const double ns = handle_mm_fault(w.sys, p, v, 5, true);
    EXPECT_NEAR(ns, 680.0 + 9216.0, 1e-6);
    EXPECT_EQ(r.pages_on(1), 1u);
    EXPECT_EQ(r.bytes(), 16u * 65536);
    EXPECT_EQ(mm.rss_pages, 1u);
    EXPECT_EQ(w.sys.counters[Vm::pgfault], 1u);
    EXPECT_EQ(w.sys.mem.nodes[1].free_pages, w.sys.mem.nodes[1].present_pages - 1);
}

// On the hash MMU a PMD THP is 16 MiB: one fault maps 256 pages of 64 KiB, aligned to 16 MiB.
TEST(PageGeometry, ThpOnTheHashMmuIs256PagesOf64K) {
    PagedWorld w(kPages64KHash);
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, uint64_t{32} << 20, VM_READ | VM_WRITE | VM_HUGEPAGE, "thp");
    ASSERT_EQ(v.start % (uint64_t{16} << 20), 0u);
    EXPECT_EQ(v.nr_pages(), 512u);
    Task& p = w.task_on(0);
    handle_mm_fault(w.sys, p, v, 300, true);
    EXPECT_EQ(w.sys.counters[Vm::thp_fault_alloc], 1u);
    EXPECT_EQ(v.present.count(0, 512), 256u);
    EXPECT_EQ(v.present.count(256, 512), 256u);  // the second 16 MiB block, pages 256..511
    EXPECT_EQ(mm.rss_pages, 256u);
    EXPECT_TRUE(v.pmd_mapped.test(1));
    EXPECT_FALSE(v.pmd_mapped.test(0));
}

// numa_maps reports the kernel's page size.
TEST(PageGeometry, NumaMapsKernelPageSize) {
    PagedWorld w(kPages64KHash);
    Mm& mm = mm_create(w.sys);
    Vma& v = do_mmap(w.sys, mm, 4 * 65536, VM_READ | VM_WRITE, "anon");
    handle_mm_fault(w.sys, w.task_on(0), v, 0, true);
    const std::string maps = numa_maps(w.sys, mm);
    EXPECT_NE(maps.find(" N0=1 kernelpagesize_kB=64"), std::string::npos) << maps;
}

}  // namespace
}  // namespace numasim
