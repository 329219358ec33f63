// The size of a base page and of a PMD-mapped THP, which differ between architectures and
// kernel configurations (x86-64: 4 KiB and 2 MiB; ppc64 with 64 KiB pages: 16 MiB or 2 MiB).
#pragma once

#include <bit>
#include <cstdint>

namespace numasim {

// The base page and the PMD-mapped THP of one simulated kernel: a property of the machine
// (MemoryHardware::pages, the machine file's [hardware] page_size and mmu keys), carried by the
// System, every Mm and every Vma, never a global, so that runs of different machines may share
// a process. Counters stay counts of base pages, as the kernel counts them.
struct PageGeometry {
    int shift = 12;           // PAGE_SHIFT
    int pmd_order = 9;        // HPAGE_PMD_ORDER = PMD_SHIFT - PAGE_SHIFT (PTRS_PER_PTE = 1 << it)
    int pmd_table_order = 9;  // log2 PTRS_PER_PMD: one PMD table maps 2^this PMDs

    constexpr uint64_t size() const { return uint64_t{1} << shift; }            // PAGE_SIZE
    constexpr uint64_t pmd_nr() const { return uint64_t{1} << pmd_order; }      // HPAGE_PMD_NR
    constexpr int pmd_shift() const { return shift + pmd_order; }               // PMD_SHIFT
    constexpr uint64_t pmd_size() const { return uint64_t{1} << pmd_shift(); }  // HPAGE_PMD_SIZE
    constexpr uint64_t kib() const { return size() / 1024; }  // a page in the KiB of /proc outputs
    // 1 / PAGE_SIZE, built from its exponent: multiplying by it is dividing by the size, bit for
    // bit, since both are powers of two.
    constexpr double inverse_size() const {
        return std::bit_cast<double>(static_cast<uint64_t>(1023 - shift) << 52);
    }
    // The pages that hold `bytes`, rounded up.
    constexpr uint64_t pages(uint64_t bytes) const { return (bytes + size() - 1) >> shift; }
    bool operator==(const PageGeometry&) const = default;
};

// x86-64 (arch/x86/include/asm/pgtable_64_types.h: PTRS_PER_PTE and PTRS_PER_PMD 512): 4 KiB
// pages, 2 MiB PMDs, 1 GiB PMD tables. A machine file with 4 KiB pages gets this whatever its MMU.
inline constexpr PageGeometry kPages4K{12, 9, 9};
// ppc64 CONFIG_PPC_64K_PAGES on the hash MMU (POWER7, POWER8; arch/powerpc/include/asm/book3s/64/
// hash-64k.h: H_PTE_INDEX_SIZE 8, H_PMD_INDEX_SIZE 10): 64 KiB pages, 16 MiB PMDs.
inline constexpr PageGeometry kPages64KHash{16, 8, 10};
// ppc64 CONFIG_PPC_64K_PAGES on the radix MMU (PowerNV POWER9; book3s/64/radix-64k.h:
// RADIX_PTE_INDEX_SIZE 5, RADIX_PMD_INDEX_SIZE 9): 64 KiB pages, 2 MiB PMDs.
inline constexpr PageGeometry kPages64KRadix{16, 5, 9};

}  // namespace numasim
