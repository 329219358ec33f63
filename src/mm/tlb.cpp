#include "mm/tlb.h"

#include <bit>
#include <cstdint>

#include "cost/constants.h"
#include "kernel/latency.h"
#include "kernel/system.h"

namespace numasim {

namespace {

// Sends the IPIs to the CPUs set in `words` (a cpumask), skipping `cpu`.
double shootdown(System& sys, const uint64_t* words, size_t nwords, int cpu, TlbFlushLog* log) {
    CostModel& cost = sys.cost;
    const int from = sys.cpu_to_node(cpu);
    double ns = 0;
    uint64_t targets = 0;
    for (size_t w = 0; w < nwords; ++w)
        for (uint64_t m = words[w]; m; m &= m - 1) {
            const int c = static_cast<int>(w * 64 + static_cast<size_t>(std::countr_zero(m)));
            if (c == cpu || c >= sys.nr_cpus()) continue;
            ++targets;
            ns += 2 * cost.line_transfer_ns(from, sys.cpu_to_node(c));
            if (Task* t = sys.rqs[c].curr) {
                sys.catch_up_cpu(c);  // the IPI comes after what that CPU held back
                t->kernel_debt += static_cast<Nanos>(sys.cost.k().TLB_FLUSH_IPI_NS);
                if (sys.latency)
                    sys.latency->record(*t, LatencyKind::TlbIpi,
                                        static_cast<Nanos>(sys.cost.k().TLB_FLUSH_IPI_NS));
                if (log) log->interrupted.push_back(t);
            }
        }
    if (!targets) return 0.0;
    ++cost.stats().tlb_shootdowns;
    cost.stats().tlb_ipis += targets;
    if (log) {
        ++log->shootdowns;
        log->ipis += targets;
    }
    return ns + sys.cost.k().TLB_SHOOTDOWN_NS;
}

size_t mask_words(const Mm& mm) {
    return (mm.cpumask.size() + 63) / 64;
}

}  // namespace

void switch_mm_irqs_off(System& sys, int cpu, Mm* next) {
    Mm*& loaded = sys.rqs[cpu].loaded_mm;
    if (!next || next == loaded) return;
    if (loaded) loaded->cpumask.clear(static_cast<uint64_t>(cpu));
    if (next->cpumask.size() == 0) next->cpumask = Bitmap(static_cast<uint64_t>(sys.nr_cpus()));
    next->cpumask.set(static_cast<uint64_t>(cpu));
    loaded = next;
}

double flush_tlb_mm_range(System& sys, const Mm& mm, int cpu, TlbFlushLog* log) {
    return shootdown(sys, mm.cpumask.data(), mask_words(mm), cpu, log);
}

double flush_tlb_batched(System& sys, const std::vector<const Mm*>& mms, int cpu,
                         TlbFlushLog* log) {
    // Kept between calls (per host thread): a migration of a page hundreds of processes map
    // flushes at every run of like pages.
    thread_local std::vector<uint64_t> words;
    words.clear();
    for (const Mm* mm : mms) {
        const size_t n = mask_words(*mm);
        if (words.size() < n) words.resize(n, 0);
        for (size_t w = 0; w < n; ++w)
            words[w] |= mm->cpumask.data()[w];
    }
    return shootdown(sys, words.data(), words.size(), cpu, log);
}

void repeat_tlb_flushes(System& sys, const TlbFlushLog& log, uint64_t times) {
    for (Task* t : log.interrupted) {
        sys.catch_up_cpu(t->cpu);
        t->kernel_debt +=
            static_cast<Nanos>(sys.cost.k().TLB_FLUSH_IPI_NS) * static_cast<Nanos>(times);
        if (sys.latency)
            sys.latency->record(*t, LatencyKind::TlbIpi,
                                static_cast<Nanos>(sys.cost.k().TLB_FLUSH_IPI_NS), times);
    }
    sys.cost.stats().tlb_shootdowns += log.shootdowns * times;
    sys.cost.stats().tlb_ipis += log.ipis * times;
}

}  // namespace numasim
