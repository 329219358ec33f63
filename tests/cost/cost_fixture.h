// A machine with hand-built running tasks for the cost model tests: regions whose pages are put
// on a node by setting the region totals, and runners (what the cost model sees of a task: its
// CPU and its access mix) placed on CPUs without the scheduler.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cost/constants.h"
#include "engine/process.h"
#include "kernel/system.h"
#include "machine/presets.h"

namespace numasim::costtest {

inline NumaBalancingKnobs off() {
    NumaBalancingKnobs k;
    k.numa_balancing = 0;
    return k;
}

// A task as the cost model sees it: the CPU it runs on, its access mix and an identity.
struct Runner {
    int cpu = 0;
    int id = 0;
    std::vector<AccessStream> streams;
    AccessMix mix;
    uint64_t version = 0;  // CpuRunning::mix_version (0: the mix is compared by content)
};

struct CostWorld {
    explicit CostWorld(const std::string& preset) : sys(load_preset(preset), off(), 1) {}
    explicit CostWorld(Topology topo) : sys(std::move(topo), off(), 1) {}

    // A region of `mb` MiB whose pages are all present on `nid` (totals set directly).
    Region& region_on(double mb, int nid) {
        Mm& mm = mm_create(sys);
        Vma& v = do_mmap(sys, mm, static_cast<uint64_t>(mb * (1 << 20)), VM_READ | VM_WRITE, "r");
        Region& r = add_region(sys, v, 0, v.nr_pages(), "r");
        r.node_pages[nid] = r.count;
        r.present = r.count;
        r.stamp.bump();  // as every writer of the totals does (cost/cost_model.h)
        return r;
    }

    // A task running `region` on `cpu` with a sweep (or other pattern) at `rate` GB/s.
    Runner& run_on(int cpu, Region& r, double rate, Pattern pat = Pattern::Sweep, double mlp = 0) {
        runners.push_back(std::make_unique<Runner>());
        Runner& p = *runners.back();
        p.cpu = cpu;
        p.id = next_id++;
        p.streams.push_back(AccessStream{&r, pat, 1.0, 0.0});
        p.mix = {p.streams, rate, mlp};
        return p;
    }
    // The task on `cpu` stops running.
    void stop(int cpu) {
        std::erase_if(runners, [cpu](const auto& r) { return r->cpu == cpu; });
    }
    // The tick's update at time `now`: every runner in user mode all along.
    void update(Nanos now = 0) {
        std::vector<CpuRunning> running(static_cast<size_t>(sys.nr_cpus()));
        for (const auto& r : runners)
            running[r->cpu] = CpuRunning{&r->mix, r->id, 1.0, r->version};
        sys.cost.update(running, now);
    }

    double line_ns(const Runner& p) const {
        return sys.cost.ns_per_byte(p.mix, p.cpu) * cost::CACHE_LINE_BYTES;
    }
    // Bytes per ns of progress of p under the current contention.
    double progress_gbs(const Runner& p) const { return 1.0 / sys.cost.ns_per_byte(p.mix, p.cpu); }

    System sys;
    std::vector<std::unique_ptr<Runner>> runners;
    int next_id = 0;
};

}  // namespace numasim::costtest
