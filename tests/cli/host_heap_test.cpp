// The numasim process's heap on huge pages of the host (cli/host_heap.h), set up in this test
// process as numasim's main() sets it up.
#include "cli/host_heap.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// The VmFlags line of the mapping in /proc/self/smaps that holds `addr`, or "" if none does.
std::string vm_flags_at(uintptr_t addr) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long lo = 0, hi = 0;
        // A mapping's first line: "lo-hi perms offset dev inode path", both bounds in hex.
        if (line.find(':') > line.find(' ') &&
            std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) {
            inside = addr >= lo && addr < hi;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) return line;
    }
    return "";
}

TEST(HostHeap, LargeRequestsComeFromTheHugePageHeap) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's: nothing is set up";
#endif
    if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
        GTEST_SKIP() << "the host kernel has no transparent huge pages";
    numasim::back_heap_with_huge_pages();
    // 4 MiB: glibc would map it on its own (its default threshold is 128 KiB), in small pages.
    constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
    void* p = std::malloc(size_t{4} << 20);
    ASSERT_NE(p, nullptr);
    const auto a = reinterpret_cast<uintptr_t>(p);
    EXPECT_LT(a, reinterpret_cast<uintptr_t>(sbrk(0))) << "not from the heap (brk area)";
    // The heap's reserve is advised for huge pages: the kernel lists "hg" among its flags.
    const std::string flags = vm_flags_at((a + kHugePage - 1) & ~(kHugePage - 1));
    EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
    std::free(p);
}

}  // namespace
