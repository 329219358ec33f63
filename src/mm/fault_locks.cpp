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

void FaultLocks::add(const Record& r, size_t& last) {
    if (last < records_.size()) {
        Record& l = records_[last];
        if (l.kind == r.kind && l.mm == r.mm && l.vma == r.vma && l.sub == r.sub &&
            l.task == r.task && l.node == r.node) {
            l.count += r.count;
            return;
        }
    }
    last = records_.size();
    records_.push_back(r);
}

void FaultLocks::settle(System& sys) {
    const Nanos window = sys.now - last_settle_;
    if (window <= 0) return;  // faults noted at this instant are settled with the next interval
    last_settle_ = sys.now;
    if (records_.empty()) return;
    const CostModel& cost = sys.cost;
    const double t_window = static_cast<double>(window);
    auto key = [](const Record& r) { return std::tie(r.kind, r.mm, r.vma, r.sub); };
    std::sort(records_.begin(), records_.end(), [&](const Record& a, const Record& b) {
        return std::tie(a.kind, a.mm, a.vma, a.sub, a.task) <
               std::tie(b.kind, b.mm, b.vma, b.sub, b.task);
    });
    const int nodes = sys.nr_nodes();
    node_faults_.resize(static_cast<size_t>(nodes));
    for (size_t g = 0; g < records_.size();) {
        size_t e = g;
        int tasks = 0;
        uint64_t faults = 0;
        while (e < records_.size() && key(records_[e]) == key(records_[g])) {
            if (e == g || records_[e].task != records_[e - 1].task) ++tasks;
            faults += records_[e].count;
            ++e;
        }
        if (tasks < 2) {  // one task alone keeps the line in its own cache
            g = e;
            continue;
        }
        // The line moves between the faulting CPUs: the average transfer over pairs of faults.
        std::fill(node_faults_.begin(), node_faults_.end(), 0);
        for (size_t i = g; i < e; ++i)
            node_faults_[records_[i].node] += static_cast<int>(records_[i].count);
        const double n_all = static_cast<double>(faults);
        double x = 0;
        for (int a = 0; a < nodes; ++a)
            for (int b = 0; node_faults_[a] && b < nodes; ++b)
                if (node_faults_[b])
                    x += static_cast<double>(node_faults_[a]) *
                         static_cast<double>(node_faults_[b]) * cost.line_transfer_ns(a, b);
        x /= n_all * n_all;
        const bool as = records_[g].kind == kAddressSpace;
        const double transfer = as ? 2 * x : x;
        const double hold = as ? transfer : x + cost.cycles_ns(cost::PTL_HOLD_CYCLES);
        const double others_max = hold * (tasks - 1);
        for (size_t i = g; i < e;) {
            size_t j = i;
            uint64_t my_faults = 0;
            while (j < e && records_[j].task == records_[i].task)
                my_faults += records_[j++].count;
            const double mine = static_cast<double>(my_faults), others = n_all - mine;
            const double u = hold * others / t_window;
            const double wait =
                u >= 1 ? others_max : std::min(others_max, hold * u / (2 * (1 - u)));
            const double ns = mine * (wait + transfer * others / n_all);
            Task& t = *sys.tasks[records_[i].task];
            if (!t.exiting()) {
                sys.catch_up_cpu(t.cpu);
                t.kernel_debt += static_cast<Nanos>(std::llround(ns));
                sys.cost.stats().fault_lock_wait_ns += ns;
            }
            i = j;
        }
        g = e;
    }
    records_.clear();
}

}  // namespace numasim
