#include "mm/fault_locks.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "cost/constants.h"
#include "kernel/system.h"

namespace numasim {

void FaultLocks::note(const System& sys, const Task& p, const Vma& vma, uint64_t idx,
                      uint32_t count) {
    const int node = sys.cpu_to_node(p.cpu);
    const int mm = vma.mm ? vma.mm->id : -1;
    add(Record{sys.knobs.per_vma_lock ? vma.start : 0, 0, mm, kAddressSpace, p.index, node, count},
        last_as_);
    uint64_t first = 0;
    const bool huge = vma.pmd_mapped_at(idx, first);
    // The lock of the PTE table (one PMD's pages) or, for a PMD-mapped THP, of the PMD table.
    const int pte_table = vma.pages.pmd_order, pmd_table = pte_table + vma.pages.pmd_table_order;
    const uint64_t table = huge ? (idx >> pmd_table) << 1 | 1 : (idx >> pte_table) << 1;
    add(Record{vma.start, table, mm, kPageTable, p.index, node, count}, last_pt_);
    noted_ += count;
}

namespace {

// The fields of a record pack into a Key's words, in order, when its VMA starts below x86-64's
// 47-bit user address space (TASK_SIZE_MAX) on a 4 KiB boundary (35 bits of start address
// above the page offset), its mm id is below 2^28 and its page-table page below 2^32.
constexpr uint64_t kPackedVmaEnd = uint64_t{1} << 47;
constexpr int kPageOffsetBits = 12, kPackedMmBits = 28, kPackedSubBits = 32;

}  // namespace

void FaultLocks::sort_keys() {
    keys_.clear();
    bool packs = true;
    for (const Record& r : records_)
        packs = packs && r.vma < kPackedVmaEnd && (r.vma & ((1u << kPageOffsetBits) - 1)) == 0 &&
                static_cast<uint64_t>(r.mm + 1) < (uint64_t{1} << kPackedMmBits) &&
                r.sub < (uint64_t{1} << kPackedSubBits);
    const auto task_bits = [](const Record& r) {
        return static_cast<uint64_t>(static_cast<uint32_t>(r.task));
    };
    if (packs) {
        for (const Record& r : records_)
            keys_.push_back({uint64_t{r.kind} << 63 |
                                 static_cast<uint64_t>(r.mm + 1) << (63 - kPackedMmBits) |
                                 r.vma >> kPageOffsetBits,
                             r.sub << 32 | task_bits(r), r.node, r.count});
        std::sort(keys_.begin(), keys_.end(), [](const Key& a, const Key& b) {
            return a.word != b.word ? a.word < b.word : a.sub_task < b.sub_task;
        });
        return;
    }
    // Larger address spaces: sorted by the fields themselves, each lock word then named by its
    // rank (the kind stays in the top bit, so a word's kind reads the same either way).
    std::sort(records_.begin(), records_.end(), [](const Record& a, const Record& b) {
        return std::tie(a.kind, a.mm, a.vma, a.sub, a.task) <
               std::tie(b.kind, b.mm, b.vma, b.sub, b.task);
    });
    uint64_t rank = 0;
    for (size_t i = 0; i < records_.size(); ++i) {
        const Record& r = records_[i];
        if (i > 0 && std::tie(r.kind, r.mm, r.vma, r.sub) !=
                         std::tie(records_[i - 1].kind, records_[i - 1].mm, records_[i - 1].vma,
                                  records_[i - 1].sub))
            ++rank;
        keys_.push_back({uint64_t{r.kind} << 63 | rank, task_bits(r), r.node, r.count});
    }
}

void FaultLocks::settle(System& sys) {
    const Nanos window = sys.now - last_settle_;
    if (window <= 0) return;  // faults noted at this instant are settled with the next interval
    last_settle_ = sys.now;
    if (records_.empty()) return;
    const CostModel& cost = sys.cost;
    const double t_window = static_cast<double>(window);
    sort_keys();
    records_.clear();
    // One lock word: the same kind, mm, VMA and page-table page.
    const auto same_word = [](const Key& a, const Key& b) {
        return a.word == b.word && a.sub_task >> 32 == b.sub_task >> 32;
    };
    const auto task = [](const Key& k) { return static_cast<uint32_t>(k.sub_task); };
    const int nodes = sys.nr_nodes();
    node_faults_.resize(static_cast<size_t>(nodes));
    for (size_t g = 0; g < keys_.size();) {
        size_t e = g;
        int tasks = 0;
        uint64_t faults = 0;
        while (e < keys_.size() && same_word(keys_[e], keys_[g])) {
            if (e == g || task(keys_[e]) != task(keys_[e - 1])) ++tasks;
            faults += keys_[e].count;
            ++e;
        }
        if (tasks < 2) {  // one task alone keeps the line in its own cache
            g = e;
            continue;
        }
        // The line moves between the faulting CPUs: the average transfer over pairs of faults.
        std::fill(node_faults_.begin(), node_faults_.end(), 0);
        for (size_t i = g; i < e; ++i)
            node_faults_[keys_[i].node] += static_cast<int>(keys_[i].count);
        const double n_all = static_cast<double>(faults);
        double x = 0;
        for (int a = 0; a < nodes; ++a)
            for (int b = 0; node_faults_[a] && b < nodes; ++b)
                if (node_faults_[b])
                    x += static_cast<double>(node_faults_[a]) *
                         static_cast<double>(node_faults_[b]) * cost.line_transfer_ns(a, b);
        x /= n_all * n_all;
        const bool as = keys_[g].word >> 63 == kAddressSpace;
        const double transfer = as ? 2 * x : x;
        const double hold = as ? transfer : x + cost.cycles_ns(cost.k().PTL_HOLD_CYCLES);
        const double others_max = hold * (tasks - 1);
        for (size_t i = g; i < e;) {
            size_t j = i;
            uint64_t my_faults = 0;
            while (j < e && task(keys_[j]) == task(keys_[i]))
                my_faults += keys_[j++].count;
            const double mine = static_cast<double>(my_faults), others = n_all - mine;
            const double u = hold * others / t_window;
            const double wait =
                u >= 1 ? others_max : std::min(others_max, hold * u / (2 * (1 - u)));
            const double ns = mine * (wait + transfer * others / n_all);
            Task& t = *sys.tasks[task(keys_[i])];
            if (!t.exiting()) {
                sys.catch_up_cpu(t.cpu);
                t.kernel_debt += static_cast<Nanos>(std::llround(ns));
                sys.cost.stats().fault_lock_wait_ns += ns;
            }
            i = j;
        }
        g = e;
    }
}

}  // namespace numasim
