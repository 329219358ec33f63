// TLB shootdowns as x86 Linux does them (arch/x86/mm/tlb.c): after changing PTEs that other CPUs
// may have cached, flush_tlb_mm_range() flushes locally and, if mm_cpumask(mm) holds other CPUs,
// sends them an IPI through smp_call_function_many_cond() and waits until each has run
// flush_tlb_func(). The initiator pays a fixed round trip plus two cache-line transfers per
// target (queueing the request on the target, polling its completion); every target pays the
// interrupt. The cost therefore grows with the number of CPUs the mm has run on.
//
// Callers: change_prot_numa() (one flush per call that changed PTEs, tlb_finish_mmu), and the
// unmap step of a migration (try_to_migrate_one: only mappings whose PTE is still accessible,
// as ptep_clear_flush skips a PROT_NONE PTE; a PMD-mapped THP always, pmdp_invalidate). Since
// v6.3 migration batches those flushes into one for all the mms (knob migrate_tlb_batch), and
// since v6.4 (4d4b6d66db63) the batch too leaves out PTEs that were not accessible.
//
// mm_cpumask follows switch_mm_irqs_off(): a CPU joins the mask of the mm it switches to and
// leaves the one it ran before; an idle CPU keeps its mm (lazy TLB) and so stays a target.
#pragma once

#include <cstdint>
#include <vector>

namespace numasim {

struct Mm;
struct System;
struct Task;

// What flushes did to the other CPUs: the tasks they interrupted (once per IPI) and the
// shootdown counts, so that a run of like migrations (fault runs) can charge them again
// without building the masks again.
struct TlbFlushLog {
    std::vector<Task*> interrupted;
    uint64_t shootdowns = 0, ipis = 0;
};

// The context switch on `cpu` to a task of `next` (nullptr: a kernel thread, which borrows the
// previous mm as an idle CPU does).
void switch_mm_irqs_off(System& sys, int cpu, Mm* next);

// Initiator's kernel ns for flushing `mm` everywhere but `cpu`; charges the targets. 0 if no
// other CPU is in mm_cpumask.
// With `log`, also records what it charged.
double flush_tlb_mm_range(System& sys, const Mm& mm, int cpu, TlbFlushLog* log = nullptr);
// One flush for the CPUs of all of `mms` (the batched unmap flush, try_to_unmap_flush()).
double flush_tlb_batched(System& sys, const std::vector<const Mm*>& mms, int cpu,
                         TlbFlushLog* log = nullptr);
// Charges what the logged flushes charged, `times` times over.
void repeat_tlb_flushes(System& sys, const TlbFlushLog& log, uint64_t times);

}  // namespace numasim
